"""Comparing users' embeddings in feature form (docs/theorems.md B5): equal to the Gram forms, memory-safe, bad input."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from contrastive_bounds.numerics.alignment._compare import (
    compare_embeddings, feature_pair_stats, feature_rho, load_embeddings, load_labels)
from contrastive_bounds.numerics.alignment._cka import cka_rho, cosine_gram_cka, linear_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r
from contrastive_bounds import theory as alignment
def _unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("d2", [6, 9])
def test_feature_form_equals_the_gram_form(d2):
    """CKA (biased, debiased), rho, r, RSA Pearson and Spearman in feature form equal the n x n Gram computations."""
    rng = np.random.default_rng(d2)
    x = rng.standard_normal((150, 6)) + 0.5
    y = np.concatenate([x, rng.standard_normal((150, d2 - 6))], axis=1) + 0.4 * rng.standard_normal((150, d2))
    u, v = _unit(x), _unit(y)
    sa, sb = np.clip(u @ u.T, -1, 1), np.clip(v @ v.T, -1, 1)
    out = compare_embeddings(x, y, cross_check_max_n=0)
    assert out["cross_check"] is None
    assert out["cka"]["cosine"]["biased"] == pytest.approx(cosine_gram_cka(sa, sb), abs=1e-12)
    assert out["cka"]["cosine"]["debiased"] == pytest.approx(linear_cka(u, v, debiased=True, method="gram"), abs=1e-12)
    assert out["cka"]["linear"]["biased"] == pytest.approx(linear_cka(x, y, debiased=False, method="gram"), abs=1e-12)
    assert out["rho"] == pytest.approx(cka_rho(sa, sb), rel=1e-10)
    assert out["r"] == pytest.approx(rsa_r(sa, sb), rel=1e-10)
    assert out["rsa"]["pearson"] == pytest.approx(rsa_from_similarity(sa, sb), abs=1e-12)
    assert out["rsa"]["spearman"]["method"] == "exact"
    assert out["rsa"]["spearman"]["value"] == pytest.approx(rsa_from_similarity(sa, sb, method="spearman"), abs=1e-12)


def test_lower_bounds_hold_and_match_the_theory():
    """The corollary and sharp bounds are alignment.cka_lower/rsa_lower(_sharp) at rho, r, and hold."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((300, 8))
    out = compare_embeddings(x, x + 0.2 * rng.standard_normal(x.shape))
    b = out["bounds"]
    assert b["cka"]["corollary"] == pytest.approx(alignment.cka_lower(out["rho"]))
    assert b["cka"]["sharp"] == pytest.approx(alignment.cka_lower_sharp(out["rho"]))
    assert b["rsa"]["corollary"] == pytest.approx(alignment.rsa_lower(out["r"]))
    assert b["cka"]["holds"] and b["rsa"]["holds"]
    assert out["cka"]["cosine"]["biased"] >= b["cka"]["sharp"] >= b["cka"]["corollary"]
    far = compare_embeddings(x, rng.standard_normal((300, 5)))
    assert far["rho"] >= 1 and far["bounds"]["cka"]["vacuous"] and far["bounds"]["cka"]["corollary"] is None


def test_identical_embeddings_give_rho_zero_without_cancellation():
    """The D/P form: identical inputs give rho = r = 0 exactly and CKA = RSA = 1 (no negative round-off)."""
    x = np.random.default_rng(2).standard_normal((500, 7))
    assert feature_rho(_unit(x), _unit(x)) == 0.0
    st = feature_pair_stats(_unit(x), _unit(x))
    assert st["r"] == 0.0 and st["rsa_pearson"] == pytest.approx(1.0, abs=1e-12)


