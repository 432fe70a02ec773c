"""What ``landscape`` and ``anneal --search`` say is true: one folder per landscape whatever the order of --pairs,
a finished search rerun is reported (not "continued"), counts are in the singular when there is one, the
disconnectivity title fits its figure, and the wall time ``anneal --search`` reports is the command's own."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.landscapes.network import landscape_network, user_spec
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli.landscape import default_out
from contrastive_bounds.properties.cli.landscape_options import LandscapeOptions

runner = CliRunner()
SAVED = Path(__file__).parents[1] / "numerics" / "landscapes" / "network" / "data" / "saved" / \
    "v2-infonce-n4-d2-tau0.1-done"
SMALL = ["--starts", "16", "--hop-rounds", "1", "--patience", "1"]


def test_the_order_of_pairs_names_one_landscape_and_one_folder():
    """--pairs 0-1,2-3 and --pairs 2-3,1-0 are one landscape: the same fingerprint, the same default folder."""
    settings = {"starts": 16}
    a = LandscapeOptions("infonce", points=4, dim=2, tau=0.1, pairs="0-1,2-3").spec()
    b = LandscapeOptions("infonce", points=4, dim=2, tau=0.1, pairs="2-3,1-0").spec()
    assert a.fingerprint() == b.fingerprint() and a.params["pairs"] == [[0, 1], [2, 3]]
    assert default_out(a, settings) == default_out(b, settings)
    c = LandscapeOptions("infonce", points=4, dim=2, tau=0.1, pairs="0-2,1-3").spec()
    assert default_out(c, settings) != default_out(a, settings)


def test_one_minimum_one_round_are_said_in_the_singular():
    """V = -z_1 on S² (one minimum, one maximum): the closure reads "after 1 round: the only minimum ..." and the
    effort "1 hop round", "1 round;" — never "1 rounds" or "each of the 1 minimum"."""
    res = landscape_network(user_spec(lambda z: -z[0, 0], 1, 3, name="one-well"), starts=8, max_hop_rounds=1,
                            patience=1, draw=False)
    assert len(res.minima) == 1 and res.status == "barrier-free within this search", res.status
    assert res.closure.startswith("closed under single-ended exploration after 1 round: the only minimum followed")
    text = res.effort_text()
    assert "1 hop round (" in text and " 1 round;" in text and "1 rounds" not in text + res.closure
    assert "each of the 1 minimum" not in res.closure


@pytest.mark.slow
def test_a_finished_search_is_reported_and_an_unfinished_one_continued(tmp_path, monkeypatch):
    """Without --out: the same command after a finished search says "reporting the finished search saved in", after
    one stopped by Ctrl-C "continuing the search saved in" (and then finishes it)."""
    monkeypatch.chdir(tmp_path)
    args = ["landscape", "double-well", *SMALL, "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "reporting the finished search saved in" in again.stderr, again.stderr
    assert "continuing" not in again.stderr
    assert json.loads(again.stdout)["critical_height"] == json.loads(first.stdout)["critical_height"]

    spec = LandscapeOptions("triple-well").spec()
    settings = dict(starts=16, seed=0, structured_starts=4000, max_hop_rounds=1, patience=1, closure=True,
                    pair_distance=0.75, max_ts_rounds=60, max_minima=400, max_searches=40000)

    def stop(phase, done, total, info):
        if phase == "transition states":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        landscape_network(spec, out=default_out(spec, settings), progress=stop, **settings)
    resumed = runner.invoke(app, ["landscape", "triple-well", *SMALL, "--json"])
    assert resumed.exit_code == 0 and "continuing the search saved in" in resumed.stderr, resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "complete"


@pytest.mark.slow
def test_anneal_search_reports_the_commands_own_wall_time():
    """A real `anneal --search` process: its whole-command time (total_time_s) covers the interpreter start, the
    imports and the landscape's rebuild — at least half what the caller measured around the process and never
    more — and the times inside it nest: the chains' simulation (simulation_time_s) and the final quench
    (quench_time_s) are parts of the library's run (run_time_s), which is part of the command."""
    cmd = [sys.executable, "-m", "contrastive_bounds.properties", "anneal", "--search", str(SAVED), "--start", "trap",
           "--schedule", "fixed", "c=0.05", "--chains", "8", "--time", "0.2", "--json", "--no-progress"]
    began = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    measured = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert 0.5 * measured <= out["total_time_s"] <= measured + 0.05, (out["total_time_s"], measured)
    assert out["simulation_time_s"] > 0 and out["quench_time_s"] > 0
    assert out["simulation_time_s"] + out["quench_time_s"] <= out["run_time_s"] < out["total_time_s"]
    assert "wall_time_s" not in out and "library_time_s" not in out


def test_a_long_title_fits_the_narrowest_disconnectivity_figure():
    """A one-minimum network draws the narrowest figure; a 200-character description still lies inside it (the
    title is wrapped to the figure's width), every other text too."""
    import numpy as np
    from matplotlib.text import Text

    from contrastive_bounds.numerics.landscapes.network import NetworkMinimum
    from contrastive_bounds.numerics.landscapes.network.disconnectivity import disconnectivity_figure

    title = ("finite-τ InfoNCE, τ = 0.05, decoupled, pairs [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)], N = 10 on S^2 of "
             "radius 2 — a description far longer than the figure is wide, as a user potential's may be\n"
             "H* = 0 (closed under single-ended exploration)")
    fig = disconnectivity_figure([NetworkMinimum(0, -1.0, np.zeros((1, 3)), 1, 0.0, [1.0], 0, True)], [], title=title)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip():
            box = t.get_window_extent(renderer)
            assert box.x0 >= -1 and box.x1 <= fig.bbox.width + 1 and box.y1 <= fig.bbox.height + 1, t.get_text()[:40]
    assert fig._suptitle.get_text().count("\n") >= 3


def test_the_help_lists_the_registry_without_importing_it():
    """The landscape command's help names the registry's landscapes from a constant (no JAX to list them): equal."""
    from contrastive_bounds.numerics.landscapes._registry import list_landscapes
    from contrastive_bounds.properties.cli.landscape import BUILTIN_LANDSCAPES

    assert list(BUILTIN_LANDSCAPES) == list_landscapes()


def test_a_continued_descent_names_the_recorded_saddle_it_passed_or_says_none_is_recorded():
    """The transition-state table's "connected by" column: a descent continued from near a lower critical point names
    the recorded saddle at that energy (verified or rejected, within 1e-7 relative: the path's end is not polished)
    and otherwise says no recorded saddle is there, instead of "via the saddle at …" for a point in neither table."""
    from types import SimpleNamespace

    from contrastive_bounds.properties.cli._landscape_print import _via

    res = SimpleNamespace(transition_states=[SimpleNamespace(label="ts3", energy=5.346570000)],
                          unverified=[SimpleNamespace(label="ts7", energy=-2.0)])
    assert _via(res, 5.3465700001) == "continued at V = 5.34657 from the lower saddle ts3"
    assert _via(res, -2.0000000001) == "continued at V = -2 from the lower saddle ts7"
    assert _via(res, 5.3466) == ("continued at V = 5.3466 from a lower critical point (no recorded saddle within 1e-7 "
                                 "of it)")
