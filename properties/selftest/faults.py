"""The self-test's built-in faults: realistic one-expression mistakes, each a set of substitutions.

Every fault belongs to one of the blind-spot kinds of :data:`KINDS` and names the checks of the main
job that are run under it (the checks that should catch it, and the ones it plausibly affects). A
fault is *caught* when at least one of them reports ``violated`` (significant after the suite's
Holm correction) or fails with an error; both make ``contrastive-bounds check`` exit 1.

Faults are applied with :func:`~.hook.substituted`: nothing is edited, and a fault applies to the
whole process for the duration of its block.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from contrastive_bounds.properties.selftest.hook import Substitution

__all__ = ["Fault", "KINDS", "FAULTS", "get_fault", "select_faults"]

#: the blind-spot kinds (issue: "Checks that catch a wrong formula")
KINDS = {
    "weaker-bound": "a bound (or corollary) whose constant or exponent became looser: 'measured <= bound' still passes",
    "agreement-limit": "an asymptotic agreement whose limit is wrong (a ratio that tends to 2, not 1), or a band whose "
                       "model factor comes from the function under test",
    "reported-metric": "a metric the report shows (CKA, RSA, a loss) computed wrongly",
    "driver-wiring": "a driver that passes a rescaled argument (step size, tau, temperature, time) to its kernel",
    "simulator-O(h)": "an O(h)-sized change of the integrator, smaller than the intervals of stationary checks",
    "values": "a theory object off at finite arguments with the same qualitative verdict (same HKS constant)",
}

CB = "contrastive_bounds"
ALIGN = f"{CB}.theory.alignment"
LN10 = math.log(10.0)


@dataclass(frozen=True)
class Fault:
    """One injected fault.

    Attributes:
      id: unique dotted name (``subject.what``).
      kind: a key of :data:`KINDS`.
      description: the mistake, as it would read in a diff.
      substitutions: what is replaced while the fault is active.
      checks: ids of the main job's checks run under the fault (quick profile defaults).
    """

    id: str
    kind: str
    description: str
    substitutions: tuple[Substitution, ...]
    checks: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r} must be one of {sorted(KINDS)}")


def _kw(**changes: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """make(original) -> a wrapper that transforms the named keyword arguments before calling it."""
    def make(original: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for name, f in changes.items():
                if name in kwargs:
                    kwargs[name] = f(kwargs[name])
            return original(*args, **kwargs)
        return wrapper
    return make


def _scaled_bound_value(v: Any, factor: float) -> Any:
    """A BoundValue multiplied by ``factor`` (value, log10, exact log10, mpmath value)."""
    import mpmath

    if v.vacuous or v.mp_value is None:
        return v
    l10 = math.log10(factor)
    return dataclasses.replace(
        v, value=None if v.value is None else v.value * factor, log10=None if v.log10 is None else v.log10 + l10,
        mp_value=v.mp_value * factor,
        log10_exact=None if v.log10_exact is None else mpmath.nstr(mpmath.mpf(v.log10_exact) + mpmath.log10(factor), 30))


def _bound_times(factor: float) -> Callable[[Any], Any]:
    return lambda original: (lambda *a, **k: _scaled_bound_value(original(*a, **k), factor))


def _shift_log10(delta: Callable[..., Any]) -> Callable[[Any], Any]:
    """make(original) for ``*_log10(etas, **kw)``: add ``delta(etas, **kw)`` to the result."""
    return lambda original: (lambda etas, **kw: original(etas, **kw) + delta(etas, **kw))


def _uncentred_cka(original: Any) -> Any:
    def cka(sigma_a: Any, sigma_b: Any) -> float:
        a, b = np.asarray(sigma_a, np.float64), np.asarray(sigma_b, np.float64)
        return float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    return cka


def _schedule_shift(original: Any) -> Any:
    from contrastive_bounds.theory.schedules import LOG_FORMS

    def form_beta(form: str, p: Any, t: Any, xp: Any = np) -> Any:
        return original(form, p, t + 1.0, xp) if form in LOG_FORMS else original(form, p, t, xp)
    return form_beta


def _program_shift(original: Any) -> Any:
    from contrastive_bounds.theory.schedules import LOG_FORMS

    def call(self: Any, data: Any, t: Any) -> Any:
        return original(self, data, t + 1.0) if self.kind == "schedule" and self.form in LOG_FORMS else original(self, data, t)
    return call


def _exponential_half_rate(original: Any) -> Any:
    def temperature(self: Any, t: Any, xp: Any = np) -> Any:
        return original(self, t * 0.5, xp) if self.form == "exponential" else original(self, t, xp)
    return temperature


def _trap_prefactor(original: Any) -> Any:
    def circle_trap(landscape: Any) -> Any:
        trap = original(landscape)
        if trap is None:
            return trap
        return dataclasses.replace(trap, log_prefactors=tuple(lp + math.log(2.0) for lp in trap.log_prefactors))
    return circle_trap


def _kernel_temperature(rescale: Callable[[Any, float], Any]) -> Callable[[Any], Any]:
    """make(langevin_kernel) -> one that builds its kernel with temperature rescale(temperature, h)."""
    def make(original: Any) -> Any:
        def langevin_kernel(*args: Any, temperature: Any, step_size: float, **kwargs: Any) -> Any:
            return original(*args, temperature=rescale(temperature, step_size), step_size=step_size, **kwargs)
        return langevin_kernel
    return make


def _misscaled(temperature: Any, h: float) -> Any:
    from contrastive_bounds.numerics.langevin.experiments import misscaled_temperature

    return misscaled_temperature(temperature, math.sqrt(0.9))


def _time_index(temperature: Any, h: float) -> Any:
    if isinstance(temperature, (int, float)):
        return temperature
    return lambda t, xp: temperature.temperature(t / h, xp=xp)  # T at the step index k = t/h, not at t = k·h


def _mfpt_scaled(original: Any) -> Any:
    def exact_mfpt_interval(*args: Any, **kwargs: Any) -> Any:
        r = original(*args, **kwargs)
        return dataclasses.replace(r, log_time=r.log_time + math.log(1.05), time=r.time * 1.05)
    return exact_mfpt_interval


def _drift_scaled(original: Any) -> Any:
    def value_and_derivative_z(self: Any, x: Any, y: Any) -> Any:
        v, dv = original(self, x, y)
        return v, 0.95 * dv
    return value_and_derivative_z



FAULTS: tuple[Fault, ...] = (
    # --------------------------------------------------------------------------- weaker bounds
    Fault("loss_gap.exponent", "weaker-bound", "loss-gap bound (numpy) with e^{3/tau} for e^{2/tau}",
          (Substitution(f"{ALIGN}:loss_gap_value", lambda f: (lambda tau, pi_max: f(tau * 2 / 3, pi_max))),),
          ("B2.loss_gap", "B4.reference_values")),
    Fault("loss_gap.bound_object", "weaker-bound", "alignment.loss_gap Bound evaluated with e^{3/tau} (sympy form)",
          (Substitution(f"{ALIGN}:LOSS_GAP.evaluate", _kw(tau=lambda t: t * 2 / 3)),),
          ("B2.loss_gap", "B4.reference_values")),
    Fault("theorem1.constant", "weaker-bound", "Theorem 1 twice as large in BOTH implementations (Bound and per-step "
          "numpy): 4 e^{2/tau} for 2 e^{2/tau} in Delta, consistently", (
              Substitution(f"{ALIGN}:FROBENIUS.evaluate", _bound_times(2.0)),
              Substitution(f"{ALIGN}:theorem1_log10", _shift_log10(lambda etas, **kw: math.log10(2.0))),
              Substitution(f"{ALIGN}:frobenius_log10", lambda f: (lambda *a, **k: f(*a, **k) + math.log10(2.0)))),
          ("B4.theorem1", "B4.reference_values")),
    Fault("theorem1.growth_exponent", "weaker-bound", "Theorem 1's growth exp(S/(tau^2 B)) for exp(S/(2 tau^2 B)) "
          "(per-step numpy)", (Substitution(f"{ALIGN}:theorem1_log10", _shift_log10(
              lambda etas, tau, batch_size, delta_value: np.concatenate([[0.0], np.cumsum(etas)]) / (2 * tau * tau * batch_size) / LN10)),),
          ("B4.theorem1",)),
    Fault("delta.exponent", "weaker-bound", "Delta with e^{3/tau} for e^{2/tau} (numpy delta_log10)",
          (Substitution(f"{ALIGN}:delta_log10", lambda f: (lambda tau, pi_max, epsilon: f(tau, pi_max, epsilon) + 1 / tau / LN10)),),
          ("B4.theorem1", "B4.reference_values")),
    Fault("epsilon.union_bound", "weaker-bound", "eps = sqrt(log(2 T B/delta)/(2B)) (union bound counted twice)",
          (Substitution(f"{ALIGN}:epsilon_value", lambda f: (lambda b, t, d: f(b, t, d / 2))),),
          ("B4.batch_event", "B4.reference_values")),
    Fault("link_l2.constant", "weaker-bound", "link L2 solved with 1.5 Delta (looser recursion constant)",
          (Substitution(f"{ALIGN}:link_l2_log10", _kw(delta_value=lambda d: 1.5 * d)),),
          ("B4.theorem1",)),
    Fault("theorem2.constant", "weaker-bound", "Theorem 2's form with e·G for G (a looser constant)",
          (Substitution(f"{ALIGN}:WEIGHT_DIVERGENCE.evaluate", _kw(grad_norm=lambda g: g * math.e)),),
          ("B6.weight_divergence",)),
    Fault("cka_lower.looser", "weaker-bound", "CKA corollary (1 - 2 rho)/(1 + rho) for (1 - rho)/(1 + rho)",
          (Substitution(f"{ALIGN}:cka_lower", lambda f: (lambda rho: (1 - 2 * np.asarray(rho, np.float64)) / (1 + np.asarray(rho, np.float64)))),),
          ("B5.corollaries_any_pair", "B5.cka_rsa_along_descent")),
    Fault("rsa_lower_sharp.looser", "weaker-bound", "sharp RSA corollary 1 - r for sqrt(1 - r^2)",
          (Substitution(f"{ALIGN}:rsa_lower_sharp", lambda f: (lambda r: np.where(np.asarray(r) < 1, 1 - np.asarray(r, np.float64), -1.0))),),
          ("B5.corollaries_any_pair",)),
    # --------------------------------------------------------------------------- agreement limits
    Fault("kramers.prefactor_pi", "agreement-limit", "Eyring-Kramers rate with |lambda|/pi for |lambda|/(2 pi): "
          "exact/Kramers tends to 2, monotonically", (
              Substitution(f"{CB}.theory.kramers:eyring_kramers_log_time", lambda f: (lambda *a, **k: f(*a, **k) - math.log(2.0))),),
          ("A5.kramers", "A4.trapping", "A8.1_inverted_condition")),
    Fault("kramers.prefactor_10pct", "agreement-limit", "Eyring-Kramers time 10 % too long (prefactor 1.1): "
          "exact/Kramers tends to 1/1.1", (
              Substitution(f"{CB}.theory.kramers:eyring_kramers_log_time", lambda f: (lambda *a, **k: f(*a, **k) + math.log(1.1))),),
          ("A5.kramers", "A4.trapping")),
    Fault("trap.prefactor", "agreement-limit", "trap Kramers prefactors sqrt(|V''(z)| V''(x))/pi for /(2 pi) (the rates "
          "of the band's prediction)", (Substitution(f"{CB}.numerics.langevin.experiments:circle_trap", _trap_prefactor),),
          ("A4.trapping", "A8.1_inverted_condition")),
    Fault("mfpt.quadrature", "agreement-limit", "exact MFPT 5 % too large (the model factor's 'exact' side)",
          (Substitution(f"{CB}.theory.kramers:exact_mfpt_interval", _mfpt_scaled),),
          ("A5.kramers", "A4.trapping")),
    # --------------------------------------------------------------------------- reported metrics
    Fault("cka.no_centring", "reported-metric", "CKA of cosine Grams without the centring H Sigma H",
          (Substitution(f"{CB}.numerics.alignment.similarity:cosine_gram_cka", _uncentred_cka),),
          ("B5.cka_rsa_along_descent", "B8.replay_training")),
    Fault("rsa.spearman", "reported-metric", "RSA with Spearman's rank correlation for Pearson's",
          (Substitution(f"{CB}.numerics.alignment.similarity:rsa_from_similarity",
                        lambda f: (lambda a, b, method="pearson": f(a, b, method="spearman"))),),
          ("B5.cka_rsa_along_descent",)),
    Fault("linear_cka.debiased", "reported-metric", "linear CKA of h always with the debiased HSIC (the flag ignored)",
          (Substitution(f"{CB}.numerics.alignment.similarity:linear_cka", _kw(debiased=lambda d: True)),),
          ("B8.replay_training",)),
    Fault("loss.nscl_coupled", "reported-metric", "NSCL denominator also holds the anchor's positive (coupled form "
          "where the decoupled one is stated)", (Substitution(f"{CB}.numerics.alignment.losses:view_masks",
                                                               lambda f: (lambda labels, *, kind, coupled=False, anchors="first":
                                                                          f(labels, kind=kind, coupled=coupled or kind == "nscl",
                                                                            anchors=anchors))),),
          ("B8.replay_training",)),
    # --------------------------------------------------------------------------- driver wiring
    Fault("descent.step_size", "driver-wiring", "similarity-descent driver passes step_size/2 to descent_step",
          (Substitution(f"{CB}.numerics.alignment.descent_run:descent_step", _kw(step_size=lambda e: e * 0.5), scope="here"),),
          ("B3.replay_descent", "B4.theorem1")),
    Fault("descent.tau", "driver-wiring", "similarity-descent driver passes 1.25 tau to descent_step",
          (Substitution(f"{CB}.numerics.alignment.descent_run:descent_step", _kw(tau=lambda t: t * 1.25), scope="here"),),
          ("B3.replay_descent",)),
    Fault("training.tau", "driver-wiring", "training epoch passes 1.25 tau to batch_loss",
          (Substitution(f"{CB}.numerics.alignment.training:batch_loss", _kw(tau=lambda t: t * 1.25), scope="here"),),
          ("B8.replay_training",)),
    Fault("langevin.step_size", "driver-wiring", "run_schedule builds its kernel with 1.1 h (time runs 10 % fast)",
          (Substitution(f"{CB}.numerics.langevin.experiments:langevin_kernel", _kw(step_size=lambda h: 1.1 * h), scope="here"),),
          ("A1.replay_langevin", "A4.trapping")),
    Fault("langevin.temperature", "driver-wiring", "run_schedule builds its kernel with 0.9 T",
          (Substitution(f"{CB}.numerics.langevin.experiments:langevin_kernel", _kernel_temperature(_misscaled), scope="here"),),
          ("A1.replay_langevin", "A4.trapping")),
    Fault("langevin.time_index", "driver-wiring", "the schedule evaluated at the step index k instead of t = k h",
          (Substitution(f"{CB}.numerics.langevin.experiments:langevin_kernel", _kernel_temperature(_time_index), scope="here"),),
          ("A1.replay_langevin", "A4.trapping")),
    # --------------------------------------------------------------------------- simulator O(h)
    Fault("integrator.noise_variance", "simulator-O(h)", "noise sqrt(2 T h (1 + h)) for sqrt(2 T h): an effective "
          "temperature T(1 + h)", (Substitution(f"{CB}.numerics.langevin.kernel:noise_scale",
                                                lambda f: (lambda temperature, step_size: f(temperature, step_size) *
                                                           (1.0 + step_size) ** 0.5)),),
          ("A1.one_step", "A1.vmf")),
    Fault("integrator.drift", "simulator-O(h)", "S¹ drift 0.95 h V' for h V' (an O(h)-sized error: 2.5 h at h = 0.02)",
          (Substitution(f"{CB}.numerics.landscapes.circle:FourierSeries.value_and_derivative_z", _drift_scaled),),
          ("A1.one_step", "A5.kramers", "A4.trapping")),
    Fault("integrator.noise_c11", "simulator-O(h)", "noise sqrt(2T)·h for sqrt(2 T h) (docs/reference-values.md C11; an O(1) fault "
          "for comparison)", (Substitution(f"{CB}.numerics.langevin.kernel:noise_scale",
                                           lambda f: (lambda temperature, step_size: (2.0 * temperature) ** 0.5 * step_size)),),
          ("A1.one_step", "A1.vmf", "A4.trapping")),
    # --------------------------------------------------------------------------- values at finite t
    Fault("schedule.log_shift", "values", "logarithmic schedules evaluated at t + 1 (log(t + t0 + 1)): same HKS "
          "constant, same verdict", (Substitution(f"{CB}.theory.schedule_forms:form_beta", _schedule_shift),),
          ("A2.schedule_values", "A4.trapping", "A4.convergence", "A6.finite_time")),
    Fault("schedule.program_log_shift", "values", "the simulator's compiled schedule reads log(t + t0 + 1) while the "
          "theory's Schedule is right", (Substitution(f"{CB}.numerics.langevin.temperature:TemperatureProgram.__call__",
                                                      _program_shift),),
          ("A2.schedule_values", "A4.trapping")),
    Fault("schedule.exponential_rate", "values", "exponential cooling gamma^(t/(2 period)) for gamma^(t/period): "
          "still fast (HKS constant 0)", (Substitution(f"{CB}.theory.schedules:Schedule.temperature", _exponential_half_rate),),
          ("A2.schedule_values", "A4.fast_schedules")),
    Fault("schedule.author_constant", "values", "the author's convention reports HKS constant c for 1/c",
          (Substitution(f"{CB}.theory.schedules:Schedule.hks_constant",
                        lambda f: (lambda self: self.params["c"] if self.form == "author" else f(self))),),
          ("A2.schedule_values",)),
    Fault("seed_exponent.formula", "values", "the seed note's exponent H*/eps for H*/eps - 1 (the object the "
          "refutation is about)", (Substitution(f"{CB}.theory.annealing:seed_finite_time_exponent",
                                                lambda f: (lambda critical_height, epsilon: f(critical_height, epsilon) + 1.0)),),
          ("A8.2_finite_time_exponent",)),
)


def get_fault(fault_id: str) -> Fault:
    """The built-in fault ``fault_id``.

    Raises:
      ValueError: unknown id (the message lists the ids).
    """
    for f in FAULTS:
        if f.id == fault_id:
            return f
    raise ValueError(f"fault={fault_id!r} is not a built-in fault; choose from {[f.id for f in FAULTS]}")


def select_faults(pattern: str | None) -> list[Fault]:
    """Faults whose id or kind matches ``pattern`` (glob, or substring); all when ``None``.

    Raises:
      ValueError: a pattern that matches nothing.
    """
    import fnmatch

    if not pattern:
        return list(FAULTS)
    out = [f for f in FAULTS if fnmatch.fnmatch(f.id, pattern) or pattern in f.id or pattern == f.kind]
    if not out:
        raise ValueError(f"--only={pattern!r} matches no built-in fault; ids: {[f.id for f in FAULTS]}")
    return out
