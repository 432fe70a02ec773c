"""Elementwise math that XLA:CPU vectorises, for the simulator's hot loops.

XLA:CPU (jaxlib 0.10) emits scalar code for ``sqrt`` and ``rsqrt`` inside loop fusions (one
``vrsqrtss``/``vsqrtss`` per element plus stack traffic; seen in the object files written by
``XLA_FLAGS=--xla_dump_to=...``), which made the normalisation the most expensive part of a Langevin
step; its ``log`` costs as much as a 20-round Threefry hash. :func:`rsqrt` and :func:`log` below use
only integer shifts, multiplies and adds, which vectorise, and are accurate to about one ulp of their
dtype on the inputs they are used for (tested against extended-precision references).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["rsqrt", "log"]

# (bit type, magic constant of the initial guess, Newton steps to reach the dtype's rounding)
_RSQRT = {
    jnp.dtype(jnp.float32): (jnp.uint32, 0x5F375A86, 3),
    jnp.dtype(jnp.float64): (jnp.uint64, 0x5FE6EB50C7B537A9, 4),
}


def rsqrt(x: jax.Array) -> jax.Array:
    """``1/sqrt(x)`` by a bit-level initial guess and Newton's iteration, vectorisable on XLA:CPU.

    The guess ``y₀ = bits⁻¹(M − (bits(x) >> 1))`` has relative error ≤ 3.5e-2 for the magic
    constants M used here (Lomont, "Fast inverse square root", 2003, for float32 0x5F375A86; the
    float64 analogue 0x5FE6EB50C7B537A9); each Newton step ``y ← y·(3/2 − (x/2)·y²)`` maps a
    relative error e to about (3/2)·e² (1.8e-3, 4.7e-6, 3.3e-11, 1.6e-21), so 3 steps (float32)
    and 4 steps (float64) leave only rounding: a few ulps from the exact value (tested).

    Args:
      x: float32 or float64 array of any shape; meant for finite, positive, normal (not subnormal)
        inputs. Others are NOT handled as ``1/sqrt``: ``x = 0`` gives a large finite number (so
        ``x·rsqrt(x) = 0``, which is what ``sqrt`` via ``x·rsqrt(x)`` needs), negative or non-finite
        inputs give meaningless values. Callers here pass sums of squares ≥ 1 (normalisation after a
        tangent step) or ``-2 log u ∈ [0, 32]`` (Box–Muller).
    Returns:
      Array of the same shape and dtype.
    Raises:
      TypeError: for a dtype other than float32 / float64.
    """
    require_x64(x, what="contrastive_bounds.numerics.rsqrt")
    x = jnp.asarray(x)
    spec = _RSQRT.get(jnp.dtype(x.dtype))
    if spec is None:
        raise TypeError(f"rsqrt supports float32 and float64, got dtype {x.dtype}")
    bits_t, magic, steps = spec
    bits = jax.lax.bitcast_convert_type(x, bits_t)
    y = jax.lax.bitcast_convert_type(bits_t(magic) - (bits >> bits_t(1)), x.dtype)
    half = x * 0.5
    for _ in range(steps):
        y = y * (1.5 - half * y * y)
    return y


# log(1 + f) = f − f²/2 + f³·P(f) on f ∈ [√½ − 1, √2 − 1]: P of degree 8 fitted (least squares at
# 400 Chebyshev nodes, against mpmath) to (log1p(f) − f + f²/2)/f³; float32 error ≤ 1.2 ulp.
_LOG_P = (0.3333333119084815, -0.2499998904873491, 0.2000070747838922, -0.16668480239506095,
          0.14249936533031232, -0.12411050683919993, 0.11661511067056532, -0.11571200727663347,
          0.07149753893757221)
_LN2_HI, _LN2_LO = 0.693359375, -2.12194440e-4  # ln 2 = hi + lo, hi with 9 significant bits (Cody–Waite)
_SQRT_HALF_BITS = 0x3F3504F3  # float32 bits of √½


def log(x: jax.Array) -> jax.Array:
    """Natural logarithm, vectorisable on XLA:CPU for float32 (float64 goes to ``jnp.log``).

    float32: x = 2^k·m with m ∈ [√½, √2) from the bits (k by an arithmetic shift), f = m − 1 exact,
    log x = k·ln 2 + f − f²/2 + f³·P(f) with the degree-8 polynomial P above and ln 2 split in two
    (Cody & Waite, *Software Manual for the Elementary Functions*, 1980, for the reduction). Error
    ≤ 2 ulps of the result over the positive normal float32 numbers (tested).

    Args:
      x: float32 or float64 array, any shape. For float32 only finite, positive, normal values are
        handled (0, negatives, subnormals, inf and NaN give meaningless results); the Box–Muller
        transform calls it on u ∈ [2⁻²³, 1].
    Returns:
      Array of the same shape and dtype.
    Raises:
      TypeError: for a dtype other than float32 / float64.
    """
    require_x64(x, what="contrastive_bounds.numerics.log")
    x = jnp.asarray(x)
    if jnp.dtype(x.dtype) == jnp.dtype(jnp.float64):
        return jnp.log(x)
    if jnp.dtype(x.dtype) != jnp.dtype(jnp.float32):
        raise TypeError(f"log supports float32 and float64, got dtype {x.dtype}")
    bits = jax.lax.bitcast_convert_type(x, jnp.int32)
    k = (bits - jnp.int32(_SQRT_HALF_BITS)) >> 23
    f = jax.lax.bitcast_convert_type(bits - (k << 23), jnp.float32) - 1.0
    p = _LOG_P[-1]
    for c in reversed(_LOG_P[:-1]):
        p = p * f + c
    f2 = f * f
    kf = k.astype(jnp.float32)
    return kf * _LN2_HI + (f - 0.5 * f2 + (f2 * f * p + kf * _LN2_LO))
