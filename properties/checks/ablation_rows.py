"""Evidence for the ablation checks (A8.6–A8.8): rows of the ``ablations`` sweep and trend verdicts.

* :func:`ablation_rows` — the rows of one ablation, either computed in-process by the ``landscape``
  sweep kind for every task of a profile of the built-in spec ``ablations`` (the main job), or read
  from the ``results.parquet`` of a finished ``contrastive-bounds sweep ablations`` run;
* :func:`trend_verdict` — ``supported`` / ``refuted`` / ``mixed`` for a claim "y falls as x grows"
  along one series, from the signs of its steps (ties within a stated tolerance, or overlapping
  intervals, are no step);
* :func:`combine_verdicts` — one verdict over several series;
* :func:`effort_columns` — the search effort behind an H*, as table columns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence

__all__ = ["SPEC_NAME", "ablation_rows", "trend_verdict", "combine_verdicts", "effort_columns", "network_ok"]

SPEC_NAME = "ablations"
#: Energies of refined critical points carry ~1e-12 (relative); H* steps smaller than this are ties.
H_TIE_RTOL = 1e-9


def _from_sweep(folder: str, ablation: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    path = Path(folder) / "results.parquet"
    if not path.is_file():
        raise ValueError(f"sweep={folder!r}: no results.parquet there (run `contrastive-bounds sweep ablations --out {folder}`)")
    rows = []
    for r in pq.read_table(path).to_pylist():
        if r.get("ablation") != ablation:
            continue
        r = dict(r)
        r["details"] = json.loads(r.get("details_json") or "{}")
        if isinstance(r.get("pairs"), str):
            r["pairs"] = json.loads(r["pairs"])
        rows.append(r)
    if not rows:
        raise ValueError(f"sweep={folder!r} holds no row with ablation={ablation!r}")
    return rows


def ablation_rows(ablation: str, profile: str, sweep: str = "") -> list[dict[str, Any]]:
    """Rows (parameters, outputs, ``empirical``/``ci_lo``/``ci_hi``, ``summary``, ``details``, ``verdict``)
    of the tasks of ``ablation`` in profile ``profile`` of the built-in spec, or from a finished sweep.

    Args:
      ablation: ``"dimension"``, ``"negatives"`` or ``"curvature"``.
      profile: a profile of the spec (``"quick"``, ``"thorough"``, ``"default"``); ignored with ``sweep``.
      sweep: a folder holding a finished ``ablations`` sweep (``results.parquet``), or ``""`` to
        compute every row now, in this process (networks are cached per landscape).

    Raises:
      ValueError: unknown ablation or profile; a sweep folder without results or without this ablation.
    """
    from contrastive_bounds.properties.sweeps.kinds import get_kind
    from contrastive_bounds.properties.sweeps.kinds.landscape import ABLATIONS
    from contrastive_bounds.properties.sweeps.spec import load_spec

    if ablation not in ABLATIONS[1:]:
        raise ValueError(f"ablation={ablation!r} must be one of {ABLATIONS[1:]}")
    if sweep:
        return _from_sweep(sweep, ablation)
    spec = load_spec(SPEC_NAME, profile=profile)
    kind = get_kind("landscape")
    rows = []
    for task in spec.tasks:
        if task.params["ablation"] != ablation:
            continue
        out = kind.run(task.params, task.seed)
        rows.append({**task.params, "seed": task.seed, **out.outputs, "empirical": out.empirical, "ci_lo": out.ci_lo,
                     "ci_hi": out.ci_hi, "summary": out.summary, "details": out.details, "verdict": out.verdict})
    return rows


def trend_verdict(xs: Sequence[float], ys: Sequence[float], *, lo: Sequence[float] | None = None,
                  hi: Sequence[float] | None = None, tie: float = 0.0) -> tuple[str, str, list[int]]:
    """Verdict on "y falls as x grows" along one series.

    Steps between consecutive x (sorted) are +1 (a rise), -1 (a fall) or 0 (a tie): with intervals
    ``lo``/``hi`` a step counts only when the intervals are disjoint; without them, when
    ``|Δy| > tie``. ``supported``: at least one fall and no rise; ``refuted``: no fall (a rise, or no
    change at all); ``mixed``: falls and rises.

    Returns:
      ``(verdict, reason, steps)``.

    Raises:
      ValueError: mismatched lengths or fewer than 2 points.
    """
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError("trend_verdict needs at least 2 points and equal lengths")
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    steps = []
    for a, b in zip(order, order[1:]):
        if lo is not None and hi is not None:
            steps.append(-1 if hi[b] < lo[a] else (1 if lo[b] > hi[a] else 0))
        else:
            d = ys[b] - ys[a]
            steps.append(0 if abs(d) <= tie else (1 if d > 0 else -1))
    falls, rises = steps.count(-1), steps.count(1)
    path = " -> ".join(f"{ys[i]:.4g}" for i in order)
    if falls and not rises:
        return "supported", f"falls {falls}x, never rises ({path})", steps
    if rises and not falls:
        return "refuted", f"rises {rises}x, never falls ({path})", steps
    if not rises and not falls:
        return "refuted", f"no change beyond the tolerance ({path})", steps
    return "mixed", f"falls {falls}x and rises {rises}x ({path})", steps


def combine_verdicts(verdicts: Sequence[str]) -> str:
    """One verdict over several series: the common one, else ``mixed``."""
    vs = set(verdicts)
    return verdicts[0] if len(vs) == 1 else "mixed"


def network_ok(row: dict[str, Any]) -> bool:
    """The row's network is complete or barrier-free (its H* is the network's value, not a partial one)."""
    return bool(row.get("complete")) or bool(row.get("barrier_free"))


def effort_columns(row: dict[str, Any]) -> dict[str, Any]:
    """The search effort behind a row's H* (starts, hops, single-ended and band searches, refinements,
    verified / rejected transition states, rarest minimum's hits) and its status."""
    minima = row.get("details", {}).get("minima", [])
    return {"status": row.get("status"), "minima": row.get("num_minima"), "TS verified": row.get("num_ts_verified"),
            "TS rejected": row.get("num_ts_rejected"), "starts": row.get("search_starts"), "hops": row.get("search_hops"),
            "single-ended": row.get("search_single_ended"), "bands": row.get("search_bands"),
            "rarest hits": min((m.get("hits", 0) for m in minima), default=None)}


def finite(x: Any) -> float | None:
    """``x`` as a float when it is a finite number, else None (Parquet nulls read back as NaN)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None
