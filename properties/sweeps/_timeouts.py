"""Timeouts of a sweep's cluster on a loaded machine: scaled with the load, or retried.

On a machine whose cores are all busy every step of a worker's start, and of a lost worker's
replacement, is slow: spawning the process, importing, the worker set-up, connecting to the
scheduler, stopping and reaping a process. Each wait on that path either scales with the load or is
retried: the workers' heartbeat deadline is scaled (:func:`cluster_config`), as is the nanny's wait for
the scheduler to hear that its process is gone (:class:`~._cluster.SweepNanny`, :func:`scaled`); a
killed process that is slow to be reaped no longer fails the nanny's close (it is reaped later);
connections are retried (a registering worker loops until it gets through; the embedded cluster's
start, the client's connection and the count of its workers are retried by :mod:`._cluster` and
:mod:`._engine`, :data:`START_ATTEMPTS`, :data:`CONNECT_ATTEMPTS`); and a close after the last row
that still fails is finished fast, every row being saved by then.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["load_factor", "cluster_config", "scaled", "START_ATTEMPTS", "CONNECT_ATTEMPTS"]

#: Times the embedded cluster is started when a start times out (a worker's own set-up error is not retried).
START_ATTEMPTS = 3
#: Times the client connects to a cluster when a connection times out or is refused.
CONNECT_ATTEMPTS = 5
#: dask's defaults of the timeouts :func:`cluster_config` scales with the load, and the most each may become
#: (seconds): a machine slower than that has stopped, it is not loaded.
_BASE_TIMEOUTS = {"distributed.scheduler.worker-ttl": (300.0, 3600.0)}
#: The most any other scaled wait of a sweep's cluster may become (seconds).
_MAX_TIMEOUT = 600.0


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def load_factor() -> float:
    """How many times over the cores this process may use are busy: ``max(1, 1-minute load / cores)``."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - not Unix
        return 1.0
    return max(1.0, load / _cores())


def cluster_config(retries: int, workers: int, load: float | None = None) -> dict[str, Any]:
    """dask settings of a sweep's embedded cluster (set for the whole sweep, in this process and, through
    the nannies, in every worker process they start).

    * ``distributed.scheduler.allowed-failures`` = ``retries``: a task whose worker is lost runs again
      elsewhere, up to that many times;
    * ``distributed.scheduler.worker-saturation`` = 1: a worker holds only the task it runs, so the
      tasks of a lost worker are the ones that were running (and run again);
    * ``distributed.scheduler.worker-ttl`` (a worker's heartbeat) scaled by ``2 * max(load, workers per
      core)`` (``load`` = :func:`load_factor` when not given), capped at an hour: a worker whose event loop
      a loaded machine slows is not declared dead; ``distributed.comm.retry.count`` = 5 (dask retries the
      scheduler calls it can). ``distributed.comm.timeouts.connect`` keeps dask's 30 s on purpose: dask
      retries a refused connection until that timeout, so a longer one would make the client wait that long
      to learn that a lost worker's results are gone; every connection that may time out on a loaded machine
      is retried instead (a worker registering loops until it gets through; the cluster's start and the
      client's connection are retried by :mod:`._cluster`);    * ``distributed.deploy.lost-worker-timeout`` = 1 hour: a slow restart is waited for, not closed;
      ``distributed.admin.tick.limit`` = 60 s: an event loop slowed by the load is not worth a warning.

    Args:
      retries: >= 0. workers: worker processes of the cluster (>= 1). load: the load factor (>= 1).
    Returns:
      a dict for ``dask.config.set``.
    """
    scale = 2.0 * max(load_factor() if load is None else max(1.0, load), workers / _cores(), 1.0)
    config: dict[str, Any] = {k: f"{min(cap, base * scale):.0f}s" for k, (base, cap) in _BASE_TIMEOUTS.items()}
    config.update({"distributed.scheduler.allowed-failures": retries, "distributed.scheduler.worker-saturation": 1.0,
                   "distributed.comm.retry.count": 5, "distributed.deploy.lost-worker-timeout": "1 hour",
                   "distributed.admin.tick.limit": "60s"})
    return config


def scaled(seconds: float) -> float:
    """``seconds`` (dask's default of a wait) times ``2 * load_factor()``, at most 10 minutes."""
    return min(_MAX_TIMEOUT, seconds * 2.0 * load_factor())
