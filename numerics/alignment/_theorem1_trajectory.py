"""Theorem 1 and its proof links along a recorded trajectory (a user's training log; docs/theorems.md B4).

:func:`evaluate_theorem1_log` takes a validated :class:`._theorem1_log.Theorem1Log` and evaluates,
at every record t_k of the log (a = 1/(2 tau^2 B), c = Delta/(tau sqrt B)):

* the measured d_t = ||Sigma^CL_t - Sigma^NSCL_t||_F (from the matrices, or in feature form from
  the embeddings, never an m x m matrix there);
* L1 where gradients can be formed (the batch of every step known): the mismatch
  ||G^CL_t - G^NSCL_t||_F of B3's applied gradients at the logged Sigma's against c + a d_t, and the
  batch event (every anchor's same-class fraction <= pi_max + epsilon, all T steps);
* L2 step by step: the measured d at record k+1 against the recursion run from the measured d at
  record k (composed over the steps between records);
* the chain of bounds on d_t, each at least the previous one: ``triangle`` and ``L1`` (the summed
  measured mismatches and their L1 bounds; only when every step is recorded and the batches are
  known), ``L2`` (the solved recursion), ``L3`` (Groenwall) and ``theorem1`` (exp(a S_t)(d_0 + c S_t)),
  from :mod:`contrastive_bounds.theory._alignment_trajectory`, in log space;
* the slack budget (log10 of each link's bound over the previous one at T, from the measured d_T), and
  a status with its reason at T and at every record: ``vacuous`` (Delta infinite),
  ``uninformative`` (above the trivial bound), ``no_motion`` (every bound 0) or ``informative``;
  a log whose runs start apart (d_0 > 0) is marked ``premise_failed`` (Theorem 1 assumes a shared
  Sigma_0; the bounds are then its Groenwall extension with b_0 = d_0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds import theory as alignment
import contrastive_bounds.theory._alignment_trajectory as links

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.alignment._descent import applied_gradients, same_class_fractions
from contrastive_bounds.numerics.alignment._descent_gradients import block_structure
from contrastive_bounds.numerics.alignment._descent_result import LINKS
from contrastive_bounds.numerics.alignment._theorem1_log import Theorem1Log

__all__ = ["Theorem1Trajectory", "evaluate_theorem1_log"]

CHAIN = LINKS  # triangle, L1, L2, L3, theorem1
_BLOCK_BYTES = 2**27  # gradient blocks per jitted chunk of records


@partial(jax.jit, static_argnames=("anchors", "coupled", "symmetrize"))
def _mismatch(blocks_cl, blocks_nscl, batches, labels, tau, *, anchors, coupled, symmetrize):
    def one(s_cl, s_nscl, batch):
        g_cl, g_nscl = applied_gradients(s_cl, s_nscl, batch, labels, tau=tau, anchors=anchors, coupled=coupled,
                                         symmetrize=symmetrize)
        is_anchor, _, _, d_nscl, _ = block_structure(batch, labels, anchors, coupled)
        return jnp.sqrt(jnp.sum((g_cl - g_nscl) ** 2)), jnp.sum(is_anchor & ~jnp.any(d_nscl, axis=1))

    return jax.vmap(one)(blocks_cl, blocks_nscl, batches)


@jax.jit
def _max_fractions(batches, labels):
    return jax.vmap(lambda b: jnp.max(same_class_fractions(b, labels)))(batches)


def _chunks(total: int, size: int):
    for start in range(0, total, size):
        yield start, min(total, start + size)


def _padded(a: np.ndarray, size: int) -> np.ndarray:
    """``a`` padded to ``size`` rows by repeating its last row (one compilation for every chunk)."""
    return a if a.shape[0] == size else np.concatenate([a, np.repeat(a[-1:], size - a.shape[0], axis=0)])


def _blocks(log: Theorem1Log, ks: np.ndarray, rows: np.ndarray, side: str) -> np.ndarray:
    """float64 (len(ks), 2B, 2B) blocks Sigma_k[rows_k][:, rows_k] of one run."""
    sig = log.sigma_cl if side == "cl" else log.sigma_nscl
    if sig is not None:
        return np.asarray(sig[ks[:, None, None], rows[:, :, None], rows[:, None, :]], dtype=np.float64)
    emb = log.embeddings_cl if side == "cl" else log.embeddings_nscl
    u = emb[ks[:, None], rows]
    return np.einsum("kid,kjd->kij", u, u)


def _gram_distance(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """||U U^T - V V^T||_F per record for unit rows u (K, m, d), v (K, m, d') without an m x m matrix."""
    m, d = u.shape[1], max(u.shape[2], v.shape[2])
    if d >= m:
        return np.sqrt(np.maximum(np.sum((np.einsum("kid,kjd->kij", u, u) - np.einsum("kid,kjd->kij", v, v)) ** 2,
                                         axis=(1, 2)), 0.0))
    if u.shape == v.shape:  # cancellation-free: (1/2)[tr(D^T D P^T P) + tr((P^T D)^2)], D = U - V, P = U + V
        dd, pp = u - v, u + v
        pd = np.einsum("kid,kie->kde", pp, dd)
        sq = 0.5 * (np.sum(np.einsum("kid,kie->kde", dd, dd) * np.einsum("kid,kie->kde", pp, pp), axis=(1, 2))
                    + np.sum(pd * np.swapaxes(pd, 1, 2), axis=(1, 2)))
    else:
        sq = (np.sum(np.einsum("kid,kie->kde", u, u) ** 2, axis=(1, 2)) + np.sum(np.einsum("kid,kie->kde", v, v) ** 2,
              axis=(1, 2)) - 2 * np.sum(np.einsum("kid,kie->kde", u, v) ** 2, axis=(1, 2)))
    return np.sqrt(np.maximum(sq, 0.0))


def _distances(log: Theorem1Log) -> tuple[np.ndarray, bool]:
    """(measured d at every record, float64 (K+1,); whether the diagonals of both runs agree at every record)."""
    if log.sigma_cl is None:
        k1 = log.embeddings_cl.shape[0]
        size = max(1, 2**24 // (log.m * max(log.embeddings_cl.shape[2], log.embeddings_nscl.shape[2])))
        out = np.concatenate([_gram_distance(log.embeddings_cl[a:b], log.embeddings_nscl[a:b])
                              for a, b in _chunks(k1, size)])
        return out, True
    k1, m = log.sigma_cl.shape[:2]
    out, same_diag = np.empty(k1), True
    for a, b in _chunks(k1, max(1, 2**24 // (m * m))):
        x = np.asarray(log.sigma_cl[a:b], dtype=np.float64)
        y = np.asarray(log.sigma_nscl[a:b], dtype=np.float64)
        out[a:b] = np.linalg.norm((x - y).reshape(b - a, -1), axis=1)
        same_diag &= bool(np.array_equal(np.diagonal(x, axis1=1, axis2=2), np.diagonal(y, axis1=1, axis2=2)))
    return out, same_diag


def _gradient_records(log: Theorem1Log) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mismatch at records 0..K-1, NSCL anchors without negatives per such record, max same-class fraction per step)."""
    n, b = log.labels.size, log.batch_size
    ks = np.arange(log.record_steps.size - 1)
    batches = np.sort(log.batches[log.record_steps[:-1]], axis=1)  # the step's own batch, sorted as descent_step does
    rows = np.concatenate([batches, batches + n], axis=1)
    size = max(1, _BLOCK_BYTES // (16 * (2 * b) ** 2))
    size = min(size, ks.size)
    labels = jnp.asarray(log.labels)
    tau = jnp.asarray(log.tau, jnp.float64)
    mis, empty = [], []
    for a, z in _chunks(ks.size, size):
        blk_cl = _padded(_blocks(log, ks[a:z], rows[a:z], "cl"), size)
        blk_nscl = _padded(_blocks(log, ks[a:z], rows[a:z], "nscl"), size)
        mm, ee = _mismatch(jnp.asarray(blk_cl), jnp.asarray(blk_nscl), jnp.asarray(_padded(batches[a:z], size)),
                           labels, tau, anchors=log.anchors, coupled=log.coupled, symmetrize=log.symmetrize)
        mis.append(np.asarray(mm)[: z - a])
        empty.append(np.asarray(ee)[: z - a])
    fsize = max(1, min(log.steps, 2**22 // (b * b)))
    fr = [np.asarray(_max_fractions(jnp.asarray(_padded(log.batches[a:z], fsize)), labels))[: z - a]
          for a, z in _chunks(log.steps, fsize)]
    return np.concatenate(mis), np.concatenate(empty).astype(np.int64), np.concatenate(fr).astype(np.float64)


@dataclass
class Theorem1Trajectory:
    """Theorem 1 and its links along a log (see the module docstring); arrays are per record (K+1,) unless said.

    Attributes:
      log: the :class:`._theorem1_log.Theorem1Log` evaluated.
      distance: measured d at the records.
      eta_sum: S_t at the records (``math.fsum`` at T).
      epsilon: eps_{B,delta} with the log's T.
      delta_log10: log10 Delta (``inf`` when vacuous).
      trivial: the trivial bound on d (2 sqrt(m(m-1)), or 2m when the diagonals differ).
      trivial_note: which of the two, in words.
      l2_step_log10: (K,) log10 of L2 composed from record k's measured d to record k+1.
      bounds_log10: link -> log10 of its bound on d at the records (``triangle``/``L1`` only when
        every step is recorded and the batches are known).
      mismatch: (K,) mismatch at records 0..K-1, or None without batches.
      nscl_empty: (K,) NSCL anchors without another-class sample at those records, or None.
      max_same_fraction: (T,) per step, or None without batches.
      l1_log10: (K,) log10 of the L1 bound at records 0..K-1 (None without batches).
      l1_reason: why L1 was not evaluated (None when it was).
      rtol: relative tolerance of every "holds" comparison.
      notes: what the evaluation could not do, in words.
    """

    log: Theorem1Log
    distance: np.ndarray
    eta_sum: np.ndarray
    epsilon: float
    delta_log10: float
    trivial: float
    trivial_note: str
    l2_step_log10: np.ndarray
    bounds_log10: dict[str, np.ndarray]
    mismatch: np.ndarray | None = None
    nscl_empty: np.ndarray | None = None
    max_same_fraction: np.ndarray | None = None
    l1_log10: np.ndarray | None = None
    l1_reason: str | None = None
    rtol: float = 1e-9
    notes: list[str] = field(default_factory=list)

    @property
    def vacuous(self) -> bool:
        return math.isinf(self.delta_log10)

    def _below(self, measured: np.ndarray, bound_log10: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log10(measured) <= bound_log10 + math.log10(1 + self.rtol)

    def holds(self) -> dict[str, bool | None]:
        """Whether each link holds at every record. Keys: ``L1_step``, ``L2_step``, the chain.

        None where the link is not evaluated (no batches) or vacuous (Delta infinite: an infinite bound
        says nothing, so it is never reported as holding); ``triangle`` uses no Delta and is always
        evaluated when present.
        """
        vac = self.vacuous
        out: dict[str, bool | None] = {
            "L1_step": None if self.mismatch is None or vac else bool(np.all(self._below(self.mismatch, self.l1_log10))),
            "L2_step": None if vac else bool(np.all(self._below(self.distance[1:], self.l2_step_log10)))}
        for link in CHAIN:
            ok = link in self.bounds_log10 and (link == "triangle" or not vac)
            out[link] = bool(np.all(self._below(self.distance, self.bounds_log10[link]))) if ok else None
        return out

    def first_violations(self) -> dict[str, int | None]:
        """The first step at which each evaluated link fails (None: holds everywhere or not evaluated)."""
        steps = self.log.record_steps
        checks = {"L2_step": (self.distance[1:], self.l2_step_log10, steps[1:])}
        if self.mismatch is not None:
            checks["L1_step"] = (self.mismatch, self.l1_log10, steps[:-1])
        checks.update({k: (self.distance, v, steps) for k, v in self.bounds_log10.items()})
        out = {}
        for name, (x, b, at) in checks.items():
            ok = self._below(x, b)
            out[name] = None if np.all(ok) else int(at[int(np.argmin(ok))])
        return out

    def batch_event(self) -> bool | None:
        """Every anchor's same-class fraction <= pi_max + epsilon at every step (None without batches)."""
        if self.max_same_fraction is None:
            return None
        return bool(np.all(self.max_same_fraction <= self.log.pi_max + self.epsilon))

    def slack_budget(self) -> dict[str, float | None]:
        """log10 factor each evaluated link adds at T over the previous one, starting from the measured d_T
        (``inf`` for a vacuous link or one above a zero previous value; None for 0/0)."""
        prev = math.log10(self.distance[-1]) if self.distance[-1] > 0 else -math.inf
        out: dict[str, float | None] = {}
        for link in (k for k in CHAIN if k in self.bounds_log10):
            cur = float(self.bounds_log10[link][-1])
            out[link] = (cur - prev if math.isfinite(cur) and math.isfinite(prev)
                         else None if cur == -math.inf and prev == -math.inf else math.inf)
            prev = cur
        return out

    def record_status(self) -> list[str]:
        """Per record: ``start`` (t = 0), ``vacuous``, ``no_motion`` (bound 0: no step has moved yet),
        ``uninformative`` (above the trivial bound: it says nothing there) or ``informative``."""
        thm = self.bounds_log10["theorem1"]
        lt = math.log10(self.trivial)
        return ["start" if k == 0 else "vacuous" if self.vacuous else "no_motion" if v == -math.inf else
                "uninformative" if v > lt else "informative" for k, v in enumerate(thm)]

    def status(self) -> tuple[str, str]:
        """``(status, reason)`` at T (reason empty when informative)."""
        d0 = float(self.distance[0])
        thm = float(self.bounds_log10["theorem1"][-1])
        if self.vacuous:
            return "vacuous", f"1 - pi_max - epsilon = {1 - self.log.pi_max - self.epsilon:.4g} <= 0: Delta is infinite"
        if d0 > 0:
            return "premise_failed", (f"d_0 = {d0:.6g} > 0: the runs do not start from one Sigma_0, so Theorem 1 (d_0 = 0) "
                                      "does not apply; the bounds are its Groenwall extension exp(aS)(d_0 + cS)")
        if thm == -math.inf:
            return "no_motion", "S = sum of the step sizes = 0 and d_0 = 0: every bound is exactly 0"
        if thm > math.log10(self.trivial):
            shown = f"{thm:.4f}" if abs(thm) < 1e6 else f"({thm:.6g})"
            return "uninformative", f"bound 10^{shown} exceeds the trivial {self.trivial_note} = {self.trivial:.4g}"
        return "informative", ""

    def summary(self) -> dict[str, Any]:
        """JSON-ready: the constants, status and reason, d_T, each link's bound and slack at T, holds, first
        violations, the batch event, and per-record arrays (``per_record``)."""
        lg = self.log
        status, reason = self.status()
        st = self.record_status()
        first_uninf = next((int(lg.record_steps[k]) for k, s in enumerate(st) if s in ("uninformative", "vacuous")), None)
        d_t = float(self.distance[-1])
        per = {"step": lg.record_steps.tolist(), "eta_sum": self.eta_sum.tolist(), "distance": self.distance.tolist(),
               "status": st, "l2_step_log10": [None] + self.l2_step_log10.tolist()}
        if self.mismatch is not None:
            per["mismatch"] = self.mismatch.tolist() + [None]
            per["l1_log10"] = self.l1_log10.tolist() + [None]
        per.update({f"{k}_log10": v.tolist() for k, v in self.bounds_log10.items()})
        return {
            "source": lg.source, "records": int(lg.record_steps.size), "steps": lg.steps, "m": lg.m,
            "batch_size": lg.batch_size, "tau": lg.tau, "delta": lg.delta, "pi_max": lg.pi_max,
            "epsilon": self.epsilon, "delta_log10": self.delta_log10,
            "delta_value": 10.0 ** self.delta_log10 if self.delta_log10 < 300 else math.inf,
            "eta_sum": float(self.eta_sum[-1]), "eta_min": float(lg.step_sizes.min()), "eta_max": float(lg.step_sizes.max()),
            "anchors": lg.anchors, "coupled": lg.coupled, "symmetrize": lg.symmetrize,
            "input": "similarities" if lg.sigma_cl is not None else "embeddings",
            "batches_source": lg.batches_source, "l1_evaluated": self.mismatch is not None, "l1_reason": self.l1_reason,
            "status": status, "reason": reason, "trivial_bound": self.trivial, "trivial_note": self.trivial_note,
            "first_uninformative_step": first_uninf, "d_0": float(self.distance[0]),
            "d_T": d_t, "d_T_log10": math.log10(d_t) if d_t > 0 else None,
            "bounds_log10": {k: float(v[-1]) for k, v in self.bounds_log10.items()},
            "bounds": {k: (10.0 ** float(v[-1]) if v[-1] < 300 else math.inf) for k, v in self.bounds_log10.items()},
            "slack_log10": self.slack_budget(), "holds": self.holds(), "first_violation": self.first_violations(),
            "batch_event": self.batch_event(),
            "max_same_fraction": None if self.max_same_fraction is None else float(self.max_same_fraction.max()),
            "nscl_empty": None if self.nscl_empty is None else int(self.nscl_empty.sum()),
            "notes": list(lg.notes) + self.notes, "per_record": per,
        }


def _log_sum(ln_terms: np.ndarray) -> np.ndarray:
    """(T+1,) ln of the running sums: -inf at 0, then logaddexp.accumulate of the terms."""
    return np.concatenate([[-np.inf], np.logaddexp.accumulate(ln_terms)]) if ln_terms.size else np.array([-np.inf])


def evaluate_theorem1_log(log: Theorem1Log, *, rtol: float = 1e-9) -> Theorem1Trajectory:
    """Evaluate Theorem 1 and its proof links at every record of ``log`` (module docstring).

    Args:
      log: from :func:`._theorem1_log_io.read_theorem1_log`.
      rtol: relative tolerance of every "holds" comparison (rounding of the measured values).

    Returns:
      :class:`Theorem1Trajectory`.

    Raises:
      ValueError: ``steps * batch_size / delta < 1`` (epsilon undefined, naming them).
      X64DisabledError: JAX's x64 mode is off (the gradients are formed in float64 whatever the
        log's dtype).

    Source: docs/theorems.md B4 (Paper B, arXiv 2510.08852, Theorem 1 and its proof).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.alignment.evaluate_theorem1_log")
    eps = alignment.epsilon_value(log.batch_size, log.steps, log.delta)
    dl10 = alignment.delta_log10(log.tau, log.pi_max, eps)
    kw = dict(tau=log.tau, batch_size=log.batch_size, delta_log10=dl10)
    d, same_diag = _distances(log)
    m = log.m
    trivial, note = ((alignment.trivial_frobenius(m), "2 sqrt(m(m-1))") if same_diag
                     else (2.0 * m, "2m (the diagonals of the two runs differ)"))
    etas, rs = log.step_sizes, log.record_steps
    s_all = np.concatenate([[0.0], np.cumsum(etas)])
    s_rec = s_all[rs]
    s_rec[-1] = math.fsum(etas.tolist())
    chain = links.link_chain_log10(etas, initial_distance=float(d[0]), **kw)
    bounds = {k: v[rs] for k, v in chain.items()}
    res = Theorem1Trajectory(log, d, s_rec, eps, dl10, trivial, note,
                             links.link_l2_interval_log10(etas, rs, d, **kw), {})
    if log.has_batches:
        res.mismatch, res.nscl_empty, res.max_same_fraction = _gradient_records(log)
        res.l1_log10 = links.link_l1_log10(d[:-1], **kw)
        if rs.size == log.steps + 1:  # every step recorded: the summed (triangle, L1) links exist
            a, ln_c = links.link_constants(log.tau, log.batch_size, dl10)
            with np.errstate(divide="ignore"):
                ln_d0 = math.log(d[0]) if d[0] > 0 else -math.inf
                tri = np.logaddexp(ln_d0, _log_sum(np.log(etas) + np.log(res.mismatch)))
                if math.isinf(ln_c):
                    l1 = np.concatenate([[ln_d0], np.full(log.steps, np.inf)])
                else:
                    l1 = np.logaddexp(ln_d0, np.logaddexp(ln_c + np.log(s_all), math.log(a) + _log_sum(np.log(etas) + np.log(d[:-1]))))
            res.bounds_log10 = {"triangle": tri / math.log(10), "L1": l1 / math.log(10)}
        else:
            res.notes.append("the log is not recorded at every step: the summed links (triangle, L1) need every step")
    else:
        res.l1_reason = "the log holds no batch indices (batches) nor a sampler seed: the gradients cannot be formed"
    res.bounds_log10.update(bounds)
    if log.has_batches and int(res.nscl_empty.sum()):
        res.notes.append(f"{int(res.nscl_empty.sum())} NSCL anchor(s) at the records had no other-class sample in their "
                         "batch (their NSCL rows are 0)")
    return res