def test_hundred_thousand_rows_never_form_an_n_by_n_matrix():
    """n = 10^5: peak memory stays far below one n x n float64 matrix (80 GB); Spearman on a stated subsample."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((100_000, 8))
    y = x + 0.5 * rng.standard_normal(x.shape)
    labels = rng.integers(0, 10, 100_000)
    tracemalloc.start()
    try:
        out = compare_embeddings(x, y, labels, spearman_sample=500)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6
    assert "subsample of 500" in out["rsa"]["spearman"]["method"] and out["cross_check"] is None
    assert 0 < out["cka"]["cosine"]["biased"] < 1 and out["labels"]["num_classes"] == 10


def test_load_embeddings_and_labels(tmp_path):
    """npy and npz (one array, or one named with key); a 1-D array and (n, 1) labels are refused, not
    reshaped; bad files name the argument."""
    x = np.arange(20.0).reshape(10, 2) + 1
    np.save(tmp_path / "a.npy", x)
    np.savez(tmp_path / "b.npz", z=x)
    np.savez(tmp_path / "c.npz", z=x, w=x)
    np.testing.assert_array_equal(load_embeddings(str(tmp_path / "a.npy"), "CL"), x)
    np.testing.assert_array_equal(load_embeddings(str(tmp_path / "c.npz"), "CL", key="w"), x)
    assert load_embeddings(str(tmp_path / "b.npz"), "CL").shape == (10, 2)
    with pytest.raises(ValueError, match=r"CL=.*holds 2 arrays \['w', 'z'\]: name one with key=NAME"):
        load_embeddings(str(tmp_path / "c.npz"), "CL")
    bad = x.copy()
    bad[3] = 0
    np.save(tmp_path / "z.npy", bad)
    with pytest.raises(ValueError, match="NSCL=.*zero row at index 3"):
        load_embeddings(str(tmp_path / "z.npy"), "NSCL")
    bad[3, 0] = np.nan
    np.save(tmp_path / "n.npy", bad)
    with pytest.raises(ValueError, match="non-finite value in row 3"):
        load_embeddings(str(tmp_path / "n.npy"), "NSCL")
    np.save(tmp_path / "s.npy", np.array(["a", "b"]))
    with pytest.raises(ValueError, match="real numeric"):
        load_embeddings(str(tmp_path / "s.npy"), "CL")
    with pytest.raises(ValueError, match="no such file"):
        load_embeddings(str(tmp_path / "missing.npy"), "CL")
    np.save(tmp_path / "y.npy", np.arange(10) % 3)
    assert load_labels(str(tmp_path / "y.npy"), 10).shape == (10,)
    with pytest.raises(ValueError, match="shape \\(11,\\)"):
        load_labels(str(tmp_path / "y.npy"), 11)
    np.save(tmp_path / "one.npy", x[:, 0])
    with pytest.raises(ValueError, match=r"^CL=.* is 1-D \(shape \(10,\)\): embeddings must be 2-D"):
        load_embeddings(str(tmp_path / "one.npy"), "CL")
    np.save(tmp_path / "col.npy", (np.arange(10) % 3)[:, None])
    with pytest.raises(ValueError, match=r"^labels=.* has shape \(10, 1\): labels must be 1-D of shape \(10,\).*ravel"):
        load_labels(str(tmp_path / "col.npy"), 10)
    np.save(tmp_path / "row.npy", (np.arange(10) % 3)[None, :])
    with pytest.raises(ValueError, match=r"has shape \(1, 10\)"):
        load_labels(str(tmp_path / "row.npy"), 10)


def test_constant_and_mismatched_inputs_raise():
    """A representation with all rows equal has no rho or RSA; different n is refused; the messages name
    the function's own arguments (x_cl, x_nscl), which the command line shows as CL and NSCL."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((50, 3))
    with pytest.raises(ValueError, match=r"^x_cl is constant: all n rows point the same way"):
        compare_embeddings(np.ones((50, 3)), x)
    with pytest.raises(ValueError, match=r"^x_nscl is constant"):
        compare_embeddings(x, np.ones((50, 3)))
    with pytest.raises(ValueError, match=r"^x_cl and x_nscl must be 2-D with the same number of rows"):
        compare_embeddings(x, x[:40])
