"""The ``anneal`` experiment: chains on a landscape under a schedule, the success and trapped fractions with
their intervals, the hitting times, and the theory's prediction beside them (docs/theorems.md A4, A5).

:class:`AnnealConfig` says what to run (schedule, chains, time span, step size, seed, start mode, success
tolerance, integrator) and is validated when built, without JAX (the command line builds it from its
options before JAX starts). :func:`anneal` runs it on a landscape with a known global minimum through
:func:`._experiments.run_schedule` (float64) and returns an :class:`AnnealReport`:

* the success fraction P(V(Z_T) < V_min + delta) with a Clopper–Pearson interval (95 %);
* the trapped fraction (never reached {V < V_min + delta} by t_end) and the hitting times;
* the schedule's asymptotic verdict for the landscape's H* (``Schedule.converges``, A4) and, started in
  the trap of an S¹ landscape, the Kramers probability of never escaping with its band (A5).

A start at a minimum ``m<id>`` of a saved landscape search is the network variant of the experiment
(:mod:`.network_anneal`, the command line's ``anneal --search``); :func:`anneal` refuses it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from contrastive_bounds.theory._domains import check_int, check_real, check_seed

from contrastive_bounds.numerics.langevin._config import INTEGRATORS, DriverOptions, whole_steps

__all__ = ["START_MODES", "DEFAULT_STEP_SIZE", "MAX_CHAINS", "AnnealConfig", "AnnealReport", "anneal"]

START_MODES = ("trap", "uniform", "global")
"""Start modes on any landscape: every chain at the trap (the non-global minimum of an S¹ landscape with the largest
barrier to a lower minimum, its depth: that barrier is H*),
i.i.d. uniform, or every chain at the landscape's first listed global minimum."""
DEFAULT_STEP_SIZE = 0.02
"""The step size of :func:`anneal` when :attr:`AnnealConfig.step_size` is ``None``."""
MAX_CHAINS = 10_000_000
"""Most chains of one experiment."""
_MINIMUM_LABEL = re.compile(r"\s*[mM]?\d+\s*")


@dataclass(frozen=True)
class AnnealConfig:
    """What an ``anneal`` experiment runs (validated when built; imports nothing from JAX).

    Attributes:
      schedule: a :class:`~contrastive_bounds.theory.Schedule`, finite and > 0 on ``[0, t_end]``
        (C12; the run starts at t = 0).
      chains: independent chains, in ``[1, MAX_CHAINS]``.
      t_end: the continuous end time, > 0 (the run covers ``[0, t_end]``).
      step_size: h > 0 with ``t_end / h`` a whole number of steps (at most ``2**31 - 2``), or ``None``: the
        landscape's default (:data:`DEFAULT_STEP_SIZE` for :func:`anneal`).
      seed: in ``[0, 2**32 - 1]``.
      start: one of :data:`START_MODES`, or a minimum label ``m<id>`` of a saved landscape search.
      delta: the success tolerance δ > 0 of ``{V < V_min + δ}``, or ``None``: half the gap between the trap
        and the global minimum (else 0.1; :func:`._experiments.default_delta`).
      integrator: ``"euler"`` or ``"geodesic"``.

    Raises:
      ValueError: naming the field and its allowed range.
    """

    schedule: Any
    chains: int = 1024
    t_end: float = 1000.0
    step_size: float | None = None
    seed: int = 0
    start: str = "trap"
    delta: float | None = None
    integrator: str = "euler"

    def __post_init__(self) -> None:
        if not callable(getattr(self.schedule, "validate_range", None)):
            raise ValueError(f"schedule={self.schedule!r} must be a Schedule (theory.schedules.make_schedule)")
        t_end = check_real("t_end", self.t_end, 0.0, math.inf)
        checked = {"chains": check_int("chains", self.chains, 1, MAX_CHAINS), "seed": check_seed(self.seed),
                   "t_end": t_end}
        if self.step_size is not None:
            checked["step_size"] = check_real("step_size", self.step_size, 0.0, math.inf)
            whole_steps(t_end, checked["step_size"])
        if self.delta is not None:
            checked["delta"] = check_real("delta", self.delta, 0.0, math.inf)
        if not isinstance(self.start, str) or not (self.start in START_MODES or _MINIMUM_LABEL.fullmatch(self.start)):
            raise ValueError(f"start={self.start!r} is not one of {START_MODES} or a minimum label m<id> of a saved "
                             "landscape search")
        if self.integrator not in INTEGRATORS:
            raise ValueError(f"integrator={self.integrator!r} is not one of {INTEGRATORS}")
        self.schedule.validate_range(0.0, t_end)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def steps(self, default_step_size: float = DEFAULT_STEP_SIZE) -> tuple[float, int]:
        """``(h, number of steps)``: ``step_size`` (or ``default_step_size``) and ``t_end / h``.

        Raises:
          ValueError: ``t_end`` is not a whole multiple of the default step (naming both).
        """
        h = self.step_size if self.step_size is not None else default_step_size
        return h, whole_steps(self.t_end, h)


