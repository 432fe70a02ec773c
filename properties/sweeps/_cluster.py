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
* Load: on a machine whose cores are all busy every step of a worker's start and of a lost worker's
  replacement is slow; each wait on that path scales with the load or is retried (:mod:`._timeouts`):
  the heartbeat deadline and the nanny's waits are scaled, the cluster's start and the client's
  connection are retried, and the close after the last row never fails a finished sweep
  (:func:`close_quietly`; dask's 5 s wait for a killed worker to be reaped once raised
  ``TimeoutError`` there).
* A scheduler address: the set-up plugin is registered with ``Client.register_plugin``; the
  scheduler keeps it for every worker that joins later. A worker lost while the plugin is being
  sent to it breaks that broadcast (the scheduler drops the client's connection); the registration
  is sent again (:func:`register_setup`) and reaches the remaining and the replacement workers.
  A scheduler that is lost raises :class:`SchedulerLost` (the engine turns it into
  :class:`~._engine.SweepClusterLost`, saying how many rows are saved).
* Logs: dask's records of connections that a lost worker or a closing cluster broke are dropped
  (:mod:`._lost_connections`); any other dask error is still shown.
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

from contrastive_bounds.properties.sweeps._timeouts import (CONNECT_ATTEMPTS, START_ATTEMPTS, cluster_config, load_factor,
                                                           scaled)
from contrastive_bounds.properties.sweeps._losses import STARTED_TOPIC, task_key_of
from contrastive_bounds.properties.sweeps._lost_connections import (LostConnectionFilter, install_worker_filter,
                                                                   quiet_lost_connections)

__all__ = ["open_client", "SweepWorkerSetup", "SweepNanny", "WORKER_XLA_FLAGS", "default_workers", "worker_environment", "register_setup", "SchedulerLost", "ClusterStartError", "close_fast", "close_quietly"]


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


# ---------------------------------------------------------------------------------------- workers
class SweepWorkerSetup(WorkerPlugin):
    """Worker plugin: set the XLA flags and one CPU device (effective when JAX has not started its
    backend on that worker yet), turn on JAX's float64 mode and the worker's
    :class:`LostConnectionFilter`; record in the scheduler's event log each sweep task that starts
    executing (:meth:`transition`). Given at construction to embedded workers (it runs before the worker
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
        self._worker = worker  # for transition(); this copy of the plugin lives in that worker
        install_worker_filter()
        flags = os.environ.get("XLA_FLAGS", "")
        if WORKER_XLA_FLAGS not in flags:
            os.environ["XLA_FLAGS"] = " ".join(x for x in (flags, WORKER_XLA_FLAGS) if x)
        from contrastive_bounds.numerics._devices import use_host_devices
        from contrastive_bounds.numerics._precision import enable_x64

        os.environ["JAX_NUM_CPU_DEVICES"] = "1"
        use_host_devices(1)
        enable_x64()
        return self._wait_for_release() if self.hold else None

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        """A sweep task starts executing on this worker: say so in the scheduler's event log (topic
        :data:`~._losses.STARTED_TOPIC`); :mod:`._losses` reports the tasks that started more than once."""
        worker = getattr(self, "_worker", None)
        if finish == "executing" and worker is not None and task_key_of(key) is not None:
            worker.log_event(STARTED_TOPIC, {"key": str(key)})

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
    up to :attr:`start_attempts` times in a row, instead of failing the whole cluster; once started, a
    lost worker process is restarted by dask's own nanny logic. Every worker process that exits
    abnormally while the nanny is not closing is recorded in :attr:`lost_processes` (what the sweep
    reports as lost workers, :mod:`._losses`)."""

    start_attempts = 25

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: ``{"exitcode": int, "time": float}`` of each worker process lost (not one the nanny stopped).
        self.lost_processes: list[dict[str, Any]] = []

    async def close(self, timeout: float = 5, reason: str = "nanny-close") -> Any:  # type: ignore[override]
        """``Nanny.close``, which never fails for a worker process that is slow to go: dask asks the process to
        stop, kills it after ``0.8 * timeout`` s and waits ``timeout`` s more for it to be reaped, then raises
        ``TimeoutError``; on a loaded machine a killed process can take longer than that to be reaped (its memory
        freed by a process that gets a sliver of a core). By then the process is killed and dask has closed the
        nanny (``Nanny.close``'s ``finally``); the close has succeeded, and the reaping is waited for here for
        up to :func:`~._timeouts.scaled` ``(timeout)`` more seconds (not after Ctrl-C: ``reason="sweep-stopped"``),
        so that no process is left for the interpreter to reap at exit."""
        worker = self.process
        process = getattr(worker, "process", None)  # the AsyncProcess; dask releases it when the close ends
        try:
            return await super().close(timeout=timeout, reason=reason)
        except (TimeoutError, asyncio.TimeoutError):
            logger.info("nanny %s: its worker process was killed but not yet reaped after %.0f s", self.name, timeout)
            if process is not None and reason != "sweep-stopped":
                try:
                    await process.join(scaled(timeout))
                except (TimeoutError, asyncio.TimeoutError, ValueError):  # still not reaped; or already released
                    pass
            return "OK"

    async def _unregister(self, timeout: float = 10) -> None:
        """``Nanny._unregister`` (telling the scheduler its worker process is gone) with dask's 10 s scaled
        with the load; a failure is handled by dask (the scheduler also sees the connection close)."""
        await super()._unregister(timeout=max(timeout, scaled(10.0)))

    async def _on_worker_exit(self, exitcode: int) -> None:
        if exitcode and self.status not in (Status.closing, Status.closed, Status.closing_gracefully, Status.failed):
            self.lost_processes.append({"exitcode": int(exitcode), "time": time.time()})
        await super()._on_worker_exit(exitcode)

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

    async def start_unsafe(self) -> SweepNanny:
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

    The embedded cluster runs under :func:`cluster_config` (timeouts scaled with the load, set for the
    whole block); a start that times out is retried (:data:`START_ATTEMPTS` times), as is the client's
    connection (:data:`CONNECT_ATTEMPTS`), and the close after a normal end never raises
    (:func:`close_quietly`).

    Raises:
      ValueError: ``workers`` < 1, or a scheduler address that cannot be reached (naming it).
      ClusterStartError: the embedded cluster could not start its workers (the worker set-up raised,
        or every start attempt timed out: the cause is in the message).
    """
    import dask
    from distributed import Client

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
    with dask.config.set(cluster_config(retries, n)):
        cluster = _start_cluster(n, setup)
        try:
            client = _connect(Client, cluster)
        except BaseException:
            close_fast(None, cluster)
            raise
        try:
            yield client
        except BaseException:
            close_fast(client, cluster)
            raise
        close_quietly(client, cluster)


def _transient(exc: BaseException) -> bool:
    """A start or connection failure that the load explains (a timeout, a connection closed or refused
    by a worker that was lost), not a worker's own error (its set-up raised)."""
    from distributed.comm.core import CommClosedError

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (TimeoutError, asyncio.TimeoutError, CommClosedError, ConnectionRefusedError,
                             ConnectionResetError)) or "Timed out" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _root(exc: BaseException) -> BaseException:
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return exc


