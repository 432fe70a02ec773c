"""tester4 findings #5 (InfoNCE at tiny tau) and #11 (similarity and sphere papercuts).

References: closed forms for orthonormal batches, an independent 60-digit mpmath transcription of
THEOREMS.md B1, and the tau -> 0 limit tau * L -> mean_i (max_{D_i} s - s_i,pos).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds.numerics.alignment import losses as L
from contrastive_bounds.numerics.alignment import similarity as S
from contrastive_bounds.numerics import sphere

TINY64 = float(np.finfo(np.float64).tiny)
TINY32 = float(np.finfo(np.float32).tiny)


def _ref_info_nce(z1, z2, tau, coupled):
    """B1, decoupled or coupled, first views as anchors; 60 digits (handles exponents like 1e300)."""
    with mp.workdps(60):
        tau = mp.mpf(tau)
        unit = lambda v: [mp.mpf(float(x)) / mp.sqrt(mp.fsum(mp.mpf(float(y)) ** 2 for y in v)) for x in v]  # noqa: E731
        a = [unit(v) for v in z1]
        b = [unit(v) for v in z2]
        cos = lambda u, v: mp.fsum(x * y for x, y in zip(u, v))  # noqa: E731
        total = mp.mpf(0)
        for i in range(len(a)):
            terms = [cos(a[i], w[t]) for t in range(len(a)) if t != i for w in (a, b)]
            if coupled:
                terms.append(cos(a[i], b[i]))
            top = max(terms)
            total += (top - cos(a[i], b[i])) / tau + mp.log(mp.fsum(mp.exp((s - top) / tau) for s in terms))
        return total / len(a)


# ----------------------------------------------------------------------------- #5: tiny tau
@pytest.mark.parametrize("tau", [TINY64, 1e-300, 1e-30, 1e-3, 0.5, 1e300])
def test_info_nce_orthonormal_batch_closed_form(tau):
    """Rows e_1..e_B, z1 = z2: decoupled L = -1/tau + log(2(B-1)); coupled L = log1p(2(B-1) e^{-1/tau})."""
    b = 4
    z = np.eye(b)
    dec = float(L.info_nce_loss(z, z, tau=tau))
    cpl = float(L.info_nce_loss(z, z, tau=tau, coupled=True))
    assert dec == pytest.approx(-1.0 / tau + math.log(2 * (b - 1)), rel=1e-14, abs=1e-14)
    assert cpl == pytest.approx(float(mp.log1p(2 * (b - 1) * mp.exp(-1 / mp.mpf(tau)))), rel=1e-14, abs=1e-300)
    both = float(L.info_nce_loss(z, z, tau=tau, anchors="both"))
    assert both == pytest.approx(dec, rel=1e-15)


def test_info_nce_mean_does_not_overflow_at_the_smallest_tau():
    """Every anchor's loss is 2/tau + log 2 = 2^1023: the old sum-then-divide mean gave inf."""
    z1 = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]])
    loss = float(L.info_nce_loss(z1, -z1, tau=TINY64))
    assert loss == 2.0**1023  # + log 2 is below one ulp
    # every anchor: positive -1, negatives {-1, 1, 1, -1}: 2 + log(2 e^2 + 2 e^-2)
    assert float(L.info_nce_loss(z1, -z1, tau=0.5)) == pytest.approx(4.0 + math.log(2.0) + math.log1p(math.exp(-4.0)),
                                                                    rel=1e-15)


@pytest.mark.parametrize("tau", [1e-300, 1e-100, 1e-6, 0.07])
@pytest.mark.parametrize("coupled", [False, True])
def test_info_nce_matches_mpmath_at_small_tau(tau, coupled):
    rng = np.random.default_rng(4)
    z1 = rng.standard_normal((6, 3))
    z2 = z1 + 0.4 * rng.standard_normal((6, 3))
    got = float(L.info_nce_loss(z1, z2, tau=tau, coupled=coupled))
    ref = _ref_info_nce(z1, z2, tau, coupled)
    # cosines carry ~1e-16 absolute rounding, amplified by 1/tau: compare relative to the 1/tau scale
    assert abs(got - float(ref)) <= 1e-13 * max(abs(float(ref)), 1.0 / tau * 1e-2, 1.0)


