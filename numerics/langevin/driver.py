"""Chunked driver for many Langevin chains: observables, progress, atomic checkpoints, resume.

:func:`simulate` runs ``chains × num_steps`` steps of a :class:`.langevin.LangevinKernel` with
``lax.scan`` inside a jitted chunk (compiled once per chunk shape: at most two shapes per run, the
full chunk and the last, shorter one). Between chunks it updates a rich progress bar and writes a
checkpoint atomically (temp file + ``os.replace``). It returns observables, not trajectories:

* ``energy_trace``: V of every chain every ``record_every`` steps, shape ``(num_records, chains)``;
* ``running_min``: min over the run of V per chain (the initial state included);
* ``hit_time``: first continuous time at which a chain is in ``target`` (``inf`` if never), the
  initial state included (a chain that starts inside has hit time ``t_start``);
* ``occupancy``: fraction of the steps that each chain ended inside each of ``basins``;
* ``final_basin`` and ``escapes``: the basin label at the end and the number of moves between
  distinct basins (an excursion outside every basin that returns to the same basin is not counted);
* the final positions and energies.

Randomness: the noise of step k for all chains is ``normal(fold_in(key(seed), k))`` (default), or
:func:`fused_normals` (element, k) for ``prng_impl="fused-threefry"`` (steps 2p and 2p + 1 share one
Box–Muller pair of independent normals, drawn a block of pairs at a time), so the noise depends only
on (seed, PRNG implementation, k, element, and the device count when ``shard_chains``). Results do
not depend on ``chunk_steps`` or on interruptions: a resumed run is bit-identical to an uninterrupted
one on the same platform. A different ``record_every`` compiles a different loop, so results may then
differ by floating-point rounding (the same noise, XLA may fuse the arithmetic differently).

Speed (CPU): S¹ Fourier landscapes step all chains as complex numbers
(:meth:`.langevin.LangevinKernel.step_circle`; V and V'(θ) of the state are refreshed once per
record, the running minimum etc. use V at every step); other kernels whose landscape evaluates on
trailing batch axes (U0) step all chains at once in the chains-last layout
(:meth:`.langevin.LangevinKernel.step_chains_last`); either way a step is one or two elementwise
loops with no stack/concatenate (XLA:CPU compiles those to scalar code) and a vectorised rsqrt
(:mod:`.fastmath`). The fused generator makes the noise several times cheaper than
``jax.random.normal``; chunks are compiled with 512-bit vectors on CPU (:func:`_compiler_options`);
``shard_chains`` uses one thread per (host) device. Figures: ``benchmarks/README.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_int, check_seed, check_real

from contrastive_bounds.numerics.filemode import ensure_writable_parent, publish_mode
from contrastive_bounds.numerics.langevin.fused_rng import fused_normal_pairs, fused_normals
from contrastive_bounds.numerics.langevin.kernel import LangevinKernel, LangevinState, StepSizeWarning
from contrastive_bounds.numerics.precision import require_x64

__all__ = ["EnergyBelow", "Arc", "SimulationResult", "simulate", "default_record_every", "fused_normals",
           "fused_normal_pairs"]

PRNG_IMPLS = ("threefry2x32", "rbg", "unsafe_rbg", "fused-threefry")
_TWO_PI = 2.0 * math.pi
_PAIR_BLOCK = 16  # at most this many Box–Muller pairs (32 steps) drawn ahead
_PAIR_BLOCK_ELEMENTS = 1 << 15  # ... and at most this many complex numbers (256 KB in complex64)


@dataclass(frozen=True)
class EnergyBelow:
    """Target set {V < level} (e.g. level = V_min + delta). Callable ``(position, potential) -> bool``."""

    level: float

    def __post_init__(self) -> None:
        check_real("level", self.level)

    def __call__(self, position: jax.Array, potential: jax.Array) -> jax.Array:
        return potential < self.level

    def describe(self) -> str:
        return f"V < {self.level!r}"


@dataclass(frozen=True)
class Arc:
    """Target set on S¹ (N = 1, d = 2): θ in the arc from ``theta_lo`` counter-clockwise to ``theta_hi``.

    θ = atan2(z[0, 1], z[0, 0]); angles in radians, any real values; the arc's length
    (theta_hi − theta_lo) must lie in (0, 2π]. Example: the basin of θ = π of ``double-well`` is
    ``Arc(theta_s, 2π − theta_s)`` with cos θ_s = −1/8.
    """

    theta_lo: float
    theta_hi: float

    def __post_init__(self) -> None:
        check_real("theta_lo", self.theta_lo)
        check_real("theta_hi", self.theta_hi)
        width = self.theta_hi - self.theta_lo
        if not (0.0 < width <= _TWO_PI):
            raise ValueError(
                f"theta_hi - theta_lo={width!r} is outside its domain (0, 2*pi]; give theta_hi > theta_lo"
            )

    def __call__(self, position: jax.Array, potential: jax.Array) -> jax.Array:
        # No atan2: z lies in the arc iff its angle to the arc's midpoint is below half the width,
        # i.e. z . u_mid > cos(width / 2) (exact up to rounding at the two end points).
        half = 0.5 * (self.theta_hi - self.theta_lo)
        mid = self.theta_lo + half
        if half >= math.pi:
            return jnp.ones((), bool)
        dot = position[0, 0] * math.cos(mid) + position[0, 1] * math.sin(mid)
        return dot > math.cos(half)

    def describe(self) -> str:
        return f"theta in [{self.theta_lo!r}, {self.theta_hi!r}] (mod 2pi)"


class _Carry(NamedTuple):
    state: LangevinState  # batched: position (chains, N, d)
    step: jax.Array  # () int32: steps done
    running_min: jax.Array  # (chains,)
    hit_time: jax.Array  # (chains,), inf = not yet
    occupancy: jax.Array  # (chains, num_basins) int32 step counts
    last_basin: jax.Array  # (chains,) int32, -1 = none yet
    escapes: jax.Array  # (chains,) int32


@dataclass
class SimulationResult:
    """Observables of a run (numpy arrays; ``chains`` leading where per chain).

    Attributes:
      positions: ``(chains, N, d)`` final states; potential: ``(chains,)`` final V.
      running_min: ``(chains,)``; hit_time: ``(chains,)`` (``inf``: not hit by ``t_end``).
      occupancy: ``(chains, num_basins)`` fractions of steps in each basin; final_basin:
        ``(chains,)`` int (−1: in none); escapes: ``(chains,)`` int.
      energy_trace: ``(num_records, chains)``; record_times: ``(num_records,)`` continuous times.
      steps_done / num_steps: progress (``complete`` iff equal); t_start, t_end (time reached).
      wall_time: seconds spent in this call; chain_steps_per_second: throughput of this call
        (including compilation). dtype: ``"float32"``/``"float64"``. config: the run's fingerprint.
    """

    positions: np.ndarray
    potential: np.ndarray
    running_min: np.ndarray
    hit_time: np.ndarray
    occupancy: np.ndarray
    final_basin: np.ndarray
    escapes: np.ndarray
    energy_trace: np.ndarray
    record_times: np.ndarray
    steps_done: int
    num_steps: int
    step_size: float
    t_start: float
    t_end: float
    wall_time: float
    chain_steps_per_second: float
    dtype: str
    seed: int
    config: dict = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Whether all ``num_steps`` steps were run."""
        return self.steps_done == self.num_steps

    @property
    def hit(self) -> np.ndarray:
        """``(chains,)`` bool: the chain reached the target by ``t_end``."""
        return np.isfinite(self.hit_time)

    @property
    def chains(self) -> int:
        return int(self.positions.shape[0])


