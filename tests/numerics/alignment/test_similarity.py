"""CKA and RSA (docs/theorems.md B5; cases C08, C09, C10), cross-checked against rsatoolbox."""

from __future__ import annotations

import math
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from contrastive_bounds.numerics import alignment as S
from contrastive_bounds.theory import cka_lower, rsa_lower

X8 = np.array([[1, 0], [0, 1], [1, 1], [2, 0], [0, 3], [1, 2.0]])
Y8 = np.array([[1], [2], [2.5], [3], [5], [4.0]])


@pytest.mark.parametrize("method", ["features", "gram"])
def test_debiased_and_biased_cka_c08(method):
    """C08: debiased 0.443590942249333263, biased 0.597879482636930631, in both forms."""
    assert S.linear_cka(X8, Y8, debiased=True, method=method) == pytest.approx(0.443590942249333263, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert S.linear_cka(X8, Y8, debiased=False, method=method) == pytest.approx(0.597879482636930631, rel=1e-12)


def test_unbiased_hsic_parts_c08():
    """C08: the unbiased HSIC terms equal their reference values."""
    k, l = X8 @ X8.T, Y8 @ Y8.T
    assert S.hsic_gram(k, k, debiased=True) == pytest.approx(88 / 45, rel=1e-12)
    assert S.hsic_gram(l, l, debiased=True) == pytest.approx(77 / 24, rel=1e-12)
    assert S.hsic_gram(k, l, debiased=True) == pytest.approx(10 / 9, rel=1e-12)


def test_debiased_needs_four_samples_c08():
    """C08: the debiased estimator needs n >= 4 and says so naming n, in both forms."""
    with pytest.raises(ValueError, match="n=3"):
        S.linear_cka(X8[:3], Y8[:3], debiased=True)
    with pytest.raises(ValueError, match="n=3"):
        S.linear_cka_gram(np.eye(3), np.eye(3), debiased=True)


def test_biased_warns_at_small_n():
    """The biased estimator warns that it is positively biased at small n."""
    with pytest.warns(UserWarning, match="positively biased"):
        S.linear_cka(X8, Y8, debiased=False)


def test_feature_and_gram_forms_agree_c09():
    """C09: (500, 20) vs (500, 30) standard normals: the two forms agree to 1e-15 absolute."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((500, 20)), rng.standard_normal((500, 30))
    for deb in (False, True):
        a = S.linear_cka(x, y, debiased=deb, method="features")
        b = S.linear_cka(x, y, debiased=deb, method="gram")
        assert abs(a - b) <= 1e-15


@pytest.mark.slow
def test_feature_form_has_no_n_by_n_allocation_c09():
    """C09: n = 100 000, d = 64: peak traced memory is O(n d), far below one n x n matrix (80 GB)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((100_000, 64))
    y = x @ rng.standard_normal((64, 64)) + rng.standard_normal((100_000, 64))
    tracemalloc.start()
    value = S.linear_cka(x, y, debiased=False)
    value_d = S.linear_cka(x, y, debiased=True)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 8 * x.nbytes  # a few copies of the inputs, never n^2
    assert 0.0 < value <= 1.0 and abs(value - value_d) < 0.01  # large n: the two estimators agree


def test_constant_inputs_raise_c10():
    """C10: constant features, RDMs and rows, a constant similarity matrix, a zero row of a cosine Gram and
    NaN input raise naming what is wrong instead of returning NaN."""
    z = np.ones((5, 3))
    with pytest.raises(ValueError, match="constant"):
        S.linear_cka(z, np.random.default_rng(0).standard_normal((5, 2)), debiased=True)
    with pytest.raises(ValueError, match="constant"):
        S.rsa(np.zeros((4, 4)), np.random.default_rng(0).random((4, 4)))
    with pytest.raises(ValueError, match="row 1 of z is constant"):
        S.rdm(np.array([[1.0, 2, 3], [2, 2, 2], [0, 1, 0]]), metric="correlation")
    with pytest.raises(ValueError, match="RSA is undefined"):
        S.rsa_from_similarity(np.ones((4, 4)), np.eye(4))
    with pytest.raises(ValueError, match="sigma_a = 0"):
        S.rsa_r(np.ones((4, 4)), np.eye(4))
    with pytest.raises(ValueError, match="zero row"):
        S.cosine_gram(np.array([[0.0, 0.0], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="NaN"):
        S.linear_cka(np.full((5, 2), np.nan), np.ones((5, 2)), debiased=False)


def test_rsa_against_rsatoolbox():
    """RDMs (correlation and cosine) and Pearson/Spearman RSA equal rsatoolbox's on random data."""
    import rsatoolbox

    rng = np.random.default_rng(7)
    za, zb = rng.standard_normal((12, 6)), rng.standard_normal((12, 6))
    zb = za + 0.7 * zb
    tb = {}
    for name, z in (("a", za), ("b", zb)):
        ds = rsatoolbox.data.Dataset(z)
        tb[name] = rsatoolbox.rdm.calc_rdm(ds, method="correlation")
        ours = S.upper_triangle(S.rdm(z, metric="correlation"))
        np.testing.assert_allclose(ours, tb[name].get_vectors()[0], rtol=1e-12, atol=1e-13)
    ours_p = S.rsa(S.rdm(za, metric="correlation"), S.rdm(zb, metric="correlation"), method="pearson")
    ours_s = S.rsa(S.rdm(za, metric="correlation"), S.rdm(zb, metric="correlation"), method="spearman")
    assert ours_p == pytest.approx(float(rsatoolbox.rdm.compare(tb["a"], tb["b"], method="corr")[0, 0]), rel=1e-12)
    assert ours_s == pytest.approx(float(rsatoolbox.rdm.compare(tb["a"], tb["b"], method="spearman")[0, 0]), rel=1e-12)


def test_cka_against_rsatoolbox_free_reference():
    """Cosine-Gram CKA equals the textbook HKH formula written with an explicit H."""
    rng = np.random.default_rng(3)
    s1 = S.cosine_gram(rng.standard_normal((9, 4)))
    s2 = S.cosine_gram(rng.standard_normal((9, 4)))
    h = np.eye(9) - np.ones((9, 9)) / 9
    k1, k2 = h @ s1 @ h, h @ s2 @ h
    ref = np.sum(k1 * k2) / (np.linalg.norm(k1) * np.linalg.norm(k2))
    assert S.cosine_gram_cka(s1, s2) == pytest.approx(ref, rel=1e-13)
    assert S.cka_rho(s1, s2) == pytest.approx(np.linalg.norm(k1 - k2) / np.linalg.norm(k1), rel=1e-13)


def test_spearman_canonicalises_rounding_noise():
    """Identical representations differing by 1e-16 noise give tied zero distances, not random ranks."""
    rng = np.random.default_rng(0)
    z = rng.standard_normal((6, 3))
    z = np.concatenate([z, z[:1] * (1 + 1e-15)])  # a near duplicate: distance ~1e-16 -> exactly 0
    d1 = S.rdm(z)
    d2 = S.rdm(z[:, ::-1].copy() * 1.0)
    a = S.canonical_zeros(S.upper_triangle(d1), 1e-12)
    assert np.sum(a == 0.0) >= 1
    assert S.rsa(d1, d1, method="spearman") == pytest.approx(1.0, abs=1e-15)
    assert -1.0 <= S.rsa(d1, d2, method="spearman") <= 1.0


@given(seed=st.integers(0, 2**31 - 1), m=st.integers(4, 12), scale=st.floats(1e-3, 3.0))
def test_cka_corollary_any_pair(seed, m, scale):
    """B5: for ANY pair with rho < 1, CKA >= sqrt(1 - rho^2) >= (1 - rho)/(1 + rho) (deterministic).

    sqrt(1 - rho^2) is the exact minimum of cos(K, K') given ||K - K'|| = rho ||K|| (law of cosines);
    the corollary's (1 - rho)/(1 + rho) is below it.
    """
    rng = np.random.default_rng(seed)
    s1 = rng.uniform(-1, 1, (m, m))
    s2 = s1 + scale * rng.standard_normal((m, m))
    cka, rho = S.cosine_gram_cka(s1, s2), S.cka_rho(s1, s2)
    if rho < 1:
        assert cka >= np.sqrt(1 - rho**2) - 1e-12
        assert cka >= cka_lower(rho) - 1e-12
    else:
        assert -1 - 1e-12 <= cka  # no better bound exists when rho >= 1 (see the counterexample test)


@given(seed=st.integers(0, 2**31 - 1), m=st.integers(4, 12), scale=st.floats(1e-3, 3.0), sym=st.booleans())
def test_rsa_corollary_any_pair(seed, m, scale, sym):
    """B5: Pearson RSA >= (1 - r)/(1 + r) when r < 1; for symmetric Sigma, ||b - a|| <= ||dSigma||_F/sqrt 2."""
    rng = np.random.default_rng(seed)
    s1 = rng.uniform(-1, 1, (m, m))
    s2 = s1 + scale * rng.standard_normal((m, m))
    if sym:
        s1, s2 = (s1 + s1.T) / 2, (s2 + s2.T) / 2
    r = S.rsa_r(s1, s2)
    if r < 1:
        assert S.rsa_from_similarity(s1, s2) >= rsa_lower(r) - 1e-12
    a, b = S.upper_triangle(1 - s1), S.upper_triangle(1 - s2)
    bound = np.linalg.norm(s1 - s2) / (np.sqrt(2) if sym else 1.0)
    assert np.linalg.norm(b - a) <= bound * (1 + 1e-12)


def test_corollaries_fail_beyond_rho_one():
    """Finding: with rho (or r) > 1 the corollary form (1 - x)/(1 + x) is NOT a valid lower bound.

    Sigma' = -Sigma gives rho = 2 and CKA = -1 < -1/3; the same pair gives RSA = -1 < (1 - r)/(1 + r).
    (Biased CKA of two PSD Grams is >= 0, so there the statement survives; for general Sigma and for
    Pearson RSA the valid bound at rho >= 1 is -1.)
    """
    rng = np.random.default_rng(0)
    s1 = rng.uniform(-1, 1, (6, 6))
    s1 = (s1 + s1.T) / 2
    s2 = -s1
    rho = S.cka_rho(s1, s2)
    assert rho == pytest.approx(2.0, rel=1e-14)
    cka = S.cosine_gram_cka(s1, s2)
    assert cka == pytest.approx(-1.0, abs=1e-14)
    assert cka < cka_lower(rho)
    r = S.rsa_r(s1, s2)
    assert r > 1 and S.rsa_from_similarity(s1, s2) < rsa_lower(r)


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(4, 40), d1=st.integers(1, 6), d2=st.integers(1, 6))
def test_feature_gram_forms_agree_property(seed, n, d1, d2):
    """Property: the feature and Gram forms of linear CKA agree on random shapes, biased and debiased."""
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal((n, d1)), rng.standard_normal((n, d2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for deb in (False, True):
            assert S.linear_cka(x, y, debiased=deb, method="features") == pytest.approx(
                S.linear_cka(x, y, debiased=deb, method="gram"), abs=1e-12)


def test_pearson_rsa_can_be_negative():
    """Pearson lies in [-1, 1]: anti-correlated RDMs give a negative RSA (a source's [0, 1] is wrong)."""
    d = np.array([[0, 1, 2, 3], [1, 0, 4, 5], [2, 4, 0, 6], [3, 5, 6, 0.0]])
    v = S.upper_triangle(d)
    e = np.zeros_like(d)
    e[np.triu_indices(4, 1)] = v.max() + v.min() - v
    e = e + e.T
    assert S.rsa(d, e) == pytest.approx(-1.0, abs=1e-14)
    assert S.rsa(d, e, method="spearman") == pytest.approx(stats.spearmanr(v, S.upper_triangle(e))[0], abs=1e-14)


# ------------------------------------------------------------------------------ input validation
def test_complex_input_raises_naming_the_argument():
    """Complex input raises a ValueError naming the argument instead of silently taking the real part (with a
    ComplexWarning)."""
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


def test_rsa_zero_tol_is_validated_and_relative():
    """rsa's zero_tol must be finite and in [0, 1) and is relative to each RDM's largest distance, so the
    canonicalised result does not depend on the inputs' scale."""
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


@pytest.mark.parametrize("bad", [None, "yes", 1, 0.0])
def test_debiased_must_be_a_bool(bad):
    """linear_cka, linear_cka_gram and hsic_gram refuse a non-bool debiased (None, 'yes', 1, 0.0 had been
    taken by truthiness), naming it; numpy's bool_ is accepted."""
    x = np.random.default_rng(0).standard_normal((6, 3))
    for call in (lambda: S.linear_cka(x, x, debiased=bad), lambda: S.linear_cka_gram(x @ x.T, x @ x.T, debiased=bad),
                 lambda: S.hsic_gram(x @ x.T, x @ x.T, debiased=bad)):
        with pytest.raises(ValueError, match=f"debiased={bad!r} must be True"):
            call()
    assert S.linear_cka(x, x, debiased=np.bool_(True)) == pytest.approx(1.0, rel=1e-14)


def test_zero_feature_input_says_no_features():
    """Input with zero features raises saying it has no features (with its shape) instead of a 'constant'
    error."""
    y = np.random.default_rng(0).standard_normal((5, 2))
    with pytest.raises(ValueError, match=r"x has no features \(shape \(5, 0\)\)"):
        S.linear_cka(np.zeros((5, 0)), y, debiased=True)
    with pytest.raises(ValueError, match=r"y has no features"):
        S.linear_cka(y, np.zeros((5, 0)), debiased=False)


def test_upper_triangle_values_and_validation():
    """upper_triangle returns the strict upper triangle row by row and refuses non-square or non-2-D input
    naming a and its shape."""
    a = np.arange(16.0).reshape(4, 4)
    np.testing.assert_array_equal(S.upper_triangle(a), [1.0, 2.0, 3.0, 6.0, 7.0, 11.0])
    assert S.upper_triangle(np.ones((1, 1))).shape == (0,)
    for bad in (np.zeros((3, 4)), np.zeros(3), np.zeros((2, 2, 2))):
        with pytest.raises(ValueError, match=rf"a must be a square 2-D matrix .*{re_shape(bad.shape)}"):
            S.upper_triangle(bad)


def re_shape(shape):
    return str(shape).replace("(", r"\(").replace(")", r"\)")

