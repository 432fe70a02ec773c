"""Plain SGD of CL and NSCL under shared randomness, with Sigma on a fixed reference set (docs/theorems.md B9).

Paper B's similarity descent (B3) moves every pairwise similarity of a fixed set of samples as a free
parameter. To measure that modelling step, this module trains real embeddings with *plain* SGD
(``optax.sgd``, no momentum: the proxy's only assumption left is the parametrisation) and reads
Sigma_t, the cosine Gram of z on the reference set, exactly as the proxy defines it:

* the reference set is ``reference_size`` = n digits (classes 0..C-1, as balanced as n allows) with
  two views each: m = 2n rows, rows 0..n-1 the first views, n..2n-1 the second (B3's layout);
* ``views="fixed"`` (default): the two views are drawn once (augmentation with the run's seed) and
  training sees exactly these rows, so the batch loss *is* the B3 loss of Sigma(theta) restricted to
  the batch rows and the proxy's gradient G is its exact gradient in Sigma;
* ``views="fresh"``: every step draws new augmentations of the batch images (the usual practice);
  Sigma is still read on the fixed reference views, so the proxy models training only approximately;
* ``model="mlp"``: the encoder + projection head of :mod:`._training` (``encode``); ``model="free"``:
  one free embedding row per reference view, ``Z`` (m, d) with d = ``projection_dim``; for d >= m it
  starts with orthonormal rows (Sigma_0 = I), the case in which one SGD step is known in closed form.

Batches: step t draws B distinct samples with ``fold_in(key, t)`` (:func:`._descent.sample_batch`),
the same for CL and NSCL and for the proxy run, so every run is a pure function of (config, t).
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from contrastive_bounds.theory._domains import check_int, check_real, check_seed

from contrastive_bounds.numerics.alignment._data import augment, load_digits_subset
from contrastive_bounds.numerics.alignment._descent import sample_batch
from contrastive_bounds.numerics.alignment._losses import batch_loss
from contrastive_bounds.numerics.alignment._loss_core import min_tau
from contrastive_bounds.numerics.alignment._training import encode
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["SGDConfig", "ReferenceSet", "TrainingDivergedError", "load_reference_set", "init_model", "run_keys",
           "embed_rows", "reference_sigma", "pair_losses", "sgd_pair_step", "batch_for_step", "all_finite",
           "reference_memory_bytes", "available_memory_bytes", "check_reference_memory", "SIGMA_COPIES", "sigma_defect",
           "SIGMA_TOLERANCE", "SIGMA_TOLERANCE_FLOAT32", "sigma_tolerance", "divergence_message"]

#: (m, m) matrices a proxy run holds at once (Sigma_0, two SGD, two proxy, two temporaries, one spare).
SIGMA_COPIES = 8
#: a float64 cosine of unit vectors is within this of [-1, 1] (and a diagonal entry of 1); beyond it Sigma
#: left [-1, 1] before any normalisation or clipping could hide it (a zero, overflowing or non-finite embedding).
SIGMA_TOLERANCE = 1e-6
#: the same for float32 runs (cosines good to ~1e-6 there).
SIGMA_TOLERANCE_FLOAT32 = 1e-4


def sigma_tolerance(dtype: str) -> float:
    """:data:`SIGMA_TOLERANCE` for ``"float64"``, :data:`SIGMA_TOLERANCE_FLOAT32` for ``"float32"``."""
    return SIGMA_TOLERANCE if dtype == "float64" else SIGMA_TOLERANCE_FLOAT32


class TrainingDivergedError(ValueError):
    """SGD diverged: a non-finite loss or parameter, or a reference Sigma outside [-1, 1] (never a result).

    Attributes: ``model`` ("cl" or "nscl"), ``step`` (the first failing step, 1-based count of steps
    taken), ``learning_rate``, ``batch_size`` and ``reason``.
    """

    def __init__(self, model: str, step: int, learning_rate: float, batch_size: int, reason: str):
        self.model, self.step, self.learning_rate, self.batch_size, self.reason = (
            model, int(step), float(learning_rate), int(batch_size), reason)
        super().__init__(divergence_message(model, step, learning_rate, batch_size, reason))


def divergence_message(model: str, step: int, learning_rate: float, batch_size: int, reason: str) -> str:
    """The one-line report of a diverged run: model, step, learning rate, batch size, what failed, the remedy."""
    return (f"SGD of {model!r} diverged at step {int(step)} (learning_rate={learning_rate:.6g}, "
            f"batch_size={batch_size}): {reason}; lower learning_rate (or raise tau)")


@dataclass(frozen=True)
class SGDConfig:
    """A coupled plain-SGD run (validated by :meth:`validate`).

    Attributes:
      model: ``"mlp"`` (digits encoder + head) or ``"free"`` (free embedding rows).
      num_classes: C in [2, 10] (digit classes 0..C-1).
      reference_size: n >= 4 reference samples (m = 2n rows of Sigma); at most the training split of C classes.
      batch_size: B in [2, n], samples per step (without replacement).
      learning_rate: eta > 0 of plain SGD (``optax.sgd``, no momentum).
      steps: T >= 1.
      tau: temperature > 0 (at least ``min_tau`` of the dtype).
      seed: in [0, 2**32 - 1]: initialisation, views, batches (one seed for CL, NSCL and the proxy).
      hidden, feature_dim, projection_dim: MLP widths (>= 1); ``projection_dim`` is d of z (free: of Z).
      views: ``"fixed"`` or ``"fresh"`` (see the module docstring; ``"fresh"`` needs ``model="mlp"``).
      noise_std, max_shift: augmentation (Gaussian pixel noise >= 0, integer shift in [0, 3]).
      dtype: ``"float64"`` (comparisons with bounds; needs JAX x64) or ``"float32"`` (throughput).
      data_seed: seed of the choice of reference digits (kept apart from ``seed`` so that seeds vary
        the initialisation and batches on the same data).
    """

    model: Literal["mlp", "free"] = "mlp"
    num_classes: int = 10
    reference_size: int = 256
    batch_size: int = 32
    learning_rate: float = 0.5
    steps: int = 300
    tau: float = 0.5
    seed: int = 0
    hidden: int = 256
    feature_dim: int = 64
    projection_dim: int = 32
    views: Literal["fixed", "fresh"] = "fixed"
    noise_std: float = 0.1
    max_shift: int = 1
    dtype: Literal["float64", "float32"] = "float64"
    data_seed: int = 0

    def validate(self) -> None:
        """Raise ValueError naming the first field outside its domain."""
        if self.model not in ("mlp", "free"):
            raise ValueError(f"model={self.model!r} must be 'mlp' or 'free'")
        check_int("num_classes", self.num_classes, 2, 10)
        n = check_int("reference_size", self.reference_size, 4)
        check_int("batch_size", self.batch_size, 2, n)
        check_real("learning_rate", self.learning_rate, 0.0)
        check_int("steps", self.steps, 1, 2**31 - 1)
        check_real("tau", self.tau, 0.0)
        if self.dtype not in ("float64", "float32"):
            raise ValueError(f"dtype={self.dtype!r} must be 'float64' or 'float32'")
        if self.tau < min_tau(np.dtype(self.dtype)):
            raise ValueError(f"tau={self.tau!r} is below the smallest {self.dtype} temperature "
                             f"{min_tau(np.dtype(self.dtype))!r} (numerics.alignment.losses.min_tau)")
        check_seed(self.seed)
        check_seed(self.data_seed)
        for name in ("hidden", "feature_dim", "projection_dim"):
            check_int(name, getattr(self, name), 1)
        if self.views not in ("fixed", "fresh"):
            raise ValueError(f"views={self.views!r} must be 'fixed' or 'fresh'")
        if self.views == "fresh" and self.model == "free":
            raise ValueError("views='fresh' needs model='mlp' (free embeddings have no images to augment)")
        check_real("noise_std", self.noise_std, 0.0, lo_closed=True)
        check_int("max_shift", self.max_shift, 0, 3)

    def static_part(self) -> SGDConfig:
        """This config with the fields that jitted code receives as traced values (learning rate, tau,
        steps, seeds) set to placeholders, so runs differing only in them share one compilation."""
        return dataclasses.replace(self, learning_rate=1.0, tau=1.0, steps=1, seed=0, data_seed=0)

    @property
    def m(self) -> int:
        """Rows of Sigma: 2 * reference_size."""
        return 2 * self.reference_size

    @property
    def jnp_dtype(self) -> Any:
        return jnp.float64 if self.dtype == "float64" else jnp.float32


class ReferenceSet(NamedTuple):
    """The fixed data of a run: ``images`` float (n, 64) clean pixels in [0, 1], ``labels`` int32 (n,),
    ``views`` float (m, 64) the fixed augmented views (rows [first views; second views])."""

    images: jax.Array
    labels: jax.Array
    views: jax.Array


def reference_memory_bytes(reference_size: int, dtype: str = "float64", copies: int = SIGMA_COPIES) -> int:
    """Bytes of ``copies`` (m, m) matrices of ``dtype`` with m = 2 * reference_size (a proxy run's Sigma's)."""
    m = 2 * int(reference_size)
    return copies * m * m * np.dtype(dtype).itemsize


def available_memory_bytes() -> int:
    """Memory this process can still use: ``MemAvailable`` of /proc/meminfo, else physical memory."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic platforms
        return 2**63 - 1


