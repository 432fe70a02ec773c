"""Regressions for the alignment-side findings of the new-user test report tester3 (#5, #8, #14).

CKA and RSA are invariant to rescaling each argument, so every scale from 1e-100 to 1e100 must give
the unscaled value, constancy is judged relative to each input's own scale, and errors name the
user's argument. The CLI must never print a vacuous corollary bound as a live bound.
"""

from __future__ import annotations

import json
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.alignment import similarity as S
from contrastive_bounds.numerics.alignment.losses import masked_logsumexp
from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.theory.registry import get

SCALES = (1e-100, 1e-20, 1e-6, 1e6, 1e20, 1e100)
runner = CliRunner()


def _pair(shape, seed=0):
    """x and a correlated y (CKA well away from 0, so relative comparisons are meaningful)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    y = x @ rng.standard_normal((shape[1], shape[1])) + rng.standard_normal(shape)
    return x, y


@pytest.mark.parametrize("shape", [(20, 100), (50, 8)])
@pytest.mark.parametrize("debiased", [False, True])
@pytest.mark.parametrize("method", ["auto", "features", "gram"])
def test_linear_cka_is_scale_invariant(shape, debiased, method):
    """tester3 #5: linear_cka(s*x, y) == linear_cka(x, y) == linear_cka(x, s*y) to 1e-12 relative for
    s in 1e-100..1e100, both estimators, both forms; the unscaled value is checked against an explicit
    H K H reference (biased) so the invariance is not of a wrong number."""
    x, y = _pair(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = S.linear_cka(x, y, debiased=debiased, method=method)
        if not debiased:
            n = shape[0]
            h = np.eye(n) - 1.0 / n
            k, l = h @ x @ x.T @ h, h @ y @ y.T @ h
            assert ref == pytest.approx(np.sum(k * l) / (np.linalg.norm(k) * np.linalg.norm(l)), rel=1e-12)
        assert abs(ref) > 0.05
        for s in SCALES:
            assert S.linear_cka(s * x, y, debiased=debiased, method=method) == pytest.approx(ref, rel=1e-12), s
            assert S.linear_cka(x, s * y, debiased=debiased, method=method) == pytest.approx(ref, rel=1e-12), s
            assert S.linear_cka(s * x, s * y, debiased=debiased, method=method) == pytest.approx(ref, rel=1e-12), s


def test_tester3_reported_cases():
    """tester3 #5: the exact calls from the report no longer raise and give the unscaled values."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(20, 100)), rng.normal(size=(20, 100))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = S.linear_cka(x, y, debiased=False)
        assert ref == pytest.approx(0.8202522029563977, rel=1e-12)
        assert S.linear_cka(1e-6 * x, y, debiased=False) == pytest.approx(ref, rel=1e-12)
    x, y = rng.normal(size=(50, 8)), rng.normal(size=(50, 8))
    ref = S.linear_cka(x, y, debiased=False)
    for s in (1e20, 1e50, 1e-8, 1e-20):
        for method in ("features", "gram"):
            assert S.linear_cka(s * x, y, debiased=False, method=method) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("debiased", [False, True])
def test_linear_cka_gram_is_scale_invariant(debiased):
    """tester3 #5: the Gram form, fed Grams of scale s^2 (1e-200..1e200), gives the unscaled value."""
    x, y = _pair((30, 5), seed=3)
    k, l = x @ x.T, y @ y.T
    ref = S.linear_cka_gram(k, l, debiased=debiased)
    assert ref == pytest.approx(S.linear_cka(x, y, debiased=debiased, method="features"), rel=1e-12)
    for s in SCALES:
        assert S.linear_cka_gram(s * s * k, l, debiased=debiased) == pytest.approx(ref, rel=1e-12), s
        assert S.linear_cka_gram(k, s * s * l, debiased=debiased) == pytest.approx(ref, rel=1e-12), s


def test_cosine_gram_cka_rho_and_rsa_are_scale_invariant():
    """tester3 #5: cosine_gram_cka and rsa (Pearson, Spearman) at 1e-100..1e100; cka_rho under a
    common rescaling; cosine_gram of rows scaled to 1e-200 gives the same cosines."""
    rng = np.random.default_rng(5)
    za = rng.standard_normal((10, 4))
    zb = za + 0.5 * rng.standard_normal((10, 4))
    s1, s2 = S.cosine_gram(za), S.cosine_gram(zb)
    np.testing.assert_allclose(S.cosine_gram(1e-200 * za), s1, rtol=0, atol=1e-15)
    d1, d2 = 1.0 - s1, 1.0 - s2
    cka, rho = S.cosine_gram_cka(s1, s2), S.cka_rho(s1, s2)
    h = np.eye(10) - 0.1
    k1, k2 = h @ s1 @ h, h @ s2 @ h
    assert cka == pytest.approx(np.sum(k1 * k2) / (np.linalg.norm(k1) * np.linalg.norm(k2)), rel=1e-13)
    pear, spear = S.rsa(d1, d2), S.rsa(d1, d2, method="spearman")
    assert pear == pytest.approx(np.corrcoef(S.upper_triangle(d1), S.upper_triangle(d2))[0, 1], rel=1e-13)
    for s in SCALES:
        assert S.cosine_gram_cka(s * s1, s2) == pytest.approx(cka, rel=1e-12), s
        assert S.cosine_gram_cka(s1, s * s2) == pytest.approx(cka, rel=1e-12), s
        assert S.cka_rho(s * s1, s * s2) == pytest.approx(rho, rel=1e-12), s
        # invariant to rescaling an RDM together with the scale of its patterns (input_scale)
        assert S.rsa(s * d1, d2, input_scale=(s, 1.0)) == pytest.approx(pear, rel=1e-12), s
        assert S.rsa(d1, s * d2, input_scale=(1.0, s)) == pytest.approx(pear, rel=1e-12), s
        assert S.rsa(s * d1, d2, method="spearman", input_scale=(s, 1.0)) == pytest.approx(spear, rel=1e-12), s


