"""Sweeps: grids of checks and simulations on dask.distributed, one atomic Parquet row per task.

Modules: :mod:`.spec` (TOML specs: grids, ranges, rows, profiles; validated before anything runs),
:mod:`.kinds` (what a task computes: ``check``, ``anneal``, ``align-simulate``, ``align-train``,
``bound``, ``landscape``; a registry one module per kind), :mod:`.engine` (tasks to rows: retries,
progress, Ctrl-C), :mod:`.cost` (estimates), :mod:`.cluster` (dask: an embedded LocalCluster or a
scheduler address; lost workers survived), :mod:`.timeouts` (waits that scale with the load or are
retried), :mod:`.losses` (worker processes lost, tasks that ran again), :mod:`.lost_connections`
(quiet logs), :mod:`.store` (rows, manifest, resume, the consolidated ``results.parquet``),
:mod:`.report` (HTML + PNG). The command is
``contrastive-bounds sweep`` (:mod:`contrastive_bounds.properties.cli.sweep`).
"""

from contrastive_bounds.properties.sweeps.engine import SweepClusterLost, SweepInterrupted, SweepResult, execute_task, \
    run_sweep  # noqa: F401
from contrastive_bounds.properties.sweeps.spec import SweepSpec, Task, builtin_specs, load_spec, parse_spec  # noqa: F401
