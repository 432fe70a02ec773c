"""Annealing from a saved landscape network, as library calls: plan, run, and a result with ``to_dict()``.

What ``contrastive-bounds anneal --search FOLDER`` does, for any API user of a saved search
(:func:`~contrastive_bounds.numerics.landscapes.network.load_saved_search`; docs/theorems.md A4, A5, A9):

* :func:`start_minimum` — the minimum the chains start from (``"trap"``: the deepest trap, ``"global"``,
  ``"uniform"``: none, or a label ``m<id>``), checked without JAX;
* :func:`plan_anneal` — everything decided before the first step: the landscape (rebuilt from the saved
  fingerprint, or the spec given, which must be the saved one), every saved energy re-verified, the status
  (the one rule of :mod:`~contrastive_bounds.numerics.landscapes.network.status`), the global set
  ``{V < V_min + δ}`` (δ stated; the start minimum must lie outside it), the step size (at most
  ``STEP_SCALE·R²/λ_max`` of the start minimum by default), the Eyring–Kramers trap of the start minimum;
* :func:`run_anneal` — the chains (:func:`~contrastive_bounds.numerics.langevin.network_runs.schedule_sample`:
  compiled, vmapped, ``lax.scan`` chunks, checkpoints), the final quench to the network's basins
  (:func:`~contrastive_bounds.numerics.langevin.network_anneal.final_basins`), the prediction
  (:func:`~contrastive_bounds.numerics.langevin.network_anneal.trap_prediction`) and the HKS verdict, as a
  :class:`~contrastive_bounds.numerics.NetworkAnnealResult` (``to_dict()``: the JSON of ``anneal --search``;
  its own module, :mod:`~contrastive_bounds.numerics._network_anneal_result`);
* :func:`anneal_saved_network` — both.

Every refusal is a ValueError naming the argument (``start``, ``delta``, ``step_size``, ``t_end``) or a
:class:`LandscapeMismatch` listing the fingerprint fields that differ; the command line names the same
refusals by its options. It joins the landscape networks and the Langevin simulator, so it sits beside both;
importing it starts no JAX (:func:`start_minimum`, :func:`whole_steps` and :func:`check_landscape` run
without it, so the command line refuses bad input before importing JAX).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from contrastive_bounds.numerics._network_anneal_result import NetworkAnnealResult
from contrastive_bounds.theory._domains import check_int, check_real, check_seed

__all__ = ["STEP_SCALE", "DEFAULT_STEP_SIZE", "WARN_STEP", "START_CHOICES", "LandscapeMismatch", "AnnealPlan",
           "start_minimum", "check_landscape", "plan_anneal", "run_anneal",
           "anneal_saved_network", "whole_steps", "MAX_TRACE_RECORDS", "trace_record_every"]

#: Default step: at most ``STEP_SCALE·R²/λ_max`` (λ_max the stiffest Hessian eigenvalue at the start minimum).
STEP_SCALE = 0.2
#: The default step where the stiffness allows it (the S¹ path's default).
DEFAULT_STEP_SIZE = 0.02
#: ``h·λ_max/R²`` above this is noted (the Euler step's bias is not small).
WARN_STEP = 0.5
#: Most entries in a run's energy trace (per chain; the trace is kept in memory and in every checkpoint)
MAX_TRACE_RECORDS = 1000
#: starts besides a minimum's label
START_CHOICES = ("trap", "uniform", "global")


class LandscapeMismatch(ValueError):
    """The landscape given is not the saved search's: ``differences`` lists ``(field, saved, given)``."""

    def __init__(self, message: str, differences: list[tuple[str, Any, Any]]) -> None:
        super().__init__(message)
        self.differences = differences


def whole_steps(t_end: float, step_size: float) -> int:
    """``t_end / step_size`` as a whole number of steps in ``[1, 2^31 − 2]``.

    Raises:
      ValueError: naming ``t_end`` and ``step_size`` (not a whole multiple, or too many steps).
    """
    ratio = t_end / step_size
    if not math.isfinite(ratio) or ratio > 2**31 - 2:
        shown = f"{ratio:.0f}" if ratio < 1e15 else f"{ratio:.3g}"
        raise ValueError(f"t_end / step_size = {shown} steps is outside its domain: at most {2**31 - 2} steps; "
                         "use a shorter t_end or a larger step_size")
    n = round(ratio)
    if n < 1 or abs(n * step_size - t_end) > 1e-9 * max(1.0, t_end):
        raise ValueError(f"t_end={t_end!r} must be a positive whole multiple of step_size={step_size!r}")
    return n


