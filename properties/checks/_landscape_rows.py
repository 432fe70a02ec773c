"""One measurement on an InfoNCE landscape network, as a row: the evidence of checks A8.6–A8.8 (A9).

:func:`landscape_row` builds ``infonce_spec(num_points, dim, tau, pairs, coupled, radius)`` (docs/theorems.md
A7; on the sphere of radius R the similarities are ``R²·cos``, i.e. ``τ → τ/R²``), takes its network from
the library once per process (:func:`~contrastive_bounds.numerics.landscapes.network.network_for`) and
reports H*, Catoni's D, the minima and verified transition states, the search effort and whether the
landscape is barrier-free *within this search*. ``measure`` adds a simulation:

* ``"network"``: nothing more (``empirical`` = H*, verdict ``measured``);
* ``"arrhenius"``: fixed-temperature escape times from the deepest trap (its minimum under random
  rotations) at ``T = H/r`` for ``r`` in ``barrier_over_t`` (only when a transition state joins the
  trap straight to a lower minimum; otherwise the row says so); ``empirical`` = the Arrhenius exponent
  with its bootstrap interval at ``confidence``, ``bound`` = the network's barrier of that trap,
  ``ratio`` = exponent / barrier;
* ``"schedule"``: chains under ``T(t) = c/log(t + t0)`` on the radius-R sphere (radius-R clock) from the
  deepest trap of the same landscape at radius ``start_radius`` (under random rotations), to ``t_end``;
  success = ``V(Z_{t_end}) < V_min + δ`` with ``δ = (V(start) − V_min)/2``; ``empirical`` = the success
  fraction with its Clopper–Pearson interval.

A row is a dict of the columns a sweep row carries (verdict, summary, bound, empirical, interval, ratio,
samples, reason, outputs, details); the ``landscape`` sweep kind (an application) turns it into its task
output. Every parameter of a row with its default is :data:`ROW_DEFAULTS`; the arguments of the landscape
are checked by the library (:func:`~contrastive_bounds.numerics.landscapes.network.arguments.infonce_arguments`).
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

__all__ = ["ABLATIONS", "MEASURES", "ROW_DEFAULTS", "OUTPUTS", "SEARCH_KEYS", "row_network", "landscape_row",
           "network_columns"]

ABLATIONS = ("none", "dimension", "negatives", "curvature")
MEASURES = ("network", "arrhenius", "schedule")
#: search settings a row sets (the rest are the search's defaults)
SEARCH_KEYS = ("starts", "max_hop_rounds", "max_ts_rounds", "chunk", "structured_starts", "closure", "pair_distance",
               "max_minima", "max_searches")
#: every optional parameter of a row and its default (None: absent unless given)
ROW_DEFAULTS: dict[str, Any] = {
    "ablation": "none", "radius": 1.0, "pairs": None, "coupled": False, "starts": 128, "max_hop_rounds": 30,
    "max_ts_rounds": 60, "structured_starts": 4000, "closure": True, "pair_distance": 0.75, "max_minima": 400,
    "max_searches": 40000, "search_seed": None, "chunk": 8, "measure": "network", "barrier_over_t": [2.5, 3.5, 4.5],
    "arrhenius_model": "corrected", "chains": 256, "step_scale": 0.2, "horizon_factor": 2.5, "c": None, "t0": 2.0,
    "t_end": 10.0, "start_radius": 1.0, "confidence": 0.95}
#: the typed columns a row adds
OUTPUTS = {"critical_height": float, "catoni_difficulty": float, "status": str, "complete": bool, "barrier_free": bool,
           "closed": bool,
           "num_minima": int, "num_ts_verified": int, "num_ts_rejected": int, "v_min": float, "trap_energy": float,
           "trap_barrier": float, "non_degenerate": bool, "effort_text": str, "search_starts": int, "search_hops": int,
           "search_single_ended": int, "search_bands": int, "search_refinements": int, "tau_effective": float,
           "arrhenius_barrier": float, "arrhenius_lo": float, "arrhenius_hi": float, "arrhenius_linear": float,
           "step_size_used": float, "success_count": int, "reached_count": int, "level": float}


def row_network(p: Mapping[str, Any], seed: int, *, radius: float | None = None) -> tuple[Any, Any]:
    """``(spec, NetworkResult)`` of a row's landscape (at ``radius`` when given), searched once per process with
    the row's ``search_seed`` (else ``seed``). Turns JAX's x64 on (the search computes in float64)."""
    from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec, network_for
    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    q = {**ROW_DEFAULTS, **p}
    pairs = None if q["pairs"] is None else tuple(tuple(int(i) for i in pr) for pr in q["pairs"])
    spec = infonce_spec(int(q["num_points"]), int(q["dim"]), float(q["tau"]), pairs, coupled=bool(q["coupled"]),
                        radius=float(q["radius"] if radius is None else radius))
    search_seed = int(q["search_seed"]) if q["search_seed"] is not None else int(seed)
    settings = SearchSettings(seed=search_seed, **{k: q[k] for k in SEARCH_KEYS})
    return spec, network_for(spec, settings)


def _optional(x: float | None) -> float | None:
    return None if x is None else float(x)


def _fmt_d(res: Any) -> str:
    """Catoni's D of a result, or why it is undefined."""
    d = res.catoni_difficulty
    return res.analysis.catoni_note if d is None else f"{d:.4g}"


