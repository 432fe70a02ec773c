"""The ``contrastive-bounds check`` command: user scenarios (TOML) run, resume and report; a violated bound
exits 1; bad input (scenario files, options, an unwritable or corrupt ``--out``) exits 2 with one line naming
the problem, found before any check runs, never a traceback with exit 1 (the code for "a bound is
violated"); the report files are published with the user's umask."""

from __future__ import annotations

import errno
import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

import contrastive_bounds.properties._runner as runner_mod
from contrastive_bounds.properties.cli._app import app

runner = CliRunner()

# A check without figures, for the --out tests.
PLAIN_CHECKS = '''
from contrastive_bounds.properties.checks._framework import check, compare_upper

@check("plain.square", theorem="x^2 <= bound", statement="x^2 <= bound for the given x", paper="B",
       quick={"x": 0.5, "bound": 1.0})
def square(params, seed):
    return compare_upper(float(params["bound"]), float(params["x"]) ** 2, what="x^2")
'''


def _plain_scenarios(tmp_path: Path) -> Path:
    (tmp_path / "plain_checks.py").write_text(PLAIN_CHECKS)
    f = tmp_path / "scenarios.toml"
    f.write_text('imports = ["plain_checks.py"]\n[[scenario]]\nname = "s"\ncheck = "plain.square"\n')
    return f


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_user_scenarios_run_resume_and_report(tmp_path, write_user_scenarios):
    """User scenarios with an imported check file run, write results.json, report.md and a self-contained
    report.html with figures, and --resume re-runs nothing."""
    f = write_user_scenarios(tmp_path, '''
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


def test_violation_exits_1(tmp_path, write_user_scenarios):
    """A violated bound exits 1 and says 'violated'."""
    f = write_user_scenarios(tmp_path, '[[scenario]]\nname = "bad"\ncheck = "user.square"\nparams = {x = 2.0}\n')
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
def test_bad_scenario_files_exit_2_naming_the_problem(tmp_path, body, needle, write_user_scenarios):
    """Unknown checks or parameters, wrong types, a bad seed, invalid TOML and unknown keys in a scenario file
    exit 2 naming the problem."""
    f = write_user_scenarios(tmp_path, body)
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2, res.output
    assert needle in res.output


def test_bad_options_exit_2(tmp_path):
    """An unknown profile, an --only that matches nothing and a missing scenario file are refused."""
    assert runner.invoke(app, ["check", "--profile", "huge"]).exit_code == 2
    assert "matches no check" in runner.invoke(app, ["check", "--only", "zzz", "--out", str(tmp_path)]).output
    assert runner.invoke(app, ["check", "--scenarios", str(tmp_path / "missing.toml")]).exit_code == 2


def test_report_only_remakes_report_from_results(tmp_path, write_user_scenarios):
    """--report-only rebuilds report.md from results.json and exits 2 when there is no results.json."""
    f = write_user_scenarios(tmp_path, '[[scenario]]\nname = "ok"\ncheck = "user.square"\n')
    out = tmp_path / "out"
    assert runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(out)]).exit_code == 0
    (out / "report.md").unlink()
    res = runner.invoke(app, ["check", "--report-only", "--out", str(out)])
    assert res.exit_code == 0 and (out / "report.md").exists()
    assert runner.invoke(app, ["check", "--report-only", "--out", str(tmp_path / "none")]).exit_code == 2


def test_corrupt_results_json_is_one_line_naming_the_file(tmp_path):
    """A corrupt results.json (with --report-only or --resume) is one line naming the file, exit 2."""
    out = tmp_path / "o"
    out.mkdir()
    (out / "results.json").write_text("{bad")
    for args in (["check", "--report-only", "--out", str(out)], ["check", "--resume", "--only", "B4.ref", "--out", str(out)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and "results.json" in lines[0] and lines[0].startswith("error:")


def test_validate_hook_rejects_bad_user_parameters_before_running(tmp_path):
    """A check's validate hook refuses an out-of-domain user parameter with exit 2 before any check runs or
    results.json is written."""
    f = tmp_path / "s.toml"
    f.write_text('[[scenario]]\nname = "still"\ncheck = "B4.theorem1"\nparams = {step_size = 0.0}\n')
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2
    assert "step_size=0.0 is outside its domain (0, inf)" in res.output
    assert not (tmp_path / "o" / "results.json").exists()


@pytest.mark.parametrize("kind", ["proc", "parent_is_file", "sys"])
def test_unwritable_out_exits_2_before_any_check_runs(tmp_path, monkeypatch, kind):
    """An unwritable --out (under /proc, /sys or a regular file) is bad input: exit 2 with one line naming
    --out, found before the suite runs (it had been a traceback and exit 1 after the whole run)."""
    if kind == "proc":
        out = Path("/proc/contrastive-bounds-report")
    elif kind == "sys":
        out = Path("/sys/rep")
    else:
        (tmp_path / "plain").write_text("x")
        out = tmp_path / "plain" / "rep"
    if kind != "parent_is_file" and not out.parent.is_dir():
        pytest.skip(f"{out.parent} does not exist here")

    def no_run(*a, **k):  # noqa: ANN002, ANN003
        raise AssertionError("run_suite was called although --out is unwritable")

    monkeypatch.setattr(runner_mod, "run_suite", no_run)
    res = runner.invoke(app, ["check", "--scenarios", str(_plain_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = res.output.strip()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert text.startswith("error: --out=") and str(out) in text


def test_read_only_out_folder_is_refused(tmp_path, monkeypatch):
    """An existing --out folder where files cannot be created (the write probe fails) exits 2 with one line
    and leaves the folder empty."""
    out = tmp_path / "ro"
    out.mkdir()
    import tempfile

    real_mkstemp = tempfile.mkstemp

    def failing_mkstemp(*a, **k):  # noqa: ANN002, ANN003
        if Path(k.get("dir", "")) == out:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_mkstemp(*a, **k)

    monkeypatch.setattr(tempfile, "mkstemp", failing_mkstemp)
    res = runner.invoke(app, ["check", "--scenarios", str(_plain_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: --out={out} is not writable (Permission denied)"
    assert not list(out.iterdir())


def test_write_failure_during_the_run_exits_2_with_one_line(tmp_path, monkeypatch):
    """A write that fails after the probe (disk full) exits 2 with one line naming --out and the file, no
    traceback."""

    def disk_full(path, text):  # noqa: ANN001
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(runner_mod, "atomic_write_text", disk_full)
    out = tmp_path / "rep"
    res = runner.invoke(app, ["check", "--scenarios", str(_plain_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 2
    last = res.output.strip().splitlines()[-1]
    assert last == f"error: --out={out}: writing the results failed (No space left on device: {out / 'results.json'})"
    assert "Traceback" not in res.output


def test_report_files_are_world_readable_under_umask_022(tmp_path, umask_022):
    """report.html, report.md and results.json are 0o644 under umask 022 (they were mkstemp's 0600)."""
    out = tmp_path / "rep"
    res = runner.invoke(app, ["check", "--scenarios", str(_plain_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 0, res.output
    for name in ("report.html", "report.md", "results.json"):
        assert _mode(out / name) == 0o644, (name, oct(_mode(out / name)))
    assert json.loads((out / "results.json").read_text())["results"][0]["check"] == "plain.square"

