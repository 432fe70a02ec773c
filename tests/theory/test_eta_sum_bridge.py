"""The bridge from a network's learning-rate schedule to Theorem 1's S = Σ eta_t (similarity units):
S = response · Σ lr_t, checked on the one case where the response is known exactly (free embeddings
started orthonormal: response 4) by running the network's SGD steps in numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.theory._step_sizes import eta_sum_from_learning_rates


def test_constant_and_warmup_schedules_sum_exactly():
    """Constant lr: S = κ T lr; linear warm-up lr_t = a (t + 1)/W: S = κ a (W + 1)/2 (closed forms)."""
    assert eta_sum_from_learning_rates(np.full(1000, 0.1), response=4.0) == pytest.approx(400.0, rel=1e-15)
    w = 250
    warm = 0.2 * np.arange(1, w + 1) / w
    assert eta_sum_from_learning_rates(warm, response=2.5) == pytest.approx(2.5 * 0.2 * (w + 1) / 2, rel=1e-15)


def test_free_embeddings_gram_moves_by_response_times_learning_rates():
    """SGD on free embeddings Z (Σ = Z Zᵀ = I at the start) with a loss linear in Σ, L = <G, Σ>: after T
    small steps with a decaying schedule, Σ_T - Σ_0 = -S G up to O(lr²), with S from the bridge (κ = 4)."""
    rng = np.random.default_rng(0)
    m = 6
    g = rng.normal(size=(m, m))
    g = (g + g.T) / 2  # the proxy's symmetrised gradient
    z = np.eye(m)
    lrs = 1e-4 * (1 + np.cos(np.pi * np.arange(50) / 50)) / 2
    for lr in lrs:
        z = z - lr * (g + g.T) @ z  # dL/dZ = (G + Gᵀ) Z
    change = z @ z.T - np.eye(m)
    s = eta_sum_from_learning_rates(lrs, response=4.0)
    err = np.linalg.norm(change + s * g) / np.linalg.norm(s * g)
    assert err < 20 * float(np.sum(lrs)) * np.linalg.norm(g, 2)  # first order: error O(Σ lr · ||G||)
    assert err > 0  # second-order terms exist: the check is not vacuous
    wrong = np.linalg.norm(change + eta_sum_from_learning_rates(lrs, response=1.0) * g) / np.linalg.norm(s * g)
    assert wrong > 0.5  # response 1 (plain lr sum) misses the factor 4


def test_bad_schedules_are_refused():
    """Empty, 2-D, negative or NaN schedules and a non-positive response: ValueError naming the argument."""
    for bad in ([], [[0.1]], [0.1, -0.1], [math.nan]):
        with pytest.raises(ValueError, match="learning_rates"):
            eta_sum_from_learning_rates(bad, response=1.0)
    with pytest.raises(ValueError, match="response"):
        eta_sum_from_learning_rates([0.1], response=0.0)
