"""The Hessian-free path holds no (N·d)² array: jaxprs and compiled memory at N·d = 2 048 (house rule)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree.certify import verifier
from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import hef_single
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import softest_modes

N, D = 64, 32
ND = N * D
LIMIT = ND * ND // 16  # far above every array the path needs (Krylov basis 33·N·d, N², d²), far below (N·d)²


def _sub_jaxprs(value):
    if hasattr(value, "jaxpr") and hasattr(value, "consts"):
        yield value.jaxpr
    elif hasattr(value, "eqns"):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _sub_jaxprs(v)


def _largest(jaxpr) -> int:
    """Largest number of elements of any value in a jaxpr, its loop bodies and branches included."""
    out = max([int(np.prod(v.aval.shape)) for v in list(jaxpr.invars) + list(jaxpr.constvars)] + [0])
    for eqn in jaxpr.eqns:
        out = max([out] + [int(np.prod(v.aval.shape)) for v in eqn.outvars if hasattr(v.aval, "shape")])
        for param in eqn.params.values():
            for sub in _sub_jaxprs(param):
                out = max(out, _largest(sub))
    return out


@pytest.fixture(scope="module")
def potential(ref):
    return ref.infonce(N, 0.1)


@pytest.mark.slow
def test_no_value_of_the_large_path_has_n_d_squared_entries(potential):
    """Every value in the jaxprs of softest_modes, of one eigenvector-following search and of the verifier at
    N = 64, d = 32 has fewer than (N·d)²/16 entries, while the dense reference (jax.hessian) has an
    (N·d)² value: the inspection sees such arrays when they are there."""
    z = jax.ShapeDtypeStruct((N, D), jnp.float64)
    key = jax.eval_shape(lambda: jax.random.key(0))
    jaxprs = {
        "softest_modes": jax.make_jaxpr(lambda z, k: softest_modes(potential, z, k, k=4))(z, key),
        "hef_single": jax.make_jaxpr(lambda z, m, k: hef_single(potential, z, m, k))(z, z, key),
        "verifier": jax.make_jaxpr(lambda z, k: verifier(potential, batched=True)(z[None], k[None]))(z, key),
    }
    for name, jp in jaxprs.items():
        assert _largest(jp.jaxpr) < LIMIT, name
    dense = jax.make_jaxpr(jax.hessian(potential))(z)
    assert _largest(dense.jaxpr) >= ND * ND


@pytest.mark.slow
def test_compiled_temporaries_stay_far_below_a_dense_hessian(potential):
    """XLA's memory analysis of the compiled softest_modes at N·d = 2 048: temporaries below (N·d)²·8 bytes / 16
    (a dense float64 Hessian would need 32 MiB)."""
    fn = jax.jit(lambda z, k: softest_modes(potential, z, k, k=4))
    compiled = fn.lower(jax.ShapeDtypeStruct((N, D), jnp.float64), jax.eval_shape(lambda: jax.random.key(0))).compile()
    stats = compiled.memory_analysis()
    if stats is None:
        pytest.skip("this JAX backend gives no memory analysis")
    assert stats.temp_size_in_bytes < ND * ND * 8 // 16
