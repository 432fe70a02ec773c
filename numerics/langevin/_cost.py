"""How big a run is and how to cut it into chunks short enough for Ctrl-C.

A compiled chunk cannot be interrupted: Python sees Ctrl-C only when the chunk returns. The driver
therefore cuts a run into chunks of about :data:`CHUNK_SECONDS` each. :class:`ChunkPacer` starts
from a pessimistic cost per chain-step (:func:`initial_step_cost`, a few times what the benchmark
machine measures, so the first chunks are short), then sizes every later chunk from the time the
previous ones took. The chunk length is a traced argument of the compiled program, so resizing
never recompiles. When one record of all chains would already take longer than a chunk, the unit
of work becomes a divisor of ``record_every`` (:func:`choose_unit_steps`).

:func:`estimate_run_cost` gives the chain-steps and an upper estimate of the memory a run needs,
for the command line's cost line and its refusal of runs beyond a limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["CHUNK_SECONDS", "RunCost", "estimate_run_cost", "initial_step_cost", "choose_unit_steps",
           "ChunkPacer", "buffer_units"]

CHUNK_SECONDS = 1.0
"""Target wall time of one chunk (Ctrl-C takes effect within about this long, plus compilation)."""

_BUFFER_BYTES = 32 << 20  # the per-unit potentials buffer of a chunk stays below this


def initial_step_cost(kind: str, dtype_bytes: int, num_points: int, dim: int) -> float:
    """Pessimistic seconds per chain-step before anything is measured.

    ``kind``: the step path (:mod:`._paths`): ``"circle"`` (S¹ complex step), ``"chains-last"`` (U0-style
    batched landscape) or ``"vmap"`` (vmapped one-chain step). Figures are about 10x the single-core costs measured on the
    benchmark machine when quiet (float64: circle 1.2e-8, U0 1.3e-7, vMF S² 5e-8 s per chain-step),
    since a shared machine under load was measured 5-9x slower.
    """
    per_factor = {"circle": 1.5e-7, "chains-last": 6e-7, "vmap": 4e-7}[kind]
    scale = 1.0 if kind == "circle" else max(1.0, num_points * dim / 3.0)
    return per_factor * scale * (1.0 if dtype_bytes >= 8 else 0.6)


def choose_unit_steps(record_every: int, start_step: int, chains: int, step_cost: float, seconds: float,
                      cap: int | None = None) -> int:
    """The largest divisor u of ``record_every`` that also divides ``start_step`` (any, at 0) with
    ``chains · u · step_cost ≤ seconds`` and ``u ≤ cap``; at least 1."""
    best = 1
    limit = record_every if cap is None else min(record_every, cap)
    for u in range(1, limit + 1):
        if record_every % u or (start_step and start_step % u):
            continue
        if u == 1 or chains * u * step_cost <= seconds:
            best = u
    return best


def buffer_units(total_units: int, chains: int, dtype_bytes: int) -> int:
    """Rows of a chunk's potentials buffer: the power of two ≥ ``total_units`` (so runs of
    different lengths share a compiled program), capped so the buffer stays below 32 MiB."""
    cap = max(1, _BUFFER_BYTES // max(1, chains * dtype_bytes))
    rows = 1 << max(0, math.ceil(math.log2(max(1, total_units))))
    return max(1, min(rows, 1 << int(math.log2(cap))))


class ChunkPacer:
    """Chunk sizes for a run, so that a chunk takes about ``seconds``, learned from the chunks so far.

    A chunk is ``n`` units of ``unit`` steps; ``n`` is free (a traced loop bound), ``unit`` is compiled
    in. The unit starts from the pessimistic ``step_cost`` at a quarter of the target, and
    :meth:`retune` changes it (at most ``max_changes`` times, each a recompilation) when the measured
    cost shows one unit far longer than a chunk should be, or far shorter than a record.

    Args:
      chains: chains in the run; record_every: steps per record; start_step: the run's first step
        (units start at multiples of the unit); step_cost: initial seconds per chain-step
        (:func:`initial_step_cost`); seconds: target seconds per chunk; chunk_steps: the caller's
        fixed chunk length (then nothing is learned and the unit never changes).
    """

    def __init__(self, *, chains: int, record_every: int, start_step: int, step_cost: float, seconds: float,
                 chunk_steps: int | None = None, max_changes: int = 2):
        self.chains, self.record_every, self.seconds = max(1, chains), record_every, seconds
        self.cost = step_cost
        self.unit = choose_unit_steps(record_every, start_step, self.chains, step_cost, seconds / 4, cap=chunk_steps)
        self.fixed = None if chunk_steps is None else max(1, chunk_steps // self.unit)
        self.calls = 0
        self.changes_left = 0 if chunk_steps is not None else max_changes

    def next_units(self, remaining_steps: int, max_units: int) -> int:
        """Units for the next chunk, in [1, min(units left, max_units)]. The first two chunks after a
        (re)compilation aim at a quarter of the target (the first one's time includes compiling, so
        the cost is known only after the second)."""
        remaining = -(-remaining_steps // self.unit)
        if self.fixed is not None:
            n = self.fixed
        else:
            target = self.seconds * (0.25 if self.calls < 2 else 1.0)
            n = int(target / (self.chains * self.unit * self.cost))
        return max(1, min(n, remaining, max_units))

    def record(self, units: int, elapsed: float) -> None:
        """Learn from a chunk of ``units`` units that took ``elapsed`` seconds. The first chunk after a
        compilation includes it, so its time can only lower the estimate (it is an upper bound)."""
        measured = elapsed / (units * self.chains * self.unit)
        self.cost = min(self.cost, measured) if self.calls == 0 else max(measured, 1e-13)
        self.calls += 1

    def retune(self, done: int) -> bool:
        """Change the unit if a unit takes more than twice the target (to a divisor of the current
        unit) or less than 1/16 of it while shorter than a record (to a divisor of ``record_every``
        that divides ``done``). Returns whether the unit changed (the caller recompiles)."""
        if self.changes_left <= 0 or self.calls < 2:
            return False
        unit_time = self.cost * self.chains * self.unit
        if unit_time > 2 * self.seconds:
            new = choose_unit_steps(self.unit, done, self.chains, self.cost, self.seconds / 2)
        elif self.unit < self.record_every and unit_time < self.seconds / 16:
            new = choose_unit_steps(self.record_every, done, self.chains, self.cost, self.seconds / 2)
        else:
            return False
        if new == self.unit:
            return False
        self.unit, self.calls = new, 0
        self.changes_left -= 1
        return True


@dataclass(frozen=True)
class RunCost:
    """Size of a run: ``chain_steps`` (chains × steps) and ``memory_bytes`` (an upper estimate of the
    simulator's arrays: state and observables with the copies a chunk makes, the potentials buffer,
    the energy trace kept on the host)."""

    chain_steps: int
    memory_bytes: int

    def describe(self) -> str:
        return f"{self.chain_steps:.3g} chain-steps, about {self.memory_bytes / 2**20:,.0f} MiB of memory"


def estimate_run_cost(chains: int, num_steps: int, num_points: int, dim: int, dtype_bytes: int, records: int,
                      num_basins: int = 0) -> RunCost:
    """:class:`RunCost` of ``chains`` chains on (S^{dim−1})^num_points for ``num_steps`` steps with
    ``records`` energy records."""
    per_chain = (2 * num_points * dim + 3) * dtype_bytes + (num_basins + 2) * 4
    state = 3 * chains * per_chain  # carry, its inner-layout copy, the donated output
    trace = 2 * (records + 1) * chains * dtype_bytes  # host trace + the concatenated copy at the end
    buffer = min(_BUFFER_BYTES, records * chains * dtype_bytes)
    return RunCost(chains * num_steps, int(state + trace + buffer))
