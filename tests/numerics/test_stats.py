"""Outcome statistics (numerics/_stats.py) against closed forms."""

import math

import numpy as np
import pytest

import contrastive_bounds.numerics._stats as st


def test_clopper_pearson_closed_forms():
    """Clopper-Pearson intervals equal their closed forms at k = 0 and k = n."""
    # k = 0: upper = 1 - (alpha/2)^(1/n); k = n: lower = (alpha/2)^(1/n)
    ci = st.clopper_pearson(0, 20, 0.95)
    assert ci.lo == 0.0 and ci.hi == pytest.approx(1 - 0.025 ** (1 / 20), rel=1e-12)
    ci = st.clopper_pearson(20, 20, 0.95)
    assert ci.hi == 1.0 and ci.lo == pytest.approx(0.025 ** (1 / 20), rel=1e-12)
    assert ci.method == "clopper-pearson" and ci.estimate == 1.0


def test_wilson_matches_formula():
    """The Wilson interval equals its formula written out."""
    k, n, conf = 37, 120, 0.99
    z = 2.5758293035489004
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    ci = st.wilson(k, n, conf)
    assert ci.lo == pytest.approx(centre - half, rel=1e-9) and ci.hi == pytest.approx(centre + half, rel=1e-9)


def test_mean_and_exponential_intervals():
    """The Student-t mean interval and the exponential-mean (chi-square) interval equal their closed forms."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    ci = st.mean_ci(x, 0.95)
    se = np.std(x, ddof=1) / 2
    assert ci.mean == 2.5 and ci.hi - ci.mean == pytest.approx(3.182446305284263 * se, rel=1e-12)
    e = st.exponential_mean_ci(np.array([2.0]), 0.9)  # n = 1: 2x/theta ~ chi2(2) -> theta in [2x/q95, 2x/q05]
    assert e.lo == pytest.approx(4.0 / 5.991464547107979, rel=1e-12)
    assert e.hi == pytest.approx(4.0 / 0.10258658877510107, rel=1e-12)


def test_hitting_time_summary_counts_censoring():
    """Hitting-time summaries count runs that never hit as censored and average only the hits."""
    t = np.array([1.0, 2.0, np.inf, 3.0, np.inf])
    s = st.hitting_time_summary(t, horizon=10.0)
    assert s.censored == 2 and s.hit.successes == 3 and s.mean.mean == 2.0 and s.median == 2.0


def test_hitting_time_interval_never_below_zero():
    """Ten skewed hitting times had given a mean interval [-0.49, 4.12]. The mean
    of a time is >= 0, so the t-interval is intersected with [0, inf) (coverage kept); the upper end and
    the point estimate are the plain Student-t ones."""
    t = np.array([0.02] * 9 + [20.0])
    plain = st.mean_ci(t, 0.95)
    assert plain.lo < 0  # the raw t-interval reaches below 0 here
    s = st.hitting_time_summary(t, horizon=30.0)
    assert s.mean.lo == 0.0 and s.mean.hi == pytest.approx(plain.hi, rel=1e-15) and s.mean.mean == plain.mean
    clipped = st.mean_ci(t, 0.95, lower_bound=0.01)
    assert clipped.lo == 0.01 and clipped.hi == plain.hi
    assert st.mean_ci(t + 100.0, 0.95, lower_bound=0.0).lo == pytest.approx(plain.lo + 100.0, rel=1e-12)  # not active
    with pytest.raises(ValueError, match=r"lower_bound=0.5 is outside"):
        st.mean_ci(t, 0.95, lower_bound=0.5)  # above a sample: impossible


def test_arrhenius_recovers_barrier_from_exact_data():
    """The Arrhenius fit recovers the barrier and prefactor from exact data, and within its error from noisy
    data with stated errors."""
    temps = np.array([0.2, 0.25, 0.3, 0.4])
    tau = 3.0 * np.exp(1.53125 / temps)
    fit = st.arrhenius_fit(temps, tau)
    assert fit.barrier == pytest.approx(1.53125, rel=1e-12)
    assert fit.log_prefactor == pytest.approx(math.log(3.0), rel=1e-12)
    w = st.arrhenius_fit(temps, tau * np.array([1.01, 0.99, 1.02, 0.98]), log_stderr=[0.02] * 4)
    assert w.barrier_lo < 1.53125 < w.barrier_hi


def test_bad_input_names_the_argument():
    """Impossible counts, a confidence of 1, one sample, repeated temperatures and unknown methods are refused
    naming the argument."""
    with pytest.raises(ValueError, match="successes"):
        st.clopper_pearson(5, 4)
    with pytest.raises(ValueError, match="confidence"):
        st.wilson(1, 4, 1.0)
    with pytest.raises(ValueError, match="samples"):
        st.mean_ci([1.0])
    with pytest.raises(ValueError, match="distinct"):
        st.arrhenius_fit([0.2, 0.2, 0.3], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="method"):
        st.proportion_ci(1, 2, method="wald")