@dataclass(frozen=True)
class AnnealReport:
    """What :func:`anneal` measured and predicted.

    Attributes:
      config: the experiment. run: :class:`._experiments.ScheduleRun` (counts, final energies, hitting times,
        energy trace, wall time, the noise generator and device count that ran).
      success, trapped: :class:`~contrastive_bounds.numerics.ProportionCI` (Clopper–Pearson 95 %) of
        ``V(Z_T) < level`` and of "never reached the level by t_end".
      hitting_time: :class:`~contrastive_bounds.numerics.HittingTimeSummary` of the first hitting
        times (95 %).
      verdict: ``schedule.converges(H*)`` (theory, A4), or ``None`` when H* is not known.
      band: :class:`._experiments.KramersBand` for a trap start on an S¹ landscape (A5), else ``None``.
    """

    config: AnnealConfig
    run: Any
    success: Any
    trapped: Any
    hitting_time: Any
    verdict: Any
    band: Any


def anneal(landscape: Any, config: AnnealConfig, options: DriverOptions | None = None) -> AnnealReport:
    """Run the experiment ``config`` on ``landscape`` (float64) and put the theory beside it.

    Args:
      landscape: a :class:`~contrastive_bounds.numerics.landscapes.Landscape` with a known global
        minimum value (``v_min``).
      config: :class:`AnnealConfig` with ``start`` one of :data:`START_MODES`.
      options: :class:`._config.DriverOptions` of the run (progress bar, checkpoint, resume, ...).

    Returns:
      :class:`AnnealReport`.

    Raises:
      ValueError: ``start`` a minimum label (needs a saved search), ``trap`` on a landscape without one,
        no known global minimum, a ``delta`` that puts the trap inside the target, ``t_end`` not a whole
        multiple of the default step.
      SimulationInterrupted: Ctrl-C during the run (:func:`._driver.simulate`).
      X64DisabledError: JAX's x64 mode is off.
    """
    from contrastive_bounds.numerics.langevin._experiments import circle_trap, kramers_trap_band, run_schedule
    from contrastive_bounds.numerics._precision import require_x64
    from contrastive_bounds.numerics._stats import clopper_pearson, hitting_time_summary

    require_x64("float64", what="contrastive_bounds.numerics.langevin.anneal")  # the run is float64
    if config.start not in START_MODES:
        raise ValueError(f"start={config.start!r} is not one of {START_MODES} (a minimum m<id> needs a saved "
                         "landscape search: network_anneal)")
    trap = circle_trap(landscape)
    if config.start == "trap" and trap is None:
        raise ValueError(f"start='trap' needs an S¹ landscape with a non-global minimum; {landscape.name!r} has none "
                         "known")
    h, _ = config.steps()
    run = run_schedule(landscape, config.schedule, chains=config.chains, t_end=config.t_end, step_size=h,
                       seed=config.seed, start=config.start, delta=config.delta, integrator=config.integrator,
                       options=options)
    h_star = landscape.critical_height
    band = None
    if config.start == "trap":
        band = kramers_trap_band(landscape, config.schedule, trap, 0.0, config.t_end, run.step_size)
    return AnnealReport(config, run, clopper_pearson(run.success, run.chains, 0.95),
                        clopper_pearson(run.trapped, run.chains, 0.95),
                        hitting_time_summary(run.hit_time, run.t_end, 0.95),
                        None if h_star is None else config.schedule.converges(h_star), band)
