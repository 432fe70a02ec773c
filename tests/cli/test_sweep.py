"""The ``sweep`` command (properties/cli/sweep.py): built-in specs, validation and cost refusal (CliRunner), and the
real thing in a subprocess: the quick seed table on 2 workers, and Ctrl-C then --resume."""

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
from typer.testing import CliRunner

from contrastive_bounds.properties.cli.app import app

runner = CliRunner()
CLI = [sys.executable, "-m", "contrastive_bounds.properties"]


def _run(*args):
    return runner.invoke(app, ["sweep", *args])


def test_list_shows_the_builtin_specs_with_their_profiles():
    """--list names seed-table and theorem1-grid with task counts per profile (the quick seed table is small)."""
    res = _run("--list", "--json")
    assert res.exit_code == 0, res.output
    specs = {s["name"]: s for s in json.loads(res.output)["specs"]}
    assert {"seed-table", "theorem1-grid"} <= set(specs)
    assert specs["seed-table"]["profiles"]["quick"]["tasks"] < specs["seed-table"]["profiles"]["default"]["tasks"]
    table = _run("--list")
    assert table.exit_code == 0 and "seed-table" in table.output and "theorem1-grid" in table.output
    kinds = _run("--kinds", "--json")
    assert {k["kind"] for k in json.loads(kinds.output)["kinds"]} >= {"anneal", "align-simulate", "align-train", "bound", "check"}


def test_bad_spec_exits_2_with_one_line_naming_the_key_and_row(tmp_path):
    """Validation happens before anything runs: an out-of-domain value in a row exits 2 with one line."""
    spec = tmp_path / "bad.toml"
    spec.write_text('kind = "anneal"\n[params]\nH = 1.0\nschedule = "fixed"\n[[rows]]\nc = 1.0\n[[rows]]\nc = -3.0\n')
    res = _run(str(spec), "--out", str(tmp_path / "o"))
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "rows[1]" in lines[0] and "c=-3.0" in lines[0], res.output
    assert not (tmp_path / "o").exists()
    missing = _run(str(tmp_path / "nope.toml"))
    assert missing.exit_code == 2 and "neither a file nor a built-in spec" in missing.output


def test_a_sweep_above_the_cost_limit_is_refused_without_yes(tmp_path):
    """The full seed table (1e8 steps at H* = 10) prints its estimate and exits 2 unless --yes; --dry-run runs nothing."""
    res = _run("seed-table", "--out", str(tmp_path / "o"), "--workers", "2")
    assert res.exit_code == 2 and "core-hours" in res.output and "--yes" in res.output
    assert not (tmp_path / "o").exists()
    dry = _run("seed-table", "--profile", "quick", "--dry-run", "--json", "--out", str(tmp_path / "q"))
    assert dry.exit_code == 0
    assert json.loads(dry.output[dry.output.index("{"):])["tasks"] == 24 and not (tmp_path / "q").exists()


def test_quick_seed_table_on_two_workers_writes_the_table_and_the_report(tmp_path):
    """`sweep seed-table --profile quick --workers 2 --out t`: one row per task in results.parquet (pyarrow),
    the HTML report and its PNG figures, exit 0 (every trapped fraction agrees with Kramers)."""
    out = tmp_path / "t"
    proc = subprocess.run(CLI + ["sweep", "seed-table", "--profile", "quick", "--workers", "2", "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    table = pq.read_table(out / "results.parquet")
    assert table.num_rows == summary["tasks"] == 24 and summary["workers"] == 2
    rows = table.to_pylist()
    assert len({r["task_key"] for r in rows}) == 24
    assert {(r["H"], r["schedule"]) for r in rows} == {(h, s) for h in (1.0, 5.0, 10.0)
                                                       for s in ("temperature", "linear", "exponential", "fixed")}
    assert all(0.0 <= r["ci_lo"] <= r["empirical"] <= r["ci_hi"] <= 1.0 for r in rows)
    html = (out / "report.html").read_text()
    assert "Sweep seed-table" in html and html.count("data:image/png;base64") == len(summary["figures"]) >= 8
    assert all(os.path.getsize(f) > 1000 for f in summary["figures"])


def test_ctrl_c_keeps_the_finished_rows_says_how_to_resume_and_resume_finishes(tmp_path):
    """SIGINT during a sweep: exit 130 within seconds, a message naming --resume, the rows so far on disk; the
    same command with --resume computes only the rest and leaves a whole table."""
    spec = tmp_path / "s.toml"
    spec.write_text('name = "interrupt"\nkind = "anneal"\nseeds = "0..2"\n'
                    '[params]\nH = 1.0\nschedule = "fixed"\nchains = 2048\nt_end = 400.0\n[grid]\nc_over_h = [0.5, 1.0]\n')
    out = tmp_path / "o"
    cmd = CLI + ["sweep", str(spec), "--workers", "2", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    def saved_rows():
        return list((out / "rows").glob("*.parquet")) if (out / "rows").exists() else []

    deadline = time.time() + 240
    while time.time() < deadline and not saved_rows() and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, "the sweep finished before it could be interrupted"
    sent = time.time()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert time.time() - sent < 30
    assert "--resume" in err and "interrupted" in err
    saved = len(saved_rows())
    assert 1 <= saved < 6
    done = subprocess.run(cmd + ["--resume", "--json"], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert summary["reused"] == saved and summary["computed"] == 6 - saved
    assert pq.read_table(out / "results.parquet").num_rows == 6
