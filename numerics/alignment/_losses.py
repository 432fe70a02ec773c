"""Contrastive batch losses of Paper B from two views: decoupled/coupled InfoNCE (CL), NSCL, SupCon (L_out).

All losses share one per-anchor form (docs/theorems.md B1)::

    loss_a = - sum_p w_ap * s_ap / tau + logsumexp_{u in D_a}(s_au / tau)

with ``s`` a similarity matrix (anchors x candidates), ``w`` non-negative positive weights (one 1 for
InfoNCE/NSCL, ``1/|P(a)|`` for SupCon L_out) and ``D_a`` the denominator set of anchor ``a``.

* CL, decoupled (default, the paper's form): ``D_i`` = both views of every other batch sample.
* CL, coupled (``coupled=True``; SimCLR's NT-Xent, the authors' code): ``D_i`` also holds the positive.
* NSCL: ``D_i`` = both views of every batch sample of another class (Luthra et al. 2025, 2506.04411).
* SupCon L_out (Khosla et al. 2020, eq. 2): anchors are all views, positives all other views of the
  same class, ``D_a`` every other view.

Masked rows (C06) are *rejected before computing*: the public functions check the (concrete) masks
and raise a ``ValueError`` naming the first bad anchor, or exclude such anchors when
``empty="exclude"`` (the count is returned by :func:`anchor_losses`). Inside ``jit`` (where masks are
traced) :func:`masked_logsumexp` is NaN-free in value *and* gradient (double-``where``, C07).
"""

from __future__ import annotations

from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_real
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.alignment._loss_core import (
    AnchorLosses,
    EmptyPolicy,
    anchor_loss_terms,
    anchor_losses,
    check_tau,
    cosine_similarity_matrix,
    loss_from_similarity,
    masked_logsumexp,
    min_tau,
    normalize,
    stable_mean,
)

__all__ = ["view_masks", "info_nce_loss", "nscl_loss", "supcon_loss", "batch_loss"]


# ----------------------------------------------------------------------------------------------
# Two-view batch losses (jit-able cores + validated public wrappers)


def view_masks(
    labels: np.ndarray | jax.Array,
    *,
    kind: Literal["cl", "nscl", "supcon"],
    coupled: bool = False,
    anchors: Literal["first", "both"] = "first",
) -> tuple[jax.Array, jax.Array]:
    """Positive weights and denominator mask over the stacked views ``[z; z']`` (2B columns).

    Args:
      labels: int array ``(B,)`` of class labels (ignored for ``kind="cl"``).
      kind: ``"cl"`` (other samples), ``"nscl"`` (other-class samples), ``"supcon"`` (L_out).
      coupled: include the positive in the denominator (InfoNCE/NSCL only; SupCon always couples).
      anchors: ``"first"`` (rows = first views, the paper's form) or ``"both"`` (2B rows).
        SupCon always uses both views as anchors.

    Returns:
      ``(positive_weights, denominator_mask)``, shapes ``(A, 2B)`` with A = B or 2B. jit-safe.
    """
    labels = jnp.asarray(labels)
    b = labels.shape[0]
    idx = jnp.arange(b)
    sample = jnp.concatenate([idx, idx])  # sample of each of the 2B columns
    lab2 = jnp.concatenate([labels, labels])
    if kind == "supcon":
        rows = jnp.arange(2 * b)
        not_self = rows[:, None] != rows[None, :]
        same = lab2[:, None] == lab2[None, :]
        pos = same & not_self
        cnt = jnp.sum(pos, axis=1, keepdims=True)
        pw = jnp.where(pos, 1.0 / jnp.maximum(cnt, 1), 0.0)
        return pw, not_self
    row_sample = idx if anchors == "first" else jnp.concatenate([idx, idx])
    row_view = jnp.zeros(b, int) if anchors == "first" else jnp.concatenate([jnp.zeros(b, int), jnp.ones(b, int)])
    col_view = jnp.concatenate([jnp.zeros(b, int), jnp.ones(b, int)])
    same_sample = row_sample[:, None] == sample[None, :]
    pos = same_sample & (row_view[:, None] != col_view[None, :])
    if kind == "cl":
        denom = ~same_sample
    elif kind == "nscl":
        row_lab = labels[row_sample]
        denom = row_lab[:, None] != lab2[None, :]
    else:
        raise ValueError(f"kind={kind!r} must be 'cl', 'nscl' or 'supcon'")
    if coupled:
        denom = denom | pos
    return pos.astype(jnp.result_type(float)), denom


def _stacked_sim(z1: jax.Array, z2: jax.Array, anchors: str, kind: str) -> jax.Array:
    zz = jnp.concatenate([z1, z2], axis=0)
    rows = z1 if (anchors == "first" and kind != "supcon") else zz
    return cosine_similarity_matrix(rows, zz)


def batch_loss(z1, z2, labels, *, tau, kind: str, coupled: bool = False, anchors: str = "first") -> jax.Array:
    """jit-able mean batch loss from two views; assumes every anchor's sets are non-empty.

    Intended for training loops whose batches were validated (or made non-empty) beforehand; anchors
    with an empty set contribute 0 and are left out of the mean (no NaN in value or gradient).
    Shapes: ``z1, z2`` ``(B, d)`` float (normalised inside), ``labels`` ``(B,)`` int.
    """
    require_x64(z1, z2, what="contrastive_bounds.numerics.alignment.batch_loss")
    sim = _stacked_sim(z1, z2, anchors, kind)
    pw, dm = view_masks(labels, kind=kind, coupled=coupled, anchors=anchors)
    ok = jnp.any(dm, axis=1) & jnp.any(pw > 0, axis=1)
    per = jnp.where(ok, anchor_loss_terms(sim, pw, dm & ok[:, None], tau), 0.0)
    return stable_mean(per, jnp.maximum(jnp.sum(ok), 1))


