"""Hypothesis strategies for contrastive-learning theory (public API, ``st.``-style).

Use them in your own property tests::

    from hypothesis import given
    from contrastive_bounds.properties import strategies as cbst

    @given(cbst.embedding_pairs(), cbst.labels(num_classes=4))
    def test_mine(pair, y): ...

Shapes are drawn from a few buckets (``SIZE_BUCKETS``, ``DIM_BUCKETS``) so that jitted JAX code
compiles once per bucket rather than once per example (docs/reference-values.md C14). Arrays are float64 numpy.

Importing this module registers the package's Hypothesis profiles ``contrastive-bounds-ci``,
``contrastive-bounds-dev`` and ``contrastive-bounds-thorough`` (see
:mod:`contrastive_bounds.properties.profiles`); it loads one only when ``HYPOTHESIS_PROFILE`` names
one of them. Select one with ``HYPOTHESIS_PROFILE=contrastive-bounds-ci pytest`` or
``settings.load_profile("contrastive-bounds-thorough")``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

import contrastive_bounds.properties.profiles  # noqa: F401  (registers the package's profiles; loads none unasked)

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
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    c = draw(fourier_coefficients(max_order))
    return get_landscape("fourier", cos=c["cos"], sin=c["sin"])


@st.composite
def barrier_landscapes(draw: Any, heights: tuple[float, float] = (0.2, 10.0)) -> Any:
    """An S¹ landscape of the ``barrier-H`` family with KNOWN critical height H (``.critical_height``)."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

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
    """A logarithmic or fixed :class:`~contrastive_bounds.theory.Schedule` in one of ``forms``.

    Every schedule drawn is valid (finite, positive temperature) on ``[1, inf)``; all but the
    ``generator`` form (beta(0) = 0 by definition) are valid from ``t = 0``.
    """
    from contrastive_bounds.theory._schedules import make_schedule

    form = draw(st.sampled_from(list(forms or _SCHEDULE_PARAMS)))
    params = {k: draw(st.floats(lo, hi)) for k, (lo, hi) in _SCHEDULE_PARAMS[form].items()}
    return make_schedule(form, **params)


_DEFAULT_BOX: tuple[float, float] = (1e-3, 1e4)


def _intersect(name: str, param: Any, lo: float, hi: float, what: str) -> tuple[float, bool, float, bool]:
    """The closed box ``[lo, hi]`` intersected with ``param``'s domain: ``(lo, lo_closed, hi, hi_closed)``.

    A box end inside the domain is closed; where the domain's end binds, the domain's openness is kept
    (so an open end such as tau's 0 is never drawn). Infinite ends are open. Raises ValueError naming
    ``what`` when the intersection holds no number (no integer, for an integer parameter).
    """
    dom = param.domain
    if lo > dom.lo:
        a, a_closed = lo, math.isfinite(lo)
    elif lo < dom.lo:
        a, a_closed = dom.lo, dom.lo_closed and math.isfinite(dom.lo)
    else:
        a, a_closed = lo, dom.lo_closed and math.isfinite(lo)
    if hi < dom.hi:
        b, b_closed = hi, math.isfinite(hi)
    elif hi > dom.hi:
        b, b_closed = dom.hi, dom.hi_closed and math.isfinite(dom.hi)
    else:
        b, b_closed = hi, dom.hi_closed and math.isfinite(hi)
    empty = a > b or (a == b and not (a_closed and b_closed))
    if not empty and param.integer:
        ia, ib = _int_range(a, a_closed, b, b_closed)
        empty = ia is not None and ib is not None and ia > ib
    if empty:
        raise ValueError(
            f"{what}[{name!r}]=({lo!r}, {hi!r}) does not meet {name}'s domain {dom}"
            + (" (no integer in it)" if param.integer else "")
        )
    return a, a_closed, b, b_closed


def _int_range(a: float, a_closed: bool, b: float, b_closed: bool) -> tuple[int | None, int | None]:
    """Smallest and largest integers in the interval; ``None`` for an infinite end (never ``int(inf)``)."""
    ia = None
    if math.isfinite(a):
        ia = math.ceil(a)
        if ia == a and not a_closed:
            ia += 1
    ib = None
    if math.isfinite(b):
        ib = math.floor(b)
        if ib == b and not b_closed:
            ib -= 1
    return ia, ib


