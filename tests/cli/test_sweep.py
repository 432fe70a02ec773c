"""The ``sweep`` command (properties/cli/_sweep.py): built-in specs, validation and cost refusal (CliRunner), and the
real thing in a subprocess: the quick seed table on 2 workers, and Ctrl-C then --resume."""

import json
import os
import re
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
import pytest

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


def test_workers_and_retries_have_upper_limits(tmp_path):
    """--workers beyond 4 per core and --retries beyond 100 are refused with one line naming the option and
    its range, before anything starts (a --dry-run accepted 100000 workers)."""
    from contrastive_bounds.properties.cli._sweep import MAX_RETRIES, MAX_WORKERS_PER_CORE
    from contrastive_bounds.properties.sweeps._cluster import default_workers

    top = MAX_WORKERS_PER_CORE * default_workers()
    for opts, match in ((["--workers", str(top + 1)], rf"--workers={top + 1} must be in \[1, {top}\]"),
                        (["--workers", "0"], rf"--workers=0 must be in \[1, {top}\]"),
                        (["--retries", str(MAX_RETRIES + 1)], rf"--retries={MAX_RETRIES + 1} must be in \[0, {MAX_RETRIES}\]")):
        res = _run("seed-table", "--profile", "quick", "--dry-run", "--out", str(tmp_path / "o"), *opts)
        assert res.exit_code == 2 and re.search(match, res.output), res.output
        assert len([ln for ln in res.output.splitlines() if ln.strip()]) == 1
    assert not (tmp_path / "o").exists()


def test_a_sweep_above_the_cost_limit_is_refused_without_yes(tmp_path):
    """The full seed table (1e8 steps at H* = 10) prints its estimate and exits 2 unless --yes; --dry-run runs nothing."""
    res = _run("seed-table", "--out", str(tmp_path / "o"), "--workers", "2")
    assert res.exit_code == 2 and "core-hours" in res.output and "--yes" in res.output
    assert not (tmp_path / "o").exists()
    dry = _run("seed-table", "--profile", "quick", "--dry-run", "--json", "--out", str(tmp_path / "q"))
    assert dry.exit_code == 0
    assert json.loads(dry.output[dry.output.index("{"):])["tasks"] == 24 and not (tmp_path / "q").exists()


