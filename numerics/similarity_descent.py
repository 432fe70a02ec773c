"""Coupled CL / NSCL similarity descent (THEOREMS.md B3): the pure O(B^2) step and its gradient.

``Sigma`` is view-indexed, shape (m, m) with m = 2n: row ``i`` is the first view of sample ``i``,
row ``n + i`` its second view. A step takes a batch of B sample indices (shared by both runs),
gathers the 2B x 2B block of batch rows/columns, evaluates the closed-form gradient of B3 on it,
and scatters the clipped update back with ``.at[].set``. Nothing outside the block is read or
written, so the cost is O(B^2) whatever m is.

Closed form (row-wise convention, A anchors; A = B, or 2B with ``anchors="both"``)::

    G[i, p(i)] = -1/(tau A) (+ q_{i p(i)}/(tau A) when coupled)
    G[i, u]    =  q_iu/(tau A),  q_i. = softmax_{u in D_i}(Sigma_iu / tau)

``D_i`` = both views of the other batch samples (CL) or of the batch samples of another class (NSCL);
``coupled=True`` puts ``p(i)`` in ``D_i``. Update ``Sigma <- clip_[-1,1](Sigma - eta G)``; optional
symmetrised ``(G + G^T)/2``. Duplicate batch entries (sampling with replacement) are merged, so the
block gradient is exactly the gradient of the batch loss in the entries of Sigma.

The driver (chunks, records, bounds, checkpoints) is :mod:`.similarity_descent_run`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp

__all__ = [
    "DescentState",
    "StepRecord",
    "descent_step",
    "block_gradients",
    "batch_loss_on_sigma",
    "full_gradient",
    "sample_batch",
]

Anchors = Literal["first", "both"]


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


def _masked_softmax(x: jax.Array, mask: jax.Array) -> jax.Array:
    """Row softmax over ``mask``; zero (not NaN, also in the gradient) on rows with an empty mask."""
    any_row = jnp.any(mask, axis=-1, keepdims=True)
    xm = jnp.where(mask, x, -jnp.inf)
    top = jnp.where(any_row, jnp.max(xm, axis=-1, keepdims=True), 0.0)
    e = jnp.where(mask, jnp.exp(jnp.where(mask, x - top, 0.0)), 0.0)
    tot = jnp.sum(e, axis=-1, keepdims=True)
    return e / jnp.where(any_row, tot, 1.0)


def _block_structure(batch: jax.Array, labels: jax.Array, anchors: Anchors, coupled: bool):
    """Index sets of the 2B x 2B block: rows/cols ordered [first views of batch, second views]."""
    b = batch.shape[0]
    pos_idx = jnp.arange(b)
    col_pos = jnp.concatenate([pos_idx, pos_idx])  # batch position of each block column
    col_view = jnp.concatenate([jnp.zeros(b, jnp.int32), jnp.ones(b, jnp.int32)])
    row_pos, row_view = col_pos, col_view
    lab = labels[batch]
    other_sample = batch[row_pos][:, None] != batch[col_pos][None, :]
    other_class = lab[row_pos][:, None] != lab[col_pos][None, :]
    positive = (batch[row_pos][:, None] == batch[col_pos][None, :]) & (row_view[:, None] != col_view[None, :])
    positive = positive & (row_pos[:, None] == col_pos[None, :])  # one positive per anchor row
    is_anchor = jnp.ones(2 * b, bool) if anchors == "both" else row_view == 0
    d_cl = other_sample | (positive if coupled else False)
    d_nscl = other_class | (positive if coupled else False)
    return is_anchor, positive, d_cl & is_anchor[:, None], d_nscl & is_anchor[:, None], other_sample, lab


def block_gradients(
    s_cl: jax.Array, s_nscl: jax.Array, batch: jax.Array, labels: jax.Array, *, tau: float,
    anchors: Anchors = "first", coupled: bool = False,
) -> tuple[jax.Array, jax.Array]:
    """Closed-form gradients (THEOREMS.md B3) on the 2B x 2B block, before merging duplicates.

    Args:
      s_cl, s_nscl: float (2B, 2B) blocks ``Sigma[R][:, R]`` with ``R = [batch, n + batch]``.
      batch: int (B,) sample indices; labels: int (n,) class of every sample.
      tau: temperature > 0 (not validated here: jit-level function).
      anchors, coupled: as in :func:`descent_step`.

    Returns: ``(G_cl, G_nscl)`` float (2B, 2B); rows of non-anchors are zero; NSCL rows whose
    denominator is empty are zero.
    """
    is_anchor, positive, d_cl, d_nscl, _, _ = _block_structure(batch, labels, anchors, coupled)
    num_anchors = jnp.sum(is_anchor)
    scale = 1.0 / (tau * num_anchors)
    pos = jnp.where(positive & is_anchor[:, None], 1.0, 0.0).astype(s_cl.dtype)

    b = batch.shape[0]
    na = b if anchors == "first" else 2 * b  # anchor rows come first; the others have G = 0 exactly

    def grad(s, d):
        d = d[:na]
        q = _masked_softmax(s[:na] / tau, d)
        g = (q - pos[:na] * jnp.any(d, axis=-1, keepdims=True)) * scale
        return g if na == 2 * b else jnp.concatenate([g, jnp.zeros((2 * b - na, 2 * b), g.dtype)])

    return grad(s_cl, d_cl), grad(s_nscl, d_nscl)


def _merge(block: jax.Array, canon: jax.Array) -> jax.Array:
    """Sum entries of duplicated batch positions onto their first occurrence (others become 0)."""
    return jnp.zeros_like(block).at[canon[:, None], canon[None, :]].add(block)


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

    Returns: ``(new_state, StepRecord)``. Cost O(B^2) time and memory; m only enters through the
    gather/scatter addresses (the batch is sorted first, which changes results only by the order
    of float sums, so the block addresses are increasing for XLA's sorted gather/scatter). Inputs are not validated here (the driver validates); an anchor with an
    empty NSCL denominator gets a zero NSCL row and is counted in ``nscl_empty``.

    Source: THEOREMS.md B3 (Luthra, Mishra, Galanti, arXiv 2510.08852, similarity-descent proxy).
    """
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
        eq = batch[:, None] == batch[None, :]
        first = jnp.argmax(eq, axis=1)  # first position holding the same sample
        canon = jnp.concatenate([first, first + b])
        is_first = jnp.concatenate([first == jnp.arange(b)] * 2)
        keep = (is_first[:, None] & is_first[None, :]).astype(state.sigma_cl.dtype)

    s_cl = state.sigma_cl.reshape(-1).at[flat].get(unique_indices=unique, **fast).reshape(2 * b, 2 * b)
    s_nscl = state.sigma_nscl.reshape(-1).at[flat].get(unique_indices=unique, **fast).reshape(2 * b, 2 * b)
    g_cl, g_nscl = block_gradients(s_cl, s_nscl, batch, labels, tau=tau, anchors=anchors, coupled=coupled)
    if not unique:
        g_cl, g_nscl = _merge(g_cl, canon), _merge(g_nscl, canon)
    if symmetrize:
        g_cl, g_nscl = 0.5 * (g_cl + g_cl.T), 0.5 * (g_nscl + g_nscl.T)

    pre_cl = s_cl - step_size * g_cl
    pre_nscl = s_nscl - step_size * g_nscl
    new_cl = jnp.clip(pre_cl, -1.0, 1.0) if clip else pre_cl
    new_nscl = jnp.clip(pre_nscl, -1.0, 1.0) if clip else pre_nscl
    if not unique:  # duplicates carry the value of their first occurrence, so .set is deterministic
        new_cl = new_cl[canon[:, None], canon[None, :]]
        new_nscl = new_nscl[canon[:, None], canon[None, :]]
    def put(sigma, block):
        return sigma.reshape(-1).at[flat].set(block.ravel(), unique_indices=unique, **fast).reshape(m, m)

    sigma_cl, sigma_nscl = put(state.sigma_cl, new_cl), put(state.sigma_nscl, new_nscl)

    d_old = s_cl - s_nscl
    d_new = new_cl - new_nscl
    d2 = jnp.maximum(state.d2 + jnp.sum(keep * (d_new * d_new - d_old * d_old)), 0.0)

    is_anchor, _, _, d_nscl_mask, other_sample, lab = _block_structure(batch, labels, anchors, coupled)
    first_rows = slice(0, b)
    other = other_sample[first_rows, :b]
    same = other & (lab[:, None] == lab[None, :])
    frac = jnp.sum(same, axis=1) / jnp.maximum(jnp.sum(other, axis=1), 1)
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


