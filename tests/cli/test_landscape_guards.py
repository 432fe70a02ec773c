"""Command ``landscape`` guards: an earlier search is never replaced silently, a search too large for a
workstation is refused before the potential is built, and an odd N with the default pairs is said."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli.landscape import ITERATIONS_PER_START, MAX_SEARCH_COST, search_cost
import pytest

runner = CliRunner()
SMALL = ["--starts", "4", "--hop-rounds", "0", "--patience", "1", "--ts-rounds", "1"]


def test_search_cost_is_minimisations_times_iterations_times_pair_terms():
    """starts x (1 + hop rounds) x iterations x N² d, written out."""
    assert search_cost(10, 3, 64, 30) == 64 * 31 * ITERATIONS_PER_START * 100 * 3


def test_too_large_a_search_is_refused_naming_the_sizes_and_yes():
    """N = 100000 on S^999: exit 2 at once (the potential is never built), one line naming --points and --yes."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "100000", "--dim", "1000"])
    assert res.exit_code == 2 and "--points=100000" in res.output and "--yes" in res.output
    assert f"{MAX_SEARCH_COST:.0e}" in res.output and len(res.output.strip().splitlines()) == 1
    many = runner.invoke(app, ["landscape", "infonce", "--points", "10", "--dim", "2", "--starts", "100000000"])
    assert many.exit_code == 2 and "--starts=100000000" in many.output


@pytest.mark.parametrize("argv, words", [
    (["--points", "99999999999"], "--points=99999999999 is outside its domain: integers in [3, 1000000]"),
    (["--dim", "100000"], "--dim=100000 is outside its domain: integers in [2, 16384]"),
])
def test_sizes_past_the_bounds_are_refused_before_anything_is_built(argv, words):
    """N past 10^6 (its pairs were listed before any check: 5·10^10 tuples, gigabytes in seconds) and d past 16 384
    (the search's (d, d) float64 arrays; it reached an allocation of 74.5 GiB) are refused at once, exit 2, naming the
    option and its range."""
    res = runner.invoke(app, ["landscape", "infonce", *argv])
    assert res.exit_code == 2 and words in res.output, res.output


def test_a_finished_search_is_not_replaced_without_resume(tmp_path):
    """A second run into the same --out without --resume exits 2 and leaves network.json as it was."""
    first = runner.invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", "--tau", "0.1", "--out",
                                str(tmp_path), *SMALL])
    assert first.exit_code == 0, first.output
    before = (tmp_path / "network.json").read_text()
    second = runner.invoke(app, ["landscape", "infonce", "--points", "6", "--dim", "2", "--tau", "0.1", "--out",
                                 str(tmp_path), *SMALL])
    assert second.exit_code == 2 and "--resume" in second.output and "already holds a search" in second.output
    assert (tmp_path / "network.json").read_text() == before
    assert json.loads(before)["landscape"]["num_points"] == 4


@pytest.mark.slow
def test_odd_points_with_default_pairs_say_which_point_is_a_negative_only(tmp_path):
    """N = 5, default pairs 0-1, 2-3: a note names point 4 as a negative only; the search still runs."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "5", "--dim", "2", "--tau", "0.1", "--out",
                              str(tmp_path), "--json", *SMALL])
    assert res.exit_code == 0, res.output
    assert "point 4 is a negative only" in res.output and "0-1, 2-3" in res.output


@pytest.mark.parametrize("tau", ["1e-6", "1e-300", "1e5", "1e300"])
def test_tau_beyond_the_range_a_float64_network_search_keeps_its_minima_exits_2_naming_it(tau):
    """--tau outside [1e-4, 1e4] is refused with one line naming --tau and the range (at 1e-6 a search called the
    N = 4 landscape barrier-free although its split-pair trap V = 1/tau + log 2 is a strict minimum)."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", "--tau", tau])
    assert res.exit_code == 2, res.output
    line = res.output.strip().splitlines()[-1]
    assert line.startswith(f"error: --tau={float(tau)!r} is outside [0.0001, 10000]"), res.output