@pytest.mark.slow
def test_quick_seed_table_on_two_workers_writes_the_table_and_the_report(tmp_path):
    """`sweep seed-table --profile quick --workers 2 --out t`, with the first worker process killed (SIGKILL) as
    soon as it appears: the worker is started again, and the command writes one row per task in results.parquet
    (pyarrow), the HTML report and its PNG figures, and exits 0 (every trapped fraction agrees with Kramers)
    with no library traceback on stderr."""
    import psutil

    out = tmp_path / "t"
    proc = subprocess.Popen(CLI + ["sweep", "seed-table", "--profile", "quick", "--workers", "2", "--out", str(out),
                                   "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    killed, deadline = None, time.time() + 120
    while killed is None and time.time() < deadline and proc.poll() is None:
        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                if "spawn_main" in " ".join(child.cmdline()):
                    child.kill()
                    killed = child.pid
                    break
            except psutil.Error:
                pass
        time.sleep(0.01)
    stdout, stderr = proc.communicate(timeout=400)
    assert killed is not None, "no worker process appeared"
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr and "Error" not in stderr, stderr[-3000:]
    summary = json.loads(stdout)
    table = pq.read_table(out / "results.parquet")
    assert table.num_rows == summary["tasks"] == 24 and summary["workers"] == 2
    assert summary["cluster_losses"]["workers_lost"] == 1, summary["cluster_losses"]  # the killed one, said
    rows = table.to_pylist()
    assert len({r["task_key"] for r in rows}) == 24
    assert {(r["H"], r["schedule"]) for r in rows} == {(h, s) for h in (1.0, 5.0, 10.0)
                                                       for s in ("temperature", "linear", "exponential", "fixed")}
    assert all(0.0 <= r["ci_lo"] <= r["empirical"] <= r["ci_hi"] <= 1.0 for r in rows)
    html = (out / "report.html").read_text()
    assert "Sweep seed-table" in html and html.count("data:image/png;base64") == len(summary["figures"]) >= 8
    assert all(os.path.getsize(f) > 1000 for f in summary["figures"])


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_rows_says_how_to_resume_and_resume_finishes(tmp_path):
    """SIGINT during a sweep: exit 130 within seconds, a message naming --resume, the rows so far on disk; the
    same command with --resume computes only the rest and leaves a whole table."""
    spec = tmp_path / "s.toml"
    # 4 tasks of several seconds each on 2 workers: when the first row is on disk, the other worker is inside its
    # task and two more wait, so the interrupt lands inside the sweep even on a loaded machine where workers start slowly
    spec.write_text('name = "interrupt"\nkind = "anneal"\nseeds = "0..1"\n'
                    '[params]\nH = 1.0\nschedule = "fixed"\nchains = 2048\nt_end = 2000.0\n[grid]\nc_over_h = [0.5, 1.0]\n')
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
    assert "Traceback" not in err and "CommClosedError" not in err, err[-3000:]  # an orderly, quiet shutdown
    saved = len(saved_rows())
    assert 1 <= saved < 4
    done = subprocess.run(cmd + ["--resume", "--json"], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "CommClosedError" not in done.stderr, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["reused"] == saved and summary["computed"] == 4 - saved
    assert pq.read_table(out / "results.parquet").num_rows == 4


CLUSTER_SCRIPT = '''
import os, sys, time
from distributed import LocalCluster
from contrastive_bounds.properties.sweeps._cluster import worker_environment
if __name__ == "__main__":
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                           env=worker_environment())
    with open(sys.argv[1] + ".tmp", "w") as fh:
        fh.write(cluster.scheduler_address)
    os.replace(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(600)
'''


def _start_cluster(tmp_path, name):
    """Start a dask cluster (scheduler and one worker) in a process group of its own; returns
    (process, wait) where ``wait()`` gives its scheduler address once it is up."""
    script, address = tmp_path / "cluster.py", tmp_path / f"{name}.address"
    script.write_text(CLUSTER_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), str(address)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def wait():
        deadline = time.time() + 180
        while not address.exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert address.exists(), "the test cluster did not start"
        return address.read_text()
    return proc, wait


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


@pytest.mark.slow
def test_a_lost_scheduler_is_one_line_naming_it_and_resume_finishes_the_table(tmp_path):
    """`--scheduler ADDRESS`: the scheduler's process group is killed once the first row is on disk. The command
    exits 3 with one error line naming --scheduler and --resume, no traceback; the rows so far stay. The same
    command with --resume on a new scheduler computes only the rest and the table is whole."""
    import threading

    spec = tmp_path / "s.toml"
    spec.write_text('name = "lost"\nkind = "anneal"\nseeds = "0..3"\n'
                    '[params]\nH = 1.0\nschedule = "fixed"\nc = 0.5\nchains = 64\nt_end = 20.0\n')
    out = tmp_path / "o"
    first, first_address = _start_cluster(tmp_path, "first")
    second, second_address = _start_cluster(tmp_path, "second")  # starting meanwhile, for the --resume
    try:
        address = first_address()

        def kill_after_the_first_row():
            deadline = time.time() + 180
            while time.time() < deadline and not list(out.glob("rows/*.parquet")):
                time.sleep(0.02)
            _kill_group(first)

        killer = threading.Thread(target=kill_after_the_first_row, daemon=True)
        killer.start()
        res = _run(str(spec), "--scheduler", address, "--out", str(out), "--json")
        killer.join(timeout=60)
        assert res.exit_code == 3, res.output
        errors = [ln for ln in res.output.splitlines() if ln.startswith("error")]
        assert len(errors) == 1 and f"--scheduler={address}" in errors[0] and "--resume" in errors[0], res.output
        assert "Traceback" not in res.output and "CommClosedError" not in res.output
        saved = len(list(out.glob("rows/*.parquet")))  # every row on disk is a valid one: none is an error
        assert 1 <= saved < 4 and f"{saved} of 4 tasks are saved" in errors[0], res.output
        done = _run(str(spec), "--scheduler", second_address(), "--out", str(out), "--resume", "--json")
    finally:
        _kill_group(first)
        _kill_group(second)
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["reused"] == saved and summary["computed"] == 4 - saved
    assert pq.read_table(out / "results.parquet").num_rows == 4


def test_resume_with_a_changed_spec_is_refused_before_the_task_count(tmp_path):
    """A changed spec on --resume, or another sweep's folder without --resume: one error line naming the
    difference (or --resume), and no task count or cost printed first."""
    spec = tmp_path / "s.toml"
    spec.write_text('name = "b"\nkind = "bound"\nbound = "alignment.frobenius"\n[params]\nbatch_size = 64\n'
                    'num_classes = 10\ndelta = 0.05\neta_sum = 10.0\ntau = 0.5\n[grid]\nsteps = [100, 200]\n')
    out = tmp_path / "o"
    from contrastive_bounds.properties.sweeps._spec import load_spec
    from contrastive_bounds.properties.sweeps._store import ResultsStore, row_schema

    sp = load_spec(str(spec))
    ResultsStore(out, row_schema(sp.kind)).start(sp, resume=False)  # as a first run leaves it
    spec.write_text(spec.read_text().replace("[100, 200]", "[100, 300]"))
    changed = _run(str(spec), "--out", str(out), "--resume")
    again = _run(str(spec), "--out", str(out))
    for res, words in ((changed, ("--resume", "grid.steps", "[100, 200] -> [100, 300]")), (again, ("--out", "--resume"))):
        assert res.exit_code == 2
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:") and all(w in lines[0] for w in words), res.output
        assert "tasks" not in lines[0].split("(")[0]


def _register_failing_kind():
    """Register kind `test-fails` (its run raises) in the calling process; run on the workers via client.run."""
    from contrastive_bounds.properties.sweeps.kinds import ParamSpec, TaskKind, register_kind

    def run(params, seed):
        raise RuntimeError(f"the numerics refused x={params['x']}")

    register_kind(TaskKind("test-fails", "a kind whose run raises", params=(ParamSpec("x", float, 1.0),), outputs={},
                           run=run, cost=lambda p: 0.01))
    return True


@pytest.mark.slow
def test_a_task_error_is_reported_on_stderr_and_exits_1(tmp_path):
    """Silencing dask's connection logs hides no real error: a task whose computation raises is named on stderr
    with its exception (and its row is `error`), the command exits 1, and no library traceback is printed."""
    import cloudpickle
    from distributed import Client, LocalCluster

    from contrastive_bounds.properties.sweeps._cluster import worker_environment

    spec = tmp_path / "s.toml"
    spec.write_text('name = "fails"\nkind = "test-fails"\nseeds = [0]\n[grid]\nx = [1.0, 2.0]\n')
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    try:
        with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                          env=worker_environment()) as cluster, Client(cluster) as client:
            _register_failing_kind()
            client.run(_register_failing_kind)
            res = _run(str(spec), "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "o"))
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert res.exit_code == 1, res.output
    failed = [ln for ln in res.output.splitlines() if ln.startswith("task ") and " failed: " in ln]
    assert len(failed) == 2 and failed[1].startswith("task 1 (") and failed[1].endswith(
        "failed: RuntimeError: the numerics refused x=2.0"), res.output
    last = res.output.strip().splitlines()[-1]  # the command's last line says what failed
    assert last.startswith("sweep failed: 2 task(s) failed: task 0 (") and "the numerics refused x=2.0" in last, last
    assert "Traceback" not in res.output and "2 rows (2 error)" in res.output
