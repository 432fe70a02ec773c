"""Sweep kind ``landscape``: the transition network of an InfoNCE landscape, and runs on it (A9, A8.6–A8.8).

One task builds ``infonce_spec(num_points, dim, tau, pairs, coupled, radius)`` (docs/theorems.md A7; on the
sphere of radius R the similarities are ``R²·cos``, i.e. ``τ → τ/R²``), searches its network
(:func:`~contrastive_bounds.numerics.landscapes.network.landscape_network`, float64) and reports H*,
Catoni's D, the minima and verified transition states, the search effort and whether the landscape is
barrier-free *within this search*. ``measure`` adds a simulation:

* ``"network"``: nothing more (``empirical`` = H*, verdict ``measured``);
* ``"arrhenius"``: fixed-temperature escape times from the deepest trap (its minimum under random
  rotations) at ``T = H/r`` for ``r`` in ``barrier_over_t`` (only when a transition state joins the
  trap straight to a lower minimum; otherwise the row says so); ``empirical`` = the Arrhenius exponent
  (slope of log mean escape time vs 1/T, model ``arrhenius_model``) with its bootstrap interval at
  ``confidence``, ``bound`` = the network's barrier of that trap, ``ratio`` = exponent / barrier;
* ``"schedule"``: chains under ``T(t) = c/log(t + t0)`` on the radius-R sphere (radius-R clock, see
  :mod:`contrastive_bounds.numerics.langevin.network_runs`) from the deepest trap of the same landscape
  at radius ``start_radius`` (under random rotations), to ``t_end``; success = ``V(Z_{t_end}) < V_min +
  δ`` with ``V_min`` this network's global minimum and ``δ = (V(start) − V_min)/2``; ``empirical`` =
  the success fraction with its Clopper–Pearson interval at ``confidence``.

Rows carry the verdict ``measured``: the comparisons and claim verdicts are made by the checks
``A8.6_dimension``, ``A8.7_negatives``, ``A8.8_curvature`` (:mod:`contrastive_bounds.properties.checks.landscape_ablations`),
which call :func:`run` per grid point. Networks are cached per process (:func:`cached_network`), so a
grid that repeats a landscape searches it once; ``run`` is pure (the search's wall time is not in the row).
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any, Mapping

from contrastive_bounds.theory.domains import check_int, check_probability, check_real

from contrastive_bounds.properties.sweeps.kinds import REQUIRED, ParamSpec, TaskKind, TaskOutput, register_kind

__all__ = ["LANDSCAPE", "ABLATIONS", "MEASURES", "cached_network", "network_row", "run", "validate", "cost",
           "COMPILE_SECONDS", "CHAIN_STEPS_PER_SECOND"]

ABLATIONS = ("none", "dimension", "negatives", "curvature")
MEASURES = ("network", "arrhenius", "schedule")
#: Compiling a network's kernels for one landscape, plus its closure rounds (seconds on one core, chunk 8:
#: 25-50 s measured for N = 4..16, d = 2..5 under load; structured starts add their minimisations, see :func:`cost`).
COMPILE_SECONDS = 25.0
#: Float64 InfoNCE chain-steps per second on one core (measured 0.9-1.5e6 for N = 4..6, d = 2).
CHAIN_STEPS_PER_SECOND = 1.0e6


def _positive(name: str):
    return lambda v: check_real(name, v, 0.0, math.inf)


def _ratios(v: list) -> list:
    if not v:
        raise ValueError("barrier_over_t must list at least 2 values of H*/T")
    return [check_real("barrier_over_t", float(x), 0.0, 50.0) for x in v]


PARAMS = (
    ParamSpec("ablation", str, "none", choices=ABLATIONS, description="which ablation of docs/theorems.md A8.6-A8.8 the row belongs to"),
    ParamSpec("num_points", int, REQUIRED, check=lambda v: check_int("num_points", v, 3, 64), description="N points (3..64)"),
    ParamSpec("dim", int, REQUIRED, check=lambda v: check_int("dim", v, 2, 16), description="embedding dimension d (2..16)"),
    ParamSpec("tau", float, REQUIRED, check=_positive("tau"), description="InfoNCE temperature tau > 0"),
    ParamSpec("radius", float, 1.0, check=_positive("radius"), description="sphere radius R (similarities R² cos)"),
    ParamSpec("pairs", list, None, description="positive pairs [[i, j], ...] (default (0,1), (2,3), ...)"),
    ParamSpec("coupled", bool, False, description="positive in the denominator"),
    ParamSpec("starts", int, 128, check=lambda v: check_int("starts", v, 1, 100_000), description="random starts of the search"),
    ParamSpec("max_hop_rounds", int, 30, check=lambda v: check_int("max_hop_rounds", v, 0, 10_000), description="basin-hopping rounds at most"),
    ParamSpec("max_ts_rounds", int, 60, check=lambda v: check_int("max_ts_rounds", v, 1, 1000),
              description="transition-state (closure) rounds at most: the search's round budget"),
    ParamSpec("structured_starts", int, 4000, check=lambda v: check_int("structured_starts", v, 0, 1_000_000),
              description="budget of structured templates (pair states on spherical codes); 0: none"),
    ParamSpec("closure", bool, True, description="follow every Hessian mode of every minimum to closure (False: the previous search)"),
    ParamSpec("pair_distance", float, 0.75, check=lambda v: check_real("pair_distance", v, 0.0, 2.0, lo_closed=True, hi_closed=True),
              description="band searches between every pair of minima within this aligned RMS distance per point"),
    ParamSpec("max_minima", int, 400, check=lambda v: check_int("max_minima", v, 1, 100_000), description="budget: minima at most"),
    ParamSpec("max_searches", int, 40000, check=lambda v: check_int("max_searches", v, 0, 10_000_000),
              description="budget: single-ended plus band searches at most"),
    ParamSpec("search_seed", int, None, check=lambda v: check_int("search_seed", v, 0, 2**32 - 1),
              description="seed of the network search (default: the task's seed); an axis of several = independent searches"),
    ParamSpec("chunk", int, 8, check=lambda v: check_int("chunk", v, 8, 4096), description="vmapped batch of the search"),
    ParamSpec("measure", str, "network", choices=MEASURES, description="what to simulate on the network"),
    ParamSpec("barrier_over_t", list, [2.5, 3.5, 4.5], check=_ratios, description="arrhenius: H/T ratios of the temperatures"),
    ParamSpec("arrhenius_model", str, "corrected", choices=("corrected", "linear"),
              description="arrhenius: log tau = a + H/T (+ c T: first-order finite-T correction)"),
    ParamSpec("chains", int, 256, check=lambda v: check_int("chains", v, 2, 1_000_000), description="chains per simulation"),
    ParamSpec("step_scale", float, 0.2, check=lambda v: check_real("step_scale", v, 0.0, 1.0, hi_closed=True),
              description="h * (stiffest Hessian eigenvalue at the trap), in (0, 1]"),
    ParamSpec("horizon_factor", float, 2.5, check=_positive("horizon_factor"),
              description="arrhenius: t_end = factor x Eyring-Kramers escape time"),
    ParamSpec("c", float, None, check=_positive("c"), description="schedule: HKS constant of T = c/log(t + t0)"),
    ParamSpec("t0", float, 2.0, check=lambda v: check_real("t0", v, 1.0, math.inf), description="schedule: time offset (> 1)"),
    ParamSpec("t_end", float, 10.0, check=_positive("t_end"), description="schedule: horizon (radius-R clock)"),
    ParamSpec("start_radius", float, 1.0, check=_positive("start_radius"),
              description="schedule: start at the deepest trap of the landscape at this radius"),
    ParamSpec("confidence", float, 0.95, check=lambda v: check_probability("confidence", v), description="level of intervals"),
)

OUTPUTS = {"critical_height": float, "catoni_difficulty": float, "status": str, "complete": bool, "barrier_free": bool,
           "closed": bool,
           "num_minima": int, "num_ts_verified": int, "num_ts_rejected": int, "v_min": float, "trap_energy": float,
           "trap_barrier": float, "non_degenerate": bool, "effort_text": str, "search_starts": int, "search_hops": int,
           "search_single_ended": int, "search_bands": int, "search_refinements": int, "tau_effective": float,
           "arrhenius_barrier": float, "arrhenius_lo": float, "arrhenius_hi": float, "arrhenius_linear": float,
           "step_size_used": float, "success_count": int, "reached_count": int, "level": float}


@functools.lru_cache(maxsize=64)
def _network(n: int, d: int, tau: float, radius: float, pairs: tuple | None, coupled: bool, starts: int, seed: int,
             max_hop_rounds: int, max_ts_rounds: int, chunk: int, search: tuple = ()) -> tuple[Any, Any]:
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

    spec = infonce_spec(n, d, tau, pairs, coupled=coupled, radius=radius)
    res = landscape_network(spec, starts=starts, seed=seed, max_hop_rounds=max_hop_rounds, max_ts_rounds=max_ts_rounds,
                            chunk=chunk, **dict(search))
    return spec, res


#: search settings a row may set beyond the ones named in :func:`_network` (budget, closure, structured starts)
_SEARCH_KEYS = ("structured_starts", "closure", "pair_distance", "max_minima", "max_searches")


def cached_network(p: Mapping[str, Any], seed: int, *, radius: float | None = None) -> tuple[Any, Any]:
    """``(spec, NetworkResult)`` of a row's landscape (at ``radius`` when given), searched once per process
    with the row's ``search_seed`` (else ``seed``).

    Needs JAX x64 (turned on here: the search computes in float64).
    """
    from contrastive_bounds.numerics.precision import enable_x64

    enable_x64()
    pairs = None if p.get("pairs") is None else tuple(tuple(int(i) for i in pr) for pr in p["pairs"])
    seed = int(p["search_seed"]) if p.get("search_seed") is not None else int(seed)
    return _network(int(p["num_points"]), int(p["dim"]), float(p["tau"]), float(p["radius"] if radius is None else radius),
                    pairs, bool(p.get("coupled", False)), int(p["starts"]), seed, int(p["max_hop_rounds"]),
                    int(p["max_ts_rounds"]), int(p["chunk"]), tuple((k, p[k]) for k in _SEARCH_KEYS if k in p))


def network_row(res: Any, trap: Any) -> dict[str, Any]:
    """The network columns of a row (see :data:`OUTPUTS`) from a result and its trap (or None)."""
    e = res.effort
    return {"critical_height": float(res.critical_height), "catoni_difficulty": float(res.catoni_difficulty),
            "status": res.status, "complete": bool(res.complete), "closed": bool(res.closed),
            "barrier_free": res.status.startswith("barrier-free"), "num_minima": len(res.minima),
            "num_ts_verified": len(res.transition_states), "num_ts_rejected": len(res.unverified),
            "v_min": float(res.analysis.v_min), "trap_energy": None if trap is None else trap.energy,
            "trap_barrier": None if trap is None else trap.barrier,
            "non_degenerate": None if trap is None else trap.non_degenerate,
            "effort_text": res.effort_text().rsplit(";", 1)[0] if ";" in res.effort_text() else res.effort_text(),
            "search_starts": e.starts, "search_hops": e.hops, "search_single_ended": e.single_ended,
            "search_bands": e.neb_runs, "search_refinements": e.refinements}


def _minima_details(res: Any) -> list[dict[str, Any]]:
    return [{"energy": m.energy, "multiplicity": m.multiplicity, "hits": m.hits, "verified": m.verified,
             "found_by": m.found_by, "label": m.label,
             "barrier": res.analysis.barriers.get(m.id, {}).get("barrier"), "global": m.id in res.global_minima,
             "z": [[float(x) for x in row] for row in m.z]} for m in res.minima]


def validate(p: Mapping[str, Any]) -> None:
    """Cross-parameter checks (raises ValueError naming the parameters)."""
    from contrastive_bounds.numerics.landscapes.network.spec import check_pairs

    if p.get("pairs") is not None:
        check_pairs(p["pairs"], p["num_points"])
    if p["measure"] == "schedule" and "c" not in p:
        raise ValueError("measure='schedule' needs c (the HKS constant of T = c/log(t + t0))")
    if p["measure"] == "arrhenius" and p["arrhenius_model"] == "corrected" and len(p["barrier_over_t"]) < 3:
        raise ValueError("arrhenius_model='corrected' needs at least 3 values in barrier_over_t")
    if len(set(p["barrier_over_t"])) != len(p["barrier_over_t"]):
        raise ValueError("barrier_over_t values must be distinct")


def _arrhenius(p: Mapping[str, Any], seed: int, spec: Any, trap: Any, out: dict, details: dict) -> TaskOutput:
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
    return TaskOutput("measured", summary, bound=trap.barrier, bound_log10=math.log10(trap.barrier), empirical=est.barrier,
                      ci_lo=est.lo, ci_hi=est.hi, ratio=ratio, ratio_log10=math.log10(ratio) if ratio > 0 else None,
                      samples=p["chains"] * len(samples), reason="comparison made by check A8.7_negatives",
                      outputs=out, details=details)


def _schedule(p: Mapping[str, Any], seed: int, spec: Any, res: Any, out: dict, details: dict) -> TaskOutput:
    from contrastive_bounds.numerics.landscapes.network.verify import classify
    from contrastive_bounds.numerics.landscapes.network_kramers import network_trap, trap_starts
    from contrastive_bounds.numerics.langevin.network_runs import schedule_sample
    from contrastive_bounds.numerics.stats import clopper_pearson
    from contrastive_bounds.theory.annealing import make_schedule

    spec0, res0 = cached_network(p, seed, radius=p["start_radius"])
    trap0 = network_trap(res0, spec0)
    if trap0 is None:
        raise ValueError(f"start_radius={p['start_radius']!r}: the landscape there is barrier-free within the search; "
                         "no trap to start from")
    v_start = spec.energy(trap0.z)
    v_min = float(res.analysis.v_min)
    level = v_min + 0.5 * (v_start - v_min)
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
    return TaskOutput("measured", summary, empirical=ci.estimate, ci_lo=ci.lo, ci_hi=ci.hi, samples=run_.chains,
                      reason="comparison across radii made by check A8.8_curvature", outputs=out, details=details)


def run(p: Mapping[str, Any], seed: int) -> TaskOutput:
    """One ``landscape`` task (see the module docstring); float64."""
    from contrastive_bounds.numerics.landscapes.network_kramers import network_trap

    spec, res = cached_network(p, seed)
    trap = network_trap(res, spec)
    out = network_row(res, trap)
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
            return TaskOutput("measured", f"no Arrhenius run: {why}; H* = {res.critical_height:.4g} ({res.status})",
                              empirical=out["critical_height"], reason=f"no Arrhenius run: {why}", outputs=out,
                              details=json.loads(json.dumps(details, default=float)))
        return _arrhenius(p, seed, spec, trap, out, details)
    if p["measure"] == "schedule":
        return _schedule(p, seed, spec, res, out, details)
    details = json.loads(json.dumps(details, default=float))
    summary = (f"H* = {res.critical_height:.6g} ({res.status}); D = {res.catoni_difficulty:.4g}; {len(res.minima)} minima, "
               f"{len(res.transition_states)} verified transition states; effort: {out['effort_text']}")
    return TaskOutput("measured", summary, empirical=out["critical_height"], ci_lo=out["critical_height"],
                      ci_hi=out["critical_height"], reason="a network measurement; claims are judged by the A8 checks",
                      outputs=out, details=details)


def cost(p: Mapping[str, Any]) -> float:
    """Seconds on one core: :data:`COMPILE_SECONDS` per landscape, the structured starts (0.01 s per template
    at N·d = 30, scaled by N·d), plus the simulations' chain-steps at
    :data:`CHAIN_STEPS_PER_SECOND` (arrhenius: about 50 000 steps per temperature, measured 62-490 s per task for N = 4..10 at 512 chains; schedule: t_end/h with
    h ~ 0.002)."""
    base = COMPILE_SECONDS + 0.01 * p["starts"] + 0.01 * p.get("structured_starts", 0) * p["num_points"] * p["dim"] / 30
    if p["measure"] == "arrhenius":
        return base + p["chains"] * 50_000 * len(p["barrier_over_t"]) / CHAIN_STEPS_PER_SECOND
    if p["measure"] == "schedule":
        return 2 * base + p["chains"] * p["t_end"] / 0.002 / CHAIN_STEPS_PER_SECOND
    return base


LANDSCAPE = register_kind(TaskKind(
    "landscape", "InfoNCE landscape network (H*, D, minima, verified TSs, search effort); optional Arrhenius or schedule runs",
    params=PARAMS, outputs=OUTPUTS, run=run, cost=cost, validate=validate))
