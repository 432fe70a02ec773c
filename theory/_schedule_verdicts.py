"""The asymptotic verdict of an annealing schedule against a critical height ``H*`` (docs/theorems.md A2, A4).

:class:`ConvergenceVerdict` is what :meth:`~._schedules.Schedule.converges` returns; :func:`convergence_verdict`
holds the rules (Holley–Kusuoka–Stroock 1989, Thm 1.1; Hajek 1988, Thm 1; Chiang–Hwang–Sheu 1987), decided from
the schedule's form and its HKS constant ``c_T = lim_{t->inf} T(t)·log t`` alone; the words the command line
prints for each regime are here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

from ._domains import check_real
from ._schedule_forms import LOG_FORMS

__all__ = ["ConvergenceVerdict"]

_BOUNDARY_RTOL = 1e-12


def _fmt(x: float) -> str:
    return f"{x:.10g}"


@dataclass(frozen=True)
class ConvergenceVerdict:
    """Asymptotic verdict of a schedule for a landscape of critical height ``H*``.

    Attributes:
      converges: ``True`` (``P(V(Z_t) > V_min + delta) -> 0`` for every ``delta > 0``), ``False``
        (it does not, or trapping in a non-global basin has positive probability), or ``None``
        (the classical results do not decide; ``reason`` says why).
      reason: one or two sentences with the inequality that decided and its source.
      regime: which rule decided, a stable value for ``--json`` (:attr:`regime_text` says it in words):
        ``"fixed"``; logarithmic ``"slow-enough"`` (``c_T > H*``), ``"boundary"`` (``c_T = H*``) or
        ``"log-below-critical"`` (``c_T < H*``: not faster than logarithmic, but no convergence guarantee: a
        chain can stay trapped, docs/theorems.md A4); ``"too-fast"`` (exponential, polynomial, sqrt:
        ``liminf beta(t)/log t = inf``, A2); ``"finite-horizon"`` (linear); ``"no-barrier"`` (``H* = 0``).
    """

    converges: bool | None
    reason: str
    regime: str

    @property
    def regime_text(self) -> str:
        """:attr:`regime` in words for a human reader, e.g. ``"logarithmic, c_T below H* (no convergence
        guarantee)"`` for ``"log-below-critical"``."""
        return _REGIME_TEXT.get(self.regime, self.regime)

    @property
    def outcome_text(self) -> str:
        """The verdict itself in words, never a Python literal: ``"converges in probability"`` (``c_T > H*``),
        ``"no convergence guarantee"`` (``c_T < H*`` or faster than logarithmic: a chain can stay trapped,
        docs/theorems.md A2/A4), ``"does not converge"`` (fixed temperature), ``"borderline (c_T = H*)"`` (A4
        states ``c > H*`` and ``c < H*`` only) or ``"not decided (H* = 0)"``. A table column prints this."""
        return _OUTCOME_TEXT.get(self.regime, self.regime)

    @property
    def summary(self) -> str:
        """The verdict and the rule that decided it in one line, e.g. ``"no convergence guarantee — logarithmic,
        c_T below H*"``; at ``c_T = H*``: ``"borderline (c_T = H*): the theorem decides neither way"``."""
        return _SUMMARY_TEXT.get(self.regime, f"{self.outcome_text} — {self.regime_text}")


#: :attr:`ConvergenceVerdict.regime` in words (what the command line prints beside the verdict).
_REGIME_TEXT = {
    "fixed": "fixed temperature (no convergence)",
    "slow-enough": "logarithmic, c_T above H* (converges in probability)",
    "boundary": "logarithmic, c_T equal to H* (not decided)",
    "log-below-critical": "logarithmic, c_T below H* (no convergence guarantee)",
    "too-fast": "faster than logarithmic (can stay trapped)",
    "finite-horizon": "reaches T = 0 at a finite time (can stay trapped)",
    "no-barrier": "no barrier, H* = 0 (not decided)",
}


#: :attr:`ConvergenceVerdict.outcome_text` by regime.
_OUTCOME_TEXT = {
    "fixed": "does not converge",
    "slow-enough": "converges in probability",
    "boundary": "borderline (c_T = H*)",
    "log-below-critical": "no convergence guarantee",
    "too-fast": "no convergence guarantee",
    "finite-horizon": "no convergence guarantee",
    "no-barrier": "not decided (H* = 0)",
}

