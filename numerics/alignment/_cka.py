"""Centred kernel alignment: linear CKA (biased and debiased HSIC), cosine-Gram CKA, rho (docs/theorems.md B5).

Everything here is float64 numpy (metrics are compared with bounds):

* :func:`linear_cka` from features, without n x n matrices when that is cheaper (C09), and
  :func:`linear_cka_gram` from Gram matrices. The estimator is always named: ``debiased=False`` is
  the biased HSIC of Kornblith et al. 2019 (positively biased at small n), ``debiased=True`` the
  unbiased HSIC of Song et al. 2012 (as used by Nguyen et al. 2021); it needs n >= 4 (C08).
* :func:`cosine_gram`, :func:`cosine_gram_cka` and :func:`cka_rho`: the quantities of Paper B's
  Corollary (K = H Sigma H).
"""

from __future__ import annotations

import math
import warnings
from typing import Literal

import numpy as np

from contrastive_bounds.numerics.alignment._realarrays import (EPS, constant_to_rounding, feature_matrix,
                                                               matrix_pair, pow2_scale, real_array, square_pair)

__all__ = ["linear_cka", "linear_cka_gram", "hsic_gram", "cosine_gram", "cosine_gram_cka", "cka_rho"]


def _check_debiased(debiased) -> bool:
    """``debiased`` must be a bool: the estimator is never chosen by truthiness (None, "yes", 1...)."""
    if not isinstance(debiased, (bool, np.bool_)):
        raise ValueError(f"debiased={debiased!r} must be True (unbiased HSIC, Song et al. 2012) or False "
                         "(biased HSIC, Kornblith et al. 2019): the estimator is never implicit")
    return bool(debiased)


def _centred_features(name: str, a: np.ndarray) -> np.ndarray:
    """Column-centred copy of ``a`` (n, d), rescaled by a power of two to max-abs in [0.5, 1).

    A column whose centred norm is at the rounding level of its own uncentred norm is constant and is
    set to exactly 0. Raises ValueError naming ``name`` when every column is constant (all n rows equal).
    """
    a = pow2_scale(a)
    ac = a - a.mean(axis=0)
    const = constant_to_rounding(np.linalg.norm(ac, axis=0), np.linalg.norm(a, axis=0))
    del a
    if np.all(const):
        raise ValueError(f"{name} is constant (all n rows are equal, to rounding at {name}'s own scale): "
                         "CKA is undefined")
    if np.any(const):
        ac[:, const] = 0.0
    return pow2_scale(ac, out=ac)


def _check_n(n: int, debiased: bool) -> None:
    if debiased and n < 4:
        raise ValueError(f"n={n} samples: the debiased (unbiased HSIC) estimator needs n >= 4")
    if n < 2:
        raise ValueError(f"n={n} samples: CKA needs at least 2")


def _unbiased_hsic_parts(tr_kl: float, sum_k: float, sum_l: float, k1_l1: float, n: int) -> float:
    """Song et al. 2012 eq. 5 with K, L of zero diagonal: sums of off-diagonal quantities."""
    return (tr_kl + sum_k * sum_l / ((n - 1) * (n - 2)) - 2.0 * k1_l1 / (n - 2)) / (n * (n - 3))


def _unbiased_hsic_magnitude(tr_kl: float, sum_k: float, sum_l: float, k1_l1: float, n: int) -> float:
    """Sum of the absolute terms of :func:`_unbiased_hsic_parts`: the scale of its rounding error."""
    return (abs(tr_kl) + abs(sum_k * sum_l) / ((n - 1) * (n - 2)) + 2.0 * abs(k1_l1) / (n - 2)) / (n * (n - 3))


def _cka_features(xc: np.ndarray, yc: np.ndarray, debiased: bool) -> float:
    """CKA from centred, rescaled features (see :func:`_centred_features`)."""
    if not debiased:
        xy = np.linalg.norm(yc.T @ xc) ** 2
        xx = np.linalg.norm(xc.T @ xc)
        yy = np.linalg.norm(yc.T @ yc)
        return _ratio(xy, xx, yy)
    n = xc.shape[0]
    dx = np.einsum("ij,ij->i", xc, xc)  # diag of K = Xc Xc^T
    dy = np.einsum("ij,ij->i", yc, yc)
    sx = xc.sum(axis=0)  # ~0 after centring, kept for exactness
    sy = yc.sum(axis=0)
    kx1 = xc @ sx - dx  # K~ 1 (zero-diagonal K)
    ly1 = yc @ sy - dy

    def hsic(a, b, da, db, a1, b1):
        parts = (np.linalg.norm(b.T @ a) ** 2 - float(da @ db), float(a1.sum()), float(b1.sum()), float(a1 @ b1), n)
        return _unbiased_hsic_parts(*parts), _unbiased_hsic_magnitude(*parts)

    kl, _ = hsic(xc, yc, dx, dy, kx1, ly1)
    kk = hsic(xc, xc, dx, dx, kx1, kx1)
    ll = hsic(yc, yc, dy, dy, ly1, ly1)
    return _ratio_unbiased(kl, kk, ll, ("x", "y"), n)