def check_reference_memory(reference_size: int, dtype: str = "float64", *, copies: int = SIGMA_COPIES,
                           available: int | None = None) -> int:
    """Refuse, before anything is computed, a reference set whose Sigma's would not fit in memory.

    Returns: the bytes needed.
    Raises:
      ValueError: naming ``reference_size`` (``--reference-size`` on the command line), the memory
        needed (``copies`` m x m matrices of ``dtype``) and the memory available.
    """
    need = reference_memory_bytes(reference_size, dtype, copies)
    have = available_memory_bytes() if available is None else int(available)
    if need > have:
        m = 2 * int(reference_size)
        raise ValueError(
            f"reference_size={reference_size} (--reference-size) needs {need / 2**30:.3g} GiB for {copies} "
            f"Sigma matrices of {m} x {m} {dtype} (m = 2 x reference_size), more than the {have / 2**30:.3g} GiB "
            f"available; choose a smaller reference set")
    return need


def load_reference_set(config: SGDConfig) -> ReferenceSet:
    """The reference digits of ``config`` and their two fixed views (deterministic in data_seed and seed).

    Samples: the training split (``load_digits_subset(C, seed=data_seed)``) ordered class by class in
    round-robin, so any n is as balanced as possible. Views: :func:`._data.augment` with keys from the
    run's seed (``noise_std``, ``max_shift``).

    Raises:
      ValueError: naming ``reference_size`` when it exceeds the digits available for C classes.
      X64DisabledError: ``dtype="float64"`` while JAX's x64 mode is off.
    """
    config.validate()
    if config.dtype == "float64":
        require_x64(np.float64, what="contrastive_bounds.numerics.alignment.load_reference_set (dtype='float64')")
    split = load_digits_subset(config.num_classes, seed=config.data_seed, dtype=np.float64)
    y = np.asarray(split.y_train)
    n_avail = y.size
    n = config.reference_size
    if n > n_avail:
        raise ValueError(f"reference_size={n} exceeds the {n_avail} training digits of {config.num_classes} classes")
    rank = np.empty(n_avail, np.int64)
    for c in range(config.num_classes):
        idx = np.flatnonzero(y == c)
        rank[idx] = np.arange(idx.size)
    order = np.lexsort((y, rank))[:n]  # round-robin over classes
    dt = config.jnp_dtype
    images = jnp.asarray(split.x_train[order], dt)
    labels = jnp.asarray(y[order], jnp.int32)
    k1, k2 = jax.random.split(run_keys(config.seed)["views"])
    aug = dict(noise_std=config.noise_std, max_shift=config.max_shift)
    views = jnp.concatenate([augment(k1, images, **aug), augment(k2, images, **aug)])
    return ReferenceSet(images, labels, views)


