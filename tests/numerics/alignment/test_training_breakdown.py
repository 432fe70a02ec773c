"""Float32 training that breaks down is an error naming tau / learning_rate, not a silent run: tau in
~[1e-38, 1e-22] had made Adam's second moment overflow, so every update was 0 and the metrics stayed
constant with exit 0, and tau = 1e-39 or learning_rate = 1e10 had failed after an epoch with "z contains
NaN or inf", naming no option."""

from __future__ import annotations

import pytest

from contrastive_bounds.numerics.alignment._training import TrainConfig, train_alignment

SMALL = dict(num_classes=2, epochs=1, batch_size=32, hidden=16, feature_dim=8, projection_dim=4,
             models=("cl",), probe=False)


def test_tau_below_the_float32_floor_is_refused_up_front():
    """tau below float32's smallest normal number is refused before training, naming the floor."""
    with pytest.raises(ValueError, match=r"^tau=1e-39 is below the smallest float32 temperature 1.1754943508222875e-38"):
        TrainConfig(tau=1e-39, **SMALL).validate()


@pytest.mark.slow
def test_adam_overflow_is_a_stall_error():
    """Adam's second moment overflowing float32 stops training with an error naming tau, instead of constant
    metrics and exit 0."""
    with pytest.raises(ValueError, match=r"training of 'cl' stalled in epoch 1: Adam's second moment overflowed float32"):
        train_alignment(TrainConfig(tau=1e-30, **SMALL))


@pytest.mark.slow
def test_divergence_names_the_learning_rate():
    """A non-finite loss or parameter stops training naming the learning rate to lower."""
    with pytest.raises(ValueError, match=r"training of 'cl' diverged in epoch 1 .* lower learning_rate=1e\+20"):
        train_alignment(TrainConfig(learning_rate=1e20, **SMALL))


@pytest.mark.slow
def test_an_ordinary_run_is_not_refused():
    """An ordinary run (tau = 0.5) trains normally."""
    res = train_alignment(TrainConfig(tau=0.5, **SMALL))
    assert len(res.history) == 1 and res.history[0]["train_loss"]["cl"] > 0
