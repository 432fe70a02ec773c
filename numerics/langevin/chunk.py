"""The jitted chunk of a run: a loop of steps of all chains with their observables, one compile per run.

:func:`chunk_fn` builds ``(carry, key, t_start, n_units, temperature_values) -> (carry, potentials)``:
``n_units`` (a traced scalar, so every chunk of a run reuses one compiled program whatever its
length) units of
``unit_steps`` steps each; after each unit it writes V of every chain into row u of a
``(max_units, chains)`` buffer. The driver takes a unit to be one record (``unit_steps =
record_every``) unless one record of all chains would take longer than a chunk should (a chunk must
return to Python within about a second so that Ctrl-C takes effect): a unit is then a divisor of
``record_every``.

Layout: inside the chunk the batched state is kept "chains-last" (position and gradient
``(N, d, chains)``, potential ``(chains,)``), so elementwise work runs over contiguous chains;
outside (initial positions, checkpoints, results) it is chains-first ``(chains, N, d)``. S¹
Fourier landscapes keep each chain as one complex number (:meth:`.kernel.LangevinKernel.step_circle`;
V and V'(θ) of the state are refreshed once per unit, the running minimum, targets and basins see
V at every step); other kernels whose landscape evaluates on trailing batch axes (U0) step all
chains at once (:meth:`.kernel.LangevinKernel.step_chains_last`); the rest go through ``vmap`` of
:meth:`.kernel.LangevinKernel.step_with_noise`. Either way a step is one or two elementwise loops
with no stack/concatenate (XLA:CPU compiles those to scalar code).

The schedule's constants are data of the program (``temperature_values``, :mod:`.temperature`), so
runs whose kernels differ only in them (``compile_key``) share one compilation.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from contrastive_bounds.numerics.langevin.kernel import LangevinKernel, LangevinState
from contrastive_bounds.numerics.langevin.noise import steps_loop
from contrastive_bounds.numerics.langevin.observables import Carry, basin_label

__all__ = ["chunk_fn", "compiler_options", "place_carry"]


def _to_chains_last(state: LangevinState) -> LangevinState:
    return LangevinState(jnp.moveaxis(state.position, 0, -1), state.potential, jnp.moveaxis(state.grad, 0, -1))


def _to_chains_first(state: LangevinState) -> LangevinState:
    return LangevinState(jnp.moveaxis(state.position, -1, 0), state.potential, jnp.moveaxis(state.grad, -1, 0))


def _circle_to_real(w: jax.Array) -> jax.Array:
    """Complex positions (chains,) -> real chains-last positions (1, 2, chains)."""
    return jnp.stack([w.real, w.imag])[None]


def _from_circle(state: LangevinState) -> LangevinState:
    """Complex S¹ state -> chains-first real state; the gradient is V'(θ)·(−z₁, z₀) as the landscapes give it."""
    x, y = state.position.real, state.position.imag
    position = jnp.stack([x, y], axis=-1)[:, None, :]
    grad = jnp.stack([-y * state.grad, x * state.grad], axis=-1)[:, None, :]
    return LangevinState(position, state.potential, grad)


def compiler_options() -> dict[str, Any]:
    """XLA options for the chunk (CPU only): 512-bit vectors where the CPU has AVX-512 (XLA:CPU
    prefers 256 by default; on the benchmark machine 512 makes the Threefry hash and the step
    1.3-1.7x faster, see benchmarks/README.md; ignored by CPUs without AVX-512)."""
    return {"xla_cpu_prefer_vector_width": 512} if jax.default_backend() == "cpu" else {}


_CACHE_SIZE = 64
_CHUNKS: "OrderedDict[tuple, Any]" = OrderedDict()


