"""Dissimilarities at rounding level (docs/theorems.md B5, C10): noise is judged at the scale of the input
patterns, never ranked as signal, and Spearman ties do not depend on the computation path."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from contrastive_bounds.numerics import alignment as S
from contrastive_bounds.numerics.alignment._rsa import RDM_NOISE_ULPS


def _rotation(seed: int, d: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))
    return q


def _tied_patterns() -> np.ndarray:
    """Unit patterns whose pairwise distances take only a few exact values (many exact ties)."""
    e = np.eye(4)
    mids = np.array([e[0] + e[1], e[2] + e[3], e[0] + e[2]]) / np.sqrt(2.0)
    return np.vstack([e, mids])


def test_rdm_of_identical_patterns_up_to_rounding_is_refused_naming_it():
    """Near-identical patterns (1e-16 apart) give an RDM of pure rounding noise: RSA raises naming it
    instead of ranking the noise (a tolerance relative to the RDM's own max could not tell)."""
    rng = np.random.default_rng(0)
    base = rng.standard_normal(5)
    noisy = base + 1e-16 * rng.standard_normal((6, 5))
    other = S.rdm(rng.standard_normal((6, 5)))
    for method in ("pearson", "spearman"):
        with pytest.raises(ValueError, match=r"^rdm_a is constant to rounding: every entry is rounding noise"):
            S.rsa(S.rdm(noisy), other, method=method)
        with pytest.raises(ValueError, match=r"^rdm_b is constant to rounding"):
            S.rsa(other, S.rdm(noisy), method=method)
    g = S.cosine_gram(rng.standard_normal((6, 5)))
    with pytest.raises(ValueError) as err:
        S.rsa_from_similarity(S.cosine_gram(noisy), g)
    assert str(err.value).startswith("sigma_a equals 1 off the diagonal to rounding: every distance of 1 - sigma_a "
                                     "is rounding noise")
    assert "input_scale" not in str(err.value) and "rdm_" not in str(err.value)  # not an argument of this function
    with pytest.raises(ValueError, match=r"^sigma_b equals 1 off the diagonal to rounding"):
        S.rsa_from_similarity(g, S.cosine_gram(noisy), method="spearman")


def test_rsa_from_similarity_names_its_own_arguments_for_a_constant_matrix():
    """A similarity matrix with every off-diagonal entry equal (not 1): refused naming sigma_a / sigma_b,
    never the internal RDM or a parameter the function does not take."""
    g = S.cosine_gram(np.random.default_rng(4).standard_normal((6, 3)))
    const = np.full((6, 6), 0.25)
    for method in ("pearson", "spearman"):
        with pytest.raises(ValueError, match=r"^sigma_b is constant off the diagonal .*C10") as err:
            S.rsa_from_similarity(g, const, method=method)
        assert "input_scale" not in str(err.value)
        with pytest.raises(ValueError, match=r"^sigma_a is constant off the diagonal"):
            S.rsa_from_similarity(const, g, method=method)


def test_small_but_real_distances_are_kept():
    """Patterns 1e-5 rad apart (distances ~1e-11, far above the noise of unit patterns) keep their
    order: Spearman against the exact distances 2 sin^2(dtheta/2) is 1, Pearson near 1."""
    theta = 1e-5 * np.array([0.0, 1.0, 2.5, 4.0, 7.0, 11.0])
    z = np.stack([np.cos(theta), np.sin(theta), np.zeros_like(theta)], axis=1)
    exact = 2.0 * np.sin((theta[:, None] - theta[None, :]) / 2.0) ** 2
    assert S.rsa(S.rdm(z), exact, method="spearman") == 1.0
    assert S.rsa(S.rdm(z), exact) == pytest.approx(1.0, abs=1e-4)


def test_noise_level_is_the_input_scale_not_the_rdm_maximum():
    """The same tiny RDM is noise for unit patterns and signal for patterns of scale 1e-20."""
    rng = np.random.default_rng(3)
    d = 1e-20 * S.rdm(rng.standard_normal((6, 3)))
    ref = S.rdm(rng.standard_normal((6, 3)))
    with pytest.raises(ValueError, match="rounding noise"):
        S.rsa(d, ref)
    assert S.rsa(d, ref, input_scale=(1e-20, 1.0)) == pytest.approx(S.rsa(1e20 * d, ref), rel=1e-12)
    with pytest.raises(ValueError, match=r"input_scale\[0\]=0.0"):
        S.rsa(ref, ref, input_scale=0.0)


def test_gram_path_and_rdm_path_give_identical_spearman_on_tied_inputs():
    """Equal distances computed along two paths (a plain Gram u u^T of rotated patterns vs rdm() of
    differently rotated ones) differ in their last bits; Spearman is bit-identical all the same, and
    equals Spearman of the exact distances with exact ties."""
    z = _tied_patterns()
    other = S.rdm(np.random.default_rng(7).standard_normal((7, 4)))
    values = []
    for seed in range(4):
        zr = z @ _rotation(seed, 4)
        u = zr / np.linalg.norm(zr, axis=1, keepdims=True)
        values.append(S.rsa_from_similarity(u @ u.T, 1.0 - other, method="spearman"))  # Gram path
        values.append(S.rsa(S.rdm(zr), other, method="spearman"))  # RDM path
    exact = np.round(1.0 - z @ z.T, 12)  # the exact distances: 0, 1 - 1/2, 1 - 1/sqrt 2, 1
    reference = stats.spearmanr(S.upper_triangle(exact), S.upper_triangle(other))[0]
    assert len(set(values)) == 1, values
    assert values[0] == pytest.approx(reference, abs=1e-14)


def test_rank_with_ties_groups_values_within_the_tolerance():
    """Single-linkage tie groups at the tolerance; tol = 0 is scipy's average rank."""
    v = np.array([1.0, 1.0 + 1e-15, 2.0, 0.5, 2.0 - 1e-15, 3.0])
    assert S.rank_with_ties(v, 1e-12).tolist() == [2.5, 2.5, 4.5, 1.0, 4.5, 6.0]
    w = np.random.default_rng(1).integers(0, 4, 50).astype(float)
    np.testing.assert_array_equal(S.rank_with_ties(w, 0.0), stats.rankdata(w))
    assert RDM_NOISE_ULPS * np.finfo(float).eps < 1e-13  # real unit-pattern distances are never noise
