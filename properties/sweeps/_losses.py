"""What a sweep's cluster lost, and which tasks ran again because of it: counted from dask's own records.

* Workers lost: the scheduler's event log (``Client.get_events("all")``) has a ``remove-worker`` event
  for every registered worker that left; one that was not expected (not a retirement, not a closing
  cluster) is a worker lost. The nannies of an embedded cluster (:class:`~._cluster.SweepNanny`) also
  see every worker process that exits abnormally while the sweep holds the cluster, including those
  lost while starting (killed before they registered, or during the worker set-up), which the
  scheduler never saw; the larger count is reported.
* Tasks that ran again: the worker set-up plugin (:class:`~._cluster.SweepWorkerSetup`) writes an event
  (topic :data:`STARTED_TOPIC`) to the scheduler's log each time a sweep task starts executing; a task
  that started more than once in a run ran again (its worker was lost while it ran, its result was lost
  with its worker, or the cluster cancelled its future and the engine submitted it again). A task that
  was only waiting on a lost worker is scheduled elsewhere but runs once: it is not counted.

:class:`ClusterLosses` is what the command line prints, what the report shows and what
``results.parquet`` keeps in its metadata (one record per run that wrote the table, so a resumed sweep keeps
the losses of its earlier finished runs; an interrupted run writes no table, and its losses are not kept).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

__all__ = ["ClusterLosses", "collect_losses", "task_key_of", "describe_losses", "losses_from_metadata", "METADATA_KEY", "STARTED_TOPIC"]

#: Key of the losses of every run in the metadata of ``results.parquet`` (JSON list of :meth:`ClusterLosses.to_dict`).
METADATA_KEY = "contrastive_bounds.cluster_losses"
#: Topic of the scheduler events that say a sweep task started executing (``{"key": dask key}``).
STARTED_TOPIC = "contrastive-bounds-sweep-started"
#: Prefix of every dask key a sweep submits: ``contrastive-bounds-sweep-<task key>-<run id>[-<attempt>]``.
KEY_PREFIX = "contrastive-bounds-sweep-"


def task_key_of(dask_key: Any) -> str | None:
    """The sweep task key inside a dask key the engine submitted (``None`` for any other key)."""
    text = dask_key if isinstance(dask_key, str) else str(dask_key)
    if not text.startswith(KEY_PREFIX):
        return None
    parts = text[len(KEY_PREFIX):].split("-")
    return parts[0] if parts and parts[0] else None


@dataclass
class ClusterLosses:
    """Worker processes lost during one run of a sweep, and the tasks run again because of it.

    Attributes:
      workers_lost: worker processes lost (killed, crashed, out of memory) while the sweep held the
        cluster: the larger of what the nannies saw and what the scheduler saw.
      lost_while_starting: of those, lost before they registered with the scheduler (embedded cluster
        only: the scheduler never sees them).
      rerun: task key -> times it started again after a first start (its worker was lost while it ran,
        its result was lost with its worker, or the cluster cancelled its future).
      task_index: task key -> index in the spec (for messages).
    """

    workers_lost: int = 0
    lost_while_starting: int = 0
    rerun: dict[str, int] = field(default_factory=dict)
    task_index: dict[str, int] = field(default_factory=dict)

    @property
    def any(self) -> bool:
        return bool(self.workers_lost or self.rerun)

    def add_rerun(self, key: str, times: int = 1) -> None:
        self.rerun[key] = self.rerun.get(key, 0) + times

    def to_dict(self) -> dict[str, Any]:
        return {"workers_lost": self.workers_lost, "lost_while_starting": self.lost_while_starting,
                "rerun": [{"task_key": k, "task_index": self.task_index.get(k), "times": n}
                          for k, n in sorted(self.rerun.items(), key=lambda kv: (self.task_index.get(kv[0], 0), kv[0]))]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ClusterLosses:
        rerun = {r["task_key"]: int(r["times"]) for r in d.get("rerun", [])}
        index = {r["task_key"]: r["task_index"] for r in d.get("rerun", []) if r.get("task_index") is not None}
        return cls(int(d.get("workers_lost", 0)), int(d.get("lost_while_starting", 0)), rerun, index)

    def describe(self, limit: int = 8) -> str:
        """One line: ``2 worker processes lost (1 while starting); 3 tasks ran again: task 4 (key), ...``."""
        return describe_losses([self], limit)


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else (plural or word + 's')}"


def describe_losses(runs: Iterable[ClusterLosses], limit: int = 8) -> str:
    """One line for the losses of one or several runs of a sweep (summed)."""
    runs = list(runs)
    lost = sum(r.workers_lost for r in runs)
    starting = sum(r.lost_while_starting for r in runs)
    rerun: dict[str, int] = {}
    index: dict[str, int] = {}
    for r in runs:
        for k, n in r.rerun.items():
            rerun[k] = rerun.get(k, 0) + n
        index.update(r.task_index)
    if not lost and not rerun:
        return "no worker was lost and no task ran again"
    text = _plural(lost, "worker process", "worker processes") + " lost"
    if starting:
        text += f" ({starting} while starting, before registering with the scheduler)"
    if not rerun:
        return text + "; no task ran again (none was running on a lost worker)"
    order = sorted(rerun, key=lambda k: (index.get(k, 0), k))
    named = ", ".join(f"task {index[k]} ({k})" if k in index else k for k in order[:limit])
    more = f", and {len(order) - limit} more" if len(order) > limit else ""
    times = sum(rerun.values())
    again = _plural(len(rerun), "task") + " ran again" + (f" ({times} times in all)" if times != len(rerun) else "")
    return f"{text}; {again}: {named}{more}"


def _nanny_losses(client: Any, since: float) -> int | None:
    """Worker processes the nannies of an embedded cluster saw lost since ``since`` (``None`` for another cluster)."""
    from contrastive_bounds.properties.sweeps._cluster import SweepNanny

    cluster = getattr(client, "cluster", None)
    workers = getattr(cluster, "workers", None)
    if not isinstance(workers, dict):
        return None
    nannies = [w for w in workers.values() if isinstance(w, SweepNanny)]
    return sum(1 for n in nannies for p in n.lost_processes if p["time"] >= since) if nannies else None


def collect_losses(client: Any, since: float, keys: Iterable[str], task_index: dict[str, int] | None = None) -> ClusterLosses:
    """The losses of the run that started at ``since`` (``time.time()``), on ``client``'s cluster.

    Args:
      client: the sweep's ``distributed.Client`` (still connected).
      since: wall-clock start of the run (before its cluster started): earlier events of a long-lived
        scheduler, or earlier losses of a cluster the caller passed in, are not this run's.
      keys: the task keys of this run (events naming other keys are another sweep's).
      task_index: task key -> index in the spec.

    Never raises: a scheduler that cannot be asked gives the nannies' count only.
    """
    wanted = set(keys)
    losses = ClusterLosses(task_index=dict(task_index or {}))

    def events(topic: str) -> list:
        try:
            return [(t, m) for t, m in client.get_events(topic) if t >= since and isinstance(m, dict)]
        except Exception:  # noqa: BLE001 - the counts then come from what could be asked
            return []

    removed = sum(1 for _, m in events("all") if m.get("action") == "remove-worker" and not m.get("expected"))
    starts: dict[str, int] = {}
    for _, m in events(STARTED_TOPIC):
        key = task_key_of(m.get("key", ""))
        if key is not None and key in wanted:
            starts[key] = starts.get(key, 0) + 1
    for key, n in starts.items():
        if n > 1:
            losses.add_rerun(key, n - 1)
    nanny = _nanny_losses(client, since)
    losses.workers_lost = max(removed, nanny or 0)
    losses.lost_while_starting = max(0, (nanny or 0) - removed)
    return losses


def losses_from_metadata(metadata: dict[bytes, bytes] | None) -> list[ClusterLosses]:
    """The losses of every run kept in a results table's metadata (empty when none were kept)."""
    raw = (metadata or {}).get(METADATA_KEY.encode())
    if not raw:
        return []
    try:
        return [ClusterLosses.from_dict(d) for d in json.loads(raw)]
    except (ValueError, TypeError, KeyError):
        return []
