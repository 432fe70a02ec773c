"""Run a sweep on dask.distributed: an embedded LocalCluster by default, any scheduler address.

* Embedded: one worker process per core (``workers``), one thread each; every worker gets JAX's
  float64 mode, one CPU device and XLA flags for one thread (:data:`WORKER_XLA_FLAGS`) through its
  environment and a worker plugin (:class:`SweepWorkerSetup`, which also covers workers of an
  external cluster), so a task's numbers do not depend on the worker.
* ``scheduler="tcp://HOST:PORT"``: an existing cluster (SLURM via dask-jobqueue, Kubernetes, ...);
  its workers need the package installed and a shared ``--out`` is not needed: rows come back to
  this process, which writes them.
* Tasks are :func:`execute_task` of a :class:`~.spec.Task`: a pure function of (kind, params, seed),
  so the same spec gives the same rows whichever worker or order. A task that raises gives an
  ``error`` row (recomputed on resume); a worker lost in the middle of a task (killed, out of
  memory) makes the scheduler run the task again elsewhere, up to ``retries`` times
  (``distributed.scheduler.allowed-failures`` of the embedded scheduler, ``retries=`` of each
  submission).
* Rows are written by this process as futures complete (``as_completed``), each atomically; a rich
  progress bar is fed by the same loop. Ctrl-C cancels the futures, closes the cluster and raises
  :class:`SweepInterrupted` (the command line says how to ``--resume``).
"""

from __future__ import annotations

import functools
import logging
import math
import os
import time
import traceback
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from distributed import WorkerPlugin

from contrastive_bounds.properties.sweeps.kinds import VERDICTS, TaskOutput, get_kind
from contrastive_bounds.properties.sweeps.spec import SweepSpec, Task
from contrastive_bounds.properties.sweeps.store import ResultsStore, row_schema, to_json_text

__all__ = ["run_sweep", "execute_task", "open_client", "SweepResult", "SweepInterrupted", "SweepWorkerSetup",
           "WORKER_XLA_FLAGS", "default_workers", "make_row", "validate_row", "estimate_cost", "CostEstimate",
           "COST_LIMIT_CORE_HOURS"]

#: XLA flags of every worker: one compute thread and one CPU device (the cluster has one worker
#: process per core; with more devices the simulator would split its chains over them, using more
#: threads and, since the noise stream depends on the split, giving other numbers).
WORKER_XLA_FLAGS = ("--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1 "
                    "--xla_force_host_platform_device_count=1")
#: Estimated cost above which the command line asks for --yes (core-hours).
COST_LIMIT_CORE_HOURS = 1.0


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


class SweepWorkerSetup(WorkerPlugin):
    """Worker plugin: set the XLA flags and one CPU device (effective when JAX has not started its
    backend on that worker yet) and turn on JAX's float64 mode. Registered on every cluster a sweep uses."""

    name = "contrastive-bounds-sweep"

    def setup(self, worker: Any) -> None:
        flags = os.environ.get("XLA_FLAGS", "")
        if WORKER_XLA_FLAGS not in flags:
            os.environ["XLA_FLAGS"] = " ".join(x for x in (flags, WORKER_XLA_FLAGS) if x)
        from contrastive_bounds.numerics.devices import use_host_devices
        from contrastive_bounds.numerics.precision import enable_x64

        os.environ["JAX_NUM_CPU_DEVICES"] = "1"
        use_host_devices(1)
        enable_x64()


@functools.lru_cache(maxsize=1)
def _versions_text() -> str:
    from contrastive_bounds.properties.runner import versions

    return to_json_text(versions())


