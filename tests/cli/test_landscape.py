"""Command ``landscape``: H*, minima with multiplicities, verified TSs, PNG; bad input; Ctrl-C + --resume."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli import landscape as landscape_cli
from contrastive_bounds.properties.cli.app import app

runner = CliRunner()
SMALL = ["--starts", "8", "--hop-rounds", "1", "--patience", "1", "--ts-rounds", "1"]
INFONCE = ["landscape", "infonce", "--points", "8", "--dim", "3", "--tau", "0.1"]


def test_infonce_json_prints_h_star_minima_transition_states_and_writes_the_png(tmp_path):
    """The documented command: JSON with H*, the minima (multiplicity, energy) and the transition states;
    the only minimum is the tetrahedron of collapsed pairs, V = −1/τ − 1/(3τ) + log 6 (every negative at
    cosine −1/3), so H* = 0 'barrier-free within this search' with the effort; the PNG exists."""
    res = runner.invoke(app, [*INFONCE, "--json", "--out", str(tmp_path), *SMALL])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["critical_height"] == 0.0 and out["status"] == "barrier-free within this search"
    (m,) = out["minima"]
    assert m["energy"] == pytest.approx(-10.0 - 10.0 / 3.0 + math.log(6.0), abs=1e-10)
    assert m["multiplicity"] == 1 and m["global"] and m["verified"]
    assert isinstance(out["transition_states"], list) and out["effort"]["starts"] == 8
    assert "starts" in out["effort_text"]
    assert (tmp_path / "disconnectivity.png").stat().st_size > 1000
    assert out["disconnectivity_png"] == str(tmp_path / "disconnectivity.png")
    # a finished search resumes to the same report at once (human-readable tables this time)
    again = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), "--resume", *SMALL])
    assert again.exit_code == 0, again.output
    assert "critical height H*" in again.stdout and "barrier-free within this search" in again.stdout


@pytest.mark.parametrize("args, word", [
    (["landscape", "infonce", "--points", "2"], "--points"),
    (["landscape", "infonce", "--dim", "1"], "--dim"),
    (["landscape", "infonce", "--tau", "0"], "--tau"),
    (["landscape", "infonce", "--tau", "-0.5"], "--tau"),
    (["landscape", "infonce", "--points", "4", "--pairs", "0-0"], "with itself"),
    (["landscape", "infonce", "--points", "4", "--pairs", "0-4"], "pairs index"),
    (["landscape", "infonce", "--pairs", "0-a"], "--pairs"),
    (["landscape", "thomson", "--tau", "0.1"], "--tau"),
    (["landscape", "double-well", "--points", "3"], "--points"),
    (["landscape", "infonce-toy"], "infonce-toy-soft"),
    (["landscape", "no-such-landscape"], "no such built-in"),
    (["landscape", "infonce", "--starts", "0"], "--starts"),
    (["landscape", "infonce", "--radius", "0"], "--radius"),
])
def test_bad_input_exits_2_with_one_line_naming_the_argument(args, word, tmp_path):
    """Each bad argument: exit code 2 and one line on stderr naming it (no traceback)."""
    res = runner.invoke(app, [*args, "--out", str(tmp_path)])
    assert res.exit_code == 2, res.output
    assert word in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_resume_with_nothing_saved_exits_2(tmp_path):
    """--resume on an empty folder: exit 2, 'nothing to resume'."""
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path / "none"), "--resume"])
    assert res.exit_code == 2 and "nothing to resume" in res.output


def test_ctrl_c_then_resume_keeps_every_minimum(tmp_path, monkeypatch):
    """Ctrl-C during basin hopping: exit 130 with a line saying what to rerun; the saved state holds the
    minima found; --resume continues from it (starts not redone) and reports them."""
    real = landscape_cli.landscape_network

    def interrupted(*args, **kwargs):
        def progress(phase, done, total, info):
            if phase == "hops":
                raise KeyboardInterrupt
        return real(*args, **{**kwargs, "progress": progress})

    monkeypatch.setattr(landscape_cli, "landscape_network", interrupted)
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), *SMALL])
    assert res.exit_code == 130 and "--resume" in res.output
    saved = json.loads((tmp_path / "network.json").read_text())
    assert saved["minima"] and saved["effort"]["starts"] == 8
    monkeypatch.setattr(landscape_cli, "landscape_network", real)
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), "--resume", "--json", *SMALL])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert {m["energy"] for m in saved["minima"]} <= {m["energy"] for m in out["minima"]}
    assert out["effort"]["starts"] == 8
