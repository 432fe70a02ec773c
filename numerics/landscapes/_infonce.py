"""InfoNCE potentials on ``(S^{d−1})^N`` as pure JAX functions (docs/theorems.md A7).

Each builder returns ``V(z)`` for ``z`` of shape ``(N, d)`` (unit rows), a scalar of z's dtype,
jit/vmap/grad-able. ``s = z zᵀ`` are cosine similarities; positive pairs are used in both directions
(anchor i with positive j, and j with i). Negatives of anchor i in pair (i, j): every ``k ∉ {i, j}``
(N >= 3 guarantees at least one, so no log-sum-exp row is ever empty; case C06).

Examples:
  Example: N = 4 points on S¹, pairs (0, 1) and (2, 3), τ = 0.1. Each pair together and the pairs antipodal is
  the global minimum; each pair split antipodally is the trap (a local minimum):

  >>> import jax.numpy as jnp
  >>> v = infonce_potential(4, [(0, 1), (2, 3)], 0.1)
  >>> together = jnp.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
  >>> split = jnp.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
  >>> round(float(v(together)), 6), round(float(v(split)), 6)
  (-19.306853, 10.693147)

  Its transition network (:mod:`contrastive_bounds.numerics.landscapes.network`; the search compiles its
  kernels, about 20 s) finds both minima, the saddles between them and H* = 0.2819 (docs/data/landscape-values.json):

  >>> from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec, network_for
  >>> res = network_for(infonce_spec(4, 2, 0.1), SearchSettings(starts=8, seed=0))
  >>> round(res.critical_height, 4), res.status, len(res.minima)
  (0.2819, 'complete', 2)
"""

from __future__ import annotations

from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "hardest_negative_potential",
    "hardest_negative_value_and_grad",
    "soft_hardest_negative_potential",
    "infonce_potential",
]

_UNROLL_LIMIT = 512  # directed pairs × negatives up to which the hand-written U0 gradient is unrolled

_MASKED = -1e30  # finite: keeps gradients of where/logsumexp free of NaN