def _ratio(num: float, a: float, b: float, names: tuple[str, str] = ("x", "y")) -> float:
    if a <= 0 or b <= 0:
        which = names[0] if a <= 0 else names[1]
        raise ValueError(f"{which} is constant (all representations equal after centring): CKA is undefined")
    return float(num / (a * b))


def _ratio_unbiased(kl: float, kk: tuple[float, float], ll: tuple[float, float], names: tuple[str, str],
                    n: int) -> float:
    """``kl / sqrt(kk ll)``; ``kk``, ``ll`` are (value, magnitude of its terms) of the self-HSICs.

    A self-HSIC that is <= 0, or within the rounding error of its own terms (so no digit of it is
    known), raises naming the argument.
    """
    tol = max(256, 4 * n) * EPS
    for name, (v, mag) in zip(names, (kk, ll)):
        if v <= tol * mag:
            raise ValueError(
                f"unbiased self-HSIC of {name} is {v:.3g}, <= 0 or at the rounding level of its terms "
                "(constant or near-constant representation): debiased CKA is undefined"
            )
    return float(kl / math.sqrt(kk[0] * ll[0]))


def hsic_gram(k, l, *, debiased: bool) -> float:
    """HSIC of two n x n Gram matrices: biased ``<HKH, HLH>/(n-1)^2`` or unbiased (Song et al. 2012).

    Args: ``k, l`` float arrays (n, n), symmetric, finite, real; ``debiased`` chooses the estimator.
    Returns: float in the units of ``k * l`` (HSIC is not scale invariant; CKA is).
    Raises: ValueError for non-square or mismatched shapes, NaN/inf, complex input, n < 4 when debiased,
      ``debiased`` not a bool.
    Source: Gretton et al. 2005 (biased HSIC); Song et al. 2012, eq. 5 (unbiased).
    """
    debiased = _check_debiased(debiased)
    k = real_array("k", k)
    l = real_array("l", l)
    square_pair("k", k, "l", l)
    n = k.shape[0]
    _check_n(n, debiased)
    if not debiased:
        kc = _centre_gram(k)
        lc = _centre_gram(l)
        return float(np.sum(kc * lc) / (n - 1) ** 2)
    return _hsic_unbiased_gram(k, l)[0]


def _hsic_unbiased_gram(k: np.ndarray, l: np.ndarray) -> tuple[float, float]:
    """(unbiased HSIC, magnitude of its terms) of two Gram matrices (Song et al. 2012, eq. 5)."""
    n = k.shape[0]
    kt = k - np.diag(np.diag(k))
    lt = l - np.diag(np.diag(l))
    k1 = kt.sum(axis=1)
    l1 = lt.sum(axis=1)
    parts = (float(np.sum(kt * lt)), float(k1.sum()), float(l1.sum()), float(k1 @ l1), n)
    return _unbiased_hsic_parts(*parts), _unbiased_hsic_magnitude(*parts)


def _centre_gram(k: np.ndarray) -> np.ndarray:
    """H K H with H = I - 11^T/n, in O(n^2) without forming H (one new n x n array, no temporaries)."""
    col, row, tot = k.mean(axis=0, keepdims=True), k.mean(axis=1, keepdims=True), k.mean()
    out = k - col
    out -= row
    out += tot
    return out


def _centred_gram(name: str, k: np.ndarray, what: str = "CKA") -> np.ndarray:
    """``H K H`` rescaled by a power of two to max-abs in [0.5, 1); raises naming ``name`` when it is
    zero to rounding at ``k``'s own scale (a constant representation)."""
    k = pow2_scale(k)
    kc = _centre_gram(k)
    if constant_to_rounding(np.linalg.norm(kc), np.linalg.norm(k)):
        raise ValueError(f"{name} is constant after centring (all representations equal, to rounding at "
                         f"{name}'s own scale): {what} is undefined")
    return pow2_scale(kc, out=kc)


