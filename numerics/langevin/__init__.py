"""Paper A's simulator: annealed overdamped Langevin dynamics on (S^{d-1})^N (docs/theorems.md A1).

:func:`simulate` runs many chains of a :class:`LangevinKernel` (a potential, a schedule and a step
size bound to ``init``/``step``) under a :class:`SimulationConfig` and :class:`DriverOptions`; the
pure step functions are the subpackage :mod:`.steps`. Names are loaded on first use, so that
importing the package (or its JAX-free modules) does not start JAX: the command line validates its
options before JAX is imported.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._annealing` — The ``anneal`` experiment: chains on a landscape under a schedule, the success and
  trapped fractions with their intervals, the hitting times, and the theory's prediction beside them
  (docs/theorems.md A4, A5).
* :mod:`._arguments` — Checks a run's inputs before its first step: positions, Arc targets, the schedule,
  the step size.
* :mod:`._checkpoint` — Checkpoints of a run: the fingerprint that names it, atomic writes, and reads that
  trust nothing.
* :mod:`._chunk` — The jitted chunk of a run: a loop of steps of all chains with their observables, one
  compile per run.
* :mod:`._config` — A run's configuration: what is simulated (:class:`SimulationConfig`) and how the driver
  runs it (:class:`DriverOptions`), two frozen objects validated when they are built.
* :mod:`._cost` — How big a run is and how to cut it into chunks short enough for Ctrl-C.
* :mod:`._defaults` — The configuration a run gets when the caller does not choose: the fastest one that is
  validated.
* :mod:`._driver` — Many Langevin chains at once: :func:`simulate` (observables, progress, checkpoints,
  resume, Ctrl-C).
* :mod:`._experiments` — Reusable annealing experiments on S¹ landscapes: trap, start states, Kramers band,
  schedule runs.
* :mod:`._fused_rng` — The ``"fused-threefry"`` noise generator of the simulator (float32 throughput runs).
* :mod:`._global_set` — The one rule for the set a run must reach, ``{V < V_min + δ}``: δ is half the gap
  between V_min and the lowest energy that must stay outside it (docs/theorems.md A4).
* :mod:`._increments` — The Euler–Maruyama increment of one step of overdamped Langevin dynamics and its
  noise scale (docs/theorems.md A1; case C11: the noise of a step is ``sqrt(2·T·h)·ξ``, not ``sqrt(2T)·h``
  nor ``sqrt(h)``). Used by every step function of :mod:`.steps` (looked up at trace time, so the
  self-test's faults on it reach every step path). Source: Kloeden & Platen (1992), §9.1 (the Euler–Maruyama
  scheme).
* :mod:`._kernel` — Annealed overdamped Langevin dynamics on (S^{d−1})^N: the BlackJAX-style kernel of one
  chain.
* :mod:`._noise` — The noise of the simulator: which generator draws step k's normals, and how a loop of
  steps draws them.
* :mod:`._noise_validation` — Distribution tests of a standard normal generator, for the fused generator
  before it is a default.
* :mod:`._observables` — What a run of many Langevin chains records: target sets, basins, the scan carry and
  the result.
* :mod:`._paths` — How the driver steps all chains of a run: the step paths a kernel supports and the one it
  chooses.
* :mod:`._runlog` — Which configuration the simulator's runs used, collected for a caller that wants to
  report it.
* :mod:`._specs` — What the kernel's arguments may be, turned into the functions it uses: a temperature
  (fixed, a schedule or a callable) into ``t -> T(t)``, a potential (a landscape or a callable, with or
  without its gradient) into :class:`PotentialFunctions` (V, ∇V, a fused value-and-gradient and the fast
  forms the driver's step paths use), an anisotropy (SPD matrix or positive diagonal) into its symmetric
  square root. Each refuses what it cannot use with a ValueError naming the argument. Used by
  :func:`._kernel.langevin_kernel`.
* :mod:`._temperature` — A temperature argument as a compiled program plus data, so that runs differing only
  in their schedule's constants share one compilation of the simulator's chunk.
* :mod:`.network_anneal` — (public module) Annealing from the minima of a saved landscape network: starts,
  the Kramers band of a named minimum, final basins.
* :mod:`.network_runs` — (public module) Langevin runs on landscape-network potentials: escape times,
  Arrhenius exponents, schedules (A4, A5, A8).
* :mod:`.steps` — (subpackage) The simulator's step functions: small, pure, one state type each (BlackJAX
  style).
"""

