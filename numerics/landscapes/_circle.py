"""The exact critical-point structure of potentials on the circle S¹ given as Fourier series.

``V(θ) = Σ_k a_k cos(kθ) + b_k sin(kθ)`` (the series and its file format: :mod:`._fourier`). Critical points are
found by a sign scan of ``V'`` on a fine grid followed by Brent's method (float64, |θ error| ~ 1e-15),
so heights of minima and saddles are exact to rounding; from them the depth of every local minimum
and the critical height ``H*`` follow by walking the circle (docs/theorems.md A3). The grid-based,
persistence computation of the same numbers lives in :mod:`._barriers` (an independent method).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import brentq

# the series and its file format were defined here; their old import paths keep working
from contrastive_bounds.numerics.landscapes._fourier import MAX_COEFFICIENT, MAX_FREQUENCY, TWO_PI, \
    FourierSeries, read_fourier_file  # noqa: F401
from contrastive_bounds.theory._domains import check_finite_array, check_int

__all__ = ["CircleCriticalPoints", "MinimumDepth", "analyse_circle"]

@dataclass(frozen=True)
class MinimumDepth:
    """Escape data of one non-global local minimum of a circle potential.

    Attributes:
      theta: the minimum (radians in [0, 2π)); value: ``V(theta)``.
      depth: ``min(left, right) barrier − value``: the height to climb to reach a strictly lower minimum.
      targets: ``(theta_left, theta_right)``: the first strictly lower minimum going in the
        negative / positive direction (radians in [0, 2π); possibly the same point).
      saddles: ``(theta_left, theta_right)``: the highest maximum on each of those two paths.
      saddle_values: ``(V_left, V_right)``.
    """

    theta: float
    value: float
    depth: float
    targets: tuple[float, float]
    saddles: tuple[float, float]
    saddle_values: tuple[float, float]


@dataclass(frozen=True)
class CircleCriticalPoints:
    """Critical points of a circle potential and the derived depths.

    Attributes:
      minima, maxima: float64 arrays of θ in [0, 2π) (sorted); minima_values, maxima_values: V there.
      v_min: global minimum value; global_minima: θ of minima within ``tie_tol`` of ``v_min``.
      depths: tuple of :class:`MinimumDepth`, one per non-global local minimum.
      critical_height: ``H* = max depth`` (0.0 when every local minimum is global).
      tie_tol: the tolerance used to call two minimum values equal (ties are not depths).
    """

    minima: np.ndarray
    minima_values: np.ndarray
    maxima: np.ndarray
    maxima_values: np.ndarray
    v_min: float
    global_minima: np.ndarray
    depths: tuple[MinimumDepth, ...] = field(default_factory=tuple)
    critical_height: float = 0.0
    tie_tol: float = 0.0


def _refine_root(f: Any, lo: float, hi: float) -> float:
    """Brent's root of ``f`` in a grid cell ``[lo, hi]`` where the sampled ``V'`` changed sign.

    A root sitting on a grid point can make the scalar evaluation disagree with the sampled signs by
    rounding; then the bracket is widened by half a cell on each side, and if that does not bracket a
    sign change either, the end with the smaller ``|V'|`` is returned (within rounding of the root)."""
    for a, b in ((lo, hi), (lo - 0.5 * (hi - lo), hi + 0.5 * (hi - lo))):
        fa, fb = f(a), f(b)
        if fa == 0.0:
            return a
        if fb == 0.0:
            return b
        if (fa < 0.0) != (fb < 0.0):
            return brentq(f, a, b, xtol=1e-15, rtol=1e-15)
    return lo if abs(f(lo)) <= abs(f(hi)) else hi


