"""Representational similarity analysis: RDMs and RSA (Kriegeskorte et al. 2008; docs/theorems.md B5).

Float64 numpy. :func:`rdm` (1 - cosine or correlation distance), :func:`rsa` (Pearson or Spearman of
the strict upper triangles), :func:`rsa_r` and :func:`rsa_from_similarity` (Paper B's Corollary).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.numerics.alignment._cka import cosine_gram
from contrastive_bounds.numerics.alignment._realarrays import (EPS, constant_to_rounding, feature_matrix,
                                                               matrix_pair, pow2_scale)

__all__ = ["rdm", "upper_triangle", "rsa", "rsa_r", "rsa_from_similarity", "canonical_zeros", "rank_with_ties",
           "RDM_NOISE_ULPS"]

_REL_TOL = 1e-12  # relative scale below which a row's spread counts as zero (correlation distance)


def rdm(z, *, metric: Literal["cosine", "correlation"] = "cosine") -> np.ndarray:
    """Representational dissimilarity matrix of rows of ``z`` (n, d): ``1 - cosine`` or ``1 - Pearson``.

    Raises:
      ValueError: a zero row (cosine), a constant row (correlation distance: its pattern has no
        spread; C10), NaN/inf, or an unknown metric.
    """
    z = feature_matrix("z", z)
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
    """Strict upper triangle of a square matrix: the m(m-1)/2 entries ``a[i, j]``, ``i < j``.

    The vector RSA correlates (Kriegeskorte et al. 2008): an RDM is symmetric with a zero diagonal,
    so its strict upper triangle holds every distance once.

    Args:
      a: array-like of shape (m, m), any dtype (values are not checked; NaN passes through).

    Returns:
      1-D array of length m(m-1)/2 (empty for m <= 1), ``a``'s dtype, in row-major order
      ``a[0,1], a[0,2], ..., a[0,m-1], a[1,2], ...`` (``numpy.triu_indices(m, k=1)``).

    Raises:
      ValueError: ``a`` is not 2-D or not square; the message names ``a`` and its shape.
    """
    a = np.asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a must be a square 2-D matrix (m, m); got shape {a.shape}")
    return a[np.triu_indices(a.shape[0], k=1)]


#: Rounding noise of an RDM entry, in ulps of the scale of the patterns it was computed from: 1 - cos of
#: unit vectors (a d-term dot product) is off by a few ulps of 1; 256 ulps leave room for d up to ~100
#: without counting real distances (>= 1e-13 for unit patterns) as noise.
RDM_NOISE_ULPS = 256


def canonical_zeros(v: np.ndarray, tol: float) -> np.ndarray:
    """``v`` with every entry of ``|v| <= tol`` set to exactly 0 (rounding noise is not ranked)."""
    return np.where(np.abs(v) <= tol, 0.0, v)


def rank_with_ties(v: np.ndarray, tol: float) -> np.ndarray:
    """Average ranks (1-based) of ``v`` where values within ``tol`` of their neighbour in sorted order tie.

    Sorted values are cut into groups wherever the gap to the previous value exceeds ``tol`` (single
    linkage); each group gets the average of its ranks. With ``tol`` at the rounding level of the data,
    values equal in exact arithmetic but computed along different paths (differing in the last bits)
    tie deterministically, whatever their order in the last bits; ``tol = 0`` is
    ``scipy.stats.rankdata(v, "average")``.

    Args:
      v: 1-D float array. tol: >= 0, absolute.
    Returns: float64 array of ranks, same length.
    """
    v = np.asarray(v, dtype=np.float64)
    order = np.argsort(v, kind="stable")
    s = v[order]
    new_group = np.concatenate([[True], np.diff(s) > tol])
    group = np.cumsum(new_group) - 1
    positions = np.arange(1, len(v) + 1, dtype=np.float64)
    mean_rank = np.bincount(group, weights=positions) / np.bincount(group)
    ranks = np.empty(len(v))
    ranks[order] = mean_rank[group]
    return ranks


def _scales(input_scale) -> tuple[float, float]:
    if isinstance(input_scale, (tuple, list)):
        if len(input_scale) != 2:
            raise ValueError(f"input_scale={input_scale!r} must be a number or a pair (scale of rdm_a, of rdm_b)")
        pair = tuple(input_scale)
    else:
        pair = (input_scale, input_scale)
    return tuple(check_real(f"input_scale[{k}]", x, 0.0) for k, x in enumerate(pair))  # type: ignore[return-value]


def rsa(rdm_a, rdm_b, *, method: Literal["pearson", "spearman"] = "pearson", zero_tol: float = 1e-12,
        input_scale: float | tuple[float, float] = 1.0) -> float:
    """RSA: correlation of the strict upper triangles of two RDMs (m, m).

    Rounding: an RDM entry computed from patterns of scale ``s`` (unit patterns for ``1 - cosine`` and
    correlation distances: ``s = 1``) is known to about ``RDM_NOISE_ULPS * eps * s``. Entries within
    that noise level of 0 are set to exactly 0, an RDM whose every entry is noise raises naming it (its
    ranks would be rounding noise), and Spearman ranks tie values within the noise level of each other
    (:func:`rank_with_ties`), so every computation path of the same distances gives the same ranks.

    Args:
      rdm_a, rdm_b: real float arrays (m, m), finite. Only the strict upper triangle is read;
        symmetry is not checked.
      method: ``"pearson"`` (Paper B) or ``"spearman"`` (ranks, ties averaged within the noise level).
      zero_tol: in [0, 1): also set to 0 the distances with ``|d| <= zero_tol * max|d|`` (max over the
        same RDM), a choice of the user on top of the noise level (0 turns it off).
      input_scale: scale ``s > 0`` of the patterns the RDMs were computed from (default 1: ``1 - cosine``,
        correlation distance, ``1 - Sigma`` of similarities in [-1, 1]); a pair gives each RDM its own
        (e.g. the largest squared norm for squared Euclidean distances). RSA is invariant to rescaling an
        RDM together with its ``input_scale``.

    Returns: float in [-1, 1] (Pearson is NOT restricted to [0, 1]).

    Raises:
      ValueError: shapes, NaN/inf, complex input, m < 3, ``zero_tol`` not finite or outside [0, 1),
        ``input_scale`` not positive; an RDM all of whose entries are rounding noise at its
        ``input_scale`` (names rdm_a or rdm_b); a constant RDM (its correlation is undefined, C10):
        its centred triangle is zero to within rounding (names rdm_a or rdm_b); never NaN.
    Source: Kriegeskorte et al. 2008; docs/theorems.md B5.

    Examples:
      >>> import numpy as np
      >>> from contrastive_bounds.numerics.alignment import rdm
      >>> rng = np.random.default_rng(0)
      >>> x = rng.standard_normal((50, 8))
      >>> q, _ = np.linalg.qr(rng.standard_normal((8, 8)))
      >>> round(rsa(rdm(x), rdm(x @ q)), 12)                 # cosine RDMs are rotation invariant
      1.0
      >>> round(rsa(rdm(x), rdm(x + 0.5 * rng.standard_normal((50, 8))), method="spearman"), 4)
      0.7767
    """
    ra, rb = matrix_pair("rdm_a", rdm_a, "rdm_b", rdm_b)
    tol = check_real("zero_tol", zero_tol, 0.0, 1.0, lo_closed=True)
    scales = _scales(input_scale)
    return _rsa_checked(ra, rb, method=method, tol=tol, scales=scales,
                        described=(_described_rdm("rdm_a", scales[0]), _described_rdm("rdm_b", scales[1])))


def _described_rdm(name: str, scale: float) -> tuple[str, str]:
    """How :func:`rsa` words its two refusals for the RDM argument ``name`` (templates of
    :func:`_rsa_checked`): all entries rounding noise; constant."""
    return (f"{name} is constant to rounding: every entry is rounding noise (max |d| = {{top:.3g}} <= {{noise:.3g}} = "
            f"{RDM_NOISE_ULPS} ulps of its input scale {scale:g}): RSA is undefined (C10); pass input_scale= if the "
            "patterns were not of unit scale",
            f"{name} is constant (all distances equal, to rounding at its input scale): RSA is undefined (C10)")


def _rsa_checked(ra: np.ndarray, rb: np.ndarray, *, method: str, tol: float, scales: tuple[float, float],
                 described: tuple[tuple[str, str], tuple[str, str]]) -> float:
    """RSA of two validated square RDMs. ``described[k]`` holds the two refusals for RDM k (every
    entry rounding noise, with ``{top}`` and ``{noise}`` fields; constant), so each caller names its
    own arguments (``rdm_a`` for :func:`rsa`, ``sigma_a`` for :func:`rsa_from_similarity`)."""
    if ra.shape[0] < 3:
        raise ValueError(f"m={ra.shape[0]}: RSA needs at least 3 conditions (2 distances)")
    if method not in ("pearson", "spearman"):
        raise ValueError(f"method={method!r} must be 'pearson' or 'spearman'")
    vecs = []
    for (all_noise, constant), r, scale in zip(described, (ra, rb), scales):
        v = upper_triangle(r)
        noise = RDM_NOISE_ULPS * EPS * scale
        top = float(np.max(np.abs(v)))
        if top <= noise:
            raise ValueError(all_noise.format(top=top, noise=noise))
        v = canonical_zeros(v, max(noise, tol * top))
        if method == "spearman":
            v = rank_with_ties(v, noise)
        else:
            v, noise = pow2_scale(v), noise * (2.0 ** -math.frexp(top)[1])
        vc = v - v.mean()
        flat = np.linalg.norm(vc) <= (noise * math.sqrt(v.size) if method == "pearson" else 0.0)
        if flat or constant_to_rounding(np.linalg.norm(vc), np.linalg.norm(v)):
            raise ValueError(constant)
        vecs.append(pow2_scale(vc))
    ac, bc = vecs
    return float(np.clip(ac @ bc / (np.linalg.norm(ac) * np.linalg.norm(bc)), -1.0, 1.0))


def rsa_r(sigma_cl, sigma_nscl) -> float:
    """``r_T = ||b - a||_2 / (sqrt(M) sigma_a)`` with a, b the upper triangles of ``1 - Sigma`` (B5).

    ``sigma_a`` is the population std (ddof 0) of a. The corollary: ``RSA >= (1 - r)/(1 + r)``.
    Raises: ValueError for shapes, NaN/inf, or a constant CL RDM (sigma_a = 0).
    """
    s1, s2 = matrix_pair("sigma_cl", sigma_cl, "sigma_nscl", sigma_nscl)
    a = upper_triangle(1.0 - s1)
    b = upper_triangle(1.0 - s2)
    sd = float(np.std(a))
    if sd <= _REL_TOL * max(np.abs(a).max(), 1e-300):
        raise ValueError("sigma_cl gives a constant RDM (sigma_a = 0): r is undefined (C10)")
    return float(np.linalg.norm(b - a) / (math.sqrt(a.size) * sd))


def rsa_from_similarity(sigma_a, sigma_b, *, method: Literal["pearson", "spearman"] = "pearson") -> float:
    """RSA of the RDMs ``1 - sigma_a`` and ``1 - sigma_b`` (m, m); see :func:`rsa`.

    The input scale of each RDM is ``max(1, max|sigma|)``: ``1 - sigma`` is known to a few ulps of it,
    so distances at rounding level are noise, not signal, and ties are those of the similarities.

    Args:
      sigma_a, sigma_b: real float arrays (m, m), m >= 3, finite: similarity matrices (cosine Grams,
        Sigma of Paper B); only the strict upper triangle is read.
      method: ``"pearson"`` (Paper B) or ``"spearman"``.
    Returns: float in [-1, 1].
    Raises:
      ValueError: shapes, NaN/inf, complex input, m < 3, an unknown method; a similarity matrix whose
        off-diagonal entries all equal 1 to rounding (``1 - sigma`` is rounding noise) or are all
        equal (a constant RDM: RSA undefined, C10); the message names ``sigma_a`` or ``sigma_b``.
    Source: Kriegeskorte et al. 2008; docs/theorems.md B5.
    """
    a, b = matrix_pair("sigma_a", sigma_a, "sigma_b", sigma_b)
    scales = (max(1.0, float(np.max(np.abs(a)))), max(1.0, float(np.max(np.abs(b)))))
    described = tuple((f"{name} equals 1 off the diagonal to rounding: every distance of 1 - {name} is rounding "
                       f"noise (max |1 - {name}| = {{top:.3g}} <= {{noise:.3g}} = {RDM_NOISE_ULPS} ulps of max(1, "
                       f"max|{name}|) = {scale:g}): RSA is undefined (C10)",
                       f"{name} is constant off the diagonal (every distance of 1 - {name} is equal, to rounding): "
                       "RSA is undefined (C10)")
                      for name, scale in (("sigma_a", scales[0]), ("sigma_b", scales[1])))
    return _rsa_checked(1.0 - a, 1.0 - b, method=method, tol=1e-12, scales=scales, described=described)
