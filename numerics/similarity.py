"""Representation similarity: linear CKA (biased and debiased), cosine-Gram CKA, RSA.

Everything here is float64 numpy (metrics are compared with bounds, THEOREMS.md B5):

* :func:`linear_cka` from features, without n x n matrices when that is cheaper (C09), and
  :func:`linear_cka_gram` from Gram matrices. The estimator is always named: ``debiased=False`` is
  the biased HSIC of Kornblith et al. 2019 (positively biased at small n), ``debiased=True`` the
  unbiased HSIC of Song et al. 2012 (as used by Nguyen et al. 2021); it needs n >= 4 (C08).
* :func:`cosine_gram_cka` and :func:`cka_rho`: the quantities of Paper B's Corollary (K = H Sigma H).
* :func:`rdm`, :func:`rsa`, :func:`rsa_r`: RSA with RDM = 1 - cosine (or correlation distance),
  Pearson or Spearman, near-zero distances canonicalised before ranking; constant RDMs raise (C10).
"""

from __future__ import annotations

import math
import warnings
from typing import Literal

import numpy as np
from scipy import stats

from contrastive_bounds.theory.domains import check_finite_array

__all__ = [
    "linear_cka",
    "linear_cka_gram",
    "hsic_gram",
    "cosine_gram",
    "cosine_gram_cka",
    "cka_rho",
    "rdm",
    "upper_triangle",
    "rsa",
    "rsa_r",
    "rsa_from_similarity",
]

_REL_TOL = 1e-12  # relative scale below which a norm or a spread counts as zero


def _features(name: str, x) -> np.ndarray:
    a = check_finite_array(name, np.asarray(x, dtype=np.float64))
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape (n, d); got {a.shape}")
    return a


def _check_n(n: int, debiased: bool) -> None:
    if debiased and n < 4:
        raise ValueError(f"n={n} samples: the debiased (unbiased HSIC) estimator needs n >= 4")
    if n < 2:
        raise ValueError(f"n={n} samples: CKA needs at least 2")


def _unbiased_hsic_parts(tr_kl: float, sum_k: float, sum_l: float, k1_l1: float, n: int) -> float:
    """Song et al. 2012 eq. 5 with K, L of zero diagonal: sums of off-diagonal quantities."""
    return (tr_kl + sum_k * sum_l / ((n - 1) * (n - 2)) - 2.0 * k1_l1 / (n - 2)) / (n * (n - 3))


def _cka_features(x: np.ndarray, y: np.ndarray, debiased: bool) -> float:
    xc = x - x.mean(axis=0)
    yc = y - y.mean(axis=0)
    if not debiased:
        xy = np.linalg.norm(yc.T @ xc) ** 2
        xx = np.linalg.norm(xc.T @ xc)
        yy = np.linalg.norm(yc.T @ yc)
        return _ratio(xy, xx, yy)
    n = x.shape[0]
    dx = np.einsum("ij,ij->i", xc, xc)  # diag of K = Xc Xc^T
    dy = np.einsum("ij,ij->i", yc, yc)
    sx = xc.sum(axis=0)  # ~0 after centring, kept for exactness
    sy = yc.sum(axis=0)
    kx1 = xc @ sx - dx  # K~ 1 (zero-diagonal K)
    ly1 = yc @ sy - dy

    def hsic(a, b, da, db, a1, b1):
        tr = np.linalg.norm(b.T @ a) ** 2 - float(da @ db)
        return _unbiased_hsic_parts(tr, float(a1.sum()), float(b1.sum()), float(a1 @ b1), n)

    kl = hsic(xc, yc, dx, dy, kx1, ly1)
    kk = hsic(xc, xc, dx, dx, kx1, kx1)
    ll = hsic(yc, yc, dy, dy, ly1, ly1)
    return _ratio_unbiased(kl, kk, ll)


def _ratio(num: float, a: float, b: float) -> float:
    if a <= 0 or b <= 0:
        which = "x" if a <= 0 else "y"
        raise ValueError(f"{which} is constant (all representations equal after centring): CKA is undefined")
    return float(num / (a * b))


def _ratio_unbiased(kl: float, kk: float, ll: float) -> float:
    for name, v in (("x", kk), ("y", ll)):
        if v <= 0:
            raise ValueError(
                f"unbiased self-HSIC of {name} is {v:.3g} <= 0 (constant or near-constant representation): "
                "debiased CKA is undefined"
            )
    return float(kl / math.sqrt(kk * ll))


