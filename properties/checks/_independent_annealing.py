"""Second implementations of Paper A's theory objects, and their reference values, for the checks.

Written from docs/theorems.md A1, A2, A5 without using :mod:`contrastive_bounds.theory._schedules`,
:mod:`~contrastive_bounds.theory._kramers` or the S¹ critical-point code:

* schedules: ``T(t)`` of every form as a closed form in mpmath (:func:`schedule_temperature_mp`),
  and the HKS constant ``lim T(t) log t``;
* the ``barrier-H`` family ``V = f·(−0.5 cos θ − cos 2θ)`` (``double-well`` is f = 1) in closed form:
  trap θ = π, V = −f/2, saddles cos θ = −1/8 with V = 33f/32, V''(π) = 7f/2, V''(saddle) = −63f/16
  (:func:`double_well_trap`);
* the S¹ Kramers rate ``Σ sqrt(|V''(z)| V''(x))/(2π) e^{−ΔV/T}`` and the expected number of escapes
  ``∫ k(T(t)) dt`` by mpmath quadrature of these closed forms (:func:`expected_escapes_mp`);
* the exact mean first-passage time of ``dθ = −V'(θ)dt + sqrt(2T)dW`` on (a, b) from its ODE
  ``T u'' − V' u' = −1``, u(a) = u(b) = 0, solved as ``u(x) = ∫_a^x ψ (C − I/T)``, ``ψ = e^{V/T}``,
  ``I(y) = ∫_a^y e^{−V/T}``, by cumulative trapezoids on a fine grid with Richardson extrapolation
  (:func:`mfpt_grid`; numpy, not the mpmath Green's-function quadrature of theory.kramers).

Reference values (40-digit mpmath, tabulated): :data:`SCHEDULE_REFS`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import mpmath
import numpy as np

from contrastive_bounds.properties.checks._agreement import Agreement, agreement

__all__ = ["schedule_temperature_mp", "hks_constant_reference", "verify_schedule", "double_well_trap",
           "kramers_rate", "expected_escapes_mp", "mfpt_grid", "double_well_potential", "verify_trap",
           "SCHEDULE_REFS", "vmf_mean_z3"]

DPS = 40
_H_DW = mpmath.mpf(49) / 32  # H* of double-well: 33/32 + 1/2

#: (form, params, t) -> T(t), 40 digits (mpmath, closed forms of docs/theorems.md A2).
SCHEDULE_REFS = [
    ("temperature", {"c": 2.0, "t0": 2.0}, 0.0, "2.885390081777926814719849362003784274853"),
    ("temperature", {"c": 2.0, "t0": 2.0}, 200.0, "0.3767707497078849340621070417561975281863"),
    ("temperature", {"c": 1.0, "t0": 10.0}, 7.0, "0.3529561238647611671760691472835882660019"),
    ("exponential", {"c": 0.5, "gamma": 0.95}, 60.0, "0.02303489949347603789904316122597414552458"),
    ("polynomial", {"alpha": 0.5, "c": 2.0, "t0": 1.0}, 3.0, "0.25"),
    ("linear", {"c": 1.0, "t_end": 50.0}, 12.5, "0.75"),
]


def _p(params: Mapping[str, float], key: str, default: float | None = None) -> mpmath.mpf:
    v = params.get(key, default)
    if v is None:
        raise ValueError(f"schedule parameter {key!r} missing")
    return mpmath.mpf(repr(float(v)))


def schedule_temperature_mp(form: str, params: Mapping[str, float], t: float) -> mpmath.mpf:
    """T(t) of a schedule in closed form (docs/theorems.md A2 table), 40 digits.

    Forms: fixed c; temperature c/log(t+t0); inverse-temperature c/log(t+t0); author 1/(c log(t+t0));
    noise c/(2 log(t+t0)); generator c/log(1+t); linear c(1 - t/t_end); exponential c gamma^(t/period);
    polynomial 1/(c (t+t0)^alpha); sqrt c/sqrt(t+t0). Defaults as the toolkit's (t0 = 2, author t0 = 1).
    """
    with mpmath.workdps(DPS):
        x = mpmath.mpf(repr(float(t)))
        c = _p(params, "c")
        if form == "fixed":
            return c
        if form in ("temperature", "inverse-temperature"):
            return c / mpmath.log(x + _p(params, "t0", 2.0))
        if form == "author":
            return 1 / (c * mpmath.log(x + _p(params, "t0", 1.0)))
        if form == "noise":
            return c / (2 * mpmath.log(x + _p(params, "t0", 2.0)))
        if form == "generator":
            return c / mpmath.log(1 + x)
        if form == "linear":
            return c * (1 - x / _p(params, "t_end"))
        if form == "exponential":
            return c * _p(params, "gamma") ** (x / _p(params, "period", 1.0))
        if form == "polynomial":
            return 1 / (c * (x + _p(params, "t0", 1.0)) ** _p(params, "alpha"))
        if form == "sqrt":
            return c / mpmath.sqrt(x + _p(params, "t0", 1.0))
    raise ValueError(f"form={form!r} has no closed form here")


def hks_constant_reference(form: str, params: Mapping[str, float]) -> float:
    """lim_{t -> inf} T(t) log t from the closed forms (inf for fixed, 0 for the fast forms)."""
    c = float(params["c"])
    return {"fixed": math.inf, "temperature": c, "inverse-temperature": c, "generator": c, "author": 1 / c,
            "noise": c / 2}.get(form, 0.0)


def verify_schedule(schedule: Any, times: list[float]) -> list[Agreement]:
    """A schedule's values (numpy and jax.numpy evaluation of :class:`Schedule`, and the simulator's
    compiled :class:`~contrastive_bounds.numerics.langevin.TemperatureProgram`) at ``times``
    and its HKS constant against the closed forms, plus the tabulated references of its form."""
    import jax.numpy as jnp

    from contrastive_bounds.numerics.langevin._temperature import temperature_program

    rows = []
    form, params = schedule.form, dict(schedule.params)
    program, values = temperature_program(schedule)  # what langevin_kernel compiles into the chunk
    for t in times:
        ref = schedule_temperature_mp(form, params, t)
        where = f"{form} {params}, t={t:g}"
        # T = c(1 - t/t_end) loses digits to cancellation near t_end: allow the rounding of 1 - t/t_end
        cond = (t / params["t_end"]) / max(1.0 - t / params["t_end"], 1e-300) if form == "linear" else 0.0
        rtol = max(1e-12, 8 * 2.0 ** -52 * cond)
        rows.append(agreement("Schedule.temperature (numpy)", where, float(schedule.temperature(float(t))), ref, rtol=rtol))
        rows.append(agreement("Schedule.temperature (jax.numpy)", where,
                              float(schedule.temperature(jnp.asarray(float(t), jnp.float64), xp=jnp)), ref, rtol=rtol))
        rows.append(agreement("TemperatureProgram (the simulator's compiled schedule)", where,
                              float(program(program.data(values, np.float64), jnp.asarray(float(t), jnp.float64))),
                              ref, rtol=rtol))
    rows.append(agreement("Schedule.hks_constant", f"{form} {params}", schedule.hks_constant(),
                          hks_constant_reference(form, params), rtol=1e-14))
    from contrastive_bounds.theory._schedules import make_schedule

    for f, p, t, v in SCHEDULE_REFS:
        if f == form:
            s = make_schedule(f, **p)
            rows.append(agreement("Schedule.temperature (numpy)", f"{f} {p}, t={t:g}", float(s.temperature(t)),
                                  mpmath.mpf(v), source="reference (40-digit mpmath)", rtol=1e-12))
    return rows


def double_well_potential(scale: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    """V(θ) = scale·(−0.5 cos θ − cos 2θ) as a numpy function (double-well, barrier-H)."""
    return lambda th: scale * (-0.5 * np.cos(th) - np.cos(2 * th))


def double_well_trap(scale: float = 1.0) -> dict[str, Any]:
    """Closed-form trap data of ``scale · double-well``: theta, value, barriers, log-prefactors, curvatures."""
    f = float(scale)
    curv_min, curv_s = 3.5 * f, -63.0 / 16.0 * f
    lp = 0.5 * math.log(abs(curv_s) * curv_min) - math.log(2 * math.pi)
    return {"theta": math.pi, "value": -0.5 * f, "barriers": (49.0 / 32.0 * f,) * 2, "log_prefactors": (lp, lp),
            "curvature_min": curv_min, "curvature_saddle": curv_s, "saddles": (math.acos(-1 / 8), 2 * math.pi - math.acos(-1 / 8))}


def kramers_rate(scale: float, temperature: Any) -> Any:
    """Escape rate out of the trap of ``scale · double-well`` (both saddles), S¹ Kramers form."""
    d = double_well_trap(scale)
    b = mpmath.mpf(repr(d["barriers"][0]))
    return 2 * mpmath.exp(mpmath.mpf(repr(d["log_prefactors"][0])) - b / temperature)


def expected_escapes_mp(scale: float, form: str, params: Mapping[str, float], t_start: float, t_end: float) -> float:
    """log of ∫ k(T(t)) dt on [t_start, t_end] (mpmath quadrature of the closed forms); -inf if empty."""
    if t_end <= t_start:
        return -math.inf
    with mpmath.workdps(25):
        pts = [t_start] + [t_start + 10.0 ** k for k in range(-1, 8) if t_start + 10.0 ** k < t_end] + [t_end]
        total = mpmath.quad(lambda t: kramers_rate(scale, schedule_temperature_mp(form, params, float(t))), pts)
        return float(mpmath.log(total)) if total > 0 else -math.inf


def mfpt_grid(potential: Callable[[np.ndarray], np.ndarray], x0: float, a: float, b: float, temperature: float,
              points: int = 200_001) -> tuple[float, float]:
    """Exact MFPT of dθ = −V'dθ + sqrt(2T)dW from x0 to {a, b} by the ODE solution on a grid.

    Returns:
      ``(time, error estimate)``: Richardson extrapolation of the trapezoid values with ``points``
      and ``(points - 1)/2 + 1`` nodes (error O(h²)); the estimate is |fine − coarse|/3.
    """
    def solve(n: int) -> float:
        x = np.linspace(a, b, n)
        v = potential(x) / temperature
        shift = float(np.max(v))
        psi = np.exp(v - shift)  # ψ e^{-shift}
        dx = x[1] - x[0]
        em = np.exp(-(v - shift))  # e^{-V/T} e^{shift}
        inner = np.concatenate([[0.0], np.cumsum(0.5 * (em[1:] + em[:-1]) * dx)])  # I(y) e^{shift}
        f2 = psi * inner  # ψ I (shifts cancel)
        int_psi = np.concatenate([[0.0], np.cumsum(0.5 * (psi[1:] + psi[:-1]) * dx)])
        int_f2 = np.concatenate([[0.0], np.cumsum(0.5 * (f2[1:] + f2[:-1]) * dx)])
        c = int_f2[-1] / int_psi[-1] / temperature  # in units where ψ carries e^{-shift}
        u = c * int_psi - int_f2 / temperature
        return float(np.interp(x0, x, u))

    fine = solve(points)
    coarse = solve((points - 1) // 2 + 1)
    return fine + (fine - coarse) / 3.0, abs(fine - coarse) / 3.0


def verify_trap(trap: Any, scale: float) -> list[Agreement]:
    """The trap data the Kramers band uses (barriers, log-prefactors) against the closed form."""
    ref = double_well_trap(scale)
    rows = [agreement("circle_trap.theta", f"scale={scale:g}", trap.theta, ref["theta"], rtol=1e-12)]
    for i in range(2):
        rows.append(agreement(f"circle_trap.barriers[{i}]", f"scale={scale:g}", trap.barriers[i], ref["barriers"][i], rtol=1e-10))
        rows.append(agreement(f"circle_trap.log_prefactors[{i}]", f"scale={scale:g}", trap.log_prefactors[i],
                              ref["log_prefactors"][i], rtol=1e-10))
    return rows


def vmf_mean_z3(kappa: float, temperature: float) -> float:
    """E[z3] under vMF on S² with V = −kappa z3 at T: coth(x) − 1/x, x = kappa/T (docs/theorems.md A1)."""
    with mpmath.workdps(30):
        x = mpmath.mpf(kappa) / mpmath.mpf(temperature)
        return float(mpmath.coth(x) - 1 / x)
