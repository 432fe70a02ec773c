"""Tools for critical points at large N: Newton–CG polish, multiplicities and class tests without isomorphisms (A9).

* :func:`newton_polish` — Newton's method with conjugate gradients on the deflated Riemannian Hessian
  (Hessian–vector products only), to bring an L-BFGS minimum from its rounding floor to ``|grad V| ~ 1e-13``;
* :func:`multiplicity_at_scale` — configurations modulo ``O(d)`` in a symmetry orbit from colour refinement and
  the closed-form group order (the exact orbit–stabiliser count of :mod:`.network.symmetry` up to
  ``EXACT_MULTIPLICITY_MAX_POINTS`` points);
* :func:`same_gram` — equal sorted Gram entries, the class test above that size (a necessary condition).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.network.constants import DEFAULT_GRAM_TOL
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["newton_polish", "multiplicity_at_scale", "same_gram", "EXACT_MULTIPLICITY_MAX_POINTS"]


def _labels(g: np.ndarray, sym: Any, tol: float) -> np.ndarray:
    """Integer labels of the Gram entries (sorted values split where consecutive gaps exceed ``tol``), doubled, plus 1
    on the positive pairs: the labelled complete graph of :mod:`.network.symmetry`."""
    n = g.shape[0]
    flat = g.reshape(-1)
    order = np.argsort(flat, kind="stable")
    lab = np.empty(flat.size, dtype=np.int64)
    lab[order] = np.concatenate([[0], np.cumsum(np.diff(flat[order]) > tol)])
    flags = np.zeros((n, n), dtype=np.int64)
    for i, j in sym.pairs:
        flags[i, j] = flags[j, i] = 1
    return 2 * lab.reshape(n, n) + flags


def newton_polish(potential: Any, z: Any, *, steps: int = 4, orthogonal: bool = True) -> tuple[np.ndarray, float]:
    """Newton's method on the deflated Riemannian Hessian with conjugate gradients (Newton–CG, Nocedal & Wright,
    Numerical Optimization, Alg. 7.1, each system solved to 1e-12): ``z ← R_z(−H⁻¹ grad V)``, ``steps`` times, from a
    point in the quadratic basin of a non-degenerate minimum (CG needs the deflated Hessian positive definite there).
    Hessian–vector products only; one compiled step per (potential, symmetry flag).

    Args:
      potential: pure JAX ``V``. z: ``(N, d)`` float64 unit rows. steps: Newton steps (>= 0). orthogonal: ``V`` is
        ``O(d)``-invariant (the rotation modes are deflated).

    Returns:
      ``(z (N, d), |grad V|_2)`` at the end.

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.trap_tools.newton_polish")
    step = _newton_step(potential, bool(orthogonal))
    x = jnp.asarray(np.asarray(z, dtype=np.float64))
    for _ in range(int(steps)):
        x = step(x)
    from contrastive_bounds.numerics.landscapes.hessfree.operators import riemannian_gradient

    return np.asarray(x), float(jnp.linalg.norm(riemannian_gradient(potential, x)[1]))


@functools.lru_cache(maxsize=16)
def _newton_step(potential: Any, orthogonal: bool) -> Any:
    from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian
    from contrastive_bounds.numerics._sphere import retract

    @jax.jit
    def step(x: jax.Array) -> jax.Array:
        op = deflated_hessian(potential, x, orthogonal)
        g = op.project(op.gradient)
        dx, _ = jax.scipy.sparse.linalg.cg(op.matvec, -g, tol=1e-12, maxiter=2000)
        return retract(x, op.project(dx))

    return step


#: up to this N the exact orbit–stabiliser count of :func:`~.network.symmetry.multiplicity` is used
EXACT_MULTIPLICITY_MAX_POINTS = 24


def _group_order(sym: Any, n: int) -> int | None:
    """``|Π|`` in closed form: ``n!`` (all permutations), ``P!·2^P`` (``P`` disjoint pairs covering the points),
    1 (none); None otherwise."""
    if sym.permutations == "none":
        return 1
    if sym.permutations == "all":
        return math.factorial(n)
    pts = [i for p in sym.pairs for i in p]
    if len(pts) == n and len(set(pts)) == n:
        return math.factorial(len(sym.pairs)) * 2 ** len(sym.pairs)
    return None


def multiplicity_at_scale(spec: Any, z: Any) -> int | None:
    """Configurations modulo ``O(d)`` in the symmetry orbit of ``z``, or None when not computed.

    Up to ``EXACT_MULTIPLICITY_MAX_POINTS`` points: :func:`~.network.symmetry.multiplicity`. Above: ``|Π|/|Stab|``
    with ``|Π|`` in closed form (all permutations, or ``P!·2^P`` for disjoint pairs covering the points; other pair
    graphs: None) and ``|Stab|`` from 1-dimensional Weisfeiler–Leman colours of the labelled Gram graph (automorphism
    invariant: a stabilising permutation maps each point to one of its colour): when every colour class is one
    point, or the two ends of a pair whose Gram rows are equal within the tolerance (a collapsed pair), every
    stabilising permutation is a product of swaps of those pairs and every such product stabilises, so
    ``|Stab| = 2^(collapsed pairs)``; any other colour class: None ("multiplicity not computed").
    """
    from contrastive_bounds.numerics.landscapes.network.symmetry import multiplicity, wl_colors

    a = np.asarray(z, dtype=np.float64)
    n = a.shape[0]
    sym = spec.symmetry
    if n <= EXACT_MULTIPLICITY_MAX_POINTS or not sym.orthogonal:
        return int(multiplicity(a, sym))
    order = _group_order(sym, n)
    if order is None:
        return None
    g = a @ a.T
    lab = _labels(g, sym, DEFAULT_GRAM_TOL)
    colors = wl_colors(lab)
    partner = {i: j for p in sym.pairs for i, j in (p, p[::-1])}
    swaps = 0
    for c in np.unique(colors):
        members = np.flatnonzero(colors == c).tolist()
        if len(members) == 1:
            continue
        if len(members) == 2 and partner.get(members[0]) == members[1] \
                and np.max(np.abs(g[members[0]] - g[members[1]])) <= DEFAULT_GRAM_TOL:
            swaps += 1
            continue
        return None
    return order // 2 ** swaps


def same_gram(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal sorted Gram entries within ``4·DEFAULT_GRAM_TOL`` (a necessary condition for equivalence)."""
    ga, gb = a @ a.T, b @ b.T
    iu = np.triu_indices(ga.shape[0], 1)
    return bool(np.max(np.abs(np.sort(ga[iu]) - np.sort(gb[iu]))) <= 4 * DEFAULT_GRAM_TOL)