def run_keys(seed: int) -> dict[str, jax.Array]:
    """The independent keys of a run: ``init``, ``views``, ``batches``, ``augment`` (fresh views)."""
    root = jax.random.key(seed)
    return {name: jax.random.fold_in(root, i) for i, name in enumerate(("init", "views", "batches", "augment"))}


def _dense(key: jax.Array, fan_in: int, fan_out: int, dtype: Any) -> dict[str, jax.Array]:
    w = jax.random.normal(key, (fan_in, fan_out), dtype) * math.sqrt(2.0 / fan_in)
    return {"w": w, "b": jnp.zeros(fan_out, dtype)}


def init_model(config: SGDConfig, key: jax.Array | None = None) -> dict[str, Any]:
    """The shared initial parameters (CL and NSCL start from the same ones).

    ``mlp``: He-normal ``enc1, enc2, head1, head2`` (the layout :func:`._training.encode` reads), in the
    config's dtype. ``free``: ``{"z": Z}`` of shape (m, d); orthonormal rows when d >= m (QR of a
    Gaussian matrix: Sigma_0 = I exactly up to rounding), unit-norm Gaussian rows otherwise.

    Raises:
      X64DisabledError: ``config.dtype == "float64"`` while JAX's x64 mode is off.
    """
    require_x64(config.dtype, what="contrastive_bounds.numerics.alignment.init_model")
    key = run_keys(config.seed)["init"] if key is None else key
    dt = config.jnp_dtype
    if config.model == "free":
        m, d = config.m, config.projection_dim
        g = jax.random.normal(key, (max(m, d), min(m, d)), dt)
        if d >= m:
            q, r = jnp.linalg.qr(g)  # (d, m) with orthonormal columns
            q = q * jnp.sign(jnp.diagonal(r))[None, :]
            return {"z": q.T}
        return {"z": g / jnp.linalg.norm(g, axis=1, keepdims=True)}
    ks = jax.random.split(key, 4)
    c = config
    return {"enc1": _dense(ks[0], 64, c.hidden, dt), "enc2": _dense(ks[1], c.hidden, c.feature_dim, dt),
            "head1": _dense(ks[2], c.feature_dim, c.feature_dim, dt),
            "head2": _dense(ks[3], c.feature_dim, c.projection_dim, dt)}


