"""Does similarity descent track plain SGD? The coupled run (docs/theorems.md B9).

:func:`run_proxy_comparison` trains CL and NSCL with plain SGD (:mod:`._sgd`) and, in the same
``lax.scan``, runs the symmetrised similarity descent of both losses (:func:`._descent.descent_step`,
``symmetrize=True``, clipped) from the same Sigma_0 on the same batch sequence with step eta_eff
(:mod:`._eta_eff`; estimated first from the run's own first steps). Every ``record_every`` steps it
reads Sigma^SGD on the reference set and records, for each loss, ``||Sigma^SGD_t - Sigma^proxy_t||_F``
and ``||Sigma^SGD_t - Sigma_0||_F`` (their ratio is the proxy's relative error), the CL-NSCL
distances d_t of both, CKA of both, the row-wise gradient mismatch ``||G^CL - G^NSCL||_F`` at the
*real* states (for link L1) and the largest |Sigma| (divergence). Records are nested scans: a chunk
of ``records_per_chunk`` records x ``record_every`` steps is one jitted call; a checkpoint after each
chunk (atomic) lets an interrupted run resume with identical results.

The result (:class:`._proxy_result.ProxyResult`) reports the fidelity curve, where the proxy stops
tracking within the tolerance, and Theorem 1 evaluated with S = T eta_eff beside the real d_T.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Literal

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_int, check_probability, check_real

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._filemode import ensure_writable_parent
from contrastive_bounds.numerics.alignment._checkpoint import (
    fingerprint, flatten_tree, load_npz_checked, save_npz_atomic, unflatten_tree)
from contrastive_bounds.numerics.alignment._descent import DescentState, descent_step
from contrastive_bounds.numerics.alignment._descent_gradients import block_gradients
from contrastive_bounds.numerics.alignment._eta_eff import ESTIMATORS, EtaEstimate, batch_rows, estimate_eta_eff
from contrastive_bounds.numerics.alignment._proxy_result import RECORD_FIELDS, ProxyResult
from contrastive_bounds.numerics.alignment._sgd import (
    SGDConfig, TrainingDivergedError, batch_for_step, check_reference_memory, embed_rows,
    init_model, load_reference_set, reference_sigma, run_keys, sgd_pair_step, sigma_defect, sigma_tolerance)

__all__ = ["ProxyConfig", "run_proxy_comparison", "check_proxy_inputs", "centred_cka"]


@dataclass(frozen=True)
class ProxyConfig:
    """A proxy-vs-SGD comparison (validated by :meth:`validate`).

    Attributes:
      sgd: the :class:`~._sgd.SGDConfig` of the real runs (its ``steps`` is T).
      record_every: k >= 1, steps between records of Sigma^SGD (the last record is at T).
      records_per_chunk: records per jitted chunk (>= 1); part of the run's identity.
      fit_steps: K in [1, T] steps of the eta_eff fit.
      eta_estimator: ``"fit"`` or ``"ntk"`` (see :mod:`._eta_eff`).
      eta_eff: a given eta_eff (> 0) instead of an estimate, or None.
      delta: failure probability of Theorem 1 in (0, 1).
      tolerance: relative error under which the proxy "tracks" SGD, in (0, 1) (the 10 % of B9).
    """

    sgd: SGDConfig = field(default_factory=SGDConfig)
    record_every: int = 10
    records_per_chunk: int = 10
    fit_steps: int = 10
    eta_estimator: Literal["fit", "ntk"] = "fit"
    eta_eff: float | None = None
    delta: float = 0.05
    tolerance: float = 0.1

    def validate(self) -> None:
        """Raise ValueError naming the first field outside its domain."""
        self.sgd.validate()
        check_int("record_every", self.record_every, 1, self.sgd.steps)
        check_int("records_per_chunk", self.records_per_chunk, 1)
        check_int("fit_steps", self.fit_steps, 1, self.sgd.steps)
        if self.eta_estimator not in ESTIMATORS:
            raise ValueError(f"eta_estimator={self.eta_estimator!r} must be one of {ESTIMATORS}")
        if self.eta_eff is not None:
            check_real("eta_eff", self.eta_eff, 0.0)
        check_probability("delta", self.delta)
        check_real("tolerance", self.tolerance, 0.0, 1.0)


def centred_cka(a: jax.Array, b: jax.Array) -> jax.Array:
    """CKA of two (m, m) similarity matrices, ``<HaH, HbH>/(||HaH|| ||HbH||)`` (B5's cosine-Gram CKA), jit-able.

    Raises:
      X64DisabledError: float64 input while JAX's x64 mode is off.
    """
    require_x64(a, b, what="contrastive_bounds.numerics.alignment.centred_cka")
    def centre(s):
        return s - s.mean(0, keepdims=True) - s.mean(1, keepdims=True) + s.mean()

    ka, kb = centre(a), centre(b)
    return jnp.sum(ka * kb) / (jnp.linalg.norm(ka) * jnp.linalg.norm(kb))


def _fro(x: jax.Array) -> jax.Array:
    return jnp.sqrt(jnp.sum(x * x))


@partial(jax.jit, static_argnames=("config", "records", "every"))
def _proxy_chunk(state, ref, sigma0, keys, t0, tau, learning_rate, eta_eff, *, config: SGDConfig, records: int,
                 every: int):
    n = ref.labels.shape[0]
    fresh = config.views == "fresh"

    def step(carry, t):
        pc, pn, spc, spn, bad = carry
        batch = batch_for_step(keys["batches"], ref.labels, config.batch_size, t)
        key = jax.random.fold_in(keys["augment"], t) if fresh else None
        pc, pn, losses, ok = sgd_pair_step(pc, pn, batch, ref, config, tau, learning_rate, key)
        prox, _ = descent_step(DescentState(spc, spn, jnp.zeros((), spc.dtype)), batch, ref.labels, tau=tau,
                               step_size=eta_eff, symmetrize=True, unique=True)
        bad = jnp.where((bad < 0) & ~ok, (t + 1).astype(bad.dtype), bad)  # per model: first step (1-based count) at which it broke
        return (pc, pn, prox.sigma_cl, prox.sigma_nscl, bad), losses

    def record(carry, r):
        start = t0 + r * every
        carry, losses = jax.lax.scan(step, carry, start + jnp.arange(every))
        pc, pn, spc, spn, _ = carry
        sc, sn = reference_sigma(pc, ref), reference_sigma(pn, ref)
        batch = batch_for_step(keys["batches"], ref.labels, config.batch_size, start + every - 1)
        rows = batch_rows(batch, n)
        g_cl, g_nscl = block_gradients(sc[rows][:, rows], sn[rows][:, rows], batch, ref.labels, tau=tau)
        lab = ref.labels[batch]
        other = batch[:, None] != batch[None, :]
        same = jnp.sum(other & (lab[:, None] == lab[None, :]), axis=1) / jnp.sum(other, axis=1)
        rec = {
            "err_cl": _fro(sc - spc), "err_nscl": _fro(sn - spn),
            "move_cl": _fro(sc - sigma0), "move_nscl": _fro(sn - sigma0),
            "proxy_move_cl": _fro(spc - sigma0), "proxy_move_nscl": _fro(spn - sigma0),
            "d_real": _fro(sc - sn), "d_proxy": _fro(spc - spn),
            "cka_real": centred_cka(sc, sn), "cka_proxy": centred_cka(spc, spn),
            "mismatch_real": _fro(g_cl - g_nscl), "max_same_fraction": jnp.max(same).astype(sc.dtype),
            "max_abs_sigma": jnp.maximum(jnp.max(jnp.abs(sc)), jnp.max(jnp.abs(sn))),
            "sigma_defect": jnp.maximum(sigma_defect(sc), sigma_defect(sn)),
            "loss_cl": jnp.mean(losses[:, 0]), "loss_nscl": jnp.mean(losses[:, 1]),
        }
        return carry, rec

    return jax.lax.scan(record, state, jnp.arange(records))


def check_proxy_inputs(config: ProxyConfig) -> None:
    """Validate ``config`` (including the memory of the reference set) without running anything.

    Raises:
      ValueError: naming the first bad field, and for a reference set whose Sigma's exceed the free
        memory a message naming ``reference_size`` (``--reference-size``) and the memory needed.
    """
    config.validate()
    check_reference_memory(config.sgd.reference_size, config.sgd.dtype)


def _settings(config: ProxyConfig) -> dict:
    return dataclasses.asdict(config)


def run_proxy_comparison(config: ProxyConfig, *, checkpoint: str | None = None, resume: bool = True,
                         max_chunks: int | None = None,
                         progress: Callable[[int, int], None] | None = None) -> ProxyResult:
    """Run plain SGD of CL and NSCL and their similarity-descent proxy on the same batches (B9).

    Args:
      config: :class:`ProxyConfig`.
      checkpoint: optional ``.npz`` path written atomically after every chunk; with ``resume=True`` an
        existing checkpoint of the same run is continued (identical results).
      max_chunks: stop after this many chunks of this call (a partial result; for time-boxed jobs).
      progress: optional ``progress(steps_done, steps_total)`` after each chunk.

    Returns: :class:`~._proxy_result.ProxyResult`.

    Raises:
      ValueError: bad config (naming the field), a reference set too large for memory (naming
        ``reference_size``), an unwritable checkpoint folder or a checkpoint of another run.
      TrainingDivergedError: (a ValueError) SGD produced a non-finite loss or parameter, or Sigma left
        [-1, 1]: names the model, the step and the learning rate. Never returned as a result.

      X64DisabledError: ``config.sgd.dtype == "float64"`` while JAX's x64 mode is off.

    Source: docs/theorems.md B9 (Luthra, Mishra, Galanti, arXiv 2510.08852: the similarity-descent proxy).
    """
    check_proxy_inputs(config)
    require_x64(config.sgd.dtype, what="contrastive_bounds.numerics.alignment.run_proxy_comparison")
    if checkpoint:
        ensure_writable_parent(checkpoint, "checkpoint")
    cfg = config.sgd
    ref = load_reference_set(cfg)
    params0 = init_model(cfg)
    sigma0 = reference_sigma(params0, ref)
    fp = fingerprint(_settings(config))
    step = 0
    records: dict[str, list[np.ndarray]] = {k: [] for k in RECORD_FIELDS}
    pc = pn = params0
    spc = spn = sigma0
    eta: EtaEstimate | None = None
    if checkpoint and resume and os.path.exists(checkpoint):
        data = load_npz_checked(checkpoint, fp)
        step = int(data["step"])
        pc, pn = unflatten_tree("cl", data, params0), unflatten_tree("nscl", data, params0)
        spc, spn = jnp.asarray(data["proxy_cl"]), jnp.asarray(data["proxy_nscl"])
        records = {k: [data[f"rec_{k}"]] for k in RECORD_FIELDS}
        eta = EtaEstimate(**{**_eta_fields(data), "per_model": {
            name: {k[len(f"eta_{name}_"):]: float(v) for k, v in data.items() if k.startswith(f"eta_{name}_")}
            for name in ("cl", "nscl")}})
    if eta is None:
        eta = estimate_eta_eff(cfg, ref, params0, fit_steps=config.fit_steps, estimator=config.eta_estimator,
                               eta_eff=config.eta_eff)
    dt = cfg.jnp_dtype
    tau, lr, eta_j = (jnp.asarray(v, dt) for v in (cfg.tau, cfg.learning_rate, eta.eta_eff))
    state = (pc, pn, spc, spn, jnp.full(2, -1, jnp.int32))
    k = config.record_every
    keys, static = run_keys(cfg.seed), cfg.static_part()
    chunks = 0
    while step < cfg.steps and (max_chunks is None or chunks < max_chunks):
        left = cfg.steps - step
        if left >= k:
            recs, every = min(config.records_per_chunk, left // k), k
        else:
            recs, every = 1, left  # the last record lands on step T
        state, rec = _proxy_chunk(state, ref, sigma0, keys, jnp.int32(step), tau, lr, eta_j, config=static,
                                  records=recs, every=every)
        rec = {key: np.asarray(v, np.float64) for key, v in rec.items()}
        _raise_if_diverged(state, rec, step, every, cfg)
        for key in RECORD_FIELDS:
            records[key].append(rec[key] if key != "step" else step + every * (1 + np.arange(recs)))
        step += recs * every
        chunks += 1
        if checkpoint:
            arrays = {"step": np.array(step), "proxy_cl": state[2], "proxy_nscl": state[3],
                      **flatten_tree("cl", state[0]), **flatten_tree("nscl", state[1]),
                      **{f"rec_{key}": np.concatenate(v) for key, v in records.items()}, **_eta_arrays(eta)}
            save_npz_atomic(checkpoint, fp, arrays)
        if progress is not None:
            progress(step, cfg.steps)
    pc, pn, spc, spn, _ = state
    m = cfg.m
    z_cl = np.asarray(embed_rows(pc, jnp.arange(m), ref), np.float64)
    z_nscl = np.asarray(embed_rows(pn, jnp.arange(m), ref), np.float64)
    rec = {key: (np.concatenate(v) if v else np.zeros(0)) for key, v in records.items()}
    return ProxyResult(config, eta, rec, np.asarray(sigma0, np.float64), np.asarray(reference_sigma(pc, ref), np.float64),
                       np.asarray(reference_sigma(pn, ref), np.float64), np.asarray(spc, np.float64),
                       np.asarray(spn, np.float64), z_cl, z_nscl, np.asarray(ref.labels), step)


def _raise_if_diverged(state, rec: dict[str, np.ndarray], step0: int, every: int, cfg: SGDConfig) -> None:
    """Raise :class:`TrainingDivergedError` for a broken model (first bad step) or Sigma outside [-1, 1]."""
    bad = np.asarray(state[4])
    if np.any(bad >= 0):
        k = int(np.argmin(np.where(bad >= 0, bad, np.iinfo(np.int32).max)))
        raise TrainingDivergedError(("cl", "nscl")[k], int(bad[k]), cfg.learning_rate, cfg.batch_size,
                                    "non-finite loss or parameters")
    defect = rec["sigma_defect"]
    out = ~(defect <= sigma_tolerance(cfg.dtype))
    if np.any(out):
        r = int(np.argmax(out))
        raise TrainingDivergedError("cl/nscl", step0 + every * (r + 1), cfg.learning_rate, cfg.batch_size,
                                    f"the reference Sigma is no longer a cosine Gram (max |entry| = "
                                    f"{rec['max_abs_sigma'][r]:.6g}, defect {defect[r]:.3g}: entries outside [-1, 1] or a "
                                    "diagonal entry != 1, i.e. an embedding norm overflowed, vanished or is not finite)")


def _eta_arrays(eta: EtaEstimate) -> dict[str, np.ndarray]:
    out = {f"eta_{k}": np.array(getattr(eta, k)) for k in _ETA_SCALARS}
    for name, vals in eta.per_model.items():
        out.update({f"eta_{name}_{k}": np.array(v) for k, v in vals.items()})
    return out


def _eta_fields(data: dict[str, np.ndarray]) -> dict:
    return {k: f(data[f"eta_{k}"][()]) for k, f in _ETA_SCALARS.items()}


_ETA_SCALARS = {"learning_rate": float, "fit_steps": int, "eta_fit": float, "eta_ntk": float, "cos2": float,
                "cos2_block": float, "block_share": float, "estimator": str, "eta_eff": float}