#: :attr:`ConvergenceVerdict.summary` by regime (the command line's verdict line).
_SUMMARY_TEXT = {
    "fixed": "does not converge — fixed temperature: the law tends to the Gibbs measure",
    "slow-enough": "converges in probability — logarithmic, c_T above H*",
    "boundary": "borderline (c_T = H*): the theorem decides neither way",
    "log-below-critical": "no convergence guarantee — logarithmic, c_T below H*",
    "too-fast": "no convergence guarantee — faster than logarithmic, can stay trapped",
    "finite-horizon": "no convergence guarantee — reaches T = 0 at a finite time, can stay trapped",
    "no-barrier": "not decided — no barrier (H* = 0), which the classical results do not cover",
}


def convergence_verdict(form: str, params: Mapping[str, float], hks_constant: float,
                        critical_height: float) -> ConvergenceVerdict:
    """The verdict of a schedule of form ``form`` (its ``params``, HKS constant ``c_T``) for ``H* = critical_height``.

    Rules (docs/theorems.md A2/A4; Holley–Kusuoka–Stroock 1989 Thm 1.1 for diffusions on compact
    manifolds, Hajek 1988 Thm 1 for finite chains), stated in :meth:`~._schedules.Schedule.converges`.

    Args:
      form: one of :data:`~._schedule_forms.FORMS`. params: its parameters (``c``; ``t_end`` for linear).
      hks_constant: ``c_T`` of the schedule (:meth:`~._schedules.Schedule.hks_constant`; used for the
        logarithmic forms only). critical_height: ``H* >= 0``, finite, in the units of ``V``.

    Returns:
      :class:`ConvergenceVerdict`.

    Raises:
      ValueError: ``critical_height`` negative, NaN or inf.
    """
    h = check_real("critical_height", critical_height, 0.0, math.inf, lo_closed=True)
    f = form
    if f == "fixed":
        return ConvergenceVerdict(
            False,
            f"fixed T = {_fmt(params['c'])}: the law tends to the Gibbs measure ∝ exp(−V/T), which keeps "
            "positive mass on {V > V_min + δ}; no convergence to the minimum set (any H*)",
            "fixed",
        )
    if f in LOG_FORMS:
        ct = hks_constant
        src = "Holley–Kusuoka–Stroock 1989 Thm 1.1 (Hajek 1988 for finite chains)"
        if math.isclose(ct, h, rel_tol=_BOUNDARY_RTOL, abs_tol=0.0):
            return ConvergenceVerdict(
                None,
                f"HKS constant c = {_fmt(ct)} equals H* = {_fmt(h)}: the boundary case; the classical diffusion "
                "results prove convergence for c > H* and trapping for c < H* only (Hajek's c >= d* is for "
                "finite chains), so this is not decided",
                "boundary",
            )
        if ct > h:
            return ConvergenceVerdict(
                True, f"HKS constant c = {_fmt(ct)} > H* = {_fmt(h)}: converges in probability ({src})", "slow-enough"
            )
        return ConvergenceVerdict(
            False,
            f"HKS constant c = {_fmt(ct)} < H* = {_fmt(h)}: positive probability of staying in a non-global "
            f"basin of depth H* ({src})",
            "log-below-critical",
        )
    # fast forms
    if h == 0.0:
        return ConvergenceVerdict(
            None,
            f"H* = 0 (no barrier): the trapping argument does not apply, and the classical results do not "
            f"state convergence for a {f} schedule; expected only when V has no non-global local minima",
            "no-barrier",
        )
    if f == "linear":
        return ConvergenceVerdict(
            False,
            f"linear schedule reaches T = 0 at t_end = {_fmt(params['t_end'])}: a finite horizon, after which "
            f"a non-global basin of depth H* = {_fmt(h)} > 0 keeps the chain with positive probability",
            "finite-horizon",
        )
    return ConvergenceVerdict(
        False,
        f"{f} cooling has liminf beta(t)/log t = inf > 1/H* = {_fmt(1.0 / h)}: positive probability of never "
        "leaving a non-global basin (docs/theorems.md A2; Hajek 1988 Thm 1, necessity)",
        "too-fast",
    )
