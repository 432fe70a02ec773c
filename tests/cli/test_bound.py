"""The ``contrastive-bounds bound`` command: exact inputs beyond float64 are evaluated exactly, and a bound
whose factor cannot be determined is reported as undetermined with the reason."""

from __future__ import annotations

import math

import sympy as sp
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._bound import Bound
from contrastive_bounds.theory._domains import Interval, Param
from contrastive_bounds.theory._source import Source


def test_undetermined_factor_is_reported(monkeypatch):
    """A factor whose cancellation needs more than MAX_DIGITS and has no log form prints "undetermined"
    with the factor's name, not "log10 = None"; a resolvable point still gives its value."""
    x = Param("x", Interval(0, math.inf))
    bound = Bound("test.cancelling", "exp(x) - 1 without a log form", (x,), {"growth": sp.exp(x.symbol) - 1},
                  Source("test", None, "here"))
    monkeypatch.setitem(registry._REGISTRY, bound.name, bound)
    import contrastive_bounds.properties.cli._theory as cli_theory

    monkeypatch.setattr(cli_theory, "MAX_MAGNITUDE", 6000)  # the command line's limit is 10^-1000; this test needs less
    res = CliRunner().invoke(app, ["bound", "test.cancelling", "x=1e-5000"])
    assert res.exit_code == 0, res.output
    assert "undetermined" in res.output and "growth" in res.output and "None" not in res.output
    ok = CliRunner().invoke(app, ["bound", "test.cancelling", "x=1e-300", "--digits", "12"])
    assert "value = 1e-300" in ok.output  # exp(x) - 1 = x + x^2/2 + ...: resolved at ~640 digits


def test_eta_sum_1e400_is_evaluated_beyond_float64():
    """`bound ... eta_sum=1e400` evaluates (it had been refused as 'inf must be finite'), names growth as the
    dominant factor and prints the value beyond float64."""
    res = CliRunner().invoke(app, ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100",
                                   "delta=0.05", "steps=1000", "eta_sum=1e400", "--digits", "8"])
    assert res.exit_code == 0, res.output
    assert "dominant factor: growth" in res.output
    assert "3.3929256e+397 (beyond float64)" in res.output



def test_titles_with_square_brackets_are_printed_as_text_not_markup():
    """A title holding "[t_start, t_start + duration]" shows in `list` and `bound` (rich would drop it as a tag)."""
    from typer.testing import CliRunner

    from contrastive_bounds.properties.cli._app import app

    res = CliRunner().invoke(app, ["list"])
    assert res.exit_code == 0 and "over [t_start, t_start + duration] under" in res.output


def test_a_non_integer_for_an_integer_parameter_is_echoed_as_typed():
    """batch_size is an integer parameter of alignment.frobenius; `batch_size=2.5` was echoed as the exact fraction
    the parser made of it (`batch_size=5/2`)."""
    assert registry.get("alignment.frobenius").param("batch_size").integer
    base = ["bound", "alignment.frobenius", "num_classes=10", "delta=0.05", "eta_sum=10", "tau=0.5"]
    for typed in ("batch_size=2.5", "batch_size=2.5e0", "batch_size=5/2"):
        res = CliRunner().invoke(app, [*base, "steps=100", typed])
        assert res.exit_code == 2 and res.output == f"error: {typed} must be an integer\n", res.output
