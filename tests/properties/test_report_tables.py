"""Evidence tables of a check outcome (Outcome.table) in report.md and report.html."""

from contrastive_bounds.properties.checks._framework import CheckResult
from contrastive_bounds.properties.checks._outcome import Outcome
from contrastive_bounds.properties._report import table_cell, write_report
from contrastive_bounds.properties._runner import SuiteResult


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


def test_interval_promised_by_a_legend_is_drawn_and_integer_x_gets_integer_ticks():
    """The A8.7 Arrhenius figure (markers 'o' with lo/hi, x = N): the interval is drawn as error bars (a shaded band
    over one point is invisible), and the x ticks of integer N are integers; a line with a band keeps its band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.container import ErrorbarContainer

    from contrastive_bounds.properties.checks._outcome import PlotSpec, Series
    from contrastive_bounds.properties._figures import draw_figure

    spec = PlotSpec("A8.7", "N", "barrier", [Series("Arrhenius exponent (99.9% bootstrap interval)", [4.0], [0.29],
                                                    lo=[0.06], hi=[0.53], style="o"),
                                             Series("network barrier", [4.0], [0.28], style="--x")])
    fig, ax = plt.subplots()
    try:
        draw_figure(ax, spec)
        (bars,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
        segments = bars.lines[2][0].get_segments()
        assert [tuple(map(float, seg[:, 1])) for seg in segments] == [(0.06, 0.53)]
        ax.set_xlim(3.0, 9.0)
        assert all(float(t).is_integer() for t in ax.get_xticks())
        assert "Arrhenius exponent (99.9% bootstrap interval)" in [t.get_text() for t in ax.get_legend().get_texts()]
    finally:
        plt.close(fig)
    fig, ax = plt.subplots()
    try:
        draw_figure(ax, PlotSpec("t", "x", "y", [Series("band", [0.5, 1.5], [1.0, 2.0], lo=[0.5, 1.5], hi=[1.5, 2.5])]))
        assert len(ax.collections) == 1 and not ax.containers  # fill_between, no error bars
    finally:
        plt.close(fig)


def test_a_one_point_axis_spans_a_unit_around_its_value_and_a_short_log_axis_is_ticked_at_its_values():
    """A one-point A8.7 panel (N = 4) spanned 3.8-4.2 with ticks at 3.8, 3.9, ...; the B10 batch-size axis (log,
    16..256) labelled its minor ticks, which ran together. Now: N = 4 spans 3..5 with one tick, 4; the log axis has
    one plain label per batch size and no minor labels; a one-point log axis spans a factor of 2 either side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from contrastive_bounds.properties.checks._outcome import PlotSpec, Series
    from contrastive_bounds.properties._figures import draw_figure

    def drawn(spec):
        fig, ax = plt.subplots()
        draw_figure(ax, spec)
        fig.canvas.draw()
        try:
            labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
            minor = [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()]
            return ax.get_xlim(), list(ax.get_xticks()), labels, minor
        finally:
            plt.close(fig)

    lim, ticks, labels, _ = drawn(PlotSpec("A8.7", "N", "barrier", [Series("x", [4.0], [0.29], style="o")]))
    assert lim == (3.0, 5.0) and ticks == [4.0] and labels == ["4"]
    lim, ticks, labels, _ = drawn(PlotSpec("t", "tau", "y", [Series("x", [0.25], [1.0], style="o")]))
    assert lim == (-0.25, 0.75) and labels == ["0.25"]
    sizes = [16.0, 32.0, 64.0, 128.0, 256.0]
    lim, ticks, labels, minor = drawn(PlotSpec("B10", "batch size", "slope", [Series("s", sizes, [1, 2, 3, 4, 5])],
                                               logx=True))
    assert labels == ["16", "32", "64", "128", "256"] and minor == []
    lim, _, labels, minor = drawn(PlotSpec("B10", "batch size", "slope", [Series("s", [64.0], [1.0], style="o")],
                                           logx=True))
    assert lim == (32.0, 128.0) and labels == ["64"] and minor == []


def test_report_first_line_counts_checks_that_could_not_have_failed_and_lists_failed_conditions(tmp_path):
    """A holds, an uninformative, an inconclusive at power < 1/2 and a violated by a failed reference condition: the
    first line says 2 of 4 could not have failed; the section of the violated one names the failed condition."""
    from contrastive_bounds.properties.checks._outcome import Condition

    outs = [Outcome("holds", "fine", power=0.9), Outcome("uninformative", "loose"),
            Outcome("inconclusive", "wide", power=0.1, detect=0.2),
            Outcome("violated", "bad", conditions=[Condition("reference", "C02 row 1", False, "rel 1e-3")])]
    recs = [CheckResult(f"c{i}", "t", "s", "builtin", {}, 0, o, 1.0, {}, "quick") for i, o in enumerate(outs)]
    md = write_report(SuiteResult(recs, 1e-3, "quick"), tmp_path)["markdown"].read_text()
    assert md.splitlines()[0] == ("# contrastive-bounds check report: 4 checks, 2 of which could not have failed "
                                  "(inconclusive: power below 1/2 1, uninformative 1); 1 failing; exit code 1")
    assert "FAILED: \\[reference\\] C02 row 1 (rel 1e-3)" in md
    assert md.count("This check could not have failed in this run") == 2