@pytest.mark.parametrize("debiased", [False, True])
@pytest.mark.parametrize("method", ["features", "gram"])
@pytest.mark.filterwarnings("ignore:biased linear CKA")
def test_truly_constant_inputs_raise_naming_the_argument(debiased, method):
    """tester3 #5: all rows equal (at any scale, also with mixed column scales) or all zero raises,
    naming x or y (never k); the other argument at an extreme scale is not blamed."""
    rng = np.random.default_rng(1)
    good = rng.standard_normal((12, 3))
    constants = [np.zeros((12, 3)), np.tile([1.0, -2.0, 3.0], (12, 1)),
                 np.tile([1e-200, 3e150, -2.0], (12, 1)), 1e-250 * np.ones((12, 3))]
    for const in constants:
        with pytest.raises(ValueError, match=r"^x is constant"):
            S.linear_cka(const, 1e100 * good, debiased=debiased, method=method)
        with pytest.raises(ValueError, match=r"^y is constant"):
            S.linear_cka(1e-100 * good, const, debiased=debiased, method=method)


def test_constant_grams_and_rdms_raise_naming_the_argument():
    """tester3 #5 / C10: constant Grams, similarity matrices and RDMs raise naming their argument, at
    any scale, while the other argument is far from 1 in scale."""
    rng = np.random.default_rng(2)
    g = S.cosine_gram(rng.standard_normal((8, 3)))
    for c in (0.0, 1.0, 1e-120, 1e120):
        const = np.full((8, 8), c)
        with pytest.raises(ValueError, match=r"^k is constant"):
            S.linear_cka_gram(const, 1e100 * g, debiased=False)
        with pytest.raises(ValueError, match=r"^l is constant"):
            S.linear_cka_gram(1e-100 * g, const, debiased=False)
        with pytest.raises(ValueError, match=r"unbiased self-HSIC of l"):
            S.linear_cka_gram(g, const, debiased=True)
        with pytest.raises(ValueError, match=r"^sigma_a is constant"):
            S.cosine_gram_cka(const, 1e-100 * g)
        with pytest.raises(ValueError, match=r"^sigma_b is constant"):
            S.cosine_gram_cka(1e100 * g, const)
        # a constant RDM of unit-scale patterns at 0 or 1e-120 is rounding noise: refused, naming it
        with pytest.raises(ValueError, match=r"^rdm_b is constant.*C10"):
            S.rsa(1e-100 * (1 - g), const, input_scale=(1e-100, 1.0))
        with pytest.raises(ValueError, match=r"^rdm_a is constant.*C10"):
            S.rsa(const, 1 - g, method="spearman")


def test_complex_input_raises_naming_the_argument():
    """tester3 #14: complex input raises ValueError naming the argument (no silent .real)."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((10, 3)), rng.standard_normal((10, 2))
    d = S.rdm(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ComplexWarning would be the old behaviour
        with pytest.raises(ValueError, match=r"^x has complex dtype"):
            S.linear_cka(x + 1j * x, y, debiased=False)
        with pytest.raises(ValueError, match=r"^y has complex dtype"):
            S.linear_cka(x, y.astype(complex), debiased=True)
        with pytest.raises(ValueError, match=r"^l has complex dtype"):
            S.linear_cka_gram(x @ x.T, (x @ x.T).astype(complex), debiased=False)
        with pytest.raises(ValueError, match=r"^rdm_a has complex dtype"):
            S.rsa(d + 0j, d)
        with pytest.raises(ValueError, match=r"^sigma_b has complex dtype"):
            S.cosine_gram_cka(1 - d, (1 - d) * 1j)
        with pytest.raises(ValueError, match=r"^z has complex dtype"):
            S.rdm(x * 1j)


def test_rsa_validates_zero_tol():
    """tester3 #14: zero_tol must be finite and in [0, 1) (relative); in-range values canonicalise."""
    rng = np.random.default_rng(6)
    d = S.rdm(rng.standard_normal((6, 3)))
    for bad, msg in ((-1, r"zero_tol=-1 is outside its domain \[0, 1\)"), (math.nan, "zero_tol=nan"),
                     (math.inf, "zero_tol=inf must be finite"), (1.0, "zero_tol=1.0 is outside")):
        with pytest.raises(ValueError, match=msg):
            S.rsa(d, d, zero_tol=bad)
    # relative tolerance: distances below 0.3 * max|d| become 0 -> Pearson on the canonicalised triangles
    e = d.copy()
    e[0, 1] = 1e-3 * d.max()
    a = S.upper_triangle(d)
    b = S.upper_triangle(e)
    ref = np.corrcoef(np.where(a <= 0.3 * a.max(), 0, a), np.where(b <= 0.3 * b.max(), 0, b))[0, 1]
    assert S.rsa(d, e, zero_tol=0.3) == pytest.approx(ref, rel=1e-13)
    assert S.rsa(1e-50 * d, 1e50 * e, zero_tol=0.3, input_scale=(1e-50, 1e50)) == pytest.approx(ref, rel=1e-12)


