"""Coupled CL / NSCL similarity descent (docs/theorems.md B3): the pure O(B^2) step and its gradient.

``Sigma`` is view-indexed, shape (m, m) with m = 2n: row ``i`` is the first view of sample ``i``,
row ``n + i`` its second view. A step takes a batch of B sample indices (shared by both runs),
gathers the 2B x 2B block of batch rows/columns, evaluates the closed-form gradient of B3 on it,
and scatters the clipped update back with ``.at[].set``. Nothing outside the block is read or
written, so the cost is O(B^2) whatever m is. A duplicate-free batch without symmetrisation takes a
row-local path with the same results (:func:`descent_step`, ``unique``): anchor rows in row chunks,
non-anchor rows rewritten only when clipping changes them.

Closed form (row-wise convention, A anchors; A = B, or 2B with ``anchors="both"``)::

    G[i, p(i)] = -1/(tau A) (+ q_{i p(i)}/(tau A) when coupled)
    G[i, u]    =  q_iu/(tau A),  q_i. = softmax_{u in D_i}(Sigma_iu / tau)

``D_i`` = both views of the other batch samples (CL) or of the batch samples of another class (NSCL);
``coupled=True`` puts ``p(i)`` in ``D_i``. Update ``Sigma <- clip_[-1,1](Sigma - eta G)``; optional
symmetrised ``(G + G^T)/2``. Duplicate batch entries (sampling with replacement) are merged, so the
block gradient is exactly the gradient of the batch loss in the entries of Sigma.

The closed-form gradient and its reference forms for checks are in :mod:`._descent_gradients`;
the driver (chunks, records, bounds, checkpoints) is :mod:`._descent_run`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.alignment._descent_gradients import (
    Anchors,
    batch_loss_on_sigma,
    block_gradients,
    block_structure,
    full_gradient,
    rows_gradient,
)

__all__ = ["DescentState", "StepRecord", "descent_step", "applied_gradients", "same_class_fractions", "sample_batch"]


class DescentState(NamedTuple):
    """The coupled state: ``sigma_cl``, ``sigma_nscl`` float (m, m); ``d2`` float scalar = ||Sigma_CL - Sigma_NSCL||_F^2."""

    sigma_cl: jax.Array
    sigma_nscl: jax.Array
    d2: jax.Array


class StepRecord(NamedTuple):
    """What the proof links need at one step (all float scalars of the state's dtype, counts int32).

    Fields:
      distance: d_{t+1} = ||Sigma^CL_{t+1} - Sigma^NSCL_{t+1}||_F after the step.
      mismatch: ||G^CL_t - G^NSCL_t||_F of the applied (merged, possibly symmetrised) gradients.
      max_same_fraction: max over anchors of (# other batch samples of the anchor's class)/(# other samples).
      mean_same_fraction: the mean over anchors of the same.
      max_abs_presclip: largest |Sigma - eta G| over the block, both runs, before clipping.
      nscl_empty: number of anchors whose NSCL denominator was empty (excluded; 0 unless allowed).
    """

    distance: jax.Array
    mismatch: jax.Array
    max_same_fraction: jax.Array
    mean_same_fraction: jax.Array
    max_abs_preclip: jax.Array
    nscl_empty: jax.Array


def _clipped_update(s: jax.Array, g: jax.Array, step_size, clip: bool) -> tuple[jax.Array, jax.Array]:
    """``(pre, new)``: the pre-clip entries ``s - step_size * g`` and the update (clipped to [-1, 1] if ``clip``)."""
    pre = s - step_size * g
    return pre, (jnp.clip(pre, -1.0, 1.0) if clip else pre)


def _same_class_fractions(batch: jax.Array, lab: jax.Array) -> jax.Array:
    """Per anchor sample: (# other batch samples of its class) / (# other batch samples), shape (B,)."""
    other = batch[:, None] != batch[None, :]
    same = other & (lab[:, None] == lab[None, :])
    return jnp.sum(same, axis=1) / jnp.maximum(jnp.sum(other, axis=1), 1)


def _merge(block: jax.Array, canon: jax.Array) -> jax.Array:
    """Sum entries of duplicated batch positions onto their first occurrence (others become 0)."""
    return jnp.zeros_like(block).at[canon[:, None], canon[None, :]].add(block)


def _canonical_positions(batch: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(2B,) block position of each position's first occurrence, and whether it is that first occurrence."""
    b = batch.shape[0]
    eq = batch[:, None] == batch[None, :]
    first = jnp.argmax(eq, axis=1)  # first position holding the same sample
    return jnp.concatenate([first, first + b]), jnp.concatenate([first == jnp.arange(b)] * 2)


def same_class_fractions(batch: jax.Array, labels: jax.Array) -> jax.Array:
    """Per batch position: (# other batch samples of its class) / (# other batch samples), float (B,).

    Args:
      batch: int (B,) sample indices (duplicates allowed: a copy of the same sample is not "other");
      labels: int (n,) classes.

    Returns: the fractions in [0, 1] (default float dtype); their maximum is the batch event's
    quantity of docs/theorems.md B4 (every anchor's same-class fraction <= pi_max + epsilon).
    """
    return _same_class_fractions(batch, labels[batch])


def applied_gradients(
    s_cl: jax.Array, s_nscl: jax.Array, batch: jax.Array, labels: jax.Array, *, tau, anchors: Anchors = "first",
    coupled: bool = False, symmetrize: bool = False, unique: bool = False,
) -> tuple[jax.Array, jax.Array]:
    """The gradients a step applies on the 2B x 2B block: B3's closed form, duplicates merged, optionally symmetrised.

    Args:
      s_cl, s_nscl: float (2B, 2B) blocks ``Sigma[R][:, R]``, ``R = [batch, n + batch]``.
      batch: int (B,) sample indices; labels: int (n,); tau: temperature > 0.
      anchors, coupled, symmetrize: as :func:`descent_step`; unique: promise of no duplicates
        (skips the merge; wrong results if broken).

    Returns: ``(G_cl, G_nscl)`` float (2B, 2B): what ``Sigma - eta G`` uses, and whose Frobenius
    difference the step records as ``mismatch`` (link L1 of docs/theorems.md B4).

    Raises:
      X64DisabledError: float64 blocks while JAX's x64 mode is off.

    Source: docs/theorems.md B3.
    """
    require_x64(s_cl, s_nscl, what="contrastive_bounds.numerics.alignment.applied_gradients")
    g_cl, g_nscl = block_gradients(s_cl, s_nscl, batch, labels, tau=tau, anchors=anchors, coupled=coupled)
    if not unique:
        canon, _ = _canonical_positions(batch)
        g_cl, g_nscl = _merge(g_cl, canon), _merge(g_nscl, canon)
    if symmetrize:
        g_cl, g_nscl = 0.5 * (g_cl + g_cl.T), 0.5 * (g_nscl + g_nscl.T)
    return g_cl, g_nscl


def descent_step(
    state: DescentState, batch: jax.Array, labels: jax.Array, *, tau: float, step_size: float | jax.Array,
    anchors: Anchors = "first", coupled: bool = False, symmetrize: bool = False, clip: bool = True,
    unique: bool = False,
) -> tuple[DescentState, StepRecord]:
    """One coupled step of CL and NSCL similarity descent on a shared batch (pure; jit/scan-able).

    Args:
      state: :class:`DescentState`, Sigma's of shape (m, m), m = 2n, float32 or float64.
      batch: int array (B,), sample indices in [0, n); duplicates allowed (merged).
      labels: int array (n,), class of each sample.
      tau: temperature > 0 (static or traced).
      step_size: eta_t >= 0.
      anchors: ``"first"`` (B anchors, weight 1/B) or ``"both"`` views (2B anchors, weight 1/(2B)).
      coupled: positive inside the denominator (NT-Xent form).
      symmetrize: apply ``(G + G^T)/2`` instead of the row-wise G.
      clip: clip the updated entries to [-1, 1] (B3: needed for the e^{2/tau} constant).
      unique: promise (static) that ``batch`` has no duplicates (sampling without replacement):
        skips the merge and lets XLA scatter without conflict handling. Wrong results if broken.
        With ``symmetrize=False`` it also selects the row-local path (every block row is updated
        from that row alone): anchor rows are gathered, updated and scattered in row chunks, and the
        non-anchor rows of ``anchors="first"`` (G = 0 there) are read but rewritten only if clipping
        changes one of them. Same results as the general path up to the order of float sums
        (tested to 1e-13); about 1.4-1.7x faster at B = 256 (benchmarks/README.md, "Alignment").

    ``step_size`` must be finite (the driver validates it): the row-local path relies on
    ``Sigma - eta * 0 = Sigma`` for the non-anchor rows.

    Returns: ``(new_state, StepRecord)``. Cost O(B^2) time and memory; m only enters through the
    gather/scatter addresses (the batch is sorted first, which changes results only by the order
    of float sums, so the block addresses are increasing for XLA's sorted gather/scatter). Inputs are not validated here (the driver validates); an anchor with an
    empty NSCL denominator gets a zero NSCL row and is counted in ``nscl_empty``.

    Source: docs/theorems.md B3 (Luthra, Mishra, Galanti, arXiv 2510.08852, similarity-descent proxy).
    """
    require_x64(state, what="contrastive_bounds.numerics.alignment.descent_step")
    if unique and not symmetrize:
        return _row_local_step(state, batch, labels, tau=tau, step_size=step_size, anchors=anchors,
                               coupled=coupled, clip=clip)
    m = state.sigma_cl.shape[0]
    n = m // 2
    b = batch.shape[0]
    # The step is invariant under a permutation of the batch (up to the order of float sums), so
    # work on the sorted batch: the block's flat addresses are then increasing, and XLA:CPU's
    # gather/scatter take the sorted, in-bounds fast path.
    batch = jnp.sort(batch)
    rows = jnp.concatenate([batch, batch + n])
    flat = (rows[:, None] * m + rows[None, :]).ravel()  # 1-D increasing addresses
    fast = dict(indices_are_sorted=True, mode="promise_in_bounds")
    if unique:
        keep = jnp.ones((2 * b, 2 * b), state.sigma_cl.dtype)
    else:
        canon, is_first = _canonical_positions(batch)
        keep = (is_first[:, None] & is_first[None, :]).astype(state.sigma_cl.dtype)

    s_cl = state.sigma_cl.reshape(-1).at[flat].get(unique_indices=unique, **fast).reshape(2 * b, 2 * b)
    s_nscl = state.sigma_nscl.reshape(-1).at[flat].get(unique_indices=unique, **fast).reshape(2 * b, 2 * b)
    g_cl, g_nscl = applied_gradients(s_cl, s_nscl, batch, labels, tau=tau, anchors=anchors, coupled=coupled,
                                     symmetrize=symmetrize, unique=unique)

    pre_cl, new_cl = _clipped_update(s_cl, g_cl, step_size, clip)
    pre_nscl, new_nscl = _clipped_update(s_nscl, g_nscl, step_size, clip)
    if not unique:  # duplicates carry the value of their first occurrence, so .set is deterministic
        new_cl = new_cl[canon[:, None], canon[None, :]]
        new_nscl = new_nscl[canon[:, None], canon[None, :]]
    def put(sigma, block):
        return sigma.reshape(-1).at[flat].set(block.ravel(), unique_indices=unique, **fast).reshape(m, m)

    sigma_cl, sigma_nscl = put(state.sigma_cl, new_cl), put(state.sigma_nscl, new_nscl)

    d_old = s_cl - s_nscl
    d_new = new_cl - new_nscl
    d2 = jnp.maximum(state.d2 + jnp.sum(keep * (d_new * d_new - d_old * d_old)), 0.0)

    is_anchor, _, _, d_nscl_mask, lab = block_structure(batch, labels, anchors, coupled)
    frac = _same_class_fractions(batch, lab)
    nscl_empty = jnp.sum(is_anchor & ~jnp.any(d_nscl_mask, axis=1)).astype(jnp.int32)
    record = StepRecord(
        distance=jnp.sqrt(d2),
        mismatch=jnp.sqrt(jnp.sum((g_cl - g_nscl) ** 2)),
        max_same_fraction=jnp.max(frac).astype(state.sigma_cl.dtype),
        mean_same_fraction=jnp.mean(frac).astype(state.sigma_cl.dtype),
        max_abs_preclip=jnp.maximum(jnp.max(jnp.abs(pre_cl)), jnp.max(jnp.abs(pre_nscl))),
        nscl_empty=nscl_empty,
    )
    return DescentState(sigma_cl, sigma_nscl, d2), record


_FAST_UNIQUE = dict(indices_are_sorted=True, mode="promise_in_bounds", unique_indices=True)
# Row chunks of the row-local path: while both Sigma's fit in this many bytes (about the last-level cache)
# the block is handled in one piece; above it, the anchor rows go in chunks of about _CHUNK_ROWS rows, so
# the cache lines a chunk gathers are still cached when the same chunk is scattered back.
_CACHE_BYTES = 32 * 2**20
_CHUNK_ROWS = 32


def _num_row_chunks(rows: int, m: int, itemsize: int) -> int:
    """Static number of equal row chunks (a divisor of ``rows``) for :func:`_row_local_step`."""
    if 2 * m * m * itemsize <= _CACHE_BYTES:
        return 1
    c = max(1, rows // _CHUNK_ROWS)
    while rows % c:
        c -= 1
    return c


def _row_local_step(
    state: DescentState, batch: jax.Array, labels: jax.Array, *, tau, step_size, anchors: Anchors, coupled: bool,
    clip: bool,
) -> tuple[DescentState, StepRecord]:
    """:func:`descent_step` for a duplicate-free batch without symmetrisation (same results, less memory traffic).

    Without merging and without ``(G + G^T)/2`` every block row is updated from that row alone, so the
    anchor rows are gathered, updated and scattered back in row chunks (one chunk while both Sigma's fit
    in the cache) and the non-anchor rows of ``anchors="first"`` (G = 0 there, update ``clip(Sigma)``) are
    only read for ``max_abs_preclip`` and rewritten only when one of their entries lies outside [-1, 1]
    (never for a Sigma kept in [-1, 1]; a finite ``step_size`` is assumed, as ``Sigma - eta * 0 = Sigma``).
    Per-row arithmetic is the same as the general path; the reductions of the record are summed per
    chunk, so they agree with it up to the order of float sums.
    """
    sigma_cl, sigma_nscl = state.sigma_cl, state.sigma_nscl
    m = sigma_cl.shape[0]
    n = m // 2
    b = batch.shape[0]
    dt = sigma_cl.dtype
    batch = jnp.sort(batch)
    rows = jnp.concatenate([batch, batch + n])  # block rows/columns: first views, then second views
    lab = labels[batch]
    col_sample = jnp.concatenate([batch, batch])
    col_lab = jnp.concatenate([lab, lab])
    na = b if anchors == "first" else 2 * b  # anchor rows come first
    scale = 1.0 / (tau * na)
    chunks = _num_row_chunks(na, m, jnp.dtype(dt).itemsize)
    r = na // chunks

    def get(sig, block_rows):  # increasing, distinct flat addresses (sorted batch, no duplicates)
        flat = (block_rows[:, None] * m + rows[None, :]).ravel()
        return sig.reshape(-1).at[flat].get(**_FAST_UNIQUE).reshape(block_rows.shape[0], 2 * b), flat

    def put(sig, flat, block):
        return sig.reshape(-1).at[flat].set(block.ravel(), **_FAST_UNIQUE).reshape(m, m)

    def chunk(carry, i0):
        sig_cl, sig_nscl, delta, mismatch2, top, empty = carry
        ri = i0 + jnp.arange(r)  # block rows of this chunk
        partner = jnp.where(ri < b, ri + b, ri - b)  # block column of each row's positive
        pos = partner[:, None] == jnp.arange(2 * b)[None, :]
        other_sample = col_sample[ri][:, None] != col_sample[None, :]
        other_class = col_lab[ri][:, None] != col_lab[None, :]
        d_cl = (other_sample | pos) if coupled else other_sample
        d_nscl = (other_class | pos) if coupled else other_class
        posf = pos.astype(dt)
        s_cl, flat = get(sig_cl, rows[ri])
        s_nscl, _ = get(sig_nscl, rows[ri])
        g_cl = rows_gradient(s_cl, d_cl, posf, tau, scale)
        g_nscl = rows_gradient(s_nscl, d_nscl, posf, tau, scale)
        pre_cl, new_cl = _clipped_update(s_cl, g_cl, step_size, clip)
        pre_nscl, new_nscl = _clipped_update(s_nscl, g_nscl, step_size, clip)
        d_old, d_new = s_cl - s_nscl, new_cl - new_nscl
        delta = delta + jnp.sum(d_new * d_new - d_old * d_old)
        mismatch2 = mismatch2 + jnp.sum((g_cl - g_nscl) ** 2)
        top = jnp.maximum(top, jnp.maximum(jnp.max(jnp.abs(pre_cl)), jnp.max(jnp.abs(pre_nscl))))
        empty = empty + jnp.sum(~jnp.any(d_nscl, axis=1)).astype(jnp.int32)
        return (put(sig_cl, flat, new_cl), put(sig_nscl, flat, new_nscl), delta, mismatch2, top, empty), None

    zero = jnp.zeros((), dt)
    carry = (sigma_cl, sigma_nscl, zero, zero, jnp.array(-jnp.inf, dt), jnp.zeros((), jnp.int32))
    if chunks == 1:
        carry, _ = chunk(carry, 0)
    else:
        carry, _ = jax.lax.scan(chunk, carry, jnp.arange(chunks) * r)
    sigma_cl, sigma_nscl, delta, mismatch2, top, empty = carry

    if anchors == "first":  # second-view rows: G = 0, pre-clip value = Sigma itself
        low_cl, flat = get(sigma_cl, batch + n)  # rows disjoint from the anchor rows just written
        low_nscl, _ = get(sigma_nscl, batch + n)
        top = jnp.maximum(top, jnp.maximum(jnp.max(jnp.abs(low_cl)), jnp.max(jnp.abs(low_nscl))))
        if clip:
            def clip_low(args):
                sig_cl, sig_nscl, dl = args
                new_cl, new_nscl = jnp.clip(low_cl, -1.0, 1.0), jnp.clip(low_nscl, -1.0, 1.0)
                d_old, d_new = low_cl - low_nscl, new_cl - new_nscl
                dl = dl + jnp.sum(d_new * d_new - d_old * d_old)
                return put(sig_cl, flat, new_cl), put(sig_nscl, flat, new_nscl), dl

            outside = ~(jnp.maximum(jnp.max(jnp.abs(low_cl)), jnp.max(jnp.abs(low_nscl))) <= 1.0)  # NaN too
            sigma_cl, sigma_nscl, delta = jax.lax.cond(outside, clip_low, lambda args: args,
                                                       (sigma_cl, sigma_nscl, delta))
    d2 = jnp.maximum(state.d2 + delta, 0.0)

    frac = _same_class_fractions(batch, lab)
    record = StepRecord(
        distance=jnp.sqrt(d2),
        mismatch=jnp.sqrt(mismatch2),
        max_same_fraction=jnp.max(frac).astype(dt),
        mean_same_fraction=jnp.mean(frac).astype(dt),
        max_abs_preclip=top,
        nscl_empty=empty,
    )
    return DescentState(sigma_cl, sigma_nscl, d2), record


def sample_batch(
    key: jax.Array, labels: jax.Array, batch_size: int, *, replace: bool = False, stratified: bool = False,
    num_classes: int | None = None,
) -> jax.Array:
    """Draw B sample indices (jit-able; B static).

    Args:
      key: a JAX PRNG key.
      labels: int (n,) classes in [0, num_classes).
      batch_size: B (static), <= n without replacement.
      replace: uniform with replacement (i.i.d. draws: the Hoeffding setting of B4).
      stratified: without replacement, class c gets floor(B/C) samples plus one for B mod C randomly
        chosen classes (requires every class to have enough members; the driver checks).
      num_classes: C (static), needed when ``stratified``.

    Returns: int32 (B,) indices. Cost O(n log n) without replacement (a random permutation of n), O(B) with.
    """
    n = labels.shape[0]
    if replace:
        return jax.random.randint(key, (batch_size,), 0, n, dtype=jnp.int32)
    if not stratified:
        return jax.random.choice(key, n, (batch_size,), replace=False).astype(jnp.int32)
    k_score, k_cls = jax.random.split(key)
    c = num_classes
    score = jax.random.uniform(k_score, (n,))
    order = jnp.lexsort((score, labels))  # grouped by class, random order inside each class
    counts = jnp.bincount(labels, length=c)
    starts = jnp.cumsum(counts) - counts
    extra_classes = jax.random.permutation(k_cls, c)[: batch_size % c]
    quota = batch_size // c + jnp.zeros(c, jnp.int32).at[extra_classes].add(1)
    lab_sorted = labels[order]
    rank = jnp.arange(n) - starts[lab_sorted]
    chosen = rank < quota[lab_sorted]
    (pos,) = jnp.nonzero(chosen, size=batch_size)
    return order[pos].astype(jnp.int32)
