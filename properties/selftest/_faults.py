"""The self-test's built-in faults: realistic one-expression mistakes, each a set of substitutions.

Every fault belongs to one of the blind-spot kinds of :data:`KINDS`, names the checks of the main job
run under it (``checks``: the ones that should catch it and the ones it plausibly affects) and, among
them, its *witnesses*: the checks it must turn red. A check turns red under a fault when it reports
``violated`` by a failed deterministic condition, or with a p-value that survives the suite's Holm
correction, or fails with an error; all three make ``contrastive-bounds check`` exit 1.

Every registered check of the main job is the witness of at least one fault (:func:`unwitnessed`; a test
enumerates the registry so a new check without one fails CI): a check no fault can turn red is a check
nobody has seen fail.

Faults are applied with :func:`~._hook.substituted`: nothing is edited, and a fault applies to the
whole process for the duration of its block. The replacement makers are in :mod:`._makers`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

import contrastive_bounds.properties.selftest._makers as mk
from contrastive_bounds.properties.selftest._hook import Substitution

__all__ = ["Fault", "KINDS", "FAULTS", "get_fault", "select_faults", "witnesses_of", "unwitnessed"]

#: the blind-spot kinds (issue: "Checks that catch a wrong formula", "Verdicts that cannot lie")
KINDS = {
    "weaker-bound": "a bound (or corollary) whose constant or exponent became looser: 'measured <= bound' still passes",
    "agreement-limit": "an asymptotic agreement whose limit is wrong (a ratio that tends to 2, not 1), or a band whose "
                       "model factor comes from the function under test",
    "reported-metric": "a metric the report shows (CKA, RSA, a loss) computed wrongly",
    "driver-wiring": "a driver that passes a rescaled argument (step size, tau, temperature, time) to its kernel",
    "simulator-O(h)": "an O(h)-sized change of the integrator, smaller than the intervals of stationary checks",
    "values": "a theory object off at finite arguments with the same qualitative verdict (same HKS constant)",
    "registry": "the claim machinery: a certification that gives up, a counterexample never confirmed",
    "landscape": "a landscape, its critical points or its network read wrongly (a potential at the wrong tau or "
                 "radius, an unrefined H*, a trap's prefactor)",
}

CB = "contrastive_bounds"
ALIGN = f"{CB}.theory._alignment"
ALIGN_VALUES = f"{CB}.theory._alignment_values"
NET = f"{CB}.numerics.landscapes.network"
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
      witnesses: the checks among ``checks`` the fault must turn red (default: all of ``checks``).
    """

    id: str
    kind: str
    description: str
    substitutions: tuple[Substitution, ...]
    checks: tuple[str, ...]
    witnesses: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind={self.kind!r} must be one of {sorted(KINDS)}")
        if self.witnesses is None:
            object.__setattr__(self, "witnesses", tuple(self.checks))
        extra = [c for c in self.witnesses if c not in self.checks]
        if extra:
            raise ValueError(f"fault {self.id!r}: witnesses {extra} are not among its checks {list(self.checks)}")


