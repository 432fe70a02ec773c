"""A number option that does not parse says what it takes: its range as its help states it, on one line, exit 2
(``--tau abc`` had said only "Input should be a valid number"). ``anneal --checkpoint ''`` says a checkpoint is the
path of a .npz file in an existing folder (it had said "(str or os.PathLike)")."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app, main
from contrastive_bounds.properties.cli._common import help_range

runner = CliRunner()


def _main(monkeypatch, capsys, *argv: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["contrastive-bounds", *argv])
    with pytest.raises(SystemExit) as stop:
        main()
    err = capsys.readouterr().err
    return stop.value.code, err


@pytest.mark.parametrize("argv, words", [
    (["landscape", "infonce", "--tau", "abc"], ["--tau", "'abc' is not a number", "numbers in [1e-4, 1e4]"]),
    (["landscape", "infonce", "--seed", "1.5"], ["--seed", "'1.5' is not an integer", "integers in [0, 2^32 - 1]"]),
    (["landscape", "infonce", "--radius", "q"], ["--radius", "'q' is not a number", "numbers > 0"]),
    (["landscape", "infonce", "--pair-distance", "z"], ["'z' is not a number", "--pair-distance takes numbers in [0, 2]"]),
    (["landscape", "infonce", "--points", "x"], ["'x' is not an integer", "infonce (in [3, 1000000]", "thomson (in [2, 1000000]"]),
    (["landscape", "infonce", "--dim", "y"], ["'y' is not an integer", "--dim takes integers in [2, 16384]"]),
])
def test_a_number_option_that_does_not_parse_names_its_range(monkeypatch, capsys, argv, words):
    """One line "error: ...", exit 2, the value, what kind of number and the option's range (both ranges of an
    option whose help states two: its help)."""
    code, err = _main(monkeypatch, capsys, *argv)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    for w in words:
        assert w in lines[0], lines[0]


def test_the_range_is_read_from_the_help():
    """One stated range is returned as written; none or two different ones give None."""
    assert help_range("InfoNCE temperature in [1e-4, 1e4] (default 0.5)") == "in [1e-4, 1e4]"
    assert help_range("random starts K >= 1 (default 64; 8 above N·d = 192)") == ">= 1"
    assert help_range("sphere radius R > 0 (InfoNCE: tau -> tau/R^2)") == "> 0"
    assert help_range("number of independent chains") is None
    assert help_range("N: infonce (in [3, 1000000], default 8), thomson (in [2, 1000000], default 12)") is None


def test_an_empty_checkpoint_says_what_a_checkpoint_is():
    """--checkpoint '': exit 2, one line naming --checkpoint, a .npz file and an existing folder."""
    res = runner.invoke(app, ["anneal", "double-well", "--schedule", "fixed", "c=1", "--checkpoint", ""])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "--checkpoint=''" in lines[0] and ".npz file in an existing folder" in lines[0]
    assert "PathLike" not in res.output
