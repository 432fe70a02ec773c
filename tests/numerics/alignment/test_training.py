"""Digits data, augmentations and shared-randomness training of CL/NSCL/SupCon/CE (docs/theorems.md B2, B8).

The ``align train`` command is tested in tests/cli/test_align.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds.numerics.alignment._data import augment, load_digits_subset
from contrastive_bounds.numerics.alignment._training import MODELS, TrainConfig, population_loss_gap, train_alignment
from contrastive_bounds.theory import loss_gap_value


def test_digits_subset():
    """The digits subset holds the asked classes, scaled to [0, 1], all samples split between train and test;
    11 classes are refused."""
    split = load_digits_subset(4, seed=1)
    assert split.x_train.shape[1] == 64 and set(np.unique(split.y_train)) == {0, 1, 2, 3}
    assert 0.0 <= split.x_train.min() and split.x_train.max() <= 1.0
    assert len(split.y_train) + len(split.y_test) == int(np.sum(np.isin(
        __import__("sklearn.datasets", fromlist=["load_digits"]).load_digits().target, [0, 1, 2, 3])))
    with pytest.raises(ValueError, match="num_classes=11"):
        load_digits_subset(11)


@pytest.mark.slow
def test_augment_shared_keys_and_identity():
    """Augmentation is a function of the key (shared randomness), the identity without noise or shift, and a
    shift moves a pixel by at most max_shift."""
    x = jnp.asarray(load_digits_subset(2).x_train[:5])
    k = jax.random.key(0)
    np.testing.assert_array_equal(np.asarray(augment(k, x)), np.asarray(augment(k, x)))  # same key, same view
    assert not np.array_equal(np.asarray(augment(k, x)), np.asarray(augment(jax.random.key(1), x)))
    np.testing.assert_array_equal(np.asarray(augment(k, x, noise_std=0.0, max_shift=0)), np.asarray(x))
    img = jnp.zeros((1, 64)).at[0, 3 * 8 + 3].set(1.0)  # one pixel at (3, 3)
    moved = np.asarray(augment(k, img, noise_std=0.0, max_shift=1)).reshape(8, 8)
    r, c = np.argwhere(moved == 1.0)[0]
    assert abs(r - 3) <= 1 and abs(c - 3) <= 1 and moved.sum() == 1.0


@given(seed=st.integers(0, 2**31 - 1), tau=st.floats(0.1, 3.0), num_classes=st.integers(2, 6))
@pytest.mark.slow
def test_population_loss_gap_within_bound(seed, tau, num_classes):
    """B2 on random embeddings (population N = 30): 0 <= L^DCL - L^NSCL <= loss_gap_value(tau, n_max/N)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, num_classes, 30)
    y[:2] = [0, 1]
    z1, z2 = rng.standard_normal((2, 30, 5))
    l_dcl, l_nscl = population_loss_gap(z1, z2, y, tau=tau)
    gap = l_dcl - l_nscl
    assert -1e-12 <= gap <= loss_gap_value(tau, np.bincount(y).max() / 30) * (1 + 1e-12)


@pytest.fixture(scope="module")
def small_run():
    cfg = TrainConfig(num_classes=3, epochs=2, batch_size=64, hidden=32, feature_dim=16, projection_dim=8, seed=3)
    return train_alignment(cfg)


@pytest.mark.slow
def test_training_records_per_epoch(small_run):
    """Training records one history entry per epoch, and a linear probe beats chance by far on three digit
    classes."""
    h = small_run.history
    assert [e["epoch"] for e in h] == [1, 2]
    for e in h:
        for pair in ("cl-nscl", "cl-supcon", "cl-ce"):
            assert 0.0 <= e["cka_z"][pair] <= 1.0 + 1e-12 and 0.0 <= e["cka_h"][pair] <= 1.0 + 1e-12
            assert -1.0 <= e["rsa"][pair] <= 1.0
        for m in MODELS:
            assert np.isfinite(e["train_loss"][m])
            assert 0.0 <= e["probe_accuracy"][m] <= 1.0 and 0.0 <= e["ncc_accuracy"][m] <= 1.0
        assert e["loss_gap_cl_holds"] and e["loss_gap_nscl_holds"]
        assert e["loss_gap_bound"] == pytest.approx(loss_gap_value(0.5, e["loss_gap_bound_pi_max"]), rel=1e-12)
    # 3 easy digit classes: a linear probe on any of the trained encoders beats chance (1/3) by far
    assert min(h[-1]["probe_accuracy"].values()) > 0.8


@pytest.mark.slow
def test_model_subset_and_shared_compilation_across_tau():
    """models=("cl","nscl") trains only those; runs differing only in tau reuse one jitted epoch."""
    import contrastive_bounds.numerics.alignment._training as training

    cfg = TrainConfig(num_classes=3, tau=0.5, epochs=1, batch_size=64, models=("cl", "nscl"), probe=False)
    before = training._make_epoch.cache_info().misses
    r1 = train_alignment(cfg)
    r2 = train_alignment(TrainConfig(**{**cfg.__dict__, "tau": 0.2}))
    assert training._make_epoch.cache_info().misses - before <= 1
    assert set(r1.history[0]["cka_z"]) == {"cl-nscl"} and r1.history[0]["probe_accuracy"] == {}
    assert r1.history[0]["loss_gap_cl"] != r2.history[0]["loss_gap_cl"]  # tau really changes the run
    import pytest

    with pytest.raises(ValueError, match="models"):
        TrainConfig(models=("nscl",)).validate()
