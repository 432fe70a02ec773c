"""The proof links of Theorem 1 along a recorded trajectory, for any step-size sequence (Paper B).

docs/theorems.md B4, with a = 1/(2 tau^2 B) and c = Delta/(tau sqrt B):

* (L1) ||G^CL_t - G^NSCL_t||_F <= c + a d_t                                   (:func:`link_l1_log10`)
* (L2) d_{t+1} <= (1 + a eta_t) d_t + c eta_t; solved from b_0 = d_0:
  b_t = P_t d_0 + c sum_{s<t} eta_s prod_{s<r<t} (1 + a eta_r),  P_t = prod_{s<t}(1 + a eta_s)
* (L3) the discrete Groenwall bound b_t <= P_t (d_0 + c S_t),  S_t = sum_{s<t} eta_s
* (Theorem 1) P_t <= exp(a S_t):  d_t <= exp(a S_t) (d_0 + c S_t)              (:func:`link_chain_log10`)

Theorem 1 is the case d_0 = 0 (a shared Sigma_0); for d_0 > 0 the same chain is the Groenwall
extension of the proof (each inequality of the proof holds as written, only the start differs),
so a log whose runs did not start from one Sigma_0 still gets valid bounds, marked as such by the
caller. :func:`link_l2_interval_log10` composes L2 over the steps between two records of a log
that is not recorded at every step.

Everything is computed in natural-log space with log-sum-exp and returned as log10, so no value
overflows whatever T, tau or Delta (Delta is passed as ``delta_log10``; ``inf`` means vacuous).
The plain per-step forms with ``delta_value`` for d_0 = 0 are :func:`._alignment.link_l2_log10` and
its neighbours (an independent implementation; the tests compare both and an mpmath transcription).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._domains import check_int, check_real

__all__ = ["link_constants", "link_l1_log10", "link_chain_log10", "link_l2_interval_log10"]

_LN10 = math.log(10)


def link_constants(tau: float, batch_size: int, delta_log10: float) -> tuple[float, float]:
    """``(a, ln c)`` with a = 1/(2 tau^2 B) and ln c = ln Delta - ln tau - ln(B)/2 (``inf`` when vacuous).

    Raises:
      ValueError: ``tau`` outside (0, inf), ``batch_size`` not an integer >= 1, ``delta_log10`` NaN
        or -inf (Delta > 0 always), naming the argument.
    """
    t = check_real("tau", tau, 0.0)
    b = check_int("batch_size", batch_size, 1)
    dl = check_real("delta_log10", delta_log10, allow_inf=True)
    if dl == -math.inf:
        raise ValueError("delta_log10=-inf: Delta is positive (its log10 is finite, or inf when vacuous)")
    ln_c = math.inf if math.isinf(dl) else dl * _LN10 - math.log(t) - 0.5 * math.log(b)
    return 1.0 / (2.0 * t * t * b), ln_c


def _etas(step_sizes: Any) -> np.ndarray:
    e = np.asarray(step_sizes, dtype=np.float64)
    if e.ndim != 1 or e.size == 0:
        raise ValueError(f"step_sizes must be a non-empty 1-D array (eta_0..eta_(T-1)); got shape {e.shape}")
    bad = ~np.isfinite(e) | (e < 0)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"step_sizes[{i}]={float(e[i])!r} must be finite and >= 0")
    return e


def _distances(name: str, distance: Any) -> np.ndarray:
    d = np.asarray(distance, dtype=np.float64)
    if np.any(~np.isfinite(d)) or np.any(d < 0):
        raise ValueError(f"{name} must be finite and >= 0")
    return d


def link_l1_log10(distance: Any, *, tau: float, batch_size: int, delta_log10: float) -> np.ndarray:
    """log10 of the L1 bound c + a d_t on the gradient mismatch, for each measured d_t.

    Args:
      distance: d_t >= 0, any shape (float64).
      tau, batch_size, delta_log10: as :func:`link_constants`.

    Returns:
      float64 array of ``distance``'s shape; ``inf`` everywhere when vacuous.

    Source: docs/theorems.md B4 (L1), Paper B (arXiv 2510.08852), proof of Theorem 1.
    """
    d = _distances("distance", distance)
    a, ln_c = link_constants(tau, batch_size, delta_log10)
    if math.isinf(ln_c):
        return np.full(d.shape, np.inf)
    with np.errstate(divide="ignore"):
        return np.logaddexp(ln_c, math.log(a) + np.log(d)) / _LN10


def link_chain_log10(step_sizes: Any, *, tau: float, batch_size: int, delta_log10: float,
                     initial_distance: float = 0.0) -> dict[str, np.ndarray]:
    """log10 of the L2, L3 and Theorem-1 bounds on d_t for t = 0..T, from b_0 = ``initial_distance``.

    Args:
      step_sizes: eta_0..eta_{T-1}, float64 (T,), finite and >= 0 (any sequence).
      tau, batch_size, delta_log10: as :func:`link_constants`.
      initial_distance: d_0 >= 0 (0 for Theorem 1's shared Sigma_0).

    Returns:
      ``{"L2", "L3", "theorem1"}``, each float64 (T+1,): the solved recursion b_t, the Groenwall
      product P_t (d_0 + c S_t) and exp(a S_t)(d_0 + c S_t) (module docstring). Entry 0 is
      log10 d_0 (``-inf`` for d_0 = 0); when vacuous every later entry is ``inf``. Each row is at
      least the previous one, entry by entry (up to rounding).

    Raises:
      ValueError: a step size NaN, inf or < 0, an empty sequence, or ``initial_distance`` < 0
        (naming the argument); as :func:`link_constants`.

    Source: docs/theorems.md B4 (L2, L3 and Theorem 1), Paper B (arXiv 2510.08852).
    """
    e = _etas(step_sizes)
    a, ln_c = link_constants(tau, batch_size, delta_log10)
    d0 = check_real("initial_distance", initial_distance, 0.0, lo_closed=True)
    with np.errstate(divide="ignore"):
        ln_d0 = math.log(d0) if d0 > 0 else -math.inf
        out = {k: np.full(e.size + 1, ln_d0 / _LN10) for k in ("L2", "L3", "theorem1")}
        if math.isinf(ln_c):
            for v in out.values():
                v[1:] = np.inf
            return out
        lp = np.concatenate([[0.0], np.cumsum(np.log1p(a * e))])  # ln P_t
        acc = np.logaddexp.accumulate(np.log(e) - lp[1:])  # ln sum_{s<t} eta_s / P_{s+1}
        s = np.cumsum(e)  # S_t, t = 1..T
        l2 = np.logaddexp(lp[1:] + ln_d0, ln_c + lp[1:] + acc)
        grow = np.logaddexp(ln_d0, ln_c + np.log(s))  # ln(d_0 + c S_t)
        out["L2"][1:] = l2 / _LN10
        out["L3"][1:] = (lp[1:] + grow) / _LN10
        out["theorem1"][1:] = (a * s + grow) / _LN10
    return out


def link_l2_interval_log10(step_sizes: Any, record_steps: Any, distances: Any, *, tau: float, batch_size: int,
                           delta_log10: float) -> np.ndarray:
    """log10 of L2 composed over each gap between records: the bound on d at record k+1 from the measured d at record k.

    Over steps s = t_k .. t_{k+1} - 1 the recursion gives
    d_{t_{k+1}} <= P(t_k, t_{k+1}) d_{t_k} + c sum_{t_k <= r < t_{k+1}} eta_r P(r+1, t_{k+1}), with
    P(u, v) = prod_{u <= r < v}(1 + a eta_r); for records at every step this is
    (1 + a eta_t) d_t + c eta_t, link L2 itself.

    Args:
      step_sizes: eta_0..eta_{T-1}, float64 (T,).
      record_steps: int (K+1,), strictly increasing, t_0 = 0 and t_K = T.
      distances: measured d at the records, float64 (K+1,), finite and >= 0.
      tau, batch_size, delta_log10: as :func:`link_constants`.

    Returns:
      float64 (K,): entry k bounds d at record k+1 (``inf`` when vacuous).

    Raises:
      ValueError: mismatched lengths, record steps not strictly increasing from 0 to T, bad step
        sizes or distances (naming the argument).

    Source: docs/theorems.md B4 (L2), Paper B (arXiv 2510.08852), proof of Theorem 1.
    """
    e = _etas(step_sizes)
    ts = np.asarray(record_steps)
    d = _distances("distances", distances)
    if ts.ndim != 1 or ts.dtype.kind not in "iu" or ts.size < 2:
        raise ValueError(f"record_steps must be a 1-D integer array of at least 2 steps; got {ts.dtype} {ts.shape}")
    if ts[0] != 0 or ts[-1] != e.size or np.any(np.diff(ts) <= 0):
        raise ValueError(f"record_steps must increase strictly from 0 to T={e.size}; got {ts[0]} .. {ts[-1]}")
    if d.shape != ts.shape:
        raise ValueError(f"distances has shape {d.shape} but record_steps {ts.shape}: one distance per record")
    a, ln_c = link_constants(tau, batch_size, delta_log10)
    if math.isinf(ln_c):
        return np.full(ts.size - 1, np.inf)
    with np.errstate(divide="ignore"):
        lp = np.concatenate([[0.0], np.cumsum(np.log1p(a * e))])
        seg = np.logaddexp.reduceat(np.log(e) - lp[1:], ts[:-1])  # ln sum over [t_k, t_{k+1}) of eta_r / P_{r+1}
        start, end = ts[:-1], ts[1:]
        out = np.logaddexp(lp[end] - lp[start] + np.log(d[:-1]), ln_c + lp[end] + seg)
    return out / _LN10
