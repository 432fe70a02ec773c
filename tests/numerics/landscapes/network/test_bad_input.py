"""Bad input to the network API is a ValueError naming the argument and its allowed range (A9)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import (
    SearchSettings,
    Symmetry,
    infonce_spec,
    landscape_network,
    landscape_spec,
    thomson_spec,
    user_spec,
)
from contrastive_bounds.numerics.landscapes._registry import get_landscape


@pytest.mark.parametrize("kwargs, match", [
    (dict(num_points=2, dim=3, tau=0.1), "num_points"),
    (dict(num_points=4, dim=1, tau=0.1), "dim"),
    (dict(num_points=4, dim=3, tau=0.0), "tau"),
    (dict(num_points=4, dim=3, tau=-1.0), "tau"),
    (dict(num_points=4, dim=3, tau=float("nan")), "tau"),
    (dict(num_points=4, dim=3, tau=float("inf")), r"tau=inf is outside \[0.0001, 10000\]"),
    (dict(num_points=4, dim=3, tau=0.1, pairs=[(0, 0)]), "pairs point 0 with itself"),
    (dict(num_points=4, dim=3, tau=0.1, pairs=[(0, 4)]), "pairs index"),
    (dict(num_points=4, dim=3, tau=0.1, pairs=[(0, 1), (1, 0)]), "listed twice"),
    (dict(num_points=4, dim=3, tau=0.1, pairs=[(0, 1, 2)]), "two point indices"),
    (dict(num_points=4, dim=3, tau=0.1, pairs=[]), "at least one"),
    (dict(num_points=4, dim=3, tau=0.1, radius=0.0), "radius"),
])
def test_infonce_spec_rejects_bad_arguments(kwargs, match):
    """N < 3, d < 2, tau <= 0 or NaN, a point paired with itself, a missing point, a repeated pair, a
    malformed or empty pair list, a non-positive radius: each a ValueError naming the argument."""
    with pytest.raises(ValueError, match=match):
        infonce_spec(**kwargs)


def test_user_potentials_are_probed():
    """A potential returning a vector, NaN, or failing on the input, or a declared symmetry it does not
    have, is refused before any search, with the reason."""
    with pytest.raises(ValueError, match=r"returned shape \(3, 2\)"):
        user_spec(lambda z: z, 3, 2)
    with pytest.raises(ValueError, match="non-finite"):
        user_spec(lambda z: jnp.sum(z) * jnp.nan, 3, 2)
    with pytest.raises(ValueError, match="potential failed"):  # numpy code cannot be traced by JAX
        user_spec(lambda z: float(np.sum(np.asarray(z))), 3, 2)
    with pytest.raises(ValueError, match="symmetry="):
        user_spec(lambda z: jnp.sum(z[:, 0]), 3, 2, symmetry=Symmetry.rotations())
    with pytest.raises(ValueError, match="potential="):
        user_spec("not a function", 3, 2)
    with pytest.raises(ValueError, match="dim"):
        user_spec(lambda z: jnp.sum(z), 3, 1)
    with pytest.raises(ValueError, match="thomson|num_points"):
        thomson_spec(1)


def test_non_smooth_landscape_and_bad_settings_are_refused():
    """The hard-max U0 has no Hessian (refused, pointing to the smooth surrogate); settings out of range
    and unknown settings are named; a non-spec is refused."""
    with pytest.raises(ValueError, match="infonce-toy-soft"):
        landscape_spec(get_landscape("infonce-toy"))
    with pytest.raises(ValueError, match="starts"):
        SearchSettings(starts=0)
    with pytest.raises(ValueError, match="gradient_tol"):
        SearchSettings(gradient_tol=-1.0)
    spec = infonce_spec(4, 3, 0.5)
    with pytest.raises(ValueError, match="unknown search setting"):
        landscape_network(spec, startz=3)
    with pytest.raises(ValueError, match="LandscapeSpec"):
        landscape_network(get_landscape("double-well"))


def test_a_nan_tau_names_the_range():
    """tau = NaN is refused with the range tau takes, as an out-of-range tau is (the CLI's --tau nan reads the same)."""
    from contrastive_bounds.numerics.landscapes.network.arguments import check_tau

    with pytest.raises(ValueError, match=r"^tau=nan is not allowed \(NaN\); tau takes numbers in \[0\.0001, 10000\]$"):
        check_tau(float("nan"))