@given(seed=st.integers(0, 2**32 - 1), log_tau=st.floats(math.log(TINY64), math.log(1e-250)))
def test_info_nce_tau_to_zero_limit(seed, log_tau):
    """tau * L -> mean_i (max_{D_i} s_i - s_i,pos): at tau <= 1e-250 the log term is invisible."""
    tau = math.exp(log_tau)
    rng = np.random.default_rng(seed)
    z1 = rng.standard_normal((8, 3))
    z2 = rng.standard_normal((8, 3))
    u1 = z1 / np.linalg.norm(z1, axis=1, keepdims=True)
    u2 = z2 / np.linalg.norm(z2, axis=1, keepdims=True)
    s = u1 @ np.concatenate([u1, u2]).T
    gaps = []
    for i in range(8):
        neg = [s[i, t] for t in range(8) if t != i] + [s[i, 8 + t] for t in range(8) if t != i]
        gaps.append(max(neg) - s[i, 8 + i])
    limit = float(np.mean(gaps))
    got = float(L.info_nce_loss(z1, z2, tau=tau)) * tau
    assert math.isfinite(got)
    assert got == pytest.approx(limit, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("fn", ["info_nce", "nscl", "supcon", "supcon_single", "anchor"])
def test_tau_below_the_dtype_floor_raises_naming_tau_and_the_floor(fn):
    z = np.eye(4)
    lab = np.array([0, 0, 1, 1])
    calls = {
        "info_nce": lambda tau: L.info_nce_loss(z, z, tau=tau),
        "nscl": lambda tau: L.nscl_loss(z, z, lab, tau=tau),
        "supcon": lambda tau: L.supcon_loss(z, z, lab, tau=tau),
        "supcon_single": lambda tau: L.supcon_loss(z, None, lab, tau=tau),
        "anchor": lambda tau: L.anchor_losses(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]]),
                                              np.array([[True, True]]), tau=tau).losses,
    }
    with pytest.raises(ValueError, match=r"tau=1e-320 .*2\.2250738585072014e-308 for float64"):
        calls[fn](1e-320)
    assert math.isfinite(float(np.asarray(calls[fn](TINY64)).ravel()[0]))


def test_float32_inputs_have_the_float32_floor():
    z = np.eye(3, dtype=np.float32)
    assert L.min_tau(np.float32) == TINY32 and L.min_tau(np.float64) == TINY64
    with pytest.raises(ValueError, match=r"tau=1e-40 .*1\.1754943508222875e-38 for float32"):
        L.info_nce_loss(z, z, tau=1e-40)
    out = L.info_nce_loss(z, z, tau=TINY32)
    assert out.dtype == jnp.float32
    assert float(out) == pytest.approx(-1.0 / TINY32 + math.log(4.0), rel=1e-6)  # -2^126


def test_overflowing_similarities_raise_instead_of_inf():
    sim = np.array([[-1e308, 1e308]])
    with pytest.raises(ValueError, match="anchor 0 .*tau=0.5"):
        L.anchor_losses(sim, np.array([[1.0, 0.0]]), np.array([[True, True]]), tau=0.5)


def test_batch_loss_gradient_finite_at_tiny_tau():
    rng = np.random.default_rng(1)
    z1 = rng.standard_normal((4, 3))
    z2 = z1 + 0.3 * rng.standard_normal((4, 3))
    f = lambda a: L.batch_loss(a, z2, jnp.arange(4), tau=1e-300, kind="cl")  # noqa: E731
    assert float(f(jnp.asarray(z1))) == pytest.approx(float(L.info_nce_loss(z1, z2, tau=1e-300)), rel=1e-14)
    assert np.all(np.isfinite(np.asarray(jax.grad(f)(jnp.asarray(z1)))))


