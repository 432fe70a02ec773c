"""InfoNCE potentials on ``(S^{d−1})^N`` as pure JAX functions (THEOREMS.md A7).

Each builder returns ``V(z)`` for ``z`` of shape ``(N, d)`` (unit rows), a scalar of z's dtype,
jit/vmap/grad-able. ``s = z zᵀ`` are cosine similarities; positive pairs are used in both directions
(anchor i with positive j, and j with i). Negatives of anchor i in pair (i, j): every ``k ∉ {i, j}``
(N >= 3 guarantees at least one, so no log-sum-exp row is ever empty; case C06).
"""

from __future__ import annotations

from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["hardest_negative_potential", "soft_hardest_negative_potential", "infonce_potential"]

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
    repository notebook; THEOREMS.md A7.

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
    positive, ``logsumexp_{k≠i} s_ik/τ``. Source: THEOREMS.md A7 (and B1 for the decoupled form).

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
