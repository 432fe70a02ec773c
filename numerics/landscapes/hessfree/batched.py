"""Many eigenvector-following searches in a fixed number of vmapped lanes, refilled as searches end (A9).

``vmap`` of a ``while_loop`` runs every member until the slowest has finished, so a batch of searches
costs ``B × max(iterations)``: on CPU, where a lane costs about what a single search costs, that is slower
per search than running them one by one (iteration counts spread widely; measured in
``benchmarks/hessfree.py``). :func:`queue_searcher` keeps ``slots`` lanes busy instead: one compiled
``lax.while_loop`` advances all lanes by one iteration (:func:`~.eigenvector_following.hef_step`, vmapped),
writes the result of every lane whose search ended, and starts the next queued search in that lane
(:func:`~.eigenvector_following.hef_init`, only when some lane is free). The work is the sum of the
iteration counts plus the tail in which fewer searches than lanes remain. The searches are those of
:func:`~.eigenvector_following.hef_single` from the same starts and keys: with one lane the results are
identical, with more they agree up to rounding (vmapped kernels round differently, and a search amplifies
it along its free directions). Starts marked inactive take a lane for one iteration and return padding, so
callers can pad queues to one length and compile once.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import (
    RUNNING,
    HEFResult,
    HEFSettings,
    hef_init,
    hef_result,
    hef_step,
)
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["queue_searcher"]

_IDLE = -1  # status of a lane with no search left to run
_SKIP = -2  # status of an inactive (padding) start: written at once, its lane refilled


def queue_searcher(potential: Callable[[jax.Array], jax.Array], *, slots: int, orthogonal: bool = True,
                   settings: HEFSettings = HEFSettings()) -> Callable[..., HEFResult]:
    """Jitted ``(z0 (Q, N, d), mode0 (Q, N, d), keys (Q,), active (Q,) bool[, floors (Q,)]) -> HEFResult``: ``Q``
    searches in ``slots`` lanes (rows of inactive starts are padding; ``floors``, units of ``V``, end a search once
    its ``V`` falls below its floor, :func:`~.eigenvector_following.hef_init`; left out: no floors).

    Args:
      potential: pure JAX ``V``. slots: lanes, integer >= 1 (1: the searches one after another in one loop).
      orthogonal: ``V`` is ``O(d)``-invariant. settings: :class:`~.eigenvector_following.HEFSettings`.

    Returns:
      the compiled function; each queue length ``Q`` compiles once. Results are in the order of the starts.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 searches).
      ValueError: ``slots < 1`` (named).
    """
    require_x64(jnp.float64, what="contrastive_bounds.numerics.landscapes.hessfree.queue_searcher")
    lanes = int(slots)
    if lanes < 1:
        raise ValueError(f"slots={slots!r} must be an integer >= 1")

    def start(z: jax.Array, m: jax.Array, k: jax.Array, on: jax.Array, floor: jax.Array):
        st = hef_init(potential, z, m, k, settings=settings, floor=floor)
        return st._replace(status=jnp.where(on, st.status, _SKIP).astype(st.status.dtype))

    init = jax.vmap(start)
    one = lambda st: hef_step(potential, st, orthogonal=orthogonal, settings=settings)  # noqa: E731
    if lanes == 1:  # no vmap: the loop's conditionals stay branches instead of both-sided selects
        def step(st):
            return jax.tree_util.tree_map(lambda a: a[None], one(jax.tree_util.tree_map(lambda a: a[0], st)))
    else:
        step = jax.vmap(one)
    result = jax.vmap(hef_result)

    def run(z0: jax.Array, mode0: jax.Array, keys: jax.Array, active: jax.Array, floors: jax.Array | None = None
            ) -> HEFResult:
        q = z0.shape[0]
        if floors is None:
            floors = jnp.full((q,), -jnp.inf, z0.dtype)
        s = min(lanes, q)
        task = jnp.arange(s)
        state = init(z0[:s], mode0[:s], keys[:s], active[:s], floors[:s])
        template = result(state)
        # one spare row (index q) takes the writes of lanes that have nothing to write
        out = jax.tree_util.tree_map(lambda a: jnp.zeros((q + 1, *a.shape[1:]), a.dtype), template)

        def cond(carry: tuple) -> jax.Array:
            state, _, _, _ = carry
            return jnp.any((state.status == RUNNING) | (state.status == _SKIP))

        def body(carry: tuple) -> tuple:
            state, task, nxt, out = carry
            state = step(state)
            ended = (state.status != RUNNING) & (state.status != _IDLE)
            rows = jnp.where(ended, task, q)
            res = result(state)
            out = jax.tree_util.tree_map(lambda o, r: o.at[rows].set(r), out, res)
            new_task = nxt + jnp.cumsum(ended) - 1
            refill = ended & (new_task < q)
            task = jnp.where(ended, jnp.where(refill, new_task, q), task)
            nxt = nxt + jnp.sum(ended)

            def fill(st: tuple) -> tuple:
                idx = jnp.minimum(task, q - 1)
                fresh = init(z0[idx], mode0[idx], keys[idx], active[idx], floors[idx])
                return jax.tree_util.tree_map(lambda a, b: jnp.where(
                    refill.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), fresh, st)

            state = jax.lax.cond(jnp.any(refill), fill, lambda st: st, state)
            idle = ended & ~refill
            state = state._replace(status=jnp.where(idle, _IDLE, state.status))
            return state, task, nxt, out

        _, _, _, out = jax.lax.while_loop(cond, body, (state, task, jnp.asarray(s), out))
        return jax.tree_util.tree_map(lambda a: a[:q], out)

    return jax.jit(run)
