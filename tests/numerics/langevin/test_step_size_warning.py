"""`simulate` itself warns (StepSizeWarning) when h·sup|V''| > 1 on an S¹ Fourier landscape or when one
step's noise exceeds a radian (only the `anneal` command had warned, with its own copy of the first test,
and the Python API ran such steps silently). `anneal` reporting the warning: tests/cli/test_anneal.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from contrastive_bounds.numerics.langevin import SimulationConfig, simulate
from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin._kernel import StepSizeWarning, langevin_kernel

Z = np.tile(np.array([[[1.0, 0.0]]]), (2, 1, 1))


def test_curvature_bound_is_the_fourier_bound():
    """The kernel's curvature bound is the Fourier bound Σ k²(|a_k| + |b_k|), its warning names the step size
    and a safe one, and non-Fourier landscapes have none."""
    k = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.01)
    assert k.potential.curvature_bound == pytest.approx(0.5 * 1 + 1.0 * 4)  # Σ k²(|a_k|+|b_k|) of −½cos θ − cos 2θ
    assert k.step_size_warning() is None
    big = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.25)
    assert big.step_size_warning().startswith("step_size=0.25 is large for this landscape: h * sup|V''| can reach 1.12 > 1")
    assert "use step_size < 0.222" in big.step_size_warning()
    assert langevin_kernel(get_landscape("infonce-toy"), temperature=0.3, step_size=10.0).potential.curvature_bound is None


@pytest.mark.slow
def test_simulate_warns_only_when_too_large():
    """simulate warns when h·sup|V''| > 1 and is silent for a small step."""
    land = get_landscape("barrier-H", H=1000.0)
    with pytest.warns(StepSizeWarning, match=r"h \* sup\|V''\| can reach"):
        simulate(langevin_kernel(land, temperature=0.3, step_size=0.02), Z, SimulationConfig(num_steps=2, seed=0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", StepSizeWarning)
        simulate(langevin_kernel(land, temperature=0.3, step_size=1e-4), Z, SimulationConfig(num_steps=2, seed=0))


@pytest.mark.slow
def test_simulate_warns_when_one_step_of_noise_exceeds_a_radian():
    """simulate warns when one step's noise sqrt(2·T·h) exceeds a radian, and an absurd step gives both
    warnings."""
    land = get_landscape("double-well")
    with pytest.warns(StepSizeWarning) as rec:
        simulate(langevin_kernel(land, temperature=1e3, step_size=0.01), Z, SimulationConfig(num_steps=2, seed=0))
    texts = [str(w.message) for w in rec]
    assert len(texts) == 1  # h * sup|V''| = 0.045 is fine; sqrt(2 T h) = sqrt(20) is not
    assert "sqrt(2*T*h) = 4.47 rad > 1" in texts[0] and "use step_size < 0.0005" in texts[0]
    with pytest.warns(StepSizeWarning) as rec:  # an absurd step: both reasons
        simulate(langevin_kernel(land, temperature=1.0, step_size=1e30), Z, SimulationConfig(num_steps=2, seed=0))
    assert len(rec) == 2