FAULTS: tuple[Fault, ...] = (
    # --------------------------------------------------------------------------- weaker bounds
    Fault("loss_gap.exponent", "weaker-bound", "loss-gap bound (numpy) with e^{3/tau} for e^{2/tau}",
          (Substitution(f"{ALIGN_VALUES}:loss_gap_value", lambda f: (lambda tau, pi_max: f(tau * 2 / 3, pi_max))),),
          ("B2.loss_gap", "B4.reference_values")),
    Fault("loss_gap.bound_object", "weaker-bound", "alignment.loss_gap Bound evaluated with e^{3/tau} (sympy form)",
          (Substitution(f"{ALIGN}:LOSS_GAP.evaluate", mk.kw(tau=lambda t: t * 2 / 3)),),
          ("B2.loss_gap", "B4.reference_values")),
    Fault("theorem1.constant", "weaker-bound", "Theorem 1 twice as large in BOTH implementations (Bound and per-step "
          "numpy): 4 e^{2/tau} for 2 e^{2/tau} in Delta, consistently", (
              Substitution(f"{ALIGN}:FROBENIUS.evaluate", mk.bound_times(2.0)),
              Substitution(f"{ALIGN_VALUES}:theorem1_log10", mk.shift_log10(lambda etas, **kw: math.log10(2.0))),
              Substitution(f"{ALIGN_VALUES}:frobenius_log10", lambda f: (lambda *a, **k: f(*a, **k) + math.log10(2.0)))),
          ("B4.theorem1", "B4.reference_values", "B9.theorem1_real")),
    Fault("theorem1.growth_exponent", "weaker-bound", "Theorem 1's growth exp(S/(tau^2 B)) for exp(S/(2 tau^2 B)) "
          "(per-step numpy)", (Substitution(f"{ALIGN_VALUES}:theorem1_log10", mk.shift_log10(
              lambda etas, tau, batch_size, delta_value: np.concatenate([[0.0], np.cumsum(etas)]) / (2 * tau * tau * batch_size) / LN10)),),
          ("B4.theorem1",)),
    Fault("delta.exponent", "weaker-bound", "Delta with e^{3/tau} for e^{2/tau} (numpy delta_log10)",
          (Substitution(f"{ALIGN_VALUES}:delta_log10", lambda f: (lambda tau, pi_max, epsilon: f(tau, pi_max, epsilon) + 1 / tau / LN10)),),
          ("B4.theorem1", "B4.reference_values")),
    Fault("epsilon.union_bound", "weaker-bound", "eps = sqrt(log(2 T B/delta)/(2B)) (union bound counted twice)",
          (Substitution(f"{ALIGN_VALUES}:epsilon_value", lambda f: (lambda b, t, d: f(b, t, d / 2))),),
          ("B4.batch_event", "B4.reference_values")),
    Fault("link_l2.constant", "weaker-bound", "link L2 solved with 1.5 Delta (looser recursion constant)",
          (Substitution(f"{ALIGN_VALUES}:link_l2_log10", mk.kw(delta_value=lambda d: 1.5 * d)),),
          ("B4.theorem1",)),
    Fault("theorem2.constant", "weaker-bound", "Theorem 2's form with e·G for G (a looser constant)",
          (Substitution(f"{ALIGN}:WEIGHT_DIVERGENCE.evaluate", mk.kw(grad_norm=lambda g: g * math.e)),),
          ("B6.weight_divergence",)),
    Fault("cka_lower.looser", "weaker-bound", "CKA corollary (1 - 2 rho)/(1 + rho) for (1 - rho)/(1 + rho)",
          (Substitution(f"{ALIGN_VALUES}:cka_lower", lambda f: (lambda rho: (1 - 2 * np.asarray(rho, np.float64)) / (1 + np.asarray(rho, np.float64)))),),
          ("B5.corollaries_any_pair", "B5.cka_rsa_along_descent")),
    Fault("rsa_lower_sharp.looser", "weaker-bound", "sharp RSA corollary 1 - r for sqrt(1 - r^2)",
          (Substitution(f"{ALIGN_VALUES}:rsa_lower_sharp", lambda f: (lambda r: np.where(np.asarray(r) < 1, 1 - np.asarray(r, np.float64), -1.0))),),
          ("B5.corollaries_any_pair",)),
    # --------------------------------------------------------------------------- agreement limits
    Fault("kramers.prefactor_pi", "agreement-limit", "Eyring-Kramers rate with |lambda|/pi for |lambda|/(2 pi): "
          "exact/Kramers tends to 2, monotonically", (
              Substitution(f"{CB}.theory._kramers:eyring_kramers_log_time", lambda f: (lambda *a, **k: f(*a, **k) - math.log(2.0))),),
          ("A5.kramers", "A4.trapping", "A8.1_inverted_condition")),
    Fault("kramers.prefactor_10pct", "agreement-limit", "Eyring-Kramers time 10 % too long (prefactor 1.1): "
          "exact/Kramers tends to 1/1.1", (
              Substitution(f"{CB}.theory._kramers:eyring_kramers_log_time", lambda f: (lambda *a, **k: f(*a, **k) + math.log(1.1))),),
          ("A5.kramers", "A4.trapping")),
    Fault("trap.prefactor", "agreement-limit", "trap Kramers prefactors sqrt(|V''(z)| V''(x))/pi for /(2 pi) (the rates "
          "of the band's prediction)", (Substitution(f"{CB}.numerics.langevin._experiments:circle_trap", mk.trap_prefactor),),
          ("A4.trapping", "A8.1_inverted_condition", "A8.3_barrier_table")),
    Fault("mfpt.quadrature", "agreement-limit", "exact MFPT 5 % too large (the model factor's 'exact' side)",
          (Substitution(f"{CB}.theory._kramers:exact_mfpt_interval", mk.mfpt_scaled),),
          ("A5.kramers", "A4.trapping")),
    # --------------------------------------------------------------------------- reported metrics
    Fault("cka.no_centring", "reported-metric", "CKA of cosine Grams without the centring H Sigma H",
          (Substitution(f"{CB}.numerics.alignment._cka:cosine_gram_cka", mk.uncentred_cka),),
          ("B5.cka_rsa_along_descent", "B8.replay_training")),
    Fault("rsa.spearman", "reported-metric", "RSA with Spearman's rank correlation for Pearson's",
          (Substitution(f"{CB}.numerics.alignment._rsa:rsa_from_similarity",
                        lambda f: (lambda a, b, method="pearson": f(a, b, method="spearman"))),),
          ("B5.cka_rsa_along_descent",)),
    Fault("linear_cka.debiased", "reported-metric", "linear CKA of h always with the debiased HSIC (the flag ignored)",
          (Substitution(f"{CB}.numerics.alignment._cka:linear_cka", mk.kw(debiased=lambda d: True)),),
          ("B8.replay_training", "B9.proxy_fidelity", "B10.batch_scaling")),
    Fault("loss.dcl_nscl_swapped", "reported-metric", "population_loss_gap returns (L_NSCL, L_DCL) for (L_DCL, L_NSCL)",
          (Substitution(f"{CB}.numerics.alignment._training:population_loss_gap", mk.losses_swapped),),
          ("B2.loss_gap", "B8.digits")),
    Fault("gradient.tau_twice", "reported-metric", "the closed-form similarity gradient G with 1/tau applied twice",
          (Substitution(f"{CB}.numerics.alignment._descent_gradients:block_gradients", mk.block_gradients_over_tau),),
          ("B3.gradient",)),
    Fault("loss.nscl_coupled", "reported-metric", "NSCL denominator also holds the anchor's positive (coupled form "
          "where the decoupled one is stated)", (Substitution(f"{CB}.numerics.alignment._losses:view_masks",
                                                               lambda f: (lambda labels, *, kind, coupled=False, anchors="first":
                                                                          f(labels, kind=kind, coupled=coupled or kind == "nscl",
                                                                            anchors=anchors))),),
          ("B8.replay_training",)),
    # --------------------------------------------------------------------------- driver wiring
    Fault("descent.step_size", "driver-wiring", "similarity-descent driver passes step_size/2 to descent_step",
          (Substitution(f"{CB}.numerics.alignment._descent_run:descent_step", mk.kw(step_size=lambda e: e * 0.5), scope="here"),),
          ("B3.replay_descent", "B4.theorem1"), ("B3.replay_descent",)),
    Fault("descent.tau", "driver-wiring", "similarity-descent driver passes 1.25 tau to descent_step",
          (Substitution(f"{CB}.numerics.alignment._descent_run:descent_step", mk.kw(tau=lambda t: t * 1.25), scope="here"),),
          ("B3.replay_descent",)),
    Fault("sgd.learning_rate", "driver-wiring", "the SGD step applies 1.1 times the learning rate it is given",
          (Substitution(f"{CB}.numerics.alignment._sgd:sgd_pair_step", mk.sgd_learning_rate(1.1)),),
          ("B9.proxy_known_case",)),
    Fault("sampler.duplicates", "driver-wiring", "the batch sampler (with replacement) draws B/2 indices and returns "
          "each twice: batches not i.i.d.", (Substitution(f"{CB}.numerics.alignment._descent:sample_batch",
                                                         mk.batch_duplicates),),
          ("B4.batch_event",)),
    Fault("training.tau", "driver-wiring", "training epoch passes 1.25 tau to batch_loss",
          (Substitution(f"{CB}.numerics.alignment._training:batch_loss", mk.kw(tau=lambda t: t * 1.25), scope="here"),),
          ("B8.replay_training",)),
    Fault("langevin.step_size", "driver-wiring", "run_schedule builds its kernel with 1.1 h (time runs 10 % fast)",
          (Substitution(f"{CB}.numerics.langevin._experiments:langevin_kernel", mk.kw(step_size=lambda h: 1.1 * h), scope="here"),),
          ("A1.replay_langevin", "A4.trapping"), ("A1.replay_langevin",)),
    Fault("langevin.temperature", "driver-wiring", "run_schedule builds its kernel with 0.9 T",
          (Substitution(f"{CB}.numerics.langevin._experiments:langevin_kernel", mk.kernel_temperature(mk.misscaled), scope="here"),),
          ("A1.replay_langevin", "A4.trapping")),
    Fault("langevin.time_index", "driver-wiring", "the schedule evaluated at the step index k instead of t = k h",
          (Substitution(f"{CB}.numerics.langevin._experiments:langevin_kernel", mk.kernel_temperature(mk.time_index), scope="here"),),
          ("A1.replay_langevin", "A4.trapping")),
    Fault("langevin.path_step_size", "driver-wiring", "the compiled chunk binds its step path (circle, chains-last or "
          "vmap step) with 1.05 h while its clock advances by h", (Substitution(
              f"{CB}.numerics.langevin._chunk:step_path", mk.path_step_size(1.05), scope="here"),),
          ("A1.replay_langevin",)),
    # --------------------------------------------------------------------------- simulator O(h)
    Fault("integrator.noise_variance", "simulator-O(h)", "noise sqrt(2 T h (1 + h)) for sqrt(2 T h): an effective "
          "temperature T(1 + h)", (Substitution(f"{CB}.numerics.langevin._increments:noise_scale",
                                                lambda f: (lambda temperature, step_size: f(temperature, step_size) *
                                                           (1.0 + step_size) ** 0.5)),),
          ("A1.one_step", "A1.vmf"), ("A1.one_step",)),
    Fault("integrator.drift", "simulator-O(h)", "S¹ drift 0.95 h V' for h V' (an O(h)-sized error: 2.5 h at h = 0.02)",
          (Substitution(f"{CB}.numerics.landscapes._fourier:FourierSeries.value_and_derivative_z", mk.drift_scaled),),
          ("A1.one_step", "A5.kramers", "A4.trapping"), ("A1.one_step",)),
    Fault("integrator.noise_c11", "simulator-O(h)", "noise sqrt(2T)·h for sqrt(2 T h) (docs/reference-values.md C11; an O(1) fault "
          "for comparison)", (Substitution(f"{CB}.numerics.langevin._increments:noise_scale",
                                           lambda f: (lambda temperature, step_size: (2.0 * temperature) ** 0.5 * step_size)),),
          ("A1.one_step", "A1.vmf", "A4.trapping", "A8.5_anisotropic")),
    # --------------------------------------------------------------------------- values at finite t
    Fault("schedule.log_shift", "values", "logarithmic schedules evaluated at t + 1 (log(t + t0 + 1)): same HKS "
          "constant, same verdict", (Substitution(f"{CB}.theory._schedule_forms:form_beta", mk.schedule_shift),),
          ("A2.schedule_values", "A4.trapping", "A4.convergence", "A6.finite_time")),
    Fault("schedule.program_log_shift", "values", "the simulator's compiled schedule reads log(t + t0 + 1) while the "
          "theory's Schedule is right", (Substitution(f"{CB}.numerics.langevin._temperature:TemperatureProgram.__call__",
                                                      mk.program_shift),),
          ("A2.schedule_values", "A4.trapping")),
    Fault("schedule.exponential_rate", "values", "exponential cooling gamma^(t/(2 period)) for gamma^(t/period): "
          "still fast (HKS constant 0)", (Substitution(f"{CB}.theory._schedules:Schedule.temperature", mk.exponential_half_rate),),
          ("A2.schedule_values", "A4.fast_schedules")),
    Fault("schedule.author_constant", "values", "the author's convention reports HKS constant c for 1/c",
          (Substitution(f"{CB}.theory._schedules:Schedule.hks_constant",
                        lambda f: (lambda self: self.params["c"] if self.form == "author" else f(self))),),
          ("A2.schedule_values",)),
    Fault("seed_exponent.formula", "values", "the seed note's exponent H*/eps for H*/eps - 1 (the object the "
          "refutation is about)", (Substitution(f"{CB}.theory._annealing:seed_finite_time_exponent",
                                                lambda f: (lambda critical_height, epsilon: f(critical_height, epsilon) + 1.0)),),
          ("A8.2_finite_time_exponent",)),
    # --------------------------------------------------------------------------- registry
    Fault("claims.certification_gives_up", "registry", "the arb bisection of a claim's certification exhausts its "
          "budget at once: every certified claim comes back 'supported'",
          (Substitution(f"{CB}.theory._claim:_arb_bisect", mk.certification_gives_up),),
          ("A.claims", "B7.claims")),
    Fault("claims.counterexample_unconfirmed", "registry", "the 40-digit re-evaluation of a sampled counterexample "
          "always returns +1: no sampled refutation is ever confirmed",
          (Substitution(f"{CB}.theory._claim:_mp_value", mk.mp_confirms_everything),),
          ("B7.claims",)),
    # --------------------------------------------------------------------------- landscapes and networks
    Fault("barrier.unrefined", "landscape", "circle_barrier reports the grid persistence value as H* (the refinement "
          "dropped, its error bound kept)", (Substitution(f"{CB}.numerics.landscapes._barriers:circle_barrier",
                                                          mk.unrefined_barrier),),
          ("A3.critical_height",)),
    Fault("network_trap.prefactor", "landscape", "network trap's Eyring-Kramers prefactors |lambda|/pi for |lambda|/(2 pi)",
          (Substitution(f"{CB}.numerics.landscapes.network_kramers:NetworkTrap.log_prefactors",
                        mk.network_prefactor_doubled),),
          ("A4.infonce_landscape",)),
    Fault("u0.positive_as_negative", "landscape", "the author's U0 takes its hardest negative over every k != i, the "
          "positive included", (Substitution(f"{CB}.numerics.landscapes._infonce:hardest_negative_potential",
                                             mk.u0_positive_as_negative),),
          ("A8.4_author_toy",)),
    Fault("infonce.tau", "landscape", "the network's InfoNCE potential built at 1.05 tau (its spec says tau)",
          (Substitution(f"{CB}.numerics.landscapes.network.spec:infonce_potential", mk.infonce_tau_scaled),),
          ("A8.6_dimension", "A8.7_negatives")),
    Fault("infonce.radius", "landscape", "the radius-R potential with similarities R cos for R^2 cos",
          (Substitution(f"{CB}.numerics.landscapes.network.spec:_scaled", mk.radius_linear),),
          ("A8.8_curvature",)),
    Fault("network.closure_one_sign", "landscape", "eigenvector following from each minimum along +v only (the signs (1, -1) "
          "reduced to (1,)) while the closure still claims both signs",
          (Substitution(f"{NET}.following:connect_candidates", mk.follow_one_sign, scope="here"),),
          ("A9.s2_trap_network",)),
    Fault("network.index_two_saddles", "landscape", "saddles of index 2 verified as transition states (index == 1 written as "
          "index in (1, 2))", (Substitution(f"{NET}.verify:_classify_one", mk.index_two_accepted),),
          ("A9.s2_trap_network",)),
    Fault("network.saddle_copies_inverted", "landscape", "network Eyring-Kramers prefactor with the saddle-copy count "
          "inverted: n_s = mult(x)/(mult(s) e_s) for mult(s) e_s/mult(x)",
          (Substitution(f"{CB}.numerics.landscapes.network_kramers:network_trap", mk.saddle_copies_inverted),),
          ("A9.s2_trap_network",)),
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


def witnesses_of(check_id: str, faults: Iterable[Fault] = FAULTS) -> list[str]:
    """Ids of the faults that declare ``check_id`` a witness (the faults that must turn it red)."""
    return [f.id for f in faults if check_id in (f.witnesses or ())]


def unwitnessed(check_ids: Iterable[str], faults: Iterable[Fault] = FAULTS) -> list[str]:
    """The check ids no fault declares as a witness: checks nothing in the self-test can turn red."""
    faults = list(faults)
    return [c for c in check_ids if not witnesses_of(c, faults)]
