"""The disconnectivity graph shows shallow traps and clips nothing (issue: a 0.28-deep trap beside a 30-unit
range was invisible, titles and labels were cut)."""

from __future__ import annotations

import numpy as np

from contrastive_bounds.numerics.landscapes.network import NetworkMinimum, TransitionState, analyse_network
from contrastive_bounds.numerics.landscapes.network.disconnectivity import disconnectivity_figure, draw_disconnectivity

# the N = 4, d = 2, tau = 0.1 InfoNCE network: global minimum -19.3069, trap +10.6931, escape saddle +10.9751
MINIMA = [NetworkMinimum(0, -19.306852819, np.zeros((4, 2)), 1, 0.0, [10.0], 1, True),
          NetworkMinimum(1, 10.693147181, np.zeros((4, 2)), 1, 0.0, [15.0], 1, True)]
SADDLES = [TransitionState(0, 10.975051431, np.zeros((4, 2)), 1, 0.0, -8.72, 1, [0, 1], True),
           TransitionState(1, 0.693147181, np.zeros((4, 2)), 1, 0.0, -10.0, 1, [0, 0], True)]
TITLE = ("finite-τ InfoNCE, τ = 0.1, decoupled, pairs [(0, 1), (2, 3)], N = 4 on S^1 — a long title that must not "
         "be cut\nH* = 0.281904 (closed under single-ended exploration)")


def _figure():
    a = analyse_network(MINIMA, SADDLES)
    return disconnectivity_figure(MINIMA, SADDLES, title=TITLE, barriers={i: b["barrier"] for i, b in a.barriers.items()})


def test_a_shallow_trap_fills_its_own_panel_and_is_labelled():
    """The 0.2819-deep trap's bar spans more than half of the barrier panel's height; the graph labels the
    trap with its barrier; both panels exist."""
    fig = _figure()
    graph, bars = fig.axes
    (bar,) = bars.patches
    lo, hi = bars.get_ylim()
    assert bar.get_height() == np.float64(10.975051431 - 10.693147181)
    assert bar.get_height() / (hi - lo) > 0.5
    labels = [t.get_text() for t in graph.texts]
    assert any(t.startswith("m1") and "Δ 0.282" in t for t in labels)
    assert "H* = 0.2819" in bars.get_title()


def test_no_title_or_label_leaves_the_figure(tmp_path):
    """After layout every visible text lies inside the figure; the PNG is written."""
    fig = _figure()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        box = t.get_window_extent(renderer)
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1, t.get_text()
    out = draw_disconnectivity(MINIMA, SADDLES, tmp_path / "d.png", title=TITLE)
    assert out.stat().st_size > 1000


def test_barriers_spanning_more_than_thirty_fold_get_a_log_axis():
    """Barriers 1e-5 and 1.26 (the N = 12 and N = 10 traps of the docs table side by side): the barrier panel is
    logarithmic and both bars lie inside its limits; barriers within a factor 30 keep the linear axis from 0."""
    minima = MINIMA + [NetworkMinimum(2, 5.0, np.zeros((4, 2)), 1, 0.0, [15.0], 1, True)]
    fig = disconnectivity_figure(minima, SADDLES, barriers={1: 1.26, 2: 1e-5})
    bars = fig.axes[1]
    lo, hi = bars.get_ylim()
    assert bars.get_yscale() == "log" and lo < 1e-5 and hi > 1.26
    linear = disconnectivity_figure(minima, SADDLES, barriers={1: 1.26, 2: 0.05}).axes[1]
    assert linear.get_yscale() == "linear" and linear.get_ylim()[0] == 0.0