def hsic_gram(k, l, *, debiased: bool) -> float:
    """HSIC of two n x n Gram matrices: biased ``<HKH, HLH>/(n-1)^2`` or unbiased (Song et al. 2012).

    Args: ``k, l`` float arrays (n, n), symmetric, finite; ``debiased`` chooses the estimator.
    Raises: ValueError for non-square or mismatched shapes, NaN/inf, n < 4 when debiased.
    """
    k = check_finite_array("k", np.asarray(k, dtype=np.float64), ndim=2)
    l = check_finite_array("l", np.asarray(l, dtype=np.float64), ndim=2)
    n = k.shape[0]
    if k.shape != (n, n) or l.shape != (n, n):
        raise ValueError(f"k and l must be square of the same size; got {k.shape} and {l.shape}")
    _check_n(n, debiased)
    if not debiased:
        kc = _centre_gram(k)
        lc = _centre_gram(l)
        return float(np.sum(kc * lc) / (n - 1) ** 2)
    kt = k - np.diag(np.diag(k))
    lt = l - np.diag(np.diag(l))
    k1 = kt.sum(axis=1)
    l1 = lt.sum(axis=1)
    return _unbiased_hsic_parts(float(np.sum(kt * lt)), float(k1.sum()), float(l1.sum()), float(k1 @ l1), n)


def _centre_gram(k: np.ndarray) -> np.ndarray:
    """H K H with H = I - 11^T/n, in O(n^2) without forming H (one new n x n array, no temporaries)."""
    col, row, tot = k.mean(axis=0, keepdims=True), k.mean(axis=1, keepdims=True), k.mean()
    out = k - col
    out -= row
    out += tot
    return out


def linear_cka_gram(k, l, *, debiased: bool) -> float:
    """CKA from two Gram matrices (any kernel), biased or debiased HSIC.

    Args:
      k, l: float arrays (n, n), symmetric (e.g. ``X X^T`` and ``Y Y^T``), finite.
      debiased: keyword-only; False = biased HSIC (Kornblith et al. 2019), True = unbiased HSIC
        (Song et al. 2012), which needs n >= 4.

    Returns: float; in [0, 1] for the biased estimator with PSD Grams; the debiased value can be
      slightly negative or above 1 at small n.

    Raises: ValueError for shapes, NaN/inf, n < 4 (debiased, C08), a constant representation (zero
      centred Gram: C10's analogue for CKA).
    """
    if not debiased:
        k = check_finite_array("k", np.asarray(k, dtype=np.float64), ndim=2)
        l = check_finite_array("l", np.asarray(l, dtype=np.float64), ndim=2)
        if k.shape != l.shape or k.shape[0] != k.shape[1]:
            raise ValueError(f"k and l must be square of the same size; got {k.shape} and {l.shape}")
        _check_n(k.shape[0], False)
        kc = _centre_gram(k)
        lc = _centre_gram(l)
        nk = math.sqrt(np.vdot(kc, kc))
        nl = math.sqrt(np.vdot(lc, lc))
        scale = max(np.abs(k).max(), np.abs(l).max(), 1e-300) * k.shape[0]
        if nk <= _REL_TOL * scale or nl <= _REL_TOL * scale:
            which = "k" if nk <= _REL_TOL * scale else "l"
            raise ValueError(f"{which} is constant after centring (all representations equal): CKA is undefined")
        return float(np.vdot(kc, lc) / (nk * nl))
    kl = hsic_gram(k, l, debiased=True)
    kk = hsic_gram(k, k, debiased=True)
    ll = hsic_gram(l, l, debiased=True)
    return _ratio_unbiased(kl, kk, ll)


def linear_cka(x, y, *, debiased: bool, method: Literal["auto", "features", "gram"] = "auto") -> float:
    """Linear CKA between representations ``x`` (n, d1) and ``y`` (n, d2) of the same n inputs.

    Biased: ``||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F)`` (Kornblith et al. 2019, eq. of
    linear CKA), computed in O(n d^2) time and O(n d + d^2) memory without any n x n matrix (C09).
    Debiased: the unbiased HSIC (Song et al. 2012) written in feature space, also O(n d^2).
    ``method="auto"`` uses the Gram form only when it is cheaper (n^2 (d1 + d2) < n (d1 + d2)^2).

    Args:
      x, y: float arrays (n, d1), (n, d2) (1-D arrays are one feature), finite.
      debiased: keyword-only, required: the estimator is never implicit.
      method: ``"auto"``, ``"features"`` or ``"gram"``.

    Returns: float. The biased value lies in [0, 1] and is positively biased at small n (a warning is
      issued for n < 30 with ``debiased=False``).

    Raises: ValueError for differing n, NaN/inf, n < 4 (debiased; C08), constant representations.
    """
    x = _features("x", x)
    y = _features("y", y)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must have the same number of rows n; got {x.shape[0]} and {y.shape[0]}")
    n = x.shape[0]
    _check_n(n, debiased)
    if not debiased and n < 30:
        warnings.warn(f"biased linear CKA at n={n} is positively biased; consider debiased=True", stacklevel=2)
    scale = max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0))
    for name, a in (("x", x), ("y", y)):
        if np.all(np.abs(a - a.mean(axis=0)) <= _REL_TOL * max(scale, 1e-300)):
            raise ValueError(f"{name} is constant (all n representations are equal): CKA is undefined")
    if method not in ("auto", "features", "gram"):
        raise ValueError(f"method={method!r} must be 'auto', 'features' or 'gram'")
    d = x.shape[1] + y.shape[1]
    use_gram = method == "gram" or (method == "auto" and n * n * d < n * d * d)
    if use_gram:
        xc = x - x.mean(axis=0)
        yc = y - y.mean(axis=0)
        return linear_cka_gram(xc @ xc.T, yc @ yc.T, debiased=debiased)
    return _cka_features(x, y, debiased)


