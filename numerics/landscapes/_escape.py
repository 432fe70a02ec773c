"""Escape times from the minima of S¹ landscapes: Kramers prediction vs exact MFPT (docs/theorems.md A5).

Joins the exact critical points of :mod:`._circle` with the formulas of
:mod:`contrastive_bounds.theory._kramers`. For each non-global local minimum x the target is the
nearest strictly lower minimum on either side (absorbing there); the circle is cut at those two
targets, and the Kramers rate sums the two sides, each over its highest saddle on the way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from contrastive_bounds.theory._domains import check_real
from contrastive_bounds.theory._kramers import exact_mfpt_interval, kramers_circle_log_time, kramers_regime, min_mfpt_temperature

from contrastive_bounds.numerics.landscapes._circle import TWO_PI, analyse_circle
from contrastive_bounds.numerics.landscapes._landscape import Landscape

__all__ = ["EscapeRecord", "circle_escape_times", "min_escape_temperature"]


@dataclass(frozen=True)
class EscapeRecord:
    """Escape data of one non-global minimum at one temperature.

    Attributes:
      theta: the minimum (radians in [0, 2π)); value: V there; barrier: its depth ``ΔV``;
      targets: (left, right) absorbing minima (radians, unwrapped around ``theta``);
      saddles: (left, right) highest maxima on the way; log_kramers: natural log of the Kramers time;
      log_exact: natural log of the exact MFPT; ratio: exact / Kramers (``exp`` of the difference).
      regime: ``"asymptotic"`` (``ΔV/T >= 10``), ``"marginal"`` or ``"outside"`` (``T >= ΔV``: the
        Kramers law does not apply, use ``log_exact``); see
        :func:`~contrastive_bounds.theory.kramers_regime`.
    """

    theta: float
    value: float
    barrier: float
    targets: tuple[float, float]
    saddles: tuple[float, float]
    log_kramers: float
    log_exact: float
    ratio: float
    regime: str = "asymptotic"

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict; times also as floats when they fit (else None)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["kramers_time"] = math.exp(self.log_kramers) if self.log_kramers < 709 else None
        d["exact_time"] = math.exp(self.log_exact) if self.log_exact < 709 else None
        return d


def _escape_setup(landscape: Landscape) -> tuple[Any, Any, list[tuple[float, float]], float]:
    """(series, critical points, the cut interval of each non-global minimum, slope bound)."""
    if landscape.fourier is None:
        raise ValueError(f"landscape {landscape.name!r} is not an S¹ Fourier landscape")
    s = landscape.fourier
    crit = analyse_circle(s)
    m1 = max(s.derivative_bound(1), 1e-12)
    cuts = [(d.theta - ((d.theta - d.targets[0]) % TWO_PI or TWO_PI),
             d.theta + ((d.targets[1] - d.theta) % TWO_PI or TWO_PI)) for d in crit.depths]
    return s, crit, cuts, m1


def min_escape_temperature(landscape: Landscape) -> float:
    """Smallest temperature :func:`circle_escape_times` accepts for ``landscape`` (0.0 if it has no trap).

    The exact mean first-passage time is a quadrature with at most
    :data:`~contrastive_bounds.theory._kramers.MAX_PANELS` panels about ``6T/sup|V'|`` wide
    (:func:`~contrastive_bounds.theory.min_mfpt_temperature`); below this ``T`` the Kramers
    time alone is accurate (exact/Kramers = 1 + O(T/ΔV), ΔV/T of order a thousand or more).

    Args:
      landscape: S¹ Fourier landscape.
    Returns:
      ``T_min >= 0`` (float; numpy float64, no JAX: the same whatever JAX's x64 mode).
    Raises:
      ValueError: not an S¹ Fourier landscape.
    """
    _, _, cuts, m1 = _escape_setup(landscape)
    return _t_min(cuts, m1)


def _t_min(cuts: list[tuple[float, float]], m1: float) -> float:
    return max((min_mfpt_temperature(lo, hi, m1) for lo, hi in cuts), default=0.0)


def circle_escape_times(landscape: Landscape, temperature: float, *, dps: int = 30, nodes: int = 24,
                        clamp_temperature: bool = False) -> list[EscapeRecord]:
    """Kramers time and exact MFPT for every non-global minimum of an S¹ Fourier landscape.

    Args:
      landscape: S¹ Fourier landscape (``landscape.fourier`` not None).
      temperature: ``T > 0`` (the ``T`` of ``dθ = −V'(θ)dt + sqrt(2T) dW``; time in SDE units).
      dps, nodes: passed to :func:`~contrastive_bounds.theory.exact_mfpt_interval`.
      clamp_temperature: False (default): a temperature below :func:`min_escape_temperature` raises;
        True: it is raised to that smallest supported temperature (hotter: for a worst-case
        exact/Kramers ratio) without a second critical-point analysis.

    Returns:
      list of :class:`EscapeRecord` (empty when every minimum is global).

    Precision: numpy float64 critical points and mpmath quadrature at ``dps`` digits; no JAX, so the
    result is the same float64 whatever JAX's x64 mode (the float64 policy of docs/design.md refuses
    only where JAX would compute in float32); never raises ``X64DisabledError``.

    Raises:
      ValueError: not an S¹ Fourier landscape, ``temperature`` outside (0, inf) or below the smallest
        the exact quadrature supports (the message gives it), or a degenerate
        minimum/saddle (zero curvature: Kramers prefactor undefined).

    Source: docs/theorems.md A5 (Eyring–Kramers law on S¹); exact MFPT: Gardiner, Handbook of
    Stochastic Methods, §5.2.7 (:func:`~contrastive_bounds.theory.exact_mfpt_interval`).
    """
    t = check_real("temperature", temperature, 0.0, math.inf)
    s, crit, cuts, m1 = _escape_setup(landscape)
    breaks_base = np.concatenate([crit.minima, crit.maxima])
    t_min = _t_min(cuts, m1)
    if clamp_temperature:
        t = max(t, t_min)
    if t < t_min:
        raise ValueError(
            f"temperature={t!r} is below the smallest the exact escape-time quadrature supports for landscape "
            f"{landscape.name!r}: temperature must be in [{t_min:.3g}, inf); at such T the Kramers time alone "
            "is accurate (exact/Kramers = 1 + O(T/ΔV))"
        )
    out = []
    for d, (left, right) in zip(crit.depths, cuts):
        x = d.theta
        breaks = [b + k * TWO_PI for b in breaks_base for k in (-1, 0, 1) if left < b + k * TWO_PI < right]
        curv_x = float(s.value(np.array([x]), order=2)[0])
        curv_s = [float(s.value(np.array([z]), order=2)[0]) for z in d.saddles]
        log_k = kramers_circle_log_time([sv - d.value for sv in d.saddle_values], curv_x, curv_s, t)
        res = exact_mfpt_interval(lambda th: s.value_mp(th), x, left, right, t, slope_bound=m1,
                                  breakpoints=breaks, dps=dps, nodes=nodes)
        out.append(EscapeRecord(x, d.value, d.depth, (left, right), d.saddles, log_k, res.log_time,
                                math.exp(res.log_time - log_k), kramers_regime(d.depth, t)))
    return out
