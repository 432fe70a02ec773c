"""report.md escapes Markdown, report.html carries the same per-check facts, both end with a glossary,
and the figures carry information (no bar chart of four values at 1.0)."""

from __future__ import annotations

from pathlib import Path

import markdown

from contrastive_bounds.properties.checks._framework import CheckResult
from contrastive_bounds.properties.checks._outcome import Outcome
from contrastive_bounds.properties._glossary import GLOSSARY
from contrastive_bounds.properties._report import md_escape, write_report
from contrastive_bounds.properties._runner import SuiteResult
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _suite() -> SuiteResult:
    o = Outcome("holds", "c = 2 > H* = 1.53 and H* < c_max; a_b_c | pipe <tag> &amp; 0.4 <= 0.5", bound=0.5, empirical=0.4,
                interval=(0.38, 0.42), false_alarm=1e-3, p_value=0.25, samples=400, reason="HKS: T = c/log(t)",
                details={"holm_rejected": False, "suite_alpha": 1e-3})
    r = CheckResult("A4.x", "HKS with H*", "T = c/log(t+t0) with c > H*", "builtin", {"c": 2}, 0, o, 0.1, {}, "quick")
    return SuiteResult([r], 1e-3, "quick")


def test_markdown_is_escaped_h_star_is_not_italics(tmp_path):
    """H* ... H* used to render as italics, a_b_c as emphasis and | as a table break."""
    paths = write_report(_suite(), tmp_path)
    md = paths["markdown"].read_text()
    assert "H\\* = 1.53" in md and "a\\_b\\_c" in md and "\\| pipe &lt;tag> &amp;amp; 0.4 <= 0.5" in md
    assert "c = 2 > H\\*" in md and "&lt;=" not in md and "&gt;" not in md  # comparisons read as typed in the file
    rendered = markdown.markdown(md, extensions=["tables"])
    assert rendered.count("<em>") == 1 and "<em>HKS with H*</em>" in rendered  # the theorem line only
    assert "H* = 1.53" in rendered and "&lt;tag&gt;" in rendered and "&amp;amp; 0.4 &lt;= 0.5" in rendered
    assert md_escape("2*3_4") == "2\\*3\\_4"


def test_html_has_the_same_false_alarm_and_p_value_lines_as_markdown(tmp_path):
    """The HTML report used to omit the per-check false-alarm / p-value / Holm lines."""
    paths = write_report(_suite(), tmp_path)
    md, page = paths["markdown"].read_text(), paths["html"].read_text()
    line = "False-alarm probability of this check: 0.001; p-value 0.25; Holm at suite alpha 0.001 does not reject"
    assert line in md and line in page


def test_report_ends_with_a_glossary_of_the_terms_it_uses(tmp_path):
    """HKS, H*, ... are defined at the end of both reports; docs/glossary.md lists every term."""
    paths = write_report(_suite(), tmp_path)
    md, page = paths["markdown"].read_text(), paths["html"].read_text()
    glossary_md = md.split("## Glossary")[1]
    for term in ("HKS", "H*", "false alarm", "Holm"):
        assert f"**{md_escape(term)}**" in glossary_md
        assert f"<dt>{term}</dt>" in page
    assert "href='#glossary'" in page
    doc = (ROOT / "docs" / "glossary.md").read_text()
    for term in GLOSSARY:
        assert f"**{md_escape(term)}**" in doc or f"**{term}**" in doc, term


@pytest.mark.slow
def test_no_bar_chart_of_four_values_at_one():
    """B5.cka_rsa_along_descent drew CKA, its bound, RSA, its bound (all ~1.0) as bars; it draws none now."""
    from contrastive_bounds.properties.checks._registry import registered_checks

    spec = registered_checks()["B5.cka_rsa_along_descent"]
    params = {**spec.defaults["quick"], "num_samples": 60, "num_classes": 3, "batch_size": 16, "steps": 20}
    out = spec.fn(params, 0)
    assert all(p.kind != "bars" for p in out.plots)