def cosine_gram(z) -> np.ndarray:
    """Cosine Gram ``Sigma_ij = <z_i, z_j>/(|z_i||z_j|)`` of shape (n, n), float64.

    Raises: ValueError for a zero row (no direction), NaN/inf or a non-2-D input.
    """
    z = _features("z", z)
    nrm = np.linalg.norm(z, axis=1)
    if np.any(nrm == 0):
        raise ValueError(f"z has a zero row at index {int(np.argmin(nrm))}: its cosine similarity is undefined")
    u = z / nrm[:, None]
    return np.clip(u @ u.T, -1.0, 1.0)


def _pair(name_a: str, a, name_b: str, b) -> tuple[np.ndarray, np.ndarray]:
    a = check_finite_array(name_a, np.asarray(a, dtype=np.float64), ndim=2)
    b = check_finite_array(name_b, np.asarray(b, dtype=np.float64), ndim=2)
    if a.shape != b.shape or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name_a} and {name_b} must be square of the same size; got {a.shape} and {b.shape}")
    if a.shape[0] < 2:
        raise ValueError(f"m={a.shape[0]}: need at least 2 rows")
    return a, b


def cosine_gram_cka(sigma_a, sigma_b) -> float:
    """Paper B's CKA on cosine Grams: ``K = H Sigma H``, ``<K, K'>_F / (||K||_F ||K'||_F)`` (biased HSIC).

    Args:
      sigma_a: float array (m, m), a similarity matrix (need not be symmetric: similarity descent
        with row-wise updates gives asymmetric Sigma; the formula is used as is).
      sigma_b: float array (m, m), the other similarity matrix.
    Raises: ValueError for shapes, NaN/inf, or a zero centred Gram (constant representation).
    Source: THEOREMS.md B5 (Luthra et al., arXiv 2510.08852, Corollary on CKA).
    """
    a, b = _pair("sigma_a", sigma_a, "sigma_b", sigma_b)
    ka, kb = _centre_gram(a), _centre_gram(b)
    na, nb = np.linalg.norm(ka), np.linalg.norm(kb)
    tol = _REL_TOL * a.shape[0]
    if na <= tol or nb <= tol:
        raise ValueError(f"{'sigma_a' if na <= tol else 'sigma_b'} is constant after centring: CKA is undefined")
    return float(np.sum(ka * kb) / (na * nb))


def cka_rho(sigma_cl, sigma_nscl) -> float:
    """``rho_T = ||K^CL - K^NSCL||_F / ||K^CL||_F`` with ``K = H Sigma H`` (THEOREMS.md B5).

    The corollary states ``CKA >= (1 - rho)/(1 + rho)`` (informative iff rho < 1); see
    ``contrastive_bounds.theory.alignment.cka_lower``.
    Raises: ValueError for shapes, NaN/inf, or a zero centred ``sigma_cl``.
    """
    a, b = _pair("sigma_cl", sigma_cl, "sigma_nscl", sigma_nscl)
    ka = _centre_gram(a)
    na = np.linalg.norm(ka)
    if na <= _REL_TOL * a.shape[0]:
        raise ValueError("sigma_cl is constant after centring: rho is undefined")
    return float(np.linalg.norm(ka - _centre_gram(b)) / na)


