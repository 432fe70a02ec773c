"""Command ``landscape``: H*, minima with multiplicities, verified TSs, PNG; bad input; Ctrl-C + --resume."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

runner = CliRunner()
SMALL = ["--starts", "8", "--hop-rounds", "1", "--patience", "1", "--ts-rounds", "1"]
INFONCE = ["landscape", "infonce", "--points", "8", "--dim", "3", "--tau", "0.1"]


@pytest.mark.slow
def test_the_docs_example_finds_its_trap_with_the_defaults(tmp_path):
    """`landscape infonce --points 4 --dim 2 --tau 0.1 --json` with default settings: the trap with both pairs
    split antipodally and orthogonal, V = 1/τ + log 2, is found and H* = 0.2819042504 (its escape saddle at
    10.97505143 minus the trap), 'complete' with the closure stated; every minimum says what found it; the PNG
    exists; a finished search resumes to the same report at once (tables this time)."""
    args = ["landscape", "infonce", "--points", "4", "--dim", "2", "--tau", "0.1"]
    res = runner.invoke(app, [*args, "--json", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "complete" and out["closed"] and out["closure"].startswith("closed under single-ended")
    assert out["critical_height"] == pytest.approx(0.2819042504, abs=1e-9)
    energies = sorted(m["energy"] for m in out["minima"])
    assert energies == pytest.approx([-20.0 + math.log(2.0), 10.0 + math.log(2.0)], abs=1e-9)
    assert all(m["found_by"] in ("random start", "structured start", "hop", "eigenvector following", "double-ended")
               for m in out["minima"])
    assert [m["label"] for m in out["minima"]] == [f"m{m['id']}" for m in out["minima"]]
    assert out["saved_in"] == str(tmp_path) and (tmp_path / "disconnectivity.png").stat().st_size > 1000
    assert f"search saved in {tmp_path}" in res.stderr
    again = runner.invoke(app, [*args, "--out", str(tmp_path), "--resume"])
    assert again.exit_code == 0, again.output
    assert "critical height H*" in again.stdout and "0.2819042504" in again.stdout and "closed under" in again.stdout


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


def _stopped_while_hopping(folder, monkeypatch):
    """The small InfoNCE search into ``folder``, stopped by a Ctrl-C (``KeyboardInterrupt``) at its first basin-hopping
    progress report; the search's own function is restored afterwards. Returns the CliRunner result."""
    from contrastive_bounds.numerics.landscapes.network import search as search_module

    real = search_module.landscape_network  # the command imports it when it runs (no JAX before its options pass)

    def interrupted(*args, **kwargs):
        def progress(phase, done, total, info):
            if phase == "hops":
                raise KeyboardInterrupt
        return real(*args, **{**kwargs, "progress": progress})

    monkeypatch.setattr(search_module, "landscape_network", interrupted)
    try:
        return runner.invoke(app, [*INFONCE, "--out", str(folder), *SMALL])
    finally:
        monkeypatch.setattr(search_module, "landscape_network", real)


@pytest.mark.slow
def test_ctrl_c_then_resume_keeps_every_minimum(tmp_path, monkeypatch):
    """Ctrl-C during basin hopping: exit 130 with a line saying what to rerun; the saved state holds the
    minima found; --resume continues from it (starts not redone) and reports them."""
    res = _stopped_while_hopping(tmp_path, monkeypatch)
    assert res.exit_code == 130 and "--resume" in res.output
    saved = json.loads((tmp_path / "network.json").read_text())
    assert saved["minima"] and saved["effort"]["starts"] == 8
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), "--resume", "--json", *SMALL])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert {m["energy"] for m in saved["minima"]} <= {m["energy"] for m in out["minima"]}
    assert out["effort"]["starts"] == 8


@pytest.mark.slow
def test_a_resume_says_so_only_once_the_saved_search_is_accepted(tmp_path, monkeypatch):
    """``--out DIR --resume`` of a search stopped early says "resuming the search saved in DIR/network.json" once
    the search runs; a resume refused for other settings says nothing of the kind before its one-line refusal, which
    names each differing setting or landscape parameter as its option, and what to do."""
    assert _stopped_while_hopping(tmp_path, monkeypatch).exit_code == 130
    other = [*SMALL[:1], "3", *SMALL[2:]]  # --starts 3
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), "--resume", *other])
    assert res.exit_code == 2 and "resume refused" in res.output and "resuming" not in res.output, res.output
    assert "differs in --starts: saved 8, now 3; rerun with the saved values" in res.output, res.output
    res = runner.invoke(app, [*INFONCE[:-1], "0.2", "--out", str(tmp_path), "--resume", *SMALL])
    assert res.exit_code == 2 and "differs in --tau: saved 0.1, now 0.2;" in res.output, res.output
    assert "probe" not in res.output and "{" not in res.output, res.output  # the parameter, not the dict and hash
    res = runner.invoke(app, ["landscape", "thomson", "--points", "4", "--dim", "3", "--out", str(tmp_path),
                              "--resume"])
    assert res.exit_code == 2, res.output
    assert ("differs in landscape name: saved 'infonce', now 'thomson'; continue it with `contrastive-bounds "
            "landscape infonce ... --out <that folder> --resume`") in res.output, res.output
    assert "--pairs" not in res.output and "permutations" not in res.output, res.output  # not the name's consequences
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), "--resume", *SMALL[:2], "--hop-rounds", "2",
                              *SMALL[4:]])
    assert res.exit_code == 2 and "differs in --hop-rounds: saved 1, now 2" in res.output, res.output
    res = runner.invoke(app, [*INFONCE, "--out", str(tmp_path), "--resume", *SMALL])
    assert res.exit_code == 0 and f"resuming the search saved in {tmp_path / 'network.json'}" in res.output, res.output
