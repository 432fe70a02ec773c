"""CKA and RSA are invariant to rescaling each argument (docs/theorems.md B5, case C10): every scale from 1e-100
to 1e100 gives the unscaled value, and constancy is judged relative to each input's own scale, so only
truly constant inputs are refused, naming the user's argument (absolute tolerances had turned small or
large inputs into "constant" errors, sometimes blaming the other argument)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from contrastive_bounds.numerics import alignment as S

SCALES = (1e-100, 1e-20, 1e-6, 1e6, 1e20, 1e100)


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
    """linear_cka(s*x, y) == linear_cka(x, s*y) == linear_cka(x, y) to 1e-12 relative for s in 1e-100..1e100,
    both estimators and both forms; the unscaled value is checked against an explicit H K H reference
    (biased) so the invariance is not of a wrong number."""
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


def test_linear_cka_of_small_and_large_random_inputs_equals_the_unscaled_value():
    """Rescaled random inputs of shapes (20, 100) at 1e-6 and (50, 8) at 1e-20..1e50 (which had raised
    'constant' errors) give the unscaled value, itself pinned to a known reference."""
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
    """The Gram form, fed Grams of scale s^2 (1e-200..1e200), gives the unscaled value, equal to the feature
    form's."""
    x, y = _pair((30, 5), seed=3)
    k, l = x @ x.T, y @ y.T
    ref = S.linear_cka_gram(k, l, debiased=debiased)
    assert ref == pytest.approx(S.linear_cka(x, y, debiased=debiased, method="features"), rel=1e-12)
    for s in SCALES:
        assert S.linear_cka_gram(s * s * k, l, debiased=debiased) == pytest.approx(ref, rel=1e-12), s
        assert S.linear_cka_gram(k, s * s * l, debiased=debiased) == pytest.approx(ref, rel=1e-12), s


def test_cosine_gram_cka_rho_and_rsa_are_scale_invariant():
    """cosine_gram_cka and rsa (Pearson, Spearman) at scales 1e-100..1e100 and cka_rho under a common
    rescaling keep their unscaled values (pinned to HKH and numpy references); cosine_gram of rows scaled
    to 1e-200 gives the same cosines."""
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
def test_constant_features_raise_naming_the_argument_at_any_scale(debiased, method):
    """Features whose rows are all equal (at any scale, also with mixed column scales) or all zero raise
    naming x or y (never the internal Gram k), and the other argument at an extreme scale is not blamed."""
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
    """Constant Grams, similarity matrices and RDMs (C10) raise naming their own argument at any scale, while
    the other argument, far from 1 in scale, is accepted."""
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
        with pytest.raises(ValueError, match=r"^rdm_b is constant.*C10"):
            S.rsa(1e-100 * (1 - g), const, input_scale=(1e-100, 1.0))
        with pytest.raises(ValueError, match=r"^rdm_a is constant.*C10"):
            S.rsa(const, 1 - g, method="spearman")
