"""The per-anchor form shared by every contrastive loss of Paper B, on a similarity matrix
(docs/theorems.md B1)::

    loss_a = - sum_p w_ap * s_ap / tau + logsumexp_{u in D_a}(s_au / tau)

with ``s`` a similarity matrix (anchors x candidates), ``w`` non-negative positive weights and
``D_a`` the denominator set of anchor ``a``: :func:`anchor_losses` (validated: empty rows are
rejected or excluded, C06), :func:`loss_from_similarity` (their mean), :func:`anchor_loss_terms`
(the jit-able core, no validation), the NaN-free :func:`masked_logsumexp` (C07), the cosine
similarities (:func:`normalize`, :func:`cosine_similarity_matrix`), the temperature floor
(:func:`min_tau`, :func:`check_tau`) and :func:`stable_mean`. The two-view batch losses built on
this form are in :mod:`._losses`.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_real
from contrastive_bounds.numerics._precision import require_x64

__all__ = [
    "masked_logsumexp",
    "normalize",
    "cosine_similarity_matrix",
    "AnchorLosses",
    "anchor_loss_terms",
    "stable_mean",
    "anchor_losses",
    "loss_from_similarity",
    "min_tau",
    "check_tau",
    "EmptyPolicy",
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

    Source: the standard max-shift log-sum-exp; the masking follows C06/C07 of docs/reference-values.md.
    """
    require_x64(x, what="contrastive_bounds.numerics.alignment.masked_logsumexp")
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
    require_x64(z, what="contrastive_bounds.numerics.alignment.normalize")
    zn = check_finite_array("z", np.asarray(z))
    norms = np.linalg.norm(zn, axis=-1)
    if np.any(norms == 0):
        bad = tuple(int(i) for i in np.argwhere(norms == 0)[0])
        raise ValueError(f"z has a zero row at index {bad}: a zero vector cannot be projected onto the sphere")
    return _safe_normalize(jnp.asarray(z))


def cosine_similarity_matrix(a: jax.Array, b: jax.Array) -> jax.Array:
    """Cosine similarities ``s(a_i, b_j)`` of shape ``(len(a), len(b))`` (jit-safe; zero rows give 0)."""
    require_x64(a, b, what="contrastive_bounds.numerics.alignment.cosine_similarity_matrix")
    return _safe_normalize(a) @ _safe_normalize(b).T


class AnchorLosses(NamedTuple):
    """Per-anchor losses: ``losses`` (A,) float (0 where excluded), ``included`` (A,) bool, ``num_excluded`` int."""

    losses: jax.Array
    included: jax.Array
    num_excluded: int


def anchor_loss_terms(sim: jax.Array, pos_w: jax.Array, denom: jax.Array, tau: float | jax.Array) -> jax.Array:
    """Per-anchor ``-sum_p w s/tau + lse_D(s/tau)`` with no validation (the jit-able core of
    :func:`anchor_losses`); entries of ``sim`` equal to -inf count as masked.

    Args:
      sim: float (A, K) similarities; pos_w: float (A, K) positive weights >= 0; denom: bool (A, K)
        denominator mask; tau: temperature > 0 (at least :func:`min_tau` of the dtype).

    Returns:
      float (A,) per-anchor losses (dtype of ``sim``); an anchor with an empty denominator gets a
      finite meaningless value (callers mask it; :func:`anchor_losses` rejects or excludes it).

    Raises:
      X64DisabledError: float64 input while JAX's x64 mode is off.

    Every difference is formed in similarity units *before* dividing by ``tau``:
    ``lse_D((s - sbar)/tau) = M/tau + lse_D((s - sbar - M)/tau)`` with ``M = max_D (s - sbar)``. The
    second term is in ``[0, log|D|]`` (its arg-max entry is exactly 0; the others are <= 0 and may
    underflow to ``-inf``, whose ``exp`` is 0), so no ``inf - inf`` appears for any ``tau > 0``; for
    cosines ``|M| <= 2``, so ``M/tau`` is finite whenever ``tau`` is at least the smallest normal
    number of the dtype (:func:`min_tau`). Source: docs/theorems.md B1 (the shared per-anchor form).
    """
    require_x64(sim, pos_w, tau, what="contrastive_bounds.numerics.alignment.anchor_loss_terms")
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


def stable_mean(x: jax.Array, count: int | jax.Array) -> jax.Array:
    """``sum(x) / count`` without overflow: each term is divided first (|mean| <= max |x|).

    Args:
      x: float array, any shape; count: the divisor (> 0), a Python int or a traced integer.

    Returns:
      float scalar, dtype of ``x``.

    Raises:
      X64DisabledError: float64 ``x`` while JAX's x64 mode is off.
    """
    require_x64(x, what="contrastive_bounds.numerics.alignment.stable_mean")
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


def check_tau(tau: float, dtype) -> float:
    """``tau`` validated in (0, inf) and, for ``dtype``, at least :func:`min_tau`.

    Args:
      tau: the temperature; dtype: the float dtype the loss is computed in (a non-float dtype means
        JAX's default float).

    Returns:
      ``tau`` as a float.

    Raises:
      ValueError: ``tau`` not finite and > 0, or below :func:`min_tau` of the dtype (with the hint to
        enable x64 when the dtype is float32 because x64 is off).
    """
    tau = check_real("tau", tau, 0.0)
    dt = jax.dtypes.canonicalize_dtype(dtype)
    if not jnp.issubdtype(dt, jnp.floating):
        dt = jnp.result_type(float)
    floor = min_tau(dt)
    if tau < floor:
        hint = ""
        if np.dtype(dt) == np.float32 and not jax.config.jax_enable_x64:
            hint = (f"; JAX's x64 mode is off, so the loss is computed in float32: call "
                    f"contrastive_bounds.numerics.enable_x64() for float64 (smallest tau {float(np.finfo(np.float64).tiny)!r})")
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

    Source: docs/theorems.md B1 (Luthra et al., arXiv 2510.08852, eq. of L^CL/L^NSCL); Khosla et al. 2020.
    """
    require_x64(sim, what="contrastive_bounds.numerics.alignment.anchor_losses")
    sim_np = np.asarray(sim)
    tau = check_tau(tau, jnp.result_type(sim_np.dtype if sim_np.dtype.kind == "f" else float))
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
    per = anchor_loss_terms(jnp.asarray(sim), jnp.asarray(pw), jnp.asarray(dm) & okj[:, None], tau)
    per = jnp.where(okj, per, 0.0)
    _check_finite_losses(per, tau, "anchor_losses")
    return AnchorLosses(per, okj, int(np.sum(~ok)))


def loss_from_similarity(sim, positive_weights, denominator_mask, *, tau: float, empty: EmptyPolicy = "error") -> jax.Array:
    """Mean of :func:`anchor_losses` over the included anchors (float scalar; same arguments and errors)."""
    require_x64(sim, what="contrastive_bounds.numerics.alignment.loss_from_similarity")
    res = anchor_losses(sim, positive_weights, denominator_mask, tau=tau, empty=empty)
    n = res.losses.shape[0] - res.num_excluded
    if n == 0:
        raise ValueError("every anchor was excluded: the loss is undefined")
    return stable_mean(res.losses, n)

