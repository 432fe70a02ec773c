"""Second computations of the metrics the report shows (docs/theorems.md B1, B5), for the checks.

Each is written differently from :mod:`contrastive_bounds.numerics.alignment` (``_cka``, ``_rsa``) and
:mod:`~contrastive_bounds.numerics.alignment._losses`, so a fault in one of them (a missing
centring, Spearman in place of Pearson, a wrong denominator set) shows as a disagreement:

* CKA of two similarity matrices by the trace identity ``<H A H, H B H> = <A, H B H>``
  (only one side centred per inner product) — :func:`cka_trace`;
* linear CKA of features in the *Gram* form (n x n) — :func:`linear_cka_gram_form` (the toolkit
  uses the feature form, O(n d²), when it is cheaper);
* RSA as ``numpy.corrcoef`` of the strict upper triangles of ``1 - Sigma`` — :func:`rsa_corrcoef`;
* rho and r of the corollaries from their definitions — :func:`rho_direct`, :func:`r_direct`;
* the decoupled CL and NSCL population losses in mpmath (30 digits), anchor by anchor from the
  formula of B1 — :func:`population_losses_mp`.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

__all__ = ["cka_trace", "linear_cka_gram_form", "rsa_corrcoef", "rho_direct", "r_direct", "population_losses_mp",
           "centring_matrix"]


def centring_matrix(m: int) -> np.ndarray:
    """H = I - 11ᵀ/m, (m, m) float64."""
    return np.eye(m) - np.full((m, m), 1.0 / m)


def _double_centre(a: np.ndarray) -> np.ndarray:
    return a - a.mean(axis=0, keepdims=True) - a.mean(axis=1, keepdims=True) + a.mean()


def cka_trace(a: np.ndarray, b: np.ndarray) -> float:
    """<HAH, HBH>/(||HAH|| ||HBH||) computed as <A, HBH>/sqrt(<A, HAH><B, HBH>) (H idempotent)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ka, kb = _double_centre(a), _double_centre(b)
    return float(np.vdot(a, kb) / math.sqrt(np.vdot(a, ka) * np.vdot(b, kb)))


def linear_cka_gram_form(x: np.ndarray, y: np.ndarray) -> float:
    """Biased linear CKA of features x (n, d1), y (n, d2) through the n x n Grams with an explicit H."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    h = centring_matrix(x.shape[0])
    k, l_ = h @ (x @ x.T) @ h, h @ (y @ y.T) @ h
    return float(np.sum(k * l_) / (np.linalg.norm(k) * np.linalg.norm(l_)))


def rsa_corrcoef(sigma_a: np.ndarray, sigma_b: np.ndarray) -> float:
    """Pearson correlation (numpy.corrcoef) of the strict upper triangles of 1 - sigma_a and 1 - sigma_b."""
    iu = np.triu_indices(np.asarray(sigma_a).shape[0], k=1)
    return float(np.corrcoef(1.0 - np.asarray(sigma_a, np.float64)[iu], 1.0 - np.asarray(sigma_b, np.float64)[iu])[0, 1])


def rho_direct(sigma_cl: np.ndarray, sigma_nscl: np.ndarray) -> float:
    """||H(S_CL - S_NSCL)H||_F / ||H S_CL H||_F with an explicit centring matrix."""
    a, b = np.asarray(sigma_cl, np.float64), np.asarray(sigma_nscl, np.float64)
    h = centring_matrix(a.shape[0])
    return float(np.linalg.norm(h @ (a - b) @ h) / np.linalg.norm(h @ a @ h))


def r_direct(sigma_cl: np.ndarray, sigma_nscl: np.ndarray) -> float:
    """||b - a||_2/(sqrt(M) sigma_a), a, b the upper triangles of the RDMs 1 - Sigma, sigma_a with ddof 0."""
    iu = np.triu_indices(np.asarray(sigma_cl).shape[0], k=1)
    a = 1.0 - np.asarray(sigma_cl, np.float64)[iu]
    b = 1.0 - np.asarray(sigma_nscl, np.float64)[iu]
    return float(np.sqrt(np.sum((b - a) ** 2)) / (math.sqrt(a.size) * math.sqrt(np.mean((a - a.mean()) ** 2))))


def population_losses_mp(z1: np.ndarray, z2: np.ndarray, labels: np.ndarray, tau: float, dps: int = 30) -> tuple[float, float]:
    """(L_DCL, L_NSCL): means over anchors i (first views) of
    -s(z_i, z_i')/tau + log sum_{t in D_i} [e^{s(z_i, z_t)/tau} + e^{s(z_i, z_t')/tau}],
    D_i = {t != i} (DCL) or {t : y_t != y_i} (NSCL); cosines in mpmath (docs/theorems.md B1)."""
    z1, z2 = np.asarray(z1, np.float64), np.asarray(z2, np.float64)
    n = z1.shape[0]
    with mpmath.workdps(dps):
        u1 = [[mpmath.mpf(float(v)) for v in row] for row in z1]
        u2 = [[mpmath.mpf(float(v)) for v in row] for row in z2]
        norm = lambda u: [x / mpmath.sqrt(mpmath.fsum(y * y for y in u)) for x in u]  # noqa: E731
        u1, u2 = [norm(u) for u in u1], [norm(u) for u in u2]
        dot = lambda a, b: mpmath.fsum(x * y for x, y in zip(a, b))  # noqa: E731
        t = mpmath.mpf(tau)
        totals = [mpmath.mpf(0), mpmath.mpf(0)]
        for i in range(n):
            pos = dot(u1[i], u2[i]) / t
            terms = [(j, mpmath.exp(dot(u1[i], u1[j]) / t) + mpmath.exp(dot(u1[i], u2[j]) / t)) for j in range(n) if j != i]
            totals[0] += -pos + mpmath.log(mpmath.fsum(v for _, v in terms))
            neg = [v for j, v in terms if labels[j] != labels[i]]
            totals[1] += -pos + mpmath.log(mpmath.fsum(neg))
        return float(totals[0] / n), float(totals[1] / n)
