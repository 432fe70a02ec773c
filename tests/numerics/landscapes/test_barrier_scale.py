"""Heights on S¹ are scale-free: every tolerance of the critical-point analysis and of the grid
persistence is relative to the landscape's own size, so H*(c·V + a) = c·H*(V) (with absolute
tolerances, `barrier barrier-H H=1e-300` had reported H* = 0 and no minima)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._barriers import circle_barrier
from contrastive_bounds.numerics.landscapes._persistence import cycle_edges, union_find_depths
from contrastive_bounds.numerics.landscapes._circle import FourierSeries, analyse_circle
from contrastive_bounds.numerics.landscapes._landscape import fourier_landscape
from contrastive_bounds.numerics.landscapes._registry import get_landscape

DOUBLE_WELL = FourierSeries.from_dicts(cos={1: -0.5, 2: -1.0})  # H* = 1.53125 (docs/theorems.md A3)


@pytest.mark.parametrize("c", [1e-300, 1e-150, 1e-12, 1.0, 1e5])  # coefficients are capped at 1e6
@pytest.mark.parametrize("offset", [0.0, 7.0])
def test_critical_height_scales_with_the_landscape(c, offset):
    """c·V + a has H* = c·1.53125 with both minima and maxima for c from 1e-300 to 1e5, the tie tolerance
    scaling with c."""
    s = FourierSeries.from_dicts(cos={0: offset * c, 1: -0.5 * c, 2: -1.0 * c})
    crit = analyse_circle(s)
    assert crit.minima.size == 2 and crit.maxima.size == 2
    assert math.isclose(crit.critical_height, 1.53125 * c, rel_tol=1e-12)
    assert math.isclose(crit.v_min, (offset - 1.5) * c, rel_tol=1e-12)
    assert crit.tie_tol < 1e-11 * c


@pytest.mark.parametrize("H", [1e-300, 1e-20, 1.5, 1e6])
def test_barrier_h_reports_h_with_both_minima(H):
    """barrier-H reports H* = H with both minima for H from 1e-300 to 1e6, within a bound relative to H."""
    res = circle_barrier(get_landscape("barrier-H", H=H))
    assert math.isclose(res.critical_height, H, rel_tol=1e-12) and abs(res.critical_height - H) <= res.error_bound
    assert res.error_bound < 1e-12 * H
    assert len(res.minima) == 2 and sorted(m["depth"] for m in res.minima)[0] == pytest.approx(H, rel=1e-12)
    assert math.isclose(res.grid_critical_height, H, rel_tol=1e-5) and not res.warnings


def test_constant_landscape_says_so():
    """A constant landscape has H* = 0 and no minima, and a warning says it is constant."""
    res = circle_barrier(fourier_landscape(FourierSeries.from_dicts(cos={0: 1.0}), name="flat"))
    assert res.critical_height == 0.0 and res.minima == []
    assert res.warnings and "constant" in res.warnings[0] and "H* = 0" in res.warnings[0]


def test_union_find_ties_are_relative_to_the_range():
    """Two wells 1e-301 apart on a landscape of range 1e-300 are not a tie for union-find."""
    # two wells differing by 1e-301 on a landscape of range 1e-300: not a tie (an absolute 1e-12 made it one)
    v = np.array([0.0, 1e-300, 1e-301, 1e-300]) - 5e-300
    recs = union_find_depths(v, cycle_edges(4))
    depths = sorted(r.depth for r in recs)
    assert depths[0] == pytest.approx(1e-300 - 1e-301 + 0.0, rel=1e-9) and math.isinf(depths[1])
