"""Paper A's simulator: annealed overdamped Langevin dynamics on (S^{d-1})^N (docs/theorems.md A1).

Modules, by responsibility:

* :mod:`.steps` — the pure step functions, each with its state and ``init`` (BlackJAX style):
  :mod:`.steps.sphere` (one chain, any (N, d), Euler or geodesic, isotropic or anisotropic noise),
  :mod:`.steps.chains_last` (all chains at once, chains-last layout), :mod:`.steps.circle` (S¹ chains
  as complex numbers);
* :mod:`.kernel` — :class:`LangevinKernel`: a potential, a schedule and a step size bound to
  ``init(position)`` / ``step(key, state, t)`` of one chain; :mod:`.specs` — the forms its potential,
  temperature and anisotropy arguments may take; :mod:`.increments` — the Euler–Maruyama increment and
  noise scale; :mod:`.temperature` — the temperature as a compiled program with data (schedules of one
  form share a compilation);
* :mod:`.config` — :class:`SimulationConfig` (what a run simulates) and :class:`DriverOptions` (how);
* :mod:`.driver` — :func:`simulate`: many chains in chunks, progress, checkpoints, resume, Ctrl-C;
  :mod:`.paths` — the step path it takes (the fastest the kernel supports); :mod:`.chunk` — the jitted
  chunk (scan loop, sharding over devices); :mod:`.observables` — targets, basins, the scan carry and
  :class:`SimulationResult`;
* :mod:`.noise` — which generator draws each step's normals; :mod:`.fused_rng` — the fused
  Threefry/Box–Muller generator; :mod:`.noise_validation` — the distribution tests it passed;
* :mod:`.checkpoint` — fingerprints, atomic checkpoint writes, validated reads;
* :mod:`.arguments` — input checks before the first step; :mod:`.cost` — chunk pacing and run cost;
* :mod:`.defaults` — the fastest validated generator and device split; :mod:`.runlog` — which
  configuration runs used, for check results;
* :mod:`.experiments` — reusable annealing experiments on S¹ landscapes; :mod:`.annealing` — the ``anneal``
  experiment (:class:`AnnealConfig`, :func:`anneal`); :mod:`.network_runs`, :mod:`.network_anneal` — runs
  from the minima of landscape networks.

The names below are importable from this package. They are loaded on first use, so that importing
the package (or its JAX-free modules :mod:`.config`, :mod:`.annealing`, :mod:`.cost`) does not start JAX:
the command line validates its options before JAX is imported.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> the module (of this package) that defines it
_EXPORTS = {
    "LangevinKernel": "kernel",
    "StepSizeWarning": "kernel",
    "langevin_kernel": "kernel",
    "LangevinState": "steps.sphere",
    "SimulationConfig": "config",
    "DriverOptions": "config",
    "PRNG_IMPLS": "config",
    "STEP_PATHS": "config",
    "default_record_every": "config",
    "Arc": "observables",
    "EnergyBelow": "observables",
    "SimulationResult": "observables",
    "RunCost": "cost",
    "estimate_run_cost": "cost",
    "SimulationInterrupted": "driver",
    "deferred_interrupts": "driver",
    "simulate": "driver",
    "AnnealConfig": "annealing",
    "AnnealReport": "annealing",
    "anneal": "annealing",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
