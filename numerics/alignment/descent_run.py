"""Driver of the coupled similarity descent: chunked ``lax.scan``, records, proof-link bounds, checkpoints.

:func:`run_similarity_descent` runs CL and NSCL from the same Sigma_0 on the same batches (one
step updates both, so the batches are shared by construction), records per step what each link of
the proof of Theorem 1 needs (:class:`~.similarity_descent.StepRecord`), and returns a
:class:`DescentResult` holding the trajectory of d_t against the bounds of

* ``triangle``: d_t <= sum_{s<t} eta_s ||G^CL_s - G^NSCL_s||_F (clipping is 1-Lipschitz), measured mismatch;
* ``L1``: the same with each mismatch replaced by its L1 bound Delta/(tau sqrt B) + d_s/(2 tau^2 B);
* ``L2``: the recursion b_{t+1} = (1 + eta_t/(2 tau^2 B)) b_t + eta_t Delta/(tau sqrt B), b_0 = 0;
* ``L3``: the discrete Groenwall product; ``theorem1``: the exp form of Theorem 1,

each one at least the previous, so log10(bound_k / bound_{k-1}) at T is the slack link k adds
(the "slack budget", THEOREMS.md B4). Bounds come from :mod:`contrastive_bounds.theory.alignment`.

Batches of step t come from ``fold_in(key, t)``, so a run is identical whatever the chunk size and
across checkpoint/resume (d^2 is recomputed exactly at every chunk start).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Literal

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory import alignment
from contrastive_bounds.theory.domains import check_finite_array, check_int, check_seed, check_probability, check_real

from contrastive_bounds.numerics.filemode import ensure_writable_parent, publish_mode
from contrastive_bounds.numerics.precision import require_x64
from contrastive_bounds.numerics.alignment.similarity import cka_rho, cosine_gram_cka, rsa_from_similarity, rsa_r
from contrastive_bounds.numerics.alignment.descent import DescentState, StepRecord, descent_step, sample_batch

__all__ = ["DescentConfig", "DescentResult", "make_problem", "run_similarity_descent", "check_run_inputs", "LINKS"]

LINKS = ("triangle", "L1", "L2", "L3", "theorem1")
_RECORD_FIELDS = StepRecord._fields


@dataclass(frozen=True)
class DescentConfig:
    """Parameters of a coupled run (all validated by :meth:`validate`).

    Attributes:
      batch_size: B, integer in [2, n].
      steps: T in [1, 2**31 - 1].
      tau: temperature in (0, inf).
      step_size: constant eta >= 0 (the bounds use eta_t = step_size for every t).
      seed: integer seed in [0, 2**32 - 1] of the batch draws (the same for both runs).
      delta: failure probability of Theorem 1, in (0, 1).
      anchors: "first" (paper) or "both" views.
      coupled: positive inside the denominator.
      symmetrize: (G + G^T)/2 updates.
      replace: sample batches with replacement (i.i.d., the Hoeffding setting).
      stratified: stratified batches without replacement.
      empty_negatives: "error" (an anchor whose batch has no other-class sample raises before the
        chunk is run, naming step and anchor) or "exclude" (its NSCL row is skipped and counted).
      chunk_size: steps per jitted ``lax.scan`` chunk (>= 1); part of the run's identity.
    """

    batch_size: int = 64
    steps: int = 500
    tau: float = 0.5
    step_size: float = 1.0
    seed: int = 0
    delta: float = 0.05
    anchors: Literal["first", "both"] = "first"
    coupled: bool = False
    symmetrize: bool = False
    replace: bool = False
    stratified: bool = False
    empty_negatives: Literal["error", "exclude"] = "error"
    chunk_size: int = 250

    def validate(self, num_samples: int) -> None:
        """Raise ValueError naming the first parameter outside its domain."""
        check_int("batch_size", self.batch_size, 2, None if self.replace else num_samples)
        check_int("steps", self.steps, 1, 2**31 - 1)  # a lax.scan length (int32)
        check_real("tau", self.tau, 0.0)
        check_real("step_size", self.step_size, 0.0, lo_closed=True)
        check_seed(self.seed)
        check_probability("delta", self.delta)
        check_int("chunk_size", self.chunk_size, 1)
        for name, value, allowed in (("anchors", self.anchors, ("first", "both")),
                                     ("empty_negatives", self.empty_negatives, ("error", "exclude"))):
            if value not in allowed:
                raise ValueError(f"{name}={value!r} must be one of {allowed}")
        if self.replace and self.stratified:
            raise ValueError("stratified=True samples without replacement; it cannot be combined with replace=True")


def make_problem(
    num_samples: int, num_classes: int, *, dim: int = 32, view_noise: float = 0.5, class_signal: float = 0.0,
    seed: int = 0, dtype: Any = np.float64,
) -> tuple[np.ndarray, np.ndarray]:
    """A shared Sigma_0 and balanced labels for a simulation.

    Sample i has class ``i mod C``; its embedding is a standard normal vector in R^dim plus
    ``class_signal`` times a class mean; each of its two views adds ``view_noise`` times fresh noise;
    Sigma_0 is the cosine Gram of the 2n views (rows 0..n-1 first views, n..2n-1 second views).

    Returns: ``(sigma0, labels)``: float (2n, 2n) in [-1, 1], symmetric with unit diagonal; int32 (n,).
    Raises: ValueError for out-of-domain arguments (num_classes in [2, n], dim >= 2, noise >= 0,
      seed in [0, 2**32 - 1]).
    """
    n = check_int("num_samples", num_samples, 2)
    c = check_int("num_classes", num_classes, 2, n)
    d = check_int("dim", dim, 2)
    vn = check_real("view_noise", view_noise, 0.0, lo_closed=True)
    cs = check_real("class_signal", class_signal, 0.0, lo_closed=True)
    rng = np.random.default_rng(check_seed(seed))
    labels = (np.arange(n) % c).astype(np.int32)
    means = rng.standard_normal((c, d))
    base = rng.standard_normal((n, d)) + cs * means[labels]
    views = np.concatenate([base + vn * rng.standard_normal((n, d)), base + vn * rng.standard_normal((n, d))])
    views /= np.linalg.norm(views, axis=1, keepdims=True)
    sigma0 = np.clip(views @ views.T, -1.0, 1.0)
    np.fill_diagonal(sigma0, 1.0)
    return sigma0.astype(dtype), labels


@dataclass
class DescentResult:
    """Outcome of :func:`run_similarity_descent`.

    Attributes:
      config: the :class:`DescentConfig`.
      records: dict of float64/int arrays of shape (T,) (fields of StepRecord) for steps 0..T-1.
      distance: float64 (T+1,) d_0 = 0, d_1, ..., d_T.
      sigma_cl, sigma_nscl: final (m, m) arrays (numpy, the run's dtype).
      pi_max, epsilon, delta_value: the constants of Theorem 1; ``delta_value`` is inf when vacuous
        and also when Delta is finite but beyond float64 (tau < ~0.0028): use ``delta_log10``.
      delta_log10: log10 Delta, finite unless vacuous (1 - pi_max - epsilon <= 0); computed from
        ``delta_value`` when not given.
      bounds_log10: dict link -> float64 (T+1,) log10 of each link's bound on d_t (LINKS order).
      steps_done: T when complete (a partial run stopped by ``max_chunks`` has fewer).
    """

    config: DescentConfig
    records: dict[str, np.ndarray]
    distance: np.ndarray
    sigma_cl: np.ndarray
    sigma_nscl: np.ndarray
    labels: np.ndarray
    pi_max: float
    epsilon: float
    delta_value: float
    delta_log10: float | None = None
    bounds_log10: dict[str, np.ndarray] = field(default_factory=dict)
    steps_done: int = 0

    def __post_init__(self) -> None:
        if self.delta_log10 is None:
            self.delta_log10 = math.log10(self.delta_value) if math.isfinite(self.delta_value) else math.inf

    @property
    def vacuous(self) -> bool:
        """Whether Theorem 1 is vacuous here (1 - pi_max - epsilon <= 0, Delta = inf)."""
        return math.isinf(self.delta_log10)

    @property
    def complete(self) -> bool:
        return self.steps_done == self.config.steps

    @property
    def m(self) -> int:
        return int(self.sigma_cl.shape[0])

    def batch_event(self) -> bool:
        """Whether every anchor's same-class fraction stayed <= pi_max + epsilon (the event of B4)."""
        return bool(np.all(self.records["max_same_fraction"] <= self.pi_max + self.epsilon))

    def l1_bound(self) -> np.ndarray:
        """float64 (T,): the L1 bound Delta/(tau sqrt B) + d_t/(2 tau^2 B) at each step (inf where
        Delta is inf or beyond float64; :meth:`l1_bound_log10` is exact there)."""
        return np.asarray(alignment.link_l1_bound(self.distance[:-1], tau=self.config.tau,
                                                   batch_size=self.config.batch_size, delta_value=self.delta_value))

    def l1_bound_log10(self) -> np.ndarray:
        """float64 (T,): log10 of the L1 bound at each step, in log space (finite unless vacuous)."""
        c = self.config
        if self.vacuous:
            return np.full(self.distance.size - 1, np.inf)
        ln_c = self.delta_log10 * math.log(10) - math.log(c.tau) - 0.5 * math.log(c.batch_size)
        with np.errstate(divide="ignore"):
            ln_ad = np.log(self.distance[:-1]) - math.log(2 * c.tau * c.tau * c.batch_size)
        return np.logaddexp(ln_c, ln_ad) / math.log(10)

    def link_holds(self, rtol: float = 1e-9) -> dict[str, bool]:
        """Whether measured quantities stay below each link's bound at every step (relative tolerance rtol).

        ``L1_step``: mismatch_t <= L1 bound(d_t) for every t; the other keys: d_t <= bound_t for all t.
        """
        with np.errstate(divide="ignore"):
            logd = np.log10(self.distance)
            log_mis = np.log10(self.records["mismatch"])
        out = {"L1_step": bool(np.all(log_mis <= self.l1_bound_log10() + math.log10(1 + rtol)))}
        for link in LINKS:
            out[link] = bool(np.all(logd <= self.bounds_log10[link] + math.log10(1 + rtol)))
        return out

    def slack_budget(self) -> dict[str, float | None]:
        """log10 factor each link adds at T: log10(bound_link / previous), starting from measured d_T.

        A value is ``inf`` when the link's bound is infinite (vacuous) or positive over a zero
        previous value, and ``None`` when both are zero (0/0: step_size = 0 moves nothing).
        """
        prev = math.log10(self.distance[-1]) if self.distance[-1] > 0 else -math.inf
        out: dict[str, float | None] = {}
        for link in LINKS:
            cur = float(self.bounds_log10[link][-1])
            if math.isfinite(cur) and math.isfinite(prev):
                out[link] = cur - prev
            elif cur == -math.inf and prev == -math.inf:
                out[link] = None
            else:
                out[link] = math.inf
            prev = cur
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-ready summary: final d_T, each link's bound and slack, vacuity, CKA/RSA measured and bounds.

        ``status`` says how to read the numbers: ``"vacuous"`` (Delta = inf, bounds inf),
        ``"no_motion"`` (step_size = 0: d_T = 0 and every bound is exactly 0, so their log10 values
        are -inf and the slack is undefined, None), ``"uninformative"`` (Theorem 1 above the trivial
        bound) or ``"informative"``; ``reason`` explains the first three. ``bounds`` holds the values
        (inf where beyond float64; ``bounds_log10`` is always exact), ``delta_log10`` is finite
        unless vacuous, ``d_T_log10`` is None when d_T = 0.
        """
        c = self.config
        trivial = alignment.trivial_frobenius(self.m)
        thm1 = float(self.bounds_log10["theorem1"][-1])
        d_t = float(self.distance[-1])
        vacuous = self.vacuous
        if vacuous:
            status, reason = "vacuous", f"1 - pi_max - epsilon = {1 - self.pi_max - self.epsilon:.4g} <= 0"
        elif thm1 == -math.inf:
            status, reason = "no_motion", (f"step_size = {c.step_size:g}: nothing moves, so d_T = 0 and every bound "
                                           "is exactly 0; their log10 and the slack (0/0) are undefined")
        elif thm1 > math.log10(trivial):
            status, reason = "uninformative", f"bound 10^{thm1:.4f} exceeds the trivial 2 sqrt(m(m-1)) = {trivial:.4g}"
        else:
            status, reason = "informative", ""
        k_norm = float(np.linalg.norm(_centred(self.sigma_cl)))
        rho = cka_rho(self.sigma_cl, self.sigma_nscl)
        r = rsa_r(self.sigma_cl, self.sigma_nscl)
        m_pairs = self.m * (self.m - 1) / 2
        sd_a = float(np.std(self.sigma_cl[np.triu_indices(self.m, 1)]))
        symmetric = bool(np.array_equal(self.sigma_cl, self.sigma_cl.T) and np.array_equal(self.sigma_nscl, self.sigma_nscl.T))
        # a-priori bounds on rho and r from Theorem 1 (||H X H|| <= ||X||; ||b - a|| <= ||dSigma||_F (/sqrt 2 if symmetric))
        thm1_val = 10.0 ** thm1 if thm1 < 300 else math.inf
        rho_prior = thm1_val / k_norm
        r_prior = thm1_val / (math.sqrt(2) if symmetric else 1.0) / (math.sqrt(m_pairs) * sd_a)
        budget = self.slack_budget()
        return {
            "m": self.m, "num_samples": self.m // 2, "batch_size": c.batch_size, "steps": c.steps, "tau": c.tau,
            "step_size": c.step_size, "seed": c.seed, "delta": c.delta, "coupled": c.coupled,
            "anchors": c.anchors, "symmetrize": c.symmetrize, "replace": c.replace, "stratified": c.stratified,
            "pi_max": self.pi_max, "epsilon": self.epsilon, "delta_value": self.delta_value,
            "delta_log10": self.delta_log10,
            "status": status, "reason": reason, "trivial_bound": trivial,
            "d_T": d_t, "d_T_log10": math.log10(d_t) if d_t > 0 else None,
            "bounds": {k: _pow10(float(v[-1])) for k, v in self.bounds_log10.items()},
            "bounds_log10": {k: float(v[-1]) for k, v in self.bounds_log10.items()},
            "slack_log10": budget,
            "holds": self.link_holds(),
            "batch_event": self.batch_event(),
            "max_same_fraction": float(np.max(self.records["max_same_fraction"])),
            "max_abs_preclip": float(np.max(self.records["max_abs_preclip"])),
            "nscl_empty": int(np.sum(self.records["nscl_empty"])),
            "cka": cosine_gram_cka(self.sigma_cl, self.sigma_nscl), "rho": rho,
            "cka_lower": alignment.cka_lower(rho),
            "cka_lower_prior": alignment.cka_lower(rho_prior) if math.isfinite(rho_prior) else -1.0,
            "rsa": rsa_from_similarity(self.sigma_cl, self.sigma_nscl), "r": r,
            "rsa_lower": alignment.rsa_lower(r),
            "rsa_lower_prior": alignment.rsa_lower(r_prior) if math.isfinite(r_prior) else -1.0,
        }


def _pow10(x: float) -> float:
    return 10.0 ** x if x < 300 else math.inf


def _centred(a: np.ndarray) -> np.ndarray:
    return a - a.mean(0, keepdims=True) - a.mean(1, keepdims=True) + a.mean()


@partial(jax.jit, static_argnames=("count", "batch_size", "replace", "stratified", "num_classes"))
def _chunk_batches(key, labels, start, *, count, batch_size, replace, stratified, num_classes):
    steps = start + jnp.arange(count)
    return jax.vmap(lambda t: sample_batch(jax.random.fold_in(key, t), labels, batch_size, replace=replace,
                                           stratified=stratified, num_classes=num_classes))(steps)


@partial(jax.jit, static_argnames=("anchors", "coupled", "symmetrize", "unique"), donate_argnums=(0,))
def _run_chunk(state, batches, labels, tau, step_size, *, anchors, coupled, symmetrize, unique=False):
    def body(st, batch):
        return descent_step(st, batch, labels, tau=tau, step_size=step_size, anchors=anchors,
                            coupled=coupled, symmetrize=symmetrize, unique=unique)

    return jax.lax.scan(body, state, batches)


def _fingerprint(config: DescentConfig, sigma0: np.ndarray, labels: np.ndarray) -> str:
    h = hashlib.sha256(json.dumps(dataclasses.asdict(config), sort_keys=True).encode())
    h.update(np.ascontiguousarray(sigma0).tobytes())
    h.update(np.ascontiguousarray(labels).tobytes())
    h.update(str(sigma0.dtype).encode())
    return h.hexdigest()


def _save_checkpoint(path: str, *, fingerprint: str, step: int, sigma_cl, sigma_nscl, records) -> None:
    """Atomic write: a temporary file in the same folder, then ``os.replace``."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=".ckpt-", suffix=".npz", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, fingerprint=np.array(fingerprint), step=np.array(step), sigma_cl=np.asarray(sigma_cl),
                     sigma_nscl=np.asarray(sigma_nscl), **{f"rec_{k}": v for k, v in records.items()})
        publish_mode(tmp)  # 0o666 & ~umask, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _load_checkpoint(path: str, fingerprint: str):
    with np.load(path) as data:
        if str(data["fingerprint"]) != fingerprint:
            raise ValueError(f"checkpoint={path!r} belongs to a different run (config, Sigma_0 or labels differ)")
        recs = {k[4:]: data[k] for k in data.files if k.startswith("rec_")}
        return int(data["step"]), data["sigma_cl"], data["sigma_nscl"], recs


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


