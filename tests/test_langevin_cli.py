"""The ``anneal`` command (properties/cli_langevin.py) through typer's CliRunner."""

import json

from typer.testing import CliRunner

from contrastive_bounds.properties.cli import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, ["anneal", *args])


def test_anneal_json_slow_and_fast_schedules_beside_theory():
    """c = 2 > H* = 1.53125: verdict converges and no chain stays trapped; c = 0.8 < H*: verdict
    does not converge and a clearly positive trapped fraction (Clopper-Pearson lower end > 0.1)."""
    common = ["--chains", "256", "--time", "100", "--step-size", "0.02", "--seed", "3", "--json"]
    slow = _run("double-well", "c=2.0", "t0=2", "--schedule", "temperature", *common)
    assert slow.exit_code == 0, slow.output
    out = json.loads(slow.output)
    assert out["theory"]["converges"] is True and out["critical_height"] == 1.53125
    assert out["trapped"]["ci95"][1] < 0.05
    fast = _run("double-well", "c=0.8", "t0=2", "--schedule", "temperature", *common)
    out = json.loads(fast.output)
    assert out["theory"]["converges"] is False
    assert out["trapped"]["ci95"][0] > 0.1
    assert 0 < out["theory"]["kramers_trap_probability"] < 1


def test_anneal_table_output():
    res = _run("double-well", "c=2.0", "t0=2", "--schedule", "temperature", "--chains", "32", "--time", "2", "--no-progress")
    assert res.exit_code == 0, res.output
    assert "success" in res.output and "Kramers" in res.output


def test_anneal_bad_input_exits_2_with_one_line():
    res = _run("double-well", "c=2.0", "--schedule", "temperature", "t0=1", "--chains", "8", "--time", "1")
    assert res.exit_code == 2 and "t0" in res.output
    res = _run("double-well", "c=-1", "--schedule", "temperature", "--time", "1")
    assert res.exit_code == 2 and "c=" in res.output
    res = _run("double-well", "c=2", "t0=2", "--schedule", "temperature", "--time", "1", "--step-size", "0.3")
    assert res.exit_code == 2 and "multiple of step_size" in res.output
    res = _run("vmf", "c=2", "t0=2", "--schedule", "temperature", "--time", "1")
    assert res.exit_code == 2 and "start=trap" in res.output
