"""The sweep report (properties/sweeps/report.py): figures over chosen axes, Holm across rows, bad settings named."""

import pyarrow as pa
import pytest

from contrastive_bounds.properties.sweeps.report import significant_violations, varying_parameters, write_sweep_report


def _table():
    rows = []
    for h in (1.0, 5.0):
        for c in (0.5, 1.0, 2.0):
            for seed in (0, 1):
                p = 0.2 + 0.1 * c + 0.01 * seed
                rows.append({"H": h, "c_over_h": c, "schedule": "fixed", "seed": seed, "verdict": "holds",
                             "empirical": p, "ci_lo": p - 0.05, "ci_hi": p + 0.05, "ratio_log10": -c, "p_value": 1.0})
    return pa.Table.from_pylist(rows)


def test_heatmap_curves_and_medians_are_written_for_the_chosen_axes(tmp_path):
    """One heatmap per facet value and one curves figure per facet value, PNG files and the self-contained HTML."""
    report = {"heatmap": {"x": "c_over_h", "y": "H", "value": "empirical"},
              "curves": [{"x": "c_over_h", "y": "empirical", "lo": "ci_lo", "hi": "ci_hi", "series": "H", "facet": "schedule"}],
              "medians": {"by": "H", "columns": ["ratio_log10"]}}
    paths = write_sweep_report(_table(), tmp_path, report, title="t", description="d")
    figures = [k for k in paths if k != "html"]
    assert sorted(figures) == ["curves-empirical-c_over_h-schedule-fixed", "heatmap-empirical-c_over_h-H"]
    assert all(paths[k].read_bytes()[:4] == b"\x89PNG" for k in figures)
    html = paths["html"].read_text()
    assert html.count("data:image/png;base64") == 2 and "Medians by H" in html and "12 rows: 12 holds" in html


def test_defaults_use_the_parameters_that_vary_and_bad_columns_are_named(tmp_path):
    """Without [report]: the first two varying parameters (seed is not one); a missing column is a ValueError naming it."""
    assert varying_parameters(_table().to_pylist(), _table().column_names) == ["H", "c_over_h"]
    paths = write_sweep_report(_table(), tmp_path)
    assert "heatmap-ratio_log10-H-c_over_h" in paths and "curves-empirical-H" in paths
    with pytest.raises(ValueError, match=r"report.heatmap.y = 'tau' is not a column"):
        write_sweep_report(_table(), tmp_path, {"heatmap": {"x": "H", "y": "tau"}})


def test_violations_stand_after_holm_or_when_deterministic():
    """Holm at family-wise 1e-3 over the rows with p-values: p = 1e-6 (threshold 1e-3/2) stands, p = 0.01 does not;
    a violated row without a p-value (a deterministic comparison) always stands."""
    rows = [{"verdict": "violated", "p_value": 1e-6}, {"verdict": "violated", "p_value": 0.01},
            {"verdict": "violated", "p_value": None}, {"verdict": "holds", "p_value": None}]
    assert significant_violations(rows) == 2
    assert significant_violations(rows, alpha=0.05) == 3
