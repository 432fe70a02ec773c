"""A run's configuration: what is simulated (:class:`SimulationConfig`) and how the driver runs it
(:class:`DriverOptions`), two frozen objects validated when they are built.

:func:`._driver.simulate` takes them instead of a long list of keyword arguments::

    simulate(kernel, positions, SimulationConfig(num_steps=10_000, seed=0, target=EnergyBelow(-1.4)),
             DriverOptions(checkpoint="run.npz", progress=True))

Everything in a :class:`SimulationConfig` determines the result (it is part of a checkpoint's
fingerprint); a :class:`DriverOptions` changes how fast, how visibly and how safely a run goes, and
the three of its fields that change the random stream or the rounding (``prng_impl``,
``shard_chains``, ``step_path``) are recorded in the result. Every check raises a ValueError naming the
argument and its allowed range. Imports nothing from JAX (the command line validates its options with
these objects before JAX starts), like :func:`check_checkpoint_path`, which refuses an unusable
checkpoint location before any work.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from contrastive_bounds.theory._domains import check_int, check_real, check_seed

from contrastive_bounds.numerics._filemode import ensure_writable_parent
from contrastive_bounds.numerics.langevin._cost import CHUNK_SECONDS

__all__ = ["SimulationConfig", "DriverOptions", "PRNG_IMPLS", "STEP_PATHS", "INTEGRATORS", "MAX_STEPS",
           "default_record_every", "whole_steps", "check_checkpoint_path"]

PRNG_IMPLS = ("threefry2x32", "rbg", "unsafe_rbg", "fused-threefry")
"""Noise generators of :class:`DriverOptions` (see :mod:`._noise`)."""
STEP_PATHS = ("circle", "chains-last", "vmap")
"""How the driver steps all chains, fastest first (:mod:`._paths`): the complex S¹ step, the chains-last
batched step, ``jax.vmap`` of the generic one-chain step."""
INTEGRATORS = ("euler", "geodesic")
"""Integrators of :func:`._kernel.langevin_kernel` (:mod:`.steps.sphere`)."""
MAX_STEPS = 2**31 - 2
"""Most steps of one run (the step counter is an int32)."""


def default_record_every(num_steps: int, records: int = 100) -> int:
    """Largest divisor of ``num_steps`` not above ``num_steps // records`` (at least 1): about ``records``
    entries in a run's energy trace; ``num_steps`` itself (the end only) where that divisor would give more than
    ``10·records`` entries (a prime step count would otherwise record every step: 166 667 steps of 1 024 chains are
    1.4 GB in memory and in every checkpoint)."""
    target = max(1, num_steps // records)
    for r in range(target, 0, -1):
        if num_steps % r == 0:
            return r if num_steps // r <= 10 * records else num_steps
    return num_steps


def whole_steps(t_end: float, step_size: float, *, names: tuple[str, str] = ("t_end", "step_size")) -> int:
    """``t_end / step_size`` as a whole number of steps in ``[1, MAX_STEPS]``.

    Args:
      t_end, step_size: positive floats. names: how the two are named in messages (the command line
        passes its option names).
    Raises:
      ValueError: naming both (not a whole multiple within 1e-9 relative, or more than ``MAX_STEPS`` steps).
    """
    a, b = names
    ratio = t_end / step_size
    if not math.isfinite(ratio) or ratio > MAX_STEPS:
        shown = f"{ratio:.0f}" if ratio < 1e15 else f"{ratio:.3g}"
        raise ValueError(f"{a} / {b} = {shown} steps is outside its domain: at most {MAX_STEPS} steps; "
                         f"use a shorter {a} or a larger {b}")
    n_steps = round(ratio)
    if n_steps < 1 or abs(n_steps * step_size - t_end) > 1e-9 * max(1.0, t_end):
        raise ValueError(f"{a}={t_end!r} must be a positive whole multiple of {b}={step_size!r}")
    return n_steps


def check_checkpoint_path(checkpoint: Any, name: str = "checkpoint") -> Path:
    """Refuse, before the first step, a checkpoint path that could not be written after it.

    Creates the file's folder when missing (as the first write would).

    Args:
      checkpoint: the file path. name: the argument's name in messages.
    Returns:
      ``Path(checkpoint)``.
    Raises:
      ValueError: naming ``name``: not a str/PathLike, empty, a folder, a path whose existing ancestor is
        a file, or a folder that cannot be created or written.
    """
    if not isinstance(checkpoint, (str, os.PathLike)):
        raise ValueError(f"{name}={checkpoint!r} must be a file path (str or os.PathLike)")
    if not str(checkpoint).strip():
        raise ValueError(f"{name}={checkpoint!r} is empty: give the path of a .npz file, e.g. 'run.npz'")
    path = Path(checkpoint)
    if path.is_dir():
        raise ValueError(f"{name}={str(path)!r} is a folder; give a file path such as {str(path / 'run.npz')!r}")
    folder = next((p for p in path.parents if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise ValueError(f"{name}={str(path)!r}: its folder {str(folder)!r} is not a folder")
    ensure_writable_parent(path, name)
    return path


def _predicate_tuple(target: Any, basins: Any) -> tuple:
    """``basins`` as a tuple after checking ``target`` (None or callable) and each basin (callable)."""
    if target is not None and not callable(target):
        raise ValueError(f"target={target!r} must be None or a predicate (position (N, d), potential ()) -> bool, "
                         "e.g. EnergyBelow(level) or Arc(theta_lo, theta_hi)")
    if callable(basins) or isinstance(basins, (str, bytes)) or not isinstance(basins, Sequence):
        raise ValueError(f"basins={basins!r} must be a sequence (list or tuple) of predicates, e.g. [Arc(a, b), Arc(c, d)]")
    for i, b in enumerate(basins):
        if not callable(b):
            raise ValueError(f"basins[{i}]={b!r} is not a predicate (position (N, d), potential ()) -> bool")
    return tuple(basins)


@dataclass(frozen=True)
class SimulationConfig:
    """What a run simulates and records: ``num_steps`` steps of every chain from ``t_start``.

    Attributes:
      num_steps: steps, in ``[1, 2**31 - 2]``; the run covers ``[t_start, t_start + num_steps·h]``.
      seed: in ``[0, 2**32 - 1]``; the noise of step k depends only on (seed, generator, k, element,
        device count), never on chunking or interruptions.
      t_start: continuous time of the initial state, ``>= 0``; the schedule is evaluated at
        ``t_start + k·h`` (and validated on the run's span first, C12).
      record_every: steps between entries of the energy trace, in ``[1, num_steps]`` and dividing
        ``num_steps``; ``None`` (default) becomes :func:`default_record_every` (about 100 records).
      target: ``None``, :class:`._observables.EnergyBelow`, :class:`._observables.Arc`, or any hashable pure
        predicate ``(position (N, d), potential ()) -> bool``; its first hitting time is recorded.
      basins: a sequence of such predicates (stored as a tuple; the first match wins) for occupancy and
        escape counts.

    Raises:
      ValueError: naming the field and its range (a record_every that does not divide num_steps, a target
        or basin that is not a predicate).
    """

    num_steps: int
    seed: int
    t_start: float = 0.0
    record_every: int | None = None
    target: Any = None
    basins: Sequence[Any] = ()

    def __post_init__(self) -> None:
        n = check_int("num_steps", self.num_steps, 1, MAX_STEPS)
        record = default_record_every(n) if self.record_every is None else self.record_every
        record = check_int("record_every", record, 1, n)
        if n % record:
            raise ValueError(f"record_every={record} must divide num_steps={n}")
        for name, value in (("num_steps", n), ("seed", check_seed(self.seed)), ("record_every", record),
                            ("t_start", check_real("t_start", self.t_start, 0.0, math.inf, lo_closed=True)),
                            ("basins", _predicate_tuple(self.target, self.basins))):
            object.__setattr__(self, name, value)

    @property
    def num_records(self) -> int:
        """Entries of the energy trace of a complete run."""
        return self.num_steps // self.record_every


@dataclass(frozen=True)
class DriverOptions:
    """How :func:`._driver.simulate` runs a :class:`SimulationConfig` (every field has a default: the fastest
    validated configuration, no progress bar, no checkpoint).

    Attributes:
      prng_impl: ``None`` (default: :func:`._defaults.default_prng_impl`, ``"fused-threefry"`` in float32 and
        ``"threefry2x32"`` in float64) or one of :data:`PRNG_IMPLS` (:mod:`._noise`).
      shard_chains: ``None`` (default: split the chains over the local devices when each gets at least
        :data:`._defaults.MIN_CHAINS_PER_SHARD`), ``True`` (over all devices; the chain count must divide)
        or ``False`` (one device). The noise stream depends on the device count.
      step_path: ``None`` (default: the fastest path the kernel supports, :func:`._paths.default_step_path`)
        or one of :data:`STEP_PATHS` the kernel supports; every path is the same Markov kernel, equal up
        to rounding (a path other than the default is part of the fingerprint).
      unroll: steps unrolled per scan iteration, in ``[1, 1024]`` (a speed knob).
      chunk_steps: steps per compiled chunk (``>= 1``); ``None``: chunks of about ``chunk_seconds``.
      chunk_seconds: target wall time of an automatically sized chunk, ``> 0`` (how soon Ctrl-C acts).
      progress: show a rich progress bar between chunks.
      checkpoint: a file path (``.npz``) written atomically at least every ``checkpoint_seconds``, when
        the run stops and when it is interrupted; ``None``: no checkpoint.
      resume: continue from ``checkpoint`` when it exists (its fingerprint must match); needs ``checkpoint``.
      checkpoint_seconds: least time between two periodic checkpoint writes, in ``[0, inf]`` (0: every chunk).
      stop_after_steps: stop at the first chunk boundary at or after this many steps (``>= 1``, at most the
        run's ``num_steps``); the result then has ``complete == False``.

    Raises:
      ValueError: naming the field and its range; ``resume=True`` without ``checkpoint``.
    """

    prng_impl: str | None = None
    shard_chains: bool | None = None
    step_path: str | None = None
    unroll: int = 1
    chunk_steps: int | None = None
    chunk_seconds: float = CHUNK_SECONDS
    progress: bool = False
    checkpoint: str | os.PathLike | None = None
    resume: bool = False
    checkpoint_seconds: float = 30.0
    stop_after_steps: int | None = None

    def __post_init__(self) -> None:
        if self.prng_impl is not None and self.prng_impl not in PRNG_IMPLS:
            raise ValueError(f"prng_impl={self.prng_impl!r} is not one of {PRNG_IMPLS} (or None for the default)")
        if self.step_path is not None and self.step_path not in STEP_PATHS:
            raise ValueError(f"step_path={self.step_path!r} is not one of {STEP_PATHS} (or None for the fastest the "
                             "kernel supports)")
        if self.shard_chains not in (None, True, False):
            raise ValueError(f"shard_chains={self.shard_chains!r} must be None, True or False")
        if self.resume and self.checkpoint is None:
            raise ValueError("resume=True needs checkpoint=<file path> (the file to continue from)")
        if self.checkpoint is not None and (not isinstance(self.checkpoint, (str, os.PathLike)) or not str(self.checkpoint)):
            raise ValueError(f"checkpoint={self.checkpoint!r} must be a file path (str or os.PathLike)")
        checked = {
            "unroll": check_int("unroll", self.unroll, 1, 1024),
            "chunk_steps": None if self.chunk_steps is None else check_int("chunk_steps", self.chunk_steps, 1, None),
            "chunk_seconds": check_real("chunk_seconds", self.chunk_seconds, 0.0, math.inf),
            "checkpoint_seconds": check_real("checkpoint_seconds", self.checkpoint_seconds, 0.0, math.inf,
                                             lo_closed=True, hi_closed=True, allow_inf=True),
            "stop_after_steps": None if self.stop_after_steps is None else check_int("stop_after_steps",
                                                                                     self.stop_after_steps, 1, MAX_STEPS),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)