def validate_row(row: dict[str, Any], kind: Any) -> None:
    """Check a row before it is written.

    Raises:
      ValueError: naming the column: an unknown verdict, a non-finite float (vacuous or beyond
        float64 must be None with ``bound_log10`` / ``reason``), an interval that does not contain
        its estimate, a probability outside [0, 1].
    """
    if row["verdict"] not in VERDICTS:
        raise ValueError(f"verdict={row['verdict']!r} is not one of {VERDICTS}")
    for k, v in row.items():
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"column {k!r} = {v!r}: a row holds finite numbers or None (say why in 'reason')")
    lo, hi, emp = row["ci_lo"], row["ci_hi"], row["empirical"]
    if lo is not None and hi is not None and not (lo <= hi and (emp is None or lo - 1e-12 <= emp <= hi + 1e-12)):
        raise ValueError(f"interval [{lo}, {hi}] does not contain empirical={emp}")
    for k in ("p_value", "false_alarm"):
        if row[k] is not None and not 0.0 <= row[k] <= 1.0:
            raise ValueError(f"{k}={row[k]!r} is outside [0, 1]")


def make_row(task: Task, kind: Any, out: TaskOutput, wall_time: float, error: str | None = None) -> dict[str, Any]:
    """The results row of ``task`` from its output (schema: :func:`~.store.row_schema`).

    Raises:
      ValueError: an output column the kind does not declare, or :func:`validate_row`'s reasons.
    """
    unknown = set(out.outputs) - set(kind.outputs)
    if unknown:
        raise ValueError(f"kind {kind.name!r} returned undeclared output(s) {sorted(unknown)}")
    row: dict[str, Any] = {"task_key": task.key, "task_index": task.index, "kind": task.kind, "target": task.target,
                           "seed": task.seed}
    for p in kind.params:
        v = task.params.get(p.name)
        row[p.name] = to_json_text(v) if p.type is list and v is not None else v
    row.update(verdict=out.verdict, bound=out.bound, bound_log10=out.bound_log10, empirical=out.empirical,
               ci_lo=out.ci_lo, ci_hi=out.ci_hi, ratio=out.ratio, ratio_log10=out.ratio_log10, p_value=out.p_value,
               false_alarm=out.false_alarm, samples=out.samples, reason=out.reason, summary=out.summary)
    for k in kind.outputs:
        row[k] = out.outputs.get(k)
    row.update(params_json=to_json_text(task.params), details_json=to_json_text(out.details), wall_time_s=wall_time,
               versions_json=_versions_text(), error=error, row_digest=None)
    if error is None:
        validate_row(row, kind)
    return row


def execute_task(task: Task) -> dict[str, Any]:
    """Run one task (on a worker or in this process) and return its row; never raises for a task's
    own failure (the row's verdict is then ``error`` with the exception and traceback)."""
    from contrastive_bounds.numerics.precision import enable_x64

    enable_x64()
    kind = get_kind(task.kind, task.target or None)
    t0 = time.perf_counter()
    try:
        out = kind.run(task.params, task.seed)
        return make_row(task, kind, out, time.perf_counter() - t0)
    except Exception as exc:  # reported in the row, recomputed on resume
        text = f"{type(exc).__name__}: {exc}"
        return error_row(task, kind, text + "\n" + traceback.format_exc(limit=6), time.perf_counter() - t0)


def error_row(task: Task, kind: Any, error: str, wall_time: float = 0.0) -> dict[str, Any]:
    """An ``error`` row for ``task`` (first line of ``error`` as its summary)."""
    return make_row(task, kind, TaskOutput("error", error.splitlines()[0][:500]), wall_time, error)


@dataclass
class CostEstimate:
    """Estimated cost of the pending tasks: core-seconds, and wall seconds on ``workers``."""

    tasks: int
    core_seconds: float
    workers: int

    @property
    def wall_seconds(self) -> float:
        return self.core_seconds / max(1, self.workers)

    @property
    def over_limit(self) -> bool:
        return self.core_seconds > COST_LIMIT_CORE_HOURS * 3600

    def describe(self) -> str:
        return (f"{self.tasks} tasks, about {_fmt_duration(self.core_seconds)} of one core, "
                f"{_fmt_duration(self.wall_seconds)} on {self.workers} worker(s)")


