"""Eyring–Kramers escape times, exact 1-D mean first-passage times, trap probabilities (docs/theorems.md A5).

Everything that grows like ``exp(ΔV/T)`` is returned as a natural logarithm (``log_time``) or as an
mpmath number; nothing overflows for small ``T``.

* :func:`eyring_kramers_log_time` — general Hessian form (Bovier–Gayrard–Klein 2004, Thm 3.2):
  ``τ ≈ (2π/|λ₁(z)|)·sqrt(|det ∇²V(z)| / det ∇²V(x))·exp((V(z) − V(x))/T)``; several saddles: rates add.
* :func:`kramers_circle_log_time` — the S¹ form ``τ ≈ 2π/sqrt(|V''(z)|·V''(x))·exp(ΔV/T)`` per saddle.
* :func:`exact_mfpt_interval` — the exact mean first-passage time of ``dX = −V'(X)dt + sqrt(2T)dW``
  from ``x0`` to the absorbing ends ``{a, b}`` (the circle cut at its target minima), by mpmath
  quadrature of the Green's-function formula (all integrands positive: no cancellation).
* :func:`expected_escapes` / :func:`log_probability_never_escape` — under a schedule, the escape
  intensity ``∫ dt/τ(T(t))`` and ``P(never) ≈ exp(−∫ dt/τ(T(t)))``.

The Kramers law is asymptotic: ``τ_exact/τ_Kramers = 1 + O(T)`` for non-degenerate critical points.
For degenerate minima (InfoNCE's O(d) orbits) the prefactor is undefined: use the Arrhenius exponent
only (:func:`arrhenius_log_time`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import mpmath
import numpy as np

from ._domains import check_real
from ._schedules import Schedule

__all__ = [
    "eyring_kramers_log_time",
    "kramers_circle_log_time",
    "arrhenius_log_time",
    "kramers_regime",
    "min_mfpt_temperature",
    "MFPTResult",
    "exact_mfpt_interval",
    "expected_escapes",
    "log_probability_never_escape",
]

TWO_PI = 2.0 * math.pi


def _logsumexp(xs: Sequence[float]) -> float:
    m = max(xs)
    if m == -math.inf:
        return -math.inf
    return m + math.log(sum(math.exp(x - m) for x in xs))


def eyring_kramers_log_time(barriers: Sequence[float], minimum_hessian_eigs: Sequence[float],
                            saddle_hessian_eigs: Sequence[Sequence[float]], temperature: float) -> float:
    """``log τ`` (natural log, time units of the SDE) of the Eyring–Kramers mean exit time.

    Args:
      barriers: ``V(z_i) − V(x) > 0`` for each saddle ``z_i`` (floats).
      minimum_hessian_eigs: the n eigenvalues of ``∇²V(x)`` (all > 0), on the tangent space.
      saddle_hessian_eigs: for each saddle, its n eigenvalues: exactly one < 0, the rest > 0.
      temperature: ``T > 0``.

    Returns:
      ``log τ = −log Σ_i k_i``, ``k_i = |λ₁(z_i)|/(2π)·sqrt(det ∇²V(x)/|det ∇²V(z_i)|)·exp(−ΔV_i/T)``.

    Raises:
      ValueError: non-positive barrier or temperature, wrong signature of a Hessian (a degenerate or
        non-index-1 saddle, a non-positive-definite minimum: the prefactor is undefined there), or
        mismatched dimensions.

    Source: Eyring (1935), Kramers (1940); Bovier, Gayrard, Klein, J. Eur. Math. Soc. 6 (2004) Thm 3.2.

    Examples:
      One saddle in one dimension: ΔV = 1, ∇²V = 2 at the minimum, −1 at the saddle, T = 0.1;
      the time is ``2π/|λ⁻|·sqrt(|det H_s|/det H_m)·e^{ΔV/T}`` (here ``2π·sqrt(1/2)·e^{10}``):

      >>> import math
      >>> log_t = eyring_kramers_log_time([1.0], [2.0], [[-1.0]], 0.1)
      >>> round(log_t, 9), round(math.log(2 * math.pi * math.sqrt(1 / 2)) + 10.0, 9)
      (11.491303476, 11.491303476)
      >>> kramers_regime(1.0, 0.1)                     # ΔV/T = 10: inside the asymptotic regime
      'asymptotic'
    """
    t = check_real("temperature", temperature, 0.0, math.inf)
    hx = np.asarray(minimum_hessian_eigs, dtype=np.float64)
    if hx.ndim != 1 or hx.size == 0 or not np.all(np.isfinite(hx)) or np.any(hx <= 0):
        raise ValueError(f"minimum_hessian_eigs={hx.tolist()} must be finite and > 0 (non-degenerate minimum)")
    if len(barriers) != len(saddle_hessian_eigs) or len(barriers) == 0:
        raise ValueError("barriers and saddle_hessian_eigs must have the same positive length")
    logs = []
    for i, (dv, eigs) in enumerate(zip(barriers, saddle_hessian_eigs)):
        dv = check_real(f"barriers[{i}]", dv, 0.0, math.inf)
        hz = np.asarray(eigs, dtype=np.float64)
        if hz.shape != hx.shape or not np.all(np.isfinite(hz)) or np.sum(hz < 0) != 1 or np.any(hz == 0):
            raise ValueError(f"saddle_hessian_eigs[{i}]={hz.tolist()} must have {hx.size} non-zero entries, exactly one negative")
        lam = float(-hz[hz < 0][0])
        log_pref = math.log(lam / TWO_PI) + 0.5 * (float(np.sum(np.log(hx))) - float(np.sum(np.log(np.abs(hz)))))
        logs.append(log_pref - dv / t)
    return -_logsumexp(logs)


def kramers_circle_log_time(barriers: Sequence[float], minimum_curvature: float,
                            saddle_curvatures: Sequence[float], temperature: float) -> float:
    """``log τ`` of the S¹ Kramers time ``1/Σ_i sqrt(|V''(z_i)|·V''(x))/(2π)·exp(−ΔV_i/T)``.

    Args:
      barriers: ``ΔV_i = V(z_i) − V(x) > 0`` per saddle; minimum_curvature: ``V''(x) > 0``;
      saddle_curvatures: ``V''(z_i) < 0``; temperature: ``T > 0``.

    Raises:
      ValueError: as :func:`eyring_kramers_log_time`.

    Source: Kramers (1940); docs/theorems.md A5 (S¹ form; two saddles on a circle: rates add).
    """
    return eyring_kramers_log_time(barriers, [minimum_curvature], [[c] for c in saddle_curvatures], temperature)


def arrhenius_log_time(barrier: float, temperature: float) -> float:
    """``ΔV/T``: the Arrhenius exponent alone (prefactor unknown), for degenerate minima.

    Raises:
      ValueError: ``barrier < 0`` or ``temperature <= 0``.
    """
    dv = check_real("barrier", barrier, 0.0, math.inf, lo_closed=True)
    return dv / check_real("temperature", temperature, 0.0, math.inf)


@dataclass(frozen=True)
class MFPTResult:
    """Exact mean first-passage time.

    Attributes:
      log_time: natural log of the time (float; finite for every valid input).
      time: the time as an mpmath ``mpf`` (any magnitude).
      dps: mpmath decimal digits used; panels: quadrature panels; nodes: Gauss–Legendre nodes per panel.
    """

    log_time: float
    time: Any
    dps: int
    panels: int
    nodes: int

    @property
    def time_float(self) -> float:
        """The time as a float, or ``inf`` when it exceeds the float64 range (use ``log_time``)."""
        return math.exp(self.log_time) if self.log_time < 709.0 else math.inf


MAX_PANELS = 1_000
"""Most quadrature panels :func:`exact_mfpt_interval` uses: bounds its time (3–6 ms per panel at the
defaults dps = 30, nodes = 24 on one core, so a few seconds) and memory. Panels are ~6T/sup|V'|
wide, so the bound is reached only at ΔV/T of several hundred (about 600 on the double well), where
exact/Kramers = 1 + O(T/ΔV) is within about 1e-3 of 1 (measured on the double well:
(ratio − 1)·ΔV/T ≈ 0.46 from ΔV/T = 30 to 100)."""

REGIME_ASYMPTOTIC = 10.0
"""``ΔV/T`` at and above which the Kramers law is in its asymptotic regime (see :func:`kramers_regime`)."""


def min_mfpt_temperature(a: float, b: float, slope_bound: float) -> float:
    """Smallest ``T`` for which :func:`exact_mfpt_interval` runs on ``[a, b]``.

    Panels are ``min(0.25, 6T/slope_bound)`` wide and at most :data:`MAX_PANELS`, so
    ``T_min = (b − a)·slope_bound/(6·MAX_PANELS)`` (radians and units of V; ``b > a``,
    ``slope_bound > 0``).
    """
    return (float(b) - float(a)) * float(slope_bound) / (6.0 * MAX_PANELS)


def kramers_regime(barrier: float, temperature: float) -> str:
    """Whether the Kramers approximation applies at ``temperature`` for a barrier ``ΔV``.

    The Eyring–Kramers law is an asymptotic statement as ``T/ΔV → 0`` with relative error
    ``O(T/ΔV)`` (Bovier–Gayrard–Klein 2004; docs/theorems.md A5). Returns:

    * ``"asymptotic"`` when ``ΔV/T >= 10`` (:data:`REGIME_ASYMPTOTIC`): the law's regime;
    * ``"marginal"`` when ``1 <= ΔV/T < 10``: order-one corrections, compare with the exact time;
    * ``"outside"`` when ``ΔV/T < 1`` (``T`` comparable to or above the barrier): the law does not
      apply; the exact mean first-passage time is the answer.

    Raises:
      ValueError: ``barrier`` negative/NaN/inf or ``temperature`` not in ``(0, inf)``.
    """
    dv = check_real("barrier", barrier, 0.0, math.inf, lo_closed=True)
    t = check_real("temperature", temperature, 0.0, math.inf)
    ratio = dv / t
    if ratio >= REGIME_ASYMPTOTIC:
        return "asymptotic"
    return "marginal" if ratio >= 1.0 else "outside"


_GL_CACHE: dict[tuple[int, int], tuple[list, list, list]] = {}


def _gl_rule(n: int) -> tuple[list, list, list]:
    """Gauss–Legendre nodes/weights on [−1, 1] and the cumulative integration matrix
    ``C[i][j] = ∫_{−1}^{x_i} ℓ_j`` (exact for polynomials of degree < n), at the current dps."""
    key = (n, mpmath.mp.dps)
    if key not in _GL_CACHE:
        xs, ws = mpmath.mp.gauss_quadrature(n, "legendre")
        xs = [xs[i] for i in range(n)]
        ws = [ws[i] for i in range(n)]

        def ip(k: int, x: Any) -> Any:  # ∫_{-1}^x P_k
            if k == 0:
                return x + 1
            return (mpmath.legendre(k + 1, x) - mpmath.legendre(k - 1, x)) / (2 * k + 1)

        pk = [[mpmath.legendre(k, xj) for xj in xs] for k in range(n)]
        ipk = [[ip(k, xi) for xi in xs] for k in range(n)]
        cum = [[sum(ws[j] * pk[k][j] * (2 * k + 1) / 2 * ipk[k][i] for k in range(n)) for j in range(n)] for i in range(n)]
        _GL_CACHE[key] = (xs, ws, cum)
    return _GL_CACHE[key]


def exact_mfpt_interval(potential: Callable[[Any], Any], x0: float, a: float, b: float, temperature: float, *,
                        slope_bound: float, breakpoints: Sequence[float] = (), dps: int = 30, nodes: int = 24) -> MFPTResult:
    """Exact mean first-passage time from ``x0`` to ``{a, b}`` of ``dX = −V'(X) dt + sqrt(2T) dW``.

    ``u(x0) = [R(x0)·∫_a^{x0} S(y) m(y) dy + S(x0)·∫_{x0}^b R(y) m(y) dy] / S(b)`` with scale density
    ``s = exp((V − V(x0))/T)``, ``S(y) = ∫_a^y s``, ``R(y) = ∫_y^b s``, speed density
    ``m = exp(−(V − V(x0))/T)/T`` (Gardiner, Handbook of Stochastic Methods §5.2.7; Karlin–Taylor
    vol. 2 §15.3). It solves ``T u'' − V' u' = −1``, ``u(a) = u(b) = 0``. All integrands are
    positive, so the mpmath sums lose no digits. Quadrature: composite Gauss–Legendre (``nodes`` per
    panel) on panels split at ``breakpoints`` (put the critical points of V there) and no wider than
    ``min(0.25, 6T/slope_bound)``, with ``S`` and ``R`` accumulated spectrally at the same nodes.

    Args:
      potential: ``V`` as a function of one mpmath real (radians for S¹), returning an mpmath real.
      x0: start, ``a < x0 < b`` (unwrapped angles for S¹: cut the circle at the targets).
      a, b: absorbing points (``b − a <= 100``).
      temperature: ``T > 0``.
      slope_bound: ``>= sup|V'|`` on [a, b] (sets the panel width; > 0).
      breakpoints: extra panel boundaries inside (a, b).
      dps: mpmath digits (>= 15); nodes: Gauss–Legendre nodes per panel (4..64).

    Returns:
      :class:`MFPTResult`.

    Raises:
      ValueError: an argument outside its domain (named; a temperature below
        :func:`min_mfpt_temperature` is named with that smallest value), or a non-finite potential value.
    """
    t = check_real("temperature", temperature, 0.0, math.inf)
    a = check_real("a", a)
    b = check_real("b", b, a, a + 100.0)
    x0 = check_real("x0", x0, a, b)
    m1 = check_real("slope_bound", slope_bound, 0.0, math.inf)
    if not (15 <= int(dps) <= 1000) or not (4 <= int(nodes) <= 64):
        raise ValueError(f"dps={dps} must be in [15, 1000] and nodes={nodes} in [4, 64]")
    width = min(0.25, 6.0 * t / m1)
    if (b - a) / width > MAX_PANELS * (1.0 + 1e-9):  # (tolerance: T = min_mfpt_temperature itself is accepted)
        t_min = min_mfpt_temperature(a, b, m1)
        raise ValueError(
            f"temperature={t!r} is below the smallest supported for this potential on [{a:.6g}, {b:.6g}]: "
            f"temperature must be in [{t_min:.3g}, inf) (panels of width 6T/slope_bound = 6T/{m1:.3g}, at most "
            f"{MAX_PANELS}); at such T the Kramers time is accurate (exact/Kramers = 1 + O(T/ΔV))"
        )
    with mpmath.workdps(int(dps)):
        xs, ws, cum = _gl_rule(int(nodes))
        cuts = sorted({a, b, x0} | {float(p) for p in breakpoints if a < float(p) < b})
        edges: list[float] = []
        for lo, hi in zip(cuts[:-1], cuts[1:]):
            k = max(1, math.ceil((hi - lo) / width))
            edges.extend(lo + (hi - lo) * i / k for i in range(k))
        edges.append(b)
        tt = mpmath.mpf(t)
        v0 = potential(mpmath.mpf(x0))
        panels = []  # (half-width, [node], [s], [m])
        for lo, hi in zip(edges[:-1], edges[1:]):
            lo_m, hi_m = mpmath.mpf(lo), mpmath.mpf(hi)
            half = (hi_m - lo_m) / 2
            ys = [lo_m + half * (x + 1) for x in xs]
            vs = [potential(y) - v0 for y in ys]
            panels.append((lo, half, [mpmath.exp(v / tt) for v in vs], [mpmath.exp(-v / tt) / tt for v in vs]))
        n = len(xs)
        # S at every node (left to right) and R (right to left), spectrally within each panel
        s_nodes, r_nodes = [], []
        acc = mpmath.mpf(0)
        for _, half, sv, _ in panels:
            s_nodes.append([acc + half * mpmath.fsum(cum[i][j] * sv[j] for j in range(n)) for i in range(n)])
            acc += half * mpmath.fsum(ws[j] * sv[j] for j in range(n))
        s_total = acc
        acc = mpmath.mpf(0)
        for _, half, sv, _ in reversed(panels):
            # ∫_{y_i}^{hi} s = panel integral − ∫_{lo}^{y_i} s; use the mirrored rule to stay positive
            full = half * mpmath.fsum(ws[j] * sv[j] for j in range(n))
            r_nodes.append([acc + half * mpmath.fsum(cum[n - 1 - i][n - 1 - j] * sv[j] for j in range(n)) for i in range(n)])
            acc += full
        r_nodes.reverse()
        left = mpmath.mpf(0)
        right = mpmath.mpf(0)
        s_x0 = None
        for (lo, half, sv, mv), sn, rn in zip(panels, s_nodes, r_nodes):
            if lo < x0:
                left += half * mpmath.fsum(ws[j] * sn[j] * mv[j] for j in range(n))
            else:
                if s_x0 is None:
                    s_x0 = sn[0] - half * mpmath.fsum(cum[0][j] * sv[j] for j in range(n))  # S at panel start
                right += half * mpmath.fsum(ws[j] * rn[j] * mv[j] for j in range(n))
        if s_x0 is None:
            raise ValueError(f"x0={x0!r} must be strictly inside (a, b)")
        r_x0 = s_total - s_x0
        u = (r_x0 * left + s_x0 * right) / s_total
        if not mpmath.isfinite(u) or u <= 0:
            raise ValueError("the quadrature produced a non-finite or non-positive time; check the potential")
        return MFPTResult(float(mpmath.log(u)), u, int(dps), len(panels), n)


def _rate_terms(barriers: Sequence[float], log_prefactors: Sequence[float]) -> list[tuple[float, float]]:
    if len(barriers) != len(log_prefactors) or not barriers:
        raise ValueError("barriers and log_prefactors must have the same positive length")
    return [(check_real(f"barriers[{i}]", dv, 0.0, math.inf, lo_closed=True), check_real(f"log_prefactors[{i}]", lp))
            for i, (dv, lp) in enumerate(zip(barriers, log_prefactors))]


def expected_escapes(schedule: Schedule, barriers: Sequence[float], log_prefactors: Sequence[float],
                     t_start: float, t_end: float) -> float:
    """``log N`` where ``N = ∫_{t_start}^{t_end} Σ_i exp(log_prefactor_i − ΔV_i/T(t)) dt``.

    ``N`` is the expected number of Kramers escapes from a basin under the schedule (Poisson
    approximation with the instantaneous rate ``1/τ(T(t))``; docs/theorems.md A5). With
    ``T = c/log(t + t0)`` the integrand is ``k·(t + t0)^(−ΔV/c)``, so ``N`` grows like
    ``t^(1 − ΔV/c)`` and stays finite as ``t_end → inf`` iff ``c < ΔV`` (then trapping has positive
    probability). ``t_end = inf`` is allowed (mpmath quadrature to infinity).

    Args:
      schedule: a validated-on-range :class:`Schedule`.
      barriers: ``ΔV_i >= 0``, one per saddle.
      log_prefactors: ``log(sqrt(|V''(z_i)|V''(x))/(2π))`` per saddle (or the general form).
      t_start: start of the range (continuous time), ``<= t_end``.
      t_end: end of the range (continuous time; ``inf`` allowed).

    Returns:
      natural log of ``N`` (``-inf`` when ``t_end == t_start``; ``inf`` when the integral diverges).

    Raises:
      ValueError: the schedule's temperature is not finite and > 0 on the range (C12), or bad args.
    """
    terms = _rate_terms(barriers, log_prefactors)
    ts = check_real("t_start", t_start, 0.0, math.inf, lo_closed=True)
    te = check_real("t_end", t_end, ts, math.inf, lo_closed=True, allow_inf=True)
    if te == ts:
        return -math.inf
    schedule.validate_range(ts, te if math.isfinite(te) else ts + 1.0)
    with mpmath.workdps(30):
        def rate(tm: Any) -> Any:
            temp = mpmath.mpf(float(schedule.temperature(float(tm))))
            return mpmath.fsum(mpmath.exp(lp - dv / temp) for dv, lp in terms)

        if not math.isfinite(te):
            ct = schedule.hks_constant()
            dv_min = min(dv for dv, _ in terms)
            if ct >= dv_min:  # some rate decays no faster than 1/t: the integral diverges
                return math.inf
            if ct == math.inf:
                return math.inf
        pts = [ts] + [ts + 10.0**k for k in range(0, 12) if ts + 10.0**k < te] + [te if math.isfinite(te) else mpmath.inf]
        total = mpmath.quad(rate, pts)
        return float(mpmath.log(total)) if total > 0 else -math.inf


def log_probability_never_escape(schedule: Schedule, barriers: Sequence[float], log_prefactors: Sequence[float],
                                 t_start: float, t_end: float) -> float:
    """``log P(no escape on [t_start, t_end]) ≈ −∫ dt/τ(T(t))`` (natural log, ``<= 0``).

    Same arguments and raises as :func:`expected_escapes`. Source: docs/theorems.md A5.
    """
    log_n = expected_escapes(schedule, barriers, log_prefactors, t_start, t_end)
    return -math.exp(log_n) if log_n < 709.0 else -math.inf