def chunk_fn(kernel: LangevinKernel, target: Any, basins: tuple, unit_steps: int, max_units: int, unroll: int,
             fused: bool = False, num_shards: int = 1):
    """Jitted chunk ``(carry, key, t_start, n_units, temperature_values) -> (carry, potentials (max_units, chains))``.

    Args:
      kernel, target, basins: the run's kernel and predicates (hashable). Compiled programs are cached
        per argument tuple, the kernel standing for its ``compile_key`` when it has one: kernels that
        differ only in the data of their temperature program (schedules of one form with other
        constants, :mod:`.temperature`) share one program, which takes the data as
        ``temperature_values`` (``kernel.temperature_data(dtype)``); otherwise the
        kernel object itself is the key (reuse it to reuse the compiled chunk).
      unit_steps: steps per unit (≥ 1); a unit must start at a multiple of ``unit_steps``.
      max_units: rows of the potentials buffer; ``n_units`` must lie in [1, max_units]. Rows
        ``n_units`` and beyond are zeros.
      unroll: steps unrolled per scan iteration. fused: noise from the ``"fused-threefry"``
        generator (``key`` = its uint32 (2,) words) instead of ``jax.random`` (``key`` typed).
      num_shards: > 1 splits the chains over the first ``num_shards`` devices with ``shard_map``
        (mesh axis ``"chains"``; see :func:`.noise.steps_loop` for each shard's noise).
    Returns:
      The jitted function; it donates ``carry``. ``carry`` is chains-first (:class:`.observables.Carry`).
    """
    key = (kernel if kernel.compile_key is None else kernel.compile_key, target, basins, unit_steps, max_units,
           unroll, fused, num_shards)
    fn = _CHUNKS.get(key)
    if fn is None:
        fn = _CHUNKS[key] = _build_chunk(kernel, target, basins, unit_steps, max_units, unroll, fused, num_shards)
        if len(_CHUNKS) > _CACHE_SIZE:
            _CHUNKS.popitem(last=False)
    else:
        _CHUNKS.move_to_end(key)
    return fn


def _chunk_cache_info() -> tuple[int, int]:
    """``(compiled chunks held, capacity)``."""
    return len(_CHUNKS), _CACHE_SIZE


# The lru_cache protocol, so that code which empties the package's caches (the self-test's substitution
# hook) also drops compiled chunks that captured the functions it replaces.
chunk_fn.cache_clear = _CHUNKS.clear  # type: ignore[attr-defined]
chunk_fn.cache_info = _chunk_cache_info  # type: ignore[attr-defined]


