"""``landscape --basin-margin``: at scale the searches stop on leaving the basin they started from (1 below the
minimum by default), ``none`` runs every search to its end, and a bad value is refused naming the option (exit 2)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import contrastive_bounds.numerics.landscapes.network.search as network_search
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli.landscape_options import parse_basin_margin

runner = CliRunner()


class _Captured(Exception):
    """Raised by the stand-in search with the settings the command handed it."""


def _capture(land, **kw):
    raise _Captured(kw)


@pytest.mark.parametrize("given, expected", [(None, 1.0), ("0.25", 0.25), ("0", 0.0), ("none", None), ("NONE", None)])
def test_the_margin_reaches_the_search_at_scale(monkeypatch, tmp_path, given, expected):
    """N = 16, d = 16 (N·d = 256, at scale): the search is handed basin_margin = 1.0 by default, the given number,
    or None for 'none' (the stand-in search raises with its keyword arguments before anything runs)."""
    monkeypatch.setattr(network_search, "landscape_network", _capture)
    args = ["landscape", "infonce", "--points", "16", "--dim", "16", "--tau", "0.1", "--out", str(tmp_path / "o")]
    res = runner.invoke(app, args + ([] if given is None else ["--basin-margin", given]))
    assert isinstance(res.exception, _Captured)
    assert res.exception.args[0]["basin_margin"] == expected


@pytest.mark.parametrize("text, words", [("-1", "must be a finite number >= 0"), ("inf", "must be a finite number >= 0"),
                                          ("nan", "must be a finite number >= 0"), ("abc", "is not a number")])
def test_a_bad_margin_is_refused_naming_the_option(text, words):
    """Negative, infinite, NaN or non-numeric margins: exit 2 with a message naming --basin-margin and the value."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "16", "--dim", "16", "--basin-margin", text])
    assert res.exit_code == 2 and "--basin-margin" in res.output and words in res.output
    with pytest.raises(Exception, match="--basin-margin"):
        parse_basin_margin(text)
