"""The noise of the simulator: which generator draws step k's normals, and how a loop of steps draws them.

Two families (``prng_impl``, :data:`._config.PRNG_IMPLS`):

* ``jax.random`` key implementations (``"threefry2x32"``, ``"rbg"``, ``"unsafe_rbg"``): the noise of
  step k for all chains is ``normal(fold_in(key(seed), k), shape)``, drawn inside the step;
* ``"fused-threefry"`` (:mod:`._fused_rng`): steps 2p and 2p + 1 take the real and imaginary part
  of one Box–Muller pair. The pairs of a block of steps are drawn by one kernel ahead of the steps
  that use them: a loop boundary, so XLA computes every hash once instead of fusing the hash into
  each consumer of the noise.

Either way the numbers depend only on (seed, generator, step k, element, and the shard index when
the chains are split over devices), never on how a run is cut into chunks.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics.langevin._config import PRNG_IMPLS
from contrastive_bounds.numerics.langevin._fused_rng import fused_normal_pairs, fused_normals

__all__ = ["FUSED", "noise_key", "steps_loop"]

FUSED = "fused-threefry"
_PAIR_BLOCK = 16  # at most this many Box–Muller pairs (32 steps) drawn ahead ...
_PAIR_BLOCK_ELEMENTS = 1 << 15  # ... and at most this many complex numbers (256 KB in complex64)


def noise_key(seed: int, prng_impl: str) -> jax.Array:
    """The key a run passes to its chunks: a typed ``jax.random`` key of ``prng_impl``, or for
    ``"fused-threefry"`` the uint32 (2,) key data of ``jax.random.key(seed)`` (Threefry's 64-bit key).

    Raises:
      ValueError: ``prng_impl`` not in :data:`._config.PRNG_IMPLS`.
    """
    if prng_impl not in PRNG_IMPLS:
        raise ValueError(f"prng_impl={prng_impl!r} is not one of {PRNG_IMPLS}")
    if prng_impl == FUSED:
        return jax.random.key_data(jax.random.key(seed, impl="threefry2x32")).astype(jnp.uint32)
    return jax.random.key(seed, impl=prng_impl)


def steps_loop(advance: Callable, noise_shape_of: Callable, *, fused: bool, num_shards: int,
               unroll: int) -> Callable:
    """Build ``run(carry, key, t_start, n)``: ``n`` (a Python int) steps of all chains.

    For the fused generator with an even ``n`` the carry's step must be even (callers start every
    run of ``n`` steps at a multiple of ``n``); an odd ``n`` may start anywhere.

    Args:
      advance: ``(carry, noise, t_start) -> carry``, one step given standard normals of shape
        ``noise_shape_of(carry)``; the carry has an int32 ``step`` field (steps done so far) and a
        ``running_min`` of the run's float dtype (the dtype of the normals).
      noise_shape_of: ``carry -> shape`` of one step's noise for all chains (of this shard).
      fused: draw with the ``"fused-threefry"`` generator (``key`` is then its uint32 (2,) seed
        words), else with ``jax.random.normal`` (``key`` a typed key).
      num_shards: > 1 inside ``shard_map`` over the mesh axis ``"chains"``: shard j draws from
        ``fold_in(fold_in(key, k), j)`` (``jax.random``) or from element counters offset by
        j × (elements per shard) (fused), so shards never share numbers.
      unroll: steps unrolled per scan iteration (a speed knob).
    Returns:
      The function; traced under jit (``n`` static).
    """

    def offset(shape: tuple[int, ...]) -> Any:
        if num_shards > 1:
            return jax.lax.axis_index("chains").astype(jnp.uint32) * jnp.uint32(math.prod(shape))
        return 0

    def jax_random(carry, key, t_start, n: int):
        def body(c, _):
            step_key = jax.random.fold_in(key, c.step)
            if num_shards > 1:
                step_key = jax.random.fold_in(step_key, jax.lax.axis_index("chains"))
            noise = jax.random.normal(step_key, noise_shape_of(c), c.running_min.dtype)
            return advance(c, noise, t_start), None

        carry, _ = jax.lax.scan(body, carry, None, length=n, unroll=max(1, min(unroll, n)))
        return carry

    def fused_single(carry, key, t_start):
        shape = noise_shape_of(carry)
        noise = fused_normals(key, carry.step.astype(jnp.uint32), shape, carry.running_min.dtype, offset(shape))
        return advance(carry, noise, t_start)

    def fused_pairs(carry, key, t_start, npairs: int):
        """2·npairs steps from an even step index."""
        shape = noise_shape_of(carry)
        dtype = carry.running_min.dtype
        block = max(1, min(npairs, _PAIR_BLOCK, _PAIR_BLOCK_ELEMENTS // max(1, math.prod(shape))))
        n_blocks, rest = divmod(npairs, block)

        def run_block(c, size: int):
            first = (c.step >> 1).astype(jnp.uint32)
            noise = fused_normal_pairs(key, first + jnp.arange(size, dtype=jnp.uint32), shape, dtype, offset(shape))

            def one(c2, j: jax.Array):  # step 2p + b of the block: part b of pair p
                e = jax.lax.dynamic_index_in_dim(noise, j >> 1, keepdims=False)
                return advance(c2, jnp.where((j & 1) == 1, e.imag, e.real), t_start), None

            # one step per iteration: two steps per iteration made XLA redo the first step's arithmetic
            c, _ = jax.lax.scan(one, c, jnp.arange(2 * size, dtype=jnp.int32), unroll=max(1, min(unroll, 2 * size)))
            return c

        if n_blocks:
            carry, _ = jax.lax.scan(lambda c, _: (run_block(c, block), None), carry, None, length=n_blocks)
        if rest:
            carry = run_block(carry, rest)
        return carry

    def fused_loop(carry, key, t_start, n: int):
        if n % 2 == 0:  # the caller starts every run of n steps at a multiple of n: an even step
            return fused_pairs(carry, key, t_start, n // 2)
        half = n // 2
        if not half:
            return fused_single(carry, key, t_start)

        def from_even(c):
            return fused_single(fused_pairs(c, key, t_start, half), key, t_start)

        def from_odd(c):
            return fused_pairs(fused_single(c, key, t_start), key, t_start, half)

        return jax.lax.cond(carry.step % 2 == 1, from_odd, from_even, carry)

    return fused_loop if fused else jax_random
