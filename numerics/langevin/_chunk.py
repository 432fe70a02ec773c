"""The jitted chunk of a run: a loop of steps of all chains with their observables, one compile per run.

:func:`chunk_fn` builds ``(carry, key, t_start, n_units, temperature_values) -> (carry, potentials)``:
``n_units`` (a traced scalar, so every chunk of a run reuses one compiled program whatever its
length) units of ``unit_steps`` steps each; after each unit it writes V of every chain into row u of a
``(max_units, chains)`` buffer. The driver takes a unit to be one record (``unit_steps =
record_every``) unless one record of all chains would take longer than a chunk should (a chunk must
return to Python within about a second so that Ctrl-C takes effect): a unit is then a divisor of
``record_every``.

A step is the run's step path (:mod:`._paths`: the complex S¹ step, the chains-last step or ``vmap`` of
the kernel's one-chain step) at the temperature T(t_start + k·h), followed by the observables (running
minimum, hitting time, basin occupancy and escapes). Inside the chunk the chains are in the path's
layout; outside (initial positions, checkpoints, results) the carry is chains-first ``(chains, N, d)``.

The schedule's constants are data of the program (``temperature_values``, :mod:`._temperature`), so
runs whose kernels differ only in them (``compile_key``) share one compilation.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from contrastive_bounds.numerics.langevin._kernel import LangevinKernel
from contrastive_bounds.numerics.langevin._noise import steps_loop
from contrastive_bounds.numerics.langevin._observables import Carry, basin_label
from contrastive_bounds.numerics.langevin._paths import step_path
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState

__all__ = ["chunk_fn", "compiler_options", "place_carry"]


def compiler_options() -> dict[str, Any]:
    """XLA options for the chunk (CPU only): 512-bit vectors where the CPU has AVX-512 (XLA:CPU
    prefers 256 by default; on the benchmark machine 512 makes the Threefry hash and the step
    1.3-1.7x faster, see benchmarks/README.md; ignored by CPUs without AVX-512)."""
    return {"xla_cpu_prefer_vector_width": 512} if jax.default_backend() == "cpu" else {}


_CACHE_SIZE = 64
_CHUNKS: "OrderedDict[tuple, Any]" = OrderedDict()


def chunk_fn(kernel: LangevinKernel, path: str, target: Any, basins: tuple, unit_steps: int, max_units: int,
             unroll: int, fused: bool = False, num_shards: int = 1):
    """Jitted chunk ``(carry, key, t_start, n_units, temperature_values) -> (carry, potentials (max_units, chains))``.

    Args:
      kernel, target, basins: the run's kernel and predicates (hashable). Compiled programs are cached
        per argument tuple, the kernel standing for its ``compile_key`` when it has one: kernels that
        differ only in the data of their temperature program (schedules of one form with other
        constants, :mod:`._temperature`) share one program, which takes the data as
        ``temperature_values`` (``kernel.temperature_data(dtype)``); otherwise the
        kernel object itself is the key (reuse it to reuse the compiled chunk).
      unit_steps: steps per unit (≥ 1); a unit must start at a multiple of ``unit_steps``.
      max_units: rows of the potentials buffer; ``n_units`` must lie in [1, max_units]. Rows
        ``n_units`` and beyond are zeros.
      unroll: steps unrolled per scan iteration. fused: noise from the ``"fused-threefry"``
        generator (``key`` = its uint32 (2,) words) instead of ``jax.random`` (``key`` typed).
      num_shards: > 1 splits the chains over the first ``num_shards`` devices with ``shard_map``
        (mesh axis ``"chains"``; see :func:`._noise.steps_loop` for each shard's noise).
    Returns:
      The jitted function; it donates ``carry``. ``carry`` is chains-first (:class:`._observables.Carry`).
    """
    key = (kernel if kernel.compile_key is None else kernel.compile_key, path, target, basins, unit_steps, max_units,
           unroll, fused, num_shards)
    fn = _CHUNKS.get(key)
    if fn is None:
        fn = _CHUNKS[key] = _build_chunk(kernel, path, target, basins, unit_steps, max_units, unroll, fused,
                                         num_shards)
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


def _build_chunk(base: LangevinKernel, path_name: str, target: Any, basins: tuple, unit_steps: int, max_units: int,
                 unroll: int, fused: bool, num_shards: int):
    path = step_path(base, path_name)
    num_basins = len(basins)
    label_v = jax.vmap(lambda p, v: basin_label(basins, p, v), in_axes=(-1, -1))
    target_v = None if target is None else jax.vmap(target, in_axes=(-1, -1))

    def observe(carry: Carry, potential: jax.Array, k: jax.Array, t_new: jax.Array) -> Carry:
        """Observables after step k (carry.state holds the new state, ``potential`` its V (chains,)): running
        min, hit time, basin occupancy and escapes; targets and basins see the positions (N, d, chains) and V."""
        running_min = jnp.minimum(carry.running_min, potential)
        hit_time = carry.hit_time
        if target_v is not None:
            inside = target_v(path.positions(carry.state), potential)
            hit_time = jnp.where(jnp.isinf(hit_time) & inside, t_new, hit_time)
        occupancy, last, escapes = carry.occupancy, carry.last_basin, carry.escapes
        if num_basins:
            lab = label_v(path.positions(carry.state), potential)
            occupancy = occupancy + (lab[:, None] == jnp.arange(num_basins, dtype=jnp.int32)[None, :]).astype(jnp.int32)
            moved = (lab >= 0) & (last >= 0) & (lab != last)
            escapes = escapes + moved.astype(jnp.int32)
            last = jnp.where(lab >= 0, lab, last)
        return carry._replace(step=k + 1, running_min=running_min, hit_time=hit_time, occupancy=occupancy,
                              last_basin=last, escapes=escapes)

    def steps_with(kernel: LangevinKernel):
        """The loop of ``unit`` steps at the temperature of ``kernel`` (the run's kernel with its traced
        temperature values)."""

        def advance(carry: Carry, noise: jax.Array, t_start: jax.Array) -> Carry:
            """One step of all chains with the given standard normal ``noise`` (``path.noise_shape``)."""
            dtype = carry.running_min.dtype
            h = jnp.asarray(kernel.step_size, dtype)
            k = carry.step
            temperature = kernel.temperature.at(t_start + k.astype(dtype) * h, dtype)
            new, potential = path.step(carry.state, noise, temperature)
            return observe(carry._replace(state=new), potential, k, t_start + (k + 1).astype(dtype) * h)

        return steps_loop(advance, lambda carry: path.noise_shape(carry.state), fused=fused, num_shards=num_shards,
                          unroll=unroll)

    def chunk(carry: Carry, key: jax.Array, t_start: jax.Array, n_units: jax.Array, temperature_values: jax.Array):
        kernel = base if base.temperature.program is None else base.with_temperature_data(temperature_values)
        run_steps = steps_with(kernel)
        carry = carry._replace(state=path.enter(carry.state))
        buf = jnp.zeros((max_units,) + carry.running_min.shape, carry.running_min.dtype)
        if num_shards > 1:  # each shard writes its own chains: the buffer varies over the mesh axis
            buf = jax.lax.pcast(buf, ("chains",), to="varying")

        def unit(u, cb):
            c, b = cb
            c = run_steps(c, key, t_start, unit_steps)
            return c, jax.lax.dynamic_update_index_in_dim(b, path.potential(c.state), u, 0)

        carry, buf = jax.lax.fori_loop(0, n_units, unit, (carry, buf))
        return carry._replace(state=path.leave(carry.state)), buf

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
