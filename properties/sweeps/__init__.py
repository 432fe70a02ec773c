"""Sweeps: grids of checks and simulations on dask.distributed, one atomic Parquet row per task.

:func:`load_spec` / :func:`parse_spec` read a TOML spec, :func:`run_sweep` runs it; what a task
computes is a kind of :mod:`.kinds`. The command is ``contrastive-bounds sweep``.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._cluster` — Where a sweep runs: the embedded LocalCluster or a user's scheduler, and how worker
  loss is survived.
* :mod:`._cost` — The cost of a sweep before it runs: each kind's cost model summed over the pending tasks.
* :mod:`._engine` — Run a sweep on dask.distributed: an embedded LocalCluster by default, any scheduler
  address.
* :mod:`._losses` — What a sweep's cluster lost, and which tasks ran again because of it: counted from
  dask's own records.
* :mod:`._lost_connections` — Quiet logs while a sweep holds a cluster: dask's records of connections that a
  lost worker broke.
* :mod:`._report` — The sweep report: ``report.html`` (self-contained) and PNG figures, from
  ``results.parquet`` alone.
* :mod:`._report_table` — The rows of a sweep report as HTML a person can read: chosen columns, wrapped
  text, pages.
* :mod:`._spec` — Sweep specs: a TOML file naming a task kind and a grid, validated whole before anything
  runs.
* :mod:`._store` — Results of a sweep on disk: one Parquet file per finished task, a manifest, a
  consolidated table.
* :mod:`._timeouts` — Timeouts of a sweep's cluster on a loaded machine: scaled with the load, or retried.
* :mod:`.kinds` — (subpackage) Task kinds of a sweep: what one task computes, as a pure function of (kind,
  parameters, seed).
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "builtin_specs": "_spec",
    "check_report_settings": "_report",
    "close_fast": "_cluster",
    "close_quietly": "_cluster",
    "cluster_config": "_timeouts",
    "ClusterLosses": "_losses",
    "ClusterStartError": "_cluster",
    "collect_losses": "_losses",
    "COLUMN_MEANINGS": "_report",
    "COMMON_COLUMNS": "_store",
    "CONNECT_ATTEMPTS": "_timeouts",
    "COST_LIMIT_CORE_HOURS": "_cost",
    "CostEstimate": "_cost",
    "default_columns": "_report_table",
    "default_workers": "_cluster",
    "describe_column": "_report",
    "describe_losses": "_losses",
    "estimate_cost": "_cost",
    "execute_task": "_engine",
    "FORMAT_VERSION": "_spec",
    "install_worker_filter": "_lost_connections",
    "INTERVAL": "_report_table",
    "load_factor": "_timeouts",
    "load_spec": "_spec",
    "losses_from_metadata": "_losses",
    "LostConnectionFilter": "_lost_connections",
    "make_row": "_engine",
    "MANIFEST_FORMAT": "_store",
    "MAX_TABLE_ROWS": "_report_table",
    "METADATA_KEY": "_losses",
    "open_client": "_cluster",
    "PAGE_ROWS": "_report_table",
    "parameter_names": "_report_table",
    "parse_range": "_spec",
    "parse_spec": "_spec",
    "quiet_lost_connections": "_lost_connections",
    "register_setup": "_cluster",
    "render_heatmap": "_report",
    "replace_atomically": "_store",
    "RESERVED_COLUMNS": "_store",
    "ResultsStore": "_store",
    "row_digest": "_store",
    "row_schema": "_store",
    "rows_table": "_report_table",
    "run_sweep": "_engine",
    "scaled": "_timeouts",
    "SchedulerLost": "_cluster",
    "significant_violations": "_report",
    "spec_differences": "_store",
    "START_ATTEMPTS": "_timeouts",
    "STARTED_TOPIC": "_losses",
    "SweepClusterLost": "_engine",
    "SweepInterrupted": "_engine",
    "SweepNanny": "_cluster",
    "SweepResult": "_engine",
    "SweepSpec": "_spec",
    "SweepWorkerSetup": "_cluster",
    "TABLE_STYLE": "_report_table",
    "Task": "_spec",
    "task_key": "_spec",
    "task_key_of": "_losses",
    "to_json_text": "_store",
    "validate_row": "_engine",
    "varying_parameters": "_report_table",
    "violations_that_stand": "_report",
    "worker_environment": "_cluster",
    "WORKER_XLA_FLAGS": "_cluster",
    "write_sweep_report": "_report",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ('kinds',)

__all__ = ["builtin_specs", "check_report_settings", "close_fast", "close_quietly", "cluster_config", "ClusterLosses",
           "ClusterStartError", "collect_losses", "COLUMN_MEANINGS", "COMMON_COLUMNS", "CONNECT_ATTEMPTS",
           "COST_LIMIT_CORE_HOURS", "CostEstimate", "default_columns", "default_workers", "describe_column",
           "describe_losses", "estimate_cost", "execute_task", "FORMAT_VERSION", "install_worker_filter",
           "INTERVAL", "load_factor", "load_spec", "losses_from_metadata", "LostConnectionFilter", "make_row",
           "MANIFEST_FORMAT", "MAX_TABLE_ROWS", "METADATA_KEY", "open_client", "PAGE_ROWS", "parameter_names",
           "parse_range", "parse_spec", "quiet_lost_connections", "register_setup", "render_heatmap",
           "replace_atomically", "RESERVED_COLUMNS", "ResultsStore", "row_digest", "row_schema", "rows_table",
           "run_sweep", "scaled", "SchedulerLost", "significant_violations", "spec_differences",
           "START_ATTEMPTS", "STARTED_TOPIC", "SweepClusterLost", "SweepInterrupted", "SweepNanny",
           "SweepResult", "SweepSpec", "SweepWorkerSetup", "TABLE_STYLE", "Task", "task_key", "task_key_of",
           "to_json_text", "validate_row", "varying_parameters", "violations_that_stand",
           "worker_environment", "WORKER_XLA_FLAGS", "write_sweep_report", "kinds"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
