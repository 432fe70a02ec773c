"""evaluate_log10 validates like evaluate and its two backends agree: bools,
complex numbers and strings are refused naming the argument; mismatched shapes name the
parameters; ints beyond float64 are evaluated (pointwise, exactly); the optional trivial-bound
parameter m gives an uninformative mask; the JAX backend vectorises over Piecewise (jit, vmap) and,
with x64 off, raises instead of returning +inf at a non-vacuous point."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
import sympy as sp

import contrastive_bounds.theory._registry as registry

FROB = dict(batch_size=256, num_classes=100, delta=0.05, steps=1000, eta_sum=10)
WD = dict(tau=0.5, num_classes=10, batch_size=64, steps=100, delta=0.05, grad_norm=1.0, smoothness=1.0)


def _frob():
    return registry.get_bound("alignment.frobenius")


def _wd():
    return registry.get_bound("alignment.weight_divergence")


@pytest.mark.parametrize("kw, message", [
    ({"tau": [0.5 + 1j]}, "tau=[(0.5+1j)] is not real (complex); domain (0, inf)"),
    ({"tau": 0.5 + 0j}, "tau=(0.5+0j) is not real (complex); domain (0, inf)"),
    ({"tau": [True, True]}, "tau=[True, True] must be numbers, not bools; domain (0, inf)"),
    ({"tau": 0.5, "batch_size": True}, "batch_size=True must be numbers, not bools; domain integers in [1, inf)"),
    ({"tau": ["abc"]}, "tau=['abc'] is not a real number (dtype <U3); domain (0, inf)"),
    ({"tau": [0.5, None]}, "tau=None is not a real number"),
    ({"tau": [0.5, -1.0]}, "tau=-1.0 is outside its domain (0, inf)"),
    ({"tau": 0.5, "steps": [10, 2.5]}, "steps=2.5 must be an integer"),
    ({"tau": 0.5, "steps": [10, 10**400, sp.Rational(5, 2)]}, "steps=5/2 must be an integer"),
])
def test_bad_inputs_are_refused_naming_the_argument(kw, message):
    """Complex numbers, bools, strings, None, out-of-domain and non-integral values are refused naming the
    argument and its domain, as evaluate does."""
    with pytest.raises(ValueError) as err:
        _frob().evaluate_log10(**{**FROB, **kw})
    assert str(err.value) == message


def test_mismatched_shapes_name_the_parameters():
    """Arrays that do not broadcast are refused listing every parameter's shape."""
    with pytest.raises(ValueError) as err:
        _frob().evaluate_log10(**{**FROB, "tau": [0.5, 1.0, 2.0], "batch_size": [256, 512]})
    assert str(err.value) == ("alignment.frobenius: the parameters' shapes do not broadcast together: "
                              "batch_size (2,), num_classes (), delta (), steps (), eta_sum (), tau (3,)")


def test_ints_beyond_float64_are_evaluated_like_evaluate():
    """Integers beyond float64 (steps = 10**400) are evaluated exactly point by point, equal to evaluate and
    to an independent mpmath transcription of Theorem 1, and vacuity is flagged like evaluate's."""
    kw = {**FROB, "batch_size": 10**6, "tau": np.array([0.5, 2.0])}
    la = _frob().evaluate_log10(**{**kw, "steps": [1000, 10**400]})
    for i, steps in enumerate([1000, 10**400]):
        res = _frob().evaluate(**{**kw, "tau": float(kw["tau"][i]), "steps": steps})
        assert not la.vacuous[i] and la.log10[i] == pytest.approx(res.log10, rel=1e-15)
    # the float path gives the same number at the ordinary point
    assert la.log10[0] == pytest.approx(float(_frob().evaluate_log10(**{**kw, "steps": 1000}).log10[0]), rel=1e-13)
    # independent reference for the huge-T point: the bound grows like sqrt(log T) through epsilon
    with mpmath.workdps(50):
        t, b, s = mpmath.mpf(2), 10**6, mpmath.mpf(10)
        eps = mpmath.sqrt(mpmath.log(mpmath.mpf(10) ** 400 * b / mpmath.mpf(0.05)) / (2 * b))
        pi = mpmath.mpf(1) / 100
        delta_ = 2 * mpmath.exp(2 / t) * (pi + eps) / (1 - pi - eps)
        ref = mpmath.exp(s / (2 * t**2 * b)) * s / (t * mpmath.sqrt(b)) * delta_  # Paper B Theorem 1
        assert la.log10[1] == pytest.approx(float(mpmath.log10(ref)), rel=1e-14)
    # vacuous when epsilon >= 1 - pi_max (small batch): +inf, flagged, like evaluate
    small = _frob().evaluate_log10(**{**FROB, "tau": 0.5, "steps": 10**400})
    assert bool(small.vacuous) and float(small.log10) == math.inf
    assert _frob().evaluate(**{**FROB, "tau": 0.5, "steps": 10**400}).vacuous


def test_exact_inputs_that_fit_float64_use_the_float_path():
    """Exact inputs that fit float64 give the float path's numbers."""
    la = _frob().evaluate_log10(**{**FROB, "tau": [sp.Rational(1, 2), mpmath.mpf(1)]})
    ref = _frob().evaluate_log10(**{**FROB, "tau": [0.5, 1.0]})
    np.testing.assert_array_equal(la.log10, ref.log10)


def test_high_precision_tiny_input_points_to_evaluate():
    """A high-precision input below float64's range is refused pointing to evaluate."""
    with pytest.raises(ValueError, match=r"beyond float64 .*index \(\).*use evaluate\(\)"):
        _frob().evaluate_log10(**{**FROB, "tau": mpmath.mpf("1e-400")})


