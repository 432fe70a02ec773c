"""The sweep report (properties/sweeps/_report.py): figures over chosen axes, Holm across rows, bad settings named."""

import pyarrow as pa
import pytest

from contrastive_bounds.properties.sweeps._report import significant_violations, write_sweep_report
from contrastive_bounds.properties.sweeps._report_table import varying_parameters


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


def _kind_table(n_rows=6):
    """Rows as a sweep writes them: parameters listed in params_json, a kind output column (`trapped`) that is not a
    parameter, a constant parameter (`chains`), long summaries."""
    import json

    rows = []
    for i in range(n_rows):
        params = {"H": float(1 + i % 3), "chains": 256, "schedule": "fixed"}
        rows.append({"task_key": f"k{i}", "seed": 0, **params, "verdict": "holds", "empirical": 0.1 * (i % 5),
                     "ci_lo": 0.1 * (i % 5) - 0.01, "ci_hi": 0.1 * (i % 5) + 0.01, "bound": None, "ratio": None,
                     "summary": "success 0.1 [0.09, 0.11] <= Kramers escape 0.2; trapped 0.8 vs Kramers band " * 3,
                     "trapped": 0.5 + 0.01 * i, "params_json": json.dumps(params), "wall_time_s": 1.0})
    return pa.Table.from_pylist(rows)


def test_captions_say_what_each_figure_shows(tmp_path):
    """A caption names the quantity (with its meaning or the spec's label), the axes, the facet, how many rows each
    cell or point pools and over what, and the band; never the file name alone."""
    report = {"heatmap": {"x": "c_over_h", "y": "H", "value": "empirical", "facet": "schedule", "label": "success fraction"},
              "curves": {"x": "c_over_h", "y": "empirical", "lo": "ci_lo", "hi": "ci_hi", "series": "H", "logx": True}}
    html = write_sweep_report(_table(), tmp_path, report)["html"].read_text()
    assert ("<b>Figure 1.</b> Heatmap of success fraction over c_over_h (x) and H (y) for schedule = fixed. Each cell "
            "is the median of the 2 rows with that c_over_h and H, pooled over seed. A cell without a value is blank, "
            "with the verdict of its rows written in it.") in html
    assert ("<b>Figure 2.</b> Curves of empirical (the measured value) against c_over_h (log scale), one line per value "
            "of H. Each point is the mean of the 2 rows with that c_over_h and H, pooled over seed. The shaded band runs "
            "from ci_lo to ci_hi, the confidence interval (averaged the same way).") in html


def test_heatmap_titles_and_labels_stay_inside_the_figure():
    """A long title (a facet value, a labelled quantity) and a long colour-bar label are wrapped: after drawing,
    every text of the figure lies inside its canvas (the old title ran off both sides)."""
    import matplotlib.pyplot as plt

    from contrastive_bounds.properties.sweeps._report import _heatmap_figure

    for nx in (2, 8):
        xs, ys = [0.1 * (i + 1) for i in range(nx)], [1.0, 5.0, 10.0]
        cells = [[0.5 for _ in xs] for _ in ys]
        fig = _heatmap_figure("log10 of measured / bound (or prediction) by c_over_h and H for schedule = exponential",
                              "c_over_h", "H", xs, ys, cells, "ratio_log10 (log10 of measured / bound (or prediction))")
        try:
            fig.canvas.draw()
            box = fig.bbox
            texts = [t for t in fig.findobj(plt.Text) if t.get_visible() and t.get_text()]
            assert len(texts) > 10
            for t in texts:
                e = t.get_window_extent()
                assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, t.get_text()
        finally:
            plt.close(fig)


def test_rows_table_shows_varying_parameters_and_results_wrapped_in_pages(tmp_path):
    """Parameters are the keys of params_json: a kind's output (`trapped`) is not shown as one, a constant parameter
    is listed once above the table; results without a value anywhere (bound, ratio) are left out, the interval is
    one column, the summary wraps; more than PAGE_ROWS rows come in pages; `[report] table.columns` chooses."""
    from contrastive_bounds.properties.sweeps._report_table import PAGE_ROWS, default_columns

    t = _kind_table()
    assert default_columns(t.to_pylist(), t.column_names) == ["H", "verdict", "empirical", "interval", "wall_time_s",
                                                               "summary"]
    html = write_sweep_report(t, tmp_path)["html"].read_text()
    assert "Same in every row: chains = 256, schedule = fixed." in html
    assert "<th>trapped</th>" not in html and "<th>bound</th>" not in html and '<div class="rows">' in html
    assert '<td class="text">success 0.1' in html and '<td class="num">[0.39, 0.41]</td>' in html
    big = _kind_table(PAGE_ROWS + 5)
    html = write_sweep_report(big, tmp_path, {"table": {"columns": ["H", "trapped", "interval"]}})["html"].read_text()
    assert html.count("<details") == 2 and f"rows 1-{PAGE_ROWS} of {PAGE_ROWS + 5}" in html
    assert "<th>trapped</th>" in html and "<th>summary</th>" not in html
    with pytest.raises(ValueError, match=r"report.table.columns: 'nope' is not a column"):
        write_sweep_report(big, tmp_path, {"table": {"columns": ["nope"]}})


def test_the_report_says_what_the_cluster_lost_over_every_run(tmp_path):
    """The losses kept in results.parquet's metadata (one record per run of a resumed sweep) are said in report.html;
    a table without them (an older sweep) says nothing about the cluster."""
    import json

    from contrastive_bounds.properties.sweeps._losses import METADATA_KEY, ClusterLosses

    key = "0123456789abcdef01234567"
    runs = [ClusterLosses(1, 1), ClusterLosses(2, 0, {key: 1}, {key: 4})]
    table = _table().replace_schema_metadata({METADATA_KEY: json.dumps([r.to_dict() for r in runs])})
    html = write_sweep_report(table, tmp_path, title="t")["html"].read_text()
    assert ("Cluster, over the 2 runs of this sweep (it was resumed): 3 worker processes lost (1 while starting, "
            f"before registering with the scheduler); 1 task ran again: task 4 ({key}).") in html
    assert "Cluster" not in write_sweep_report(_table(), tmp_path / "old", title="t")["html"].read_text()
