"""The inputs of a coupled similarity-descent run (docs/theorems.md B3-B5): its parameters
(:class:`DescentConfig`), a synthetic problem (:func:`make_problem`: a shared Sigma_0 and balanced
labels), and the validation of Sigma_0, labels and config together (:func:`check_run_inputs`,
:func:`prepare_run_inputs`) that :func:`._descent_run.run_similarity_descent` does before it runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_int, check_probability, check_real, check_seed

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.alignment._step_schedule import StepSizeSchedule

__all__ = ["DescentConfig", "make_problem", "check_run_inputs", "prepare_run_inputs"]


@dataclass(frozen=True)
class DescentConfig:
    """Parameters of a coupled run (all validated by :meth:`validate`).

    Attributes:
      batch_size: B, integer in [2, n].
      steps: T in [1, 2**31 - 1].
      tau: temperature in (0, inf).
      step_size: the base step size eta >= 0: eta_t = step_size at every step without a schedule,
        else the schedule's peak (``eta_t = step_size * f(t)``).
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
      schedule: None (constant eta_t = step_size) or a :class:`~._step_schedule.StepSizeSchedule`
        (step decay, cosine, inverse square root, warm-up, an explicit array, ...): eta_t =
        step_size * f(t). The bounds use this sequence (S = sum_t eta_t; L2/L3 per step).
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
    schedule: StepSizeSchedule | None = None

    def step_sizes(self) -> np.ndarray:
        """eta_0, ..., eta_{T-1} as float64 (T,) (``step_size`` everywhere without a schedule).

        Raises:
          ValueError: as :meth:`validate` for the step size and the schedule.
        """
        check_real("step_size", self.step_size, 0.0, lo_closed=True)
        if self.schedule is None:
            return np.full(check_int("steps", self.steps, 1, 2**31 - 1), float(self.step_size))
        return self.schedule.step_sizes(self.step_size, self.steps)

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
        if self.schedule is not None:
            if not isinstance(self.schedule, StepSizeSchedule):
                raise ValueError(f"schedule must be a StepSizeSchedule or None; got {type(self.schedule).__name__}")
            self.step_sizes()  # the schedule against T, and the sequence finite


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

    Examples:
      >>> sigma0, labels = make_problem(16, 4, seed=0)       # 16 samples, 4 classes: 32 views
      >>> sigma0.shape, sigma0.dtype, labels[:6].tolist()
      ((32, 32), dtype('float64'), [0, 1, 2, 3, 0, 1])
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


def check_run_inputs(sigma0: np.ndarray, labels: np.ndarray, config: DescentConfig) -> None:
    """Validate the inputs of :func:`._descent_run.run_similarity_descent` without running anything.

    Callers that show progress (the CLI) call this first, so bad input is reported before any output.
    Same arguments as :func:`._descent_run.run_similarity_descent`.

    Raises:
      ValueError: naming the first argument outside its domain (the same checks, in the same
        order, as :func:`._descent_run.run_similarity_descent`; the data-dependent empty-negatives check needs
        the batches and is made during the run).
    """
    prepare_run_inputs(sigma0, labels, config)


def prepare_run_inputs(sigma0: np.ndarray, labels: np.ndarray, config: DescentConfig) -> tuple[np.ndarray, np.ndarray, int]:
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
    require_x64(s0, what="contrastive_bounds.numerics.alignment.run_similarity_descent")
    return s0, lab.astype(np.int32), num_classes

