"""The outcome of a coupled similarity-descent run and the bounds of the proof of Theorem 1 on it
(docs/theorems.md B3-B5).

:class:`DescentResult` holds the trajectory of d_t = ||Sigma^CL_t - Sigma^NSCL_t||_F, the per-step
records (:class:`~._descent.StepRecord`) and, from :func:`link_bounds_log10`, the bound of each link
of the proof (:data:`LINKS`):

* ``triangle``: d_t <= sum_{s<t} eta_s ||G^CL_s - G^NSCL_s||_F (clipping is 1-Lipschitz), measured mismatch;
* ``L1``: the same with each mismatch replaced by its L1 bound Delta/(tau sqrt B) + d_s/(2 tau^2 B);
* ``L2``: the recursion b_{t+1} = (1 + eta_t/(2 tau^2 B)) b_t + eta_t Delta/(tau sqrt B), b_0 = 0;
* ``L3``: the discrete Groenwall product; ``theorem1``: the exp form of Theorem 1,

each one at least the previous, so log10(bound_k / bound_{k-1}) at T is the slack link k adds
(the "slack budget", docs/theorems.md B4). Bounds come from :mod:`contrastive_bounds.theory._alignment`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contrastive_bounds import theory as alignment
from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig
from contrastive_bounds.numerics.alignment._cka import cka_rho, cosine_gram_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r

__all__ = ["DescentResult", "LINKS", "link_bounds_log10"]

LINKS = ("triangle", "L1", "L2", "L3", "theorem1")


def _log_two_tau2_b(tau: float, batch_size: int) -> float:
    """log(2 tau^2 B), also where tau^2 underflows float64 (tau below ~1e-154)."""
    p = 2 * tau * tau * batch_size
    return math.log(p) if p > 0 else math.log(2.0) + 2.0 * math.log(tau) + math.log(batch_size)


@dataclass
class DescentResult:
    """Outcome of :func:`._descent_run.run_similarity_descent`.

    Attributes:
      config: the :class:`DescentConfig`.
      records: dict of float64/int arrays of shape (T,) (fields of StepRecord) for steps 0..T-1.
      distance: float64 (T+1,) d_0 = 0, d_1, ..., d_T.
      sigma_cl, sigma_nscl: final (m, m) arrays (numpy, the run's dtype).
      pi_max, epsilon, delta_value: the constants of Theorem 1; ``delta_value`` is inf when vacuous
        and also when Delta is finite but beyond float64 (tau < ~0.0028): use ``delta_log10``.
      delta_log10: log10 Delta, finite unless vacuous (1 - pi_max - epsilon <= 0); computed from
        ``delta_value`` when not given.
      bounds_log10: dict link -> float64 (T+1,) log10 of each link's bound on d_t (LINKS order).
      steps_done: T when complete (a partial run stopped by ``max_chunks`` has fewer).
      step_sizes: float64 (T,) the eta_t of the run (``config.step_sizes()``; all T steps, also for a
        partial run); ``None`` is filled from the config.
      trajectory: with ``trajectory_every``: ``{"steps": int64 (K+1,), "sigma_cl", "sigma_nscl":
        (K+1, m, m)}`` (the run's dtype), Sigma at the recorded steps (0 first); else None.
    """

    config: DescentConfig
    records: dict[str, np.ndarray]
    distance: np.ndarray
    sigma_cl: np.ndarray
    sigma_nscl: np.ndarray
    labels: np.ndarray
    pi_max: float
    epsilon: float
    delta_value: float
    delta_log10: float | None = None
    bounds_log10: dict[str, np.ndarray] = field(default_factory=dict)
    steps_done: int = 0
    step_sizes: np.ndarray | None = None
    trajectory: dict[str, np.ndarray] | None = None

    def __post_init__(self) -> None:
        if self.step_sizes is None:
            self.step_sizes = self.config.step_sizes()
        if self.delta_log10 is None:
            self.delta_log10 = math.log10(self.delta_value) if math.isfinite(self.delta_value) else math.inf

    @property
    def vacuous(self) -> bool:
        """Whether Theorem 1 is vacuous here (1 - pi_max - epsilon <= 0, Delta = inf)."""
        return math.isinf(self.delta_log10)

    @property
    def complete(self) -> bool:
        return self.steps_done == self.config.steps

    @property
    def eta_sum(self) -> float:
        """S = sum_{t < steps_done} eta_t (``math.fsum``: exactly rounded), Theorem 1's S."""
        return math.fsum(self.step_sizes[: self.steps_done].tolist())

    @property
    def m(self) -> int:
        return int(self.sigma_cl.shape[0])

    def batch_event(self) -> bool:
        """Whether every anchor's same-class fraction stayed <= pi_max + epsilon (the event of B4)."""
        return bool(np.all(self.records["max_same_fraction"] <= self.pi_max + self.epsilon))

    def l1_bound(self) -> np.ndarray:
        """float64 (T,): the L1 bound Delta/(tau sqrt B) + d_t/(2 tau^2 B) at each step (inf where
        Delta is inf or beyond float64; :meth:`l1_bound_log10` is exact there)."""
        return np.asarray(alignment.link_l1_bound(self.distance[:-1], tau=self.config.tau,
                                                   batch_size=self.config.batch_size, delta_value=self.delta_value))

    def l1_bound_log10(self) -> np.ndarray:
        """float64 (T,): log10 of the L1 bound at each step, in log space (finite unless vacuous)."""
        c = self.config
        if self.vacuous:
            return np.full(self.distance.size - 1, np.inf)
        ln_c = self.delta_log10 * math.log(10) - math.log(c.tau) - 0.5 * math.log(c.batch_size)
        with np.errstate(divide="ignore"):
            ln_ad = np.log(self.distance[:-1]) - _log_two_tau2_b(c.tau, c.batch_size)
        return np.logaddexp(ln_c, ln_ad) / math.log(10)

    def link_holds(self, rtol: float = 1e-9) -> dict[str, bool]:
        """Whether measured quantities stay below each link's bound at every step (relative tolerance rtol).

        ``L1_step``: mismatch_t <= L1 bound(d_t) for every t; the other keys: d_t <= bound_t for all t.
        """
        with np.errstate(divide="ignore"):
            logd = np.log10(self.distance)
            log_mis = np.log10(self.records["mismatch"])
        out = {"L1_step": bool(np.all(log_mis <= self.l1_bound_log10() + math.log10(1 + rtol)))}
        for link in LINKS:
            out[link] = bool(np.all(logd <= self.bounds_log10[link] + math.log10(1 + rtol)))
        return out

    def slack_budget(self) -> dict[str, float | None]:
        """log10 factor each link adds at T: log10(bound_link / previous), starting from measured d_T.

        A value is ``inf`` when the link's bound is infinite (vacuous) or positive over a zero
        previous value, and ``None`` when both are zero (0/0: step_size = 0 moves nothing).
        """
        prev = math.log10(self.distance[-1]) if self.distance[-1] > 0 else -math.inf
        out: dict[str, float | None] = {}
        for link in LINKS:
            cur = float(self.bounds_log10[link][-1])
            if math.isfinite(cur) and math.isfinite(prev):
                out[link] = cur - prev
            elif cur == -math.inf and prev == -math.inf:
                out[link] = None
            else:
                out[link] = math.inf
            prev = cur
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-ready summary: final d_T, each link's bound and slack, vacuity, CKA/RSA measured and bounds.

        ``status`` says how to read the numbers: ``"vacuous"`` (Delta = inf, bounds inf),
        ``"no_motion"`` (S = sum eta_t = 0: d_T = 0 and every bound is exactly 0, so their log10
        values are -inf and the slack is undefined, None), ``"uninformative"`` (Theorem 1 above the trivial
        bound) or ``"informative"``; ``reason`` explains the first three. ``bounds`` holds the values
        (inf where beyond float64; ``bounds_log10`` is always exact), ``delta_log10`` is finite
        unless vacuous, ``d_T_log10`` is None when d_T = 0.
        """
        c = self.config
        trivial = alignment.trivial_frobenius(self.m)
        thm1 = float(self.bounds_log10["theorem1"][-1])
        d_t = float(self.distance[-1])
        vacuous = self.vacuous
        if vacuous:
            status, reason = "vacuous", f"1 - pi_max - epsilon = {1 - self.pi_max - self.epsilon:.4g} <= 0"
        elif thm1 == -math.inf:
            why = f"step_size = {c.step_size:g}" if c.step_size == 0 else "S = sum of the step sizes eta_t = 0"
            status, reason = "no_motion", (f"{why}: nothing moves, so d_T = 0 and every bound is exactly 0; their "
                                           "log10 and the slack (0/0) are undefined")
        elif thm1 > math.log10(trivial):
            status, reason = "uninformative", f"bound 10^{thm1:{'.4f' if abs(thm1) < 1e6 else '.6g'}} exceeds the trivial 2 sqrt(m(m-1)) = {trivial:.4g}"
        else:
            status, reason = "informative", ""
        k_norm = float(np.linalg.norm(_centred(self.sigma_cl)))
        rho = cka_rho(self.sigma_cl, self.sigma_nscl)
        r = rsa_r(self.sigma_cl, self.sigma_nscl)
        m_pairs = self.m * (self.m - 1) / 2
        sd_a = float(np.std(self.sigma_cl[np.triu_indices(self.m, 1)]))
        symmetric = bool(np.array_equal(self.sigma_cl, self.sigma_cl.T) and np.array_equal(self.sigma_nscl, self.sigma_nscl.T))
        # a-priori bounds on rho and r from Theorem 1 (||H X H|| <= ||X||; ||b - a|| <= ||dSigma||_F (/sqrt 2 if symmetric))
        thm1_val = 10.0 ** thm1 if thm1 < 300 else math.inf
        rho_prior = thm1_val / k_norm
        r_prior = thm1_val / (math.sqrt(2) if symmetric else 1.0) / (math.sqrt(m_pairs) * sd_a)
        budget = self.slack_budget()
        return {
            "m": self.m, "num_samples": self.m // 2, "batch_size": c.batch_size, "steps": c.steps, "tau": c.tau,
            "step_size": c.step_size, "eta_sum": self.eta_sum,
            "step_sizes": (c.schedule.to_dict() if c.schedule is not None else {"form": "constant", "params": {},
                                                                               "warmup_steps": 0, "warmup_start": 0.0}),
            "eta_min": float(np.min(self.step_sizes)), "eta_max": float(np.max(self.step_sizes)),
            "seed": c.seed, "delta": c.delta, "coupled": c.coupled,
            "anchors": c.anchors, "symmetrize": c.symmetrize, "replace": c.replace, "stratified": c.stratified,
            "pi_max": self.pi_max, "epsilon": self.epsilon, "delta_value": self.delta_value,
            "delta_log10": self.delta_log10,
            "status": status, "reason": reason, "trivial_bound": trivial,
            "d_T": d_t, "d_T_log10": math.log10(d_t) if d_t > 0 else None,
            "bounds": {k: _pow10(float(v[-1])) for k, v in self.bounds_log10.items()},
            "bounds_log10": {k: float(v[-1]) for k, v in self.bounds_log10.items()},
            "slack_log10": budget,
            "holds": self.link_holds(),
            "batch_event": self.batch_event(),
            "max_same_fraction": float(np.max(self.records["max_same_fraction"])),
            "max_abs_preclip": float(np.max(self.records["max_abs_preclip"])),
            "nscl_empty": int(np.sum(self.records["nscl_empty"])),
            "cka": cosine_gram_cka(self.sigma_cl, self.sigma_nscl), "rho": rho,
            "cka_lower": alignment.cka_lower(rho),
            "cka_lower_prior": alignment.cka_lower(rho_prior) if math.isfinite(rho_prior) else -1.0,
            "rsa": rsa_from_similarity(self.sigma_cl, self.sigma_nscl), "r": r,
            "rsa_lower": alignment.rsa_lower(r),
            "rsa_lower_prior": alignment.rsa_lower(r_prior) if math.isfinite(r_prior) else -1.0,
        }


def _pow10(x: float) -> float:
    return 10.0 ** x if x < 300 else math.inf


def _centred(a: np.ndarray) -> np.ndarray:
    return a - a.mean(0, keepdims=True) - a.mean(1, keepdims=True) + a.mean()


def link_bounds_log10(res: DescentResult, steps: int) -> dict[str, np.ndarray]:
    """log10 of each link's bound, float64 (T+1,), computed in log space for any Delta.

    Every link bound is linear in Delta, so the theory functions are evaluated at ``delta_value=1``
    and shifted by log10 Delta: no overflow at small tau (Delta > 1.8e308 at tau < ~0.0028).
    A vacuous run (Delta = inf) passes ``delta_value=inf`` and gets the theory's inf rows.
    """
    c = res.config
    etas = np.asarray(res.step_sizes[:steps], dtype=np.float64)  # the run's eta_t (L2, L3 per step; S_t = cumsum)
    vacuous = res.vacuous
    kw = dict(tau=c.tau, batch_size=c.batch_size, delta_value=math.inf if vacuous else 1.0)
    shift = 0.0 if vacuous else res.delta_log10
    with np.errstate(divide="ignore"):
        tri = np.log10(np.concatenate([[0.0], np.cumsum(etas * res.records["mismatch"])]))
        if vacuous:
            l1 = np.concatenate([[-np.inf], np.full(steps, np.inf)])
        else:
            # sum_{s<t} eta_s (c + a d_s) = c S_t + a sum_{s<t} eta_s d_s, added in log space
            ln_c = res.delta_log10 * math.log(10) - math.log(c.tau) - 0.5 * math.log(c.batch_size)
            ln_a = -_log_two_tau2_b(c.tau, c.batch_size)
            ln_cs = ln_c + np.log(np.concatenate([[0.0], np.cumsum(etas)]))
            ln_ad = ln_a + np.log(np.concatenate([[0.0], np.cumsum(etas * res.distance[:-1])]))
            l1 = np.logaddexp(ln_cs, ln_ad) / math.log(10)
    return {
        "triangle": tri,
        "L1": l1,
        "L2": alignment.link_l2_log10(etas, **kw) + shift,
        "L3": alignment.link_l3_log10(etas, **kw) + shift,
        "theorem1": alignment.theorem1_log10(etas, **kw) + shift,
    }
