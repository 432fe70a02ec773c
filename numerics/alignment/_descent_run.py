"""Driver of the coupled similarity descent: chunked ``lax.scan``, records, checkpoints.

:func:`run_similarity_descent` runs CL and NSCL from the same Sigma_0 on the same batches (one
step updates both, so the batches are shared by construction), records per step what each link of
the proof of Theorem 1 needs (:class:`~._descent.StepRecord`), and returns a
:class:`~._descent_result.DescentResult` with the trajectory of d_t against the bound of each link
of the proof (:func:`~._descent_result.link_bounds_log10`). Its inputs are validated by
:mod:`._descent_problem`. One chunk is :func:`chunk_batches` (the batches of a range of steps) then
:func:`run_descent_chunk` (a jitted ``lax.scan`` of :func:`~._descent.descent_step`).

Batches of step t come from ``fold_in(key, t)``, so a run is identical whatever the chunk size and
across checkpoint/resume (d^2 is recomputed exactly at every chunk start).
The run's inputs are in :mod:`._descent_problem`, its result in :mod:`._descent_result`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
from functools import partial
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds import theory as alignment
from contrastive_bounds.theory._domains import check_int

from contrastive_bounds.numerics._filemode import ensure_writable_parent, write_atomically
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.alignment._descent import DescentState, StepRecord, descent_step, sample_batch
from contrastive_bounds.numerics.alignment._descent_problem import (
    DescentConfig,
    check_run_inputs,
    make_problem,
    prepare_run_inputs,
)
from contrastive_bounds.numerics.alignment._descent_result import LINKS, DescentResult, link_bounds_log10

__all__ = ["run_similarity_descent", "read_checkpoint_arrays", "chunk_batches", "run_descent_chunk"]

_RECORD_FIELDS = StepRecord._fields


@partial(jax.jit, static_argnames=("count", "batch_size", "replace", "stratified", "num_classes"))
def chunk_batches(key: jax.Array, labels: jax.Array, start: Any, *, count: int, batch_size: int, replace: bool,
                  stratified: bool, num_classes: int) -> jax.Array:
    """The batches of steps ``start .. start + count - 1``: step t's from ``fold_in(key, t)``.

    Args:
      key: typed PRNG key of the run; labels: int32 (n,) classes 0..num_classes-1; start: first step
        (int); count, batch_size, replace, stratified, num_classes: as :func:`~._descent.sample_batch`
        (static: one compile per combination).

    Returns:
      int32 (count, batch_size) sample indices (no float arithmetic: x64 does not matter).

    Source: the batch model of docs/theorems.md B3 (one shared batch per step for CL and NSCL).
    """
    steps = start + jnp.arange(count)
    return jax.vmap(lambda t: sample_batch(jax.random.fold_in(key, t), labels, batch_size, replace=replace,
                                           stratified=stratified, num_classes=num_classes))(steps)


@partial(jax.jit, static_argnames=("anchors", "coupled", "symmetrize", "unique"), donate_argnums=(0,))
def _scan_chunk(state, batches, labels, tau, step_sizes, *, anchors, coupled, symmetrize, unique=False):
    def body(st, xs):
        batch, step_size = xs  # the schedule is data of the scan: one compilation for every sequence
        return descent_step(st, batch, labels, tau=tau, step_size=step_size, anchors=anchors,
                            coupled=coupled, symmetrize=symmetrize, unique=unique)

    return jax.lax.scan(body, state, (batches, step_sizes))


def run_descent_chunk(state: DescentState, batches: jax.Array, labels: jax.Array, tau: Any, step_size: Any, *,
                      anchors: str = "first", coupled: bool = False, symmetrize: bool = False,
                      unique: bool = False) -> tuple[DescentState, StepRecord]:
    """``len(batches)`` steps of :func:`~._descent.descent_step` in one jitted ``lax.scan``.

    Args:
      state: :class:`~._descent.DescentState` (its arrays are donated: do not reuse them);
        batches: int (steps, batch_size) from :func:`chunk_batches`; labels: int32 (n,);
        tau: scalar of the state's dtype; step_size: eta_t of these steps, of the state's dtype,
        either one scalar (the same eta at every step) or an array (steps,) scanned with the
        batches (a schedule: step k of the chunk uses ``step_size[k]``); anchors, coupled,
        symmetrize, unique: as :func:`~._descent.descent_step` (static: one compile per combination).

    Returns:
      ``(state after the chunk, StepRecord of (steps,) arrays)``.

    Raises:
      X64DisabledError: float64 state while JAX's x64 mode is off.
      ValueError: ``step_size`` neither a scalar nor of shape (steps,).

    Source: docs/theorems.md B3 (the coupled CL/NSCL descent, Sigma_{t+1} = clip(Sigma_t - eta_t G_t)).
    """
    require_x64(state.sigma_cl, state.sigma_nscl, tau, step_size, what="contrastive_bounds.numerics.alignment.run_descent_chunk")
    count = batches.shape[0]
    etas = jnp.asarray(step_size)
    if etas.ndim == 0:
        etas = jnp.broadcast_to(etas, (count,))
    elif etas.shape != (count,):
        raise ValueError(f"step_size must be a scalar or have shape ({count},) (one per batch); got shape {etas.shape}")
    return _scan_chunk(state, batches, labels, tau, etas, anchors=anchors, coupled=coupled,
                       symmetrize=symmetrize, unique=unique)


def _fingerprint(config: DescentConfig, sigma0: np.ndarray, labels: np.ndarray, trajectory_every: int | None) -> str:
    """sha256 of the run's identity; a constant-step run without a trajectory keeps the fingerprint it had
    before schedules existed (its checkpoints still resume)."""
    ident: dict[str, Any] = {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name != "schedule"}
    if config.schedule is not None:
        ident["schedule"] = config.schedule.identity()
    if trajectory_every is not None:
        ident["trajectory_every"] = trajectory_every
    h = hashlib.sha256(json.dumps(ident, sort_keys=True).encode())
    h.update(np.ascontiguousarray(sigma0).tobytes())
    h.update(np.ascontiguousarray(labels).tobytes())
    h.update(str(sigma0.dtype).encode())
    return h.hexdigest()


def _save_checkpoint(path: str, *, fingerprint: str, step: int, sigma_cl, sigma_nscl, records, trajectory) -> None:
    """Atomic write: a temporary file in the same folder, then ``os.replace``."""
    write_atomically(path, lambda fh: np.savez(
        fh, fingerprint=np.array(fingerprint), step=np.array(step), sigma_cl=np.asarray(sigma_cl),
        sigma_nscl=np.asarray(sigma_nscl), **{f"rec_{k}": v for k, v in records.items()},
        **{f"traj_{k}": v for k, v in trajectory.items()}), prefix=".ckpt-", suffix=".npz")


def read_checkpoint_arrays(path: str) -> dict[str, np.ndarray]:
    """The arrays of a similarity-descent checkpoint file (as :func:`run_similarity_descent` writes it).

    Args:
      path: the ``checkpoint=`` file (.npz), read by :func:`~contrastive_bounds.numerics.read_arrays`
        (identified by its first bytes; never unpickled).
    Returns:
      member name -> array; at least ``fingerprint``, ``step``, ``sigma_cl``, ``sigma_nscl``.
    Raises:
      ValueError: naming ``checkpoint``: not a readable .npz (empty, text, pickle, damaged, ...), or an archive
        without those members.
    """
    from contrastive_bounds.numerics._arrayfiles import read_arrays

    start_over = "use another checkpoint path, or delete the file to start over"
    data = read_arrays(path, "checkpoint", remedy=start_over)
    missing = {"fingerprint", "step", "sigma_cl", "sigma_nscl"} - set(data)
    if missing:
        raise ValueError(f"checkpoint={path!r} is not a checkpoint of similarity descent (no "
                         f"{', '.join(sorted(missing))}); {start_over}")
    return data


def _load_checkpoint(path: str, fingerprint: str):
    """The saved state of ``path``; ValueError naming ``checkpoint`` for a file that is not one, or of another run."""
    data = read_checkpoint_arrays(path)
    if str(data["fingerprint"]) != fingerprint:
        raise ValueError(f"checkpoint={path!r} belongs to a different run (config, Sigma_0, labels or "
                         "trajectory_every differ)")
    recs = {k[4:]: data[k] for k in data if k.startswith("rec_")}
    traj = {k[5:]: data[k] for k in data if k.startswith("traj_")}
    return int(data["step"]), data["sigma_cl"], data["sigma_nscl"], recs, traj


def _check_batches(batches: np.ndarray, labels: np.ndarray, start: int, policy: str) -> None:
    """Reject (before computing) a batch in which some anchor has no other-class sample (C06)."""
    lab = labels[batches]
    single = np.all(lab == lab[:, :1], axis=1)
    if policy == "error" and np.any(single):
        t = int(np.argmax(single))
        raise ValueError(
            f"step {start + t}: every sample of the batch has class {int(lab[t, 0])}, so anchor 0 (sample "
            f"{int(batches[t, 0])}) has an empty NSCL denominator; use empty_negatives='exclude' to skip such anchors"
        )


def _pieces(step: int, count: int, every: int | None) -> list[int]:
    """Split a chunk of ``count`` steps from ``step`` so that every multiple of ``every`` ends a piece."""
    if every is None:
        return [count]
    out, at, end = [], step, step + count
    while at < end:
        nxt = min(end, (at // every + 1) * every)
        out.append(nxt - at)
        at = nxt
    return out


def run_similarity_descent(
    sigma0: np.ndarray, labels: np.ndarray, config: DescentConfig, *, checkpoint: str | None = None,
    resume: bool = True, max_chunks: int | None = None, progress: Callable[[int, int], None] | None = None,
    trajectory_every: int | None = None,
) -> DescentResult:
    """Run CL and NSCL similarity descent from the shared ``sigma0`` on shared batches.

    Args:
      sigma0: float32/float64 array (m, m), m = 2n even, entries in [-1, 1] (the cosine Gram of the
        2n initial views; rows 0..n-1 first views). float64 needs JAX x64 (else X64DisabledError).
      labels: int array (n,), classes 0..C-1 (C >= 2).
      config: :class:`DescentConfig` (its ``schedule`` gives eta_t; default constant ``step_size``).
      checkpoint: optional path of an ``.npz`` written atomically after every chunk; with
        ``resume=True`` an existing file for the same run is continued (identical results).
      max_chunks: stop after this many chunks *of this call* (for tests and time-boxed jobs).
      progress: optional callback ``progress(steps_done, steps_total)`` after each chunk.
      trajectory_every: optional K >= 1: keep Sigma^CL_t and Sigma^NSCL_t at t = 0, K, 2K, ... and
        at the last step (``result.trajectory``; memory 2 (T/K + 2) m^2 values of the run's dtype; kept
        in the checkpoint too). The run itself is unchanged (the chunks are cut at multiples of K,
        which changes no value).

    Returns: :class:`DescentResult` (bounds from ``theory.alignment`` along the run's eta_t; vacuous
      runs give inf bounds).

    Raises:
      ValueError: a bad config or inputs (naming the argument), a checkpoint of another run,
        a checkpoint folder that cannot be created or written (checked before the first chunk),
        ``trajectory_every`` not an integer >= 1, or (``empty_negatives="error"``) a batch whose
        anchors have no other-class sample.
      X64DisabledError: float64 input while JAX's x64 mode is off.

    Source: docs/theorems.md B3-B5 (Luthra, Mishra, Galanti, arXiv 2510.08852, Theorem 1 and its proof).

    Examples:
      CL and NSCL similarity descent from one Sigma_0 on shared batches, and Theorem 1 along the run
      (compiling the scan takes a few seconds):

      >>> from contrastive_bounds.numerics.alignment import DescentConfig, make_problem
      >>> sigma0, labels = make_problem(16, 4, seed=0)
      >>> result = run_similarity_descent(sigma0, labels, DescentConfig(batch_size=8, steps=20, tau=0.5, step_size=1.0))
      >>> result.steps_done, result.complete
      (20, True)
      >>> s = result.summary()
      >>> print(f"d_T = {s['d_T']:.4f} <= Theorem 1 bound {s['bounds']['theorem1']:.4g}: {s['status']}")
      d_T = 1.0125 <= Theorem 1 bound 5.534e+06: uninformative
      >>> sign = ">=" if s["cka"] >= s["cka_lower"] else "<"
      >>> print(f"CKA {s['cka']:.4f} {sign} {s['cka_lower']:.4f} (corollary from rho = {s['rho']:.4f})")
      CKA 0.9934 >= 0.7926 (corollary from rho = 0.1157)
    """
    s0, lab, num_classes = prepare_run_inputs(sigma0, labels, config)
    if trajectory_every is not None:
        trajectory_every = check_int("trajectory_every", trajectory_every, 1)
    if checkpoint:
        ensure_writable_parent(checkpoint, "checkpoint")  # before the first chunk, not after it
    n = lab.shape[0]
    counts = np.bincount(lab, minlength=num_classes)

    pi_max = float(counts.max() / n)
    epsilon = alignment.epsilon_value(config.batch_size, config.steps, config.delta)
    delta_l10 = alignment.delta_log10(config.tau, pi_max, epsilon)  # finite even where Delta overflows float64
    delta_v = 10.0 ** delta_l10 if delta_l10 < 300 else math.inf
    etas = config.step_sizes()  # float64 (T,): the run's eta_t

    fingerprint = _fingerprint(config, s0, lab, trajectory_every)
    records: dict[str, list[np.ndarray]] = {k: [] for k in _RECORD_FIELDS}
    traj: dict[str, list[np.ndarray]] = {"steps": [np.zeros(1, np.int64)], "sigma_cl": [s0[None]],
                                         "sigma_nscl": [s0[None]]}
    step = 0
    sig_cl, sig_nscl = s0, s0
    if checkpoint and resume and os.path.exists(checkpoint):
        step, sig_cl, sig_nscl, loaded, loaded_traj = _load_checkpoint(checkpoint, fingerprint)
        records = {k: [loaded[k]] for k in _RECORD_FIELDS}
        if trajectory_every is not None:
            traj = {k: [v] for k, v in loaded_traj.items()}
    key = jax.random.key(config.seed)
    labels_j = jnp.asarray(lab)
    dtype = s0.dtype
    tau_j = jnp.asarray(config.tau, dtype)
    state = DescentState(jnp.array(sig_cl, dtype), jnp.array(sig_nscl, dtype), jnp.zeros((), dtype))
    chunks = 0
    while step < config.steps and (max_chunks is None or chunks < max_chunks):
        count = min(config.chunk_size, config.steps - step)
        batches = chunk_batches(key, labels_j, step, count=count, batch_size=config.batch_size,
                                 replace=config.replace, stratified=config.stratified, num_classes=num_classes)
        _check_batches(np.asarray(batches), lab, step, config.empty_negatives)
        diff = state.sigma_cl - state.sigma_nscl
        state = state._replace(d2=jnp.sum(diff * diff))  # exact at every chunk start
        done = 0
        for piece in _pieces(step, count, trajectory_every):
            state, recs = run_descent_chunk(state, batches[done:done + piece], labels_j, tau_j,
                                            jnp.asarray(etas[step + done:step + done + piece], dtype),
                                            anchors=config.anchors, coupled=config.coupled,
                                            symmetrize=config.symmetrize, unique=not config.replace)
            for k in _RECORD_FIELDS:
                records[k].append(np.asarray(getattr(recs, k)))
            done += piece
            at = step + done
            if trajectory_every is not None and (at % trajectory_every == 0 or at == config.steps):
                traj["steps"].append(np.array([at], np.int64))  # copies: the state is donated to the next piece
                traj["sigma_cl"].append(np.array(state.sigma_cl)[None])
                traj["sigma_nscl"].append(np.array(state.sigma_nscl)[None])
        step += count
        chunks += 1
        if checkpoint:
            _save_checkpoint(checkpoint, fingerprint=fingerprint, step=step, sigma_cl=state.sigma_cl,
                             sigma_nscl=state.sigma_nscl, records={k: np.concatenate(v) for k, v in records.items()},
                             trajectory={k: np.concatenate(v) for k, v in traj.items()} if trajectory_every else {})
        if progress is not None:
            progress(step, config.steps)

    rec = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in records.items()}
    rec = {k: (v.astype(np.float64) if v.dtype.kind == "f" else v) for k, v in rec.items()}
    distance = np.concatenate([[float(np.linalg.norm(s0 - s0))], rec["distance"]])
    result = DescentResult(config, rec, distance, np.asarray(state.sigma_cl), np.asarray(state.sigma_nscl), lab,
                           pi_max, epsilon, delta_v, delta_log10=delta_l10, steps_done=step, step_sizes=etas)
    if trajectory_every is not None:
        result.trajectory = {k: np.concatenate(v) for k, v in traj.items()}
    if step > 0:
        result.bounds_log10 = link_bounds_log10(result, step)
    return result