def analyse_circle(series: FourierSeries, *, resolution: int | None = None) -> CircleCriticalPoints:
    """Exact critical points, depths and ``H*`` of a circle potential (docs/theorems.md A3).

    Algorithm: sign changes of ``V'`` on ``resolution`` equispaced points (default
    ``max(4096, 256·k_max)``), each bracket refined by Brent's method to machine precision; a sign
    change − to + is a minimum, + to − a maximum. Depth of a non-global minimum x: walk in each
    direction to the first minimum strictly lower than ``V(x)`` (by more than ``tie_tol =``
    :meth:`FourierSeries.height_tolerance`, relative to the oscillation ``Σ_{k≥1}(|a_k| + |b_k|)``),
    recording the highest maximum passed; depth = lower of the two maxima − V(x). Every tolerance is
    relative to the series' own scale, so ``c·V + const`` gives ``c`` times the depths for any
    ``c > 0`` (an absolute tolerance had made ``barrier-H`` with H = 1e-300 look constant). Degenerate critical points where ``V'`` does not change sign are not extrema and are
    skipped; two extrema closer than the grid spacing could be missed (raise ``resolution``).

    Precision: numpy float64 and scipy's Brent, no JAX: the same result whatever JAX's x64 mode.

    Raises:
      ValueError: ``resolution`` not an integer >= 64.
    """
    n = check_int("resolution", resolution if resolution is not None else max(4096, 256 * series.max_frequency), 64, None)
    tie = series.height_tolerance()
    grid = np.linspace(0.0, TWO_PI, n, endpoint=False)
    d1 = series.value(grid, order=1)
    f1 = lambda th: float(series.value(np.array([th]), order=1)[0])  # noqa: E731
    mins: list[float] = []
    maxs: list[float] = []
    dscale = 1e-13 * series.derivative_bound(1)  # 0 for a constant series (V' is then exactly 0)
    # classify every grid cell at once (numpy), then refine only the cells with a sign change
    nxt, prv = np.roll(d1, -1), np.roll(d1, 1)
    at_zero = np.abs(d1) <= dscale  # exactly at a grid point: classify by neighbours
    mins.extend(grid[at_zero & (prv < -dscale) & (nxt > dscale)])
    maxs.extend(grid[at_zero & (prv > dscale) & (nxt < -dscale)])
    inside = ~at_zero & (np.abs(nxt) > dscale)  # a zero at the next grid point is handled there
    right = np.append(grid[1:], TWO_PI)  # the very abscissae d1 was sampled at
    for i in np.flatnonzero(inside & (d1 < 0) & (nxt > 0)):
        mins.append(_refine_root(f1, grid[i], right[i]))
    for i in np.flatnonzero(inside & (d1 > 0) & (nxt < 0)):
        maxs.append(_refine_root(f1, grid[i], right[i]))
    minima = np.mod(np.array(mins, dtype=np.float64), TWO_PI)
    maxima = np.mod(np.array(maxs, dtype=np.float64), TWO_PI)
    minima.sort()
    maxima.sort()
    if minima.size == 0:  # constant potential
        v = float(series.value(np.zeros(1))[0])
        return CircleCriticalPoints(minima, minima, maxima, maxima, v, minima, (), 0.0, tie)
    mv = series.value(minima)
    xv = series.value(maxima)
    v_min = float(mv.min())
    global_minima = minima[mv <= v_min + tie]
    # interleaved ring of extrema sorted by angle
    kinds = np.concatenate([np.zeros(minima.size, int), np.ones(maxima.size, int)])
    thetas = np.concatenate([minima, maxima])
    vals = np.concatenate([mv, xv])
    order = np.argsort(thetas)
    kinds, thetas, vals = kinds[order], thetas[order], vals[order]
    m = thetas.size
    depths: list[MinimumDepth] = []
    for i in range(m):
        if kinds[i] != 0 or vals[i] <= v_min + tie:
            continue
        walk = []
        for step in (-1, +1):
            best_v, best_th = -math.inf, math.nan
            j = i
            for _ in range(m):
                j = (j + step) % m
                if kinds[j] == 1 and vals[j] > best_v:
                    best_v, best_th = float(vals[j]), float(thetas[j])
                if kinds[j] == 0 and vals[j] < vals[i] - tie:
                    walk.append((float(thetas[j]), best_th, best_v))
                    break
        (tl, sl, vl), (tr, sr, vr) = walk
        depths.append(
            MinimumDepth(
                theta=float(thetas[i]),
                value=float(vals[i]),
                depth=min(vl, vr) - float(vals[i]),
                targets=(tl, tr),
                saddles=(sl, sr),
                saddle_values=(vl, vr),
            )
        )
    h = max((d.depth for d in depths), default=0.0)
    return CircleCriticalPoints(minima, mv, maxima, xv, v_min, global_minima, tuple(depths), float(h), tie)


def grid_values(series: FourierSeries, resolution: int) -> tuple[np.ndarray, np.ndarray]:
    """``(theta, V(theta))`` on ``resolution`` equispaced points of [0, 2π) (float64 arrays (n,))."""
    n = check_int("resolution", resolution, 8, None)
    th = np.linspace(0.0, TWO_PI, n, endpoint=False)
    return th, check_finite_array("V on the grid", series.value(th))