def check_run_inputs(sigma0: np.ndarray, labels: np.ndarray, config: DescentConfig) -> None:
    """Validate the inputs of :func:`run_similarity_descent` without running anything.

    Callers that show progress (the CLI) call this first, so bad input is reported before any output.
    Same arguments as :func:`run_similarity_descent`.

    Raises:
      ValueError: naming the first argument outside its domain (the same checks, in the same
        order, as :func:`run_similarity_descent`; the data-dependent empty-negatives check needs
        the batches and is made during the run).
    """
    _prepare(sigma0, labels, config)


def _prepare(sigma0: np.ndarray, labels: np.ndarray, config: DescentConfig) -> tuple[np.ndarray, np.ndarray, int]:
    """Validated ``(sigma0 as float32/64, labels as int32, num_classes)``; ValueError on bad input."""
    s0 = check_finite_array("sigma0", np.asarray(sigma0), ndim=2)
    if s0.dtype not in (np.float32, np.float64):
        s0 = s0.astype(np.float64)
    m = s0.shape[0]
    if s0.shape != (m, m) or m % 2 or m < 4:
        raise ValueError(f"sigma0 must be square with an even size m = 2n >= 4; got shape {s0.shape}")
    if np.max(np.abs(s0)) > 1.0:
        raise ValueError(f"sigma0 has entries outside [-1, 1] (max |entry| = {np.max(np.abs(s0)):.6g})")
    n = m // 2
    lab = np.asarray(labels)
    if lab.shape != (n,) or lab.dtype.kind not in "iu":
        raise ValueError(f"labels must be an integer array of shape ({n},); got {lab.dtype} {lab.shape}")
    if lab.min() < 0:
        raise ValueError("labels must be >= 0")
    num_classes = int(lab.max()) + 1
    counts = np.bincount(lab, minlength=num_classes)
    if np.count_nonzero(counts) < 2:
        raise ValueError("labels must contain at least 2 classes (NSCL needs other-class samples)")
    config.validate(n)
    if config.stratified and np.any(counts[counts > 0] < -(-config.batch_size // num_classes)):
        raise ValueError(f"stratified batches of batch_size={config.batch_size} need at least "
                         f"{-(-config.batch_size // num_classes)} samples in every class")
    if config.stratified and np.any(counts == 0):
        raise ValueError("stratified sampling needs labels 0..C-1 with every class present")
    require_x64(s0, what="run_similarity_descent")
    return s0, lab.astype(np.int32), num_classes


def run_similarity_descent(
    sigma0: np.ndarray, labels: np.ndarray, config: DescentConfig, *, checkpoint: str | None = None,
    resume: bool = True, max_chunks: int | None = None, progress: Callable[[int, int], None] | None = None,
) -> DescentResult:
    """Run CL and NSCL similarity descent from the shared ``sigma0`` on shared batches.

    Args:
      sigma0: float32/float64 array (m, m), m = 2n even, entries in [-1, 1] (the cosine Gram of the
        2n initial views; rows 0..n-1 first views). float64 needs JAX x64 (else X64DisabledError).
      labels: int array (n,), classes 0..C-1 (C >= 2).
      config: :class:`DescentConfig`.
      checkpoint: optional path of an ``.npz`` written atomically after every chunk; with
        ``resume=True`` an existing file for the same run is continued (identical results).
      max_chunks: stop after this many chunks *of this call* (for tests and time-boxed jobs).
      progress: optional callback ``progress(steps_done, steps_total)`` after each chunk.

    Returns: :class:`DescentResult` (bounds from ``theory.alignment``; vacuous runs give inf bounds).

    Raises:
      ValueError: a bad config or inputs (naming the argument), a checkpoint of another run,
        a checkpoint folder that cannot be created or written (checked before the first chunk), or
        (``empty_negatives="error"``) a batch whose anchors have no other-class sample.
      X64DisabledError: float64 input while JAX's x64 mode is off.

    Source: THEOREMS.md B3-B5 (Luthra, Mishra, Galanti, arXiv 2510.08852, Theorem 1 and its proof).
    """
    s0, lab, num_classes = _prepare(sigma0, labels, config)
    if checkpoint:
        ensure_writable_parent(checkpoint, "checkpoint")  # before the first chunk, not after it
    n = lab.shape[0]
    counts = np.bincount(lab, minlength=num_classes)

    pi_max = float(counts.max() / n)
    epsilon = alignment.epsilon_value(config.batch_size, config.steps, config.delta)
    delta_l10 = alignment.delta_log10(config.tau, pi_max, epsilon)  # finite even where Delta overflows float64
    delta_v = _pow10(delta_l10)

    fingerprint = _fingerprint(config, s0, lab)
    records: dict[str, list[np.ndarray]] = {k: [] for k in _RECORD_FIELDS}
    step = 0
    sig_cl, sig_nscl = s0, s0
    if checkpoint and resume and os.path.exists(checkpoint):
        step, sig_cl, sig_nscl, loaded = _load_checkpoint(checkpoint, fingerprint)
        records = {k: [loaded[k]] for k in _RECORD_FIELDS}
    key = jax.random.key(config.seed)
    labels_j = jnp.asarray(lab)
    dtype = s0.dtype
    state = DescentState(jnp.array(sig_cl, dtype), jnp.array(sig_nscl, dtype), jnp.zeros((), dtype))
    chunks = 0
    while step < config.steps and (max_chunks is None or chunks < max_chunks):
        count = min(config.chunk_size, config.steps - step)
        batches = _chunk_batches(key, labels_j, step, count=count, batch_size=config.batch_size,
                                 replace=config.replace, stratified=config.stratified, num_classes=num_classes)
        _check_batches(np.asarray(batches), lab, step, config.empty_negatives)
        diff = state.sigma_cl - state.sigma_nscl
        state = state._replace(d2=jnp.sum(diff * diff))  # exact at every chunk start
        state, recs = _run_chunk(state, batches, labels_j, jnp.asarray(config.tau, dtype),
                                 jnp.asarray(config.step_size, dtype), anchors=config.anchors,
                                 coupled=config.coupled, symmetrize=config.symmetrize,
                                 unique=not config.replace)
        for k in _RECORD_FIELDS:
            records[k].append(np.asarray(getattr(recs, k)))
        step += count
        chunks += 1
        if checkpoint:
            _save_checkpoint(checkpoint, fingerprint=fingerprint, step=step, sigma_cl=state.sigma_cl,
                             sigma_nscl=state.sigma_nscl, records={k: np.concatenate(v) for k, v in records.items()})
        if progress is not None:
            progress(step, config.steps)

    rec = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in records.items()}
    rec = {k: (v.astype(np.float64) if v.dtype.kind == "f" else v) for k, v in rec.items()}
    distance = np.concatenate([[float(np.linalg.norm(s0 - s0))], rec["distance"]])
    result = DescentResult(config, rec, distance, np.asarray(state.sigma_cl), np.asarray(state.sigma_nscl), lab,
                           pi_max, epsilon, delta_v, delta_log10=delta_l10, steps_done=step)
    if step > 0:
        result.bounds_log10 = _link_bounds(result, step)
    return result


def _link_bounds(res: DescentResult, steps: int) -> dict[str, np.ndarray]:
    """log10 of each link's bound, float64 (T+1,), computed in log space for any Delta.

    Every link bound is linear in Delta, so the theory functions are evaluated at ``delta_value=1``
    and shifted by log10 Delta: no overflow at small tau (Delta > 1.8e308 at tau < ~0.0028).
    A vacuous run (Delta = inf) passes ``delta_value=inf`` and gets the theory's inf rows.
    """
    c = res.config
    etas = np.full(steps, c.step_size, dtype=np.float64)
    vacuous = res.vacuous
    kw = dict(tau=c.tau, batch_size=c.batch_size, delta_value=math.inf if vacuous else 1.0)
    shift = 0.0 if vacuous else res.delta_log10
    with np.errstate(divide="ignore"):
        tri = np.log10(np.concatenate([[0.0], np.cumsum(etas * res.records["mismatch"])]))
        if vacuous:
            l1 = np.concatenate([[-np.inf], np.full(steps, np.inf)])
        else:
            # sum_{s<t} eta_s (c + a d_s) = c S_t + a sum_{s<t} eta_s d_s, added in log space
            ln_c = res.delta_log10 * math.log(10) - math.log(c.tau) - 0.5 * math.log(c.batch_size)
            ln_a = -math.log(2 * c.tau * c.tau * c.batch_size)
            ln_cs = ln_c + np.log(np.concatenate([[0.0], np.cumsum(etas)]))
            ln_ad = ln_a + np.log(np.concatenate([[0.0], np.cumsum(etas * res.distance[:-1])]))
            l1 = np.logaddexp(ln_cs, ln_ad) / math.log(10)
    return {
        "triangle": tri,
        "L1": l1,
        "L2": alignment.link_l2_log10(etas, **kw) + shift,
        "L3": alignment.link_l3_log10(etas, **kw) + shift,
        "theorem1": alignment.theorem1_log10(etas, **kw) + shift,
    }
