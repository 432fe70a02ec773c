"""Run a sweep on dask.distributed: an embedded LocalCluster by default, any scheduler address.

* Where it runs and how worker loss is survived is :mod:`._cluster`: embedded workers under nannies
  that start a lost worker again at any moment (before it registers, during its set-up, later), the
  worker set-up plugin (float64 JAX, one CPU device, one XLA thread), its registration on a user's
  cluster, quiet logs of lost connections.
* Tasks are :func:`execute_task` of a :class:`~._spec.Task`: a pure function of (kind, params, seed),
  so the same spec gives the same rows whichever worker or order. A task that raises gives an
  ``error`` row (recomputed on resume); a worker lost in the middle of a task (killed, out of
  memory) makes the scheduler run the task again elsewhere, up to ``retries`` times
  (``distributed.scheduler.allowed-failures`` of the embedded scheduler), after which the row is an
  ``error`` (``KilledWorker``). A future cancelled while the client still has its scheduler is
  submitted again (``retries`` times).
* Rows are written by this process as futures complete (``as_completed``), each atomically under
  its task key, so a task is in the table once whatever was lost and re-run; a rich progress bar is
  fed by the same loop. What the cluster lost (worker processes, tasks that ran again) is counted
  from dask's records (:mod:`._losses`) into :attr:`SweepResult.losses` and the table's metadata. Ctrl-C cancels the futures, closes the cluster and raises
  :class:`SweepInterrupted`; a lost scheduler raises :class:`SweepClusterLost` (the command line
  says how to ``--resume`` in both cases).
"""

from __future__ import annotations

import contextlib
import functools
import math
import signal
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from contrastive_bounds.properties.sweeps._cluster import (
    WORKER_XLA_FLAGS,
    ClusterStartError,
    SchedulerLost,
    SweepWorkerSetup,
    default_workers,
    open_client,
    register_setup,
    worker_environment,
)
from contrastive_bounds.properties.sweeps._lost_connections import quiet_lost_connections
from contrastive_bounds.properties.sweeps._cost import COST_LIMIT_CORE_HOURS, CostEstimate, estimate_cost
from contrastive_bounds.properties.sweeps.kinds import VERDICTS, TaskOutput, get_kind
from contrastive_bounds.properties.sweeps._losses import METADATA_KEY, ClusterLosses, collect_losses, losses_from_metadata
from contrastive_bounds.properties.sweeps._spec import SweepSpec, Task
from contrastive_bounds.properties.sweeps._store import ResultsStore, row_schema, to_json_text

__all__ = ["run_sweep", "execute_task", "SweepResult", "SweepInterrupted", "SweepClusterLost", "make_row", "validate_row"]


@functools.lru_cache(maxsize=1)
def _versions_text() -> str:
    from contrastive_bounds.properties._runner import versions

    return to_json_text(versions())


def validate_row(row: dict[str, Any], kind: Any) -> None:
    """Check a row before it is written.

    Raises:
      ValueError: naming the column: an unknown verdict, a non-finite float (vacuous or beyond
        float64 must be None with ``bound_log10`` / ``reason``), an interval that does not contain
        its estimate, a probability outside [0, 1], a ``summary`` printing an inequality its own
        numbers contradict (:func:`~contrastive_bounds.properties.contradictions`).
    """
    from contrastive_bounds.properties._statements import contradictions

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
    false = contradictions(row["summary"] or "")
    if false:
        raise ValueError(f"summary prints a false inequality: {'; '.join(map(str, false))}")