from __future__ import annotations

from typing import Any

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "ad_asymptotic_cdf": "_noise_validation",
    "anderson_darling_normal": "_noise_validation",
    "anneal": "_annealing",
    "AnnealConfig": "_annealing",
    "AnnealReport": "_annealing",
    "Arc": "_observables",
    "as_temperature_fn": "_specs",
    "basin_label": "_observables",
    "buffer_units": "_cost",
    "Carry": "_observables",
    "CARRY_FIELDS": "_observables",
    "check_arcs": "_arguments",
    "check_checkpoint_path": "_config",
    "check_positions": "_arguments",
    "check_temperatures": "_arguments",
    "CHECKPOINT_KEYS": "_checkpoint",
    "choose_step_path": "_paths",
    "choose_unit_steps": "_cost",
    "chunk_fn": "_chunk",
    "CHUNK_SECONDS": "_cost",
    "ChunkPacer": "_cost",
    "circle_trap": "_experiments",
    "CircleTrap": "_experiments",
    "COMPILED_FORMS": "_temperature",
    "compiler_options": "_chunk",
    "default_delta": "_experiments",
    "default_prng_impl": "_defaults",
    "default_record_every": "_config",
    "default_shards": "_defaults",
    "default_step_path": "_paths",
    "DEFAULT_STEP_SIZE": "_annealing",
    "deferred_interrupts": "_driver",
    "DriverOptions": "_config",
    "EnergyBelow": "_observables",
    "estimate_run_cost": "_cost",
    "euler_maruyama_increment": "_increments",
    "final_labels": "_observables",
    "FUSED": "_noise",
    "fused_normal_pairs": "_fused_rng",
    "fused_normals": "_fused_rng",
    "fused_sample": "_noise_validation",
    "FUSED_VALIDATED_DTYPES": "_defaults",
    "DEFAULT_MARGIN": "_global_set",
    "global_set_margin": "_global_set",
    "global_set_level": "_global_set",
    "global_tie_tolerance": "_global_set",
    "independence_tests": "_noise_validation",
    "initial_carry": "_observables",
    "initial_step_cost": "_cost",
    "INTEGRATORS": "_config",
    "kernel_temperature": "_temperature",
    "KernelTemperature": "_temperature",
    "kolmogorov_smirnov_normal": "_noise_validation",
    "kramers_trap_band": "_experiments",
    "KramersBand": "_experiments",
    "langevin_kernel": "_kernel",
    "LangevinKernel": "_kernel",
    "law_tests": "_noise_validation",
    "load_checkpoint": "_checkpoint",
    "MAX_CHAINS": "_annealing",
    "MAX_STEPS": "_config",
    "MIN_CHAINS_PER_SHARD": "_defaults",
    "misscaled_temperature": "_experiments",
    "noise_key": "_noise",
    "noise_scale": "_increments",
    "NormalTest": "_noise_validation",
    "note_run": "_runlog",
    "place_carry": "_chunk",
    "PotentialFunctions": "_specs",
    "PRNG_IMPLS": "_config",
    "raise_non_finite": "_arguments",
    "recorded_runs": "_runlog",
    "resolve_potential": "_specs",
    "run_fingerprint": "_checkpoint",
    "run_schedule": "_experiments",
    "RunCost": "_cost",
    "save_checkpoint": "_checkpoint",
    "ScheduleRun": "_experiments",
    "simulate": "_driver",
    "SimulationConfig": "_config",
    "SimulationInterrupted": "_driver",
    "SimulationResult": "_observables",
    "sqrt_spd": "_specs",
    "START_MODES": "_annealing",
    "start_positions": "_experiments",
    "STEP_BIAS_PER_CURVATURE": "_experiments",
    "STEP_BIAS_PER_UNIT_H": "_experiments",
    "step_factor": "_experiments",
    "step_path": "_paths",
    "STEP_PATHS": "_config",
    "step_warnings": "_arguments",
    "StepPath": "_paths",
    "steps_loop": "_noise",
    "StepSizeWarning": "_kernel",
    "summarize_runs": "_runlog",
    "supported_step_paths": "_paths",
    "temperature_program": "_temperature",
    "TemperatureProgram": "_temperature",
    "threefry2x32": "_fused_rng",
    "TRACED_PARAMETERS": "_temperature",
    "whole_steps": "_config",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ('network_anneal', 'network_runs', 'steps')