def _two_view(z1, z2, labels, tau, kind, coupled, anchors, empty, what):
    check_real("tau", tau, 0.0)
    z1n = normalize(z1)
    z2n = normalize(z2)
    tau = check_tau(tau, jnp.result_type(z1n, z2n))
    if z1n.shape != z2n.shape or z1n.ndim != 2:
        raise ValueError(f"z1 and z2 must have the same shape (B, d); got {z1n.shape} and {z2n.shape}")
    if anchors not in ("first", "both"):
        raise ValueError(f"anchors={anchors!r} must be 'first' or 'both'")
    b = z1n.shape[0]
    if labels is None:
        labels = np.arange(b)
    lab = check_finite_array("labels", np.asarray(labels), ndim=1)
    if lab.shape[0] != b:
        raise ValueError(f"labels has length {lab.shape[0]}, expected the batch size {b}")
    if b < 2:
        raise ValueError(f"batch_size={b} must be at least 2 (an anchor needs another sample)")
    sim = _stacked_sim(z1n, z2n, anchors, kind)
    pw, dm = view_masks(lab, kind=kind, coupled=coupled, anchors=anchors)
    res = anchor_losses(sim, pw, dm, tau=tau, empty=empty)
    n = res.losses.shape[0] - res.num_excluded
    if n == 0:
        raise ValueError(f"{what}: every anchor was excluded (no valid anchor in the batch)")
    return stable_mean(res.losses, n)


def info_nce_loss(z1, z2, *, tau: float, coupled: bool = False, anchors: Literal["first", "both"] = "first") -> jax.Array:
    """CL batch loss (InfoNCE), decoupled by default.

    ``l_i = -s(z_i, z_i')/tau + log sum_{t != i} [e^{s(z_i,z_t)/tau} + e^{s(z_i,z_t')/tau}]``, mean over
    anchors; ``coupled=True`` adds ``e^{s(z_i,z_i')/tau}`` to the sum (NT-Xent's denominator).

    Args:
      z1, z2: float arrays ``(B, d)``, the two views (normalised here; a zero row raises), B >= 2.
      tau: temperature in (0, inf).
      coupled: positive inside the denominator.
      anchors: ``"first"`` (paper) or ``"both"`` views as anchors (mean over 2B anchors).

    Returns: scalar float (dtype of the inputs).

    Raises: ValueError for a zero row, NaN/inf, B < 2, bad tau or mismatched shapes.

    Source: docs/theorems.md B1; Luthra et al. (arXiv 2510.08852), decoupled CL of Yeh et al. 2022.
    """
    require_x64(z1, z2, what="contrastive_bounds.numerics.alignment.info_nce_loss")
    return _two_view(z1, z2, None, tau, "cl", coupled, anchors, "error", "info_nce_loss")


def nscl_loss(
    z1, z2, labels, *, tau: float, coupled: bool = False, anchors: Literal["first", "both"] = "first",
    empty: EmptyPolicy = "error",
) -> jax.Array:
    """NSCL batch loss: InfoNCE whose denominator keeps only samples of another class.

    Args:
      z1: first views (B, d), as in :func:`info_nce_loss`.
      z2: second views (B, d).
      labels: class labels (B,) ints.
      tau: temperature > 0.
      coupled: positive inside the denominator.
      anchors: ``"first"`` or ``"both"`` views as anchors.
      empty: ``"error"`` (an anchor whose batch has no other-class sample raises ``ValueError``
        naming the anchor, C06) or ``"exclude"`` (it is left out of the mean).

    Source: docs/theorems.md B1; Luthra, Mishra, Galanti (arXiv 2510.08852), NSCL.
    """
    require_x64(z1, z2, what="contrastive_bounds.numerics.alignment.nscl_loss")
    return _two_view(z1, z2, labels, tau, "nscl", coupled, anchors, empty, "nscl_loss")


def supcon_loss(z1, z2, labels, *, tau: float, empty: EmptyPolicy = "error") -> jax.Array:
    """SupCon ``L_out`` (Khosla et al. 2020, eq. 2), averaged over anchors.

    Every view of the batch is an anchor ``a``; ``A(a)`` = all other views; ``P(a)`` = the views in
    ``A(a)`` of the same class; ``l_a = -1/|P(a)| sum_{p in P(a)} log softmax_{A(a)}(s/tau)_p``.
    Khosla et al. sum over anchors; we take the mean (a factor 2B) so it is comparable to CL.
    Pass ``z2=None`` for a single view (anchors are then the B rows of ``z1``), as in case C06.

    Raises:
      ValueError: an anchor without a positive (C06; or excluded with ``empty="exclude"``), zero
        rows, bad tau.
    """
    require_x64(z1, z2, what="contrastive_bounds.numerics.alignment.supcon_loss")
    if z2 is None:
        check_real("tau", tau, 0.0)
        z = normalize(z1)
        tau = check_tau(tau, z.dtype)
        lab = check_finite_array("labels", np.asarray(labels), ndim=1)
        if lab.shape[0] != z.shape[0]:
            raise ValueError(f"labels has length {lab.shape[0]}, expected {z.shape[0]}")
        sim = cosine_similarity_matrix(z, z)
        b = z.shape[0]
        not_self = ~np.eye(b, dtype=bool)
        pos = (lab[:, None] == lab[None, :]) & not_self
        pw = pos / np.maximum(pos.sum(1, keepdims=True), 1)
        return loss_from_similarity(sim, pw, not_self, tau=tau, empty=empty)
    return _two_view(z1, z2, labels, tau, "supcon", False, "both", empty, "supcon_loss")
