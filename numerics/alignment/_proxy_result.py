"""The outcome of a proxy-vs-SGD run (docs/theorems.md B9): fidelity, where tracking stops, Theorem 1 on real training.

Fidelity of the proxy for loss X at a record t: ``||Sigma^SGD_t - Sigma^proxy_t||_F / ||Sigma^SGD_t -
Sigma_0||_F`` (the proxy's error relative to how far SGD moved; 0 is perfect tracking, 1 is no better
than not moving at all). The proxy *tracks within tol* up to the last record before the first one
above ``tol``.

Theorem 1 on real training: the bound and its proof links (L2 recursion, L3 Groenwall product, the
exp form) are evaluated with the run's eta_eff for every step (S_t = t eta_eff), in log space, and set
beside the real d_T = ||Sigma^CL_T - Sigma^NSCL_T||_F of the SGD runs; the slack budget is the log10
factor each link adds, starting from the real d_T. Link L1 (||G^CL - G^NSCL||_F <= Delta/(tau sqrt B) +
d/(2 tau^2 B)) is also evaluated on the *real* states at every record (the batch of the record's step).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from contrastive_bounds import theory as alignment
from contrastive_bounds.numerics.alignment._eta_eff import EtaEstimate
from contrastive_bounds.numerics.alignment._cka import cka_rho, cosine_gram_cka, linear_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r

__all__ = ["ProxyResult", "RECORD_FIELDS", "REAL_LINKS"]

#: recorded per record (arrays of shape (R,)): see :mod:`._proxy`.
RECORD_FIELDS = ("step", "err_cl", "err_nscl", "move_cl", "move_nscl", "proxy_move_cl", "proxy_move_nscl", "d_real",
                 "d_proxy", "cka_real", "cka_proxy", "mismatch_real", "max_same_fraction", "max_abs_sigma",
                 "sigma_defect", "loss_cl", "loss_nscl")
#: links of Theorem 1's proof evaluated with S_t = t eta_eff, each at least the previous.
REAL_LINKS = ("L2", "L3", "theorem1")


def _unit(z: np.ndarray) -> np.ndarray:
    return z / np.linalg.norm(z, axis=1, keepdims=True)


@dataclass
class ProxyResult:
    """Records and final states of :func:`._proxy.run_proxy_comparison`.

    Attributes: ``config`` (ProxyConfig), ``eta`` (:class:`~._eta_eff.EtaEstimate`), ``records`` (dict of
    float64 arrays (R,), :data:`RECORD_FIELDS`; ``step`` is the step count after which each record was
    taken), ``sigma0`` (m, m), ``sigma_cl``/``sigma_nscl`` (SGD, final), ``proxy_cl``/``proxy_nscl``
    (proxy, final), ``z_cl``/``z_nscl`` (final embeddings of the m reference rows), ``labels`` (n,),
    ``steps_done``.
    """

    config: Any
    eta: EtaEstimate
    records: dict[str, np.ndarray]
    sigma0: np.ndarray
    sigma_cl: np.ndarray
    sigma_nscl: np.ndarray
    proxy_cl: np.ndarray
    proxy_nscl: np.ndarray
    z_cl: np.ndarray
    z_nscl: np.ndarray
    labels: np.ndarray
    steps_done: int

    @property
    def complete(self) -> bool:
        return self.steps_done == self.config.sgd.steps

    @property
    def m(self) -> int:
        return int(self.sigma0.shape[0])

    @property
    def pi_max(self) -> float:
        counts = np.bincount(self.labels)
        return float(counts.max() / counts.sum())

    @property
    def epsilon(self) -> float:
        return alignment.epsilon_value(self.config.sgd.batch_size, max(self.steps_done, 1), self.config.delta)

    @property
    def delta_log10(self) -> float:
        return alignment.delta_log10(self.config.sgd.tau, self.pi_max, self.epsilon)

    def fidelity(self) -> dict[str, np.ndarray]:
        """Relative error of the proxy per record: ``{"cl": (R,), "nscl": (R,)}`` (inf where SGD has not moved)."""
        out = {}
        for k in ("cl", "nscl"):
            err, move = self.records[f"err_{k}"], self.records[f"move_{k}"]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[k] = np.where(move > 0, err / np.where(move > 0, move, 1.0), np.inf)
        return out

    def tracking(self, tolerance: float | None = None) -> dict[str, dict[str, Any]]:
        """Where the proxy tracks SGD within ``tolerance`` (default: the config's), per loss.

        Returns ``{"cl": {...}, "nscl": {...}}`` with ``within_until`` (last recorded step before the first
        error above tolerance; 0 when the first record is already above), ``first_above`` (that step, or
        None when every record is within), ``first_error`` (error at the first record), ``final_error``
        and ``max_error``.
        """
        tol = self.config.tolerance if tolerance is None else float(tolerance)
        steps = self.records["step"]
        out = {}
        for k, fid in self.fidelity().items():
            above = np.flatnonzero(~(fid <= tol))
            first = int(above[0]) if above.size else None
            out[k] = {"within_until": int(steps[first - 1]) if first else (0 if first == 0 else int(steps[-1])),
                      "first_above": int(steps[first]) if first is not None else None,
                      "first_error": float(fid[0]), "final_error": float(fid[-1]), "max_error": float(np.max(fid))}
        return out

    def verdict(self, tolerance: float | None = None) -> str:
        """One sentence: where the proxy tracks SGD within the tolerance and where it stops, per loss."""
        tol = self.config.tolerance if tolerance is None else float(tolerance)
        parts = []
        for k, t in self.tracking(tol).items():
            if t["first_above"] is None:
                parts.append(f"{k.upper()}: within {tol:.0%} at every record up to step {t['within_until']} "
                             f"(max {t['max_error']:.3g})")
            elif t["within_until"] == 0:
                parts.append(f"{k.upper()}: never within {tol:.0%} (already {t['first_error']:.3g} at the first record, "
                             f"step {int(self.records['step'][0])})")
            else:
                parts.append(f"{k.upper()}: within {tol:.0%} until step {t['within_until']}, above from step "
                             f"{t['first_above']} (final {t['final_error']:.3g})")
        return "; ".join(parts)

    def link_bounds_log10(self) -> dict[str, np.ndarray]:
        """log10 of each link's bound on d_t at the recorded steps, with eta_t = eta_eff (float64 (R,))."""
        cfg = self.config.sgd
        steps = self.records["step"].astype(np.int64)
        etas = np.full(int(steps[-1]), self.eta.eta_eff)
        dl10 = self.delta_log10
        vac = math.isinf(dl10)
        kw = dict(tau=cfg.tau, batch_size=cfg.batch_size, delta_value=math.inf if vac else 1.0)
        shift = 0.0 if vac else dl10
        return {"L2": alignment.link_l2_log10(etas, **kw)[steps] + shift,
                "L3": alignment.link_l3_log10(etas, **kw)[steps] + shift,
                "theorem1": alignment.theorem1_log10(etas, **kw)[steps] + shift}

    def theorem1_real(self) -> dict[str, Any]:
        """Theorem 1 with S = T eta_eff beside the real and the proxy's d_T, the slack budget and link L1 on real states.

        Returns a JSON-ready dict: ``d_T_real``, ``d_T_proxy``, ``eta_sum`` (S), ``bounds_log10`` (per link at
        T), ``slack_log10`` (per link: log10 of the link over the previous, starting from the real d_T;
        None when undefined), ``holds`` (real d_t <= each link at every record), ``l1_real_holds``
        (the L1 inequality at every record's real states), ``batch_event`` (every recorded batch's
        same-class fraction <= pi_max + eps), ``status`` (vacuous / uninformative / informative) and
        ``reason``.
        """
        cfg = self.config.sgd
        bounds = self.link_bounds_log10()
        d_real, d_proxy = self.records["d_real"], self.records["d_proxy"]
        with np.errstate(divide="ignore"):
            log_d = np.log10(d_real)
        dl10 = self.delta_log10
        vac = math.isinf(dl10)
        prev = float(log_d[-1]) if d_real[-1] > 0 else -math.inf
        slack: dict[str, float | None] = {}
        for link in REAL_LINKS:
            cur = float(bounds[link][-1])
            slack[link] = cur - prev if math.isfinite(cur) and math.isfinite(prev) else None
            prev = cur
        if vac:
            l1_ok = True
        else:
            ln_c = dl10 * math.log(10) - math.log(cfg.tau) - 0.5 * math.log(cfg.batch_size)
            with np.errstate(divide="ignore"):
                l1 = np.logaddexp(ln_c, np.log(d_real) - math.log(2 * cfg.tau ** 2 * cfg.batch_size)) / math.log(10)
                l1_ok = bool(np.all(np.log10(self.records["mismatch_real"]) <= l1 + 1e-9))
        trivial = alignment.trivial_frobenius(self.m)
        thm = float(bounds["theorem1"][-1])
        if vac:
            status, reason = "vacuous", f"1 - pi_max - epsilon = {1 - self.pi_max - self.epsilon:.4g} <= 0"
        elif thm > math.log10(trivial):
            status, reason = "uninformative", f"bound 10^{thm:{'.4f' if abs(thm) < 1e6 else '.6g'}} exceeds the trivial 2 sqrt(m(m-1)) = {trivial:.4g}"
        else:
            status, reason = "informative", ""
        return {
            "d_T_real": float(d_real[-1]), "d_T_proxy": float(d_proxy[-1]),
            "eta_eff": self.eta.eta_eff, "eta_sum": self.eta.eta_eff * int(self.records["step"][-1]),
            "pi_max": self.pi_max, "epsilon": self.epsilon, "delta_log10": dl10,
            "bounds_log10": {k: float(v[-1]) for k, v in bounds.items()},
            "slack_log10": slack,
            "holds": {k: bool(np.all(log_d <= v + 1e-9)) for k, v in bounds.items()},
            "proxy_holds": {k: bool(np.all(np.log10(np.maximum(d_proxy, 1e-300)) <= v + 1e-9)) for k, v in bounds.items()},
            "l1_real_holds": l1_ok,
            "batch_event": bool(np.all(self.records["max_same_fraction"] <= self.pi_max + self.epsilon)),
            "trivial_bound": trivial, "status": status, "reason": reason,
        }

    def final_metrics(self) -> dict[str, Any]:
        """CL-NSCL CKA/RSA at T for the real runs and the proxy, each metric two ways where a second way exists.

        Real CKA: the Gram form on Sigma (``cosine_gram_cka``) and the feature form on the unit embeddings
        (``linear_cka(..., method="features")``, O(m d^2)); proxy CKA: the Gram form in numpy and the
        jitted value recorded during the run. RSA (Pearson) with rho, r and the corollary lower bounds.
        """
        u_cl, u_nscl = _unit(self.z_cl), _unit(self.z_nscl)
        out: dict[str, Any] = {
            "cka_real_gram": cosine_gram_cka(self.sigma_cl, self.sigma_nscl),
            "cka_real_features": linear_cka(u_cl, u_nscl, debiased=False, method="features"),
            "cka_proxy_gram": cosine_gram_cka(self.proxy_cl, self.proxy_nscl),
            "cka_proxy_recorded": float(self.records["cka_proxy"][-1]),
            "cka_real_recorded": float(self.records["cka_real"][-1]),
            "rsa_real": rsa_from_similarity(self.sigma_cl, self.sigma_nscl),
            "rsa_proxy": rsa_from_similarity(self.proxy_cl, self.proxy_nscl),
        }
        for which, a, b in (("real", self.sigma_cl, self.sigma_nscl), ("proxy", self.proxy_cl, self.proxy_nscl)):
            rho, r = cka_rho(a, b), rsa_r(a, b)
            out[f"rho_{which}"], out[f"r_{which}"] = rho, r
            out[f"cka_lower_{which}"] = alignment.cka_lower(rho) if rho < 1 else None
            out[f"rsa_lower_{which}"] = alignment.rsa_lower(r) if r < 1 else None
        out["cka_two_way_gap"] = abs(out["cka_real_gram"] - out["cka_real_features"])
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-ready: config, eta_eff, tracking per loss, the verdict, Theorem 1 on real training, final metrics."""
        from dataclasses import asdict

        return {"config": asdict(self.config), "steps_done": self.steps_done, "m": self.m,
                "float_dtype": self.config.sgd.dtype, "eta": self.eta.to_dict(),
                "tracking": self.tracking(), "verdict": self.verdict(),
                "theorem1_real": self.theorem1_real(), "final": self.final_metrics(),
                "curves": {k: v.tolist() for k, v in self.records.items()},
                "fidelity": {k: v.tolist() for k, v in self.fidelity().items()}}