def make_row(task: Task, kind: Any, out: TaskOutput, wall_time: float, error: str | None = None) -> dict[str, Any]:
    """The results row of ``task`` from its output (schema: :func:`~._store.row_schema`).

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
    from contrastive_bounds.numerics._precision import enable_x64

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


class SweepInterrupted(Exception):
    """Ctrl-C during a sweep: ``done`` of ``total`` rows are on disk; rerun with --resume."""

    def __init__(self, done: int, total: int, out_dir: Path):
        super().__init__(f"interrupted: {done} of {total} tasks are saved in {out_dir}")
        self.done, self.total, self.out_dir = done, total, out_dir


class SweepClusterLost(Exception):
    """The cluster went away: the scheduler of a user's cluster was lost during the sweep (or while
    the worker set-up was registered), or the embedded cluster could not start its workers. ``done``
    of ``total`` rows are on disk; ``why`` says what happened; rerun with --resume."""

    def __init__(self, done: int, total: int, out_dir: Path, why: str):
        super().__init__(f"{why}: {done} of {total} tasks are saved in {out_dir}")
        self.done, self.total, self.out_dir, self.why = done, total, out_dir, why


@dataclass
class SweepResult:
    """What :func:`run_sweep` did: the table, how many rows were computed / reused / recomputed, and what
    the cluster lost (``losses``: worker processes lost and tasks run again in this run;
    ``earlier_losses``: those of the earlier runs of a resumed sweep, kept in ``results.parquet``)."""

    spec: SweepSpec
    out_dir: Path
    table: Any
    computed: int
    reused: int
    recomputed: dict[str, str] = field(default_factory=dict)
    wall_seconds: float = 0.0
    workers: int = 0
    losses: ClusterLosses = field(default_factory=ClusterLosses)
    earlier_losses: list[ClusterLosses] = field(default_factory=list)

    def verdict_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for v in self.table.column("verdict").to_pylist():
            counts[v] = counts.get(v, 0) + 1
        return dict(sorted(counts.items()))


def run_sweep(spec: SweepSpec, out_dir: str | Path, *, scheduler: str | None = None, workers: int | None = None,
              resume: bool = False, retries: int = 3, client: Any = None,
              on_row: Callable[[dict[str, Any], int, int], None] | None = None,
              progress: bool = False, setup: SweepWorkerSetup | None = None) -> SweepResult:
    """Run every task of ``spec`` not already done in ``out_dir``; write rows and ``results.parquet``.

    Args:
      spec: a validated :class:`~._spec.SweepSpec`; out_dir: the output folder (see :mod:`._store`).
      scheduler, workers: where to run (:func:`~._cluster.open_client`); ignored when ``client`` is given.
      resume: continue the sweep in ``out_dir`` (same spec), skipping valid rows.
      retries: times a task is re-run after its worker is lost (>= 0).
      client: an existing ``distributed.Client`` to use (not closed here; ``setup`` is registered on it).
      on_row: called as ``on_row(row, done, pending)`` after each row is written (in this process).
      progress: show a rich progress bar on stderr.
      setup: the worker set-up plugin (default :class:`~._cluster.SweepWorkerSetup`).

    Raises:
      ValueError: ``out_dir`` not writable, another sweep there without ``resume``, a changed spec on
        resume, ``retries`` < 0, ``workers`` < 1, an unreachable ``scheduler``.
      SweepInterrupted: Ctrl-C (KeyboardInterrupt) during the run; the rows written so far stay.
      SweepClusterLost: the scheduler was lost, or the embedded cluster could not start any worker;
        the rows written so far stay.
    """
    if retries < 0:
        raise ValueError(f"retries={retries} must be >= 0")
    started, since = time.perf_counter(), time.time()
    store = ResultsStore(out_dir, row_schema(spec.kind))
    store.start(spec, resume=resume)
    keys = [t.key for t in spec.tasks]
    valid, invalid = store.scan(keys) if resume else ({}, {})
    pending = [t for t in spec.tasks if t.key not in valid]
    earlier = _earlier_losses(store, resume)
    with _ctrl_c_raises():
        return _run_pending(spec, store, keys, pending, valid, invalid, started, scheduler, workers, retries, client,
                            on_row, progress, setup, earlier, since)


@contextlib.contextmanager
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt during the sweep, even in a process started with SIGINT ignored (a
    background job of a non-interactive shell), as the Langevin driver's runs do; the handler is restored after."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        try:
            previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        except (ValueError, OSError):
            previous = None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _earlier_losses(store: ResultsStore, resume: bool) -> list[ClusterLosses]:
    """The losses of the earlier runs of a resumed sweep, from the metadata of its ``results.parquet``."""
    if not resume or not store.table.is_file():
        return []
    try:
        import pyarrow.parquet as pq

        return losses_from_metadata(pq.read_schema(store.table).metadata)
    except (OSError, ValueError):
        return []


def _run_pending(spec: Any, store: Any, keys: list, pending: list, valid: dict, invalid: dict, started: float,
                 scheduler: Any, workers: Any, retries: int, client: Any, on_row: Any, progress: bool,
                 setup: Any, earlier: list[ClusterLosses] | None = None, since: float = 0.0) -> SweepResult:
    n_workers, losses = 0, ClusterLosses()
    earlier = list(earlier or [])
    try:
        if pending:
            with quiet_lost_connections() as quiet:
                if client is not None:
                    register_setup(client, setup or SweepWorkerSetup())
                    n_workers, losses = _submit_all(client, pending, store, retries, on_row, progress, spec.name, since)
                else:
                    with open_client(scheduler, workers, retries, setup) as own:
                        try:
                            n_workers, losses = _submit_all(own, pending, store, retries, on_row, progress, spec.name,
                                                            since)
                        finally:
                            quiet.closing = True  # the sweep has stopped: what dask logs while it closes is noise
        runs = earlier + ([losses] if pending else [])
        table = store.consolidate(keys, {"contrastive_bounds.sweep": to_json_text({"name": spec.name, **spec.normalised}),
                                         "contrastive_bounds.fingerprint": spec.fingerprint,
                                         METADATA_KEY: to_json_text([r.to_dict() for r in runs])})
    except KeyboardInterrupt:  # after the last row (closing the cluster, writing the table): every row is on disk
        raise SweepInterrupted(len(store.scan(keys)[0]), len(keys), store.out) from None
    except (SchedulerLost, ClusterStartError) as exc:
        raise SweepClusterLost(len(store.scan(keys)[0]), len(keys), store.out, str(exc)) from None
    return SweepResult(spec, store.out, table, len(pending), len(valid), invalid, time.perf_counter() - started, n_workers,
                       losses, earlier)


def _worker_count(client: Any, attempts: int = 5) -> int:
    """``len(client.nthreads())``, asked again when the call times out on a loaded machine."""
    for attempt in range(1, attempts + 1):
        try:
            return len(client.nthreads())
        except (OSError, TimeoutError):
            if client.status != "running":
                raise SchedulerLost("the connection to the scheduler was lost") from None
            if attempt == attempts:
                raise
            time.sleep(min(10.0, 0.5 * 2 ** attempt))
    return 0  # pragma: no cover


def _submit_all(client: Any, pending: list[Task], store: ResultsStore, retries: int,
                on_row: Callable[[dict[str, Any], int, int], None] | None, progress: bool,
                name: str, since: float) -> tuple[int, ClusterLosses]:
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    n_workers = _worker_count(client)
    by_key: dict[str, Task] = {}
    resubmitted: dict[str, int] = {}
    run_id = uuid.uuid4().hex[:8]  # a fresh dask key per run: a resumed sweep never meets its cancelled futures

    def submit(t: Task, attempt: int = 0) -> Any:
        key = f"contrastive-bounds-sweep-{t.key}-{run_id}" + (f"-{attempt}" if attempt else "")
        fut = client.submit(execute_task, t, key=key, retries=retries, pure=False)
        by_key[fut.key] = t
        return fut

    futures = [submit(t) for t in pending]
    queue = as_completed(futures)
    bar = _Bar(name, len(pending)) if progress else None
    done = 0

    def again(task: Task) -> bool:
        """Submit ``task`` once more if it has attempts left (its future was cancelled or its result lost)."""
        n = resubmitted.get(task.key, 0)
        if n >= retries:
            return False
        resubmitted[task.key] = n + 1
        new = submit(task, n + 1)
        futures.append(new)
        queue.add(new)
        return True

    try:
        for fut in queue:
            task = by_key.pop(fut.key)
            try:
                row = fut.result()
            except KilledWorker as exc:  # lost a worker `retries` + 1 times in a row
                row = error_row(task, _kind(task), f"KilledWorker: {exc} (the worker running it was lost "
                                                   f"{retries + 1} times)")
            except (Exception, FutureCancelledError) as exc:  # FutureCancelledError is a BaseException
                if client.status != "running":  # cancelled, or its result not fetched: the scheduler went away
                    raise SchedulerLost("the connection to the scheduler was lost") from None
                if fut.status == "error":  # it raised on the worker outside the kind (the kind's errors are rows)
                    row = error_row(task, _kind(task), f"{type(exc).__name__}: {exc}")
                elif again(task):  # cancelled by the cluster, or its result lost with a worker: run it again
                    continue
                else:
                    row = error_row(task, _kind(task), f"{type(exc).__name__}: {exc} ({retries + 1} attempts: the "
                                                       "cluster cancelled the task or lost its result each time)")
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
    return n_workers, collect_losses(client, since, [t.key for t in pending], {t.key: t.index for t in pending})


def _kind(task: Task) -> Any:
    return get_kind(task.kind, task.target or None)


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
