"""simulate's configuration validates its arguments when it is built, with a ValueError naming the argument:
``target`` and ``basins`` must be predicates (a number had given a JAX TypeError or "'int' object is not callable"), and
every seed in [0, 2**32 - 1] (the keys ``jax.random.key`` distinguishes) is taken, one beyond refused."""

from __future__ import annotations

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin import (Arc, DriverOptions, EnergyBelow, SimulationConfig, langevin_kernel,
                                                  simulate)
from contrastive_bounds.numerics.langevin._experiments import start_positions
from contrastive_bounds.theory._schedules import make_schedule
from contrastive_bounds.theory._domains import MAX_SEED


def _kernel():
    land = get_landscape("double-well")
    return langevin_kernel(land, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.02)


KERNEL = _kernel()

TOO_BIG = MAX_SEED + 1


def _start(chains: int = 8) -> np.ndarray:
    pos = np.zeros((chains, 1, 2))
    pos[:, 0, 0] = -1.0  # theta = pi
    return pos


KW = dict(num_steps=200, seed=5, record_every=20)
OPTIONS = DriverOptions(chunk_steps=100)


@pytest.mark.parametrize("target", [3, "arc", 1.5, [Arc(-0.5, 0.5)]])
def test_target_must_be_callable(target):
    """A target that is not a predicate (3, 'arc', a list of arcs) is a ValueError naming target, not a JAX
    TypeError."""
    with pytest.raises(ValueError, match=r"^target=.* must be None or a predicate"):
        SimulationConfig(target=target, **KW)


@pytest.mark.parametrize("basins", [[3], 3, Arc(-0.5, 0.5), "ab", [Arc(-0.5, 0.5), None], {Arc(-0.5, 0.5)}])
def test_basins_must_be_a_sequence_of_callables(basins):
    """basins must be a sequence of predicates: a number, a single Arc, a string, a set or a None entry is a
    ValueError naming basins (or basins[i])."""
    with pytest.raises(ValueError, match=r"^basins(\[\d\])?=.* (must be a sequence|is not a predicate)"):
        SimulationConfig(basins=basins, **KW)


@pytest.mark.slow
def test_valid_target_and_basins_still_run():
    """The validation accepts Arc, EnergyBelow, a plain function, and a list or tuple of basins."""

    def left(position, potential):  # noqa: ANN001
        return position[0, 0] < 0

    config = SimulationConfig(target=EnergyBelow(-0.9), basins=[Arc(-1.6, 1.6), left], **KW)
    assert config.basins == (Arc(-1.6, 1.6), left)  # kept as a tuple (hashable, ordered: the first match wins)
    res = simulate(KERNEL, _start(), config, OPTIONS)
    assert res.occupancy.shape == (8, 2)
    np.testing.assert_allclose(res.occupancy.sum(axis=1) <= 1.0 + 1e-12, True)


@pytest.mark.slow
def test_simulate_and_start_positions_take_every_seed_up_to_2_32_minus_1():
    """simulate and start_positions take seed 2**32 - 1 and refuse 2**32 naming seed; the start draw and the
    simulation's noise use different keys (fold_in(key(seed), 1) vs key(seed))."""
    land = get_landscape("double-well")
    z = start_positions(land, "uniform", 3, MAX_SEED)
    assert z.shape == (3, 1, 2) and np.allclose(np.linalg.norm(z, axis=-1), 1.0, atol=1e-12)
    # the start draw and the simulation's noise use different keys (fold_in(key(seed), 1) vs key(seed))
    assert not np.allclose(z, start_positions(land, "uniform", 3, MAX_SEED - 1))
    kernel = langevin_kernel(land, temperature=0.3, step_size=0.01)
    res = simulate(kernel, z, SimulationConfig(num_steps=4, seed=MAX_SEED))
    assert np.all(np.isfinite(res.running_min))
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside"):
        SimulationConfig(num_steps=4, seed=TOO_BIG)
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside"):
        start_positions(land, "uniform", 3, TOO_BIG)