def batch_loss_on_sigma(
    sigma: jax.Array, batch: jax.Array, labels: jax.Array, *, tau: float, kind: Literal["cl", "nscl"],
    anchors: Anchors = "first", coupled: bool = False,
) -> jax.Array:
    """The batch loss of B1 written on the entries of Sigma (m, m): for ``jax.grad`` checks of B3.

    ``L = (1/A) sum_{anchor rows i} [ -Sigma_{i p(i)}/tau + log sum_{u in D_i} e^{Sigma_iu/tau} ]``.
    Anchors with an empty denominator are skipped. Returns a float scalar.
    """
    n = sigma.shape[0] // 2
    rows = jnp.concatenate([batch, batch + n])
    s = sigma[rows[:, None], rows[None, :]]
    is_anchor, positive, d_cl, d_nscl, _, _ = _block_structure(batch, labels, anchors, coupled)
    d = d_cl if kind == "cl" else d_nscl
    ok = jnp.any(d, axis=1)
    pos_s = jnp.sum(jnp.where(positive & is_anchor[:, None], s, 0.0), axis=1)
    xm = jnp.where(d, s / tau, -jnp.inf)
    top = jax.lax.stop_gradient(jnp.where(ok, jnp.max(xm, axis=1), 0.0))
    lse = jnp.log(jnp.sum(jnp.where(d, jnp.exp(jnp.where(d, s / tau - top[:, None], 0.0)), 0.0), axis=1)
                  + (~ok)) + top
    per = jnp.where(is_anchor & ok, -pos_s / tau + lse, 0.0)
    return jnp.sum(per) / jnp.sum(is_anchor)


def full_gradient(
    sigma: jax.Array, batch: jax.Array, labels: jax.Array, *, tau: float, kind: Literal["cl", "nscl"],
    anchors: Anchors = "first", coupled: bool = False,
) -> jax.Array:
    """The closed-form gradient scattered into an (m, m) matrix (O(m^2) memory: for tests and small m)."""
    n = sigma.shape[0] // 2
    rows = jnp.concatenate([batch, batch + n])
    s = sigma[rows[:, None], rows[None, :]]
    g_cl, g_nscl = block_gradients(s, s, batch, labels, tau=tau, anchors=anchors, coupled=coupled)
    g = g_cl if kind == "cl" else g_nscl
    return jnp.zeros_like(sigma).at[rows[:, None], rows[None, :]].add(g)


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