def test_optional_trivial_parameter_gives_the_uninformative_mask():
    """The optional trivial-bound parameter m gives the uninformative mask that evaluate gives point by point;
    m = 0 is refused."""
    taus, ms = [0.5, 1.0, 5.0, 0.5], [10, 10**6, 10**6, 2]
    la = _frob().evaluate_log10(**{**FROB, "tau": taus, "m": ms})
    for i, (tau, m) in enumerate(zip(taus, ms)):
        res = _frob().evaluate(**{**FROB, "tau": tau, "m": m})
        assert la.log10[i] == pytest.approx(res.log10, rel=1e-13)
        assert bool(la.uninformative[i]) == res.uninformative
    # bound 33.2, 2.12, 0.084, 33.2 against 2 sqrt(m(m-1)) = 18.97, ~2e6, ~2e6, 2.83
    assert la.uninformative.tolist() == [True, False, False, True]
    assert _frob().evaluate_log10(**{**FROB, "tau": taus}).uninformative is None
    with pytest.raises(ValueError, match=r"^m=0 is outside its domain"):
        _frob().evaluate_log10(**{**FROB, "tau": 0.5, "m": 0})


def test_jax_backend_vectorises_over_piecewise_and_matches_numpy():
    """log(e^x - 1) is a Piecewise at x = 30 (log(expm1(x)) below, x + log1p(-e^-x) above): the
    numpy printer's Python `if` broke >1 point on JAX. Reference: log10(expm1(x)) at 50 digits."""
    s = np.array([1e-30, 1e-3, 1.0, 29.0, 31.0, 500.0])
    la_np = _wd().evaluate_log10(**{**WD, "eta_sum": s})
    la_jax = _wd().evaluate_log10(backend="jax", **{**WD, "eta_sum": jnp.asarray(s)})
    assert isinstance(la_jax.log10, jax.Array) and la_jax.log10.dtype == jnp.float64  # tests run with x64
    np.testing.assert_allclose(np.asarray(la_jax.log10), la_np.log10, rtol=1e-14)
    for i, x in enumerate(s):
        assert la_np.log10[i] == pytest.approx(_wd().evaluate(**{**WD, "eta_sum": x}).log10, rel=1e-13)
    with mpmath.workdps(50):
        growth = [float(mpmath.log10(mpmath.expm1(mpmath.mpf(x)))) for x in s]
    np.testing.assert_allclose(la_np.log10 - la_np.log10[2], np.array(growth) - growth[2], rtol=1e-12, atol=1e-12)


def test_jax_lambdify_jits_and_vmaps():
    """lambdify('jax') traces under jit and vmap and equals the numpy backend across the Piecewise breakpoint."""
    names = [p.name for p in _wd().params]
    point = {**{k: v for k, v in WD.items() if k != "num_classes"}, "pi_max": 0.1}
    f_jax, f_np = _wd().lambdify("jax"), _wd().lambdify("numpy")
    s = np.array([1e-20, 0.5, 29.5, 30.5, 200.0])

    def at(x):
        return f_jax(*[x if n == "eta_sum" else point[n] for n in names])

    got_vmap = jax.vmap(at)(jnp.asarray(s))
    got_jit = jax.jit(jax.vmap(at))(jnp.asarray(s))
    with np.errstate(all="ignore"):  # numpy's select evaluates both branches
        want = f_np(*[s if n == "eta_sum" else point[n] for n in names])
    np.testing.assert_allclose(np.asarray(got_vmap), want, rtol=1e-14)
    np.testing.assert_allclose(np.asarray(got_jit), want, rtol=1e-14)


@pytest.mark.slow
def test_jax_without_x64_raises_instead_of_inf():
    """float32: log10 = 8.48e57 at tau = 1e-30 exceeds float32 (3.4e38); it used to come back inf
    with vacuous=False. Ordinary points agree with the float64 numpy backend to float32 precision."""
    tau = [0.5, 1e-3, 1e-30]
    ref = _frob().evaluate_log10(**{**FROB, "tau": tau})
    assert ref.log10[2] == pytest.approx(8.4823140996728e57, rel=1e-12)  # finite in float64
    with jax.enable_x64(False):
        with pytest.raises(ValueError, match=r"beyond float32 \(or lost\) at index \(2,\) \(JAX x64 is off"):
            _frob().evaluate_log10(backend="jax", **{**FROB, "tau": tau})
        la = _frob().evaluate_log10(backend="jax", **{**FROB, "tau": tau[:2]})
        assert la.log10.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(la.log10), ref.log10[:2], rtol=1e-5)
    vac = _frob().evaluate_log10(backend="jax", **{**FROB, "tau": [0.5], "batch_size": 2, "steps": 10})
    assert bool(vac.vacuous[0]) and float(vac.log10[0]) == math.inf  # inf only where vacuous


def test_unknown_backend_is_refused():
    """An unknown backend is refused naming it."""
    with pytest.raises(ValueError, match="backend='torch' must be one of 'numpy', 'jax'"):
        _frob().evaluate_log10(backend="torch", **{**FROB, "tau": 0.5})


def test_evaluate_log10_under_jit_says_to_use_lambdify():
    """Under jax.jit, evaluate_log10 says to use lambdify("jax") (it validates concrete values) instead of
    "is not an array of real numbers"."""
    import jax
    import jax.numpy as jnp

    b = registry.get_bound("alignment.frobenius")

    def f(tau):
        return b.evaluate_log10(backend="jax", tau=tau, batch_size=256, num_classes=100, delta=0.05, steps=1000,
                                eta_sum=10)

    with pytest.raises(ValueError, match=r"^tau is a traced JAX value: .* use bound.lambdify\('jax'\)"):
        jax.jit(f)(jnp.array([0.5, 0.1]))