def start_minimum(saved: Any, start: str) -> Any:
    """The minimum a run from ``saved`` starts at: None for ``"uniform"``; the first global minimum for
    ``"global"``; for ``"trap"`` the non-global minimum with the largest barrier (lowest id among equals);
    else the minimum labelled ``start`` (``m<id>``). JAX-free.

    Raises:
      ValueError: naming ``start`` (not a choice nor a label of the search; ``"trap"`` on a network with no
        non-global minimum with a barrier).
    """
    if start == "uniform":
        return None
    if start in ("global", "trap"):
        a = saved.analysis()
        if start == "global":
            return saved.minimum(a.global_minima[0])
        if not a.barriers:
            raise ValueError(f"start='trap': the saved search has no non-global minimum with a barrier "
                             f"({saved.status()}); start at global, uniform or a minimum m<id>")
        return saved.minimum(max(a.barriers, key=lambda k: (a.barriers[k]["barrier"], -k)))
    try:
        return saved.minimum(start)
    except ValueError:
        raise ValueError(f"start={start!r} is not trap, uniform, global or a minimum of the saved search (its minima: "
                         f"{', '.join(saved.labels[:20])})") from None


def check_landscape(saved: Any, fingerprint: dict[str, Any], *, probe: bool = True) -> None:
    """Refuse a landscape other than the saved search's (``fingerprint``: the given spec's, or its fields before it
    is built with ``probe=False``).

    Raises:
      LandscapeMismatch: naming each differing field (the probe only when nothing else differs).
    """
    diffs = saved.differences(fingerprint, probe=probe)
    if len(diffs) > 1:  # other arguments give other probe values: name the arguments only
        diffs = [x for x in diffs if x[0] != "probe"]
    if diffs:
        shown = "; ".join(f"{k}: saved {a!r}, given {b!r}" for k, a, b in diffs[:4])
        raise LandscapeMismatch(f"the saved search is of {saved.landscape.get('description') or saved.landscape['name']}, "
                                f"not of the landscape given ({shown})", diffs)


@dataclass(frozen=True)
class AnnealPlan:
    """Everything :func:`plan_anneal` decided (see there); ``starts`` ``(chains, N, d)`` float64."""

    saved: Any = field(repr=False)
    spec: Any = field(repr=False)
    schedule: Any
    start: str
    first: Any
    analysis: Any = field(repr=False)
    status: str
    known: bool
    delta: float
    level: float
    step_size: float
    num_steps: int
    chains: int
    seed: int
    integrator: str
    trap: Any = field(repr=False)
    stiffest: float
    notes: tuple[str, ...]
    starts: np.ndarray = field(repr=False)

    @property
    def t_end(self) -> float:
        """The horizon ``num_steps·step_size`` (radius-R clock)."""
        return self.num_steps * self.step_size


