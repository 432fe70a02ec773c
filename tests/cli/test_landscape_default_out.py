"""Command ``landscape`` without --out: each landscape and settings gets its own folder, runs never block each
other, a rerun continues its own search, and every run says where the search went."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli.landscape import DEFAULT_OUT
import pytest

runner = CliRunner()


def _saved_in(stderr: str) -> Path:
    (line,) = [x for x in stderr.splitlines() if x.startswith("search saved in ")]
    return Path(line.removeprefix("search saved in ").split(" (")[0])


@pytest.mark.slow
def test_two_landscapes_one_after_the_other_with_default_options(tmp_path, monkeypatch):
    """double-well then triple-well, no options: both exit 0, each says where its search went, the folders
    differ and live under contrastive-bounds-landscape/; the same command again reports its own finished search
    (same H*, 'reporting the finished search saved in'); other settings get another folder."""
    monkeypatch.chdir(tmp_path)
    first = runner.invoke(app, ["landscape", "double-well", "--json"])
    assert first.exit_code == 0, first.output
    second = runner.invoke(app, ["landscape", "triple-well", "--json"])
    assert second.exit_code == 0, second.output
    a, b = _saved_in(first.stderr), _saved_in(second.stderr)
    assert a != b and a.parent == b.parent == Path(DEFAULT_OUT)
    assert a.name.startswith("double-well-") and b.name.startswith("triple-well-")
    assert (tmp_path / a / "network.json").is_file() and (tmp_path / b / "network.json").is_file()
    h1 = json.loads(first.stdout)["critical_height"]
    assert json.loads(first.stdout)["saved_in"] == str(a)
    again = runner.invoke(app, ["landscape", "double-well", "--json"])
    assert again.exit_code == 0, again.output
    assert f"reporting the finished search saved in {a}" in again.stderr
    assert json.loads(again.stdout)["critical_height"] == h1
    other = runner.invoke(app, ["landscape", "double-well", "--seed", "1", "--json"])
    assert other.exit_code == 0, other.output
    assert _saved_in(other.stderr) not in (a, b)


def test_resume_without_a_saved_default_search_is_refused(tmp_path, monkeypatch):
    """--resume with no --out and nothing saved for these settings: exit 2, one line saying so."""
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["landscape", "double-well", "--resume"])
    assert res.exit_code == 2 and "nothing to resume" in res.output
