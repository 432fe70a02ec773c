"""The cost of a sweep before it runs: each kind's cost model summed over the pending tasks."""

from __future__ import annotations

from dataclasses import dataclass

from contrastive_bounds.properties.sweeps._cluster import default_workers
from contrastive_bounds.properties.sweeps._spec import SweepSpec, Task

__all__ = ["CostEstimate", "estimate_cost", "COST_LIMIT_CORE_HOURS"]

#: Estimated cost above which the command line asks for --yes (core-hours).
COST_LIMIT_CORE_HOURS = 1.0


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
