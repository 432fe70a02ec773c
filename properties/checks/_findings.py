"""Decision rules for the findings of the checks, fixed before the data, with their false-alarm rates.

A *finding* is a measurement a check reports beside its verdict (a trend on real data, a published
number against a re-run). It is decided by a rule written down here, not by reading the plot:

* :func:`trend_finding` — the direction of a trend measured once per seed (``rises`` / ``falls`` /
  ``undetermined``), from a Student-t interval of the mean per-seed slope at level ``1 − alpha/k``
  (Bonferroni over the ``k`` series a check reports): the probability that ANY of the ``k`` series
  with no trend is called ``rises`` or ``falls`` is at most ``alpha``;
* :func:`compare_direction` — ``agrees`` / ``disagrees`` / ``undecided`` of a decided direction with a
  predicted one;
* :func:`note_entry` — a published success rate against a re-run's count: ``contradicted`` when the
  exact Clopper-Pearson interval at ``1 − alpha`` excludes it (false alarm at most ``alpha``).

Each rule is tested on synthetic data where the answer is known (tests/properties/test_findings.py).
"""

from __future__ import annotations

import math
from typing import Sequence

__all__ = ["trend_finding", "compare_direction", "note_entry", "TREND_FAMILY_ALPHA"]

#: Family-wise false-alarm probability of the trend findings of one check.
TREND_FAMILY_ALPHA = 0.05


def trend_finding(slopes: Sequence[float], *, alpha: float = TREND_FAMILY_ALPHA, series: int = 1) -> dict[str, object]:
    """Direction of a trend from per-seed slopes (one least-squares slope per independent seed).

    Args:
      slopes: at least 2 finite slopes (fewer: ``undetermined``).
      alpha: family-wise false-alarm probability, in (0, 1).
      series: how many series the check decides (Bonferroni: each at ``alpha/series``), >= 1.

    Returns:
      ``{"direction": "rises" | "falls" | "undetermined", "mean", "lo", "hi", "level", "seeds"}``:
      ``rises`` when the two-sided t-interval at ``level = 1 − alpha/series`` is above 0, ``falls`` when
      below, else ``undetermined``.

    Raises:
      ValueError: ``alpha`` outside (0, 1) or ``series`` < 1.
    """
    from scipy import stats as sst

    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha={alpha!r} must be in (0, 1)")
    if int(series) < 1:
        raise ValueError(f"series={series!r} must be >= 1")
    xs = [float(x) for x in slopes if x is not None and math.isfinite(float(x))]
    level = 1.0 - alpha / int(series)
    out: dict[str, object] = {"direction": "undetermined", "mean": None, "lo": None, "hi": None, "level": level,
                              "seeds": len(xs)}
    if len(xs) < 2:
        return out
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(sst.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    lo, hi = mean - half, mean + half
    out.update(mean=mean, lo=lo, hi=hi, direction="rises" if lo > 0 else ("falls" if hi < 0 else "undetermined"))
    return out


def compare_direction(measured: str, predicted: str) -> str:
    """``agrees`` / ``disagrees`` when both are ``rises`` or ``falls``; ``undecided`` otherwise."""
    if measured not in ("rises", "falls") or predicted not in ("rises", "falls"):
        return "undecided"
    return "agrees" if measured == predicted else "disagrees"


def note_entry(successes: int, chains: int, note_value: float, alpha: float) -> tuple[str, list[float]]:
    """A published success rate ``note_value`` against ``successes`` of ``chains`` of a re-run.

    ``"contradicted"`` when ``note_value`` is outside the Clopper-Pearson interval at level ``1 − alpha``,
    else ``"reproduced"``. False alarm: a re-run whose true success equals ``note_value`` is called
    contradicted with probability at most ``alpha`` (the interval is exact).

    Returns:
      ``(finding, [lo, hi])``.

    Raises:
      ValueError: out-of-range counts, ``note_value`` outside [0, 1] or ``alpha`` outside (0, 1).
    """
    from contrastive_bounds.numerics._stats import clopper_pearson
    from contrastive_bounds.theory._domains import check_int, check_probability, check_real

    n = check_int("chains", chains, 1)
    k = check_int("successes", successes, 0, n)
    check_real("note_value", note_value, 0.0, 1.0, lo_closed=True, hi_closed=True)
    ci = clopper_pearson(k, n, 1.0 - check_probability("alpha", alpha))
    return ("reproduced" if ci.lo <= note_value <= ci.hi else "contradicted"), [ci.lo, ci.hi]