def rdm(z, *, metric: Literal["cosine", "correlation"] = "cosine") -> np.ndarray:
    """Representational dissimilarity matrix of rows of ``z`` (n, d): ``1 - cosine`` or ``1 - Pearson``.

    Raises:
      ValueError: a zero row (cosine), a constant row (correlation distance: its pattern has no
        spread; C10), NaN/inf, or an unknown metric.
    """
    z = _features("z", z)
    if metric == "cosine":
        return 1.0 - cosine_gram(z)
    if metric == "correlation":
        zc = z - z.mean(axis=1, keepdims=True)
        spread = np.linalg.norm(zc, axis=1)
        scale = np.abs(z).max(axis=1)
        bad = spread <= _REL_TOL * np.maximum(scale, 1e-300) * math.sqrt(z.shape[1])
        if np.any(bad):
            raise ValueError(
                f"row {int(np.argmax(bad))} of z is constant: its correlation distance is undefined (C10)"
            )
        return 1.0 - cosine_gram(zc)
    raise ValueError(f"metric={metric!r} must be 'cosine' or 'correlation'")


def upper_triangle(a) -> np.ndarray:
    """Strict upper triangle of a square matrix, row-major, length m(m-1)/2."""
    a = np.asarray(a)
    return a[np.triu_indices(a.shape[0], k=1)]


def _canonical(v: np.ndarray, tol: float) -> np.ndarray:
    """Set distances within ``tol`` (absolute) of 0 to exactly 0, so rounding noise does not make ranks."""
    return np.where(np.abs(v) <= tol, 0.0, v)


def rsa(rdm_a, rdm_b, *, method: Literal["pearson", "spearman"] = "pearson", zero_tol: float = 1e-12) -> float:
    """RSA: correlation of the strict upper triangles of two RDMs (m, m).

    Args:
      rdm_a, rdm_b: float arrays (m, m), finite.
      method: ``"pearson"`` (Paper B) or ``"spearman"`` (ranks, average ties).
      zero_tol: distances with ``|d| <= zero_tol`` become exactly 0 before ranking or correlating
        (identical representations give 1e-16 noise, which would otherwise be ranked).

    Returns: float in [-1, 1] (Pearson is NOT restricted to [0, 1]).

    Raises:
      ValueError: shapes, NaN/inf, m < 3, or a constant RDM (its correlation is undefined, C10);
        never NaN.
    Source: Kriegeskorte et al. 2008; THEOREMS.md B5.
    """
    ra, rb = _pair("rdm_a", rdm_a, "rdm_b", rdm_b)
    if ra.shape[0] < 3:
        raise ValueError(f"m={ra.shape[0]}: RSA needs at least 3 conditions (2 distances)")
    a = _canonical(upper_triangle(ra), zero_tol)
    b = _canonical(upper_triangle(rb), zero_tol)
    if method == "spearman":
        a, b = stats.rankdata(a), stats.rankdata(b)
    elif method != "pearson":
        raise ValueError(f"method={method!r} must be 'pearson' or 'spearman'")
    ac, bc = a - a.mean(), b - b.mean()
    na, nb = np.linalg.norm(ac), np.linalg.norm(bc)
    for name, nv, v in (("rdm_a", na, a), ("rdm_b", nb, b)):
        if nv <= _REL_TOL * max(np.abs(v).max(), 1e-300) * math.sqrt(v.size):
            raise ValueError(f"{name} is constant (all distances equal): RSA is undefined (C10)")
    return float(np.clip(ac @ bc / (na * nb), -1.0, 1.0))


def rsa_r(sigma_cl, sigma_nscl) -> float:
    """``r_T = ||b - a||_2 / (sqrt(M) sigma_a)`` with a, b the upper triangles of ``1 - Sigma`` (B5).

    ``sigma_a`` is the population std (ddof 0) of a. The corollary: ``RSA >= (1 - r)/(1 + r)``.
    Raises: ValueError for shapes, NaN/inf, or a constant CL RDM (sigma_a = 0).
    """
    s1, s2 = _pair("sigma_cl", sigma_cl, "sigma_nscl", sigma_nscl)
    a = upper_triangle(1.0 - s1)
    b = upper_triangle(1.0 - s2)
    sd = float(np.std(a))
    if sd <= _REL_TOL * max(np.abs(a).max(), 1e-300):
        raise ValueError("sigma_cl gives a constant RDM (sigma_a = 0): r is undefined (C10)")
    return float(np.linalg.norm(b - a) / (math.sqrt(a.size) * sd))


def rsa_from_similarity(sigma_a, sigma_b, *, method: Literal["pearson", "spearman"] = "pearson") -> float:
    """RSA of the RDMs ``1 - sigma_a`` and ``1 - sigma_b`` (m, m); see :func:`rsa`."""
    a, b = _pair("sigma_a", sigma_a, "sigma_b", sigma_b)
    return rsa(1.0 - a, 1.0 - b, method=method)
