"""Hypothesis strategies for contrastive-learning theory (public API, ``st.``-style).

Use them in your own property tests::

    from hypothesis import given
    from contrastive_bounds.properties import strategies as cbst

    @given(cbst.embedding_pairs(), cbst.labels(num_classes=4))
    def test_mine(pair, y): ...

Shapes are drawn from a few buckets (``SIZE_BUCKETS``, ``DIM_BUCKETS``) so that jitted JAX code
compiles once per bucket rather than once per example (CASES.md C14). Arrays are float64 numpy.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

__all__ = ["SIZE_BUCKETS", "DIM_BUCKETS", "sphere_points", "product_sphere_points", "embedding_pairs", "labels",
           "cosine_grams", "gram_pairs", "fourier_coefficients", "fourier_landscapes", "barrier_landscapes",
           "vmf_mixtures", "schedules", "bound_params", "matrix_pairs"]

SIZE_BUCKETS: tuple[int, ...] = (8, 16, 32)
DIM_BUCKETS: tuple[int, ...] = (3, 8)


def _normal_array(draw: Any, shape: tuple[int, ...], seed_space: int = 2**32 - 1) -> np.ndarray:
    # a seed drawn by hypothesis keeps shrinking meaningful and avoids drawing thousands of floats
    seed = draw(st.integers(0, seed_space))
    return np.random.default_rng(seed).standard_normal(shape)


@st.composite
def sphere_points(draw: Any, n: int | None = None, dim: int | None = None) -> np.ndarray:
    """Points on S^{dim-1}: float64 array (n, dim), unit rows (n, dim from the buckets if None)."""
    n = draw(st.sampled_from(SIZE_BUCKETS)) if n is None else n
    dim = draw(st.sampled_from(DIM_BUCKETS)) if dim is None else dim
    x = _normal_array(draw, (n, dim))
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    assume(np.all(norms > 1e-6))
    return x / norms


@st.composite
def product_sphere_points(draw: Any, num_points: int, dim: int, chains: int | None = None) -> np.ndarray:
    """States on (S^{dim-1})^num_points: shape (num_points, dim), or (chains, num_points, dim)."""
    lead = () if chains is None else (chains,)
    x = _normal_array(draw, lead + (num_points, dim))
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    assume(np.all(norms > 1e-6))
    return x / norms


@st.composite
def embedding_pairs(draw: Any, n: int | None = None, dim: int | None = None,
                    view_noise: tuple[float, float] = (0.0, 2.0)) -> tuple[np.ndarray, np.ndarray]:
    """Two views (z1, z2) of n samples on S^{dim-1}, each (n, dim) float64; z2 = normalize(z1 + noise)."""
    n = draw(st.sampled_from(SIZE_BUCKETS)) if n is None else n
    dim = draw(st.sampled_from(DIM_BUCKETS)) if dim is None else dim
    z1 = draw(sphere_points(n, dim))
    noise = draw(st.floats(*view_noise))
    z2 = z1 + noise * _normal_array(draw, (n, dim))
    norms = np.linalg.norm(z2, axis=1, keepdims=True)
    assume(np.all(norms > 1e-6))
    return z1, z2 / norms


@st.composite
def labels(draw: Any, n: int | None = None, num_classes: int | None = None, balanced: bool | None = None) -> np.ndarray:
    """Integer labels (n,) in {0..C-1}, every class present; balanced (equal counts up to 1) or skewed.

    Raises (at draw time): ValueError when ``num_classes < 2`` or ``n < num_classes``.
    """
    n = draw(st.sampled_from(SIZE_BUCKETS)) if n is None else n
    c = draw(st.integers(2, min(8, n))) if num_classes is None else num_classes
    if c < 2 or n < c:
        raise ValueError(f"labels needs 2 <= num_classes <= n, got num_classes={c}, n={n}")
    bal = draw(st.booleans()) if balanced is None else balanced
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if bal:
        y = np.arange(n) % c
    else:
        w = rng.dirichlet(np.full(c, 0.5))
        y = np.concatenate([np.arange(c), rng.choice(c, size=n - c, p=w)])
    return rng.permutation(y).astype(np.int64)


@st.composite
def cosine_grams(draw: Any, m: int | None = None, dim: int | None = None) -> np.ndarray:
    """A cosine Gram matrix (m, m): symmetric PSD, unit diagonal, entries in [-1, 1]."""
    z = draw(sphere_points(m, dim))
    g = np.clip(z @ z.T, -1.0, 1.0)
    np.fill_diagonal(g, 1.0)
    return g


@st.composite
def gram_pairs(draw: Any, m: int | None = None, dim: int | None = None, max_perturbation: float = 1.0,
               min_perturbation: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Two cosine Grams of the same m points, the second from perturbed points (close to far apart).

    The perturbation scale is drawn from ``[min_perturbation, max_perturbation]``.
    """
    m = draw(st.sampled_from(SIZE_BUCKETS)) if m is None else m
    dim = draw(st.sampled_from(DIM_BUCKETS)) if dim is None else dim
    z = draw(sphere_points(m, dim))
    eps = draw(st.floats(min_perturbation, max_perturbation))
    z2 = z + eps * _normal_array(draw, (m, dim))
    norms = np.linalg.norm(z2, axis=1, keepdims=True)
    assume(np.all(norms > 1e-6))
    z2 = z2 / norms
    return np.clip(z @ z.T, -1, 1), np.clip(z2 @ z2.T, -1, 1)


