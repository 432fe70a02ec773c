"""numerics.fastmath: the vectorised rsqrt and log the simulator's fast path uses (XLA:CPU compiled the
standard ones to scalar code) stay within 2 ulps of extended-precision references where the simulator
uses them, and refuse non-float input."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics._fastmath import log as fast_log
from contrastive_bounds.numerics._fastmath import rsqrt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rsqrt_is_within_two_ulps(dtype):
    """rsqrt (bit guess + Newton) against 1/sqrt in extended precision: ≤ 2 ulps over 60 decades and on
    [1, 4] (where the simulator uses it); x·rsqrt(x) = 0 at x = 0 (Box–Muller's sqrt)."""
    rng = np.random.default_rng(0)
    eps = np.finfo(dtype).eps
    x = np.concatenate([10 ** rng.uniform(-30, 30, 50_000), rng.uniform(1, 4, 50_000),
                        1 + np.arange(1, 500) * eps]).astype(dtype)
    got = np.asarray(jax.jit(rsqrt)(jnp.asarray(x))).astype(np.longdouble)
    ref = 1 / np.sqrt(x.astype(np.longdouble))
    ulps = np.abs(got - ref) / np.spacing(ref.astype(dtype)).astype(np.longdouble)
    assert float(ulps.max()) <= 2.0
    zero = jnp.zeros((), dtype)
    assert float(zero * rsqrt(zero)) == 0.0
    with pytest.raises(TypeError, match="float32 and float64"):
        rsqrt(jnp.arange(3))


def test_log_is_within_two_ulps_on_positive_normal_float32():
    """fastmath.log against log in extended precision over 75 decades, (0, 1], and the 23-bit grid
    u = 1 − m·2⁻²³ that Box–Muller feeds it: ≤ 2 ulps of the result; float64 is jnp.log itself."""
    rng = np.random.default_rng(1)
    x = np.concatenate([10 ** rng.uniform(-37, 38, 100_000), rng.uniform(0, 1, 100_000),
                        1 - np.arange(1, 4096) * 2.0**-23, 1 + np.arange(1, 2000) * 2.0**-23]).astype(np.float32)
    x = x[x >= np.finfo(np.float32).tiny]
    got = np.asarray(jax.jit(fast_log)(jnp.asarray(x))).astype(np.longdouble)
    ref = np.log(x.astype(np.longdouble))
    ulps = np.abs(got - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.longdouble)
    assert float(ulps[ref != 0].max()) <= 2.0
    assert float(fast_log(jnp.float32(1.0))) == 0.0
    x64 = jnp.asarray([1e-300, 0.3, 7.0])
    np.testing.assert_array_equal(np.asarray(fast_log(x64)), np.asarray(jnp.log(x64)))
    with pytest.raises(TypeError, match="float32 and float64"):
        fast_log(jnp.arange(3))
