"""One seed range, [0, 2**32 - 1], for every entry point (tester3 #13: anneal took [0, 2**31 - 2],
simulate [0, 2**32 - 1], the align commands [0, inf)). Outside it ``jax.random.key`` either aliases
(without x64, key(2**32) is key(0)) or overflows (with x64, above 2**63)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.langevin import simulate
from contrastive_bounds.numerics.langevin.experiments import start_positions
from contrastive_bounds.numerics.landscapes.registry import get_landscape
from contrastive_bounds.numerics.langevin.kernel import langevin_kernel
from contrastive_bounds.numerics.alignment.descent_run import DescentConfig, make_problem
from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.theory.domains import MAX_SEED, check_seed

runner = CliRunner()
TOO_BIG = MAX_SEED + 1


def test_the_range_is_what_jax_keys_distinguish():
    assert MAX_SEED == 2**32 - 1
    assert check_seed(MAX_SEED) == MAX_SEED and check_seed(np.uint32(7)) == 7
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside its domain: integers in \[0, 4294967295\]$"):
        check_seed(TOO_BIG)
    with pytest.raises(ValueError, match=r"^seed=-1 is outside"):
        check_seed(-1)


def test_simulate_and_start_positions_take_the_top_of_the_range():
    land = get_landscape("double-well")
    z = start_positions(land, "uniform", 3, MAX_SEED)
    assert z.shape == (3, 1, 2) and np.allclose(np.linalg.norm(z, axis=-1), 1.0, atol=1e-12)
    # the start draw and the simulation's noise use different keys (fold_in(key(seed), 1) vs key(seed))
    assert not np.allclose(z, start_positions(land, "uniform", 3, MAX_SEED - 1))
    kernel = langevin_kernel(land, temperature=0.3, step_size=0.01)
    res = simulate(kernel, z, num_steps=4, seed=MAX_SEED, progress=False)
    assert np.all(np.isfinite(res.running_min))
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside"):
        simulate(kernel, z, num_steps=4, seed=TOO_BIG, progress=False)
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside"):
        start_positions(land, "uniform", 3, TOO_BIG)


def test_alignment_entry_points_refuse_a_seed_jax_would_alias():
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside"):
        make_problem(8, 2, seed=TOO_BIG)
    with pytest.raises(ValueError, match=r"^seed=4294967296 is outside"):
        DescentConfig(batch_size=4, steps=2, tau=0.5, step_size=0.1, seed=TOO_BIG).validate(8)


@pytest.mark.parametrize("argv", [
    ["anneal", "double-well", "c=2", "--schedule", "temperature", "--chains", "4", "--time", "0.1"],
    ["align", "simulate"],
])
def test_commands_name_the_seed_range(argv):
    res = runner.invoke(app, [*argv, "--seed", str(TOO_BIG)])
    assert res.exit_code == 2, res.output
    assert "seed=4294967296 is outside its domain: integers in [0, 4294967295]" in res.output