@st.composite
def matrix_pairs(draw: Any, m: int | None = None, scale: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Any two real (m, m) matrices (not necessarily PSD): the corollary inequalities hold for all."""
    m = draw(st.sampled_from(SIZE_BUCKETS)) if m is None else m
    a = _normal_array(draw, (m, m)) * draw(st.floats(0.01, scale))
    b = a + _normal_array(draw, (m, m)) * draw(st.floats(0.0, scale))
    return a, b


@st.composite
def fourier_coefficients(draw: Any, max_order: int = 4, amplitude: float = 2.0) -> dict[str, dict[int, float]]:
    """Random S¹ Fourier coefficients {"cos": {k: a_k}, "sin": {k: b_k}}, 1 <= k <= max_order."""
    order = draw(st.integers(1, max_order))
    cos = {k: draw(st.floats(-amplitude, amplitude)) for k in range(1, order + 1)}
    sin = {k: draw(st.floats(-amplitude, amplitude)) for k in range(1, order + 1)}
    assume(sum(abs(v) for v in cos.values()) + sum(abs(v) for v in sin.values()) > 1e-3)
    return {"cos": cos, "sin": sin}


@st.composite
def fourier_landscapes(draw: Any, max_order: int = 4) -> Any:
    """A random S¹ :class:`~contrastive_bounds.numerics.landscapes.Landscape` from Fourier coefficients."""
    from contrastive_bounds.numerics.landscapes import get_landscape

    c = draw(fourier_coefficients(max_order))
    return get_landscape("fourier", cos=c["cos"], sin=c["sin"])


@st.composite
def barrier_landscapes(draw: Any, heights: tuple[float, float] = (0.2, 10.0)) -> Any:
    """An S¹ landscape of the ``barrier-H`` family with KNOWN critical height H (``.critical_height``)."""
    from contrastive_bounds.numerics.landscapes import get_landscape

    h = draw(st.floats(*heights))
    return get_landscape("barrier-H", H=h)


@st.composite
def vmf_mixtures(draw: Any, max_components: int = 3, kappa: tuple[float, float] = (0.5, 20.0)) -> dict[str, np.ndarray]:
    """Parameters of a von Mises-Fisher mixture on S²: means (k, 3) unit, kappas (k,), weights (k,) summing to 1."""
    k = draw(st.integers(1, max_components))
    means = draw(sphere_points(k, 3))
    kappas = np.array([draw(st.floats(*kappa)) for _ in range(k)])
    w = np.array([draw(st.floats(0.1, 1.0)) for _ in range(k)])
    return {"means": means, "kappas": kappas, "weights": w / w.sum()}


_SCHEDULE_PARAMS: dict[str, dict[str, tuple[float, float]]] = {
    "fixed": {"c": (0.05, 5.0)},
    "temperature": {"c": (0.1, 10.0), "t0": (2.0, 10.0)},
    "inverse-temperature": {"c": (0.1, 10.0), "t0": (2.0, 10.0)},
    "author": {"c": (0.1, 10.0), "t0": (2.0, 10.0)},
    "noise": {"c": (0.2, 20.0), "t0": (2.0, 10.0)},
    "generator": {"c": (0.1, 10.0)},
}


@st.composite
def schedules(draw: Any, forms: Sequence[str] | None = None) -> Any:
    """A logarithmic or fixed :class:`~contrastive_bounds.theory.annealing.Schedule` in one of ``forms``.

    Every schedule drawn is valid (finite, positive temperature) on ``[1, inf)``; all but the
    ``generator`` form (beta(0) = 0 by definition) are valid from ``t = 0``.
    """
    from contrastive_bounds.theory.annealing import make_schedule

    form = draw(st.sampled_from(list(forms or _SCHEDULE_PARAMS)))
    params = {k: draw(st.floats(lo, hi)) for k, (lo, hi) in _SCHEDULE_PARAMS[form].items()}
    return make_schedule(form, **params)


@st.composite
def bound_params(draw: Any, bound: Any, *, box: dict[str, tuple[float, float]] | None = None,
                 non_vacuous: bool = False) -> dict[str, Any]:
    """A point inside ``bound``'s parameter domains (a :class:`~contrastive_bounds.theory.bound.Bound`).

    Ranges default to each domain clipped to [1e-3, 1e4] (log-uniform for positive reals); ``box``
    overrides per parameter. ``non_vacuous=True`` rejects vacuous points.
    """
    out: dict[str, Any] = {}
    for p in bound.params:
        lo, hi = (box or {}).get(p.name, (max(p.domain.lo, 1e-3), min(p.domain.hi, 1e4)))
        if p.integer:
            out[p.name] = draw(st.integers(int(math.ceil(max(lo, p.domain.lo))), int(hi)))
        else:
            lo_open = lo if lo > p.domain.lo or p.domain.lo_closed else math.nextafter(lo, math.inf)
            hi_open = hi if hi < p.domain.hi or p.domain.hi_closed else math.nextafter(hi, -math.inf)
            if lo_open > 0 and hi_open / lo_open > 100:
                out[p.name] = math.exp(draw(st.floats(math.log(lo_open), math.log(hi_open))))
            else:
                out[p.name] = draw(st.floats(lo_open, hi_open))
    if non_vacuous:
        assume(not bound.evaluate(digits=15, **out).vacuous)
    return out
