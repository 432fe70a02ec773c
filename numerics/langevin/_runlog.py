"""Which configuration the simulator's runs used, collected for a caller that wants to report it.

A check calls :func:`._driver.simulate` (directly or through :mod:`._experiments`) possibly several
times; its result should say which noise generator and how many devices ran. The runner wraps the
check in :func:`recorded_runs` and reports :func:`summarize_runs` of what was collected, so the
checks themselves need not thread that information through. Context-local (``contextvars``):
concurrent runners do not see each other's runs. Imports nothing from JAX.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator

__all__ = ["note_run", "recorded_runs", "summarize_runs"]

_RUNS: contextvars.ContextVar[list | None] = contextvars.ContextVar("contrastive_bounds_simulator_runs", default=None)


def note_run(config: dict[str, Any], chains: int, steps: int) -> None:
    """Record one run (its fingerprint ``config``, chains and steps done) if a collector is active."""
    runs = _RUNS.get()
    if runs is not None:
        runs.append({"prng_impl": config.get("prng_impl"), "devices": int(config.get("shards", 1)),
                     "dtype": config.get("dtype"), "chains": int(chains), "steps": int(steps)})


@contextlib.contextmanager
def recorded_runs() -> Iterator[list[dict[str, Any]]]:
    """Collect the runs of :func:`._driver.simulate` made inside the ``with`` block (a list of dicts
    with ``prng_impl``, ``devices``, ``dtype``, ``chains``, ``steps``)."""
    runs: list[dict[str, Any]] = []
    token = _RUNS.set(runs)
    try:
        yield runs
    finally:
        _RUNS.reset(token)


def summarize_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON-able summary: the generators, device counts and dtypes used (sorted, distinct), the number
    of runs and the chain-steps simulated."""
    return {
        "noise_generator": sorted({str(r["prng_impl"]) for r in runs}),
        "devices": sorted({r["devices"] for r in runs}),
        "dtype": sorted({str(r["dtype"]) for r in runs}),
        "runs": len(runs),
        "chain_steps": sum(r["chains"] * r["steps"] for r in runs),
    }