def plan_anneal(saved: Any, schedule: Any, *, chains: int, t_end: float, step_size: float | None = None, seed: int = 0,
                delta: float | None = None, start: str = "trap", integrator: str = "euler", spec: Any = None) -> AnnealPlan:
    """Decide a run from the saved search ``saved`` under ``schedule`` (module docstring).

    Args:
      saved: a :class:`~contrastive_bounds.numerics.landscapes.network.SavedSearch`. schedule: a ``Schedule``.
      chains: >= 1. t_end: horizon > 0 (radius-R clock). step_size: h (None: the default above; given: ``t_end``
        must be a whole multiple of it). seed: the noise and rotation seed. delta: δ of the global set (None:
        half the gap between V_min and the next minimum). start: ``"trap"``, ``"global"``, ``"uniform"`` or
        ``m<id>``. integrator: ``"euler"`` or ``"geodesic"``. spec: the landscape (None: rebuilt from the saved
        fingerprint; given: it must be the saved one).

    Raises:
      ValueError: naming ``start``, ``delta``, ``step_size``, ``t_end``, ``chains`` or ``seed``;
        :class:`LandscapeMismatch`; :class:`~contrastive_bounds.numerics.landscapes.network.saved.SavedEnergyMismatch`
        (a saved energy that is not the potential at its coordinates); a landscape that cannot be rebuilt.
    """
    from contrastive_bounds.numerics.langevin._global_set import global_set_margin
    from contrastive_bounds.numerics.langevin.network_anneal import minimum_trap, network_starts, \
        stiffest_eigenvalue, uniform_starts

    chains = check_int("chains", chains, 1, None)
    seed = check_seed(seed)
    te = check_real("t_end", t_end, 0.0, math.inf)
    if integrator not in ("euler", "geodesic"):
        raise ValueError(f"integrator={integrator!r} must be 'euler' or 'geodesic'")
    first = start_minimum(saved, start)
    if spec is None:
        spec = saved.spec()
    else:
        check_landscape(saved, spec.fingerprint())
    saved.verify_energies(spec)
    analysis, status = saved.analysis(), saved.status()
    v_min, r2 = float(analysis.v_min), float(spec.radius) ** 2
    d = global_set_margin(v_min, [m.energy for m in saved.minima]) if delta is None else \
        check_real("delta", delta, 0.0, math.inf)
    level = v_min + d
    notes = []
    if first is not None and first.id not in analysis.global_minima and first.energy < level:
        raise ValueError(f"delta={d!r} puts the start minimum {first.label} (V = {first.energy:.10g}) inside the global "
                         f"set V < V_min + delta = {level:.10g}; use delta < {first.energy - v_min:.6g}")
    inside = [m.label for m in saved.minima if m.id not in analysis.global_minima and m.energy < level]
    if inside:
        notes.append(f"the global set V < {level:.6g} holds the non-global minima {', '.join(inside)} (delta is larger "
                     "than their gap to V_min)")
    if saved.store.curvature != "dense" and not saved.closed:
        notes.append(f"the saved network is not a closed search ({saved.effort.get('closure') or saved.status()}); "
                     f"its minima and saddles were found and certified by the {saved.store.curvature!r} curvature path, "
                     "and the prediction is evidence for this trap only")
    trap = minimum_trap(saved, spec, first.id, analysis) if first is not None else None
    if first is not None and first.id in analysis.unconnected:
        notes.append(f"the start minimum {first.label} has no path to a lower minimum in the saved network: no barrier "
                     "and no Eyring-Kramers prediction (the search is incomplete there)")
    z = first.z if first is not None else saved.minimum(analysis.global_minima[0]).z
    lam_max = trap.stiffest if trap is not None else stiffest_eigenvalue(spec, z)
    cap = STEP_SCALE * r2 / lam_max if lam_max > 0 else DEFAULT_STEP_SIZE
    if step_size is None:
        n_steps = max(1, math.ceil(te / min(DEFAULT_STEP_SIZE, cap) - 1e-9))
        while trace_record_every(n_steps) == n_steps > MAX_TRACE_RECORDS:  # a step count with a divisor near n/100
            n_steps += 1
        h = te / n_steps
    else:
        h = check_real("step_size", step_size, 0.0, math.inf)
        n_steps = whole_steps(te, h)
        if trace_record_every(n_steps) == n_steps > MAX_TRACE_RECORDS:
            notes.append(f"{n_steps} steps have no divisor giving at most {MAX_TRACE_RECORDS} energy-trace entries: the "
                         "trace holds only the end (another --step-size keeps about 100)")
        if h * lam_max / r2 > WARN_STEP:
            notes.append(f"step_size={h:g}: h·lambda_max/R² = {h * lam_max / r2:.3g} at the "
                         f"{'start' if first is not None else 'global'} minimum (lambda_max = {lam_max:.4g}): the Euler "
                         f"step's bias is not small; {STEP_SCALE * r2 / lam_max:.3g} or less is advised")
    starts = uniform_starts(spec, chains, seed) if first is None else network_starts(spec, first.z, chains, seed)
    return AnnealPlan(saved, spec, schedule, start, first, analysis, status, saved.critical_height_known, d, level, h,
                      n_steps, chains, seed, integrator, trap, float(lam_max), tuple(notes), starts)


def trace_record_every(num_steps: int) -> int:
    """Steps between energy-trace entries of a run of ``num_steps`` steps: about 100 entries
    (:func:`~contrastive_bounds.numerics.langevin.default_record_every`, a divisor of ``num_steps``), or only the end
    (``num_steps``) where no divisor gives at most ``MAX_TRACE_RECORDS`` (a prime step count would record every step:
    166 667 steps of 1 024 chains, 1.4 GB in memory and in each checkpoint)."""
    from contrastive_bounds.numerics.langevin import default_record_every

    n = check_int("num_steps", num_steps, 1, None)
    every = default_record_every(n)  # at most 10·100 = MAX_TRACE_RECORDS entries, else the end only
    return every if n // every <= MAX_TRACE_RECORDS else n