def _build_chunk(base: LangevinKernel, target: Any, basins: tuple, unit_steps: int, max_units: int, unroll: int,
                 fused: bool, num_shards: int):
    circle = base.supports_circle
    chains_last = base.supports_chains_last
    num_basins = len(basins)
    label_v = jax.vmap(lambda p, v: basin_label(basins, p, v), in_axes=(-1, -1))
    target_v = None if target is None else jax.vmap(target, in_axes=(-1, -1))
    if circle:  # targets and basins see the public position (N, d) of each chain
        label_v = (lambda p, v, f=label_v: f(_circle_to_real(p), v))
        if target_v is not None:
            target_v = (lambda p, v, f=target_v: f(_circle_to_real(p), v))
    to_outer = _from_circle if circle else _to_chains_first

    def noise_shape_of(carry: Carry) -> tuple[int, ...]:
        if circle:
            return carry.state.position.shape  # (chains,): one tangent normal per chain
        n, d, chains = carry.state.position.shape
        return base.noise_shape((n, d)) + (chains,)

    def observe(carry: Carry, potential: jax.Array, k: jax.Array, t_new: jax.Array) -> Carry:
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
            occupancy = occupancy + (lab[:, None] == jnp.arange(num_basins, dtype=jnp.int32)[None, :]).astype(jnp.int32)
            moved = (lab >= 0) & (last >= 0) & (lab != last)
            escapes = escapes + moved.astype(jnp.int32)
            last = jnp.where(lab >= 0, lab, last)
        return carry._replace(step=k + 1, running_min=running_min, hit_time=hit_time, occupancy=occupancy,
                              last_basin=last, escapes=escapes)

    def steps_with(kernel: LangevinKernel):
        """The loop of ``unit`` steps of ``kernel`` (the run's kernel with its traced temperature values)."""
        if circle:
            step_v = kernel.step_circle
        elif chains_last:
            step_v = kernel.step_chains_last
        else:
            step_v = jax.vmap(kernel.step_with_noise, in_axes=(-1, -1, None), out_axes=-1)

        def advance_generic(carry: Carry, noise: jax.Array, t_start: jax.Array) -> Carry:
            """One step of all chains with the given standard normal ``noise`` (noise_shape_of(carry))."""
            dtype = carry.state.potential.dtype
            h = jnp.asarray(kernel.step_size, dtype)
            k = carry.step
            new = step_v(carry.state, noise, t_start + k.astype(dtype) * h)
            return observe(carry._replace(state=new), new.potential, k, t_start + (k + 1).astype(dtype) * h)

        def advance_circle(carry: Carry, noise: jax.Array, t_start: jax.Array) -> Carry:
            """The same on the complex S¹ state; its potential/grad are refreshed once per unit."""
            dtype = carry.state.potential.dtype
            h = jnp.asarray(kernel.step_size, dtype)
            k = carry.step
            w = kernel.step_circle(carry.state.position, noise, t_start + k.astype(dtype) * h)
            w = jax.lax.optimization_barrier(w)  # V below reads the new positions instead of redoing the step
            value, _ = kernel.circle_value_and_derivative(w.real, w.imag)
            return observe(carry._replace(state=carry.state._replace(position=w)), value, k,
                           t_start + (k + 1).astype(dtype) * h)

        return steps_loop(advance_circle if circle else advance_generic, noise_shape_of, fused=fused,
                          num_shards=num_shards, unroll=unroll)

    def chunk(carry: Carry, key: jax.Array, t_start: jax.Array, n_units: jax.Array, temperature_values: jax.Array):
        kernel = base if base.temperature_program is None else base.with_temperature_data(temperature_values)
        run_steps = steps_with(kernel)
        if circle:
            carry = carry._replace(state=kernel.circle_state(
                jax.lax.complex(carry.state.position[:, 0, 0], carry.state.position[:, 0, 1])))
        else:
            carry = carry._replace(state=_to_chains_last(carry.state))
        buf = jnp.zeros((max_units,) + carry.state.potential.shape, carry.state.potential.dtype)
        if num_shards > 1:  # each shard writes its own chains: the buffer varies over the mesh axis
            buf = jax.lax.pcast(buf, ("chains",), to="varying")

        def unit(u, cb):
            c, b = cb
            c = run_steps(c, key, t_start, unit_steps)
            if circle:
                c = c._replace(state=kernel.circle_state(c.state.position))
            return c, jax.lax.dynamic_update_index_in_dim(b, c.state.potential, u, 0)

        carry, buf = jax.lax.fori_loop(0, n_units, unit, (carry, buf))
        return carry._replace(state=to_outer(carry.state)), buf

    options = compiler_options()
    if num_shards == 1:
        return jax.jit(chunk, donate_argnums=0, compiler_options=options)
    mesh, carry_spec = _mesh_and_spec(num_shards)
    sharded = jax.shard_map(chunk, mesh=mesh, in_specs=(carry_spec, P(), P(), P(), P()),
                            out_specs=(carry_spec, P(None, "chains")))
    return jax.jit(sharded, donate_argnums=0, compiler_options=options)


def _mesh_and_spec(num_shards: int):
    mesh = Mesh(np.asarray(jax.devices()[:num_shards]), ("chains",))
    c = P("chains")
    return mesh, Carry(LangevinState(c, c, c), P(), c, c, c, c, c)


def place_carry(carry: Carry, num_shards: int) -> Carry:
    """Put a chains-first carry where the chunk of ``num_shards`` devices keeps it (its chains split
    over the mesh), so that the first chunk call sees the same input placement as every later one
    (a different placement would compile the chunk a second time)."""
    if num_shards == 1:
        return carry
    mesh, spec = _mesh_and_spec(num_shards)
    # an empty array (occupancy without basins) comes back from the chunk replicated: place it so
    specs = jax.tree.map(lambda p, a: P() if a.size == 0 else p, spec, carry, is_leaf=lambda x: isinstance(x, P))
    return jax.device_put(carry, jax.tree.map(lambda p: NamedSharding(mesh, p), specs,
                                              is_leaf=lambda x: isinstance(x, P)))