def embed_rows(params: dict[str, Any], rows: jax.Array, ref: ReferenceSet) -> jax.Array:
    """z (unnormalised) of reference rows ``rows`` (int (r,)): the MLP on the fixed views, or rows of Z.


    Raises:
      X64DisabledError: float64 parameters or views while JAX's x64 mode is off.
    """
    require_x64(params, ref.views, what="contrastive_bounds.numerics.alignment.embed_rows")
    if "z" in params:
        return params["z"][rows]
    return encode(params, ref.views[rows])[1]


def reference_sigma(params: dict[str, Any], ref: ReferenceSet) -> jax.Array:
    """Sigma = cosine Gram of z on all m reference rows, float (m, m), *not* clipped (jit-able).

    Entries beyond [-1, 1] or a diagonal away from 1 by more than :data:`SIGMA_TOLERANCE` (see
    :func:`sigma_defect`), or NaN, mean a zero, overflowing or non-finite embedding (divergence).
    Cost O(m^2 d) plus one forward pass of the m views.

    Raises:
      X64DisabledError: float64 parameters or views while JAX's x64 mode is off.
    """
    require_x64(params, ref.views, what="contrastive_bounds.numerics.alignment.reference_sigma")
    m = ref.views.shape[0]
    z = embed_rows(params, jnp.arange(m), ref)
    u = z / jnp.linalg.norm(z, axis=1, keepdims=True)
    return u @ u.T