def run_anneal(plan: AnnealPlan, *, quench: bool = True, progress: bool = False, checkpoint: Any = None,
               resume: bool = False, should_stop: Callable[[], bool] | None = None) -> NetworkAnnealResult:
    """Run the chains of ``plan`` and put the theory beside them (module docstring).

    Args:
      quench: minimise each final state to name the network basin it ended in.
      progress, checkpoint, resume: as :func:`~contrastive_bounds.numerics.langevin.network_runs.schedule_sample` (a ``.npz`` checkpoint of the run).
      should_stop: polled between quench blocks (True raises ``KeyboardInterrupt``).

    Raises:
      SimulationInterrupted: Ctrl-C during the run (its state saved, ``numerics.langevin.simulate``).
      KeyboardInterrupt: ``should_stop`` during the quench. ValueError: a checkpoint of another run.
    """
    import warnings

    from contrastive_bounds.numerics.langevin import StepSizeWarning
    from contrastive_bounds.numerics.langevin.network_anneal import KRAMERS_ERROR_PER_T_OVER_H, MIN_BARRIER_OVER_T, \
        final_basins, trap_prediction
    from contrastive_bounds.numerics.langevin.network_runs import schedule_sample

    began = time.perf_counter()
    p = plan
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StepSizeWarning)
        run = schedule_sample(p.spec, p.starts, p.schedule, t_end=p.t_end, step_size=p.step_size, seed=p.seed,
                              level=p.level, integrator=p.integrator, record_every=trace_record_every(p.num_steps),
                              progress=progress, checkpoint=checkpoint, resume=resume)
    notes = list(p.notes) + [str(w.message) for w in caught if issubclass(w.category, StepSizeWarning)]
    for w in caught:
        if not issubclass(w.category, StepSizeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    labels, quench_began = None, time.perf_counter()
    if quench:
        labels, _ = final_basins(p.spec, run.positions, p.saved.minima, should_stop=should_stop)
        from contrastive_bounds.numerics.langevin.network_anneal import UNKNOWN_MINIMUM

        missed = int(np.sum(labels == UNKNOWN_MINIMUM))
        if missed:
            notes.append(f"{missed} chain(s) ended in a minimum the search did not find: the saved network is not "
                         "complete")
    quench_seconds = time.perf_counter() - quench_began if quench else 0.0
    pred = None
    if p.trap is not None:
        pred = trap_prediction(p.trap, p.schedule, t_end=run.t_end, step_size=p.step_size, radius=p.spec.radius, spec=p.spec,
                               error_per_t_over_h=KRAMERS_ERROR_PER_T_OVER_H, min_barrier_over_t=MIN_BARRIER_OVER_T,
                               integrator=p.integrator)
    h_star = float(p.analysis.critical_height)
    verdict = p.schedule.converges(h_star)
    converges = verdict.converges if p.known or verdict.converges is False else None
    if p.known:
        reason = f"{verdict.reason} [H* = {h_star:.6g} of the saved search: {p.status}]"
    elif converges is False:
        reason = (f"{verdict.reason} — H* = {h_star:.6g} is only what this search shows ({p.status}); the true H* "
                  "can only be larger, so the verdict stands")
    else:
        reason = (f"no verdict: H* is not known from this search ({p.status}); over the minima it connects H* = "
                  f"{h_star:.6g}, a lower bound, so the schedule's constant exceeding it decides nothing")
    return NetworkAnnealResult(p, run, labels, pred, converges, verdict.regime, reason, notes,
                               time.perf_counter() - began, quench_seconds)


def anneal_saved_network(saved: Any, schedule: Any, *, quench: bool = True, progress: bool = False,
                         checkpoint: Any = None, resume: bool = False, **plan: Any) -> NetworkAnnealResult:
    """:func:`plan_anneal` then :func:`run_anneal` (``saved``: a SavedSearch or the folder of one).

    Raises:
      ValueError: as :func:`plan_anneal` and :func:`run_anneal`, or a folder that holds no readable saved search.
      FileNotFoundError: no such folder, or no saved search in it.
      SimulationInterrupted: Ctrl-C during the run (as :func:`run_anneal`).
    """
    from contrastive_bounds.numerics.landscapes.network.saved import SavedSearch, load_saved_search

    if not isinstance(saved, SavedSearch):
        saved = load_saved_search(saved)
    return run_anneal(plan_anneal(saved, schedule, **plan), quench=quench, progress=progress, checkpoint=checkpoint,
                      resume=resume)