def network_columns(res: Any, trap: Any) -> dict[str, Any]:
    """The network columns of a row (see :data:`OUTPUTS`) from a result and its trap (or None)."""
    e = res.effort
    text = res.effort_text()
    return {"critical_height": float(res.critical_height), "catoni_difficulty": _optional(res.catoni_difficulty),
            "status": res.status, "complete": bool(res.complete), "closed": bool(res.closed),
            "barrier_free": res.status.startswith("barrier-free"), "num_minima": len(res.minima),
            "num_ts_verified": len(res.transition_states), "num_ts_rejected": len(res.unverified),
            "v_min": float(res.analysis.v_min), "trap_energy": None if trap is None else trap.energy,
            "trap_barrier": None if trap is None else trap.barrier,
            "non_degenerate": None if trap is None else trap.non_degenerate,
            "effort_text": text.rsplit(";", 1)[0] if ";" in text else text,
            "search_starts": e.starts, "search_hops": e.hops, "search_single_ended": e.single_ended,
            "search_bands": e.neb_runs, "search_refinements": e.refinements}


def _minima_details(res: Any) -> list[dict[str, Any]]:
    return [{"energy": m.energy, "multiplicity": m.multiplicity, "hits": m.hits, "verified": m.verified,
             "found_by": m.found_by, "label": m.label,
             "barrier": res.analysis.barriers.get(m.id, {}).get("barrier"), "global": m.id in res.global_minima,
             "z": [[float(x) for x in row] for row in m.z]} for m in res.minima]


def _row(verdict: str, summary: str, **fields: Any) -> dict[str, Any]:
    return {"verdict": verdict, "summary": summary, "bound": None, "bound_log10": None, "empirical": None,
            "ci_lo": None, "ci_hi": None, "ratio": None, "ratio_log10": None, "samples": None, "reason": None,
            "outputs": {}, "details": {}, **fields}


def _arrhenius(p: Mapping[str, Any], seed: int, spec: Any, trap: Any, out: dict, details: dict) -> dict[str, Any]:
    from contrastive_bounds.numerics.langevin.network_runs import arrhenius_exponent, trap_arrhenius, trap_step_size

    est, samples = trap_arrhenius(spec, trap, p["barrier_over_t"], chains=p["chains"], step_scale=p["step_scale"],
                                  horizon_factor=p["horizon_factor"], seed=seed, model=p["arrhenius_model"],
                                  confidence=p["confidence"])
    lin = arrhenius_exponent(samples, model="linear", confidence=p["confidence"], seed=seed)
    out.update(arrhenius_barrier=est.barrier, arrhenius_lo=est.lo, arrhenius_hi=est.hi, arrhenius_linear=lin.barrier,
               step_size_used=trap_step_size(trap, p["step_scale"]))
    ek = [math.exp(trap.log_escape_time(t)) if trap.non_degenerate else None for t in est.temperatures]
    details.update(arrhenius=est.to_dict(), arrhenius_linear=lin.to_dict(), eyring_kramers_times=ek)
    ratio = est.barrier / trap.barrier
    inside = est.lo <= trap.barrier <= est.hi
    summary = (f"Arrhenius exponent ({est.model}) {est.barrier:.4g} [{est.lo:.4g}, {est.hi:.4g}] vs network barrier "
               f"{trap.barrier:.4g} ({'inside' if inside else 'OUTSIDE'} the interval; linear fit {lin.barrier:.4g}); "
               f"H/T in {list(p['barrier_over_t'])}, {p['chains']} chains each")
    return _row("measured", summary, bound=trap.barrier, bound_log10=math.log10(trap.barrier), empirical=est.barrier,
                ci_lo=est.lo, ci_hi=est.hi, ratio=ratio, ratio_log10=math.log10(ratio) if ratio > 0 else None,
                samples=p["chains"] * len(samples), reason="comparison made by check A8.7_negatives", outputs=out,
                details=details)


