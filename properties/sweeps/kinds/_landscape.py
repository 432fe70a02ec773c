"""Sweep kind ``landscape``: the transition network of an InfoNCE landscape, and runs on it (A9, A8.6–A8.8).

A task is one row of :func:`~contrastive_bounds.properties.checks.landscape_row` (what it
measures: ``measure`` = ``"network"``, ``"arrhenius"`` or ``"schedule"``; see there): the kind declares its
parameters (defaults :data:`~contrastive_bounds.properties.checks.ROW_DEFAULTS`; the landscape's
arguments checked by the library, :func:`~contrastive_bounds.numerics.landscapes.network.arguments.infonce_arguments`,
so a row refuses what ``contrastive-bounds landscape`` refuses), its output columns and its cost, and wraps the
row as a :class:`~.TaskOutput`. Rows carry the verdict ``measured``: the comparisons and claim verdicts are made
by the checks ``A8.6_dimension``, ``A8.7_negatives``, ``A8.8_curvature``
(:mod:`contrastive_bounds.properties.checks._landscape_ablations`). Networks are searched once per process
(:func:`~contrastive_bounds.numerics.landscapes.network.network_for`), so a grid that repeats a landscape
searches it once; ``run`` is pure (the search's wall time is not in the row).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from contrastive_bounds.theory._domains import check_int, check_probability, check_real

from contrastive_bounds.properties.checks._landscape_rows import ABLATIONS, MEASURES, OUTPUTS, ROW_DEFAULTS, landscape_row
from contrastive_bounds.properties.sweeps.kinds._kind import REQUIRED, ParamSpec, TaskKind, TaskOutput, register_kind

__all__ = ["LANDSCAPE"]

#: Compiling a network's kernels for one landscape, plus its closure rounds (seconds on one core, chunk 8:
#: 25-50 s measured for N = 4..16, d = 2..5 under load; structured starts add their minimisations, see :func:`cost`).
COMPILE_SECONDS = 25.0
#: Float64 InfoNCE chain-steps per second on one core (measured 0.9-1.5e6 for N = 4..6, d = 2).
CHAIN_STEPS_PER_SECOND = 1.0e6
D = ROW_DEFAULTS


def _tau(v: Any) -> float:
    from contrastive_bounds.numerics.landscapes.network.arguments import check_tau

    return check_tau(v)


def _positive(name: str):
    return lambda v: check_real(name, v, 0.0, math.inf)


def _ratios(v: list) -> list:
    if not v:
        raise ValueError("barrier_over_t must list at least 2 values of H*/T")
    return [check_real("barrier_over_t", float(x), 0.0, 50.0) for x in v]


PARAMS = (
    ParamSpec("ablation", str, D["ablation"], choices=ABLATIONS, description="which ablation of docs/theorems.md A8.6-A8.8 the row belongs to"),
    ParamSpec("num_points", int, REQUIRED, check=lambda v: check_int("num_points", v, 3, 64), description="N points (3..64)"),
    ParamSpec("dim", int, REQUIRED, check=lambda v: check_int("dim", v, 2, 16), description="embedding dimension d (2..16)"),
    ParamSpec("tau", float, REQUIRED, check=_tau, description="InfoNCE temperature tau in [1e-4, 1e4]"),
    ParamSpec("radius", float, D["radius"], check=_positive("radius"), description="sphere radius R (similarities R² cos)"),
    ParamSpec("pairs", list, None, description="positive pairs [[i, j], ...] (default (0,1), (2,3), ...)"),
    ParamSpec("coupled", bool, D["coupled"], description="positive in the denominator"),
    ParamSpec("starts", int, D["starts"], check=lambda v: check_int("starts", v, 1, 100_000), description="random starts of the search"),
    ParamSpec("max_hop_rounds", int, D["max_hop_rounds"], check=lambda v: check_int("max_hop_rounds", v, 0, 10_000), description="basin-hopping rounds at most"),
    ParamSpec("max_ts_rounds", int, D["max_ts_rounds"], check=lambda v: check_int("max_ts_rounds", v, 1, 1000),
              description="transition-state (closure) rounds at most: the search's round budget"),
    ParamSpec("structured_starts", int, D["structured_starts"], check=lambda v: check_int("structured_starts", v, 0, 1_000_000),
              description="budget of structured templates (pair states on spherical codes); 0: none"),
    ParamSpec("closure", bool, D["closure"], description="follow every Hessian mode of every minimum to closure (False: the previous search)"),
    ParamSpec("pair_distance", float, D["pair_distance"], check=lambda v: check_real("pair_distance", v, 0.0, 2.0, lo_closed=True, hi_closed=True),
              description="band searches between every pair of minima within this aligned RMS distance per point"),
    ParamSpec("max_minima", int, D["max_minima"], check=lambda v: check_int("max_minima", v, 1, 100_000), description="budget: minima at most"),
    ParamSpec("max_searches", int, D["max_searches"], check=lambda v: check_int("max_searches", v, 0, 10_000_000),
              description="budget: single-ended plus band searches at most"),
    ParamSpec("search_seed", int, None, check=lambda v: check_int("search_seed", v, 0, 2**32 - 1),
              description="seed of the network search (default: the task's seed); an axis of several = independent searches"),
    ParamSpec("chunk", int, D["chunk"], check=lambda v: check_int("chunk", v, 8, 4096), description="vmapped batch of the search"),
    ParamSpec("measure", str, D["measure"], choices=MEASURES, description="what to simulate on the network"),
    ParamSpec("barrier_over_t", list, D["barrier_over_t"], check=_ratios, description="arrhenius: H/T ratios of the temperatures"),
    ParamSpec("arrhenius_model", str, D["arrhenius_model"], choices=("corrected", "linear"),
              description="arrhenius: log tau = a + H/T (+ c T: first-order finite-T correction)"),
    ParamSpec("chains", int, D["chains"], check=lambda v: check_int("chains", v, 2, 1_000_000), description="chains per simulation"),
    ParamSpec("step_scale", float, D["step_scale"], check=lambda v: check_real("step_scale", v, 0.0, 1.0, hi_closed=True),
              description="h * (stiffest Hessian eigenvalue at the trap), in (0, 1]"),
    ParamSpec("horizon_factor", float, D["horizon_factor"], check=_positive("horizon_factor"),
              description="arrhenius: t_end = factor x Eyring-Kramers escape time"),
    ParamSpec("c", float, None, check=_positive("c"), description="schedule: HKS constant of T = c/log(t + t0)"),
    ParamSpec("t0", float, D["t0"], check=lambda v: check_real("t0", v, 1.0, math.inf), description="schedule: time offset (> 1)"),
    ParamSpec("t_end", float, D["t_end"], check=_positive("t_end"), description="schedule: horizon (radius-R clock)"),
    ParamSpec("start_radius", float, D["start_radius"], check=_positive("start_radius"),
              description="schedule: start at the deepest trap of the landscape at this radius"),
    ParamSpec("confidence", float, D["confidence"], check=lambda v: check_probability("confidence", v), description="level of intervals"),
)

def validate(p: Mapping[str, Any]) -> None:
    """Cross-parameter checks (raises ValueError naming the parameters): the landscape's arguments as the library
    checks them (:func:`~contrastive_bounds.numerics.landscapes.network.arguments.infonce_arguments`)."""
    from contrastive_bounds.numerics.landscapes.network.arguments import infonce_arguments

    infonce_arguments(p["num_points"], p["dim"], p["tau"], p.get("pairs"), coupled=p["coupled"], radius=p["radius"])
    if p["measure"] == "schedule" and "c" not in p:
        raise ValueError("measure='schedule' needs c (the HKS constant of T = c/log(t + t0))")
    if p["measure"] == "arrhenius" and p["arrhenius_model"] == "corrected" and len(p["barrier_over_t"]) < 3:
        raise ValueError("arrhenius_model='corrected' needs at least 3 values in barrier_over_t")
    if len(set(p["barrier_over_t"])) != len(p["barrier_over_t"]):
        raise ValueError("barrier_over_t values must be distinct")


def run(p: Mapping[str, Any], seed: int) -> TaskOutput:
    """One ``landscape`` task: :func:`~contrastive_bounds.properties.checks.landscape_row`; float64."""
    return TaskOutput(**landscape_row(p, seed))


def cost(p: Mapping[str, Any]) -> float:
    """Seconds on one core: :data:`COMPILE_SECONDS` per landscape, the structured starts (0.01 s per template
    at N·d = 30, scaled by N·d), plus the simulations' chain-steps at
    :data:`CHAIN_STEPS_PER_SECOND` (arrhenius: about 50 000 steps per temperature, measured 62-490 s per task for N = 4..10 at 512 chains; schedule: t_end/h with
    h ~ 0.002)."""
    base = COMPILE_SECONDS + 0.01 * p["starts"] + 0.01 * p.get("structured_starts", 0) * p["num_points"] * p["dim"] / 30
    if p["measure"] == "arrhenius":
        return base + p["chains"] * 50_000 * len(p["barrier_over_t"]) / CHAIN_STEPS_PER_SECOND
    if p["measure"] == "schedule":
        return 2 * base + p["chains"] * p["t_end"] / 0.002 / CHAIN_STEPS_PER_SECOND
    return base


LANDSCAPE = register_kind(TaskKind(
    "landscape", "InfoNCE landscape network (H*, D, minima, verified TSs, search effort); optional Arrhenius or schedule runs",
    params=PARAMS, outputs=OUTPUTS, run=run, cost=cost, validate=validate))
