"""Sweep kind ``anneal``: annealed Langevin chains under a schedule, success beside Eyring-Kramers.

One task runs :func:`contrastive_bounds.numerics.langevin.run_schedule` (float64) on a
landscape from a start mode and reports

* ``empirical``: the success fraction P(V(Z_{t_end}) < V_min + delta) with its Clopper-Pearson
  interval at ``confidence`` (``ci_lo``, ``ci_hi``; 2 450 chains give +-2 % at 95 %);
* for S¹ landscapes started in their deepest trap, the Kramers prediction of the trapped fraction
  (:func:`~contrastive_bounds.numerics.langevin.kramers_trap_band`, docs/theorems.md A5)
  with its stated model-error band, in the output columns ``trapped`` (with ``trapped_lo``,
  ``trapped_hi``), ``kramers_trapped``, ``kramers_lo``, ``kramers_hi``; the ``verdict`` is the band
  test of the checks of Paper A (trapped fraction's 99.9 % Clopper-Pearson interval meets the band:
  ``holds``; disjoint: ``violated``), ``measured`` where there is no prediction. The success fraction
  is compared with nothing, so the row's ``bound`` and ``ratio`` stay empty (they hold only what a
  verdict compared);
* the schedule's asymptotic verdict ``converges`` (HKS, docs/theorems.md A4) and its HKS constant.

``c_over_h`` gives the schedule's constant relative to the critical height H*: for the
logarithmic forms it is the HKS constant ``c_T / H*`` (converted to the form's own constant by
:func:`contrastive_bounds.theory.hks_constant_to_form`); for ``fixed``, ``linear``,
``exponential`` and ``sqrt`` it is the temperature scale ``c / H*``. Schedule parameters go only to
the forms that take them (:data:`FORM_PARAMS`: ``gamma``/``period`` to ``exponential``, ``alpha``
to ``polynomial``, ``t0`` to the logarithmic forms, ``polynomial`` and ``sqrt``), so one grid can
cross several forms. A ``linear`` schedule ends at
the run's horizon (``t_end`` of the schedule = ``t_end * (1 + 1e-6)``, so T > 0 on the whole run,
as in check ``A8.3_barrier_table``).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from contrastive_bounds.theory._domains import check_int, check_probability, check_real
from contrastive_bounds.theory._schedule_forms import FORMS, LOG_FORMS

from contrastive_bounds.properties.sweeps.kinds._kind import REQUIRED, ParamSpec, TaskKind, TaskOutput, register_kind

__all__ = ["ANNEAL", "FORM_PARAMS", "TEMPERATURE_SCALE_FORMS"]

#: Forms whose ``c`` is a temperature scale (c_over_h = c / H*).
TEMPERATURE_SCALE_FORMS = ("fixed", "linear", "exponential", "sqrt")
#: Throughput assumed by the cost estimate: float64 chain-steps per second on one core (measured
#: 1.4-1.9e7 on S¹ at 2 500 chains on the 2-core reference machine, see benchmarks/README.md).
CHAIN_STEPS_PER_SECOND = 1.5e7
#: Fixed cost of one task: compiling its kernel (a schedule is a closure, so each task compiles
#: once, 0.5-1.5 s) and the mpmath quadrature of the Kramers band (about 1 s).
COMPILE_SECONDS = 2.0
_LINEAR_END = 1.0 + 1e-6
#: The optional parameters each form takes; a row's other schedule parameters are not passed to it
#: (so one grid can cross forms: ``gamma``/``period`` shape only the exponential rows).
FORM_PARAMS = {"temperature": ("t0",), "inverse-temperature": ("t0",), "author": ("t0",), "noise": ("t0",),
               "exponential": ("gamma", "period"), "polynomial": ("alpha", "t0"), "sqrt": ("t0",)}


def _positive(name: str):
    return lambda v: check_real(name, v, 0.0, math.inf)


PARAMS = (
    ParamSpec("landscape", str, "barrier-H", description="built-in landscape with a known global minimum"),
    ParamSpec("H", float, None, check=lambda v: check_real("H", v, 0.0, 1e6, hi_closed=True),
              description="barrier height of barrier-H (its H* = H), in (0, 1e6]"),
    ParamSpec("schedule", str, REQUIRED, choices=FORMS, description="schedule form"),
    ParamSpec("c", float, None, check=_positive("c"), description="the form's constant (or give c_over_h)"),
    ParamSpec("c_over_h", float, None, check=_positive("c_over_h"),
              description="HKS constant / H* (log forms) or temperature scale / H* (fixed, linear, exponential, sqrt)"),
    ParamSpec("t0", float, None, description="time offset of log/polynomial/sqrt forms (form default when absent)"),
    ParamSpec("gamma", float, None, check=lambda v: check_real("gamma", v, 0.0, 1.0), description="exponential ratio in (0, 1)"),
    ParamSpec("period", float, None, check=_positive("period"), description="exponential period (default 1)"),
    ParamSpec("alpha", float, None, check=_positive("alpha"), description="polynomial exponent"),
    ParamSpec("chains", int, 1024, check=lambda v: check_int("chains", v, 1, 10_000_000), description="independent chains"),
    ParamSpec("t_end", float, 100.0, check=_positive("t_end"), description="horizon (continuous time)"),
    ParamSpec("step_size", float, 0.01, check=_positive("step_size"), description="step size h"),
    ParamSpec("start", str, "trap", choices=("trap", "uniform", "global"), description="initial state"),
    ParamSpec("delta", float, None, check=_positive("delta"),
              description="success: V < V_min + delta (default: half the gap to the trap)"),
    ParamSpec("confidence", float, 0.95, check=lambda v: check_probability("confidence", v),
              description="level of the success interval"),
)

OUTPUTS = {"critical_height": float, "c_used": float, "hks_constant": float, "converges": bool,
           "success": float, "trapped": float, "trapped_lo": float, "trapped_hi": float,
           "kramers_trapped": float, "kramers_lo": float, "kramers_hi": float, "hitting_time_median": float,
           "num_steps": int, "delta_used": float, "schedule_text": str}


def _landscape(p: Mapping[str, Any]):
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    kw = {"H": p["H"]} if "H" in p else {}
    land = get_landscape(p["landscape"], **kw)
    if land.v_min is None:
        raise ValueError(f"landscape={p['landscape']!r} has no known global minimum value; success is undefined")
    return land


def _schedule(p: Mapping[str, Any], critical_height: float | None):
    from contrastive_bounds.theory._schedules import hks_constant_to_form, make_schedule

    form = p["schedule"]
    extra = {k: p[k] for k in FORM_PARAMS.get(form, ()) if k in p}
    if form == "linear":
        extra["t_end"] = p["t_end"] * _LINEAR_END
    if "c_over_h" in p:
        if critical_height is None or critical_height <= 0:
            raise ValueError(f"c_over_h needs a landscape with a known H* > 0; {p['landscape']!r} has H* = {critical_height}")
        scale = p["c_over_h"] * critical_height
        if form in LOG_FORMS:
            return hks_constant_to_form(form, scale, **({"t0": extra["t0"]} if "t0" in extra else {}))
        if form not in TEMPERATURE_SCALE_FORMS:
            raise ValueError(f"c_over_h is not defined for schedule {form!r} (its c is not a temperature); give c")
        return make_schedule(form, c=scale, **extra)
    return make_schedule(form, c=p["c"], **extra)


def validate(p: Mapping[str, Any]) -> None:
    """Cross-parameter checks of an ``anneal`` row (raises ValueError naming the parameters)."""
    if ("c" in p) == ("c_over_h" in p):
        raise ValueError("give exactly one of c and c_over_h")
    if "H" in p and p["landscape"] != "barrier-H":
        raise ValueError(f"H is the parameter of landscape 'barrier-H', not of {p['landscape']!r}")
    n = round(p["t_end"] / p["step_size"])
    if n < 1 or abs(n * p["step_size"] - p["t_end"]) > 1e-9 * max(1.0, p["t_end"]):
        raise ValueError(f"t_end={p['t_end']!r} must be a positive whole multiple of step_size={p['step_size']!r}")
    if n > 2**31 - 2:
        raise ValueError(f"t_end / step_size = {n} steps is beyond {2**31 - 2}")
    land = _landscape(p)
    sched = _schedule(p, land.critical_height)
    sched.validate_range(0.0, p["t_end"])
    if p["start"] == "trap" and land.fourier is None:
        raise ValueError(f"start='trap' needs an S¹ landscape with a non-global minimum; {land.name!r} is not one")


def run(p: Mapping[str, Any], seed: int) -> TaskOutput:
    """One ``anneal`` task (see the module docstring); float64, needs JAX x64."""
    from contrastive_bounds.numerics.langevin._experiments import circle_trap, kramers_trap_band, run_schedule
    from contrastive_bounds.numerics._stats import clopper_pearson, hitting_time_summary

    from contrastive_bounds.properties.checks._annealing_common import band_test

    land = _landscape(p)
    sched = _schedule(p, land.critical_height)
    run_ = run_schedule(land, sched, chains=p["chains"], t_end=p["t_end"], step_size=p["step_size"], seed=seed,
                        start=p["start"], delta=p.get("delta"))
    conf = p["confidence"]
    succ = clopper_pearson(run_.success, run_.chains, conf)
    hits = hitting_time_summary(run_.hit_time, run_.t_end, conf)
    h_star = land.critical_height
    conv = sched.converges(h_star) if h_star is not None else None
    hks = sched.hks_constant()
    out = {"critical_height": h_star, "c_used": float(sched.params["c"]), "hks_constant": hks if math.isfinite(hks) else None,
           "converges": None if conv is None else conv.converges, "success": run_.success / run_.chains,
           "trapped": run_.trapped / run_.chains,
           "hitting_time_median": hits.median if hits.median is not None and math.isfinite(hits.median) else None, "num_steps": run_.num_steps,
           "delta_used": run_.delta, "schedule_text": sched.describe()}
    trap = circle_trap(land) if p["start"] == "trap" else None
    common = dict(empirical=succ.estimate, ci_lo=succ.lo, ci_hi=succ.hi, samples=run_.chains)
    details = {"convergence_reason": None if conv is None else conv.reason, "reached": run_.reached,
               "successes": run_.success}
    if trap is None:
        return TaskOutput("measured", f"success {succ.estimate:.4f} [{succ.lo:.4f}, {succ.hi:.4f}] ({sched.describe()})",
                          reason="no Kramers prediction: the chains do not start in an S¹ trap", outputs=out,
                          details=details, **common)
    band = kramers_trap_band(land, sched, trap, 0.0, run_.t_end, run_.step_size)
    verdict, p_value, (t_lo, t_hi) = band_test(run_.trapped, run_.chains, band.lo, band.hi)
    out.update(trapped_lo=t_lo, trapped_hi=t_hi, kramers_trapped=band.predicted, kramers_lo=band.lo, kramers_hi=band.hi)
    details.update(kramers_band=band.to_dict())
    meets = "meets" if verdict == "holds" else "is OUTSIDE"
    summary = (f"success {succ.estimate:.4f} [{succ.lo:.4f}, {succ.hi:.4f}]; trapped {run_.trapped / run_.chains:.4f} "
               f"[{t_lo:.4f}, {t_hi:.4f}] (99.9 %) {meets} the Kramers band [{band.lo:.4f}, {band.hi:.4f}] of "
               f"{band.predicted:.4f} ({sched.describe()})")
    return TaskOutput(verdict, summary, p_value=p_value, false_alarm=1e-3, outputs=out, details=details, **common)


def cost(p: Mapping[str, Any]) -> float:
    """Seconds on one core: chains x steps at :data:`CHAIN_STEPS_PER_SECOND`, plus :data:`COMPILE_SECONDS`."""
    return COMPILE_SECONDS + p["chains"] * round(p["t_end"] / p["step_size"]) / CHAIN_STEPS_PER_SECOND


ANNEAL = register_kind(TaskKind(
    "anneal", "annealed Langevin chains under a schedule: success fraction (Clopper-Pearson) beside Eyring-Kramers",
    params=PARAMS, outputs=OUTPUTS, run=run, cost=cost, validate=validate))
