"""A sweep survives losing a worker at any moment (properties/sweeps/cluster.py, engine.py), on a REAL embedded
LocalCluster of worker processes: killed (SIGKILL) before it registers with the scheduler, during the worker set-up
plugin, while a row is written. The set-up plugin's ``hold`` folder makes the start-up window deterministic: each
worker announces itself in its set-up and waits there until the test has killed the one it wants.

Tasks are pure-theory ``bound`` rows (milliseconds each), so the time is the cluster's start-up; the rows must equal
a serial in-process run: nothing lost, nothing doubled, no error row."""

import os
import signal
import threading
import time

import psutil
import pytest

from contrastive_bounds.properties.sweeps.cluster import LostConnectionFilter, SweepWorkerSetup
from contrastive_bounds.properties.sweeps.engine import execute_task, run_sweep
from contrastive_bounds.properties.sweeps.spec import parse_spec
from contrastive_bounds.properties.sweeps.store import ResultsStore

SPEC = {"name": "worker-loss", "kind": "bound", "bound": "alignment.frobenius",
        "params": {"batch_size": 64, "num_classes": 10, "delta": 0.05, "eta_sum": 10.0, "tau": 0.5},
        "grid": {"steps": [100, 200, 400, 800, 1600, 3200]}}
IGNORED = ("wall_time_s", "row_digest")


def _comparable(rows):
    return [{k: v for k, v in r.items() if k not in IGNORED} for r in rows]


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, label="worker-loss")


@pytest.fixture(scope="module")
def serial(spec):
    return _comparable([execute_task(t) for t in spec.tasks])


def _worker_processes(exclude=()):
    """Worker processes of clusters this test process runs (multiprocessing spawn children)."""
    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.pid not in exclude and "spawn_main" in " ".join(child.cmdline()):
                out.append(child.pid)
        except psutil.Error:
            pass
    return out


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _whole(res, spec, serial):
    rows = res.table.to_pylist()
    assert sorted(r["task_key"] for r in rows) == sorted(t.key for t in spec.tasks)  # each task exactly once
    assert all(r["verdict"] != "error" for r in rows), [r["summary"] for r in rows if r["verdict"] == "error"]
    assert _comparable(rows) == serial


@pytest.mark.slow
def test_workers_killed_before_registration_and_during_the_setup_plugin_are_replaced(spec, serial, tmp_path):
    """Embedded cluster of 2: the first worker process is killed as soon as it exists (importing, long before it
    registers), then a worker is killed inside the set-up plugin (it has not registered either). Both are started
    again by their nannies; the sweep ends with 2 workers and every row, equal to a serial run."""
    hold = tmp_path / "hold"
    before = set(_worker_processes())
    killed = []

    def killer():
        deadline = time.monotonic() + 240
        while not killed and time.monotonic() < deadline:  # 1. the first worker process that appears
            new = _worker_processes(before)
            if new:
                _kill(new[0])
                killed.append(new[0])
            time.sleep(0.01)
        while len(killed) < 2 and time.monotonic() < deadline:  # 2. a worker waiting in its set-up
            marks = [int(p.name.split("-")[1]) for p in hold.glob("setup-*")] if hold.exists() else []
            marks = [m for m in marks if m not in killed]
            if marks:
                _kill(marks[0])
                killed.append(marks[0])
            time.sleep(0.01)
        hold.mkdir(parents=True, exist_ok=True)
        (hold / "release").write_text("")

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    res = run_sweep(spec, tmp_path / "out", workers=2, setup=SweepWorkerSetup(hold=hold))
    thread.join(timeout=10)
    assert len(killed) == 2 and not any(psutil.pid_exists(p) and psutil.Process(p).status() != "zombie" for p in killed)
    assert res.workers == 2 and res.computed == len(spec.tasks)
    started = {int(p.name.split("-")[1]) for p in hold.glob("setup-*")}
    assert killed[1] in started and len(started - set(killed)) >= 2  # two more workers got through the set-up
    _whole(res, spec, serial)


@pytest.mark.slow
def test_a_worker_killed_while_a_row_is_written_loses_and_doubles_nothing(spec, serial, tmp_path, monkeypatch):
    """Embedded cluster of 2: in the middle of writing the first row (before the file is renamed into place), a
    worker process is killed; the others' tasks are re-run where needed and every row is written once."""
    original = ResultsStore.write_row
    killed = []

    def write_row(self, row):
        if not killed:
            pids = _worker_processes()
            _kill(pids[0])
            killed.append(pids[0])
        return original(self, row)

    monkeypatch.setattr(ResultsStore, "write_row", write_row)
    res = run_sweep(spec, tmp_path / "out", workers=2)
    assert killed
    _whole(res, spec, serial)
    assert len(list((tmp_path / "out" / "rows").glob("*.parquet"))) == len(spec.tasks)


def test_the_lost_connection_filter_drops_connection_noise_and_keeps_real_errors():
    """Dropped: a record carrying a CommClosedError (a heartbeat to a closed scheduler), a broadcast to a dead worker;
    kept: an error with any other exception, a plain error message; while closing only CRITICAL passes."""
    import logging

    from distributed.comm.core import CommClosedError

    def record(msg, exc=None, level=logging.ERROR):
        return logging.LogRecord("distributed.worker", level, __file__, 1, msg, (), (type(exc), exc, None) if exc else None)

    f = LostConnectionFilter()
    assert not f.filter(record("Failed to communicate with scheduler during heartbeat.", CommClosedError("in <TCP>")))
    assert not f.filter(record("broadcast to tcp://127.0.0.1:1 failed: CommClosedError: in <TCP (closed)>"))
    assert not f.filter(record("Failed to communicate with scheduler during heartbeat.", OSError("Timed out trying to connect")))
    assert f.filter(record("Unexpected exception during heartbeat. Closing worker.", KeyError("op")))
    assert f.filter(record("Compute Failed", ValueError("tau=-1 must be > 0")))
    assert f.filter(record("Worker plugin contrastive-bounds-sweep failed to setup"))
    f.closing = True
    assert not f.filter(record("Compute Failed", ValueError("x")))
    assert f.filter(record("scheduler crashed", RuntimeError("x"), level=logging.CRITICAL))


@pytest.mark.slow
def test_a_worker_setup_that_fails_is_reported_not_retried(spec, tmp_path):
    """A real start-up error (the set-up plugin raises on the worker: here its hold folder cannot be created) is not
    mistaken for a lost worker: the cluster start fails once, and SweepClusterLost says why, naming the cause."""
    from contrastive_bounds.properties.sweeps.engine import SweepClusterLost

    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SweepClusterLost) as info:
        run_sweep(spec, tmp_path / "out", workers=1, setup=SweepWorkerSetup(hold=blocker / "hold"))
    assert info.value.done == 0 and info.value.total == len(spec.tasks)
    assert "could not start 1 worker(s)" in info.value.why and "NotADirectoryError" in info.value.why, info.value.why
