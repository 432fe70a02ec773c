"""Command ``sweep``: run a grid of tasks (a spec) on dask.distributed, one Parquet row per task.

``contrastive-bounds sweep SPEC [--profile P] [--scheduler ADDRESS] [--workers N] [--out DIR]
[--resume] [--yes] [--dry-run] [--report-only] [--json]``; ``--list`` shows the built-in specs,
``--kinds`` the task kinds and their parameters. SPEC is a TOML file or a built-in name (format:
:mod:`contrastive_bounds.properties.sweeps._spec`). The whole spec is validated before anything runs
(exit 2 naming the key and row). Before running, the estimated cost is printed; above
:data:`~contrastive_bounds.properties.sweeps.COST_LIMIT_CORE_HOURS` core-hours the command
refuses unless ``--yes``. After the rows, one line says what the cluster lost (worker processes,
tasks that ran again; :mod:`contrastive_bounds.properties.sweeps._losses`). Exit codes: 0 done, 1 a row is violated (after Holm's correction across
rows with p-values) or a task failed (each failed task is named on stderr), 2 bad input, 3 the scheduler
was lost or the embedded cluster could not start (rows kept; rerun with --resume), 130 interrupted
(rows kept; rerun with --resume).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from contrastive_bounds.properties.cli._common import (EXIT_VIOLATED, command, console, emit_json, err_console,
                                                     folder_option, output_folder)

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

#: Exit code of a sweep that could not finish although nothing was wrong with its input: its
#: scheduler was lost, or the embedded cluster could not start a worker (rows kept; --resume).
EXIT_INCOMPLETE = 3
#: Failed tasks named on stderr at the end (the others are in the table).
MAX_ERRORS_SHOWN = 5


#: Embedded worker processes allowed per core (beyond that a sweep only slows down and may run out of memory).
MAX_WORKERS_PER_CORE = 4
#: Largest --retries: a task lost with its worker more often than this is reported as an error row.
MAX_RETRIES = 100

def _list(as_json: bool) -> None:
    from contrastive_bounds.properties.sweeps._cost import estimate_cost
    from contrastive_bounds.properties.sweeps._spec import builtin_specs, load_spec

    import tomllib

    rows = []
    for name, text in builtin_specs().items():
        full = load_spec(name)
        profiles = {"default": full}
        for prof in tomllib.loads(text).get("profiles", {}):
            profiles[prof] = load_spec(name, profile=prof)
        rows.append({"name": name, "kind": full.kind.name, "description": full.description,
                     "profiles": {p: {"tasks": len(s.tasks), "core_hours": estimate_cost(s, workers=1).core_seconds / 3600,
                                      "description": s.description}
                                  for p, s in profiles.items()}})
    if as_json:
        emit_json({"specs": rows})
        return
    t = Table(title="Built-in sweep specs (contrastive-bounds sweep NAME [--profile P])")
    for col in ("name", "kind", "profile: tasks, estimated core-hours", "description"):
        t.add_column(col, overflow="fold")
    for r in rows:
        prof = "; ".join(f"{p}: {v['tasks']}, {v['core_hours']:.3g}" for p, v in r["profiles"].items())
        t.add_row(r["name"], r["kind"], prof, r["description"])
    console.print(t)


def _kinds(as_json: bool) -> None:
    from contrastive_bounds.properties.sweeps.kinds import REQUIRED, list_kinds

    kinds = list_kinds()
    data = [{"kind": k.name, "description": k.description, "target_key": k.target_key,
             "params": [{"name": p.name, "type": p.type.__name__, "default": None if p.default is REQUIRED else p.default,
                         "required": p.default is REQUIRED, "description": p.description} for p in k.params],
             "outputs": {n: t.__name__ for n, t in k.outputs.items()}} for k in kinds.values()]
    if as_json:
        emit_json({"kinds": data})
        return
    t = Table(title="Task kinds")
    for col in ("kind", "description", "parameters (default)"):
        t.add_column(col, overflow="fold")
    for d in data:
        params = ", ".join(f"{p['name']}" + (" (required)" if p["required"] else f"={p['default']!r}") for p in d["params"])
        if d["target_key"]:
            params = f"spec key `{d['target_key']}`; then the parameters of that {d['target_key']}"
        t.add_row(d["kind"], d["description"], params)
    console.print(t)


def sweep(
    spec: Optional[str] = typer.Argument(None, help="spec: a TOML file or a built-in name (see --list)"),
    profile: str = typer.Option("default", "--profile", help="a profile of the spec (built-in specs: quick, ...)"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="address of a running dask scheduler, e.g. tcp://host:8786 (default: an embedded LocalCluster)"),
    workers: Optional[int] = typer.Option(None, "--workers", help="worker processes of the embedded cluster (default: one per core)"),
    out: Optional[str] = typer.Option(None, "--out", help="output folder (default: sweep-NAME[-PROFILE])"),
    resume: bool = typer.Option(False, "--resume", help="continue the sweep in --out: skip valid rows, recompute the rest"),
    retries: int = typer.Option(3, "--retries", help="times a task is re-run after its worker is lost"),
    yes: bool = typer.Option(False, "--yes", help="run even when the estimated cost is above the limit"),
    dry_run: bool = typer.Option(False, "--dry-run", help="validate, print the task count and estimated cost, run nothing"),
    report_only: bool = typer.Option(False, "--report-only", help="rewrite the report from --out/results.parquet"),
    list_specs: bool = typer.Option(False, "--list", help="list the built-in specs"),
    list_kinds: bool = typer.Option(False, "--kinds", help="list the task kinds and their parameters"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
) -> None:
    """Run a grid of checks or simulations on dask (embedded cluster or --scheduler); Parquet rows, report."""
    if out is not None and not (list_specs or list_kinds):  # refused at once, before dask and the spec are loaded
        output_folder(folder_option(out, "--out"), "--out", create=False)
    from contrastive_bounds.properties.sweeps._cost import COST_LIMIT_CORE_HOURS, estimate_cost
    from contrastive_bounds.properties.sweeps._engine import SweepInterrupted, SweepClusterLost, run_sweep
    from contrastive_bounds.properties.sweeps._cluster import default_workers
    from contrastive_bounds.properties.sweeps._losses import describe_losses
    from contrastive_bounds.properties.sweeps._report import violations_that_stand, write_sweep_report
    from contrastive_bounds.properties.sweeps._spec import builtin_specs, load_spec
    from contrastive_bounds.properties.sweeps._store import ResultsStore, row_schema

    if list_specs:
        return _list(as_json)
    if list_kinds:
        return _kinds(as_json)
    if spec is None:
        raise ValueError(f"SPEC is missing: give a spec file or a built-in spec ({', '.join(builtin_specs())}); see --list")
    max_workers = MAX_WORKERS_PER_CORE * default_workers()
    if workers is not None and not 1 <= workers <= max_workers:
        raise ValueError(f"--workers={workers} must be in [1, {max_workers}] ({MAX_WORKERS_PER_CORE} per core of this "
                         "machine: each worker is a process with its own JAX; with --scheduler the cluster's own "
                         "workers are used)")
    if not 0 <= retries <= MAX_RETRIES:
        raise ValueError(f"--retries={retries} must be in [0, {MAX_RETRIES}]")
    sp = load_spec(spec, profile=profile)
    out_dir = (folder_option(out, "--out") if out is not None
               else Path(f"sweep-{sp.name}" + ("" if profile == "default" else f"-{profile}")))
    # before anything is computed or a cluster started: a file, an unwritable place (nothing is created here:
    # a refused or --dry-run sweep leaves no folder; the store proves the folder writable when the run starts)
    output_folder(out_dir, "--out", create=False)
    if report_only:
        import pyarrow.parquet as pq

        table_path = out_dir / "results.parquet"
        if not table_path.is_file():
            raise ValueError(f"--report-only: {table_path} does not exist (run the sweep first)")
        paths = write_sweep_report(pq.read_table(table_path), out_dir, sp.report, title=sp.name, description=sp.description)
        console.print(f"report: {paths['html']}", highlight=False)
        return
    n_workers = workers or (None if scheduler else default_workers())
    pending = sp.tasks
    if (out_dir / "sweep.json").exists():  # another sweep there, or a changed spec: refused before anything is said
        store = ResultsStore(out_dir, row_schema(sp.kind))
        if store.check(sp, resume=resume):
            valid, _ = store.scan([t.key for t in sp.tasks])
            pending = [t for t in sp.tasks if t.key not in valid]
    cost = estimate_cost(sp, pending, n_workers or 1)
    where = f"{n_workers} worker(s)" if n_workers else f"the cluster at {scheduler}"
    line = (f"sweep {sp.name} ({sp.kind.name}{' ' + sp.kind.target if sp.kind.target else ''}, profile {profile}): "
            f"{len(sp.tasks)} tasks, {len(pending)} to run; estimated {cost.core_seconds / 3600:.3g} core-hours"
            + (f", about {cost.describe().split(', ')[-1]}" if n_workers else f" on {where}"))
    err_console.print(line, markup=False, highlight=False)
    if dry_run:
        if as_json:
            emit_json({"spec": sp.name, "profile": profile, "tasks": len(sp.tasks), "pending": len(pending),
                       "core_hours": cost.core_seconds / 3600, "out": str(out_dir)})
        return
    if cost.over_limit and not yes:
        raise ValueError(f"estimated cost {cost.core_seconds / 3600:.3g} core-hours is above the limit of "
                         f"{COST_LIMIT_CORE_HOURS:g}; add --yes to run it (or choose a smaller --profile)")
    try:
        res = run_sweep(sp, out_dir, scheduler=scheduler, workers=workers, resume=resume, retries=retries,
                        progress=not as_json)
    except SweepInterrupted as exc:
        err_console.print(f"interrupted: {exc.done} of {exc.total} tasks finished and saved in {exc.out_dir}; run the "
                          f"same command with --resume to finish the sweep", markup=False, highlight=False)
        raise typer.Exit(130)
    except SweepClusterLost as exc:
        where = f"--scheduler={scheduler}: " if scheduler else ""
        err_console.print(f"error: {where}{exc.why}; {exc.done} of {exc.total} tasks are saved in "
                          f"{exc.out_dir}; run the same command with --resume to finish the sweep",
                          markup=False, highlight=False)
        raise typer.Exit(EXIT_INCOMPLETE)
    paths = write_sweep_report(res.table, res.out_dir, sp.report, title=sp.name, description=sp.description)
    rows = res.table.to_pylist()
    bad = len(violations_that_stand(rows)) + sum(1 for r in rows if r["verdict"] == "error")
    summary = {"spec": sp.name, "profile": profile, "kind": sp.kind.name, "target": sp.kind.target, "tasks": len(rows),
               "computed": res.computed, "reused": res.reused, "recomputed": res.recomputed,
               "verdicts": res.verdict_counts(), "violations_after_holm_or_errors": bad, "workers": res.workers,
               "cluster_losses": res.losses.to_dict(), "earlier_cluster_losses": [r.to_dict() for r in res.earlier_losses],
               "wall_seconds": res.wall_seconds, "table": str(res.out_dir / "results.parquet"),
               "report": str(paths["html"]), "figures": [str(p) for k, p in paths.items() if k != "html"]}
    if as_json:
        emit_json(summary)
    else:
        if res.recomputed:
            console.print(f"recomputed {len(res.recomputed)} invalid row file(s): " + "; ".join(
                f"{k}: {v}" for k, v in list(res.recomputed.items())[:5]), highlight=False, markup=False)
        console.print(f"{len(rows)} rows ({', '.join(f'{n} {v}' for v, n in res.verdict_counts().items())}); "
                      f"{res.computed} computed, {res.reused} reused, {res.wall_seconds:.1f} s on {res.workers} worker(s)",
                      highlight=False)
        if res.computed:
            console.print(f"cluster: {res.losses.describe()}", highlight=False, markup=False)
        if any(r.any for r in res.earlier_losses):
            console.print(f"cluster, earlier runs of this sweep: {describe_losses(res.earlier_losses)}", highlight=False,
                          markup=False)
        console.print(f"table: {summary['table']}\nreport: {summary['report']}", highlight=False)
    errors = [r for r in rows if r["verdict"] == "error"]
    for r in errors[:MAX_ERRORS_SHOWN]:  # a task's own failure is reported, whatever dask's logs say
        err_console.print(f"task {r['task_index']} ({r['task_key']}) failed: {r['summary']}", markup=False, highlight=False)
    if len(errors) > MAX_ERRORS_SHOWN:
        err_console.print(f"... and {len(errors) - MAX_ERRORS_SHOWN} more failed task(s); their rows (column 'error') "
                          f"are in {summary['table']}", markup=False, highlight=False)
    if bad:
        err_console.print(_failure_line(violations_that_stand(rows), errors), markup=False, highlight=False)
        raise typer.Exit(EXIT_VIOLATED)


def _failure_line(violated: list[dict], errors: list[dict], limit: int = 3) -> str:
    """One line: which rows are violated (after Holm) and which tasks failed, each named by index and key."""
    def named(rows: list[dict], what: str) -> str:
        shown = "; ".join(f"task {r['task_index']} ({r['task_key']}): {r['summary']}" for r in rows[:limit])
        more = f"; and {len(rows) - limit} more" if len(rows) > limit else ""
        return f"{len(rows)} {what}: {shown}{more}"
    parts = ([named(violated, "row(s) violated after Holm's correction")] if violated else []) + (
        [named(errors, "task(s) failed")] if errors else [])
    return "sweep failed: " + " | ".join(parts)


def register(app: typer.Typer) -> None:
    """Add the ``sweep`` command to ``app``."""
    app.command("sweep")(command(sweep))