def _cka_gram(k: np.ndarray, l: np.ndarray, debiased: bool, names: tuple[str, str]) -> float:
    """CKA of two validated Gram matrices; constancy errors name ``names``."""
    if not debiased:
        kc = _centred_gram(names[0], k)
        lc = _centred_gram(names[1], l)
        return float(np.vdot(kc, lc) / (np.linalg.norm(kc) * np.linalg.norm(lc)))
    k = pow2_scale(k)
    l = pow2_scale(l)
    return _ratio_unbiased(_hsic_unbiased_gram(k, l)[0], _hsic_unbiased_gram(k, k), _hsic_unbiased_gram(l, l),
                           names, k.shape[0])


def linear_cka_gram(k, l, *, debiased: bool) -> float:
    """CKA from two Gram matrices (any kernel), biased or debiased HSIC.

    Args:
      k, l: real float arrays (n, n), symmetric (e.g. ``X X^T`` and ``Y Y^T``), finite, of any scale
        (CKA is invariant to rescaling each; both are rescaled by a power of two internally, so no
        scale from 1e-300 to 1e300 overflows or underflows).
      debiased: keyword-only; False = biased HSIC (Kornblith et al. 2019), True = unbiased HSIC
        (Song et al. 2012), which needs n >= 4.

    Returns: float; in [0, 1] for the biased estimator with PSD Grams; the debiased value can be
      slightly negative or above 1 at small n.

    Raises:
      ValueError: for shapes, NaN/inf, complex input, n < 4 (debiased, C08), or a constant
        representation, naming ``k`` or ``l`` (its centred Gram is zero to within a few hundred ulps
        of that Gram's own norm (biased), or its unbiased self-HSIC is <= 0 or at the rounding level
        of its terms (debiased); C10's analogue for CKA); ``debiased`` not a bool (None, "yes" and 1
        are refused: the estimator is never implicit).
    Source: Kornblith et al. 2019 (CKA); Song et al. 2012 (unbiased HSIC).
    """
    debiased = _check_debiased(debiased)
    k = real_array("k", k)
    l = real_array("l", l)
    square_pair("k", k, "l", l)
    _check_n(k.shape[0], debiased)
    return _cka_gram(k, l, debiased, ("k", "l"))


def linear_cka(x, y, *, debiased: bool, method: Literal["auto", "features", "gram"] = "auto") -> float:
    """Linear CKA between representations ``x`` (n, d1) and ``y`` (n, d2) of the same n inputs.

    Biased: ``||Yc^T Xc||_F^2 / (||Xc^T Xc||_F ||Yc^T Yc||_F)`` (Kornblith et al. 2019, eq. of
    linear CKA), computed in O(n d^2) time and O(n d + d^2) memory without any n x n matrix (C09).
    Debiased: the unbiased HSIC (Song et al. 2012) written in feature space, also O(n d^2).
    ``method="auto"`` uses the Gram form only when it is cheaper (n^2 (d1 + d2) < n (d1 + d2)^2).

    CKA is invariant to rescaling ``x`` and ``y`` separately, and so is this function: each input is
    centred and rescaled by a power of two (exact) before any product, so scales from 1e-300 to 1e300
    give the unscaled value to rounding.

    Args:
      x, y: real float arrays (n, d1), (n, d2) (1-D arrays are one feature), finite.
      debiased: keyword-only, required, a bool (``True``/``False``; anything else raises): the
        estimator is never implicit.
      method: ``"auto"``, ``"features"`` or ``"gram"``.

    Returns: float. The biased value lies in [0, 1] and is positively biased at small n (a warning is
      issued for n < 30 with ``debiased=False``).

    Raises:
      ValueError: for differing n, NaN/inf, complex input, no feature column (shape (n, 0)),
        ``debiased`` not a bool, n < 4 (debiased; C08), or a constant
        representation, naming ``x`` or ``y`` (all n rows equal, to within a few hundred ulps of that
        input's own scale, a column constant to rounding counting as exactly constant; or, for the
        debiased estimator, an unbiased self-HSIC <= 0 or at the rounding level of its terms).

    Examples:
      A rotated copy has CKA 1; an independent representation of 50 points in 8 dimensions, far less:

      >>> import numpy as np
      >>> rng = np.random.default_rng(0)
      >>> x = rng.standard_normal((50, 8))
      >>> q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
      >>> round(linear_cka(x, x @ q, debiased=False), 12)
      1.0
      >>> round(linear_cka(x, rng.standard_normal((50, 8)), debiased=False), 4)
      0.1033
    """
    debiased = _check_debiased(debiased)
    x = feature_matrix("x", x)
    y = feature_matrix("y", y)
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"x and y must have the same number of rows n; got {x.shape[0]} and {y.shape[0]}")
    n = x.shape[0]
    _check_n(n, debiased)
    if method not in ("auto", "features", "gram"):
        raise ValueError(f"method={method!r} must be 'auto', 'features' or 'gram'")
    if not debiased and n < 30:
        warnings.warn(f"biased linear CKA at n={n} is positively biased; consider debiased=True", stacklevel=2)
    xc = _centred_features("x", x)
    yc = _centred_features("y", y)
    d = x.shape[1] + y.shape[1]
    use_gram = method == "gram" or (method == "auto" and n * n * d < n * d * d)
    if use_gram:
        return _cka_gram(xc @ xc.T, yc @ yc.T, debiased, ("x", "y"))
    return _cka_features(xc, yc, debiased)