__all__ = ["ad_asymptotic_cdf", "anderson_darling_normal", "anneal", "AnnealConfig", "AnnealReport", "Arc",
           "as_temperature_fn", "basin_label", "buffer_units", "Carry", "CARRY_FIELDS", "check_arcs",
           "check_checkpoint_path", "check_positions", "check_temperatures", "CHECKPOINT_KEYS",
           "choose_step_path", "choose_unit_steps", "chunk_fn", "CHUNK_SECONDS", "ChunkPacer", "circle_trap",
           "CircleTrap", "COMPILED_FORMS", "compiler_options", "default_delta", "default_prng_impl",
           "default_record_every", "default_shards", "default_step_path", "DEFAULT_STEP_SIZE",
           "DEFAULT_MARGIN", "deferred_interrupts", "DriverOptions", "EnergyBelow", "estimate_run_cost",
           "global_set_level", "global_set_margin", "global_tie_tolerance",
           "euler_maruyama_increment", "final_labels", "FUSED", "fused_normal_pairs", "fused_normals",
           "fused_sample", "FUSED_VALIDATED_DTYPES", "independence_tests", "initial_carry",
           "initial_step_cost", "INTEGRATORS", "kernel_temperature", "KernelTemperature",
           "kolmogorov_smirnov_normal", "kramers_trap_band", "KramersBand", "langevin_kernel",
           "LangevinKernel", "law_tests", "load_checkpoint", "MAX_CHAINS", "MAX_STEPS",
           "MIN_CHAINS_PER_SHARD", "misscaled_temperature", "noise_key", "noise_scale", "NormalTest",
           "note_run", "place_carry", "PotentialFunctions", "PRNG_IMPLS", "raise_non_finite", "recorded_runs",
           "resolve_potential", "run_fingerprint", "run_schedule", "RunCost", "save_checkpoint",
           "ScheduleRun", "simulate", "SimulationConfig", "SimulationInterrupted", "SimulationResult",
           "sqrt_spd", "START_MODES", "start_positions", "STEP_BIAS_PER_CURVATURE", "STEP_BIAS_PER_UNIT_H",
           "step_factor", "step_path", "STEP_PATHS", "step_warnings", "StepPath", "steps_loop",
           "StepSizeWarning", "summarize_runs", "supported_step_paths", "temperature_program",
           "TemperatureProgram", "threefry2x32", "TRACED_PARAMETERS", "whole_steps", "network_anneal",
           "network_runs", "steps"]


_face_getattr, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)


def __getattr__(name: str) -> Any:
    """A name of the face, loaded on first use; ``tie_tolerance``, the former name of
    :func:`global_tie_tolerance`, with a DeprecationWarning."""
    if name == "tie_tolerance":
        import sys
        import warnings

        # `from ... import tie_tolerance` asks twice: importlib's _handle_fromlist (a hasattr on this package),
        # then the import itself; the warning is for the user's line, once
        if sys._getframe(1).f_code.co_name != "_handle_fromlist":
            warnings.warn("contrastive_bounds.numerics.langevin.tie_tolerance is deprecated and will be removed in the "
                          "next minor release (0.2.0): use global_tie_tolerance (ties with V_min), not "
                          "numerics.landscapes.tie_tolerance (the persistence sweep's)", DeprecationWarning,
                          stacklevel=2)
        return _face_getattr("global_tie_tolerance")
    return _face_getattr(name)
