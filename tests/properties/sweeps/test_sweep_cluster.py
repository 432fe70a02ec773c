"""Sweeps on a REAL dask LocalCluster of 2 worker processes (properties/sweeps/_engine.py): the rows equal a serial
in-process run, a killed worker loses nothing, an interrupted sweep resumes to the same table, damaged rows are
recomputed. One cluster serves the module (its start-up is the slow part)."""

import os
import shutil
import signal

import pyarrow.parquet as pq
import pytest

from contrastive_bounds.properties.sweeps._engine import SweepInterrupted, execute_task, run_sweep
from contrastive_bounds.properties.sweeps._cluster import worker_environment
from contrastive_bounds.properties.sweeps._spec import parse_spec

SPEC = {"name": "cluster-test", "kind": "anneal", "seeds": [0],
        "params": {"H": 1.0, "chains": 64, "t_end": 2.0, "step_size": 0.01},
        "grid": {"schedule": ["temperature", "fixed"], "c_over_h": [0.5, 2.0]}}
IGNORED = ("wall_time_s", "row_digest")  # the only columns allowed to differ between two runs of a task


def _comparable(rows):
    return [{k: v for k, v in r.items() if k not in IGNORED} for r in rows]


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           env=worker_environment())
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, label="cluster-test")


@pytest.fixture(scope="module")
def serial(spec):
    """The rows of the same tasks run one after another in this process (no dask)."""
    return _comparable([execute_task(t) for t in spec.tasks])


