"""`contrastive-bounds bound` on a bound whose factor cannot be determined (cancellation beyond
theory.bound.MAX_DIGITS and no log form) prints "undetermined" with the reason, not "log10 = None"."""

from __future__ import annotations

import math

import sympy as sp
from typer.testing import CliRunner

from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.theory import registry
from contrastive_bounds.theory.bound import Bound
from contrastive_bounds.theory.domains import Interval, Param
from contrastive_bounds.theory.source import Source


def test_undetermined_factor_is_reported(monkeypatch):
    x = Param("x", Interval(0, math.inf))
    bound = Bound("test.cancelling", "exp(x) - 1 without a log form", (x,), {"growth": sp.exp(x.symbol) - 1},
                  Source("test", None, "here"))
    monkeypatch.setitem(registry._REGISTRY, bound.name, bound)
    res = CliRunner().invoke(app, ["bound", "test.cancelling", "x=1e-5000"])
    assert res.exit_code == 0, res.output
    assert "undetermined" in res.output and "growth" in res.output and "None" not in res.output
    ok = CliRunner().invoke(app, ["bound", "test.cancelling", "x=1e-300", "--digits", "12"])
    assert "value = 1e-300" in ok.output  # exp(x) - 1 = x + x^2/2 + ...: resolved at ~640 digits
