"""One seed range, [0, 2**32 - 1], for every command (`anneal` had taken [0, 2**31 - 2] and the align
commands [0, inf)): outside it ``jax.random.key`` either aliases (without x64, key(2**32) is key(0)) or
overflows (with x64, above 2**63). The library entry points are tested beside their modules
(theory/test_domains.py, numerics/langevin/test_simulate_arguments.py, numerics/alignment/test_descent.py)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.theory._domains import MAX_SEED

runner = CliRunner()
TOO_BIG = MAX_SEED + 1


@pytest.mark.parametrize("argv", [
    ["anneal", "double-well", "c=2", "--schedule", "temperature", "--chains", "4", "--time", "0.1"],
    ["align", "simulate"],
])
def test_commands_name_the_seed_range(argv):
    """anneal and align simulate refuse --seed 2**32 with exit 2 naming the range [0, 2**32 - 1]."""
    res = runner.invoke(app, [*argv, "--seed", str(TOO_BIG)])
    assert res.exit_code == 2, res.output
    assert "--seed=4294967296 is outside its domain: integers in [0, 4294967295]" in res.output


@pytest.mark.parametrize("option", ["--seed", "--agree-seed"])
def test_landscape_seeds_share_the_range(option):
    """landscape --seed and --agree-seed take the same range as anneal --seed (they had taken [0, 2**63 - 1]):
    2**32 exits 2 with one line naming the option and [0, 2**32 - 1], before the potential is built; the largest
    seed is accepted by the option check (the help says the range)."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", option, str(TOO_BIG)])
    assert res.exit_code == 2, res.output
    assert f"{option}=4294967296 is outside its domain: integers in [0, 4294967295]" in res.output
    text = runner.invoke(app, ["landscape", "--help"]).output.replace("│", " ")
    assert " ".join(text.split()).count("[0, 2^32 - 1]") >= 2
