"""The main job's machinery: Holm, scenarios (TOML), resume, atomic results, report, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.checks.framework import compare_lower, compare_upper
from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.properties.scenarios import load_scenarios
from contrastive_bounds.properties.stats import binomial_upper_p, holm

runner = CliRunner()

USER_CHECKS = '''
from contrastive_bounds.properties.checks.framework import check, compare_upper, Outcome, PlotSpec, Series

@check("user.square", theorem="x^2 <= bound", statement="x^2 <= bound for the given x", paper="B",
       quick={"x": 0.5, "bound": 1.0})
def square(params, seed):
    out = compare_upper(float(params["bound"]), float(params["x"]) ** 2, what="x^2")
    out.plots = [PlotSpec("x^2", "x", "y", [Series("x^2", [0.0, 1.0], [0.0, 1.0])])]
    return out
'''


def _write_scenarios(tmp_path: Path, body: str) -> Path:
    (tmp_path / "user_checks.py").write_text(USER_CHECKS)
    f = tmp_path / "scenarios.toml"
    f.write_text('imports = ["user_checks.py"]\n' + body)
    return f


def test_holm_matches_hand_computation():
    # p sorted: 0.001 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2 -> stop
    assert holm([0.03, 0.001, 0.5, 0.01], 0.05) == [False, True, False, True]
    assert holm([], 0.05) == []
    with pytest.raises(ValueError, match="p_values"):
        holm([1.5], 0.05)


def test_binomial_upper_p_exact():
    # P(X >= 2 | n=3, p=0.5) = 4/8
    assert binomial_upper_p(2, 3, 0.5) == pytest.approx(0.5, rel=1e-12)
    assert binomial_upper_p(0, 10, 0.3) == 1.0


def test_compare_verdicts():
    assert compare_upper(1.0, 0.5).verdict == "holds"
    assert compare_upper(1.0, 1.0 + 1e-12).verdict == "holds"  # float rounding only
    assert compare_upper(1.0, 1.01).verdict == "violated"
    o = compare_upper(1.0, 0.9, (0.8, 1.2), samples=100)
    assert o.verdict == "inconclusive" and o.samples_needed > 100
    assert compare_upper(None, 0.3, reason="Delta infinite").verdict == "vacuous"
    assert compare_lower(0.5, 0.4).verdict == "violated"
    assert compare_lower(0.5, 0.6, (0.55, 0.65)).verdict == "holds"


def test_user_scenarios_run_resume_and_report(tmp_path):
    f = _write_scenarios(tmp_path, '''
[[scenario]]
name = "ok"
check = "user.square"
[[scenario]]
name = "tight"
check = "user.square"
seed = 2
params = {x = 0.9}
''')
    out = tmp_path / "out"
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "results.json").read_text())
    recs = {r["scenario"]: r for r in data["results"]}
    assert recs["tight"]["outcome"]["empirical"] == pytest.approx(0.81)
    assert recs["tight"]["outcome"]["ratio"] == pytest.approx(0.81)
    assert recs["ok"]["versions"]["contrastive_bounds"]
    assert (out / "report.md").read_text().count("user.square") >= 2
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html
    assert recs["ok"]["figures"] and (out / recs["ok"]["figures"][0]).exists()
    # resume: nothing re-runs, same records
    res2 = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(out), "--resume", "--json"])
    assert res2.exit_code == 0
    again = json.loads((out / "results.json").read_text())
    assert [r["seconds"] for r in again["results"]] == [r["seconds"] for r in data["results"]]


def test_violation_exits_1(tmp_path):
    f = _write_scenarios(tmp_path, '[[scenario]]\nname = "bad"\ncheck = "user.square"\nparams = {x = 2.0}\n')
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1
    assert "violated" in res.output


@pytest.mark.parametrize("body,needle", [
    ('[[scenario]]\ncheck = "user.nope"\n', "unknown check 'user.nope'"),
    ('[[scenario]]\ncheck = "user.square"\nparams = {y = 1}\n', "unknown parameter 'y'"),
    ('[[scenario]]\ncheck = "user.square"\nparams = {x = "big"}\n', "x='big' has the wrong type"),
    ('[[scenario]]\ncheck = "user.square"\nseed = -1\n', "seed=-1"),
    ('[[scenario]\n', "invalid TOML"),
    ('foo = 1\n[[scenario]]\ncheck = "user.square"\n', "unknown top-level key"),
])
def test_bad_scenario_files_exit_2_naming_the_problem(tmp_path, body, needle):
    f = _write_scenarios(tmp_path, body)
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert needle in res.output


def test_bad_cli_input_exits_2(tmp_path):
    assert runner.invoke(app, ["check", "--profile", "huge"]).exit_code == 2
    assert "matches no check" in runner.invoke(app, ["check", "--only", "zzz", "--out", str(tmp_path)]).output
    assert runner.invoke(app, ["check", "--scenarios", str(tmp_path / "missing.toml")]).exit_code == 2


def test_every_theorem_has_a_check():
    from contrastive_bounds.properties.checks.registry import registered_checks

    ids = set(registered_checks())
    for prefix in ("B2", "B3", "B4", "B5", "B6", "B7", "B8", "A1", "A3", "A4", "A5", "A6", "A8"):
        assert any(i.startswith(prefix) for i in ids), prefix


def test_load_scenarios_merges_defaults(tmp_path):
    f = _write_scenarios(tmp_path, '[[scenario]]\nname = "a"\ncheck = "user.square"\nparams = {x = 0.25}\n')
    (sc,) = load_scenarios(f)
    assert sc.params == {"x": 0.25, "bound": 1.0} and sc.seed == 0


def test_report_only_remakes_report_from_results(tmp_path):
    f = _write_scenarios(tmp_path, '[[scenario]]\nname = "ok"\ncheck = "user.square"\n')
    out = tmp_path / "out"
    assert runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(out)]).exit_code == 0
    (out / "report.md").unlink()
    res = runner.invoke(app, ["check", "--report-only", "--out", str(out)])
    assert res.exit_code == 0 and (out / "report.md").exists()
    assert runner.invoke(app, ["check", "--report-only", "--out", str(tmp_path / "none")]).exit_code == 2


def test_corrupt_results_json_is_one_line_naming_the_file(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "results.json").write_text("{bad")
    for args in (["check", "--report-only", "--out", str(out)], ["check", "--resume", "--only", "B4.ref", "--out", str(out)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and "results.json" in lines[0] and lines[0].startswith("error:")


def test_check_validate_hook_rejects_bad_user_parameters_before_running(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[[scenario]]\nname = "still"\ncheck = "B4.theorem1"\nparams = {step_size = 0.0}\n')
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "step_size=0.0 is outside its domain (0, inf)" in res.output
    assert not (tmp_path / "o" / "results.json").exists()