def sigma_defect(sigma: jax.Array) -> jax.Array:
    """How far a cosine Gram is from being one: ``max(max|Sigma| - 1, max|diag(Sigma) - 1|)`` (NaN stays NaN).

    A finite run keeps it at rounding level (<= :data:`SIGMA_TOLERANCE`). Above it, Sigma left [-1, 1] before
    normalisation, or an embedding's norm overflowed or vanished (its row and column become 0, the
    diagonal entry too): the run has diverged even if the loss still looks finite.

    Raises:
      X64DisabledError: float64 ``sigma`` while JAX's x64 mode is off.
    """
    require_x64(sigma, what="contrastive_bounds.numerics.alignment.sigma_defect")
    return jnp.maximum(jnp.max(jnp.abs(sigma)) - 1.0, jnp.max(jnp.abs(jnp.diagonal(sigma) - 1.0)))


def batch_for_step(batch_key: jax.Array, labels: jax.Array, batch_size: int, step: jax.Array | int) -> jax.Array:
    """The B distinct sample indices of step ``step`` (int32 (B,)), a pure function of (key, step)."""
    return sample_batch(jax.random.fold_in(batch_key, step), labels, batch_size)


def _batch_views(params, batch, ref: ReferenceSet, fresh_key, config: SGDConfig):
    """z of both views of the batch: fixed reference rows, or fresh augmentations of the batch images."""
    if fresh_key is None:
        n = ref.labels.shape[0]
        return embed_rows(params, batch, ref), embed_rows(params, batch + n, ref)
    k1, k2 = jax.random.split(fresh_key)
    aug = dict(noise_std=config.noise_std, max_shift=config.max_shift)
    x = ref.images[batch]
    return encode(params, augment(k1, x, **aug))[1], encode(params, augment(k2, x, **aug))[1]


def pair_losses(params: dict[str, Any], batch: jax.Array, ref: ReferenceSet, config: SGDConfig, tau: jax.Array,
                kind: str, fresh_key: jax.Array | None = None) -> jax.Array:
    """The batch loss (B1, decoupled, anchors = first views) of one model on the batch (float scalar).

    With fixed views it equals :func:`._descent.batch_loss_on_sigma` of :func:`reference_sigma` on the
    same batch (the identity the proxy rests on; tested).

    Raises:
      X64DisabledError: float64 parameters or views while JAX's x64 mode is off.
    """
    require_x64(params, ref.views, ref.images, what="contrastive_bounds.numerics.alignment.pair_losses")
    z1, z2 = _batch_views(params, batch, ref, fresh_key, config)
    return batch_loss(z1, z2, ref.labels[batch], tau=tau, kind=kind)


def all_finite(tree: Any) -> jax.Array:
    """True (bool scalar) when every leaf of the pytree is finite.

    A float32 copy could overflow to inf where the float64 value is finite, hence the refusal below.

    Raises:
      X64DisabledError: a float64 leaf while JAX's x64 mode is off.
    """
    require_x64(jax.tree_util.tree_leaves(tree), what="contrastive_bounds.numerics.alignment.all_finite")
    leaves = jax.tree_util.tree_leaves(tree)
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(a)) for a in leaves]))


def sgd_pair_step(params_cl, params_nscl, batch, ref: ReferenceSet, config: SGDConfig, tau, learning_rate,
                  fresh_key=None):
    """One plain-SGD step of CL and NSCL on the same batch (and the same fresh views, if any).

    Returns ``(params_cl, params_nscl, losses (2,), finite (2,) bool)``: the losses are those *before*
    the step; ``finite`` says whether loss and new parameters of each model are finite.

    Raises:
      X64DisabledError: float64 parameters or views while JAX's x64 mode is off.
    """
    require_x64(params_cl, params_nscl, ref.views, ref.images, what="contrastive_bounds.numerics.alignment.sgd_pair_step")
    opt = optax.sgd(learning_rate)  # plain SGD: no momentum, no state
    out_p, losses, ok = [], [], []
    for kind, p in (("cl", params_cl), ("nscl", params_nscl)):
        val, g = jax.value_and_grad(pair_losses)(p, batch, ref, config, tau, kind, fresh_key)
        upd, _ = opt.update(g, opt.init(p), p)
        new = optax.apply_updates(p, upd)
        out_p.append(new)
        losses.append(val)
        ok.append(jnp.isfinite(val) & all_finite(new))
    return out_p[0], out_p[1], jnp.stack(losses), jnp.stack(ok)
