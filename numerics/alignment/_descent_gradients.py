"""The closed-form gradient of the coupled CL / NSCL similarity descent on a batch block (docs/theorems.md B3).

On the 2B x 2B block of Sigma gathered at rows/columns ``[batch, n + batch]`` (first views, then
second views), with A anchors (A = B, or 2B with ``anchors="both"``)::

    G[i, p(i)] = -1/(tau A) (+ q_{i p(i)}/(tau A) when coupled)
    G[i, u]    =  q_iu/(tau A),  q_i. = softmax_{u in D_i}(Sigma_iu / tau)

``D_i`` = both views of the other batch samples (CL) or of the batch samples of another class
(NSCL): :func:`block_structure` builds these index sets, :func:`rows_gradient` the rows of anchors,
:func:`block_gradients` both runs' blocks. The step that applies them is :func:`._descent.descent_step`.
For checks of the closed form: the batch loss written on the entries of Sigma
(:func:`batch_loss_on_sigma`, for ``jax.grad``) and the block gradient scattered into a dense (m, m)
matrix (:func:`full_gradient`; O(m^2) memory, for tests and small m).
"""

from __future__ import annotations

from typing import Literal

import jax
import jax.numpy as jnp

from contrastive_bounds.numerics._precision import require_x64

__all__ = ["Anchors", "block_structure", "rows_gradient", "block_gradients", "batch_loss_on_sigma", "full_gradient"]

Anchors = Literal["first", "both"]


def _masked_softmax(x: jax.Array, mask: jax.Array) -> jax.Array:
    """Row softmax over ``mask``; zero (not NaN, also in the gradient) on rows with an empty mask."""
    any_row = jnp.any(mask, axis=-1, keepdims=True)
    xm = jnp.where(mask, x, -jnp.inf)
    top = jnp.where(any_row, jnp.max(xm, axis=-1, keepdims=True), 0.0)
    e = jnp.where(mask, jnp.exp(jnp.where(mask, x - top, 0.0)), 0.0)
    tot = jnp.sum(e, axis=-1, keepdims=True)
    return e / jnp.where(any_row, tot, 1.0)


def rows_gradient(s: jax.Array, d: jax.Array, pos: jax.Array, tau, scale) -> jax.Array:
    """B3 gradient rows ``(softmax_D(s / tau) - [positive] * [D nonempty]) * scale`` of anchor rows ``s`` (r, 2B).

    Args:
      s: float (r, 2B) anchor rows of the block; d: bool (r, 2B) denominator mask; pos: float (r, 2B)
        positive indicator; tau: temperature > 0; scale: ``1/(tau A)``, A the number of anchors.

    Returns:
      float (r, 2B), dtype of ``s``; zero on rows whose denominator is empty (no NaN, also in the
      gradient).

    Raises:
      X64DisabledError: float64 ``s`` while JAX's x64 mode is off.

    Source: docs/theorems.md B3 (closed form of the gradient).
    """
    require_x64(s, what="contrastive_bounds.numerics.alignment.rows_gradient")
    q = _masked_softmax(s / tau, d)
    return (q - pos * jnp.any(d, axis=-1, keepdims=True)) * scale


def block_structure(batch: jax.Array, labels: jax.Array, anchors: Anchors, coupled: bool):
    """Index sets of the 2B x 2B block: rows/cols ordered [first views of batch, second views].

    Args:
      batch: int (B,) sample indices; labels: int (n,) class of every sample; anchors: ``"first"`` or
        ``"both"``; coupled: the positive inside the denominator (static).

    Returns:
      ``(is_anchor bool (2B,), positive bool (2B, 2B), d_cl bool (2B, 2B), d_nscl bool (2B, 2B),
      batch labels int (B,))``: one positive per anchor row; the CL denominator holds both views of
      every other batch sample, the NSCL one those of another class (docs/theorems.md B3). Integer and
      boolean arithmetic only (x64 does not matter).
    """
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
    return is_anchor, positive, d_cl & is_anchor[:, None], d_nscl & is_anchor[:, None], lab


def block_gradients(
    s_cl: jax.Array, s_nscl: jax.Array, batch: jax.Array, labels: jax.Array, *, tau: float,
    anchors: Anchors = "first", coupled: bool = False,
) -> tuple[jax.Array, jax.Array]:
    """Closed-form gradients (docs/theorems.md B3) on the 2B x 2B block, before merging duplicates.

    Args:
      s_cl, s_nscl: float (2B, 2B) blocks ``Sigma[R][:, R]`` with ``R = [batch, n + batch]``.
      batch: int (B,) sample indices; labels: int (n,) class of every sample.
      tau: temperature > 0 (not validated here: jit-level function).
      anchors, coupled: as in :func:`descent_step`.

    Returns: ``(G_cl, G_nscl)`` float (2B, 2B); rows of non-anchors are zero; NSCL rows whose
    denominator is empty are zero.
    """
    require_x64(s_cl, s_nscl, what="contrastive_bounds.numerics.alignment.block_gradients")
    is_anchor, positive, d_cl, d_nscl, _ = block_structure(batch, labels, anchors, coupled)
    num_anchors = jnp.sum(is_anchor)
    scale = 1.0 / (tau * num_anchors)
    pos = jnp.where(positive & is_anchor[:, None], 1.0, 0.0).astype(s_cl.dtype)

    b = batch.shape[0]
    na = b if anchors == "first" else 2 * b  # anchor rows come first; the others have G = 0 exactly

    def grad(s, d):
        g = rows_gradient(s[:na], d[:na], pos[:na], tau, scale)
        return g if na == 2 * b else jnp.concatenate([g, jnp.zeros((2 * b - na, 2 * b), g.dtype)])

    return grad(s_cl, d_cl), grad(s_nscl, d_nscl)


def batch_loss_on_sigma(
    sigma: jax.Array, batch: jax.Array, labels: jax.Array, *, tau: float, kind: Literal["cl", "nscl"],
    anchors: Anchors = "first", coupled: bool = False,
) -> jax.Array:
    """The batch loss of B1 written on the entries of Sigma (m, m): for ``jax.grad`` checks of B3.

    ``L = (1/A) sum_{anchor rows i} [ -Sigma_{i p(i)}/tau + log sum_{u in D_i} e^{Sigma_iu/tau} ]``.
    Anchors with an empty denominator are skipped. Returns a float scalar.
    """
    require_x64(sigma, what="contrastive_bounds.numerics.alignment.batch_loss_on_sigma")
    n = sigma.shape[0] // 2
    rows = jnp.concatenate([batch, batch + n])
    s = sigma[rows[:, None], rows[None, :]]
    is_anchor, positive, d_cl, d_nscl, _ = block_structure(batch, labels, anchors, coupled)
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
    require_x64(sigma, what="contrastive_bounds.numerics.alignment.full_gradient")
    n = sigma.shape[0] // 2
    rows = jnp.concatenate([batch, batch + n])
    s = sigma[rows[:, None], rows[None, :]]
    g_cl, g_nscl = block_gradients(s, s, batch, labels, tau=tau, anchors=anchors, coupled=coupled)
    g = g_cl if kind == "cl" else g_nscl
    return jnp.zeros_like(sigma).at[rows[:, None], rows[None, :]].add(g)
