"""Batch size and learning-rate scaling on digits (paper Fig. 5; docs/theorems.md B10): the grid runs.

For every batch size B and exponent a, plain SGD of CL and NSCL (:mod:`._sgd`) runs with
eta = c B^a, c = eta_ref / B_ref^a (so every scaling uses eta_ref at the reference batch B_ref), under
two budgets: fixed epochs (T = epochs * floor(n/B) steps) and fixed steps (T = epochs * floor(n/B_ref),
the fixed-epoch count at B_ref). For one (B, budget) all exponents and seeds share T and shapes, so
they run as one ``vmap`` over lanes (a, seed) of a chunked ``lax.scan``: one compilation per B. A seed
fixes the initialisation and the batch sequence, the same for every exponent (paired comparisons).

Per lane, at T: CL-NSCL CKA (cosine Gram on the reference set; Gram form in JAX and feature form with
``linear_cka``), RSA (Pearson), rho and r, or the step and learning rate at which SGD diverged. Per B:
the first-order gain kappa(B) = eta_eff/eta at initialisation (NTK estimator of :mod:`._eta_eff`), so
the bound can be evaluated both with the nominal S = T eta and with S_eff = T kappa eta. The trend
verdicts are made by :mod:`._batch_scaling_report`. Finished cells are checkpointed (atomic JSON).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Literal

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import MAX_SEED, check_int, check_probability, check_real, check_seed

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._filemode import ensure_writable_parent, write_atomically
from contrastive_bounds.numerics.alignment._checkpoint import fingerprint
from contrastive_bounds.numerics._fingerprints import fingerprint_difference
from contrastive_bounds.numerics.alignment._eta_eff import batch_rows, symmetric_block_gradients
from contrastive_bounds.numerics.alignment._proxy import centred_cka
from contrastive_bounds.numerics.alignment._sgd import (
    SGDConfig, batch_for_step, check_reference_memory, divergence_message, embed_rows,
    init_model, load_reference_set, reference_sigma, run_keys, sgd_pair_step, sigma_defect, sigma_tolerance)
from contrastive_bounds.numerics.alignment._cka import cka_rho, linear_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r

if TYPE_CHECKING:
    from contrastive_bounds.numerics.alignment._batch_scaling_report import ScalingResult

__all__ = ["ScalingConfig", "run_batch_scaling", "check_scaling_inputs", "steps_for", "learning_rate_for", "BUDGETS"]

BUDGETS = ("epochs", "steps")


@dataclass(frozen=True)
class ScalingConfig:
    """The grid (validated by :meth:`validate`).

    Attributes:
      batch_sizes: distinct B's in [2, n], increasing (paper: 16..256).
      exponents: a's of eta = c B^a, each in [0, 2] (paper: 1, 1/2, 1/4, 0).
      budgets: a subset of ``("epochs", "steps")``.
      seeds: number of seeds >= 2 (seeds ``seed .. seed + seeds - 1``); intervals are over seeds.
      seed: first seed in [0, 2**32 - seeds].
      epochs: E >= 1 (fixed-epoch budget; fixed steps = E floor(n/B_ref)).
      reference_batch: B_ref, one of ``batch_sizes`` (where all scalings share eta_ref).
      eta_ref: eta at B_ref (> 0).
      sgd: the model and data (its batch_size, learning_rate, steps and seed are ignored).
      delta: failure probability of Theorem 1 (for the predicted signs).
      gain_batches: batches (>= 1) over which kappa(B) is averaged at initialisation.
      chunk_steps: steps per jitted chunk (>= 1); a cell's last chunk idles past T (masked), so at most
        chunk_steps - 1 steps are wasted per cell and one compilation serves every T of a batch size.
    """

    batch_sizes: tuple[int, ...] = (16, 32, 64, 128, 256)
    exponents: tuple[float, ...] = (1.0, 0.5, 0.25, 0.0)
    budgets: tuple[str, ...] = BUDGETS
    seeds: int = 3
    seed: int = 0
    epochs: int = 20
    reference_batch: int = 64
    eta_ref: float = 0.05
    sgd: SGDConfig = field(default_factory=lambda: SGDConfig(reference_size=512, views="fresh", dtype="float32"))
    delta: float = 0.05
    gain_batches: int = 4
    chunk_steps: int = 50

    def validate(self) -> None:
        """Raise ValueError naming the first field outside its domain."""
        # the grid sets batch size, learning rate, steps and seed of every cell: sgd's own are ignored,
        # so they are not validated (a default batch_size of 32 must not refuse reference_size=16)
        dataclasses.replace(self.sgd, batch_size=2, learning_rate=1.0, steps=1, seed=0).validate()
        n = self.sgd.reference_size
        bs = tuple(self.batch_sizes)
        if len(bs) < 2 or len(set(bs)) != len(bs) or list(bs) != sorted(bs):
            raise ValueError(f"batch_sizes={bs!r} must hold at least 2 distinct increasing values")
        for b in bs:
            check_int("batch_sizes", b, 2, n)
        if not self.exponents or len(set(self.exponents)) != len(self.exponents):
            raise ValueError(f"exponents={tuple(self.exponents)!r} must be distinct and non-empty")
        for a in self.exponents:
            check_real("exponents", a, 0.0, 2.0, lo_closed=True, hi_closed=True)
        if not self.budgets or any(b not in BUDGETS for b in self.budgets) or len(set(self.budgets)) != len(self.budgets):
            raise ValueError(f"budgets={tuple(self.budgets)!r} must be distinct values from {BUDGETS}")
        check_int("seeds", self.seeds, 2, 1000)
        check_seed(self.seed)
        if self.seed + self.seeds - 1 > MAX_SEED:
            raise ValueError(f"seed={self.seed} with seeds={self.seeds} runs seeds up to {self.seed + self.seeds - 1}, "
                             f"beyond the seed range [0, {MAX_SEED}]: choose seed <= {MAX_SEED - self.seeds + 1}")
        check_int("epochs", self.epochs, 1)
        if self.reference_batch not in bs:
            raise ValueError(f"reference_batch={self.reference_batch} must be one of batch_sizes={bs}")
        check_real("eta_ref", self.eta_ref, 0.0)
        check_probability("delta", self.delta)
        check_int("gain_batches", self.gain_batches, 1)
        check_int("chunk_steps", self.chunk_steps, 1)


def steps_for(config: ScalingConfig, batch_size: int, budget: Literal["epochs", "steps"]) -> int:
    """T of a cell: ``epochs * floor(n / B)`` (fixed epochs) or ``epochs * floor(n / B_ref)`` (fixed steps)."""
    n = config.sgd.reference_size
    return config.epochs * (n // (batch_size if budget == "epochs" else config.reference_batch))


def learning_rate_for(config: ScalingConfig, batch_size: int, exponent: float) -> float:
    """eta = c B^a with c = eta_ref / B_ref^a (every scaling gives eta_ref at B_ref)."""
    return float(config.eta_ref * (batch_size / config.reference_batch) ** exponent)


def check_scaling_inputs(config: ScalingConfig) -> None:
    """Validate ``config`` and the reference set's memory (one Sigma pair per lane) before running.

    Raises:
      ValueError: naming the bad field; a reference set too large names ``reference_size``.
    """
    config.validate()
    lanes = len(config.exponents) * config.seeds
    check_reference_memory(config.sgd.reference_size, config.sgd.dtype, copies=4 * lanes)


@partial(jax.jit, static_argnames=("config", "count"))
def _cell_chunk(state, ref, batch_keys, aug_keys, t0, t_end, tau, lrs, *, config: SGDConfig, count: int):
    """``count`` steps from t0 for every lane (vmap); steps at or beyond ``t_end`` leave the state unchanged,
    so one compilation (fixed ``count``) serves every T."""
    fresh = config.views == "fresh"

    def lane(pc, pn, bad, bkey, akey, lr):
        def step(carry, t):
            pc, pn, bad = carry
            batch = batch_for_step(bkey, ref.labels, config.batch_size, t)
            key = jax.random.fold_in(akey, t) if fresh else None
            qc, qn, _, ok = sgd_pair_step(pc, pn, batch, ref, config, tau, lr, key)
            live = t < t_end
            pc, pn = jax.tree_util.tree_map(lambda new, old: jnp.where(live, new, old), (qc, qn), (pc, pn))
            return (pc, pn, jnp.where(live & (bad < 0) & ~ok, (t + 1).astype(bad.dtype), bad)), None

        return jax.lax.scan(step, (pc, pn, bad), t0 + jnp.arange(count))[0]

    return jax.vmap(lane)(*state, batch_keys, aug_keys, lrs)


@partial(jax.jit, static_argnames=("config", "count"))
def _ntk_gain(params, ref, batch_key, tau, *, config: SGDConfig, count: int):
    """sum ||J^T Gs||^2 / sum ||Gs||^2 at ``params`` over batches 0..count-1 (both models = same params)."""
    n = ref.labels.shape[0]
    sig = reference_sigma(params, ref)

    def one(t):
        batch = batch_for_step(batch_key, ref.labels, config.batch_size, t)
        rows = batch_rows(batch, n)
        gs, _ = symmetric_block_gradients(sig[rows][:, rows], sig[rows][:, rows], batch, ref.labels, tau)

        def f(p):
            z = embed_rows(p, rows, ref)
            u = z / jnp.linalg.norm(z, axis=1, keepdims=True)
            return jnp.sum(gs * (u @ u.T))

        g = jax.grad(f)(params)
        return sum(jnp.sum(a * a) for a in jax.tree_util.tree_leaves(g)), jnp.sum(gs * gs)

    num, den = jax.vmap(one)(jnp.arange(count))
    return jnp.sum(num) / jnp.sum(den)


def _stack(trees: list[Any]) -> Any:
    return jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *trees)


def run_cell(config: ScalingConfig, batch_size: int, budget: str, ref=None) -> dict[str, Any]:
    """One (B, budget) cell: every (exponent, seed) lane to T; JSON-ready dict (see :func:`run_batch_scaling`)."""
    cfg = dataclasses.replace(config.sgd, batch_size=batch_size)
    ref = load_reference_set(cfg) if ref is None else ref
    seeds = [config.seed + i for i in range(config.seeds)]
    lanes = [(a, s) for a in config.exponents for s in seeds]
    t_total = steps_for(config, batch_size, budget)
    inits = {s: init_model(dataclasses.replace(cfg, seed=s)) for s in seeds}
    p = _stack([inits[s] for _, s in lanes])
    bkeys = jnp.stack([run_keys(s)["batches"] for _, s in lanes])
    akeys = jnp.stack([run_keys(s)["augment"] for _, s in lanes])
    lrs_f = [learning_rate_for(config, batch_size, a) for a, _ in lanes]
    dt = cfg.jnp_dtype
    lrs, tau = jnp.asarray(lrs_f, dt), jnp.asarray(cfg.tau, dt)
    state = (p, p, jnp.full((len(lanes), 2), -1, jnp.int32))
    static = cfg.static_part()
    step = 0
    count = min([config.chunk_steps] + [steps_for(config, batch_size, g) for g in config.budgets])  # same for both budgets
    while step < t_total:
        state = _cell_chunk(state, ref, bkeys, akeys, jnp.int32(step), jnp.int32(t_total), tau, lrs, config=static,
                            count=count)
        step += count
    pc, pn, bad = state
    m = cfg.m
    gain = float(_ntk_gain(inits[seeds[0]], ref, run_keys(seeds[0])["batches"], tau, config=static,
                           count=config.gain_batches))
    rows = []
    for i, (a, s) in enumerate(lanes):
        row: dict[str, Any] = {"exponent": a, "seed": s, "learning_rate": lrs_f[i]}
        b = np.asarray(bad[i])
        p_cl, p_nscl = (jax.tree_util.tree_map(lambda x: x[i], q) for q in (pc, pn))
        # the cosine Gram in the training dtype: an overflowed or vanished norm shows there, not in float64
        defect = max(float(sigma_defect(reference_sigma(p_cl, ref))), float(sigma_defect(reference_sigma(p_nscl, ref))))
        z_cl = np.asarray(embed_rows(p_cl, jnp.arange(m), ref), np.float64)
        z_nscl = np.asarray(embed_rows(p_nscl, jnp.arange(m), ref), np.float64)
        with np.errstate(all="ignore"):
            u_cl = z_cl / np.linalg.norm(z_cl, axis=1, keepdims=True)
            u_nscl = z_nscl / np.linalg.norm(z_nscl, axis=1, keepdims=True)
            a_cl, a_nscl = u_cl @ u_cl.T, u_nscl @ u_nscl.T
        if np.any(b >= 0) or not defect <= sigma_tolerance(cfg.dtype):
            k = int(np.argmin(np.where(b >= 0, b, np.iinfo(np.int32).max))) if np.any(b >= 0) else 0
            at = int(b[k]) if np.any(b >= 0) else t_total
            why = ("non-finite loss or parameters" if np.any(b >= 0) else
                   f"the reference Sigma is no longer a cosine Gram (defect {defect:.3g}: an embedding norm overflowed, "
                   "vanished or is not finite)")
            row["diverged"] = {"model": ("cl", "nscl")[k], "step": at, "learning_rate": lrs_f[i],
                               "message": divergence_message(("cl", "nscl")[k], at, lrs_f[i], batch_size, why)}
            rows.append(row)
            continue
        a_cl, a_nscl = np.clip(a_cl, -1, 1), np.clip(a_nscl, -1, 1)
        row.update(cka=float(centred_cka(jnp.asarray(a_cl), jnp.asarray(a_nscl))),
                   cka_features=linear_cka(u_cl, u_nscl, debiased=False, method="features"),
                   rsa=rsa_from_similarity(a_cl, a_nscl), rho=cka_rho(a_cl, a_nscl), r=rsa_r(a_cl, a_nscl))
        rows.append(row)
    return {"batch_size": batch_size, "budget": budget, "steps": t_total, "gain_ntk": gain, "lanes": rows}


def _load_cells(path: str, fp: str) -> dict[str, Any]:
    """The finished cells of the grid checkpoint at ``path`` (JSON written by :func:`_save_cells`).

    Raises:
      ValueError: naming ``checkpoint``: a folder, unreadable, not UTF-8 JSON (an ``.npz`` or any
        binary file included), not an object with ``fingerprint`` and ``cells``, or another grid's.
    """
    what = ("a grid checkpoint (the JSON file align batch-scaling writes); use another checkpoint path, or delete "
            "the file to start over")
    if os.path.isdir(path):
        raise ValueError(f"checkpoint={path!r} is a folder, not {what}")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except UnicodeDecodeError:
        raise ValueError(f"checkpoint={path!r} is a binary file, not {what}") from None
    except OSError as exc:
        raise ValueError(f"checkpoint={path!r} cannot be read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ValueError(f"checkpoint={path!r} is not valid JSON ({exc}), so not {what}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), dict) or "fingerprint" not in data:
        raise ValueError(f"checkpoint={path!r} is JSON without 'fingerprint' and 'cells', so not {what}")
    if data.get("fingerprint") != fp:
        raise ValueError(f"checkpoint={path!r} belongs to a different grid (its configuration differs: "
                         f"{fingerprint_difference(str(data.get('fingerprint')), fp)}); use another checkpoint "
                         "path, or delete the file to start over")
    return data["cells"]


def _save_cells(path: str, fp: str, cells: dict[str, Any]) -> None:
    write_atomically(path, lambda fh: json.dump({"fingerprint": fp, "cells": cells}, fh), binary=False,
                     prefix=".grid-", suffix=".json")


def run_batch_scaling(config: ScalingConfig, *, checkpoint: str | None = None, resume: bool = True,
                      progress: Callable[[int, int], None] | None = None) -> ScalingResult:
    """Run the whole grid (every B x budget cell) and return a :class:`._batch_scaling_report.ScalingResult`.

    Args:
      config: :class:`ScalingConfig`.
      checkpoint: optional ``.json`` path rewritten atomically after every finished cell; with
        ``resume=True`` the finished cells of the same grid are not recomputed.
      progress: optional ``progress(cells_done, cells_total)``.

    Returns: the result with one row per (B, budget, exponent, seed): CKA (two ways), RSA, rho, r, or a
      divergence record (model, step, learning rate) instead of numbers.
    Raises:
      ValueError: for a bad config (naming the field), a reference set too large (naming
        ``reference_size``), an unwritable checkpoint folder or a checkpoint of another grid.
      X64DisabledError: ``config.sgd.dtype == "float64"`` while JAX's x64 mode is off.
    Source: docs/theorems.md B10 (Luthra, Mishra, Galanti, arXiv 2510.08852, Fig. 5).
    """
    from contrastive_bounds.numerics.alignment._batch_scaling_report import ScalingResult

    check_scaling_inputs(config)
    require_x64(config.sgd.dtype, what="contrastive_bounds.numerics.alignment.run_batch_scaling")
    if checkpoint:
        ensure_writable_parent(checkpoint, "checkpoint")
    fp = fingerprint(dataclasses.asdict(config))
    cells: dict[str, Any] = {}
    if checkpoint and resume and os.path.exists(checkpoint):
        cells = _load_cells(checkpoint, fp)
    ref = load_reference_set(dataclasses.replace(config.sgd, batch_size=config.reference_batch))  # sgd's own is unused
    todo = [(b, g) for g in config.budgets for b in config.batch_sizes]
    for i, (b, g) in enumerate(todo):
        key = f"{g}:{b}"
        if key not in cells:
            cells[key] = run_cell(config, b, g, ref)
            if checkpoint:
                _save_cells(checkpoint, fp, cells)
        if progress is not None:
            progress(i + 1, len(todo))
    labels = np.asarray(ref.labels)
    return ScalingResult(config, [cells[f"{g}:{b}"] for b, g in todo], float(np.bincount(labels).max() / labels.size))
