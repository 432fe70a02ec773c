"""Many Langevin chains at once: :func:`simulate` (observables, progress, checkpoints, resume, Ctrl-C).

:func:`simulate` runs ``chains × num_steps`` steps of a :class:`._kernel.LangevinKernel` as configured by a
:class:`._config.SimulationConfig` (what to simulate and record) and :class:`._config.DriverOptions` (how),
in jitted chunks (:mod:`._chunk`; one compiled program per run, whatever the chunk lengths), stepping
the chains with the fastest step path the kernel supports (:mod:`._paths`), and returns
observables, not trajectories (:class:`._observables.SimulationResult`): an energy trace every
``record_every`` steps, the running minimum of V, the first hitting time of a target, basin
occupancy and escapes, the final states. Between chunks it updates a rich progress bar, writes a
checkpoint atomically (:mod:`._checkpoint`) and looks at Ctrl-C: chunks last about a second
(:mod:`._cost`), so an interrupt takes effect within seconds, saves the state and raises
:class:`SimulationInterrupted` carrying the partial result.

Randomness (:mod:`._noise`): the noise of step k depends only on (seed, generator, k, element, and
the device count when the chains are split), so results do not depend on chunking or
interruptions: a resumed run is bit-identical to an uninterrupted one on the same platform. By
default a run uses the fastest validated configuration (:mod:`._defaults`, :mod:`._paths`): the fused
generator in float32, ``jax.random.normal`` in float64, the chains split over the local devices
when there are enough of them, the fastest step path; the result says which ran
(``prng_impl``, ``devices``, ``step_path``). Figures: ``benchmarks/README.md``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import contrastive_bounds.numerics.langevin._arguments as arguments
import contrastive_bounds.numerics.langevin._checkpoint as ckpt_io
from contrastive_bounds.numerics.langevin._chunk import chunk_fn, place_carry
from contrastive_bounds.numerics.langevin._config import DriverOptions, SimulationConfig, check_checkpoint_path
from contrastive_bounds.numerics.langevin._cost import ChunkPacer, buffer_units, initial_step_cost
from contrastive_bounds.numerics.langevin._defaults import default_prng_impl, default_shards
from contrastive_bounds.numerics.langevin._kernel import LangevinKernel, StepSizeWarning
from contrastive_bounds.numerics.langevin._noise import FUSED, noise_key
from contrastive_bounds.numerics.langevin._observables import Carry, SimulationResult, final_labels, initial_carry
from contrastive_bounds.numerics.langevin._paths import choose_step_path, default_step_path
from contrastive_bounds.numerics.langevin._runlog import note_run

__all__ = ["SimulationInterrupted", "simulate", "deferred_interrupts"]


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`simulate` between two chunks (a ``KeyboardInterrupt``, so code that does
    not look for it still stops).

    Attributes:
      result: the :class:`._observables.SimulationResult` of the steps done (``complete`` is False unless
        the interrupt came during the last chunk).
      checkpoint: the file the state was saved to (the run's ``checkpoint``), or ``None``.
    """

    def __init__(self, result: SimulationResult, checkpoint: Path | None, carry: Carry, trace: np.ndarray,
                 fingerprint: str):
        super().__init__(f"interrupted at step {result.steps_done} of {result.num_steps}")
        self.result = result
        self.checkpoint = checkpoint
        self._state = (carry, trace, fingerprint)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the interrupted state as a checkpoint at ``path`` (atomically); resume it with
        ``simulate(kernel, positions, config, DriverOptions(checkpoint=path, resume=True))`` (the same
        kernel, positions and config). Returns the path.

        Raises:
          ValueError: a bad path (see :func:`._config.check_checkpoint_path`). OSError: the write fails.
        """
        target = check_checkpoint_path(path)
        ckpt_io.save_checkpoint(target, *self._state)
        self.checkpoint = target
        return target


class deferred_interrupts:
    """Context manager: while active (main thread only), the first SIGINT sets ``raised`` instead of
    raising ``KeyboardInterrupt`` wherever the program is (possibly inside a compiled chunk that cannot
    stop); :func:`simulate` looks at it between chunks. A second SIGINT raises at once. Reentrant:
    nested uses share the outermost flag, so a caller (the command line) can cover the whole job,
    including the set-up before :func:`simulate` starts (an interrupt there stops the run before its
    first chunk, still with a checkpoint and :class:`SimulationInterrupted`).
    """

    _active: "deferred_interrupts | None" = None

    def __init__(self) -> None:
        self.raised = False
        self._previous: Any = None
        self._outer: deferred_interrupts | None = None

    def _handler(self, signum, frame) -> None:
        if self.raised:
            raise KeyboardInterrupt
        self.raised = True

    def __enter__(self) -> deferred_interrupts:
        self._outer = deferred_interrupts._active
        if self._outer is not None:
            return self._outer
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = signal.signal(signal.SIGINT, self._handler)
            except (ValueError, OSError):
                self._previous = None
        deferred_interrupts._active = self
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if self._outer is not None:
            return
        deferred_interrupts._active = None
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        if self.raised and exc_type is None:  # an interrupt nobody took: deliver it now, late but not lost
            raise KeyboardInterrupt


def _progress_bar(num_steps: int, done: int):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(TextColumn("[bold]langevin[/bold] {task.completed:,}/{task.total:,} steps"), BarColumn(),
                   TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(), transient=True)
    bar.start()
    return bar, bar.add_task("run", total=num_steps, completed=done, rate="")


def simulate(kernel: LangevinKernel, positions: Any, config: SimulationConfig,
             options: DriverOptions | None = None) -> SimulationResult:
    """Run ``chains × config.num_steps`` steps of ``kernel`` and return observables.

    Args:
      kernel: a :class:`._kernel.LangevinKernel` (reuse the same object, or kernels of equal
        ``compile_key``, to reuse compiled chunks).
      positions: initial states, shape ``(chains, N, d)``, float32 or float64, on the sphere. The
        dtype of the run is the dtype of ``positions`` (float64 requires JAX x64 on).
      config: what to simulate and record (:class:`._config.SimulationConfig`: steps, seed, start time,
        record spacing, target, basins).
      options: how to run it (:class:`._config.DriverOptions`: noise generator, devices, step path, chunking,
        progress bar, checkpoint and resume, early stop); default ``DriverOptions()``: the fastest
        validated configuration, no checkpoint.

    Returns:
      :class:`._observables.SimulationResult`; its ``prng_impl``, ``devices`` and ``step_path`` say how it ran.

    Warns:
      StepSizeWarning: ``step_size`` too large: ``h·sup|V''| > 1`` where a curvature bound is known
        (S¹ Fourier landscapes, :meth:`.LangevinKernel.step_size_warning`), or one step's noise
        ``sqrt(2·T·h) > 1`` rad at the hottest temperature of the run; the run goes on.

    Raises:
      SimulationInterrupted: Ctrl-C (SIGINT) in the main thread, taken between chunks: the state is
        saved to ``options.checkpoint`` when given; the exception carries the partial result.
      ValueError: bad shapes (no chains), off-sphere or non-finite positions, non-positive
        temperatures on the time span, an Arc target on a landscape that is not S¹, float64 input with
        x64 off, a step path the kernel does not support, a chain count not divisible by the device
        count with ``shard_chains=True``, ``stop_after_steps`` beyond ``num_steps``; a ``checkpoint``
        that is a folder, whose parent is a file, or whose folder cannot be created or written (checked
        before the first step); with ``resume``, a checkpoint of another run, or a file that is not a
        readable checkpoint of this toolkit (not an npz, empty, truncated, missing arrays, wrong shapes,
        NaN/inf); and during the run, a step that overflowed the dtype (non-finite energies: step size or
        temperature far too large), instead of returning NaN.
      TypeError: ``config`` or ``options`` of another type.
      OSError: a checkpoint write fails during the run (disk full, folder made read-only meanwhile).

    Examples:
      Sixteen chains from the trap θ = π of the double well under T = 2/log(t + 2) for 200 steps of h = 0.02
      (float64; compiling the chunk takes a few seconds):

      >>> import numpy as np
      >>> from contrastive_bounds.numerics.landscapes import get_landscape
      >>> from contrastive_bounds.numerics.langevin import EnergyBelow, SimulationConfig, langevin_kernel
      >>> from contrastive_bounds.theory import make_schedule
      >>> land = get_landscape("double-well")
      >>> kernel = langevin_kernel(land, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.02)
      >>> config = SimulationConfig(num_steps=200, seed=0, target=EnergyBelow(land.v_min + 0.5))
      >>> result = simulate(kernel, np.tile([[[-1.0, 0.0]]], (16, 1, 1)), config)
      >>> result.t_end, result.step_path, int(result.hit.sum())     # chains that reached V < -1 by t = 4
      (4.0, 'circle', 13)
    """
    options = DriverOptions() if options is None else options
    if not isinstance(config, SimulationConfig):
        raise TypeError(f"config={config!r} must be a SimulationConfig(num_steps=..., seed=..., ...)")
    if not isinstance(options, DriverOptions):
        raise TypeError(f"options={options!r} must be a DriverOptions(...) or None")
    num_steps, seed, t_start, record_every = config.num_steps, config.seed, config.t_start, config.record_every
    target, basins = config.target, config.basins
    if options.stop_after_steps is not None and options.stop_after_steps > num_steps:
        raise ValueError(f"stop_after_steps={options.stop_after_steps} is outside its domain [1, num_steps={num_steps}]")
    ckpt = check_checkpoint_path(options.checkpoint) if options.checkpoint is not None else None
    pos = arguments.check_positions(positions)
    arguments.check_arcs(config, pos.shape)
    path = choose_step_path(kernel, options.step_path)
    chains = pos.shape[0]
    devices = len(jax.devices())
    if options.shard_chains is None:
        num_shards = default_shards(chains, devices)
    else:
        num_shards = devices if options.shard_chains else 1
        if num_shards > 1 and chains % num_shards:
            raise ValueError(f"chains={chains} must be divisible by the device count {num_shards} when shard_chains=True")
    prng = default_prng_impl(pos.dtype) if options.prng_impl is None else options.prng_impl

    h = kernel.step_size
    t_end = t_start + num_steps * h
    for note in arguments.step_warnings(kernel, arguments.check_temperatures(kernel, t_start, t_end, pos.dtype)):
        warnings.warn(note, StepSizeWarning, stacklevel=2)
    fingerprint = ckpt_io.run_fingerprint(kernel_description=kernel.description, positions=pos, num_steps=num_steps,
                                          seed=seed, t_start=t_start, record_every=record_every, prng_impl=prng,
                                          shards=num_shards, target=target, basins=basins,
                                          step_path=None if path == default_step_path(kernel) else path)

    carry, trace_parts = None, []
    if ckpt is not None and options.resume and ckpt.exists():
        carry, trace = ckpt_io.load_checkpoint(ckpt, fingerprint)
        trace_parts.append(trace)
        if options.progress:  # said once the checkpoint was accepted (its fingerprint matched), beside the bar
            k = int(carry.step)
            print(f"resuming the run saved in {ckpt} at step {k:,} of {num_steps:,}" if k < num_steps else
                  f"the run saved in {ckpt} had finished (step {k:,} of {num_steps:,}): reporting it", file=sys.stderr,
                  flush=True)
    if carry is None:
        carry = initial_carry(kernel, jnp.asarray(pos), target, basins, t_start)
        trace_parts.append(np.zeros((0, chains), pos.dtype))
    carry = place_carry(carry, num_shards)
    key = noise_key(seed, prng)
    t0 = jnp.asarray(t_start, pos.dtype)
    temps = jnp.asarray(kernel.temperature_data(pos.dtype))
    stop = num_steps if options.stop_after_steps is None else options.stop_after_steps
    steps_at_start = int(carry.step)
    itemsize = pos.dtype.itemsize
    cost0 = initial_step_cost(path, itemsize, pos.shape[1], pos.shape[2]) / num_shards
    pacer = ChunkPacer(chains=chains, record_every=record_every, start_step=steps_at_start, step_cost=cost0,
                       seconds=options.chunk_seconds, chunk_steps=options.chunk_steps)

    def compiled(unit: int):
        rows = buffer_units(-(-(stop - steps_at_start) // unit), chains, itemsize)
        return chunk_fn(kernel, path, target, basins, unit, rows, options.unroll, prng == FUSED, num_shards), rows

    fn, max_units = compiled(pacer.unit)

    def result(carry: Carry, wall: float) -> SimulationResult:
        steps_done = int(carry.step)
        trace = np.concatenate(trace_parts, axis=0)
        return SimulationResult(
            positions=np.asarray(carry.state.position), potential=np.asarray(carry.state.potential),
            running_min=np.asarray(carry.running_min), hit_time=np.asarray(carry.hit_time),
            occupancy=np.asarray(carry.occupancy, np.float64) / max(steps_done, 1),
            final_basin=final_labels(basins, carry.state), escapes=np.asarray(carry.escapes), energy_trace=trace,
            record_times=t_start + h * record_every * np.arange(1, trace.shape[0] + 1, dtype=np.float64),
            steps_done=steps_done, num_steps=num_steps, step_size=h, t_start=t_start, t_end=t_start + steps_done * h,
            wall_time=wall, chain_steps_per_second=(steps_done - steps_at_start) * chains / max(wall, 1e-12),
            dtype=str(pos.dtype), seed=seed, config=json.loads(fingerprint), step_path=path)

    bar, task = _progress_bar(num_steps, steps_at_start) if options.progress else (None, None)
    start = last_save = time.perf_counter()
    done, interrupted = steps_at_start, False
    try:
        with deferred_interrupts() as flag, warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
            while done < stop and not flag.raised:
                unit = pacer.unit
                n = pacer.next_units(stop - done, max_units)
                began = time.perf_counter()
                carry, potentials = fn(carry, key, t0, jnp.asarray(n, jnp.int32), temps)
                potentials = np.asarray(potentials)[:n]
                pacer.record(n, time.perf_counter() - began)
                if not np.all(np.isfinite(potentials)):
                    arguments.raise_non_finite(kernel, done, done + n * unit, t_start, pos.dtype)
                ends = done + unit * np.arange(1, n + 1)
                trace_parts.append(potentials[ends % record_every == 0])
                done = int(ends[-1])
                now = time.perf_counter()
                if ckpt is not None and (done >= stop or flag.raised or now - last_save >= options.checkpoint_seconds):
                    ckpt_io.save_checkpoint(ckpt, carry, np.concatenate(trace_parts, axis=0), fingerprint)
                    last_save = now
                if bar is not None:
                    rate = (done - steps_at_start) * chains / max(now - start, 1e-9)
                    bar.update(task, completed=done, rate=f"{rate:.3g} chain-steps/s")
                if pacer.retune(done):
                    fn, max_units = compiled(pacer.unit)
            interrupted, flag.raised = flag.raised, False  # taken: it becomes SimulationInterrupted below
    finally:
        if bar is not None:
            bar.stop()
    jax.block_until_ready(carry)
    res = result(carry, time.perf_counter() - start)
    note_run(res.config, chains, res.steps_done - steps_at_start)
    if interrupted:  # (also when the interrupted chunk was the last: the result is then complete)
        raise SimulationInterrupted(res, ckpt, carry, np.concatenate(trace_parts, axis=0), fingerprint)
    return res
