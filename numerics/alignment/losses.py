"""Contrastive losses of Paper B: decoupled/coupled InfoNCE (CL), NSCL, SupCon (L_out).

All losses share one per-anchor form (THEOREMS.md B1)::

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

from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_finite_array, check_real
from contrastive_bounds.numerics.precision import require_x64

__all__ = [
    "masked_logsumexp",
    "normalize",
    "cosine_similarity_matrix",
    "AnchorLosses",
    "anchor_losses",
    "loss_from_similarity",
    "view_masks",
    "info_nce_loss",
    "nscl_loss",
    "supcon_loss",
    "batch_loss",
    "min_tau",
]

EmptyPolicy = Literal["error", "exclude"]


def masked_logsumexp(x: jax.Array, mask: jax.Array, axis: int = -1) -> jax.Array:
    """Stable ``log sum_{mask} exp(x)`` along ``axis``, NaN-free in value and gradient.

    Args:
      x: float array (any shape); entries outside ``mask`` may be anything, including ``-inf``.
      mask: bool array broadcastable to ``x``; ``True`` marks the entries that are summed.
      axis: the reduced axis.

    Returns:
      Array of ``x``'s shape without ``axis``; ``-inf`` on rows whose mask is empty or whose
      unmasked entries are all ``-inf``, with a zero (not NaN) gradient there. Entries outside the mask get an exact zero gradient (double-where:
      they are replaced *before* ``exp``; case C07).

    Source: the standard max-shift log-sum-exp; the masking follows C06/C07 of CASES.md.
    """
    require_x64(x, what="alignment.losses.masked_logsumexp")
    mask = jnp.broadcast_to(mask, x.shape)
    any_row = jnp.any(mask, axis=axis, keepdims=True)
    x_in = jnp.where(mask, x, -jnp.inf)
    top = jnp.argmax(x_in, axis=axis, keepdims=True)
    # the arg-max entry contributes exactly 1; the rest go through log1p (accurate when tiny)
    is_top = jnp.arange(x.shape[axis]).reshape([-1 if a == (axis % x.ndim) else 1 for a in range(x.ndim)]) == top
    rest_mask = mask & ~is_top
    top_val = jnp.take_along_axis(jnp.where(mask, x, 0.0), top, axis=axis)  # 0 on empty rows
    # a row whose unmasked entries are all -inf sums exp(-inf) = 0: its value is -inf, like an empty
    # row; shifting by a finite stand-in keeps (-inf) - (-inf) = NaN out of value and gradient
    live = any_row & (top_val > -jnp.inf)
    shift = jnp.where(live, top_val, 0.0)
    # double where: masked entries are replaced *before* exp, so they get an exact zero gradient
    diff = jnp.where(rest_mask & live, x - shift, 0.0)
    rest = jnp.sum(jnp.where(rest_mask & live, jnp.exp(diff), 0.0), axis=axis, keepdims=True)
    out = jnp.where(live, jnp.log1p(rest) + shift, -jnp.inf)
    return jnp.squeeze(out, axis=axis)


def _safe_normalize(z: jax.Array, axis: int = -1) -> jax.Array:
    """Rows of ``z`` divided by their norm; a zero row maps to zero with a zero (not NaN) gradient."""
    sq = jnp.sum(z * z, axis=axis, keepdims=True)
    ok = sq > 0
    inv = jnp.where(ok, jax.lax.rsqrt(jnp.where(ok, sq, 1.0)), 0.0)
    return z * inv


def normalize(z: jax.Array | np.ndarray) -> jax.Array:
    """Project each row of ``z`` onto the unit sphere.

    Args:
      z: float array of shape ``(..., d)``, finite.

    Returns:
      ``z / ||z||`` row-wise, same shape and dtype.

    Raises:
      ValueError: a zero row (it has no direction; case C07), NaN or inf.
    """
    require_x64(z, what="alignment.losses.normalize")
    zn = check_finite_array("z", np.asarray(z))
    norms = np.linalg.norm(zn, axis=-1)
    if np.any(norms == 0):
        bad = tuple(int(i) for i in np.argwhere(norms == 0)[0])
        raise ValueError(f"z has a zero row at index {bad}: a zero vector cannot be projected onto the sphere")
    return _safe_normalize(jnp.asarray(z))


def cosine_similarity_matrix(a: jax.Array, b: jax.Array) -> jax.Array:
    """Cosine similarities ``s(a_i, b_j)`` of shape ``(len(a), len(b))`` (jit-safe; zero rows give 0)."""
    require_x64(a, b, what="alignment.losses.cosine_similarity_matrix")
    return _safe_normalize(a) @ _safe_normalize(b).T


class AnchorLosses(NamedTuple):
    """Per-anchor losses: ``losses`` (A,) float (0 where excluded), ``included`` (A,) bool, ``num_excluded`` int."""

    losses: jax.Array
    included: jax.Array
    num_excluded: int


def _core(sim: jax.Array, pos_w: jax.Array, denom: jax.Array, tau: float | jax.Array) -> jax.Array:
    """Per-anchor ``-sum_p w s/tau + lse_D(s/tau)``; entries of ``sim`` equal to -inf count as masked.

    Every difference is formed in similarity units *before* dividing by ``tau``:
    ``lse_D((s - sbar)/tau) = M/tau + lse_D((s - sbar - M)/tau)`` with ``M = max_D (s - sbar)``. The
    second term is in ``[0, log|D|]`` (its arg-max entry is exactly 0; the others are <= 0 and may
    underflow to ``-inf``, whose ``exp`` is 0), so no ``inf - inf`` appears for any ``tau > 0``; for
    cosines ``|M| <= 2``, so ``M/tau`` is finite whenever ``tau`` is at least the smallest normal
    number of the dtype (:func:`min_tau`).
    """
    finite = jnp.isfinite(sim)
    s = jnp.where(finite, sim, 0.0)  # mask before dividing by tau (C07): no -inf/tau in the graph
    denom = denom & finite
    w = jnp.where((pos_w > 0) & finite, pos_w, 0.0)
    wsum = jnp.sum(w, axis=-1, keepdims=True)
    # weighted positive similarity; the shift by it makes -s_p/tau + lse exact without cancellation
    sbar = jnp.sum(w * s, axis=-1, keepdims=True) / jnp.where(wsum > 0, wsum, 1.0)
    sbar = jnp.where(wsum > 0, sbar, 0.0)
    d = s - sbar
    any_den = jnp.any(denom, axis=-1, keepdims=True)
    top = jnp.max(jnp.where(denom, d, -jnp.inf), axis=-1, keepdims=True)
    top = jnp.where(any_den, top, 0.0)
    below = jnp.where(denom, d - top, 0.0)  # <= 0 on D; masked entries never reach the division
    lse = masked_logsumexp(below / tau, denom, axis=-1) + jnp.squeeze(top, -1) / tau
    return lse + jnp.squeeze((1.0 - wsum) * sbar, -1) / tau


def _mean(x: jax.Array, count) -> jax.Array:
    """``sum(x) / count`` without overflow: each term is divided first (|mean| <= max |x|)."""
    return jnp.sum(x / count)


def min_tau(dtype=None) -> float:
    """The smallest temperature the losses accept for a computation in ``dtype``.

    It is the smallest *normal* number of the dtype (``numpy.finfo(dtype).tiny``):
    2.2250738585072014e-308 for float64, 1.1754943508222875e-38 for float32. Below it ``tau`` itself
    is subnormal (it has lost precision, or rounds to 0 in float32) and a logit ``s/tau`` of a cosine
    ``|s| <= 2`` can exceed the dtype's range, so the loss (of order ``1/tau``) may not be
    representable. For ``tau >= min_tau`` every cosine loss is finite (``2/tiny < max``).

    Args:
      dtype: a float dtype, or ``None`` for JAX's default float (float64 when x64 is on, float32
        otherwise); a given dtype is answered for itself (float64's floor even while x64 is off,
        where every loss refuses float64 input with ``X64DisabledError``).

    Returns: float, the smallest accepted ``tau``.
    """
    dt = jnp.result_type(float) if dtype is None else np.dtype(dtype)  # the dtype asked for, not JAX's
    if not jnp.issubdtype(dt, jnp.floating):
        dt = jnp.result_type(float)
    return float(np.finfo(dt).tiny)


def _check_tau(tau, dtype) -> float:
    """``tau`` validated in (0, inf) and, for ``dtype``, at least :func:`min_tau` (ValueError otherwise)."""
    tau = check_real("tau", tau, 0.0)
    dt = jax.dtypes.canonicalize_dtype(dtype)
    if not jnp.issubdtype(dt, jnp.floating):
        dt = jnp.result_type(float)
    floor = min_tau(dt)
    if tau < floor:
        hint = ""
        if np.dtype(dt) == np.float32 and not jax.config.jax_enable_x64:
            hint = (f"; JAX's x64 mode is off, so the loss is computed in float32: call "
                    f"contrastive_bounds.numerics.precision.enable_x64() for float64 (smallest tau {float(np.finfo(np.float64).tiny)!r})")
        raise ValueError(
            f"tau={tau!r} is below the smallest supported temperature {floor!r} for {np.dtype(dt).name} "
            f"(the smallest normal {np.dtype(dt).name}; below it tau loses precision and the loss, of order "
            f"1/tau, can exceed the {np.dtype(dt).name} range){hint}"
        )
    return tau


def _check_finite_losses(per: jax.Array, tau: float, what: str) -> None:
    """Raise instead of returning an overflowed (inf) or NaN per-anchor loss."""
    bad = ~np.isfinite(np.asarray(per))
    if np.any(bad):
        a = int(np.argmax(bad))
        raise ValueError(
            f"{what}: the loss of anchor {a} overflows {np.asarray(per).dtype} at tau={tau!r} (it is of order "
            "max|sim|/tau); use a larger tau or rescale sim"
        )


def _check_masks(pos_w: np.ndarray, denom: np.ndarray, sim: np.ndarray, empty: str, what: str) -> np.ndarray:
    if empty not in ("error", "exclude"):
        raise ValueError(f"empty={empty!r} must be 'error' or 'exclude'")
    finite = np.isfinite(sim)
    has_den = np.any(denom & finite, axis=-1)
    has_pos = np.any((pos_w > 0) & finite, axis=-1)
    ok = has_den & has_pos
    if empty == "error" and not np.all(ok):
        a = int(np.argmin(ok))
        kind = "no denominator (negative) entry" if not has_den[a] else "no positive"
        raise ValueError(f"{what}: anchor {a} has {kind}; pass empty='exclude' to drop such anchors")
    return ok


def anchor_losses(
    sim: jax.Array | np.ndarray,
    positive_weights: jax.Array | np.ndarray,
    denominator_mask: jax.Array | np.ndarray,
    *,
    tau: float,
    empty: EmptyPolicy = "error",
) -> AnchorLosses:
    """Per-anchor contrastive losses from a similarity matrix and index sets.

    Args:
      sim: float array ``(A, K)`` of similarities (cosines in [-1, 1] for the paper's losses; any
        finite value is accepted; ``-inf`` marks an entry as absent).
      positive_weights: float array ``(A, K)``, non-negative; row ``a`` weights the positives of
        anchor ``a`` (InfoNCE: a single 1; SupCon: ``1/|P(a)|`` on each positive).
      denominator_mask: bool array ``(A, K)``; the set ``D_a`` of the log-sum-exp.
      tau: temperature, in ``[min_tau(dtype), inf)`` (:func:`min_tau`; the smallest normal number of
        the computation's dtype).
      empty: ``"error"`` (default) raises on an anchor with an empty ``D_a`` or no positive (C06);
        ``"exclude"`` drops such anchors (loss 0, ``included`` False) and counts them.

    Returns:
      :class:`AnchorLosses`. Masks are checked on concrete values *before* any computation.

    Raises:
      ValueError: bad ``tau`` (not in (0, inf), or below :func:`min_tau` of the dtype); shapes differ;
        NaN in ``sim``; negative weights; an empty row under ``empty="error"`` (the message names the
        anchor); a loss that overflows the dtype (only possible for similarities far outside
        [-1, 1], as the loss is of order ``max|sim|/tau``). Never returns NaN or inf.

    Source: THEOREMS.md B1 (Luthra et al., arXiv 2510.08852, eq. of L^CL/L^NSCL); Khosla et al. 2020.
    """
    require_x64(sim, what="alignment.losses.anchor_losses")
    sim_np = np.asarray(sim)
    tau = _check_tau(tau, jnp.result_type(sim_np.dtype if sim_np.dtype.kind == "f" else float))
    if np.any(np.isnan(sim_np)) or np.any(sim_np == np.inf):
        raise ValueError("sim contains NaN or +inf")
    pw = np.asarray(positive_weights, dtype=sim_np.dtype if sim_np.dtype.kind == "f" else float)
    dm = np.asarray(denominator_mask, dtype=bool)
    if sim_np.ndim != 2 or pw.shape != sim_np.shape or dm.shape != sim_np.shape:
        raise ValueError(
            f"sim, positive_weights and denominator_mask must share a 2-D shape; got {sim_np.shape}, {pw.shape}, {dm.shape}"
        )
    check_finite_array("positive_weights", pw)
    if np.any(pw < 0):
        raise ValueError("positive_weights must be non-negative")
    ok = _check_masks(pw, dm, sim_np, empty, "anchor_losses")
    okj = jnp.asarray(ok)
    per = _core(jnp.asarray(sim), jnp.asarray(pw), jnp.asarray(dm) & okj[:, None], tau)
    per = jnp.where(okj, per, 0.0)
    _check_finite_losses(per, tau, "anchor_losses")
    return AnchorLosses(per, okj, int(np.sum(~ok)))


def loss_from_similarity(sim, positive_weights, denominator_mask, *, tau: float, empty: EmptyPolicy = "error") -> jax.Array:
    """Mean of :func:`anchor_losses` over the included anchors (float scalar; same arguments and errors)."""
    require_x64(sim, what="alignment.losses.loss_from_similarity")
    res = anchor_losses(sim, positive_weights, denominator_mask, tau=tau, empty=empty)
    n = res.losses.shape[0] - res.num_excluded
    if n == 0:
        raise ValueError("every anchor was excluded: the loss is undefined")
    return _mean(res.losses, n)


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
    require_x64(z1, z2, what="alignment.losses.batch_loss")
    sim = _stacked_sim(z1, z2, anchors, kind)
    pw, dm = view_masks(labels, kind=kind, coupled=coupled, anchors=anchors)
    ok = jnp.any(dm, axis=1) & jnp.any(pw > 0, axis=1)
    per = jnp.where(ok, _core(sim, pw, dm & ok[:, None], tau), 0.0)
    return _mean(per, jnp.maximum(jnp.sum(ok), 1))


def _two_view(z1, z2, labels, tau, kind, coupled, anchors, empty, what):
    check_real("tau", tau, 0.0)
    z1n = normalize(z1)
    z2n = normalize(z2)
    tau = _check_tau(tau, jnp.result_type(z1n, z2n))
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
    return _mean(res.losses, n)


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

    Source: THEOREMS.md B1; Luthra et al. (arXiv 2510.08852), decoupled CL of Yeh et al. 2022.
    """
    require_x64(z1, z2, what="alignment.losses.info_nce_loss")
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

    Source: THEOREMS.md B1; Luthra, Mishra, Galanti (arXiv 2510.08852), NSCL.
    """
    require_x64(z1, z2, what="alignment.losses.nscl_loss")
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
    require_x64(z1, z2, what="alignment.losses.supcon_loss")
    if z2 is None:
        check_real("tau", tau, 0.0)
        z = normalize(z1)
        tau = _check_tau(tau, z.dtype)
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
