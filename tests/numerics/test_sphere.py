"""Sphere geometry (numerics/_sphere.py): identities against float64 numpy references; C07 zero vectors."""

import math
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contrastive_bounds.numerics._sphere as sphere

# Few shape buckets so jit does not recompile per example (case C14).
SHAPES = [(7, 1, 2), (5, 3, 3), (4, 2, 6)]


@st.composite
def points_and_vectors(draw):
    shape = draw(st.sampled_from(SHAPES))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(shape)
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    v = rng.standard_normal(shape) * draw(st.sampled_from([1e-6, 0.1, 1.0, 3.0]))
    return z, v


@given(points_and_vectors())
def test_projection_is_tangent_idempotent_and_matches_matrix_form(zv):
    """Property: project_tangent equals the explicit (I - z zᵀ) v per factor (A1), is tangent and is
    idempotent."""
    z, v = zv
    p = np.asarray(sphere.project_tangent(jnp.asarray(z), jnp.asarray(v)))
    # P(z) = I - z z^T, per factor (A1), as an explicit matrix product in float64.
    ref = np.einsum("...ij,...j->...i", np.eye(z.shape[-1]) - np.einsum("...i,...j->...ij", z, z), v)
    np.testing.assert_allclose(p, ref, rtol=0, atol=1e-13)
    assert np.max(np.abs(np.sum(p * z, axis=-1))) < 1e-13
    p2 = np.asarray(sphere.project_tangent(jnp.asarray(z), jnp.asarray(p)))
    np.testing.assert_allclose(p2, p, rtol=0, atol=1e-13)


@given(points_and_vectors())
@pytest.mark.slow
def test_exp_map_stays_on_sphere_and_travels_the_geodesic_length(zv):
    """Property: exp_map stays on the sphere and moves a geodesic distance |v| for |v| < π."""
    z, v = zv
    v = np.asarray(sphere.project_tangent(jnp.asarray(z), jnp.asarray(v)))
    v = np.clip(np.linalg.norm(v, axis=-1, keepdims=True), 0, 3.0) * v / np.maximum(
        np.linalg.norm(v, axis=-1, keepdims=True), 1e-300
    )
    y = np.asarray(sphere.exp_map(jnp.asarray(z), jnp.asarray(v)))
    assert np.max(np.abs(np.linalg.norm(y, axis=-1) - 1)) < 1e-14
    # |v| <= 3 < pi: the geodesic is minimising, so d(z, exp_z v) = |v|.
    d = np.asarray(sphere.geodesic_distance(jnp.asarray(z), jnp.asarray(y)))
    np.testing.assert_allclose(d, np.linalg.norm(v, axis=-1), rtol=1e-12, atol=1e-12)


@given(points_and_vectors())
def test_retraction_agrees_with_exp_map_to_second_order(zv):
    """Property: the retraction differs from exp_map by |v|³/3 + O(|v|⁵), i.e. agrees to second order."""
    z, v = zv
    v = np.asarray(sphere.project_tangent(jnp.asarray(z), jnp.asarray(v)))
    eps = 1e-3
    v = eps * v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-300)
    r = np.asarray(sphere.retract(jnp.asarray(z), jnp.asarray(v)))
    e = np.asarray(sphere.exp_map(jnp.asarray(z), jnp.asarray(v)))
    # |R_z(v) - exp_z(v)| = |v|^3/3 + O(|v|^5) for a sphere.
    assert np.max(np.linalg.norm(r - e, axis=-1)) <= eps**3 / 3 * 1.01 + 1e-15


def test_geodesic_distance_is_stable_near_equal_and_antipodal_points():
    """geodesic_distance keeps full relative precision at 1e-9 from equal and from antipodal points (arccos of
    a dot product would not), and product_distance combines the factors' distances in quadrature."""
    x = jnp.asarray([1.0, 0.0, 0.0])
    y = jnp.asarray([math.cos(1e-9), math.sin(1e-9), 0.0])
    assert abs(float(sphere.geodesic_distance(x, y)) - 1e-9) < 1e-20
    y = jnp.asarray([-math.cos(1e-9), math.sin(1e-9), 0.0])
    assert abs(float(sphere.geodesic_distance(x, y)) - (math.pi - 1e-9)) < 1e-15
    # products: sqrt of the sum of squares of the factor distances
    xs = jnp.asarray([[1.0, 0.0], [0.0, 1.0]])
    ys = jnp.asarray([[0.0, 1.0], [0.0, -1.0]])
    assert abs(float(sphere.product_distance(xs, ys)) - math.hypot(math.pi / 2, math.pi)) < 1e-14


