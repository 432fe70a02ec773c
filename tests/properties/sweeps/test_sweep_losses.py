"""What a sweep says about its cluster (properties/sweeps/_losses.py, timeouts.py, cluster.close_quietly), without a
cluster: lost workers and re-run tasks counted from dask's event records, the scaled timeouts, the close that never
fails a finished sweep."""

import json

import pytest

import contrastive_bounds.properties.sweeps._cluster as cluster
from contrastive_bounds.properties.sweeps._losses import (METADATA_KEY, STARTED_TOPIC, ClusterLosses, collect_losses,
                                                         describe_losses, losses_from_metadata, task_key_of)
from contrastive_bounds.properties.sweeps._timeouts import cluster_config

KEY_A, KEY_B, KEY_C = "0123456789abcdef01234567", "89abcdef0123456789abcdef", "fedcba9876543210fedcba98"


def _dask_key(task_key, attempt=0):
    return f"contrastive-bounds-sweep-{task_key}-1a2b3c4d" + (f"-{attempt}" if attempt else "")


class _Client:
    """Answers get_events like a scheduler's event log: (time, message) pairs per topic."""

    def __init__(self, events):
        self.events = events

    def get_events(self, topic):
        return self.events.get(topic, [])


def test_task_keys_are_read_from_the_engines_dask_keys_only():
    assert task_key_of(_dask_key(KEY_A)) == KEY_A and task_key_of(_dask_key(KEY_B, 2)) == KEY_B
    assert task_key_of("inc-123") is None and task_key_of(("tuple", 1)) is None


def test_workers_lost_and_tasks_started_twice_are_counted_from_this_runs_events():
    """A task that started twice ran again once; one that started once did not run again, whatever a lost worker
    held; an expected removal (retirement, close) is not a loss; events before the run or of other tasks are not
    this run's."""
    since = 1000.0
    client = _Client({
        "all": [(999.0, {"action": "remove-worker", "expected": False}),  # before this run
                (1001.0, {"action": "remove-worker", "expected": False, "processing-tasks": {_dask_key(KEY_B)}}),
                (1002.0, {"action": "remove-worker", "expected": True}),  # the cluster closing
                (1003.0, {"action": "add-worker"})],
        STARTED_TOPIC: [(1000.5, {"key": _dask_key(KEY_A)}), (1000.6, {"key": _dask_key(KEY_B)}),
                        (1001.5, {"key": _dask_key(KEY_A)}), (1002.5, {"key": _dask_key(KEY_A, 1)}),
                        (1001.7, {"key": _dask_key(KEY_C)}), (1001.8, {"key": _dask_key(KEY_C)}),  # another sweep's
                        (998.0, {"key": _dask_key(KEY_B)})]})
    losses = collect_losses(client, since, [KEY_A, KEY_B], {KEY_A: 3, KEY_B: 7})
    assert losses.workers_lost == 1 and losses.lost_while_starting == 0
    assert losses.rerun == {KEY_A: 2}  # started three times; KEY_B (only waiting on the lost worker) ran once
    assert losses.describe() == f"1 worker process lost; 1 task ran again (2 times in all): task 3 ({KEY_A})"


def test_a_scheduler_that_cannot_be_asked_gives_no_losses_rather_than_an_error():
    class Broken:
        def get_events(self, topic):
            raise OSError("Timed out trying to connect")

    assert collect_losses(Broken(), 0.0, [KEY_A]).to_dict() == {"workers_lost": 0, "lost_while_starting": 0, "rerun": []}


def test_losses_round_trip_through_the_tables_metadata_and_read_in_one_line():
    runs = [ClusterLosses(3, 2, {KEY_B: 1, KEY_A: 1}, {KEY_A: 0, KEY_B: 5}), ClusterLosses()]
    meta = {METADATA_KEY.encode(): json.dumps([r.to_dict() for r in runs]).encode()}
    back = losses_from_metadata(meta)
    assert [r.to_dict() for r in back] == [r.to_dict() for r in runs]
    assert describe_losses(back) == (f"3 worker processes lost (2 while starting, before registering with the "
                                     f"scheduler); 2 tasks ran again: task 0 ({KEY_A}), task 5 ({KEY_B})")
    assert describe_losses([ClusterLosses()]) == "no worker was lost and no task ran again"
    assert describe_losses([ClusterLosses(1)]).endswith("no task ran again (none was running on a lost worker)")
    assert losses_from_metadata({}) == [] and losses_from_metadata({METADATA_KEY.encode(): b"not json"}) == []


def test_the_heartbeat_deadline_scales_with_the_load_and_connections_keep_dasks_timeout(monkeypatch):
    """dask's 5 min heartbeat deadline times 2 * max(load per core, workers per core), at most an hour; the connect
    timeout is left at dask's 30 s (dask retries a refused connection until it expires: longer would make the
    client wait that long on a lost worker's results); the task retries; a worker holding only the task it runs."""
    monkeypatch.setattr("contrastive_bounds.properties.sweeps._timeouts._cores", lambda: 2)
    idle = cluster_config(3, 2, load=1.0)
    assert idle["distributed.scheduler.worker-ttl"] == "600s" and "distributed.comm.timeouts.connect" not in idle
    assert idle["distributed.scheduler.allowed-failures"] == 3 and idle["distributed.scheduler.worker-saturation"] == 1.0
    assert cluster_config(0, 2, load=2.5)["distributed.scheduler.worker-ttl"] == "1500s"
    assert cluster_config(0, 8, load=1.0)["distributed.scheduler.worker-ttl"] == "2400s"  # 4 workers per core
    assert cluster_config(0, 2, load=100.0)["distributed.scheduler.worker-ttl"] == "3600s"


@pytest.mark.parametrize("failing", ["client", "cluster"])
def test_a_close_that_fails_after_the_last_row_is_finished_fast_and_raises_nothing(monkeypatch, failing):
    calls = []

    class Closable:
        def __init__(self, name):
            self.name = name

        def close(self, timeout=None):
            calls.append(self.name)
            if self.name == failing:
                raise TimeoutError("close timed out")

    monkeypatch.setattr(cluster, "close_fast", lambda client, clus: calls.append("close_fast"))
    cluster.close_quietly(Closable("client"), Closable("cluster"))
    assert calls[-1] == "close_fast" and calls[0] == "client"
