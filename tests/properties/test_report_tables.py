"""Evidence tables of a check outcome (Outcome.table) in report.md and report.html."""

from contrastive_bounds.properties.checks.framework import CheckResult, Outcome
from contrastive_bounds.properties.report import table_cell, write_report
from contrastive_bounds.properties.runner import SuiteResult


def test_outcome_table_is_rendered_in_markdown_and_html(tmp_path):
    """Every row and column appears; numbers, booleans, None and lists have a readable form; a '|' is escaped."""
    table = [{"d": 2, "H*": 0.18808512, "status": "complete", "inside": True, "interval": [0.1, 0.3]},
             {"d": 3, "H*": 0.0, "status": "barrier-free | within this search", "inside": None, "interval": None}]
    out = Outcome("holds", "claim: SUPPORTED", table=table)
    rec = CheckResult("A8.6_dimension", "A8.6", "stmt", "builtin", {}, 0, out, 1.0, {}, "quick")
    paths = write_report(SuiteResult([rec], 1e-3, "quick"), tmp_path)
    md = paths["markdown"].read_text()
    assert "| d | H\\* | status | inside | interval |" in md
    assert "| 2 | 0.1881 | complete | yes | 0.1, 0.3 |" in md
    assert "barrier-free \\| within this search" in md
    html = paths["html"].read_text()
    assert "<th>H*</th>" in html and "<td>0.1881</td>" in html
    assert table_cell(None) == "-" and table_cell(False) == "no" and table_cell(1e-5) == "1e-05"
    assert CheckResult.from_dict(rec.to_dict()).outcome.table == table