def test_masked_logsumexp_all_minus_inf_row():
    """tester3 #14: a row whose unmasked entries are all -inf gives -inf (not NaN) with a finite, zero
    gradient; other rows keep their exact values and softmax gradients."""
    x = jnp.array([[-jnp.inf, -jnp.inf, 1.0], [1.0, 2.0, 3.0], [-jnp.inf, 0.5, -jnp.inf]])
    m = jnp.array([[True, True, False], [True, False, True], [True, True, False]])
    out = masked_logsumexp(x, m)
    assert out[0] == -jnp.inf
    assert float(out[1]) == pytest.approx(math.log(math.e + math.e ** 3), rel=1e-15)
    assert float(out[2]) == 0.5
    g_all = jax.grad(lambda a: masked_logsumexp(a, jnp.array([True, True])))(jnp.array([-jnp.inf, -jnp.inf]))
    np.testing.assert_array_equal(np.asarray(g_all), [0.0, 0.0])
    g = jax.grad(lambda a: jnp.sum(jnp.where(jnp.isfinite(masked_logsumexp(a, m)), masked_logsumexp(a, m), 0.0)))(x)
    sm = np.exp([1.0, 3.0]) / np.exp([1.0, 3.0]).sum()
    np.testing.assert_allclose(np.asarray(g), [[0, 0, 0], [sm[0], 0, sm[1]], [0, 1, 0]], rtol=1e-14, atol=0)
    assert float(jax.jit(masked_logsumexp)(jnp.array([-jnp.inf, -jnp.inf]), jnp.array([True, True]))) == -math.inf


def test_align_simulate_marks_vacuous_cka_bound():
    """tester3 #8: the tester's run (rho = 1.034) marks the CKA corollary vacuous in text and JSON, with
    the reason the registered bound gives (as `bound alignment.cka_lower rho=...` does); the existing
    keys keep their values; the RSA bound (r < 1) stays a live bound."""
    args = ["align", "simulate", "--num-samples", "100", "--steps", "50", "--eta", "1e6"]
    res = runner.invoke(app, args + ["--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["rho"] == pytest.approx(1.034, abs=5e-4) and out["r"] < 1
    assert out["cka_lower"] == pytest.approx((1 - out["rho"]) / (1 + out["rho"]), rel=1e-12)
    reason = get("alignment.cka_lower").evaluate(rho=out["rho"]).reason
    assert reason and "rho >= 1" in reason
    assert out["cka_lower_vacuous"] == reason
    assert out["rsa_lower_vacuous"] is None
    assert out["rsa_lower"] == pytest.approx((1 - out["r"]) / (1 + out["r"]), rel=1e-12)
    assert out["cka_lower_prior"] <= 0 and "no guarantee" in out["cka_lower_prior_vacuous"]
    text = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert text.exit_code == 0, text.output
    line = next(ln for ln in text.stdout.splitlines() if ln.startswith("CKA = "))
    assert f"corollary bound {out['cka_lower']:.6f} is vacuous: {reason}" in line
    assert f">= {out['cka_lower']:.6f}" not in line
    assert f"RSA = {out['rsa']:.6f} >= {out['rsa_lower']:.6f}" in line


def test_align_simulate_live_bounds_have_no_vacuity():
    """tester3 #8: with rho, r < 1 both corollaries are live: *_vacuous is null and the text says >=."""
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "100", "--steps", "20", "--json"])
    out = json.loads(res.stdout)
    assert out["rho"] < 1 and out["r"] < 1
    assert out["cka_lower_vacuous"] is None and out["rsa_lower_vacuous"] is None
    assert out["cka"] >= out["cka_lower"] > 0


def test_align_simulate_help_states_pi_max():
    """tester3 #14: help says classes are as balanced as n allows and pi_max = ceil(n/C)/n; the run
    with C=3, n=100 reports exactly ceil(100/3)/100 = 0.34."""
    h = runner.invoke(app, ["align", "simulate", "--help"], env={"COLUMNS": "400"})
    assert "ceil(n/C)/n" in h.stdout and "pi_max = 1/C)" not in h.stdout
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "100", "--num-classes", "3", "--steps", "5",
                              "--json"])
    assert json.loads(res.stdout)["pi_max"] == math.ceil(100 / 3) / 100