@pytest.fixture(scope="module")
def full(client, spec, tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "full"
    res = run_sweep(spec, out, client=client)
    return res, out


@pytest.mark.slow
def test_rows_on_two_worker_processes_equal_a_serial_run(client, full, serial, spec):
    """Same spec, same rows whichever worker ran each task (versions and float64 mode included); each worker has
    one JAX device (no chain split inside a worker); the table is in task order and results.parquet is that table."""
    res, out = full
    assert res.computed == len(spec.tasks) and res.reused == 0 and res.workers == 2
    rows = res.table.to_pylist()
    assert _comparable(rows) == serial
    assert [r["task_index"] for r in rows] == list(range(len(spec.tasks)))
    assert '"jax_x64": "True"' in rows[0]["versions_json"]
    import jax

    assert set(client.run(lambda: len(jax.devices())).values()) == {1}  # one device, one thread per worker
    assert pq.read_table(out / "results.parquet").equals(res.table)
    assert len(list((out / "rows").glob("*.parquet"))) == len(spec.tasks)


@pytest.mark.slow
def test_an_interrupted_sweep_resumed_gives_the_uninterrupted_table(client, spec, serial, tmp_path):
    """Ctrl-C after two rows keeps them; --resume (here through the scheduler's address, as --scheduler does)
    computes only the others and the table equals a full run's."""
    def stop_after_two(row, done, total):
        if done == 2:
            raise KeyboardInterrupt

    out = tmp_path / "resumed"
    with pytest.raises(SweepInterrupted) as info:
        run_sweep(spec, out, client=client, on_row=stop_after_two)
    assert info.value.done == 2 and len(list((out / "rows").glob("*.parquet"))) == 2
    assert not (out / "results.parquet").exists()
    res = run_sweep(spec, out, scheduler=client.scheduler.address, resume=True)  # as --scheduler tcp://...
    assert res.reused == 2 and res.computed == len(spec.tasks) - 2 and res.workers == 2
    assert _comparable(res.table.to_pylist()) == serial


@pytest.mark.slow
def test_corrupt_partial_and_missing_rows_are_recomputed_on_resume(client, full, serial, tmp_path):
    """A truncated row file, one overwritten with garbage, a deleted one and a leftover temporary: resume
    recomputes exactly those three (naming why) and the table is whole again."""
    _, out = full
    copy = tmp_path / "damaged"
    shutil.copytree(out, copy)
    keys = [r["task_key"] for r in pq.read_table(copy / "results.parquet").to_pylist()]
    p0, p1, p2 = (copy / "rows" / f"{k}.parquet" for k in keys[:3])
    p0.write_bytes(p0.read_bytes()[:100])
    p1.write_bytes(b"PAR1 not a parquet file")
    p2.unlink()
    (copy / "rows" / f".{keys[3]}.parquet.tmp").write_bytes(b"half-written")
    spec = parse_spec(SPEC, label="cluster-test")
    res = run_sweep(spec, copy, client=client, resume=True)
    assert res.computed == 3 and res.reused == len(keys) - 3
    assert set(res.recomputed) == {keys[0], keys[1]} and all("unreadable" in v for v in res.recomputed.values())
    assert _comparable(res.table.to_pylist()) == serial
    assert not list((copy / "rows").glob(".*.tmp"))


@pytest.mark.slow
def test_a_worker_killed_in_the_middle_of_a_task_loses_nothing(client, spec, serial, tmp_path):
    """os.kill(SIGKILL) of a worker process while it executes a task: the task runs again elsewhere, the sweep
    completes and every task is in the table exactly once, with the rows of a serial run."""
    killed = []

    def executing(dask_worker):
        return [str(k) for k in dask_worker.state.executing]

    def kill_a_busy_worker(row, done, total):
        if killed:
            return
        pids = client.run(os.getpid)
        busy = {addr: keys for addr, keys in client.run(executing).items() if keys}
        if busy:
            addr, keys = next(iter(busy.items()))
            os.kill(pids[addr], signal.SIGKILL)
            killed.append(keys)

    res = run_sweep(spec, tmp_path / "killed", client=client, on_row=kill_a_busy_worker, retries=3)
    assert killed and killed[0], "no worker was executing a task when the first row arrived"
    rows = res.table.to_pylist()
    assert sorted(r["task_key"] for r in rows) == sorted(t.key for t in spec.tasks)  # each task exactly once
    assert all(r["verdict"] != "error" for r in rows)
    assert _comparable(rows) == serial


@pytest.mark.slow
def test_a_worker_killed_while_the_setup_plugin_is_sent_is_replaced(client, spec, serial, tmp_path):
    """A user's cluster (the scheduler address path): the set-up plugin is broadcast with Client.register_plugin and
    each worker waits in it (the plugin's hold folder); one is killed there, which makes the scheduler drop the
    registration call (CommClosedError). The registration is sent again, the nanny's replacement gets the plugin
    from the scheduler, and the sweep completes with every row once."""
    import threading
    import time

    from contrastive_bounds.properties.sweeps._cluster import SweepWorkerSetup

    hold = tmp_path / "hold"
    pids = set(client.run(os.getpid).values())
    killed = []

    def killer():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            marks = {int(p.name.split("-")[1]) for p in hold.glob("setup-*")} if hold.exists() else set()
            if marks >= pids:  # both workers are inside the set-up
                victim = sorted(marks)[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
                break
            time.sleep(0.01)
        hold.mkdir(parents=True, exist_ok=True)
        (hold / "release").write_text("")

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    res = run_sweep(spec, tmp_path / "out", client=client, setup=SweepWorkerSetup(hold=hold))
    thread.join(timeout=10)
    assert killed, "the workers never reached the set-up"
    rows = res.table.to_pylist()
    assert sorted(r["task_key"] for r in rows) == sorted(t.key for t in spec.tasks)
    assert _comparable(rows) == serial
    client.wait_for_workers(2, timeout=120)  # the nanny replaced the killed worker
    assert killed[0] not in set(client.run(os.getpid).values())


def _register_failing_kind():
    """Register kind `test-fails` (its run raises) in the calling process; run on the workers via client.run."""
    from contrastive_bounds.properties.sweeps.kinds import ParamSpec, TaskKind, register_kind

    def run(params, seed):
        raise RuntimeError(f"the numerics refused x={params['x']}")

    register_kind(TaskKind("test-fails", "a kind whose run raises", params=(ParamSpec("x", float, 1.0),), outputs={},
                           run=run, cost=lambda p: 0.01))
    return True


@pytest.mark.slow
def test_a_task_that_raises_is_an_error_row_with_its_exception(client, tmp_path):
    """A real task error is never lost among the silenced connection logs: its row is `error`, with the exception
    and the traceback in `error` and its first line as the summary; the other rows are unaffected."""
    import sys

    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    try:
        _register_failing_kind()
        assert set(client.run(_register_failing_kind).values()) == {True}
        spec = parse_spec({"name": "fails", "kind": "test-fails", "seeds": [0], "grid": {"x": [1.0, 2.0]}}, label="fails")
        res = run_sweep(spec, tmp_path / "out", client=client)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    rows = res.table.to_pylist()
    assert [r["verdict"] for r in rows] == ["error", "error"]
    assert rows[1]["summary"] == "RuntimeError: the numerics refused x=2.0"
    error = rows[1]["error"]
    assert "Traceback (most recent call last)" in error and " in run\n" in error
    assert error.rstrip().endswith("RuntimeError: the numerics refused x=2.0")