def _fmt_duration(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def estimate_cost(spec: SweepSpec, tasks: list[Task] | None = None, workers: int | None = None) -> CostEstimate:
    """The kind's cost model summed over ``tasks`` (default: all of the spec's)."""
    tasks = spec.tasks if tasks is None else tasks
    return CostEstimate(len(tasks), float(sum(spec.kind.cost(t.params) for t in tasks)), workers or default_workers())


class SweepInterrupted(Exception):
    """Ctrl-C during a sweep: ``done`` of ``total`` rows are on disk; rerun with --resume."""

    def __init__(self, done: int, total: int, out_dir: Path):
        super().__init__(f"interrupted: {done} of {total} tasks are saved in {out_dir}")
        self.done, self.total, self.out_dir = done, total, out_dir


@dataclass
class SweepResult:
    """What :func:`run_sweep` did: the table, how many rows were computed / reused / recomputed."""

    spec: SweepSpec
    out_dir: Path
    table: Any
    computed: int
    reused: int
    recomputed: dict[str, str] = field(default_factory=dict)
    wall_seconds: float = 0.0
    workers: int = 0

    def verdict_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for v in self.table.column("verdict").to_pylist():
            counts[v] = counts.get(v, 0) + 1
        return dict(sorted(counts.items()))


@contextmanager
def open_client(scheduler: str | None = None, workers: int | None = None, retries: int = 3) -> Iterator[Any]:
    """A dask client: to ``scheduler`` when given, else to a new embedded LocalCluster of
    ``workers`` processes (default: one per core) with one thread each. Closed on exit.

    Raises:
      ValueError: ``workers`` < 1, or a scheduler address that cannot be reached (naming it).
    """
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"--scheduler={scheduler!r} cannot be reached ({exc})") from None
        try:
            yield client
        finally:
            client.close()
        return
    n = default_workers() if workers is None else workers
    if n < 1:
        raise ValueError(f"--workers={n} must be >= 1")
    with dask.config.set({"distributed.scheduler.allowed-failures": retries, "distributed.admin.tick.limit": "60s"}):
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.ERROR, env=worker_environment())
        client = Client(cluster)
        try:
            yield client
        except BaseException:
            _close_now(client, cluster)
            raise
        client.close()
        cluster.close()


def _close_now(client: Any, cluster: Any, timeout: float = 5.0) -> None:
    """Close an embedded cluster after Ctrl-C or an error without waiting for running tasks.

    A task inside a long compiled call (a landscape search, a Langevin chunk) cannot be cancelled; its
    worker process is killed (its row was never written, so --resume recomputes it), then the client and
    cluster close with a short timeout. Nothing here raises: the interruption that led here is what the
    caller reports.
    """
    import os
    import signal

    for nanny in list(getattr(cluster, "workers", {}).values()):
        try:
            pid = nanny.process.process.pid  # Nanny -> WorkerProcess -> AsyncProcess
            if pid:
                os.kill(pid, signal.SIGKILL)
        except (AttributeError, ProcessLookupError, PermissionError):
            pass
    for close in (client.close, cluster.close):
        try:
            close(timeout=timeout)
        except Exception:  # noqa: BLE001 - best effort: the cluster is going away
            pass


