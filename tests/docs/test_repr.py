"""Notebook displays (issue 7): Outcome/CheckResult HTML and LaTeX, Bound/BoundValue."""

from __future__ import annotations

import re

from contrastive_bounds.properties.checks._framework import CheckResult
from contrastive_bounds.properties.checks._verdicts import compare_lower, compare_upper
from contrastive_bounds import theory as alignment
def test_outcome_html_shows_verdict_numbers_and_escapes() -> None:
    """An Outcome's notebook HTML shows the verdict and numbers, escapes HTML, and leaves out absent numbers
    instead of printing None."""
    o = compare_upper(2.0, 1.5, (1.2, 1.8), samples=400, what="a<b", false_alarm=1e-3)
    o.slack = {"L1": 3.25}
    h = o._repr_html_()
    assert h.startswith("<div><b>holds</b>") and "a&lt;b" in h and "a<b" not in h
    for text in ("<td>bound</td><td>2</td>", "<td>interval</td><td>[1.2, 1.8]</td>", "<td>ratio</td><td>0.75</td>",
                 "<td>false alarm</td><td>0.001</td>", "<td>samples</td><td>400</td>",
                 "<td>slack L1 (log10)</td><td>3.25</td>"):
        assert text in h, text
    assert "p-value" not in h  # absent numbers are left out, not shown as None


def test_outcome_latex_forms() -> None:
    """An Outcome's LaTeX shows holds / violated / vacuous and a bound beyond float64 as a power of ten."""
    assert compare_upper(2.0, 1.5)._repr_latex_() == (
        r"$\text{holds}:\ \text{empirical}=1.5,\ \text{bound}=2,\ \text{ratio}=0.75$")
    assert compare_lower(None, 1.0, reason="rho >= 1")._repr_latex_() == r"$\text{vacuous}$"
    assert r"\text{bound}=10^{400}" in compare_upper(None, 3.0, bound_log10=400.0)._repr_latex_()
    assert "VIOLATED" not in compare_upper(1.0, 2.0)._repr_latex_()
    assert compare_upper(1.0, 2.0)._repr_latex_().startswith(r"$\text{violated}")


def test_check_result_displays_wrap_the_outcome() -> None:
    """A CheckResult's displays name the check, scenario, seed and time, show an error, and wrap the Outcome's
    display."""
    o = compare_upper(2.0, 1.5)
    r = CheckResult("B4.theorem1", "alignment.frobenius", "stmt", "builtin", {}, 3, o, 1.5, {}, "quick",
                    error="ValueError: x")
    h = r._repr_html_()
    assert "<code>B4.theorem1</code> (builtin, seed 3, 1.5 s)" in h
    assert "<b>error</b>: ValueError: x" in h and o._repr_html_() in h
    assert r._repr_latex_() == o._repr_latex_()


def test_bound_and_value_displays() -> None:
    """A Bound displays as its LaTeX statement, a BoundValue as a table with one row per factor."""
    b = alignment.FROBENIUS
    assert b._repr_latex_() == f"${b.latex()}$" and r"\le" in b._repr_latex_()
    v = b.evaluate(tau=0.5, batch_size=256, num_classes=100, delta=0.05, steps=1000, eta_sum=10)
    h = v._repr_html_()
    assert "<code>alignment.frobenius</code> = 33.2138" in h
    assert len(re.findall(r"<tr><td>", h)) == len(v.factors)