def cosine_gram(z) -> np.ndarray:
    """Cosine Gram ``Sigma_ij = <z_i, z_j>/(|z_i||z_j|)`` of shape (n, n), float64.

    Each row is rescaled by a power of two before its norm is taken, so rows of any scale (1e-300 to
    1e300) give the same cosines.
    Raises: ValueError for a zero row (no direction), NaN/inf, complex input or a non-2-D input.
    """
    z = feature_matrix("z", z)
    top = np.max(np.abs(z), axis=1)
    if np.any(top == 0):
        raise ValueError(f"z has a zero row at index {int(np.argmin(top))}: its cosine similarity is undefined")
    z = np.ldexp(z, -np.frexp(top)[1][:, None])
    u = z / np.linalg.norm(z, axis=1)[:, None]
    return np.clip(u @ u.T, -1.0, 1.0)


def cosine_gram_cka(sigma_a, sigma_b) -> float:
    """Paper B's CKA on cosine Grams: ``K = H Sigma H``, ``<K, K'>_F / (||K||_F ||K'||_F)`` (biased HSIC).

    Args:
      sigma_a: real float array (m, m), a similarity matrix (need not be symmetric: similarity descent
        with row-wise updates gives asymmetric Sigma; the formula is used as is). Any scale: the value
        is invariant to rescaling each argument, and each is rescaled by a power of two internally.
      sigma_b: float array (m, m), the other similarity matrix.
    Raises: ValueError for shapes, NaN/inf, complex input, or a constant representation: ``H Sigma H``
      zero to within a few hundred ulps of ``||Sigma||_F`` (the message names sigma_a or sigma_b).
    Source: docs/theorems.md B5 (Luthra et al., arXiv 2510.08852, Corollary on CKA).
    """
    a, b = matrix_pair("sigma_a", sigma_a, "sigma_b", sigma_b)
    ka = _centred_gram("sigma_a", a)
    kb = _centred_gram("sigma_b", b)
    return float(np.sum(ka * kb) / (np.linalg.norm(ka) * np.linalg.norm(kb)))


def cka_rho(sigma_cl, sigma_nscl) -> float:
    """``rho_T = ||K^CL - K^NSCL||_F / ||K^CL||_F`` with ``K = H Sigma H`` (docs/theorems.md B5).

    The corollary states ``CKA >= (1 - rho)/(1 + rho)`` (informative iff rho < 1); see
    ``contrastive_bounds.theory.cka_lower``. Both matrices are rescaled by the same power of
    two (rho is invariant to a common rescaling, not to rescaling one of them).
    Raises: ValueError for shapes, NaN/inf, complex input, or a ``sigma_cl`` whose centred Gram is zero
      to within a few hundred ulps of its own norm.
    """
    a, b = matrix_pair("sigma_cl", sigma_cl, "sigma_nscl", sigma_nscl)
    top = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    if top > 0:
        e = -math.frexp(top)[1]
        a, b = np.ldexp(a, e), np.ldexp(b, e)
    ka = _centre_gram(a)
    na = np.linalg.norm(ka)
    if constant_to_rounding(na, np.linalg.norm(a)):
        raise ValueError("sigma_cl is constant after centring (to rounding at its own scale): rho is undefined")
    return float(np.linalg.norm(ka - _centre_gram(b)) / na)
