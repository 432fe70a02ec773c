"""Evidence for the ablation checks (A8.6–A8.8): rows of the ``ablations`` grid and trend verdicts.

* :func:`ablation_rows` — the rows of one ablation, either computed in-process
  (:func:`~._landscape_rows.landscape_row`) for every task of a profile of the ``ablations`` grid (the main
  job), or read from the ``results.parquet`` of a finished ``contrastive-bounds sweep ablations`` run;
* :func:`ablation_tasks` — the tasks of a profile of the grid. The grid is the built-in sweep spec
  ``ablations.toml``, read here as data (the checks import nothing of the sweeps; a test keeps this
  expansion equal to the sweep's own);
* :func:`trend_verdict` — ``supported`` / ``refuted`` / ``mixed`` for a claim "y falls as x grows"
  along one series, from the signs of its steps (ties within a stated tolerance, or overlapping
  intervals, are no step);
* :func:`combine_verdicts` — one verdict over several series;
* :func:`effort_columns` — the search effort behind an H*, as table columns.
"""

from __future__ import annotations

import itertools
import json
import math
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from contrastive_bounds.properties.checks._landscape_rows import ABLATIONS, ROW_DEFAULTS, landscape_row

__all__ = ["SPEC_NAME", "ablation_rows", "ablation_tasks", "trend_verdict", "combine_verdicts", "effort_columns",
           "network_ok"]

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


_LISTS = ("pairs", "barrier_over_t")  # parameters whose value is a list (an axis of them is a list of lists)
_FLOATS = ("tau", "radius", "pair_distance", "step_scale", "horizon_factor", "c", "t0", "t_end", "start_radius",
           "confidence")


def _axis(name: str, value: Any) -> list[Any]:
    if name in _LISTS:
        return value if isinstance(value, list) and value and all(isinstance(v, list) for v in value) else [value]
    return value if isinstance(value, list) else [value]


def _typed(params: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in {**ROW_DEFAULTS, **params}.items() if v is not None}
    return {k: (float(v) if k in _FLOATS else v) for k, v in out.items()}


def ablation_tasks(profile: str) -> list[tuple[dict[str, Any], int]]:
    """``(parameters, seed)`` of every task of ``profile`` of the ``ablations`` grid (``"default"`` or a profile
    of the spec: ``"quick"``, ``"medium"``, ``"thorough"``), parameters with their defaults filled in; rows
    (each value a list is an axis) times seeds, in file order.

    Raises:
      ValueError: an unknown profile (naming the profiles).
    """
    text = resources.files("contrastive_bounds.properties").joinpath(f"sweeps/builtin/{SPEC_NAME}.toml").read_text()
    data = tomllib.loads(text)
    if profile != "default":
        profiles = data.get("profiles", {})
        if profile not in profiles:
            raise ValueError(f"profile={profile!r} must be one of {['default', *profiles]} (profiles of {SPEC_NAME})")
        prof = profiles[profile]
        data = {**data, "params": {**data.get("params", {}), **prof.get("params", {})},
                **{k: prof[k] for k in ("rows", "seeds") if k in prof}}
    seeds = data.get("seeds", [0])
    seeds = seeds if isinstance(seeds, list) else [seeds]
    tasks = []
    for row in data.get("rows", [{}]):
        axes = {k: _axis(k, v) for k, v in row.items()}
        for combo in itertools.product(*axes.values()):
            params = _typed({**data.get("params", {}), **dict(zip(axes, combo))})
            tasks += [(params, int(s)) for s in seeds]
    return tasks


def ablation_rows(ablation: str, profile: str, sweep: str = "") -> list[dict[str, Any]]:
    """Rows (parameters, outputs, ``empirical``/``ci_lo``/``ci_hi``, ``summary``, ``details``, ``verdict``)
    of the tasks of ``ablation`` in profile ``profile`` of the built-in spec, or from a finished sweep.

    Args:
      ablation: ``"dimension"``, ``"negatives"`` or ``"curvature"``.
      profile: a profile of the spec (``"quick"``, ``"thorough"``, ``"default"``); ignored with ``sweep``.
      sweep: a folder holding a finished ``ablations`` sweep (``results.parquet``), or ``""`` to
        compute every row now, in this process (networks are searched once per process).

    Raises:
      ValueError: unknown ablation or profile; a sweep folder without results or without this ablation.
    """
    if ablation not in ABLATIONS[1:]:
        raise ValueError(f"ablation={ablation!r} must be one of {ABLATIONS[1:]}")
    if sweep:
        return _from_sweep(sweep, ablation)
    rows = []
    for params, seed in ablation_tasks(profile):
        if params["ablation"] != ablation:
            continue
        out = landscape_row(params, seed)
        rows.append({**params, "seed": seed, **out["outputs"], "empirical": out["empirical"], "ci_lo": out["ci_lo"],
                     "ci_hi": out["ci_hi"], "summary": out["summary"], "details": out["details"],
                     "verdict": out["verdict"]})
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
