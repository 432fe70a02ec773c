"""Statistics of simulation outcomes: proportions, means, hitting times, Arrhenius barriers.

Thin, validated wrappers around ``scipy.stats`` returning small frozen dataclasses with the
estimate, the interval and the confidence level, so a check can state its false-alarm rate.

Sources: Clopper & Pearson (1934) and Wilson (1927) for binomial intervals (via
``scipy.stats.binomtest(...).proportion_ci``); Student-t intervals for means; the exact chi-square
interval for the mean of an exponential law (Epstein & Sobel 1953); Arrhenius/Eyring–Kramers
(docs/theorems.md A3, A5) for log E[τ_exit] = log A + H·β.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from contrastive_bounds.theory._domains import check_finite_array, check_int, check_real

__all__ = [
    "ProportionCI",
    "MeanCI",
    "HittingTimeSummary",
    "ArrheniusFit",
    "clopper_pearson",
    "wilson",
    "proportion_ci",
    "mean_ci",
    "exponential_mean_ci",
    "hitting_time_summary",
    "arrhenius_fit",
]


def _check_confidence(confidence: Any) -> float:
    return check_real("confidence", confidence, 0.0, 1.0)


@dataclass(frozen=True)
class ProportionCI:
    """A binomial proportion with a two-sided interval at ``confidence`` (lo, hi in [0, 1])."""

    estimate: float
    lo: float
    hi: float
    successes: int
    trials: int
    confidence: float
    method: str

    def contains(self, p: float) -> bool:
        return self.lo <= p <= self.hi


def proportion_ci(successes: int, trials: int, confidence: float = 0.95, method: str = "exact") -> ProportionCI:
    """Two-sided interval for a binomial proportion.

    Args:
      successes: integer in [0, trials]; trials: integer ≥ 1.
      confidence: in (0, 1), e.g. 0.9999 for a 1e-4 false-alarm rate.
      method: ``"exact"`` (Clopper–Pearson, conservative: coverage ≥ confidence) or ``"wilson"``.

    Returns:
      :class:`ProportionCI`.

    Raises:
      ValueError: counts out of range, confidence outside (0, 1), unknown method.
    """
    trials = check_int("trials", trials, 1, None)
    successes = check_int("successes", successes, 0, trials)
    confidence = _check_confidence(confidence)
    if method not in ("exact", "wilson"):
        raise ValueError(f"method={method!r} is not one of ('exact', 'wilson')")
    ci = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method=method)
    name = "clopper-pearson" if method == "exact" else "wilson"
    return ProportionCI(successes / trials, float(ci.low), float(ci.high), successes, trials, confidence, name)


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> ProportionCI:
    """Clopper–Pearson (exact) interval; see :func:`proportion_ci`.

    Examples:
      >>> ci = clopper_pearson(13, 16)
      >>> round(ci.estimate, 4), round(ci.lo, 4), round(ci.hi, 4)
      (0.8125, 0.5435, 0.9595)
    """
    return proportion_ci(successes, trials, confidence, "exact")


def wilson(successes: int, trials: int, confidence: float = 0.95) -> ProportionCI:
    """Wilson score interval; see :func:`proportion_ci`."""
    return proportion_ci(successes, trials, confidence, "wilson")


@dataclass(frozen=True)
class MeanCI:
    """A mean with a two-sided interval at ``confidence``; ``stderr`` is the standard error."""

    mean: float
    lo: float
    hi: float
    stderr: float
    n: int
    confidence: float
    method: str

    def contains(self, x: float) -> bool:
        return self.lo <= x <= self.hi


def mean_ci(samples: Any, confidence: float = 0.95, *, lower_bound: float | None = None) -> MeanCI:
    """Student-t interval for the mean of i.i.d. samples (asymptotically exact by the CLT).

    Args:
      samples: 1-D array of finite floats, at least 2.
      confidence: in (0, 1).
      lower_bound: a value the mean is known to be at least (0 for times), or None. The interval is
        intersected with ``[lower_bound, inf)``: it keeps its coverage and never reports an impossible
        mean such as a negative time (a t-interval on a few skewed samples can reach below 0).
    Raises:
      ValueError: fewer than 2 samples, non-finite values, bad confidence, a non-finite lower_bound
        or one above a sample.
    """
    x = check_finite_array("samples", np.asarray(samples, dtype=np.float64), ndim=1)
    n = x.size
    if n < 2:
        raise ValueError(f"samples must hold at least 2 values, got {n}")
    confidence = _check_confidence(confidence)
    m = float(np.mean(x))
    se = float(np.std(x, ddof=1) / math.sqrt(n))
    q = float(stats.t.ppf(0.5 + confidence / 2, n - 1))
    lo = m - q * se
    if lower_bound is not None:
        lower_bound = check_real("lower_bound", lower_bound, -math.inf, float(np.min(x)), hi_closed=True)
        lo = max(lo, lower_bound)
    return MeanCI(m, lo, m + q * se, se, n, confidence, "student-t")


def exponential_mean_ci(samples: Any, confidence: float = 0.95) -> MeanCI:
    """Exact interval for the mean θ of i.i.d. exponential samples: 2nX̄/θ ~ χ²(2n).

    Use for exit times from a deep well (memoryless to good approximation). Raises as
    :func:`mean_ci`; samples must be > 0.
    """
    x = check_finite_array("samples", np.asarray(samples, dtype=np.float64), ndim=1)
    if x.size < 1 or np.any(x <= 0):
        raise ValueError("samples must be a non-empty array of positive times")
    confidence = _check_confidence(confidence)
    n = x.size
    s = float(np.sum(x))
    a = (1 - confidence) / 2
    lo = 2 * s / float(stats.chi2.ppf(1 - a, 2 * n))
    hi = 2 * s / float(stats.chi2.ppf(a, 2 * n))
    return MeanCI(s / n, lo, hi, s / n / math.sqrt(n), n, confidence, "exponential-chi2")


@dataclass(frozen=True)
class HittingTimeSummary:
    """Summary of first hitting times, some possibly censored (not hit by ``horizon``).

    ``hit`` is the proportion that hit (with its interval); ``mean`` is the mean over the chains that
    hit (a lower bound on the true mean when some are censored; ``censored`` says how many).
    """

    hit: ProportionCI
    mean: MeanCI | None
    median: float | None
    censored: int
    horizon: float


def hitting_time_summary(hit_times: Any, horizon: float, confidence: float = 0.95) -> HittingTimeSummary:
    """Summarise hitting times; ``inf`` entries (or > horizon) are censored.

    Args:
      hit_times: 1-D array (chains,), ``inf`` where the target was not reached.
      horizon: the run's end time t_end (> 0).
      confidence: for both intervals.
    """
    t = np.asarray(hit_times, dtype=np.float64)
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"hit_times must be a non-empty 1-D array, got shape {t.shape}")
    if np.any(np.isnan(t)):
        raise ValueError("hit_times contains NaN")
    horizon = check_real("horizon", horizon, 0.0, math.inf)
    hit = np.isfinite(t) & (t <= horizon)
    k = int(hit.sum())
    prop = proportion_ci(k, t.size, confidence)
    if k >= 2:  # times measured from t = 0: a mean below 0 is impossible
        mean = mean_ci(t[hit], confidence, lower_bound=0.0 if float(np.min(t[hit])) >= 0.0 else None)
    else:
        mean = None
    median = float(np.median(t[hit])) if k >= 1 else None
    return HittingTimeSummary(prop, mean, median, t.size - k, horizon)


@dataclass(frozen=True)
class ArrheniusFit:
    """Fit of log E[τ] = log_prefactor + barrier · (1/T).

    ``barrier`` estimates the barrier height H (energy units); ``barrier_lo/hi`` is a t-interval at
    ``confidence`` from the regression; ``r_squared`` the fit quality.
    """

    barrier: float
    barrier_stderr: float
    barrier_lo: float
    barrier_hi: float
    log_prefactor: float
    r_squared: float
    confidence: float


def arrhenius_fit(temperatures: Any, mean_exit_times: Any, confidence: float = 0.95, *, log_stderr: Any = None) -> ArrheniusFit:
    """Arrhenius estimator of a barrier: slope of log mean exit time against 1/T.

    Args:
      temperatures: 1-D array (k ≥ 3) of distinct fixed temperatures T > 0.
      mean_exit_times: 1-D array (k,) of mean exit times > 0 at those temperatures.
      confidence: for the slope interval.
      log_stderr: optional (k,) standard errors of log mean exit time (≈ stderr/mean); if given, a
        weighted least-squares fit (weights 1/se²) is used, else ordinary least squares
        (``scipy.stats.linregress``).

    Returns:
      :class:`ArrheniusFit`. The slope is H only in the low-temperature limit (Eyring–Kramers,
      docs/theorems.md A5); at moderate T it carries an O(T) prefactor correction.

    Raises:
      ValueError: fewer than 3 points, non-positive values, repeated temperatures.
    """
    temp = check_finite_array("temperatures", np.asarray(temperatures, dtype=np.float64), ndim=1)
    tau = check_finite_array("mean_exit_times", np.asarray(mean_exit_times, dtype=np.float64), ndim=1)
    if temp.shape != tau.shape:
        raise ValueError(f"temperatures {temp.shape} and mean_exit_times {tau.shape} must have the same shape")
    if temp.size < 3:
        raise ValueError(f"temperatures must hold at least 3 values, got {temp.size}")
    if np.any(temp <= 0) or np.any(tau <= 0):
        raise ValueError("temperatures and mean_exit_times must be > 0")
    if np.unique(temp).size != temp.size:
        raise ValueError("temperatures must be distinct")
    confidence = _check_confidence(confidence)
    x = 1.0 / temp
    y = np.log(tau)
    k = temp.size
    if log_stderr is None:
        res = stats.linregress(x, y)
        slope, intercept, se = float(res.slope), float(res.intercept), float(res.stderr)
        r2 = float(res.rvalue**2)
    else:
        se_y = check_finite_array("log_stderr", np.asarray(log_stderr, dtype=np.float64), ndim=1)
        if se_y.shape != temp.shape or np.any(se_y <= 0):
            raise ValueError("log_stderr must be positive with the shape of temperatures")
        w = 1.0 / se_y**2
        X = np.stack([np.ones(k), x], axis=1)
        cov = np.linalg.inv(X.T @ (w[:, None] * X))
        beta = cov @ (X.T @ (w * y))
        intercept, slope = float(beta[0]), float(beta[1])
        se = float(math.sqrt(cov[1, 1]))
        resid = y - X @ beta
        r2 = float(1 - np.sum(resid**2) / np.sum((y - y.mean()) ** 2))
    q = float(stats.t.ppf(0.5 + confidence / 2, k - 2))
    return ArrheniusFit(slope, se, slope - q * se, slope + q * se, intercept, r2, confidence)
