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
                                          ("nan", "must be a finite number >= 0"), ("abc", "must be a finite number >= 0")])
def test_a_bad_margin_is_refused_naming_the_option(text, words):
    """Negative, infinite, NaN or non-numeric margins: exit 2 with a message naming --basin-margin and the value."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "16", "--dim", "16", "--basin-margin", text])
    assert res.exit_code == 2 and "--basin-margin" in res.output and words in res.output
    with pytest.raises(Exception, match="--basin-margin"):
        parse_basin_margin(text)


def test_a_margin_given_to_a_dense_search_is_refused():
    """N = 6, d = 3 runs dense by default (and with --curvature dense): a given margin would do nothing there, so it
    is refused (exit 2) naming the option, the size and the way to make it apply; 'none' is accepted."""
    for extra in ([], ["--curvature", "dense"]):
        res = runner.invoke(app, ["landscape", "infonce", "--points", "6", "--dim", "3", *extra, "--basin-margin", "0.5"])
        assert res.exit_code == 2 and "--basin-margin=0.5 applies to Hessian-free searches" in res.output
        assert "N·d = 18" in res.output and "--curvature hessfree" in res.output


def test_a_non_default_curvature_gets_a_default_folder_of_its_own():
    """Without --out, --curvature hessfree at a dense size is its own search (its own folder), while auto and the
    size's default provider share one (folders made before keep their names)."""
    from contrastive_bounds.properties.cli.landscape import default_out
    from contrastive_bounds.properties.cli.landscape_options import LandscapeOptions

    spec = LandscapeOptions("infonce", points=6, dim=3, tau=0.1).spec()
    settings = {"starts": 16}
    auto, dense, hessfree = (default_out(spec, settings, c) for c in ("auto", "dense", "hessfree"))
    assert auto == dense == default_out(spec, settings) and hessfree != auto
    assert hessfree.parent == auto.parent and hessfree.name.startswith("infonce-N6-d3-tau0.1-")