def run_sweep(spec: SweepSpec, out_dir: str | Path, *, scheduler: str | None = None, workers: int | None = None,
              resume: bool = False, retries: int = 3, client: Any = None,
              on_row: Callable[[dict[str, Any], int, int], None] | None = None,
              progress: bool = False) -> SweepResult:
    """Run every task of ``spec`` not already done in ``out_dir``; write rows and ``results.parquet``.

    Args:
      spec: a validated :class:`~.spec.SweepSpec`; out_dir: the output folder (see :mod:`.store`).
      scheduler, workers: where to run (:func:`open_client`); ignored when ``client`` is given.
      resume: continue the sweep in ``out_dir`` (same spec), skipping valid rows.
      retries: times a task is re-run after its worker is lost.
      client: an existing ``distributed.Client`` to use (not closed here).
      on_row: called as ``on_row(row, done, pending)`` after each row is written (in this process).
      progress: show a rich progress bar on stderr.

    Raises:
      ValueError: ``out_dir`` not writable, another sweep there without ``resume``, a changed spec on resume.
      SweepInterrupted: Ctrl-C (KeyboardInterrupt) during the run; the rows written so far stay.
    """
    started = time.perf_counter()
    store = ResultsStore(out_dir, row_schema(spec.kind))
    store.start(spec, resume=resume)
    keys = [t.key for t in spec.tasks]
    valid, invalid = store.scan(keys) if resume else ({}, {})
    pending = [t for t in spec.tasks if t.key not in valid]
    n_workers = 0
    try:
        if pending:
            if client is not None:
                n_workers = _submit_all(client, pending, store, retries, on_row, progress, spec.name)
            else:
                with open_client(scheduler, workers, retries) as own:
                    n_workers = _submit_all(own, pending, store, retries, on_row, progress, spec.name)
        table = store.consolidate(keys, {"contrastive_bounds.sweep": to_json_text({"name": spec.name, **spec.normalised}),
                                         "contrastive_bounds.fingerprint": spec.fingerprint})
    except KeyboardInterrupt:  # after the last row (closing the cluster, writing the table): every row is on disk
        raise SweepInterrupted(len(store.scan(keys)[0]), len(keys), store.out) from None
    return SweepResult(spec, store.out, table, len(pending), len(valid), invalid, time.perf_counter() - started, n_workers)


def _submit_all(client: Any, pending: list[Task], store: ResultsStore, retries: int,
                on_row: Callable[[dict[str, Any], int, int], None] | None, progress: bool, name: str) -> int:
    from distributed import as_completed

    client.register_plugin(SweepWorkerSetup())  # idempotent: replaces a plugin of the same name
    n_workers = len(client.nthreads())
    by_key = {}
    futures = []
    run_id = uuid.uuid4().hex[:8]  # a fresh dask key per run: a resumed sweep never meets its cancelled futures
    for t in pending:
        fut = client.submit(execute_task, t, key=f"contrastive-bounds-sweep-{t.key}-{run_id}", retries=retries, pure=False)
        by_key[fut.key] = t
        futures.append(fut)
    bar = _Bar(name, len(pending)) if progress else None
    done = 0
    try:
        for fut in as_completed(futures):
            task = by_key[fut.key]
            try:
                row = fut.result()
            except Exception as exc:  # KilledWorker after `retries` lost workers, or a transport failure
                kind = get_kind(task.kind, task.target or None)
                row = error_row(task, kind, f"{type(exc).__name__}: {exc} (the worker running it was lost repeatedly)")
            store.write_row(row)
            fut.release()
            done += 1
            if bar is not None:
                bar.advance(row["verdict"])
            if on_row is not None:
                on_row(row, done, len(pending))
    except KeyboardInterrupt:
        client.cancel(futures, force=True)
        raise SweepInterrupted(done, len(pending), store.out) from None
    finally:
        if bar is not None:
            bar.close()
    return n_workers


class _Bar:
    """A rich progress bar on stderr with the verdict counts so far."""

    def __init__(self, name: str, total: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.counts: dict[str, int] = {}
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 TimeRemainingColumn(), TextColumn("{task.fields[counts]}"), console=Console(stderr=True),
                                 transient=False)
        self.task = self.progress.add_task(f"sweep {name}", total=total, counts="")
        self.progress.start()

    def advance(self, verdict: str) -> None:
        self.counts[verdict] = self.counts.get(verdict, 0) + 1
        text = ", ".join(f"{n} {v}" for v, n in sorted(self.counts.items()))
        self.progress.update(self.task, advance=1, counts=text)

    def close(self) -> None:
        self.progress.stop()
