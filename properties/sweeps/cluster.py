"""Where a sweep runs: the embedded LocalCluster or a user's scheduler, and how worker loss is survived.

* Embedded (:func:`open_client` without ``scheduler``): a LocalCluster of ``workers`` processes with
  one thread each, every one under a :class:`SweepNanny`. The worker set-up
  (:class:`SweepWorkerSetup`: float64 JAX, one CPU device, one XLA thread) is a worker plugin given
  at construction, so it runs in each worker *before* the worker registers with the scheduler: a
  task never runs on a worker without it, and no broadcast is needed. A worker process lost while
  it starts (before registration, during the set-up) is started again by its nanny
  (:class:`SweepNanny`); one lost later is restarted by the nanny as dask always does, and its task
  runs again elsewhere (``distributed.scheduler.allowed-failures`` = ``retries``). The embedded
  cluster never gives up on a lost worker (``distributed.deploy.lost-worker-timeout`` is raised so
  that a slow restart on a loaded machine is waited for, not closed).
* A scheduler address: the set-up plugin is registered with ``Client.register_plugin``; the
  scheduler keeps it for every worker that joins later. A worker lost while the plugin is being
  sent to it breaks that broadcast (the scheduler drops the client's connection); the registration
  is sent again (:func:`register_setup`) and reaches the remaining and the replacement workers.
  A scheduler that is lost raises :class:`SchedulerLost` (the engine turns it into
  :class:`~.engine.SweepClusterLost`, saying how many rows are saved).
* Logs: while a sweep holds a cluster, dask's records of connections closed by a lost worker or a
  closing cluster (``CommClosedError``, heartbeats to a scheduler that is going away, a broadcast
  to a dead worker) are dropped by :class:`LostConnectionFilter`, in this process and in the
  workers; when the sweep has stopped (finished, interrupted, scheduler lost), everything below
  CRITICAL that dask logs while the cluster closes is dropped. Any other dask error is still shown,
  and a task's own error is in its row (``error``), never in a log.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from distributed import Nanny, WorkerPlugin
from distributed.core import Status

__all__ = ["open_client", "SweepWorkerSetup", "SweepNanny", "WORKER_XLA_FLAGS", "default_workers", "worker_environment",
           "register_setup", "SchedulerLost", "ClusterStartError", "LostConnectionFilter", "quiet_lost_connections",
           "close_fast"]

logger = logging.getLogger(__name__)

#: XLA flags of every worker: one compute thread and one CPU device (the cluster has one worker
#: process per core; with more devices the simulator would split its chains over them, using more
#: threads and, since the noise stream depends on the split, giving other numbers).
WORKER_XLA_FLAGS = ("--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1 "
                    "--xla_force_host_platform_device_count=1")


class SchedulerLost(ConnectionError):
    """The connection to the scheduler is gone (the client is reconnecting or closed)."""


class ClusterStartError(RuntimeError):
    """The embedded cluster could not start a single worker (the message says why)."""


def default_workers() -> int:
    """One worker per core this process may use (``os.sched_getaffinity``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def worker_environment() -> dict[str, str]:
    """Environment of an embedded worker: float64 JAX, one XLA/BLAS thread (user XLA_FLAGS kept first)."""
    flags = " ".join(x for x in (os.environ.get("XLA_FLAGS", ""), WORKER_XLA_FLAGS) if x)
    return {"XLA_FLAGS": flags, "JAX_ENABLE_X64": "1", "JAX_NUM_CPU_DEVICES": "1", "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# ---------------------------------------------------------------------------------------- logs
def _benign_types() -> tuple[type[BaseException], ...]:
    from distributed.comm.core import CommClosedError
    from tornado.iostream import StreamClosedError

    return (CommClosedError, StreamClosedError, ConnectionError, asyncio.CancelledError)


#: Messages dask logs, without an exception attached, about a connection that a lost worker or a
#: closing cluster broke; what they report is handled by the sweep (the task runs again, the rows
#: are saved, the lost scheduler is reported in one line).
_BENIGN_TEXT = ("CommClosedError", "Stream is closed", "Failed to reconnect to scheduler", "Worker failed to connect",
                "Failed to restart worker", "lost connection", "Connection refused",
                "Failed to communicate with scheduler during heartbeat")


class LostConnectionFilter(logging.Filter):
    """A logging filter for dask's handlers: drops the records of connections closed by a lost worker
    or a closing cluster (an exception of :func:`_benign_types`, or one of :data:`_BENIGN_TEXT`);
    with ``closing`` set, drops every record below CRITICAL (the cluster is being shut down after
    the sweep stopped). Everything else passes, a real library error included."""

    def __init__(self) -> None:
        super().__init__("contrastive-bounds-sweep")
        self.closing = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.CRITICAL:
            return True
        if self.closing:
            return False
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and isinstance(exc, _benign_types()):
            return False
        text = record.getMessage()
        return not any(t.lower() in text.lower() for t in _BENIGN_TEXT)


def _dask_handlers() -> list[logging.Handler]:
    """The handlers dask's records reach: those of the ``distributed`` logger (dask's own, from its
    logging configuration) and, when it propagates, the root logger's."""
    log = logging.getLogger("distributed")
    handlers = list(log.handlers)
    if log.propagate:
        handlers += [h for h in logging.getLogger().handlers if h not in handlers]
    return handlers


@contextmanager
def quiet_lost_connections() -> Iterator[LostConnectionFilter]:
    """Install a :class:`LostConnectionFilter` on dask's handlers for the block (removed after it)."""
    filt = LostConnectionFilter()
    handlers = _dask_handlers()
    for h in handlers:
        h.addFilter(filt)
    try:
        yield filt
    finally:
        for h in handlers:
            h.removeFilter(filt)


def _install_worker_filter() -> None:
    """In a worker process: the same filter on dask's handlers, for the process's lifetime (a worker
    logs a failed heartbeat when the scheduler closes before it)."""
    for h in _dask_handlers():
        if not any(isinstance(f, LostConnectionFilter) for f in h.filters):
            h.addFilter(LostConnectionFilter())


# ---------------------------------------------------------------------------------------- workers
class SweepWorkerSetup(WorkerPlugin):
    """Worker plugin: set the XLA flags and one CPU device (effective when JAX has not started its
    backend on that worker yet), turn on JAX's float64 mode and the worker's
    :class:`LostConnectionFilter`. Given at construction to embedded workers (it runs before the worker
    registers) and registered with every other cluster a sweep uses.

    Args:
      hold: a folder, for tests and for reproducing start-up failures: the set-up writes
        ``hold/setup-<pid>`` and then waits until ``hold/release`` exists (at most ``hold_timeout``
        seconds), so a worker can be killed at a known moment of its start.
      hold_timeout: seconds.
    """

    name = "contrastive-bounds-sweep"

    def __init__(self, hold: str | os.PathLike[str] | None = None, hold_timeout: float = 120.0):
        self.hold = None if hold is None else str(hold)
        self.hold_timeout = float(hold_timeout)

    def setup(self, worker: Any) -> Any:
        _install_worker_filter()
        flags = os.environ.get("XLA_FLAGS", "")
        if WORKER_XLA_FLAGS not in flags:
            os.environ["XLA_FLAGS"] = " ".join(x for x in (flags, WORKER_XLA_FLAGS) if x)
        from contrastive_bounds.numerics.devices import use_host_devices
        from contrastive_bounds.numerics.precision import enable_x64

        os.environ["JAX_NUM_CPU_DEVICES"] = "1"
        use_host_devices(1)
        enable_x64()
        return self._wait_for_release() if self.hold else None

    async def _wait_for_release(self) -> None:
        folder = Path(self.hold)  # type: ignore[arg-type]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"setup-{os.getpid()}").write_text(str(os.getpid()))
        deadline = time.monotonic() + self.hold_timeout
        while not (folder / "release").exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)


class SweepNanny(Nanny):
    """The nanny of an embedded worker. A worker process that dies while the nanny starts it (killed
    before it registered with the scheduler, or during :class:`SweepWorkerSetup`) is started again,
    up to :attr:`start_attempts` times, instead of failing the whole cluster; once started, a lost
    worker process is restarted by dask's own nanny logic."""

    start_attempts = 5

    async def instantiate(self) -> Status:
        status = await super().instantiate()
        tries = 1
        # Status.init: the nanny's own start (Server.start) is running; later, the nanny's exit
        # callback restarts the worker (Nanny._on_worker_exit), so this loop must not.
        while status != Status.running and self.status == Status.init and tries < self.start_attempts:
            tries += 1
            logger.info("worker process of nanny %s was lost while starting; starting it again (%d of %d)",
                        self.name, tries, self.start_attempts)
            status = await super().instantiate()
        return status

    async def start_unsafe(self) -> "SweepNanny":
        await super().start_unsafe()
        # Lost after it reported itself started but before the nanny finished starting: the exit
        # callback ignored it (status init), so start it again here.
        if self.process is not None and self.process.status == Status.stopped:
            await self.instantiate()
        return self


_FILE_ERRORS = (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError, NotADirectoryError)


def register_setup(client: Any, setup: SweepWorkerSetup, attempts: int = 6) -> None:
    """``client.register_plugin(setup)``, sent again when a worker was lost while it was being sent.

    The scheduler stores the plugin before it broadcasts it, so a worker that joins later gets it at
    registration; a worker lost during the broadcast makes the scheduler drop the client's call
    (``CommClosedError``) or return the connection error. The call is repeated (at most
    ``attempts`` times, a growing pause between) until every current worker has the plugin.

    Raises:
      SchedulerLost: the client lost its scheduler.
      OSError: the broadcast kept failing. Any error of the plugin's set-up on a worker (a file
        error included) is raised at once.
    """
    from distributed.comm.core import CommClosedError

    for attempt in range(attempts):
        try:
            client.register_plugin(setup)
            return
        except OSError as exc:  # CommClosedError, a refused or timed-out connection to a dead worker
            if isinstance(exc, _FILE_ERRORS) and not isinstance(exc, CommClosedError):
                raise  # the set-up itself failed on a worker
            if client.status != "running":
                raise SchedulerLost("the connection to the scheduler was lost") from None
            if attempt == attempts - 1:
                raise
            logger.info("a worker was lost while the set-up plugin was sent (%s); sending it again", exc)
            time.sleep(0.2 * (attempt + 1))


# ---------------------------------------------------------------------------------------- clients
@contextmanager
def open_client(scheduler: str | None = None, workers: int | None = None, retries: int = 3,
                setup: SweepWorkerSetup | None = None) -> Iterator[Any]:
    """A dask client: to ``scheduler`` when given (``setup`` registered with :func:`register_setup`),
    else to a new embedded LocalCluster of ``workers`` processes (default: one per core) with one
    thread each, :class:`SweepNanny` nannies and ``setup`` (default :class:`SweepWorkerSetup`) given
    to every worker at construction. Closed on exit: in order after a normal end, at once
    (:func:`close_fast`) after an exception or Ctrl-C.

    Raises:
      ValueError: ``workers`` < 1, or a scheduler address that cannot be reached (naming it).
      ClusterStartError: the embedded cluster could not start its workers (every start attempt of a
        worker failed, or the worker set-up raised: the cause is in the message).
    """
    import dask
    from distributed import Client, LocalCluster

    setup = setup or SweepWorkerSetup()
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"--scheduler={scheduler!r} cannot be reached ({exc})") from None
        try:
            register_setup(client, setup)
            yield client
        finally:
            client.close()
        return
    n = default_workers() if workers is None else workers
    if n < 1:
        raise ValueError(f"--workers={n} must be >= 1")
    config = {"distributed.scheduler.allowed-failures": retries, "distributed.admin.tick.limit": "60s",
              "distributed.deploy.lost-worker-timeout": "1 hour"}
    with dask.config.set(config):
        try:
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR, env=worker_environment(), worker_class=SweepNanny,
                                   plugins={setup})
        except Exception as exc:
            cause = exc
            while cause.__cause__ is not None:
                cause = cause.__cause__
            raise ClusterStartError(f"the embedded cluster could not start {n} worker(s): "
                                    f"{type(cause).__name__}: {cause}") from exc
        client = Client(cluster)
        try:
            yield client
        except BaseException:
            close_fast(client, cluster)
            raise
        client.close()
        cluster.close()


def close_fast(client: Any, cluster: Any, timeout: float = 5.0) -> None:
    """Close an embedded cluster after Ctrl-C or an error without waiting for running tasks.

    A task inside a long compiled call (a landscape search, a Langevin chunk) cannot be cancelled.
    Each nanny is closed first (``Nanny.close``: it stops restarting its worker, asks the worker to
    stop and terminates the process after a second), so no worker is started again while the cluster
    goes away; the task's row was never written, so --resume recomputes it. Then the client and the
    cluster close with a short timeout. Nothing here raises: the interruption that led here is what
    the caller reports.
    """
    async def stop_nannies() -> None:
        nannies = [w for w in list(getattr(cluster, "workers", {}).values()) if isinstance(w, Nanny)]
        await asyncio.gather(*(w.close(timeout=1.0, reason="sweep-stopped") for w in nannies), return_exceptions=True)

    try:
        cluster.sync(stop_nannies)
    except Exception:  # noqa: BLE001 - best effort: the cluster is going away
        pass
    for close in (client.close, cluster.close):
        try:
            close(timeout=timeout)
        except Exception:  # noqa: BLE001
            pass