@pytest.mark.slow
def test_C07_zero_vector_raises_and_traced_zero_gives_no_nan():
    """C07: normalising a zero or non-finite vector raises naming its index; under jit a zero row maps to zero
    with a finite gradient."""
    with pytest.raises(ValueError, match="zero vector at index \\(1,\\)"):
        sphere.normalize(jnp.asarray([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="zero vector"):
        sphere.project_to_sphere(np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="NaN or inf"):
        sphere.normalize(jnp.asarray([[np.nan, 1.0]]))
    # Under jit: no exception possible; a zero row maps to zero, and the gradient is finite (double-where).
    out = jax.jit(sphere.normalize)(jnp.zeros((2, 3)))
    assert np.all(np.asarray(out) == 0)
    g = jax.grad(lambda x: jnp.sum(jax.jit(sphere.normalize)(x)))(jnp.zeros(3))
    assert np.all(np.isfinite(np.asarray(g)))
    g = jax.grad(lambda v: jnp.sum(sphere.exp_map(jnp.asarray([1.0, 0.0, 0.0]), v)))(jnp.zeros(3))
    assert np.all(np.isfinite(np.asarray(g)))


def test_uniform_sampler_moments_z_test():
    """E[x_i^2] = 1/d and E[x_i] = 0 on S^{d-1}; z-tests, Bonferroni over 2d statistics, false alarm 1e-4."""
    from scipy.stats import norm

    n, d = 40_000, 4
    x = np.asarray(sphere.uniform(jax.random.key(3), (n, 1, d)))[:, 0, :]
    assert np.max(np.abs(np.linalg.norm(x, axis=-1) - 1)) < 1e-14
    zcrit = norm.ppf(1 - 1e-4 / (2 * 2 * d))
    var_x2 = 3 / (d * (d + 2)) - 1 / d**2  # E[x^4] = 3/(d(d+2)) on S^{d-1}
    for i in range(d):
        assert abs(x[:, i].mean()) / math.sqrt(1 / d / n) < zcrit
        assert abs((x[:, i] ** 2).mean() - 1 / d) / math.sqrt(var_x2 / n) < zcrit


def test_uniform_rejects_bad_shapes():
    """uniform refuses d = 1 and an empty shape."""
    with pytest.raises(ValueError, match="d=1"):
        sphere.uniform(jax.random.key(0), (3, 1))
    with pytest.raises(ValueError, match="empty shape"):
        sphere.uniform(jax.random.key(0), ())


def test_geodesic_distance_gradient_is_zero_not_nan_at_coincident_and_antipodal_points():
    """geodesic_distance has a zero (not NaN) gradient at coincident and antipodal points, where arccos is not
    differentiable, and its value there is exact."""
    x = jnp.array([[0.0, 0.0, 1.0], [0.6, 0.8, 0.0]])
    g = lambda y: jax.grad(lambda v: sphere.geodesic_distance(x, v).sum())(y)  # noqa: E731
    np.testing.assert_array_equal(np.asarray(g(x)), 0.0)
    np.testing.assert_array_equal(np.asarray(g(-x)), 0.0)
    np.testing.assert_allclose(np.asarray(sphere.geodesic_distance(x, -x)), math.pi, rtol=1e-15)


@pytest.mark.slow
def test_geodesic_distance_value_and_gradient_away_from_the_singular_points():
    """Away from those points d(x, y) is the angle and its Riemannian gradient in y is the unit tangent
    pointing away from x, -(x - (x.y) y)/sin d."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 4))
    y = rng.standard_normal((5, 4))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    c = np.sum(x * y, axis=1)
    np.testing.assert_allclose(np.asarray(sphere.geodesic_distance(x, y)), np.arccos(c), rtol=1e-13)
    g = np.asarray(jax.grad(lambda v: sphere.geodesic_distance(jnp.asarray(x), v).sum())(jnp.asarray(y)))
    tangent = -(x - c[:, None] * y) / np.sqrt(1 - c**2)[:, None]
    # the ambient gradient may have a radial part; its tangent part is the Riemannian gradient
    g_tan = g - np.sum(g * y, axis=1, keepdims=True) * y
    np.testing.assert_allclose(g_tan, tangent, atol=1e-12)


@pytest.mark.slow
def test_uniform_refuses_float64_without_x64_and_non_float_dtypes():
    """uniform refuses a non-float dtype, and float64 while x64 is off (it had silently returned float32),
    naming enable_x64; the default dtype stays float32."""
    with pytest.raises(ValueError, match="dtype=int32 must be a float dtype"):
        sphere.uniform(jax.random.key(0), (2, 3), dtype=np.int32)
    out = sphere.uniform(jax.random.key(0), (2, 3), dtype=jnp.float32)
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(np.linalg.norm(np.asarray(out), axis=1), 1.0, rtol=1e-6)
    code = (
        "import jax, jax.numpy as jnp\n"
        "from contrastive_bounds.numerics import uniform\n"
        "try:\n    uniform(jax.random.key(0), (2, 3), dtype=jnp.float64)\nexcept RuntimeError as e:\n    print(e)\n"
        "print(uniform(jax.random.key(0), (2, 3)).dtype)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    msg, dflt = out.stdout.strip().splitlines()
    assert "dtype=float64" in msg and "jax_enable_x64 is off" in msg and "enable_x64()" in msg
    assert dflt == "float32"

