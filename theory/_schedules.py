"""Annealing schedules in every convention of docs/theorems.md A2, with validation and verdicts.

A schedule is a temperature ``T(t) > 0`` of *continuous* time ``t >= 0`` (``t = k·h`` for a
simulator with step size ``h``; never the step index). The same logarithmic schedule is written in
several conventions whose constants differ; :class:`Schedule` records which one a user gave and
converts between them (:meth:`Schedule.to_convention`). The asymptotic verdict
(:meth:`Schedule.converges`) always reduces the schedule to its *HKS constant*
``c_T = lim_{t->inf} T(t)·log t`` and compares it with the critical height ``H*``
(Holley–Kusuoka–Stroock 1989, Thm 1.1; Hajek 1988, Thm 1; Chiang–Hwang–Sheu 1987).

Forms (``make_schedule(form, **params)``; every parameter is a keyword float; defaults are listed
and are always explicit in ``Schedule.params``):

=====================  ==============================================  ===================  =========
form                   definition                                      defaults             c_T
=====================  ==============================================  ===================  =========
``fixed``              ``T(t) = c``                                                         ``inf``
``temperature``        ``T(t) = c / log(t + t0)``                      ``t0 = 2``           ``c``
``inverse-temperature````beta(t) = log(t + t0) / c``                   ``t0 = 2``           ``c``
``author``             ``beta(t) = c · log(t + t0)`` (the author's ĉ)  ``t0 = 1``           ``1/c``
``noise``              ``sigma(t)^2 = c / log(t + t0)``, ``T = sigma^2/2``  ``t0 = 2``      ``c/2``
``generator``          ``beta(t) = log(1 + t) / c`` (generator clock)                       ``c``
``linear``             ``T(t) = c · (1 - t / t_end)``                  (``t_end`` required) ``0``
``exponential``        ``T(t) = c · gamma^(t / period)``               ``period = 1``       ``0``
``polynomial``         ``beta(t) = c · (t + t0)^alpha``                ``t0 = 1``           ``0``
``sqrt``               ``T(t) = c / sqrt(t + t0)``                     ``t0 = 1``           ``0``
=====================  ==============================================  ===================  =========

The forms and their evaluation from parameters are in :mod:`._schedule_forms`; the verdict
(:class:`~._schedule_verdicts.ConvergenceVerdict`, its rules and words) is in :mod:`._schedule_verdicts`.

``generator`` is the time-scaled generator ``Δ − beta(t)∇V·∇`` of docs/theorems.md A2, whose process is
the standard Langevin process run on the clock ``s(t) = ∫_0^t beta``; this object reports
``beta(t)`` on the generator's own clock. Fed to a simulator of ``dZ = −∇V dt + sqrt(2T) dW`` it
simulates ``T = c/log(1 + t)`` on the simulator's clock, which has the same constant ``c``
(``log s(t) ~ log t``), hence the same verdict.

The author's default ``t0 = 1`` gives ``beta(0) = 0`` (infinite temperature): case C12 of
docs/reference-values.md. :meth:`Schedule.validate_range` rejects every range that contains such a time, naming
``t0``; nothing is ever clamped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Mapping

import numpy as np

from ._domains import check_real
from ._schedule_forms import FORM_PARAMETERS, FORMS, LOG_FORMS, form_beta, form_temperature
from ._schedule_verdicts import ConvergenceVerdict, convergence_verdict

__all__ = ["Schedule", "make_schedule", "hks_constant_to_form"]


class _FrozenParams(dict):
    """A read-only, hashable ``dict`` of float parameters (so a Schedule can be a static jit arg)."""

    def _ro(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("Schedule.params is read-only; build a new schedule with make_schedule")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _ro  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))


def _fmt(x: float) -> str:
    return f"{x:.10g}"


@dataclass(frozen=True)
class Schedule:
    """A temperature schedule of continuous time in one named convention (see module docstring).

    Build with :func:`make_schedule`. Attributes: ``form`` (one of :data:`FORMS`) and ``params``
    (read-only dict of floats, defaults filled in).
    """

    form: str
    params: Mapping[str, float]

    # ----------------------------------------------------------------------------- evaluation
    def beta(self, t: Any, xp: ModuleType = np) -> Any:
        """Inverse temperature ``beta(t) = 1/T(t)``.

        Args:
          t: continuous time (float or array of any shape; ``t >= 0`` is the meaningful range).
          xp: ``numpy`` or ``jax.numpy``; elementwise ops only, so it is jit/vmap-safe.

        Returns:
          array of ``t``'s shape (float dtype of ``t``/``xp``). Values outside the validated range
          may be 0, negative or inf: call :meth:`validate_range` first (it never clamps).
        """
        return form_beta(self.form, self.params, t, xp)

    def temperature(self, t: Any, xp: ModuleType = np) -> Any:
        """Temperature ``T(t)`` (the ``T`` of ``dZ = −grad V dt + sqrt(2T) dW``, docs/theorems.md A1).

        Args and return as in :meth:`beta`.
        """
        return form_temperature(self.form, self.params, t, xp)

    def noise_variance(self, t: Any, xp: ModuleType = np) -> Any:
        """``sigma(t)^2 = 2·T(t)`` of ``dX = −grad V dt + sigma dW`` (same shapes as :meth:`beta`)."""
        return 2.0 * self.temperature(t, xp=xp)

    # ----------------------------------------------------------------------------- validation
    def validate_range(self, t_start: float, t_end: float) -> None:
        """Check that ``T(t)`` is finite and ``> 0`` for every continuous ``t`` in ``[t_start, t_end]``.

        Every form is non-increasing in temperature over ``t >= 0``, so the check is analytic at the
        ends (with the parameter that causes a failure named) plus a float64 evaluation on a grid
        that catches underflow to 0 (exponential or polynomial cooling at long horizons).

        Args:
          t_start, t_end: continuous times, ``0 <= t_start <= t_end < inf``.

        Raises:
          ValueError: bad range, or a non-positive / infinite / non-finite temperature somewhere in
            range (case C12). The message names the parameter responsible (``t0``, ``t_end``,
            ``gamma``...) and the first bad time. Nothing is clamped.
        """
        a = check_real("t_start", t_start, 0.0, math.inf, lo_closed=True)
        b = check_real("t_end", t_end, 0.0, math.inf, lo_closed=True)
        if b < a:
            raise ValueError(f"t_end={b!r} is before t_start={a!r}")
        p, f = self.params, self.form
        if f in ("temperature", "inverse-temperature", "author", "noise"):
            t0 = p["t0"]
            if a + t0 <= 1.0:
                what = "beta(t) = 0 (infinite temperature)" if f == "author" else "log(t + t0) <= 0 (temperature infinite or negative)"
                raise ValueError(
                    f"t0={t0!r} is outside its domain for a {f} schedule on [{a!r}, {b!r}]: at t={a!r}, "
                    f"t + t0 = {a + t0!r} <= 1 gives {what}; use t0 > {1.0 - a!r} or start later (never clamped)"
                )
        elif f == "generator":
            if a <= 0.0:
                raise ValueError(
                    f"t_start={a!r}: a generator schedule beta(t) = log(1 + t)/c has beta(0) = 0 (infinite "
                    "temperature); start at t_start > 0 (never clamped)"
                )
        elif f in ("polynomial", "sqrt"):
            if a + p["t0"] <= 0.0:
                raise ValueError(
                    f"t0={p['t0']!r} is outside its domain for a {f} schedule on [{a!r}, {b!r}]: t + t0 <= 0 at t={a!r}"
                )
        elif f == "linear":
            if b >= p["t_end"]:
                raise ValueError(
                    f"t_end={p['t_end']!r} (the schedule's) is inside the range [{a!r}, {b!r}]: a linear schedule "
                    f"reaches T = 0 at t = {p['t_end']!r} and is negative after it"
                )
        grid = np.unique(np.concatenate([[a, b], np.linspace(a, b, 65)]))
        with np.errstate(all="ignore"):
            temps = np.asarray(self.temperature(grid), dtype=float)
        bad = ~(np.isfinite(temps) & (temps > 0.0))
        if np.any(bad):
            t_bad = float(grid[np.argmax(bad)])
            culprit = {"exponential": "gamma", "polynomial": "alpha", "sqrt": "t0"}.get(f, "c")
            raise ValueError(
                f"{culprit}={p[culprit]!r}: the {f} schedule's temperature at t={t_bad!r} is "
                f"{float(temps[np.argmax(bad)])!r}, not finite and > 0 in float64 (underflow or overflow); "
                "shorten the range or change the schedule"
            )

    # ----------------------------------------------------------------------------- theory
    def hks_constant(self) -> float:
        """``c_T = lim_{t->inf} T(t)·log t``: ``inf`` for fixed, 0 for fast forms, else finite > 0.

        This is the constant of the HKS form ``T(t) = c_T/log t`` that every logarithmic convention
        reduces to (docs/theorems.md A2): temperature/inverse-temperature/generator ``c``, author ``1/c``,
        noise ``c/2``.
        """
        f, c = self.form, self.params["c"]
        if f == "fixed":
            return math.inf
        if f in ("temperature", "inverse-temperature", "generator"):
            return c
        if f == "author":
            return 1.0 / c
        if f == "noise":
            return c / 2.0
        return 0.0

    def converges(self, critical_height: float) -> ConvergenceVerdict:
        """Asymptotic verdict for a landscape of critical height ``H* = critical_height``.

        Rules (docs/theorems.md A2/A4; Holley–Kusuoka–Stroock 1989 Thm 1.1 for diffusions on compact
        manifolds, Hajek 1988 Thm 1 for finite chains):

        * fixed ``T = c``: never (the law tends to the Gibbs measure ``∝ exp(−V/c)``, which gives
          positive mass to ``{V > V_min + delta}``).
        * logarithmic, HKS constant ``c_T``: converges iff ``c_T > H*`` (regime ``"slow-enough"``); ``c_T < H*``
          traps with positive probability (``"log-below-critical"``: no faster than logarithmic, the constant is
          too small); ``c_T = H*`` (to 1e-12 relative) returns ``None``: the classical
          diffusion results do not cover the boundary in general (Hajek's ``c >= d*`` is for finite
          chains).
        * fast forms (exponential, polynomial, sqrt: ``liminf beta(t)/log t = inf > 1/H*``; linear:
          ``T = 0`` at a finite time): ``False`` when ``H* > 0`` (positive probability of never
          leaving a non-global basin; regime ``"too-fast"``, or ``"finite-horizon"`` for linear); ``None`` when
          ``H* = 0`` (no barrier; not covered).

        Args:
          critical_height: ``H* >= 0``, finite, in the units of ``V``.

        Returns:
          :class:`~._schedule_verdicts.ConvergenceVerdict` (the rules are
          :func:`~._schedule_verdicts.convergence_verdict`).

        Raises:
          ValueError: ``critical_height`` negative, NaN or inf.
        """
        return convergence_verdict(self.form, self.params, self.hks_constant(), critical_height)

    # ----------------------------------------------------------------------------- conventions
    def to_convention(self, form: str) -> Schedule:
        """The same schedule written in another logarithmic convention.

        Exact (same ``T(t)`` for every ``t``) between ``temperature``, ``inverse-temperature``,
        ``author`` and ``noise`` (``t0`` kept; constants ``c``, ``c``, ``1/c``, ``2c``). The
        ``generator`` form fixes ``t0 = 1``: conversion to or from it requires ``t0 = 1``.

        Raises:
          ValueError: ``form`` unknown, not logarithmic, this schedule not logarithmic, or ``t0 != 1``
            for the generator form.
        """
        if form not in LOG_FORMS:
            raise ValueError(f"form={form!r} is not a logarithmic convention; choose one of {LOG_FORMS}")
        if self.form not in LOG_FORMS:
            raise ValueError(f"a {self.form} schedule has no logarithmic convention (only {LOG_FORMS} do)")
        ct = self.hks_constant()
        t0 = 1.0 if self.form == "generator" else self.params["t0"]
        if form == "generator":
            if t0 != 1.0:
                raise ValueError(f"t0={t0!r}: the generator convention fixes t0 = 1; the constant c = {ct!r} is the same")
            return make_schedule("generator", c=ct)
        return hks_constant_to_form(form, ct, t0=t0)

    def describe(self) -> str:
        """One line: the formula with its constants and the HKS constant."""
        p = self.params
        f = self.form
        text = {
            "fixed": "T(t) = {c}",
            "temperature": "T(t) = {c} / log(t + {t0})",
            "inverse-temperature": "beta(t) = log(t + {t0}) / {c}",
            "author": "beta(t) = {c} · log(t + {t0})",
            "noise": "sigma(t)^2 = {c} / log(t + {t0}), T = sigma^2/2",
            "generator": "beta(t) = log(1 + t) / {c} (generator clock)",
            "linear": "T(t) = {c} · (1 − t / {t_end})",
            "exponential": "T(t) = {c} · {gamma}^(t / {period})",
            "polynomial": "beta(t) = {c} · (t + {t0})^{alpha}",
            "sqrt": "T(t) = {c} / sqrt(t + {t0})",
        }[f].format(**{k: _fmt(v) for k, v in p.items()})
        return f"{f}: {text}; HKS constant c_T = lim T(t)·log t = {_fmt(self.hks_constant())}"


def hks_constant_to_form(form: str, hks_constant: float, *, t0: float = 2.0) -> Schedule:
    """Build the logarithmic schedule of HKS constant ``hks_constant`` in convention ``form``.

    Raises:
      ValueError: unknown/non-log form, or a constant outside ``(0, inf)``.
    """
    ct = check_real("hks_constant", hks_constant, 0.0, math.inf)
    if form == "generator":
        return make_schedule("generator", c=ct)
    const = {"temperature": ct, "inverse-temperature": ct, "author": 1.0 / ct, "noise": 2.0 * ct}
    if form not in const:
        raise ValueError(f"form={form!r} is not a logarithmic convention; choose one of {LOG_FORMS}")
    return make_schedule(form, c=const[form], t0=t0)


def make_schedule(form: str, **params: float) -> Schedule:
    """Build a :class:`Schedule` of one of :data:`FORMS` (definitions in the module docstring).

    Args:
      form: ``"fixed"``, ``"temperature"``, ``"inverse-temperature"``, ``"author"``, ``"noise"``,
        ``"generator"``, ``"linear"``, ``"exponential"``, ``"polynomial"`` or ``"sqrt"``.
      **params: keyword floats. ``c > 0`` always; ``t0`` (finite, any sign; its admissible range is
        checked by :meth:`Schedule.validate_range`), ``t_end > 0`` (linear), ``gamma in (0, 1)`` and
        ``period > 0`` (exponential), ``alpha > 0`` (polynomial).

    Raises:
      ValueError: unknown form, unknown/missing parameter, or a value outside its domain (NaN/inf).

    Source: docs/theorems.md A2 (conventions), classical references in the module docstring.

    Examples:
      >>> schedule = make_schedule("temperature", c=2.0, t0=2.0)     # T(t) = c / log(t + t0)
      >>> print(schedule.describe())
      temperature: T(t) = 2 / log(t + 2); HKS constant c_T = lim T(t)·log t = 2
      >>> verdict = schedule.converges(1.53125)                         # H* of the double well
      >>> verdict.converges, verdict.regime
      (True, 'slow-enough')
      >>> make_schedule("temperature", c=1.0, t0=2.0).converges(1.53125).converges
      False
    """
    if form not in FORM_PARAMETERS:
        raise ValueError(f"form={form!r} is not a schedule form; choose one of {', '.join(FORMS)}")
    required, optional = FORM_PARAMETERS[form]
    unknown = set(params) - set(required) - set(optional)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {sorted(unknown)} for form {form!r}; it takes {list(required) + list(optional)}"
        )
    missing = [k for k in required if k not in params]
    if missing:
        raise ValueError(f"form {form!r} needs parameter(s) {missing}")
    values: dict[str, float] = {}
    for k in list(required) + list(optional):
        v = params.get(k, optional.get(k))
        if k == "gamma":
            values[k] = check_real(k, v, 0.0, 1.0)
        elif k == "t0":
            values[k] = check_real(k, v)
        else:
            values[k] = check_real(k, v, 0.0, math.inf)
    return Schedule(form=form, params=_FrozenParams(values))