def test_x64_off_float64_input_names_the_float32_floor_and_enable_x64():
    """Package default (x64 off) in a fresh interpreter: float64 input is refused (X64DisabledError, the
    float64 policy); float32 input below the float32 floor names the floor and enable_x64."""
    code = (
        "import numpy as np\n"
        "from contrastive_bounds.numerics.alignment import losses\n"
        "z = np.eye(3)[:2]\n"
        "try:\n    losses.info_nce_loss(z, z, tau=0.5)\nexcept RuntimeError as e:\n    print(type(e).__name__, e)\n"
        "z = z.astype(np.float32)\n"
        "try:\n    losses.info_nce_loss(z, z, tau=1e-300)\nexcept ValueError as e:\n    print(e)\n"
        "print(float(losses.info_nce_loss(z, z, tau=1e-30)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    refused, msg, val = out.stdout.strip().splitlines()
    assert refused.startswith("X64DisabledError alignment.losses.info_nce_loss got float64 input")
    assert "tau=1e-300" in msg and "1.1754943508222875e-38" in msg and "enable_x64" in msg
    assert float(val) == pytest.approx(-1e30, rel=1e-6)


# ----------------------------------------------------------------------------- #11: similarity
@pytest.mark.parametrize("bad", [None, "yes", 1, 0.0])
def test_debiased_must_be_a_bool(bad):
    x = np.random.default_rng(0).standard_normal((6, 3))
    for call in (lambda: S.linear_cka(x, x, debiased=bad), lambda: S.linear_cka_gram(x @ x.T, x @ x.T, debiased=bad),
                 lambda: S.hsic_gram(x @ x.T, x @ x.T, debiased=bad)):
        with pytest.raises(ValueError, match=f"debiased={bad!r} must be True"):
            call()
    assert S.linear_cka(x, x, debiased=np.bool_(True)) == pytest.approx(1.0, rel=1e-14)


def test_zero_feature_input_says_no_features():
    y = np.random.default_rng(0).standard_normal((5, 2))
    with pytest.raises(ValueError, match=r"x has no features \(shape \(5, 0\)\)"):
        S.linear_cka(np.zeros((5, 0)), y, debiased=True)
    with pytest.raises(ValueError, match=r"y has no features"):
        S.linear_cka(y, np.zeros((5, 0)), debiased=False)


def test_upper_triangle_values_and_validation():
    a = np.arange(16.0).reshape(4, 4)
    np.testing.assert_array_equal(S.upper_triangle(a), [1.0, 2.0, 3.0, 6.0, 7.0, 11.0])
    assert S.upper_triangle(np.ones((1, 1))).shape == (0,)
    for bad in (np.zeros((3, 4)), np.zeros(3), np.zeros((2, 2, 2))):
        with pytest.raises(ValueError, match=rf"a must be a square 2-D matrix .*{re_shape(bad.shape)}"):
            S.upper_triangle(bad)


def re_shape(shape):
    return str(shape).replace("(", r"\(").replace(")", r"\)")


# ----------------------------------------------------------------------------- #11: sphere
def test_geodesic_distance_gradient_is_zero_not_nan_at_coincident_and_antipodal_points():
    x = jnp.array([[0.0, 0.0, 1.0], [0.6, 0.8, 0.0]])
    g = lambda y: jax.grad(lambda v: sphere.geodesic_distance(x, v).sum())(y)  # noqa: E731
    np.testing.assert_array_equal(np.asarray(g(x)), 0.0)
    np.testing.assert_array_equal(np.asarray(g(-x)), 0.0)
    np.testing.assert_allclose(np.asarray(sphere.geodesic_distance(x, -x)), math.pi, rtol=1e-15)


def test_geodesic_distance_value_and_gradient_away_from_the_singular_points():
    """d(x, y) = angle; grad_y at unit y is the unit tangent pointing away from x (-(x - (x.y) y)/sin d)."""
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


def test_uniform_refuses_float64_without_x64_and_non_float_dtypes():
    with pytest.raises(ValueError, match="dtype=int32 must be a float dtype"):
        sphere.uniform(jax.random.key(0), (2, 3), dtype=np.int32)
    out = sphere.uniform(jax.random.key(0), (2, 3), dtype=jnp.float32)
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(np.linalg.norm(np.asarray(out), axis=1), 1.0, rtol=1e-6)
    code = (
        "import jax, jax.numpy as jnp\n"
        "from contrastive_bounds.numerics import sphere\n"
        "try:\n    sphere.uniform(jax.random.key(0), (2, 3), dtype=jnp.float64)\nexcept RuntimeError as e:\n    print(e)\n"
        "print(sphere.uniform(jax.random.key(0), (2, 3)).dtype)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    msg, dflt = out.stdout.strip().splitlines()
    assert "dtype=float64" in msg and "jax_enable_x64 is off" in msg and "enable_x64()" in msg
    assert dflt == "float32"
