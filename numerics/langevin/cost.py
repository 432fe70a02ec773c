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

    ``kind``: ``"circle"`` (S¹ complex fast path), ``"chains_last"`` (U0-style batched landscape) or
    ``"generic"`` (vmapped step). Figures are about 4-10x the single-core costs measured on the
    benchmark machine (float64: circle 1.2e-8, U0 1.3e-7, vMF S² 5e-8 s per chain-step).
    """
    per_factor = {"circle": 5e-8, "chains_last": 1.5e-7, "generic": 2e-7}[kind]
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
    """Units per chunk so that a chunk takes about ``seconds``, learned from the chunks run so far.

    Args:
      work_per_unit: chain-steps per unit (chains × unit_steps).
      step_cost: initial seconds per chain-step (pessimistic: :func:`initial_step_cost`).
      seconds: target seconds per chunk. fixed_units: a fixed count (the caller's ``chunk_steps``).
    """

    def __init__(self, work_per_unit: int, step_cost: float, seconds: float, fixed_units: int | None = None):
        self.work = max(1, work_per_unit)
        self.cost = step_cost
        self.seconds = seconds
        self.fixed = fixed_units
        self.calls = 0

    def next_units(self, remaining: int, max_units: int) -> int:
        """Units for the next chunk, in [1, min(remaining, max_units)]. The first chunk (it includes
        compilation) aims at a quarter of the target."""
        if self.fixed is not None:
            n = self.fixed
        else:
            target = self.seconds * (0.25 if self.calls == 0 else 1.0)
            n = int(target / (self.work * self.cost))
        return max(1, min(n, remaining, max_units))

    def record(self, units: int, elapsed: float) -> None:
        """Learn from a chunk of ``units`` units that took ``elapsed`` seconds. The first chunk's time
        includes compilation, so it can only lower the estimate (it is an upper bound)."""
        measured = elapsed / (units * self.work)
        if self.calls == 0:
            self.cost = min(self.cost, measured)
        else:
            self.cost = max(measured, 1e-13)
        self.calls += 1


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