def _real_strategy(a: float, a_closed: bool, b: float, b_closed: bool) -> st.SearchStrategy[float]:
    """Finite floats in the interval; log-uniform when both ends are positive and finite and span > 100x."""
    lo = a if a_closed or not math.isfinite(a) else math.nextafter(a, math.inf)
    hi = b if b_closed or not math.isfinite(b) else math.nextafter(b, -math.inf)
    if lo > 0 and math.isfinite(hi) and hi / lo > 100:
        return st.floats(math.log(lo), math.log(hi)).map(lambda v: min(max(math.exp(v), lo), hi))
    return st.floats(lo if math.isfinite(lo) else None, hi if math.isfinite(hi) else None,
                     allow_nan=False, allow_infinity=False)


def bound_params(bound: Any, *, box: dict[str, tuple[float, float]] | None = None,
                 non_vacuous: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Points inside ``bound``'s parameter domains (a :class:`~contrastive_bounds.theory.Bound`).

    Each parameter is drawn from a range *intersected with its domain*, so every point drawn is
    valid for ``bound.evaluate``: open domain ends are respected (``tau`` in (0, inf) never gets 0),
    integer parameters get integers.

    Args:
      bound: a ``Bound`` (anything with ``.params``, each a ``Param`` with ``name``, ``domain``
        and ``integer``, and ``.evaluate``).
      box: optional ``{name: (lo, hi)}``, a closed range per parameter, ``lo <= hi``, real, not
        NaN; ``-inf``/``inf`` allowed (for an integer parameter an infinite end is unbounded). It is
        intersected with the parameter's domain (``{"tau": (-1.0, 1.0)}`` draws tau in (0, 1]).
        Parameters not in ``box`` use their domain clipped to [1e-3, 1e4] (the whole domain if that
        clip is empty).
      non_vacuous: reject (``assume``) points where the bound is vacuous.

    Returns:
      A strategy of ``{name: value}`` dicts (float for real parameters, int for integer ones).
      Positive real ranges spanning more than a factor 100 are drawn log-uniformly.

    Raises:
      ValueError: when the strategy is built (not at draw time): ``box`` names a parameter that
        ``bound`` does not have, an entry is not a pair of real numbers with ``lo <= hi``, or its
        intersection with the domain is empty (no integer in it, for an integer parameter); the
        message names ``box``, the parameter and its domain.
    """
    box = dict(box or {})
    names = [p.name for p in bound.params]
    unknown = sorted(set(box) - set(names))
    if unknown:
        raise ValueError(f"box names {unknown}, not parameters of {getattr(bound, 'name', bound)!r}; known: {names}")
    plans: list[tuple[str, bool, tuple[float, bool, float, bool]]] = []
    for p in bound.params:
        if p.name in box:
            try:
                if isinstance(box[p.name], (str, bytes)):
                    raise TypeError
                lo, hi = (float(v) for v in box[p.name])
            except (TypeError, ValueError):
                raise ValueError(f"box[{p.name!r}]={box[p.name]!r} must be a pair (lo, hi) of real numbers") from None
            if math.isnan(lo) or math.isnan(hi) or lo > hi:
                raise ValueError(f"box[{p.name!r}]=({lo!r}, {hi!r}) must have lo <= hi, neither NaN")
            ends = _intersect(p.name, p, lo, hi, "box")
        else:
            try:
                ends = _intersect(p.name, p, *_DEFAULT_BOX, "default box")
            except ValueError:
                ends = _intersect(p.name, p, -math.inf, math.inf, "domain")
        plans.append((p.name, p.integer, ends))

    @st.composite
    def draw_point(draw: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, integer, (a, a_closed, b, b_closed) in plans:
            if integer:
                out[name] = draw(st.integers(*_int_range(a, a_closed, b, b_closed)))
            else:
                out[name] = draw(_real_strategy(a, a_closed, b, b_closed))
        if non_vacuous:
            assume(not bound.evaluate(digits=15, **out).vacuous)
        return out

    return draw_point()