def test_scale_options_are_checked_before_anything_runs():
    """An unknown --curvature, a negative --trap-modes or --max-explored, and an --agree-seed equal to --seed exit 2
    with one line naming the option, before the potential is built."""
    cases = [(["--curvature", "sparse"], "--curvature='sparse'"), (["--trap-modes", "-1"], "--trap-modes"),
             (["--max-explored", "-2"], "--max-explored"), (["--agree-seed", "0"], "--agree-seed=0")]
    for extra, named in cases:
        res = runner.invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", *extra])
        assert res.exit_code == 2 and named in res.output, (extra, res.output)


@pytest.mark.slow
def test_agree_seed_runs_a_second_search_and_reports_how_the_two_agree(tmp_path):
    """--agree-seed 1 runs the same search with seed 1 beside seed 0 (its own folder) and reports the comparison in
    the JSON (the minima both found, H* of both) and in the table ("two seeds")."""
    args = ["landscape", "infonce", "--points", "4", "--dim", "2", "--tau", "0.1", "--out", str(tmp_path / "a"), *SMALL,
            "--agree-seed", "1"]
    res = runner.invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output[res.output.index("{"):res.output.rindex("}") + 1])
    agree = out["agreement"]
    assert agree["seeds"] == [0, 1] and agree["common"] and len(agree["critical_height"]) == 2
    assert (tmp_path / "a-seed1" / "network.json").exists()
    table = runner.invoke(app, [*args[:-2], "--resume", "--agree-seed", "1"])
    assert table.exit_code == 0 and "two seeds" in table.output and "seeds 0 and 1" in table.output


def test_dense_curvature_at_a_huge_size_is_refused_with_the_memory_it_needs():
    """--curvature dense at N = 256, d = 128 (N·d = 32 768: one dense Hessian 8 GiB) exits 2 before the potential is
    built, with one line stating the memory ((N·d)^2·8 bytes, computed here) and the limit N·d <= 2048; at the limit it
    is not refused by this rule (the next refusal is the cost guard's)."""
    res = runner.invoke(app, ["landscape", "infonce", "--points", "256", "--dim", "128", "--curvature", "dense"])
    assert res.exit_code == 2, res.output
    line = " ".join(res.output.split())
    assert "--curvature=dense at N·d = 256·128 = 32768" in line, res.output
    assert f"{32768 ** 2 * 8 / 2**30:.3g} GiB" in line and "N·d <= 2048 (32 MiB)" in line and "--yes" in line
    ok = runner.invoke(app, ["landscape", "infonce", "--points", "256", "--dim", "8", "--curvature", "dense",
                             "--starts", "1000000"])
    assert ok.exit_code == 2 and "pair terms" in ok.output and "--curvature=dense" not in ok.output, ok.output


def test_out_with_a_missing_parent_folder_is_refused_before_any_work(tmp_path):
    """--out creates only its last folder: a missing parent is refused with exit 2, one line naming --out and the
    parent, and nothing is created; an --out whose parent exists is accepted (the check does not refuse it)."""
    from contrastive_bounds.properties.cli.landscape import check_out

    target = tmp_path / "missing" / "a" / "b"
    res = CliRunner().invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", "--out", str(target)])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert lines[0].startswith("error: --out=") and "parent folder" in lines[0] and str(target.parent) in lines[0]
    assert not (tmp_path / "missing").exists()
    check_out(tmp_path / "new")  # the parent exists: only the last folder will be created


@pytest.mark.parametrize("out", ["", " ", "."])
def test_an_empty_or_blank_out_is_refused_naming_it(out, tmp_path, monkeypatch):
    """--out '', a blank name and '.' would write into the working folder (or a folder named ' '): exit 2, one line
    naming --out and echoing what was typed, and nothing written in the working folder."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", "--out", out])
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: --out="), res.output
    assert lines[0].startswith(f"error: --out={out!r} is empty or the working folder") and list(tmp_path.iterdir()) == []