def default_record_every(num_steps: int, records: int = 100) -> int:
    """Largest divisor of ``num_steps`` not above ``num_steps // records`` (at least 1)."""
    target = max(1, num_steps // records)
    for r in range(target, 0, -1):
        if num_steps % r == 0:
            return r
    return 1


def _basin_label(basins: tuple, position: jax.Array, potential: jax.Array) -> jax.Array:
    label = jnp.asarray(-1, jnp.int32)
    for i in reversed(range(len(basins))):
        label = jnp.where(basins[i](position, potential), jnp.asarray(i, jnp.int32), label)
    return label


# Inside jitted chunks the batched state is kept "chains-last": position and grad (N, d, chains),
# potential (chains,), so elementwise work runs over contiguous chains (vectorises well on CPU).
# Outside (initial positions, checkpoints, results) the public layout is chains-first (chains, N, d).


def _to_chains_last(state: LangevinState) -> LangevinState:
    return LangevinState(jnp.moveaxis(state.position, 0, -1), state.potential, jnp.moveaxis(state.grad, 0, -1))


def _to_chains_first(state: LangevinState) -> LangevinState:
    return LangevinState(jnp.moveaxis(state.position, -1, 0), state.potential, jnp.moveaxis(state.grad, -1, 0))


def _to_circle(kernel: LangevinKernel, state: LangevinState) -> LangevinState:
    """Chains-first S¹ state (position (chains, 1, 2)) -> the complex state of :meth:`LangevinKernel.step_circle`."""
    return kernel.circle_state(jax.lax.complex(state.position[:, 0, 0], state.position[:, 0, 1]))


def _circle_to_real(w: jax.Array) -> jax.Array:
    """Complex positions (chains,) -> real chains-last positions (1, 2, chains)."""
    return jnp.stack([w.real, w.imag])[None]


def _from_circle(state: LangevinState) -> LangevinState:
    """Inverse of :func:`_to_circle`; the gradient is V'(θ)·(−z₁, z₀) as the landscapes give it."""
    x, y = state.position.real, state.position.imag
    position = jnp.stack([x, y], axis=-1)[:, None, :]
    grad = jnp.stack([-y * state.grad, x * state.grad], axis=-1)[:, None, :]
    return LangevinState(position, state.potential, grad)


def _label_fn(basins: tuple):
    return jax.vmap(lambda p, v: _basin_label(basins, p, v), in_axes=(-1, -1))


def _compiler_options() -> dict[str, Any]:
    """XLA options for the chunk (CPU only): 512-bit vectors where the CPU has AVX-512 (XLA:CPU
    prefers 256 by default; on this project's machine 512 makes the Threefry hash and the step
    1.3-1.7x faster, see benchmarks/README.md; ignored by CPUs without AVX-512)."""
    return {"xla_cpu_prefer_vector_width": 512} if jax.default_backend() == "cpu" else {}


@lru_cache(maxsize=64)
def _chunk_fn(kernel: LangevinKernel, target: Any, basins: tuple, record_every: int, unroll: int, fused_rng: bool = False,
              num_shards: int = 1):
    """Jitted chunk ``(carry, key, t_start, n_records) -> (carry, energies (n_records, chains))``.

    ``key`` is a JAX key, or for ``fused_rng`` the uint32 (2,) words of the seed (:func:`fused_normals`).
    Kernels that support it step all chains at once (:meth:`LangevinKernel.step_chains_last`);
    others go through ``vmap`` of :meth:`LangevinKernel.step_with_noise`. With ``num_shards > 1``
    the chains are split over that many devices by ``shard_map`` (mesh axis ``"chains"``); shard j
    draws its noise from ``fold_in(fold_in(key, k), j)`` (or counters offset by j for ``fused_rng``).
    """
    circle = kernel.supports_circle
    if circle:
        step_v = kernel.step_circle
    elif kernel.supports_chains_last:
        step_v = kernel.step_chains_last
    else:
        step_v = jax.vmap(kernel.step_with_noise, in_axes=(-1, -1, None), out_axes=-1)
    # targets and basins see the public position (N, d) of each chain (chains-last here)
    public = _circle_to_real if circle else (lambda p: p)
    label_v = _label_fn(basins)
    label_v = (lambda p, v, f=label_v: f(public(p), v)) if circle else label_v
    target_v = None if target is None else jax.vmap(target, in_axes=(-1, -1))
    if circle and target_v is not None:
        target_v = lambda p, v, f=target_v: f(public(p), v)  # noqa: E731
    num_basins = len(basins)
    to_inner = (lambda st: _to_circle(kernel, st)) if circle else _to_chains_last
    to_outer = _from_circle if circle else _to_chains_first

    def noise_shape_of(carry: _Carry) -> tuple[int, ...]:
        if circle:
            return carry.state.position.shape  # (chains,): one tangent normal per chain
        n, d, chains = carry.state.position.shape
        return kernel.noise_shape((n, d)) + (chains,)

    def observe(carry: _Carry, potential: jax.Array, k: jax.Array, t_new: jax.Array) -> _Carry:
        """Observables after step k (carry.state holds the new position): running min, hit time,
        basin occupancy and escapes; ``potential`` is V at the new position (chains,)."""
        position = carry.state.position
        running_min = jnp.minimum(carry.running_min, potential)
        hit_time = carry.hit_time
        if target_v is not None:
            inside = target_v(position, potential)
            hit_time = jnp.where(jnp.isinf(hit_time) & inside, t_new, hit_time)
        occupancy, last, escapes = carry.occupancy, carry.last_basin, carry.escapes
        if num_basins:
            lab = label_v(position, potential)
            occupancy = occupancy + (lab[:, None] == jnp.arange(num_basins, dtype=jnp.int32)[None, :]).astype(
                jnp.int32
            )
            moved = (lab >= 0) & (last >= 0) & (lab != last)
            escapes = escapes + moved.astype(jnp.int32)
            last = jnp.where(lab >= 0, lab, last)
        return carry._replace(step=k + 1, running_min=running_min, hit_time=hit_time, occupancy=occupancy,
                              last_basin=last, escapes=escapes)

    def advance_generic(carry: _Carry, noise: jax.Array, t_start: jax.Array) -> _Carry:
        """One step of all chains with the given standard normal ``noise`` (noise_shape_of(carry))."""
        state = carry.state
        dtype = state.potential.dtype
        h = jnp.asarray(kernel.step_size, dtype)
        k = carry.step
        new = step_v(state, noise, t_start + k.astype(dtype) * h)
        return observe(carry._replace(state=new), new.potential, k, t_start + (k + 1).astype(dtype) * h)

    def advance_circle(carry: _Carry, noise: jax.Array, t_start: jax.Array) -> _Carry:
        """The same on the complex S¹ state; its potential/grad are refreshed once per record (refresh)."""
        dtype = carry.state.potential.dtype
        h = jnp.asarray(kernel.step_size, dtype)
        k = carry.step
        w = kernel.step_circle(carry.state.position, noise, t_start + k.astype(dtype) * h)
        w = jax.lax.optimization_barrier(w)  # V below reads the new positions instead of redoing the step
        value, _ = kernel.circle_value_and_derivative(w.real, w.imag)
        return observe(carry._replace(state=carry.state._replace(position=w)), value, k,
                       t_start + (k + 1).astype(dtype) * h)

    advance = advance_circle if circle else advance_generic

    def refresh(carry: _Carry) -> _Carry:
        return carry._replace(state=kernel.circle_state(carry.state.position)) if circle else carry

    def one_step(carry: _Carry, key: jax.Array, t_start: jax.Array) -> _Carry:
        step_key = jax.random.fold_in(key, carry.step)
        if num_shards > 1:
            step_key = jax.random.fold_in(step_key, jax.lax.axis_index("chains"))
        noise = jax.random.normal(step_key, noise_shape_of(carry), carry.state.potential.dtype)
        return advance(carry, noise, t_start)

    # --- fused generator: steps 2p and 2p+1 take the real and imaginary part of one Box–Muller
    # pair (fused_normal_pairs). The pairs of a block are drawn by one kernel ahead of the steps
    # that use them: a loop boundary, so XLA computes every hash once instead of fusing the hash
    # into each consumer of the noise.
    def fused_offset(shape: tuple[int, ...]) -> Any:
        if num_shards > 1:
            return jax.lax.axis_index("chains").astype(jnp.uint32) * jnp.uint32(math.prod(shape))
        return 0

    def fused_single(carry: _Carry, key: jax.Array, t_start: jax.Array) -> _Carry:
        shape = noise_shape_of(carry)
        noise = fused_normals(key, carry.step.astype(jnp.uint32), shape, carry.state.potential.dtype, fused_offset(shape))
        return advance(carry, noise, t_start)

    def fused_pairs(carry: _Carry, key: jax.Array, t_start: jax.Array, npairs: int) -> _Carry:
        """2·npairs steps from an even step index."""
        shape = noise_shape_of(carry)
        dtype = carry.state.potential.dtype
        block = max(1, min(npairs, _PAIR_BLOCK, _PAIR_BLOCK_ELEMENTS // max(1, math.prod(shape))))
        n_blocks, rest = divmod(npairs, block)

        def run_block(c: _Carry, size: int) -> _Carry:
            first = (c.step >> 1).astype(jnp.uint32)
            noise = fused_normal_pairs(key, first + jnp.arange(size, dtype=jnp.uint32), shape, dtype,
                                       fused_offset(shape))

            def one(c2: _Carry, j: jax.Array):  # step 2p + b of the block: part b of pair p
                e = jax.lax.dynamic_index_in_dim(noise, j >> 1, keepdims=False)
                return advance(c2, jnp.where((j & 1) == 1, e.imag, e.real), t_start), None

            # one step per iteration (two steps per iteration made XLA redo the first step's arithmetic)
            c, _ = jax.lax.scan(one, c, jnp.arange(2 * size, dtype=jnp.int32), unroll=max(1, min(unroll, 2 * size)))
            return c

        if n_blocks:
            carry, _ = jax.lax.scan(lambda c, _: (run_block(c, block), None), carry, None, length=n_blocks)
        if rest:
            carry = run_block(carry, rest)
        return carry

    def record(carry: _Carry, key: jax.Array, t_start: jax.Array):
        if not fused_rng:
            def body(c, _):
                return one_step(c, key, t_start), None

            carry, _ = jax.lax.scan(body, carry, None, length=record_every,
                                    unroll=max(1, min(unroll, record_every)))
        elif record_every % 2 == 0:  # every record then starts at an even step (steps start at 0)
            carry = fused_pairs(carry, key, t_start, record_every // 2)
        else:
            half = record_every // 2

            def from_even(c: _Carry) -> _Carry:
                return fused_single(fused_pairs(c, key, t_start, half), key, t_start)

            def from_odd(c: _Carry) -> _Carry:
                return fused_pairs(fused_single(c, key, t_start), key, t_start, half)

            carry = jax.lax.cond(carry.step % 2 == 1, from_odd, from_even, carry)
        carry = refresh(carry)
        return carry, carry.state.potential

    def chunk(carry: _Carry, key: jax.Array, t_start: jax.Array, n_records: int):
        carry = carry._replace(state=to_inner(carry.state))
        carry, energies = jax.lax.scan(lambda c, _: record(c, key, t_start), carry, None, length=n_records)
        return carry._replace(state=to_outer(carry.state)), energies

    if num_shards == 1:
        return jax.jit(chunk, static_argnums=3, donate_argnums=0, compiler_options=_compiler_options())
    from jax.sharding import Mesh, PartitionSpec as P

    mesh = Mesh(np.asarray(jax.devices()[:num_shards]), ("chains",))
    c = P("chains")
    carry_spec = _Carry(LangevinState(c, c, c), P(), c, c, c, c, c)

    def sharded(carry: _Carry, key: jax.Array, t_start: jax.Array, n_records: int):
        body = lambda cr, k, t: chunk(cr, k, t, n_records)  # noqa: E731
        return jax.shard_map(body, mesh=mesh, in_specs=(carry_spec, P(), P()),
                             out_specs=(carry_spec, P(None, "chains")))(carry, key, t_start)

    return jax.jit(sharded, static_argnums=3, donate_argnums=0, compiler_options=_compiler_options())


def _initial_carry(kernel: LangevinKernel, positions: jax.Array, target: Any, basins: tuple, t_start) -> _Carry:
    state = jax.vmap(kernel.init)(positions)
    chains = positions.shape[0]
    dtype = positions.dtype
    hit = jnp.full((chains,), jnp.inf, dtype)
    if target is not None:
        inside = jax.vmap(target)(state.position, state.potential)
        hit = jnp.where(inside, jnp.asarray(t_start, dtype), hit)
    if basins:
        lab = jax.vmap(lambda p, v: _basin_label(basins, p, v))(state.position, state.potential)
    else:
        lab = jnp.full((chains,), -1, jnp.int32)
    return _Carry(
        state=state,
        step=jnp.asarray(0, jnp.int32),
        running_min=jnp.array(state.potential, copy=True),
        hit_time=hit,
        occupancy=jnp.zeros((chains, len(basins)), jnp.int32),
        last_basin=lab,
        escapes=jnp.zeros((chains,), jnp.int32),
    )


_CARRY_FIELDS = ("running_min", "hit_time", "occupancy", "last_basin", "escapes")
_CHECKPOINT_KEYS = ("fingerprint", "position", "potential", "grad", "step", "energy_trace") + _CARRY_FIELDS


def _save_checkpoint(path: Path, carry: _Carry, trace: np.ndarray, fingerprint: str) -> None:
    """Write the run state to ``path`` atomically (temp file in the same folder + os.replace).

    The file gets ``0o666 & ~umask`` like any ``open(path, "w")``, not mkstemp's private 0600
    (tester3 #12)."""
    arrays = {
        "position": np.asarray(carry.state.position),
        "potential": np.asarray(carry.state.potential),
        "grad": np.asarray(carry.state.grad),
        "step": np.asarray(carry.step),
        "energy_trace": trace,
        "fingerprint": np.asarray(fingerprint),
    }
    for name in _CARRY_FIELDS:
        arrays[name] = np.asarray(getattr(carry, name))
    if path.is_dir():
        raise ValueError(f"checkpoint={str(path)!r} is a folder; give a file path such as {str(path / 'run.npz')!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
            fh.flush()
            publish_mode(tmp)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _unreadable_checkpoint(path: Path, reason: str) -> ValueError:
    return ValueError(
        f"checkpoint={str(path)!r} is not a readable checkpoint of this toolkit ({reason}); "
        "resume=False or another checkpoint path starts the run over"
    )


def _read_checkpoint_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array of the checkpoint file, read eagerly; ValueError naming checkpoint= on any read error.

    numpy's own messages are not passed on: for a non-npz file it suggests ``allow_pickle=True``,
    i.e. loading an untrusted file unsafely (tester3 #7)."""
    import zipfile

    not_npz = "not an .npz archive written by simulate, or damaged/truncated"
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        raise _unreadable_checkpoint(path, not_npz) from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise _unreadable_checkpoint(path, not_npz)
    with data:
        missing = [k for k in _CHECKPOINT_KEYS if k not in data.files]
        if missing:
            raise _unreadable_checkpoint(path, f"missing array {missing[0]!r}")
        try:
            return {k: np.asarray(data[k]) for k in _CHECKPOINT_KEYS}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile):
            raise _unreadable_checkpoint(path, not_npz) from None


def _validate_checkpoint_arrays(path: Path, arrays: dict[str, np.ndarray], config: dict) -> None:
    """Shapes, dtypes, step and finiteness of a checkpoint whose fingerprint matches ``config``."""
    chains, n, d = config["shape"]
    dtype = np.dtype(config["dtype"])
    num_basins = len(config["basins"])
    step_arr = arrays["step"]
    if step_arr.shape != () or step_arr.dtype != np.int32:
        raise _unreadable_checkpoint(path, f"'step' must be an integer scalar, got {step_arr.dtype} {step_arr.shape}")
    step = int(step_arr)
    if not (0 <= step <= config["num_steps"] and step % config["record_every"] == 0):
        raise _unreadable_checkpoint(
            path, f"step={step} is not a multiple of record_every={config['record_every']} in [0, {config['num_steps']}]"
        )
    expected = {
        "position": ((chains, n, d), "f"), "potential": ((chains,), "f"), "grad": ((chains, n, d), "f"),
        "energy_trace": ((step // config["record_every"], chains), "f"), "running_min": ((chains,), "f"),
        "hit_time": ((chains,), "f"), "occupancy": ((chains, num_basins), "i"), "last_basin": ((chains,), "i"),
        "escapes": ((chains,), "i"),
    }
    for name, (shape, kind) in expected.items():
        a = arrays[name]
        if a.shape != shape:
            raise _unreadable_checkpoint(path, f"{name!r} has shape {a.shape}, the run needs {shape}")
        if kind == "f" and a.dtype != dtype:
            raise _unreadable_checkpoint(path, f"{name!r} has dtype {a.dtype}, the run needs {dtype}")
        if kind == "i" and a.dtype != np.int32:
            raise _unreadable_checkpoint(path, f"{name!r} has dtype {a.dtype}, the run needs int32")
        # hit_time = inf means "not hit yet"; everything else must be finite
        bad = np.isnan(a) if name == "hit_time" else (~np.isfinite(a) if kind == "f" else np.zeros(a.shape, bool))
        if np.any(bad):
            raise _unreadable_checkpoint(path, f"{name!r} has NaN or inf")
    if np.any(arrays["occupancy"] < 0) or np.any(arrays["escapes"] < 0) or np.any(arrays["occupancy"] > step):
        raise _unreadable_checkpoint(path, "negative or too large step counts in 'occupancy'/'escapes'")
    if np.any(arrays["last_basin"] < -1) or np.any(arrays["last_basin"] >= num_basins):
        raise _unreadable_checkpoint(path, f"'last_basin' outside [-1, {num_basins - 1}]")
    norm_err = float(np.max(np.abs(np.linalg.norm(arrays["position"].astype(np.float64), axis=-1) - 1.0)))
    if norm_err > (1e-3 if dtype == np.float32 else 1e-6):
        raise _unreadable_checkpoint(path, f"'position' is off the sphere by {norm_err:.3g}")


def _fingerprint_difference(found: str, wanted: str, limit: int = 3) -> str:
    """Which settings differ between a checkpoint's fingerprint and this run's: ``"shards: 2 in the
    checkpoint, 1 now"`` (at most ``limit`` keys, values shortened); a generic phrase if unparsable."""
    try:
        a, b = json.loads(found), json.loads(wanted)
    except (ValueError, TypeError):
        return "unreadable fingerprint"
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return "unreadable fingerprint"

    def short(v: Any) -> str:
        text = json.dumps(v)
        return text if len(text) <= 60 else text[:57] + "..."

    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    parts = [f"{k}: {short(a.get(k))} in the checkpoint, {short(b.get(k))} now" for k in keys[:limit]]
    more = f"; and {len(keys) - limit} more" if len(keys) > limit else ""
    return "; ".join(parts) + more if parts else "same settings, different encoding"


def _load_checkpoint(path: Path, fingerprint: str) -> tuple[_Carry, np.ndarray]:
    """Read a checkpoint of the run ``fingerprint`` (a JSON object of the run's configuration).

    Raises:
      ValueError: naming ``checkpoint=``, when the file is not a readable checkpoint of this toolkit
        (not an npz, empty, truncated, missing arrays, wrong shapes/dtypes, NaN/inf, a step outside
        the run) or belongs to a different run (tester3 #7).
    """
    arrays = _read_checkpoint_arrays(path)
    found = arrays["fingerprint"]
    if found.shape != () or found.dtype.kind != "U":
        raise _unreadable_checkpoint(path, "'fingerprint' is not a string")
    if str(found) != fingerprint:
        raise ValueError(
            f"checkpoint={str(path)!r} belongs to a different run (its configuration differs: "
            f"{_fingerprint_difference(str(found), fingerprint)}); use another path or resume=False"
        )
    _validate_checkpoint_arrays(path, arrays, json.loads(fingerprint))
    state = LangevinState(jnp.asarray(arrays["position"]), jnp.asarray(arrays["potential"]), jnp.asarray(arrays["grad"]))
    carry = _Carry(state, jnp.asarray(arrays["step"]), *(jnp.asarray(arrays[name]) for name in _CARRY_FIELDS))
    return carry, np.array(arrays["energy_trace"])


def _raise_non_finite(kernel: LangevinKernel, first: int, last: int, t_start: float, dtype: Any) -> None:
    """The energies of a chunk are not finite: the step overflowed. Raise a ValueError that names the
    step size and the temperature instead of returning NaN positions."""
    h = kernel.step_size
    temps = np.asarray(kernel.temperature_fn(jnp.asarray(t_start + h * np.array([first, last]), dtype)))
    raise ValueError(
        f"the run left the {np.dtype(dtype).name} range between steps {first} and {last} (non-finite energy): "
        f"step_size={h!r}, temperature {float(temps[0]):.3g} .. {float(temps[1]):.3g}; the increment "
        f"h*grad V + sqrt(2*T*h)*xi overflowed: use a smaller step_size (or temperature)"
    )


def _check_temperatures(kernel: LangevinKernel, t_start: float, t_end: float, dtype: Any) -> float:
    """Refuse a schedule that is not finite and > 0 on [t_start, t_end] (C12); return the largest
    temperature seen on a 1 025-point grid of that span."""
    spec = kernel.temperature_spec
    validate = getattr(spec, "validate_range", None)
    if callable(validate):
        validate(t_start, t_end)
    grid = jnp.asarray(np.linspace(t_start, t_end, 1025), dtype)
    temps = np.asarray(kernel.temperature_fn(grid))
    bad = ~(np.isfinite(temps) & (temps > 0))
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(
            f"temperature(t={float(grid[i])!r})={float(temps[i])!r} is not finite and > 0 on the run's "
            f"time span [{t_start!r}, {t_end!r}] (C12); shift the schedule (t0) or start later"
        )
    return float(np.max(temps))


def _step_warnings(kernel: LangevinKernel, max_temperature: float) -> list[str]:
    """Why the step is too coarse to mean anything (warned, not refused: the run is still defined).

    Curvature: :meth:`.LangevinKernel.step_size_warning`. Noise: one step moves a chain by about
    ``sqrt(2·T·h)`` radians along the sphere; above 1 rad the position after a step is nearly
    uniform whatever the landscape (the Euler–Maruyama step of Langevin dynamics needs
    ``sqrt(2Th)`` small, e.g. Kloeden & Platen, 1992, §9.8)."""
    notes = []
    curvature = kernel.step_size_warning()
    if curvature is not None:
        notes.append(curvature)
    move = math.sqrt(2.0 * max_temperature * kernel.step_size)
    if move > 1.0:
        notes.append(f"step_size={kernel.step_size:g} at temperature up to {max_temperature:.3g}: one step's noise "
                     f"sqrt(2*T*h) = {move:.3g} rad > 1, so each step nearly randomises the position and the results "
                     f"may be meaningless; use step_size < {0.5 / max_temperature:.3g}")
    return notes


def simulate(
    kernel: LangevinKernel,
    positions: Any,
    *,
    num_steps: int,
    seed: int,
    t_start: float = 0.0,
    record_every: int | None = None,
    chunk_steps: int = 100_000,
    target: Any = None,
    basins: Sequence[Any] = (),
    progress: bool = False,
    checkpoint: str | os.PathLike | None = None,
    resume: bool = False,
    stop_after_steps: int | None = None,
    prng_impl: str = "threefry2x32",
    unroll: int = 1,
    shard_chains: bool = False,
) -> SimulationResult:
    """Run ``chains × num_steps`` steps of ``kernel`` and return observables.

    Args:
      kernel: a :class:`.langevin.LangevinKernel` (reuse the same object to reuse compiled chunks).
      positions: initial states, shape ``(chains, N, d)``, float32 or float64, on the sphere. The
        dtype of the run is the dtype of ``positions`` (float64 requires JAX x64 on).
      num_steps: number of steps ≥ 1; the run covers [t_start, t_start + num_steps·h].
      seed: integer in [0, 2**32 - 1]; the noise of step k is ``normal(fold_in(key(seed, impl), k))``.
      t_start: continuous time of the initial state (≥ 0); the schedule is evaluated at
        t_start + k·h. Schedules are validated on [t_start, t_end] first (C12).
      record_every: steps between entries of ``energy_trace`` (must divide num_steps); default
        :func:`default_record_every` (about 100 records).
      chunk_steps: steps per jitted chunk (rounded down to a multiple of record_every; ≥ one record).
      target: ``None``, :class:`EnergyBelow`, :class:`Arc`, or any hashable pure predicate
        ``(position (N, d), potential ()) -> bool``; its first hitting time is recorded.
      basins: a sequence of such predicates (first match wins) for occupancy and escape counts.
      progress: show a rich progress bar between chunks.
      checkpoint: file path (``.npz``) written atomically after every chunk (mode ``0o666 & ~umask``).
      resume: continue from ``checkpoint`` if it exists (its configuration must match; otherwise
        ValueError); a missing file starts the run. The result is bit-identical to an uninterrupted
        run. ``resume=True`` needs ``checkpoint``.
      stop_after_steps: stop (after the chunk that reaches it) once this many steps of the run are
        done in total; the result then has ``complete == False`` (for time-boxed jobs, and tests).
      prng_impl: ``"threefry2x32"`` (default: ``jax.random.normal``), ``"rbg"``, ``"unsafe_rbg"``
        (``jax.random`` key implementations; not faster on CPU), or ``"fused-threefry"``: the same
        Threefry hash unrolled, Box–Muller normals, the two normals of a pair used by steps 2p and
        2p + 1 (:func:`fused_normals`, :func:`fused_normal_pairs`; several times cheaper per normal
        on CPU; a different stream, same law; meant for float32 throughput runs).
      unroll: steps unrolled per scan iteration (a speed knob; does not change results beyond
        floating-point reassociation by the compiler).
      shard_chains: split the chains over all ``jax.devices()`` with ``shard_map`` (one thread per
        device; on CPU set ``XLA_FLAGS=--xla_force_host_platform_device_count=2`` before JAX starts
        to use 2 cores). The chain count must be divisible by the device count; the noise stream
        then depends on the device count too (it is part of the checkpoint fingerprint). With one
        device this is a no-op.

    Returns:
      :class:`SimulationResult`.

    Warns:
      StepSizeWarning: ``step_size`` too large: ``h·sup|V''| > 1`` where a curvature bound is known
        (S¹ Fourier landscapes, :meth:`.LangevinKernel.step_size_warning`), or one step's noise
        ``sqrt(2·T·h) > 1`` rad at the hottest temperature of the run; the run goes on.

    Raises:
      ValueError: bad shapes (no chains), off-sphere or non-finite positions, non-positive
        temperatures on the time span, a record_every that does not divide num_steps, a target
        that is not None or callable, basins that are not a sequence of callables, an Arc target
        on a landscape that is not S¹, float64 input with x64 off; ``resume=True`` without
        ``checkpoint``, a ``checkpoint`` that is a folder, whose parent is a file, or whose folder
        cannot be created or written (checked before the first step); with
        ``resume``, a checkpoint of another run, or a file that is not a readable checkpoint of this
        toolkit (not an npz, empty, truncated, missing arrays, wrong shapes, NaN/inf); and during the
        run, a step that overflowed the dtype (non-finite energies: step size or temperature far
        too large), instead of returning NaN.
      OSError: a checkpoint write fails during the run (disk full, folder made read-only meanwhile).
    """
    num_steps = check_int("num_steps", num_steps, 1, 2**31 - 2)
    seed = check_seed(seed)
    t_start = check_real("t_start", t_start, 0.0, math.inf, lo_closed=True)
    chunk_steps = check_int("chunk_steps", chunk_steps, 1, None)
    unroll = check_int("unroll", unroll, 1, 1024)
    num_shards = len(jax.devices()) if shard_chains else 1
    if prng_impl not in PRNG_IMPLS:
        raise ValueError(f"prng_impl={prng_impl!r} is not one of {PRNG_IMPLS}")
    if record_every is None:
        record_every = default_record_every(num_steps)
    record_every = check_int("record_every", record_every, 1, num_steps)
    if num_steps % record_every:
        raise ValueError(f"record_every={record_every} must divide num_steps={num_steps}")
    if stop_after_steps is not None:
        stop_after_steps = check_int("stop_after_steps", stop_after_steps, 1, num_steps)
    # target/basins are called inside jit: a non-callable fails there with a message that names
    # neither argument (tester3 #14)
    if target is not None and not callable(target):
        raise ValueError(f"target={target!r} must be None or a predicate (position (N, d), potential ()) -> bool, "
                         "e.g. EnergyBelow(level) or Arc(theta_lo, theta_hi)")
    if callable(basins) or isinstance(basins, (str, bytes)) or not isinstance(basins, Sequence):
        # ordered: the first matching basin wins, and the order is part of the checkpoint fingerprint
        raise ValueError(f"basins={basins!r} must be a sequence (list or tuple) of predicates, e.g. [Arc(a, b), Arc(c, d)]")
    for i, b in enumerate(basins):
        if not callable(b):
            raise ValueError(f"basins[{i}]={b!r} is not a predicate (position (N, d), potential ()) -> bool")
    if resume and checkpoint is None:
        raise ValueError("resume=True needs checkpoint=<file path> (the file to continue from)")
    if checkpoint is not None:
        if not isinstance(checkpoint, (str, os.PathLike)) or not str(checkpoint):
            raise ValueError(f"checkpoint={checkpoint!r} must be a file path (str or os.PathLike)")
        ck_path = Path(checkpoint)
        if ck_path.is_dir():
            raise ValueError(f"checkpoint={str(ck_path)!r} is a folder; give a file path such as "
                             f"{str(ck_path / 'run.npz')!r}")
        folder = next((p for p in ck_path.parents if p.exists()), None)
        if folder is not None and not folder.is_dir():
            raise ValueError(f"checkpoint={str(ck_path)!r}: its folder {str(folder)!r} is not a folder")
        ensure_writable_parent(ck_path, "checkpoint")  # before the first chunk, not after it

    require_x64(positions, what="simulate")
    pos = np.asarray(positions)
    if pos.ndim != 3 or pos.shape[0] < 1 or pos.shape[1] < 1 or pos.shape[2] < 2:
        raise ValueError(f"positions must have shape (chains, N, d) with chains >= 1, N >= 1, d >= 2, got {pos.shape}")
    if pos.dtype not in (np.float32, np.float64):
        raise ValueError(f"positions must be float32 or float64, got {pos.dtype}")
    if not np.all(np.isfinite(pos)):
        raise ValueError("positions contains NaN or inf")
    err = float(np.max(np.abs(np.linalg.norm(pos.astype(np.float64), axis=-1) - 1.0)))
    tol = 1e-5 if pos.dtype == np.float32 else 1e-10
    if err > tol:
        raise ValueError(f"positions must lie on the sphere: max | |z| - 1 | = {err:.3g} > {tol:g}")
    basins = tuple(basins)
    for obj in ((target,) if target is not None else ()) + basins:
        if isinstance(obj, Arc) and pos.shape[1:] != (1, 2):
            raise ValueError(f"an Arc target needs an S^1 landscape (N=1, d=2), positions have shape {pos.shape}")

    h = kernel.step_size
    t_end = t_start + num_steps * h
    for note in _step_warnings(kernel, _check_temperatures(kernel, t_start, t_end, pos.dtype)):
        warnings.warn(note, StepSizeWarning, stacklevel=2)

    fingerprint = json.dumps(
        {
            "kernel": kernel.description,
            "shape": list(pos.shape),
            "dtype": str(pos.dtype),
            "positions_sha256": hashlib.sha256(np.ascontiguousarray(pos).tobytes()).hexdigest(),
            "num_steps": num_steps,
            "seed": seed,
            "t_start": t_start,
            "record_every": record_every,
            "prng_impl": prng_impl,
            **({"shards": num_shards} if num_shards > 1 else {}),
            "target": None if target is None else getattr(target, "describe", lambda: repr(target))(),
            "basins": [getattr(b, "describe", lambda b=b: repr(b))() for b in basins],
        },
        sort_keys=True,
    )

    ckpt = Path(checkpoint) if checkpoint is not None else None
    carry = None
    trace_parts: list[np.ndarray] = []
    if ckpt is not None and resume and ckpt.exists():
        carry, trace = _load_checkpoint(ckpt, fingerprint)
        trace_parts.append(trace)
    if carry is None:
        carry = _initial_carry(kernel, jnp.asarray(pos), target, basins, t_start)
        trace_parts.append(np.zeros((0, pos.shape[0]), pos.dtype))

    fused_rng = prng_impl == "fused-threefry"
    if fused_rng:
        key = jax.random.key_data(jax.random.key(seed, impl="threefry2x32")).astype(jnp.uint32)
    else:
        key = jax.random.key(seed, impl=prng_impl)
    t0 = jnp.asarray(t_start, pos.dtype)
    if num_shards > 1 and pos.shape[0] % num_shards:
        raise ValueError(f"chains={pos.shape[0]} must be divisible by the device count {num_shards} when shard_chains=True")
    fn = _chunk_fn(kernel, target, basins, record_every, unroll, fused_rng, num_shards)
    records_per_chunk = max(1, chunk_steps // record_every)
    stop = num_steps if stop_after_steps is None else stop_after_steps
    steps_at_start = int(carry.step)

    bar = None
    if progress:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        bar = Progress(
            TextColumn("[bold]langevin[/bold] {task.completed:,}/{task.total:,} steps"),
            BarColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            transient=True,
        )
        bar.start()
        task = bar.add_task("run", total=num_steps, completed=steps_at_start, rate="")

    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
            while int(carry.step) < stop:
                done = int(carry.step)
                n_rec = min(records_per_chunk, (num_steps - done) // record_every)
                carry, energies = fn(carry, key, t0, n_rec)
                energies = np.asarray(energies)
                if not np.all(np.isfinite(energies)):
                    _raise_non_finite(kernel, done, int(carry.step), t_start, pos.dtype)
                trace_parts.append(energies)
                if ckpt is not None:
                    _save_checkpoint(ckpt, carry, np.concatenate(trace_parts, axis=0), fingerprint)
                if bar is not None:
                    elapsed = time.perf_counter() - start
                    rate = (int(carry.step) - steps_at_start) * pos.shape[0] / max(elapsed, 1e-9)
                    bar.update(task, completed=int(carry.step), rate=f"{rate:.3g} chain-steps/s")
    finally:
        if bar is not None:
            bar.stop()
    jax.block_until_ready(carry)
    wall = time.perf_counter() - start

    steps_done = int(carry.step)
    trace = np.concatenate(trace_parts, axis=0)
    n_records = trace.shape[0]
    record_times = t_start + h * record_every * np.arange(1, n_records + 1, dtype=np.float64)
    occupancy = np.asarray(carry.occupancy, np.float64) / max(steps_done, 1)
    last = np.asarray(carry.last_basin)
    if basins:
        final_label = np.asarray(
            jax.vmap(lambda p, v: _basin_label(basins, p, v))(carry.state.position, carry.state.potential)
        )
    else:
        final_label = np.full(pos.shape[0], -1, np.int32)
    del last
    return SimulationResult(
        positions=np.asarray(carry.state.position),
        potential=np.asarray(carry.state.potential),
        running_min=np.asarray(carry.running_min),
        hit_time=np.asarray(carry.hit_time),
        occupancy=occupancy,
        final_basin=final_label,
        escapes=np.asarray(carry.escapes),
        energy_trace=trace,
        record_times=record_times,
        steps_done=steps_done,
        num_steps=num_steps,
        step_size=h,
        t_start=t_start,
        t_end=t_start + steps_done * h,
        wall_time=wall,
        chain_steps_per_second=(steps_done - steps_at_start) * pos.shape[0] / max(wall, 1e-12),
        dtype=str(pos.dtype),
        seed=seed,
        config=json.loads(fingerprint),
    )
