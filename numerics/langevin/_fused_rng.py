"""The ``"fused-threefry"`` noise generator of the simulator (float32 throughput runs).

Threefry-2x32-20 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11 — the hash
behind ``jax.random``) written out as unrolled uint32 ``jnp`` ops, so that XLA compiles it into one
vectorised loop with its Box–Muller transform (JAX's own CPU lowering is a rolled loop that keeps its
state in memory every round), and Box–Muller (1958) with polynomial sin/cos and the vectorised
:func:`.fastmath.rsqrt` for the square root. Counter-based: the numbers depend only on
(seed, pair index, element), never on how a run is chunked. Used by :mod:`._driver`.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._fastmath import log, rsqrt
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["fused_normal_pairs", "fused_normals", "threefry2x32"]

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry2x32(k0: jax.Array, k1: jax.Array, x0: jax.Array, x1: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Threefry-2x32 with 20 rounds of the counter (x0, x1) under the key (k0, k1), all uint32 arrays
    (broadcastable); returns the two uint32 output words. Source: Salmon et al. (SC'11), Random123
    known-answer vectors (tested)."""
    ks = (k0, k1, k0 ^ k1 ^ jnp.uint32(0x1BD11BDA))
    x0 = x0 + ks[0]
    x1 = x1 + ks[1]
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 = x0 + x1
            x1 = (x1 << jnp.uint32(r)) | (x1 >> jnp.uint32(32 - r))
            x1 = x0 ^ x1
        x0 = x0 + ks[(i + 1) % 3]
        x1 = x1 + ks[(i + 2) % 3] + jnp.uint32(i + 1)
    return x0, x1


# sin(πx), cos(πx) on |x| ≤ 1/2 by their Taylor polynomials (truncation < 4e-9 at degree 11 / 12).
_SIN_PI = tuple(((-1) ** j) * math.pi ** (2 * j + 1) / math.factorial(2 * j + 1) for j in range(6))
_COS_PI = tuple(((-1) ** j) * math.pi ** (2 * j) / math.factorial(2 * j) for j in range(7))


def _poly(coeffs: tuple, x2: jax.Array) -> jax.Array:
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = c + acc * x2
    return acc


def fused_normal_pairs(seed_words: jax.Array, pairs: jax.Array, shape: tuple[int, ...], dtype: Any,
                       offset: Any = 0) -> jax.Array:
    """Box–Muller pairs of the ``"fused-threefry"`` generator: the normals of steps 2p and 2p + 1.

    Counter-based: element i (row-major index in ``shape``) of pair p is Threefry-2x32-20 of the
    counter (i + offset, p) under the 64-bit key ``seed_words`` (the key data of
    ``jax.random.key(seed)``). Its two 32-bit words give u₁ = 1 − m₁·2⁻²³ ∈ (0, 1] and
    u₂ = m₂·2⁻²³ ∈ [0, 1) from their top 23 bits, and Box–Muller gives the independent standard
    normals r·cos 2πu₂ (step 2p) and r·sin 2πu₂ (step 2p + 1) with r = sqrt(−2 log u₁): the real
    and imaginary part of the returned complex number (one array, so XLA computes each hash once).
    cos/sin of 2πu₂ = −cos/−sin(π(2u₂ − 1)) come from the half-angle polynomials above and the
    double-angle formulas; log and sqrt = ``s·rsqrt(s)`` are :func:`.fastmath.log` and
    :func:`.fastmath.rsqrt` (vectorised, ≤ 2 ulps; u₁ ≥ 2⁻²³ is a normal float); error ≲ 1e-7 absolute,
    below float32 resolution of the result. Tails are cut at |ξ| ≤ sqrt(2·23·log 2) ≈ 5.65 (as any
    23-bit-uniform transform; P(|ξ| > 5.65) ≈ 1.6e-8). Source: Box & Muller (1958); Salmon et al.
    (SC'11) for Threefry.

    Args:
      seed_words: uint32 array (2,); pairs: integer array (P,) of pair indices ≥ 0 (< 2³²);
      shape: per-step noise shape; dtype: float32 or float64 (the uniforms have 23 bits either way:
        this generator is meant for float32 throughput runs);
      offset: first element counter (uint32 scalar; shards of a run use disjoint counter ranges).
    Returns:
      complex64 (float32) or complex128 (float64) array of shape ``(P, *shape)``.
    """
    require_x64(dtype, what="contrastive_bounds.numerics.langevin.fused_normal_pairs")
    n = math.prod(shape)
    pairs = jnp.asarray(pairs).astype(jnp.uint32)
    full = (pairs.shape[0], n)
    counter = jax.lax.broadcasted_iota(jnp.uint32, full, 1) + jnp.asarray(offset, jnp.uint32)
    b0, b1 = threefry2x32(seed_words[0], seed_words[1], counter, jnp.broadcast_to(pairs[:, None], full))
    scale = 2.0**-23
    u1 = 1.0 - (b0 >> jnp.uint32(9)).astype(dtype) * scale
    u2 = (b1 >> jnp.uint32(9)).astype(dtype) * scale
    s = -2.0 * log(u1)
    r = s * rsqrt(s)  # sqrt(s); s = 0 gives 0
    x = u2 - 0.5  # 2πu₂ = π(2x) + π; half angle: φ = πx, |x| ≤ 1/2
    x2 = x * x
    s_half = x * _poly(_SIN_PI, x2)
    c_half = _poly(_COS_PI, x2)
    cos_t = 2.0 * s_half * s_half - 1.0  # cos(2φ + π) = −cos 2φ = 2 sin²φ − 1
    sin_t = -2.0 * s_half * c_half  # sin(2φ + π) = −sin 2φ
    return jax.lax.complex(r * cos_t, r * sin_t).reshape(pairs.shape[0], *shape)


def fused_normals(seed_words: jax.Array, step: jax.Array, shape: tuple[int, ...], dtype: Any, offset: Any = 0) -> jax.Array:
    """Standard normals of step ``step`` of the ``"fused-threefry"`` generator (float32 throughput runs).

    The real (even ``step``) or imaginary (odd ``step``) part of :func:`fused_normal_pairs` for the
    pair ``step // 2``: the exact numbers the driver uses at that step, so results depend only on
    (seed, step, element). Consecutive steps 2p, 2p + 1 of an element share one Box–Muller pair,
    whose two normals are independent (Box & Muller, 1958).

    Args:
      seed_words: uint32 array (2,); step: uint32/int scalar ≥ 0; shape: output shape; dtype:
        float32 or float64; offset: first element counter (uint32 scalar).
    Returns:
      Array of ``shape`` and ``dtype``.
    """
    require_x64(dtype, what="contrastive_bounds.numerics.langevin.fused_normals")
    step = jnp.asarray(step).astype(jnp.uint32)
    pair = fused_normal_pairs(seed_words, (step >> jnp.uint32(1))[None], shape, dtype, offset)[0]
    return jnp.where((step & jnp.uint32(1)) == 1, pair.imag, pair.real).astype(dtype)
