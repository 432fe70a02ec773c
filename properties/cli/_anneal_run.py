"""What every ``anneal`` run shares: the step count, the cost guard, and what Ctrl-C prints.

Used by :mod:`._anneal` (S¹ and built-in landscapes) and :mod:`.anneal_network` (landscape specs and saved
searches), so both refuse the same sizes and resume the same way. Imports nothing from JAX (the command
refuses bad options before JAX starts).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from typing import Any

from contrastive_bounds.numerics.langevin._config import default_record_every, whole_steps
from contrastive_bounds.numerics.langevin._cost import estimate_run_cost
from contrastive_bounds.properties._statements import compare_text

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

MAX_CHAIN_STEPS = 2 * 10**10
"""Runs beyond this many chain-steps (chains × steps; about 2-4 minutes per 10^10 on a 2-core CPU in
float64 on S¹, far longer elsewhere) need ``--yes``."""
BIG_CHAIN_STEPS = 10**9
"""Runs from this many chain-steps (or 1 GiB of memory) print their cost on stderr before starting."""


def physical_memory() -> int | None:
    """Bytes of physical memory, or None where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def step_count(t_end: float, h: float) -> int:
    """``--time / --step-size`` as a whole number of steps in ``[1, 2^31 − 2]``
    (:func:`~contrastive_bounds.numerics.langevin.whole_steps` in the command's terms).

    Raises:
      ValueError: naming ``--time`` and ``--step-size`` (not a whole multiple, or too many steps).
    """
    return whole_steps(t_end, h, names=("--time", "--step-size"))


def guard_cost(chains: int, n_steps: int, num_points: int, dim: int, yes: bool,
               record_every: int | None = None) -> tuple[Any, list[str]]:
    """``(cost, reasons it is too big)`` of a float64 run (energy trace every ``record_every`` steps, default
    ``default_record_every``); ValueError naming ``--yes`` when too big without it."""
    from contrastive_bounds.numerics.langevin import default_record_every, estimate_run_cost  # JAX: imported when used

    every = default_record_every(n_steps) if record_every is None else record_every
    cost = estimate_run_cost(chains, n_steps, num_points, dim, 8, n_steps // every)
    memory = physical_memory()
    too_big = [why for why in (
        compare_text("chain-steps", float(cost.chain_steps), "the limit", float(MAX_CHAIN_STEPS), ".3g")
        if cost.chain_steps > MAX_CHAIN_STEPS else "",
        f"about {cost.memory_bytes / 2**30:.3g} GiB > half the machine's memory ({memory / 2**31:.3g} GiB)"
        if memory and cost.memory_bytes > memory / 2 else "") if why]
    if too_big and not yes:
        raise ValueError(f"this run is too big ({'; '.join(too_big)}); fewer --chains or a shorter --time, or --yes to run it")
    return cost, too_big


def announce_cost(cost: Any, too_big: list[str]) -> None:
    """Print the cost of a big run on stderr (from :data:`BIG_CHAIN_STEPS` chain-steps or 1 GiB)."""
    if too_big or cost.chain_steps >= BIG_CHAIN_STEPS or cost.memory_bytes >= 2**30:
        print(f"cost: {cost.describe()}; Ctrl-C stops the run within seconds and saves it", file=sys.stderr, flush=True)


#: A checkpoint from this size on is announced (its expected size and path) before the run starts.
BIG_CHECKPOINT_BYTES = 100 * 2**20


def checkpoint_bytes(chains: int, num_points: int, dim: int, records: int) -> int:
    """Expected size of one ``anneal`` checkpoint (``numerics.langevin`` ``save_checkpoint``): per chain the position
    and the gradient (``2·N·d`` float64), V, the running minimum, the hitting time (float64), the basin and escape
    counters (int32), and ``records`` energy-trace entries (float64); plus about 4 KiB of header and fingerprint."""
    return int(chains) * (8 * (2 * num_points * dim + 3 + records) + 8) + 4096


def announce_checkpoint(path: str | None, chains: int, num_points: int, dim: int, records: int) -> None:
    """Print the expected checkpoint size on stderr when it is at least :data:`BIG_CHECKPOINT_BYTES`."""
    if path is None:
        return
    size = checkpoint_bytes(chains, num_points, dim, records)
    if size >= BIG_CHECKPOINT_BYTES:
        print(f"checkpoint: {path} will hold about {size / 2**20:.0f} MiB ({chains} chains x {records} energy-trace "
              "entries and the state), rewritten every 30 s", file=sys.stderr, flush=True)


def resume_command(checkpoint: str) -> str:
    """The command line of this process with ``--checkpoint FILE --resume`` (replacing any given)."""
    argv = list(sys.argv[1:])
    if "anneal" not in argv:
        return f"contrastive-bounds anneal <the same arguments> --checkpoint {shlex.quote(checkpoint)} --resume"
    kept, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a == "--checkpoint":
            skip = True
            continue
        if a.startswith("--checkpoint=") or a == "--resume":
            continue
        kept.append(a)
    return shlex.join(["contrastive-bounds", *kept, "--checkpoint", checkpoint, "--resume"])


def report_interrupt(stop: Any, time_scale: float = 1.0) -> None:
    """Ctrl-C (``stop``: the :class:`~contrastive_bounds.numerics.langevin.SimulationInterrupted`):
    make sure the state is saved, say where, and print the command that resumes.

    ``time_scale`` converts the driver's clock to the one reported (``R²`` for a radius-R landscape)."""
    res = stop.result
    path = stop.checkpoint
    t = res.t_end * time_scale
    if path is None:
        ident = hashlib.sha256(json.dumps(res.config, sort_keys=True).encode()).hexdigest()[:12]
        try:
            path = stop.save(f"anneal-interrupted-{ident}.ckpt.npz")
        except (ValueError, OSError) as err:
            print(f"interrupted at step {res.steps_done:,} of {res.num_steps:,} (t = {t:g}); the state could not "
                  f"be saved ({err}); nothing to resume", file=sys.stderr)
            return
    print(f"interrupted at step {res.steps_done:,} of {res.num_steps:,} (t = {t:g}); state saved to {path}\n"
          f"resume with: {resume_command(str(path))}", file=sys.stderr, flush=True)


def time_line(parts: list[tuple[str, float]], total: float, rest: str) -> str:
    """The command's wall time in parts that add up to it: each of ``parts`` (name, seconds), then ``other`` (the
    remainder, described by ``rest``) and the whole command, each to 0.1 s. The remainder is taken from the rounded
    numbers, so the printed parts add up to the printed whole (a remainder below 0 by rounding prints 0.0).

    Examples:
      >>> time_line([("simulation", 1.04), ("quench", 0.26)], 2.0, "planning")
      'simulation 1.0 s, quench 0.3 s, other 0.7 s (planning), whole command 2.0 s'
    """
    shown = [(name, round(float(seconds), 1)) for name, seconds in parts]
    whole = round(float(total), 1)
    other = max(0.0, round(whole - sum(seconds for _, seconds in shown), 1))
    return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in shown) + \
        f", other {other:.1f} s ({rest}), whole command {whole:.1f} s"