def _directed(num_points: int, pairs: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if num_points < 3:
        raise ValueError(f"num_points={num_points} must be >= 3 so every anchor has a negative")
    if not pairs:
        raise ValueError("pairs must contain at least one positive pair")
    anchors, positives = [], []
    for i, j in pairs:
        if i == j:
            raise ValueError(f"pair ({i}, {j}) pairs a point with itself")
        anchors += [i, j]
        positives += [j, i]
    a = np.array(anchors)
    p = np.array(positives)
    neg = np.ones((a.size, num_points), dtype=bool)
    neg[np.arange(a.size), a] = False
    neg[np.arange(a.size), p] = False
    return a, p, neg


def hardest_negative_potential(num_points: int, pairs: Sequence[tuple[int, int]]) -> Callable[[jax.Array], jax.Array]:
    """The author's U0 = mean over directed pairs of ``−s_ij + max_{k∉{i,j}} s_ik`` (values in [−2, 2]).

    Non-smooth (a max); its JAX gradient picks one maximiser. Source: Chaudhry, arXiv 2603.12552,
    repository notebook; docs/theorems.md A7.

    Raises:
      ValueError: ``num_points < 3``, empty ``pairs`` or a pair (i, i).
    """
    a, p, neg = _directed(num_points, pairs)

    def potential(z: jax.Array) -> jax.Array:
        s = z @ z.T
        rows = s[a]
        hard = jnp.max(jnp.where(neg, rows, jnp.asarray(_MASKED, z.dtype)), axis=1)
        return jnp.mean(-s[a, p] + hard)

    return potential


def _dot0(u: jax.Array, v: jax.Array) -> jax.Array:
    """Σ_i u[i]·v[i] over the leading (coordinate) axis, written out term by term: elementwise work
    XLA fuses into one loop over the trailing batch axes (a reduction would be a separate kernel)."""
    acc = u[0] * v[0]
    for i in range(1, u.shape[0]):
        acc = acc + u[i] * v[i]
    return acc


def hardest_negative_value_and_grad(num_points: int, pairs: Sequence[tuple[int, int]]) -> Callable[[jax.Array], tuple[jax.Array, jax.Array]]:
    """``z -> (U0(z), ∇U0(z))`` for the potential of :func:`hardest_negative_potential`, gradient by hand.

    For each directed pair (a, p) with hardest negative k* = argmax_{k∉{a,p}} s_ak (the first
    maximiser in index order), ``−s_ap + s_ak*`` has the gradient ``z_k* − z_p`` in row a, ``−z_a``
    in row p and ``+z_a`` in row k*; U0 is their mean over the M directed pairs. This is the
    gradient of U0 wherever the maximiser is unique (almost everywhere) and an element of its Clarke
    subdifferential at ties (where ``jax.grad`` of ``jnp.max`` would split the weight between the
    tied maximisers instead). Everything is unrolled over the (static) pairs and negatives into
    elementwise work on the rows of z: no N×N matrix, no gather, no autodiff — the fast path of the
    simulator (a per-chain gather/where under autodiff is several times slower on CPU). Above
    ``M·(N−2) > 512`` terms it falls back to ``jax.value_and_grad`` of the potential (same values).

    Args/returns: z of shape ``(N, d)``, unit rows, float32 or float64 -> (scalar, ``(N, d)``), z's dtype.
    The unrolled form also accepts trailing batch axes, ``(N, d, *batch)`` -> ``((*batch), (N, d, *batch))``
    (the simulator's chains-last layout).

    Raises:
      ValueError: as :func:`hardest_negative_potential`.
    """
    a, p, neg = _directed(num_points, pairs)
    potential = hardest_negative_potential(num_points, pairs)
    m = a.size
    if m * (num_points - 2) > _UNROLL_LIMIT:
        return jax.value_and_grad(potential)
    directed = [(int(a[i]), int(p[i]), [int(k) for k in np.flatnonzero(neg[i])]) for i in range(m)]
    inv_m = 1.0 / m

    def value_and_grad(z: jax.Array) -> tuple[jax.Array, jax.Array]:
        rows = [z[i] for i in range(num_points)]
        grads: list = [None] * num_points

        def add(i: int, v: jax.Array) -> None:
            grads[i] = v if grads[i] is None else grads[i] + v

        total = None
        for anchor, pos, negs in directed:
            za = rows[anchor]
            best = _dot0(za, rows[negs[0]])
            z_best = rows[negs[0]]
            arg = jnp.zeros(best.shape, jnp.int32)
            for j, k in enumerate(negs[1:], start=1):
                s_ak = _dot0(za, rows[k])
                take = s_ak > best
                best = jnp.where(take, s_ak, best)
                z_best = jnp.where(take, rows[k], z_best)
                arg = jnp.where(take, j, arg)
            term = best - _dot0(za, rows[pos])
            total = term if total is None else total + term
            add(anchor, z_best - rows[pos])
            add(pos, -za)
            for j, k in enumerate(negs):
                add(k, jnp.where(arg == j, za, jnp.zeros_like(za)) if len(negs) > 1 else za)
        zero = jnp.zeros_like(rows[0])
        grad = jnp.stack([zero if gi is None else gi for gi in grads]) * inv_m
        return (total * inv_m).astype(z.dtype), grad.astype(z.dtype)

    return value_and_grad


def soft_hardest_negative_potential(num_points: int, pairs: Sequence[tuple[int, int]], beta0: float) -> Callable[[jax.Array], jax.Array]:
    """U0 with ``max`` replaced by ``(1/beta0)·logsumexp(beta0·s)`` over negatives (smooth; ≥ U0,
    ≤ U0 + log(N−2)/beta0). Equal to ``tau·`` (decoupled InfoNCE at ``tau = 1/beta0``).

    Raises:
      ValueError: as :func:`hardest_negative_potential`.
    """
    a, p, neg = _directed(num_points, pairs)

    def potential(z: jax.Array) -> jax.Array:
        s = z @ z.T
        rows = jnp.where(neg, beta0 * s[a], jnp.asarray(_MASKED, z.dtype))
        return jnp.mean(-s[a, p] + jax.scipy.special.logsumexp(rows, axis=1) / beta0)

    return potential


def infonce_potential(num_points: int, pairs: Sequence[tuple[int, int]], tau: float, *, coupled: bool = False) -> Callable[[jax.Array], jax.Array]:
    """Mean InfoNCE loss over directed pairs at temperature ``tau``.

    decoupled: ``−s_ij/τ + logsumexp_{k∉{i,j}} s_ik/τ``; coupled: the denominator also holds the
    positive, ``logsumexp_{k≠i} s_ik/τ``. Source: docs/theorems.md A7 (and B1 for the decoupled form).

    Raises:
      ValueError: as :func:`hardest_negative_potential`.
    """
    a, p, neg = _directed(num_points, pairs)
    den = neg.copy()
    if coupled:
        den[np.arange(a.size), p] = True

    def potential(z: jax.Array) -> jax.Array:
        s = z @ z.T / tau
        rows = jnp.where(den, s[a], jnp.asarray(_MASKED, z.dtype))
        return jnp.mean(-s[a, p] + jax.scipy.special.logsumexp(rows, axis=1))

    return potential
