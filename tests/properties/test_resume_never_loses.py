"""``check --resume`` merges per (check, scenario) and never drops a finished record.

Every combination of a changed selection (``--only``), a changed profile and both is covered, with
user checks (fast) and with built-in ones (the case ``--only A3`` then ``--only A8.2 --resume``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

runner = CliRunner()

CHECKS = '''
from contrastive_bounds.properties.checks._framework import check, compare_upper, PlotSpec, Series

def _plotted(out, name):
    out.plots = [PlotSpec(name, "x", "y", [Series(name, [0.0, 1.0], [0.0, 1.0])])]
    return out

@check("resume.a", theorem="a", statement="x <= 1", paper="B", quick={"x": 0.5}, thorough={"x": 0.25})
def a(params, seed):
    return _plotted(compare_upper(1.0, float(params["x"]), what="x"), "a")

@check("resume.b", theorem="b", statement="x <= 2", paper="B", quick={"x": 0.5, "crash": False})
def b(params, seed):
    if params["crash"]:
        raise RuntimeError("boom")
    return _plotted(compare_upper(2.0, float(params["x"]), what="x"), "b")

@check("resume.stop", theorem="stop", statement="Ctrl-C", paper="B", quick={"stop": False})
def stop(params, seed):
    if params["stop"]:
        raise KeyboardInterrupt
    return compare_upper(1.0, 0.0)
'''


def _scenarios(tmp_path: Path, body: str, name: str = "s.toml") -> Path:
    (tmp_path / "resume_checks.py").write_text(CHECKS)
    f = tmp_path / name
    f.write_text('imports = ["resume_checks.py"]\n' + body)
    return f


BOTH = '''
[[scenario]]
name = "one"
check = "resume.a"
[[scenario]]
name = "two"
check = "resume.b"
'''


def _records(out: Path) -> dict[tuple[str, str], dict]:
    data = json.loads((out / "results.json").read_text())
    return {(r["check"], r["scenario"]): r for r in data["results"]}


def _run(*args: str):
    return runner.invoke(app, ["check", *args])


def test_other_selection_merges_and_keeps_earlier_records(tmp_path):
    """--only A, then --only B --resume: results.json, the report and the figures hold both."""
    f, out = _scenarios(tmp_path, BOTH), tmp_path / "r"
    assert _run("--scenarios", str(f), "--only", "resume.a", "--out", str(out)).exit_code == 0
    first = _records(out)[("resume.a", "one")]
    res = _run("--scenarios", str(f), "--only", "resume.b", "--out", str(out), "--resume")
    assert res.exit_code == 0, res.output
    recs = _records(out)
    assert set(recs) == {("resume.a", "one"), ("resume.b", "two")}
    assert recs[("resume.a", "one")]["seconds"] == first["seconds"]  # kept as it was, not re-run
    assert "kept (not selected by this run): resume.a (one)" in res.output
    md = (out / "report.md").read_text()
    assert "resume.a (one)" in md and "resume.b (two)" in md and md.startswith("# contrastive-bounds")
    assert all((out / name).exists() for r in recs.values() for name in r["figures"])
    assert len(list((out / "figures").glob("*.png"))) == 2


def test_same_selection_reuses_finished_records(tmp_path):
    """A resume of the same run re-runs nothing and says which records were reused."""
    f, out = _scenarios(tmp_path, BOTH), tmp_path / "r"
    assert _run("--scenarios", str(f), "--out", str(out)).exit_code == 0
    before = _records(out)
    res = _run("--scenarios", str(f), "--out", str(out), "--resume", "--json")
    payload = json.loads(res.stdout)
    assert sorted(payload["reused"]) == ["resume.a (one)", "resume.b (two)"] and payload["kept"] == []
    assert {k: v["seconds"] for k, v in _records(out).items()} == {k: v["seconds"] for k, v in before.items()}


def test_changed_parameters_rerun_that_record_and_keep_the_rest(tmp_path):
    """A scenario whose parameters changed is re-run and replaced; the others are reused."""
    f, out = _scenarios(tmp_path, BOTH), tmp_path / "r"
    assert _run("--scenarios", str(f), "--out", str(out)).exit_code == 0
    g = _scenarios(tmp_path, BOTH.replace('check = "resume.b"', 'check = "resume.b"\nparams = {x = 1.5}'), "t.toml")
    res = _run("--scenarios", str(g), "--out", str(out), "--resume")
    assert res.exit_code == 0, res.output
    recs = _records(out)
    assert recs[("resume.b", "two")]["outcome"]["empirical"] == 1.5 and len(recs) == 2
    assert "re-run (parameters or seed changed, or crashed before): resume.b (two)" in res.output
    assert "reused (finished before, unchanged): resume.a (one)" in res.output


def test_crashed_record_is_rerun_on_resume(tmp_path):
    """A record that crashed (error) is run again on resume, not reused."""
    crash = _scenarios(tmp_path, BOTH.replace('check = "resume.b"', 'check = "resume.b"\nparams = {crash = true}'))
    out = tmp_path / "r"
    assert _run("--scenarios", str(crash), "--out", str(out)).exit_code == 1
    assert _records(out)[("resume.b", "two")]["error"].startswith("RuntimeError")
    fixed = _scenarios(tmp_path, BOTH, "fixed.toml")
    assert _run("--scenarios", str(fixed), "--out", str(out), "--resume").exit_code == 0
    assert _records(out)[("resume.b", "two")]["error"] is None


@pytest.mark.parametrize("second", [["--profile", "thorough"], ["--profile", "thorough", "--only", "resume.b"]])
def test_other_profile_is_refused_naming_both_and_changes_nothing(tmp_path, second):
    """--profile thorough --resume on a quick run (with or without another --only) is refused, exit 2."""
    f, out = _scenarios(tmp_path, BOTH), tmp_path / "r"
    assert _run("--scenarios", str(f), "--only", "resume.a", "--out", str(out)).exit_code == 0
    before = (out / "results.json").read_bytes()
    res = _run("--scenarios", str(f), *second, "--out", str(out), "--resume")
    assert res.exit_code == 2, res.output
    line = res.output.strip().splitlines()[-1]
    assert "--profile quick" in line and "--profile thorough" in line and "another --out" in line
    assert (out / "results.json").read_bytes() == before


@pytest.mark.slow
def test_other_profile_and_selection_with_builtin_checks(tmp_path):
    """The reported case with built-in checks: --only A3 then --only A8.2 --resume keeps A3; a thorough resume
    of that folder is refused; and a fresh `--only A3` into it (which would replace two records with one) is refused."""
    out = tmp_path / "r"
    assert _run("--only", "A3.critical_height", "--out", str(out)).exit_code == 0
    res = _run("--only", "A8.2_finite_time_exponent", "--out", str(out), "--resume")
    assert res.exit_code == 0, res.output
    assert {k[0] for k in _records(out)} == {"A3.critical_height", "A8.2_finite_time_exponent"}
    assert _run("--only", "A3.critical_height", "--profile", "thorough", "--out", str(out), "--resume").exit_code == 2
    res = _run("--only", "A3.critical_height", "--out", str(out))
    assert res.exit_code == 2 and "A8.2_finite_time_exponent" in res.output and "--resume" in res.output
    assert len(_records(out)) == 2


def test_partial_fresh_run_into_a_fuller_folder_is_refused_and_changes_nothing(tmp_path):
    """`--only resume.a --out <a folder with two records>` without --resume would replace both records with one:
    refused with exit 2 naming --resume and --out, results.json and the figures untouched; with --resume it merges."""
    f, out = _scenarios(tmp_path, BOTH), tmp_path / "r"
    assert _run("--scenarios", str(f), "--out", str(out)).exit_code == 0
    before = (out / "results.json").read_bytes()
    res = _run("--scenarios", str(f), "--only", "resume.a", "--out", str(out))
    assert res.exit_code == 2, res.output
    assert "resume.b (two)" in res.output and "--resume" in res.output and "another --out" in res.output
    assert (out / "results.json").read_bytes() == before and len(list((out / "figures").glob("*.png"))) == 2
    res = _run("--scenarios", str(f), "--only", "resume.a", "--out", str(out), "--resume")
    assert res.exit_code == 0 and set(_records(out)) == {("resume.a", "one"), ("resume.b", "two")}


def test_fresh_run_of_the_same_checks_replaces_and_removes_stale_figures(tmp_path):
    """Without --resume a run of the same selection replaces the folder's results (it says so), and a PNG under
    figures/ that no record names any more is removed."""
    f, out = _scenarios(tmp_path, BOTH), tmp_path / "r"
    assert _run("--scenarios", str(f), "--out", str(out)).exit_code == 0
    (out / "figures" / "stale-check-0.png").write_bytes(b"png")
    res = _run("--scenarios", str(f), "--out", str(out))
    assert res.exit_code == 0 and "replacing" in res.output
    assert sorted(p.name for p in (out / "figures").glob("*.png")) == ["resume.a-one-0.png", "resume.b-two-0.png"]


def test_ctrl_c_saves_finished_records_and_prints_how_to_resume(tmp_path):
    """Ctrl-C during a check: exit 130, finished records saved, the exact command to resume printed."""
    body = BOTH + '[[scenario]]\nname = "halt"\ncheck = "resume.stop"\nparams = {stop = true}\n'
    f, out = _scenarios(tmp_path, body), tmp_path / "r"
    res = _run("--scenarios", str(f), "--out", str(out))
    assert res.exit_code == 130
    assert "interrupted: 2 of 3 checks finished" in res.output
    assert f"Resume with: contrastive-bounds check --profile quick --scenarios {f} --out {out} --resume" in res.output
    assert set(_records(out)) == {("resume.a", "one"), ("resume.b", "two")}
    g = _scenarios(tmp_path, body.replace("stop = true", "stop = false"), "go.toml")
    res = _run("--scenarios", str(g), "--out", str(out), "--resume", "--json")
    assert res.exit_code == 0 and sorted(json.loads(res.stdout)["reused"]) == ["resume.a (one)", "resume.b (two)"]
    assert len(_records(out)) == 3


def test_holm_is_reapplied_over_the_merged_file_from_the_verdicts_before_holm(tmp_path):
    """Holm runs over every stochastic record of the merged file; a resume does not compound its edits."""
    from contrastive_bounds.properties.checks._framework import CheckResult
    from contrastive_bounds.properties.checks._outcome import Outcome
    from contrastive_bounds.properties._runner import SuiteResult, load_suite, run_suite, write_results

    out = tmp_path / "r"
    out.mkdir()
    rec = CheckResult("resume.x", "t", "s", "builtin", {}, 0, Outcome("violated", "bad", p_value=0.01, false_alarm=1e-3),
                      0.1, {}, "quick")
    write_results(out / "results.json", SuiteResult([rec], 1e-3, "quick"))
    for _ in range(2):
        suite = run_suite([], profile="quick", out_dir=out, resume=True)
        (r,) = suite.results
        assert r.outcome.verdict == "inconclusive" and r.outcome.summary.count("Holm") == 1
        assert r.outcome.details["verdict_before_holm"] == "violated"
    assert load_suite(out / "results.json").results[0].outcome.verdict == "inconclusive"
