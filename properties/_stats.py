"""Suite-level statistics (intervals themselves are in :mod:`contrastive_bounds.numerics._stats`):
Holm's step-down correction across a suite, and "how many more samples would decide".

Every stochastic check states its false-alarm probability; across a suite of them the runner uses
Holm (1979), "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6:65-70,
so the probability that ANY true statement is reported violated is at most the suite's alpha.
"""

from __future__ import annotations

import math
from typing import Sequence

from scipy import stats as _st

from contrastive_bounds.numerics._stats import clopper_pearson, mean_ci, proportion_ci, wilson
from contrastive_bounds.theory._domains import check_int, check_probability, check_real

__all__ = ["holm", "binomial_upper_p", "samples_to_decide_proportion", "DEFAULT_SUITE_ALPHA"]

DEFAULT_SUITE_ALPHA = 1e-3


def holm(p_values: Sequence[float], alpha: float = DEFAULT_SUITE_ALPHA) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``.

    Args:
      p_values: p-values in [0, 1] (any length, any order).
      alpha: family-wise error rate in (0, 1).

    Returns:
      list of bools aligned with ``p_values`` (True = rejected, i.e. "violated").

    Raises:
      ValueError: a p-value outside [0, 1] or NaN; alpha outside (0, 1).
    """
    a = check_probability("alpha", alpha)
    ps = [check_real(f"p_values[{i}]", p, 0.0, 1.0, lo_closed=True, hi_closed=True) for i, p in enumerate(p_values)]
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    rejected = [False] * len(ps)
    m = len(ps)
    for rank, i in enumerate(order):
        if ps[i] <= a / (m - rank):
            rejected[i] = True
        else:
            break
    return rejected


def binomial_upper_p(successes: int, trials: int, p0: float) -> float:
    """P-value of H0 "true proportion <= p0" given ``successes`` of ``trials`` (exact binomial tail)."""
    n = check_int("trials", trials, 1)
    k = check_int("successes", successes, 0, n)
    p = check_real("p0", p0, 0.0, 1.0, lo_closed=True, hi_closed=True)
    return float(_st.binom.sf(k - 1, n, p)) if k > 0 else 1.0


def samples_to_decide_proportion(estimate: float, threshold: float, confidence: float = 0.999) -> int | None:
    """Trials needed for a Wald interval around ``estimate`` to exclude ``threshold`` (None if equal).

    A planning figure for "inconclusive" answers, not a guarantee.
    """
    p = check_real("estimate", estimate, 0.0, 1.0, lo_closed=True, hi_closed=True)
    t = check_real("threshold", threshold, 0.0, 1.0, lo_closed=True, hi_closed=True)
    c = check_probability("confidence", confidence)
    gap = abs(p - t)
    if gap == 0:
        return None
    z = _st.norm.ppf(0.5 + c / 2)
    var = max(p * (1 - p), 1e-6)
    return int(math.ceil(z * z * var / (gap * gap)))