def _schedule(p: Mapping[str, Any], seed: int, spec: Any, res: Any, out: dict, details: dict) -> dict[str, Any]:
    from contrastive_bounds.numerics.landscapes.network.verify import classify
    from contrastive_bounds.numerics.landscapes.network_kramers import network_trap, trap_starts
    from contrastive_bounds.numerics.langevin._global_set import global_set_level
    from contrastive_bounds.numerics.langevin.network_runs import schedule_sample
    from contrastive_bounds.numerics._stats import clopper_pearson
    from contrastive_bounds.theory._schedules import make_schedule

    spec0, res0 = row_network(p, seed, radius=p["start_radius"])
    trap0 = network_trap(res0, spec0)
    if trap0 is None:
        raise ValueError(f"start_radius={p['start_radius']!r}: the landscape there is barrier-free within the search; "
                         "no trap to start from")
    v_start = spec.energy(trap0.z)
    v_min = float(res.analysis.v_min)
    level = global_set_level(v_min, [v_start])  # the one rule: the start stays outside the set
    stiff = float(max(abs(x) for x in classify(spec, trap0.z).eigenvalues))
    r2 = p["radius"] ** 2
    h = p["step_scale"] * r2 / stiff  # radius-R clock: the unit-sphere step h/R² times the stiffness stays step_scale
    n = max(1, int(round(p["t_end"] / h)))
    h = p["t_end"] / n
    sched = make_schedule("temperature", c=p["c"], t0=p["t0"])
    run_ = schedule_sample(spec, trap_starts(trap0.z, p["chains"], seed), sched, t_end=p["t_end"], step_size=h,
                           seed=seed + 1, level=level, radius=p["radius"])
    ci = clopper_pearson(run_.below_at_end, run_.chains, p["confidence"])
    out.update(success_count=run_.below_at_end, reached_count=run_.reached, level=level, step_size_used=h)
    conv = sched.converges(out["critical_height"]) if out["critical_height"] > 0 else None
    details.update(start_energy=v_start, start_trap=trap0.to_dict(), schedule=sched.describe(),
                   hks_converges=None if conv is None else conv.converges, steps=n)
    summary = (f"{sched.describe()} on the radius-{p['radius']:g} sphere from the radius-{p['start_radius']:g} trap: success "
               f"P(V(Z_{p['t_end']:g}) < V_min + delta) = {ci.estimate:.3f} [{ci.lo:.3f}, {ci.hi:.3f}]; H* here "
               f"{out['critical_height']:.4g} ({res.status})")
    return _row("measured", summary, empirical=ci.estimate, ci_lo=ci.lo, ci_hi=ci.hi, samples=run_.chains,
                reason="comparison across radii made by check A8.8_curvature", outputs=out, details=details)


def landscape_row(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """One row (module docstring); ``params`` as a sweep task of kind ``landscape`` (defaults :data:`ROW_DEFAULTS`),
    float64. Pure: the search's wall time is not in the row."""
    from contrastive_bounds.numerics.landscapes.network_kramers import network_trap

    p = {**ROW_DEFAULTS, **params}
    spec, res = row_network(p, seed)
    trap = network_trap(res, spec)
    out = network_columns(res, trap)
    out["tau_effective"] = p["tau"] / p["radius"] ** 2
    details: dict[str, Any] = {"minima": _minima_details(res), "effort": res.effort.to_dict() | {"seconds": None},
                               "closure": res.closure, "found_by": res.found_by_counts(),
                               "settings": res.settings, "notes": res.notes, "status": res.status,
                               "unconnected": list(res.analysis.unconnected),
                               "trap": None if trap is None else {k: v for k, v in trap.to_dict().items() if k != "z"}}
    if p["measure"] == "arrhenius":
        if trap is None or not trap.saddles:
            why = ("barrier-free within this search" if trap is None else "the deepest trap has no transition state "
                   "straight to a lower minimum (its lowest path passes through other minima)")
            return _row("measured", f"no Arrhenius run: {why}; H* = {res.critical_height:.4g} ({res.status})",
                        empirical=out["critical_height"], reason=f"no Arrhenius run: {why}", outputs=out,
                        details=json.loads(json.dumps(details, default=float)))
        return _arrhenius(p, seed, spec, trap, out, details)
    if p["measure"] == "schedule":
        return _schedule(p, seed, spec, res, out, details)
    details = json.loads(json.dumps(details, default=float))
    summary = (f"H* = {res.critical_height:.6g} ({res.status}); D = {_fmt_d(res)}; {len(res.minima)} minima, "
               f"{len(res.transition_states)} verified transition states; effort: {out['effort_text']}")
    return _row("measured", summary, empirical=out["critical_height"], ci_lo=out["critical_height"],
                ci_hi=out["critical_height"], reason="a network measurement; claims are judged by the A8 checks",
                outputs=out, details=details)
