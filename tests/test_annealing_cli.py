"""Commands barrier, schedule, kramers (issue 3 'done when')."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli import app

runner = CliRunner()


def _json(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_barrier_double_well_json():
    out = _json(["barrier", "double-well", "--json"])
    assert abs(out["critical_height"] - 1.53125) <= out["error_bound"]
    assert abs(out["grid_critical_height"] - 1.53125) <= out["grid_error_bound"]
    assert out["cross_check"] == out["grid_critical_height"]


def test_barrier_triple_well_and_param_and_file(tmp_path):
    assert _json(["barrier", "triple-well", "--json"])["critical_height"] == pytest.approx(1.5215, abs=5e-5)
    assert _json(["barrier", "barrier-H", "H=5", "--json"])["critical_height"] == pytest.approx(5.0, rel=1e-13)
    p = tmp_path / "dw.json"
    p.write_text('{"cos": {"1": -0.5, "2": -1.0}}')
    assert _json(["barrier", str(p), "--json", "--resolution", "512"])["critical_height"] == pytest.approx(1.53125, abs=1e-12)


def test_schedule_consistent_across_conventions():
    for args in (["author", "c=0.5"], ["temperature", "c=2", "t0=1"], ["noise", "c=4", "t0=1"], ["generator", "c=2"]):
        out = _json(["schedule", *args, "--critical-height", "1.53125", "--json"])
        assert out["hks_constant"] == pytest.approx(2.0) and out["converges"] is True
        assert {row["converges"] for row in out["conventions"]} == {True}
        assert out["invalid_at_t0"] and "never clamped" in out["invalid_at_t0"]  # C12 reported
    out = _json(["schedule", "exponential", "c=1", "gamma=0.9", "--critical-height", "1", "--json"])
    assert out["converges"] is False and out["regime"] == "too-fast"


def test_kramers_double_well():
    out = _json(["kramers", "double-well", "--temperature", "0.1", "--json"])
    (rec,) = out["minima"]
    assert abs(rec["ratio"] - 1) < 0.05 and rec["barrier"] == 1.53125
    assert rec["exact_time"] == pytest.approx(3901113.73576, rel=1e-10)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["kramers", "double-well", "--temperature", "-1"], "temperature"),
        (["barrier", "nope"], "landscape='nope'"),
        (["schedule", "author", "c=1", "--critical-height", "1", "--t-start", "0", "--t-end", "5"], "t0=1.0"),
        (["schedule", "temperature", "c=x", "--critical-height", "1"], "c='x'"),
        (["barrier", "barrier-H", "H=-2"], "H=-2"),
    ],
)
def test_bad_input_exits_2(args, needle):
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert needle in res.output


def test_human_output():
    res = runner.invoke(app, ["kramers", "double-well", "--temperature", "0.2"])
    assert res.exit_code == 0 and "exact/Kramers" in res.output
