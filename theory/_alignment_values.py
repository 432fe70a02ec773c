"""Paper B's bounds as plain numpy functions: the second implementation beside the sympy bounds.

Source: Luthra, Mishra, Galanti, arXiv:2510.08852 (docs/theorems.md B2, B4, B5, B6); the loss gap from
Luthra et al., arXiv:2506.04411, Thm 1. The cited :class:`~contrastive_bounds.theory.Bound` objects of
the same statements are in :mod:`._alignment` (evaluated with mpmath at any precision); these
functions are evaluated on every step of a simulation, in float64 or in log10 space where the value
overflows. The tests check that the two implementations agree.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._domains import check_int, check_probability, check_real

__all__ = ["epsilon_value", "delta_value", "delta_log10", "link_l1_bound", "link_l2_log10", "link_l3_log10", "theorem1_log10",
           "frobenius_log10", "loss_gap_value", "cka_lower", "rsa_lower", "cka_lower_sharp", "rsa_lower_sharp", "trivial_frobenius"]

INF = math.inf


def epsilon_value(batch_size: int, steps: int, delta: float) -> float:
    """eps_{B,delta} = sqrt(log(T B / delta) / (2B)) (Paper B, Theorem 1; Hoeffding + union bound).

    Args:
      batch_size: B, integer >= 1.
      steps: T, integer >= 1.
      delta: failure probability in (0, 1).

    Returns:
      eps >= 0 as a float.

    Raises:
      ValueError: a parameter outside its domain, or ``steps*batch_size/delta < 1`` (case C04).
    """
    b = check_int("batch_size", batch_size, 1)
    t = check_int("steps", steps, 1)
    dl = check_probability("delta", delta)
    if t * b < dl:  # exact int/float comparison: no overflow for huge steps
        raise ValueError(f"epsilon needs steps*batch_size/delta >= 1, got steps={t}, batch_size={b}, delta={dl}")
    return math.sqrt((math.log(t * b) - math.log(dl)) / (2 * b))  # math.log takes ints of any size


def delta_value(tau: float, pi_max: float, epsilon: float) -> float:
    """Delta = 2 e^{2/tau} (pi_max + eps)/(1 - pi_max - eps) (Paper B, Theorem 1).

    Args:
      tau: temperature > 0. pi_max: in (0, 1). epsilon: >= 0 (from :func:`epsilon_value`).

    Returns:
      Delta as a float; ``math.inf`` exactly when vacuous (``1 - pi_max - eps <= 0``).

    Raises:
      ValueError: out-of-domain input, or Delta finite but beyond float64 (tau < ~0.0028): use
        ``alignment.delta`` (:data:`DELTA_BOUND`) or :func:`delta_log10` there.
    """
    ln = delta_log10(tau, pi_max, epsilon) * math.log(10)
    if math.isinf(ln):
        return math.inf
    if ln > 709.0:
        raise ValueError(f"Delta overflows float64 at tau={tau}: use delta_log10 or alignment.delta")
    return math.exp(ln)


def delta_log10(tau: float, pi_max: float, epsilon: float) -> float:
    """log10 of Delta (never overflows); ``math.inf`` when vacuous. Same domains as :func:`delta_value`."""
    t = check_real("tau", tau, 0, INF)
    p = check_real("pi_max", pi_max, 0, 1)
    e = check_real("epsilon", epsilon, 0, INF, lo_closed=True)
    if 1 - p - e <= 0:
        return math.inf
    return (math.log(2) + 2 / t + math.log(p + e) - math.log(1 - p - e)) / math.log(10)


def _link_start(e: np.ndarray, logc: float) -> np.ndarray:
    """(T+1,) array: -inf at t = 0; +inf after when Delta is infinite (vacuous); else -inf to be filled."""
    out = np.full(e.size + 1, -np.inf)
    if math.isinf(logc):
        out[1:] = np.inf
    return out


def _link_common(etas: Any, tau: float, batch_size: int, delta_value: float) -> tuple[np.ndarray, float, float]:
    e = np.asarray(etas, dtype=np.float64)
    if e.ndim != 1 or e.size == 0:
        raise ValueError(f"etas must be a non-empty 1-D array of step sizes, got shape {e.shape}")
    if not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ValueError("etas must be finite and >= 0 (step sizes)")
    t = check_real("tau", tau, 0, INF)
    b = check_int("batch_size", batch_size, 1)
    dv = check_real("delta_value", delta_value, 0, INF, allow_inf=True)
    log_a = -(math.log(2.0) + 2.0 * math.log(t) + math.log(b))  # log of 1/(2 tau^2 B), finite for every tau > 0
    if log_a > 700.0:
        raise ValueError(f"tau={tau!r}: the links' rate 1/(2 tau^2 B) = e^{log_a:.4g} is beyond float64; "
                         "evaluate the bound with its Bound object (mpmath) instead")
    return e, 1.0 / (2 * t * t * b), math.log(dv) - math.log(t) - 0.5 * math.log(b) if math.isfinite(dv) else math.inf


def link_l1_bound(distance: Any, *, tau: float, batch_size: int, delta_value: float) -> Any:
    """Link L1: ||G_CL_t - G_NSCL_t||_F <= Delta/(tau sqrt B) + d_t/(2 tau^2 B) (Paper B, proof of Thm 1).

    Args:
      distance: d_t >= 0, float or array of any shape.
      tau, batch_size, delta_value: as in :func:`delta_value` (``delta_value`` may be ``inf``).

    Returns:
      The bound, same shape as ``distance`` (float64); ``inf`` only when Delta is.
    """
    dist = np.asarray(distance, dtype=np.float64)
    if np.any(~np.isfinite(dist)) or np.any(dist < 0):
        raise ValueError("distance must be finite and >= 0")
    t = check_real("tau", tau, 0, INF)
    b = check_int("batch_size", batch_size, 1)
    dv = check_real("delta_value", delta_value, 0, INF, allow_inf=True)
    out = dv / (t * math.sqrt(b)) + dist / (2 * t * t * b)
    return float(out) if np.ndim(out) == 0 else out


def link_l2_log10(etas: Any, *, tau: float, batch_size: int, delta_value: float) -> np.ndarray:
    """Link L2 solved exactly: log10 b_t with b_0 = 0, b_{t+1} = (1 + eta_t a) b_t + eta_t c.

    ``a = 1/(2 tau^2 B)``, ``c = Delta/(tau sqrt B)`` (Paper B, proof of Theorem 1). Computed in log
    space with a cumulative log-sum-exp: no overflow for any T.

    Args:
      etas: step sizes eta_0..eta_{T-1} >= 0, shape (T,), float64.
      tau, batch_size, delta_value: as in :func:`link_l1_bound`.

    Returns:
      float64 array of shape (T+1,): ``-inf`` at t = 0 (b_0 = 0); ``+inf`` everywhere after if Delta is.
    """
    e, a, logc = _link_common(etas, tau, batch_size, delta_value)
    out = _link_start(e, logc)
    if math.isinf(logc):
        return out
    lp = np.concatenate([[0.0], np.cumsum(np.log1p(e * a))])  # P_t = sum_{s<t} log(1 + eta_s a)
    with np.errstate(divide="ignore"):
        terms = np.log(e) - lp[1:]  # log(eta_t) - P_{t+1}
    acc = np.logaddexp.accumulate(terms)
    out[1:] = (logc + lp[1:] + acc) / math.log(10)
    return out


def link_l3_log10(etas: Any, *, tau: float, batch_size: int, delta_value: float) -> np.ndarray:
    """Link L3 (discrete Groenwall): log10 of prod_{s<t}(1 + eta_s a) * S_t * c, shape (T+1,).

    Same arguments and conventions as :func:`link_l2_log10`; always >= the L2 value.
    """
    e, a, logc = _link_common(etas, tau, batch_size, delta_value)
    out = _link_start(e, logc)
    if math.isinf(logc):
        return out
    lp = np.cumsum(np.log1p(e * a))
    with np.errstate(divide="ignore"):
        out[1:] = (logc + lp + np.log(np.cumsum(e))) / math.log(10)
    return out


def theorem1_log10(etas: Any, *, tau: float, batch_size: int, delta_value: float) -> np.ndarray:
    """Theorem 1 along a run: log10 of exp(S_t/(2 tau^2 B)) * S_t * Delta/(tau sqrt B), shape (T+1,).

    Same arguments and conventions as :func:`link_l2_log10`; always >= the L3 value.
    """
    e, a, logc = _link_common(etas, tau, batch_size, delta_value)
    out = _link_start(e, logc)
    if math.isinf(logc):
        return out
    s = np.cumsum(e)
    with np.errstate(divide="ignore"):
        out[1:] = (logc + s * a + np.log(s)) / math.log(10)
    return out


def frobenius_log10(eta_sum: float, tau: float, batch_size: int, delta_value: float) -> float:
    """log10 of the Theorem-1 bound exp(S/(2 tau^2 B)) S Delta/(tau sqrt B); ``inf`` when Delta is."""
    s = check_real("eta_sum", eta_sum, 0, INF)
    return float(theorem1_log10(np.array([s]), tau=tau, batch_size=batch_size, delta_value=delta_value)[-1])


def loss_gap_value(tau: float, pi_max: float) -> float:
    """log(1 + e^{2/tau} pi_max/(1 - pi_max)), the loss-gap bound (Luthra et al. 2025, arXiv:2506.04411, Thm 1).

    ``pi_max = n_max/N``; balanced classes ``pi_max = 1/C`` give log(1 + e^{2/tau}/(C-1)).
    Computed as softplus(2/tau + logit(pi_max)): no overflow at small tau.
    """
    t = check_real("tau", tau, 0, INF)
    p = check_real("pi_max", pi_max, 0, 1)
    return float(np.logaddexp(0.0, 2 / t + math.log(p) - math.log1p(-p)))


def cka_lower(rho: Any) -> Any:
    """CKA_T >= (1 - rho)/(1 + rho) (Paper B, CKA corollary), a valid bound only for 0 <= rho < 1.

    For rho >= 1 the formula is not a lower bound for arbitrary matrices (K' = -K gives rho = 2 and
    CKA = -1 < -1/3); for PSD Grams CKA >= 0 anyway. :func:`cka_lower_sharp` is the sharp form.
    Returns the formula's value (float or array) for any rho >= 0; callers treat rho >= 1 as vacuous.
    """
    x = np.asarray(rho, dtype=np.float64)
    if np.any(~np.isfinite(x)) or np.any(x < 0):
        raise ValueError("rho must be finite and >= 0")
    out = (1 - x) / (1 + x)
    return float(out) if out.ndim == 0 else out


def rsa_lower(r: Any) -> Any:
    """RSA_T >= (1 - r)/(1 + r) (Paper B, RSA corollary), a valid bound only for 0 <= r < 1.

    For r > 1 Pearson can be -1 while the formula is larger (b = -a/2: r = 1.5, formula -0.2).
    Returns the formula's value for any r >= 0; callers treat r >= 1 as vacuous.
    """
    x = np.asarray(r, dtype=np.float64)
    if np.any(~np.isfinite(x)) or np.any(x < 0):
        raise ValueError("r must be finite and >= 0")
    out = (1 - x) / (1 + x)
    return float(out) if out.ndim == 0 else out


def cka_lower_sharp(rho: Any) -> Any:
    """sqrt(1 - rho^2): the sharp lower bound on CKA (law of cosines) for 0 <= rho < 1; -1 for rho >= 1.

    For rho >= 1 nothing better than -1 holds for arbitrary matrices (PSD Grams: CKA >= 0).
    """
    x = np.asarray(rho, dtype=np.float64)
    if np.any(~np.isfinite(x)) or np.any(x < 0):
        raise ValueError("rho must be finite and >= 0")
    out = np.where(x < 1, np.sqrt(np.clip(1 - x * x, 0.0, 1.0)), -1.0)
    return float(out) if out.ndim == 0 else out


def rsa_lower_sharp(r: Any) -> Any:
    """sqrt(1 - r^2): the sharp lower bound on Pearson RSA for 0 <= r < 1; -1 for r >= 1."""
    return cka_lower_sharp(r)


def trivial_frobenius(m: int) -> float:
    """2 sqrt(m (m - 1)): ||Sigma - Sigma'||_F for entries in [-1, 1] with equal (unit) diagonals."""
    mm = check_int("m", m, 2)
    return 2.0 * math.sqrt(mm * (mm - 1))

