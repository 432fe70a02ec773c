"""What a run from a saved landscape network returns: :class:`NetworkAnnealResult` and its JSON (``to_dict()``).

:func:`~contrastive_bounds.numerics.network_experiment.run_anneal` builds it; ``to_dict()`` is the report of
``contrastive-bounds anneal --search`` (docs/theorems.md A4, A5, A9): the fractions with their Clopper–Pearson
intervals, the final basins, hitting times, energies, the Eyring–Kramers prediction, the HKS verdict and the wall
times. Importing it starts no JAX.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from contrastive_bounds.numerics.network_experiment import AnnealPlan

__all__ = ["NetworkAnnealResult"]


def _fraction(k: int, n: int, meaning: str) -> dict[str, Any]:
    from contrastive_bounds.numerics._stats import clopper_pearson

    ci = clopper_pearson(int(k), int(n), 0.95)
    return {"fraction": ci.estimate, "ci95": [ci.lo, ci.hi], "count": int(k), "method": ci.method, "meaning": meaning}


@dataclass
class NetworkAnnealResult:
    """A run from a saved network (:func:`~contrastive_bounds.numerics.network_experiment.run_anneal`).

    The plan; the chains (:class:`~contrastive_bounds.numerics.langevin.network_runs.ScheduleSample`); the final
    basins (``labels``: a network minimum's id,
    :data:`~contrastive_bounds.numerics.langevin.network_anneal.UNKNOWN_MINIMUM` or
    :data:`~contrastive_bounds.numerics.langevin.network_anneal.NOT_CONVERGED` per chain; None without the quench);
    the Eyring–Kramers prediction of the start minimum (None for a global or unconnected start); the HKS verdict
    (``converges``: None when H* is not the closed network's and the verdict would need it); notes; and the call's
    wall times: ``seconds`` (all of ``run_anneal``: ``to_dict()``'s ``run_time_s``), of which the chains'
    simulation (compile and steps of this call: ``run.wall_time``, ``simulation_time_s``) and ``quench_seconds``
    (minimising the final states, 0 without the quench: ``quench_time_s``); the rest is the Eyring–Kramers
    prediction and the verdict."""

    plan: AnnealPlan
    run: Any
    labels: np.ndarray | None
    prediction: Any
    converges: bool | None
    regime: str
    reason: str
    notes: list[str]
    seconds: float = 0.0
    quench_seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the report of ``anneal --search``)."""
        from contrastive_bounds.numerics.langevin.network_anneal import NOT_CONVERGED, UNKNOWN_MINIMUM
        from contrastive_bounds.numerics._stats import hitting_time_summary

        p, run, labels, pred = self.plan, self.run, self.labels, self.prediction
        saved, a, first, trap, chains = p.saved, p.analysis, p.first, p.trap, run.chains
        hits = hitting_time_summary(run.hit_time, run.t_end, 0.95)
        basins = None
        if labels is not None:
            basins = {m.label: int(np.sum(labels == m.id)) for m in saved.minima if np.any(labels == m.id)}
            for code, name in ((UNKNOWN_MINIMUM, "a minimum the search did not find"), (NOT_CONVERGED, "not converged")):
                if np.any(labels == code):
                    basins[name] = int(np.sum(labels == code))
        start = None if first is None else {
            "label": first.label, "energy": first.energy, "global": first.id in a.global_minima,
            "barrier": a.barriers.get(first.id, {}).get("barrier"), "rotated": bool(p.spec.symmetry.orthogonal)}
        kramers = None if pred is None else {**pred.to_dict(), "meaning": (
            "probability of never reaching the global set (every escape saddle leads to a global minimum)"
            if pred.direct_to_global else f"probability of never leaving {first.label} (an escape saddle leads to an "
                                          "intermediate minimum: compare with 'in start basin', which also counts returns)"),
            "barriers": list(trap.barriers),
            "escape_saddles": [saved.minimum(s.target).label + f" via {saved.transition_state(s.ts).label}"
                               for s in trap.saddles]}
        final, trace = run.final_potential, run.energy_trace
        h_star = float(a.critical_height)
        return {
            "landscape": p.spec.name, "landscape_description": p.spec.description, "radius": p.spec.radius,
            "search": {"folder": str(saved.folder), "phase": saved.phase, "status": p.status, "critical_height": h_star,
                       "closure": saved.effort.get("closure", ""), "curvature": saved.store.curvature,
                       "trap_curvature": None if trap is None else trap.curvature,
                       "critical_height_complete": p.known, "v_min": float(a.v_min),
                       "global_minima": [saved.minimum(i).label for i in a.global_minima],
                       "minima": [{"label": m.label, "energy": m.energy, "multiplicity": m.multiplicity,
                                   "barrier": a.barriers.get(m.id, {}).get("barrier"), "global": m.id in a.global_minima}
                                  for m in saved.minima[:60]]},
            "critical_height": h_star, "v_min": float(a.v_min), "schedule": p.schedule.describe(), "chains": chains,
            "time": run.t_end, "step_size": run.step_size, "num_steps": run.num_steps, "seed": p.seed,
            "start": p.start, "start_minimum": start, "integrator": p.integrator, "dtype": "float64",
            "noise_generator": run.prng_impl, "devices": run.devices, "delta": p.delta, "level": p.level,
            "success": _fraction(run.below_at_end, chains, "V(Z_T) < V_min + delta at T_END"),
            "reached": _fraction(run.reached, chains, "reached V < V_min + delta by T_END"),
            "trapped": _fraction(run.trapped, chains, "never reached V < V_min + delta by T_END"),
            "in_start_basin": None if labels is None or first is None else _fraction(
                int(np.sum(labels == first.id)), chains, f"Z_T quenches to the start minimum {first.label}"),
            "in_global_basin": None if labels is None else _fraction(
                int(np.sum(np.isin(labels, a.global_minima))), chains, "Z_T quenches to a global minimum"),
            "final_basins": basins,
            "hitting_time": {"mean_over_hits": hits.mean.mean if hits.mean else None,
                             "ci95": [hits.mean.lo, hits.mean.hi] if hits.mean else None,
                             "median": hits.median, "censored": hits.censored},
            "energies": {"start": None if first is None else first.energy,
                         "final": {"mean": float(np.mean(final)), "median": float(np.median(final)),
                                   "min": float(np.min(final)), "max": float(np.max(final))},
                         "lowest_seen": float(np.min(run.running_min)),
                         "trace": {"times": run.record_times.tolist(), "mean": np.mean(trace, axis=1).tolist(),
                                   "min": np.min(trace, axis=1).tolist()}},
            "theory": {"converges": self.converges, "regime": self.regime, "reason": self.reason,
                       "kramers_trap_probability": None if pred is None else pred.predicted,
                       "kramers_trap_band": None if pred is None or pred.lo is None else [pred.lo, pred.hi],
                       "kramers": kramers},
            "simulation_time_s": float(run.wall_time), "quench_time_s": self.quench_seconds,
            "run_time_s": self.seconds, "warnings": list(self.notes),
        }