def _start_cluster(n: int, setup: SweepWorkerSetup) -> Any:
    """A LocalCluster of ``n`` :class:`SweepNanny` workers; a start that timed out is started again."""
    from distributed import LocalCluster

    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            return LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                                silence_logs=logging.ERROR, env=worker_environment(), worker_class=SweepNanny,
                                plugins={setup})
        except Exception as exc:
            cause = _root(exc)
            if attempt < START_ATTEMPTS and _transient(exc):
                logger.info("the embedded cluster's start timed out (%s: %s); starting it again (%d of %d)",
                            type(cause).__name__, cause, attempt + 1, START_ATTEMPTS)
                continue
            again = f" ({attempt} attempts timed out)" if _transient(exc) else ""
            raise ClusterStartError(f"the embedded cluster could not start {n} worker(s){again}: "
                                    f"{type(cause).__name__}: {cause}") from exc
    raise AssertionError("unreachable")  # pragma: no cover


def _connect(client_class: Any, cluster: Any) -> Any:
    """``Client(cluster)``, connected again when the connection timed out or was refused (a loaded machine)."""
    for attempt in range(1, CONNECT_ATTEMPTS + 1):
        try:
            return client_class(cluster)
        except (OSError, TimeoutError) as exc:
            if attempt == CONNECT_ATTEMPTS or not _transient(exc):
                raise ClusterStartError(f"could not connect to the embedded cluster ({attempt} attempts): "
                                        f"{type(exc).__name__}: {exc}") from exc
            logger.info("connecting to the embedded cluster timed out (%s); connecting again", exc)
            time.sleep(min(10.0, 0.5 * 2 ** attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def close_quietly(client: Any, cluster: Any) -> None:
    """Close the client and the embedded cluster after a sweep that ended normally (every row is on
    disk): in order, with the scaled timeouts; a close that times out or fails (a worker being started
    again on a loaded machine, a nanny slow to stop its process) is finished by :func:`close_fast`,
    and nothing is raised."""
    try:
        client.close()
        cluster.close()
    except Exception as exc:  # noqa: BLE001 - the sweep is complete; closing is best effort
        logger.info("the embedded cluster did not close in order (%s: %s); closing it at once", type(exc).__name__, exc)
        close_fast(client, cluster)


def close_fast(client: Any | None, cluster: Any, timeout: float = 5.0) -> None:
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
    for close in ((client.close,) if client is not None else ()) + (cluster.close,):
        try:
            close(timeout=timeout)
        except Exception:  # noqa: BLE001
            pass
