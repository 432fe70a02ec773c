"""Compare two users' embeddings of the same n inputs (CL vs NSCL): CKA, RSA, rho, r and Paper B's corollaries.

Everything is computed in *feature form*, O(n d^2) time and O(n d) memory, never an n x n matrix, so
n = 10^5 is routine. With U, V the unit-normalised rows (Sigma = U U^T, the cosine Gram of B5):

* CKA on cosine Grams (Paper B): linear CKA of U and V, biased and debiased (``similarity.linear_cka``,
  feature form); plain linear CKA of the raw features as well (Kornblith et al. 2019).
* rho = ||H(UU^T - VV^T)H||_F / ||H UU^T H||_F from d x d products of the centred rows Uc, Vc:
  ||UcUc^T - VcVc^T||^2 = ||Uc^T Uc||^2 + ||Vc^T Vc||^2 - 2 ||Uc^T Vc||^2, or, when d1 = d2, the
  cancellation-free ``(1/2)[tr(D^T D P^T P) + tr((P^T D)^2)]`` with D = Uc - Vc, P = Uc + Vc.
* RSA (Pearson) of the RDMs 1 - Sigma over the M = n(n-1)/2 pairs from pair sums:
  sum_{i<j} s_ij = (||sum_i u_i||^2 - n)/2, sum_{i<j} s_ij t_ij = (||U^T V||_F^2 - n)/2, etc.;
  r = ||b - a||/(sqrt(M) sigma_a) with ||b - a||^2 = ||UU^T - VV^T||_F^2 / 2 (equal unit diagonals).
* RSA (Spearman) needs ranks of all M distances: exact up to ``spearman_max_pairs`` pairs, otherwise on a
  seeded uniform subsample of rows (said in the output).
* Lower bounds (B5): CKA >= (1 - rho)/(1 + rho), RSA >= (1 - r)/(1 + r), and the sharp sqrt(1 - x^2)
  forms; vacuous (with the reason) when rho or r >= 1.

For n <= ``cross_check_max_n`` every quantity is recomputed from the n x n Grams with
:mod:`.similarity` (the second way) and the largest difference is reported.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from contrastive_bounds import theory as alignment
from contrastive_bounds.theory._domains import check_int, check_seed

from contrastive_bounds.numerics.alignment._cka import cka_rho, cosine_gram_cka, linear_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r

__all__ = ["load_embeddings", "load_labels", "compare_embeddings", "feature_rho", "feature_pair_stats",
           "MAX_SPEARMAN_SAMPLE", "MAX_SPEARMAN_PAIRS"]


MAX_SPEARMAN_SAMPLE = 5000
"""Most rows of the Spearman subsample: its ranks need n(n-1)/2 distances and a few n x n float64
matrices (about 1 GiB at 5000 rows)."""
MAX_SPEARMAN_PAIRS = MAX_SPEARMAN_SAMPLE * (MAX_SPEARMAN_SAMPLE - 1) // 2
"""Most pairs ranked exactly (the same memory as :data:`MAX_SPEARMAN_SAMPLE` rows)."""


def load_embeddings(path: str, name: str, key: str | None = None) -> np.ndarray:
    """Read an (n, d) real array (rows = samples, columns = features) from ``.npy`` or ``.npz`` as float64.

    The file is read by :func:`~contrastive_bounds.numerics.read_array` (never unpickled).
    A ``.npz`` must hold one array, or ``key`` must name one.

    Args:
      path: the file. name: how messages call it (``"CL"``, ``"NSCL"``). key: the array of a ``.npz``.
    Returns:
      float64 array (n, d), n >= 4, d >= 1, finite, no zero row.
    Raises:
      ValueError: naming ``name`` and the path: a missing, empty, text, pickled, damaged or truncated
        file; an ambiguous ``.npz``; a non-real array; not 2-D (a 1-D array of n values is refused, not
        read as n x 1: one feature gives cosine similarities of +-1 only); n < 4; no feature; a
        non-finite value or a zero row (its cosine similarities are undefined).
    """
    from contrastive_bounds.numerics._arrayfiles import read_array

    arr = read_array(path, name, key=key)
    if arr.dtype.kind not in "fiub":
        raise ValueError(f"{name}={path!r} has dtype {arr.dtype}: a real numeric array is needed")
    if arr.ndim == 1:
        raise ValueError(f"{name}={path!r} is 1-D (shape {arr.shape}): embeddings must be 2-D, (n samples, d features); "
                         "if one feature per sample is really meant, save x[:, None] (every cosine similarity is then "
                         "+-1)")
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"{name}={path!r} must be 2-D (rows = samples, columns = features); got shape {arr.shape}")
    arr = np.asarray(arr, np.float64)
    if arr.shape[0] < 4:
        raise ValueError(f"{name}={path!r} has n={arr.shape[0]} rows; at least 4 samples are needed")
    bad = ~np.all(np.isfinite(arr), axis=1)
    if np.any(bad):
        raise ValueError(f"{name}={path!r} has a non-finite value in row {int(np.argmax(bad))}")
    zero = ~np.any(arr != 0, axis=1)
    if np.any(zero):
        raise ValueError(f"{name}={path!r} has a zero row at index {int(np.argmax(zero))}: its cosine similarity "
                         "is undefined")
    return arr


def load_labels(path: str, n: int, name: str = "labels") -> np.ndarray:
    """Integer class labels of shape (n,) from ``.npy`` or a one-array ``.npz`` (never unpickled).

    Args:
      path: the file. n: the number of samples (rows of the embeddings). name: how messages call it.
    Returns:
      integer array (n,) with at least 2 classes.
    Raises:
      ValueError: naming ``name``: an unreadable file (as :func:`load_embeddings`), a ``.npz`` with
        several arrays, a shape other than (n,) (an (n, 1) column included: save ``labels.ravel()``),
        a non-integer dtype, or a single class.
    """
    from contrastive_bounds.numerics._arrayfiles import read_array

    y = read_array(path, name)
    if y.dtype.kind not in "iu":
        raise ValueError(f"{name}={path!r} has dtype {y.dtype}: labels must be integers (save labels.astype(int) if "
                         "they are whole numbers)")
    if y.shape != (n,):
        hint = "; save labels.ravel()" if y.size == n else ""
        raise ValueError(f"{name}={path!r} has shape {y.shape}: labels must be 1-D of shape ({n},), one per sample{hint}")
    if np.unique(y).size < 2:
        raise ValueError(f"{name}={path!r} holds a single class; at least 2 are needed")
    return y


def _unit(x: np.ndarray) -> np.ndarray:
    top = np.max(np.abs(x), axis=1, keepdims=True)
    x = x / top  # exact enough: a rescaling that only protects the norm from overflow
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _gram_diff_sq(a: np.ndarray, b: np.ndarray) -> float:
    """||a a^T - b b^T||_F^2 without an n x n matrix."""
    if a.shape == b.shape:
        d, p = a - b, a + b
        pd = p.T @ d
        return max(0.5 * (float(np.sum((d.T @ d) * (p.T @ p))) + float(np.sum(pd * pd.T))), 0.0)
    return max(float(np.sum((a.T @ a) ** 2) + np.sum((b.T @ b) ** 2) - 2 * np.sum((a.T @ b) ** 2)), 0.0)


def feature_rho(u: np.ndarray, v: np.ndarray) -> float:
    """rho = ||HUU^TH - HVV^TH||_F / ||HUU^TH||_F from unit rows u (n, d1), v (n, d2) in O(n d^2)."""
    uc, vc = u - u.mean(0), v - v.mean(0)
    k2 = float(np.sum((uc.T @ uc) ** 2))
    if k2 <= 1e-24 * u.shape[0] ** 2:
        raise ValueError("the CL embeddings are constant after centring (all rows equal): rho is undefined")
    return math.sqrt(_gram_diff_sq(uc, vc) / k2)


def feature_pair_stats(u: np.ndarray, v: np.ndarray) -> dict[str, float]:
    """Pearson RSA of the cosine RDMs and r of B5 from pair sums over i < j (O(n d^2)).

    Raises:
      ValueError: when either RDM is constant to rounding (RSA and r undefined, C10).
    """
    n = u.shape[0]
    pairs = n * (n - 1) / 2
    su, sv = u.sum(0), v.sum(0)
    s1 = (float(su @ su) - n) / 2 / pairs
    t1 = (float(sv @ sv) - n) / 2 / pairs
    s2 = (float(np.sum((u.T @ u) ** 2)) - n) / 2 / pairs
    t2 = (float(np.sum((v.T @ v) ** 2)) - n) / 2 / pairs
    st = (float(np.sum((u.T @ v) ** 2)) - n) / 2 / pairs
    var_s, var_t, cov = s2 - s1 * s1, t2 - t1 * t1, st - s1 * t1
    for name, var, sq in (("CL", var_s, s2), ("NSCL", var_t, t2)):
        if var <= 1e-10 * max(sq, 1e-300):
            raise ValueError(f"the {name} RDM is constant to rounding (all cosine similarities equal): RSA and r "
                             "are undefined (C10)")
    diff = _gram_diff_sq(u, v) / 2  # ||b - a||^2 over i < j
    return {"rsa_pearson": max(-1.0, min(1.0, cov / math.sqrt(var_s * var_t))),
            "r": math.sqrt(diff / pairs) / math.sqrt(var_s)}


def _bounds(value: float, x: float, which: str) -> dict[str, Any]:
    """The corollary and sharp lower bounds at x (rho or r), vacuity from the registered bounds."""
    from contrastive_bounds.theory._registry import get

    name, sharp = (("alignment.cka_lower", alignment.cka_lower_sharp) if which == "cka"
                   else ("alignment.rsa_lower", alignment.rsa_lower_sharp))
    param = "rho" if which == "cka" else "r"
    res = get(name).evaluate(**{param: x})
    if res.vacuous:
        return {"corollary": None, "sharp": None, "vacuous": res.reason, "holds": None}
    lo, sh = alignment.cka_lower(x) if which == "cka" else alignment.rsa_lower(x), float(sharp(x))
    return {"corollary": lo, "sharp": sh, "vacuous": None, "holds": bool(value >= sh - 1e-9 and value >= lo - 1e-9)}


def _spearman(u, v, max_pairs: int, sample: int, seed: int) -> dict[str, Any]:
    n = u.shape[0]
    if n * (n - 1) // 2 <= max_pairs:
        idx, how = np.arange(n), "exact"
    else:
        idx = np.sort(np.random.default_rng(seed).choice(n, size=min(sample, n), replace=False))
        how = f"uniform subsample of {idx.size} of {n} rows (seed {seed}): exact ranks of all pairs would need n^2/2 values"
    a, b = u[idx], v[idx]
    return {"value": rsa_from_similarity(np.clip(a @ a.T, -1, 1), np.clip(b @ b.T, -1, 1), method="spearman"),
            "method": how, "rows": int(idx.size)}


def compare_embeddings(x_cl: np.ndarray, x_nscl: np.ndarray, labels: np.ndarray | None = None, *,
                       spearman_max_pairs: int = 5_000_000, spearman_sample: int = 3000, seed: int = 0,
                       cross_check_max_n: int = 2000) -> dict[str, Any]:
    """Alignment of two representations of the same n inputs (rows = samples), all in feature form.

    Args:
      x_cl, x_nscl: float arrays (n, d1), (n, d2), finite, no zero row (:func:`load_embeddings` checks files).
      labels: optional int (n,) classes: adds C, pi_max and each representation's CKA with the labels.
      spearman_max_pairs: exact Spearman RSA up to this many pairs, in [3, :data:`MAX_SPEARMAN_PAIRS`];
        beyond, a row subsample.
      spearman_sample: rows of that subsample, in [3, :data:`MAX_SPEARMAN_SAMPLE`] (memory: a few
        ``spearman_sample^2`` float64 matrices). seed: its seed, in [0, 2**32 - 1].
      cross_check_max_n: recompute with n x n Grams (:mod:`.similarity`) when n is at most this (>= 0).

    Returns: JSON-ready dict: ``n``, dims, ``cka`` (cosine and linear, biased and debiased), ``rsa``
      (Pearson, Spearman with its method), ``rho``, ``r``, ``bounds`` (CKA/RSA: corollary, sharp,
      vacuous reason, holds), ``cross_check`` (largest difference to the Gram forms, or None) and
      ``labels`` (or None).
    Raises:
      ValueError: for different n, bad arrays or options (naming them), constant representations.
    Source: docs/theorems.md B5 (Luthra, Mishra, Galanti, arXiv 2510.08852, Corollaries); CKA: Kornblith et al.
      2019; debiased HSIC: Song et al. 2012; RSA: Kriegeskorte et al. 2008.

    Examples:
      What ``contrastive-bounds align compare CL.npy NSCL.npy --labels y.npy`` prints, in Python:

      >>> import numpy as np
      >>> rng = np.random.default_rng(0)
      >>> x_cl = rng.standard_normal((50, 8))
      >>> x_nscl = x_cl + 0.3 * rng.standard_normal((50, 8))
      >>> out = compare_embeddings(x_cl, x_nscl, labels=np.arange(50) % 5)
      >>> print(f"CKA {out['cka']['cosine']['biased']:.4f}, RSA {out['rsa']['pearson']:.4f}, rho {out['rho']:.4f}")
      CKA 0.9292, RSA 0.9179, rho 0.3739
      >>> cka = out["bounds"]["cka"]
      >>> print(f"CKA >= {cka['corollary']:.4f} (corollary), >= {cka['sharp']:.4f} (sharp): holds {cka['holds']}")
      CKA >= 0.4557 (corollary), >= 0.9274 (sharp): holds True
    """
    x, y = np.asarray(x_cl, np.float64), np.asarray(x_nscl, np.float64)
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError(f"x_cl and x_nscl must be 2-D with the same number of rows n; got {x.shape} and {y.shape}")
    check_int("spearman_max_pairs", spearman_max_pairs, 3, MAX_SPEARMAN_PAIRS)
    check_int("spearman_sample", spearman_sample, 3, MAX_SPEARMAN_SAMPLE)
    check_int("cross_check_max_n", cross_check_max_n, 0)
    check_seed(seed)
    for name, a in (("x_cl", x), ("x_nscl", y)):
        if not np.all(np.isfinite(a)) or np.any(~np.any(a != 0, axis=1)):
            raise ValueError(f"{name} must be finite with no zero row (cosine similarities)")
    u, v = _unit(x), _unit(y)
    for name, a in (("x_cl", u), ("x_nscl", v)):
        if np.all(np.abs(a - a[0]) <= 1e-12):
            raise ValueError(f"{name} is constant: all n rows point the same way (every cosine similarity is 1), so "
                             "CKA and RSA are undefined")
    n = x.shape[0]
    cka_cos = {"biased": linear_cka(u, v, debiased=False, method="features"),
               "debiased": linear_cka(u, v, debiased=True, method="features")}
    cka_lin = {"biased": linear_cka(x, y, debiased=False, method="features"),
               "debiased": linear_cka(x, y, debiased=True, method="features")}
    rho = feature_rho(u, v)
    pair = feature_pair_stats(u, v)
    out: dict[str, Any] = {
        "n": n, "dim_cl": x.shape[1], "dim_nscl": y.shape[1],
        "cka": {"cosine": cka_cos, "linear": cka_lin},
        "rsa": {"pearson": pair["rsa_pearson"], "spearman": _spearman(u, v, spearman_max_pairs, spearman_sample, seed)},
        "rho": rho, "r": pair["r"],
        "bounds": {"cka": _bounds(cka_cos["biased"], rho, "cka"), "rsa": _bounds(pair["rsa_pearson"], pair["r"], "rsa")},
        "cross_check": None, "labels": None, "memory": "feature form: O(n d) memory, no n x n matrix",
    }
    if n <= cross_check_max_n:
        sa, sb = np.clip(u @ u.T, -1, 1), np.clip(v @ v.T, -1, 1)
        diffs = {"cka": abs(cosine_gram_cka(sa, sb) - cka_cos["biased"]), "rho": abs(cka_rho(sa, sb) - rho),
                 "r": abs(rsa_r(sa, sb) - pair["r"]), "rsa": abs(rsa_from_similarity(sa, sb) - pair["rsa_pearson"])}
        out["cross_check"] = {"max_abs_difference": max(diffs.values()), "differences": diffs}
    if labels is not None:
        lab = np.asarray(labels)
        if lab.shape != (n,) or lab.dtype.kind not in "iu":
            raise ValueError(f"labels must be an integer array of shape ({n},); got {lab.dtype} {lab.shape}")
        classes, counts = np.unique(lab, return_counts=True)
        if classes.size < 2:
            raise ValueError("labels hold a single class; at least 2 are needed")
        onehot = (lab[:, None] == classes[None, :]).astype(np.float64)
        out["labels"] = {"num_classes": int(classes.size), "pi_max": float(counts.max() / n),
                         "cka_with_labels": {"cl": linear_cka(u, onehot, debiased=False, method="features"),
                                             "nscl": linear_cka(v, onehot, debiased=False, method="features")}}
    return out
