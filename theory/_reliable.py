"""Evaluating a real sympy expression to a stated number of correct digits, or saying it cannot.

:func:`reliable_value` is Ziv's strategy with mpmath: evaluate at two precisions, accept when they
agree, else keep doubling the precision up to :data:`MAX_DIGITS`. :func:`reliable_sign` decides a
sign the same way (vacuity conditions, constraints, trivial-bound comparisons). Inputs stay exact
at every precision (:func:`to_mpf`).
"""

from __future__ import annotations

import functools
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping

import mpmath
import numpy as np
import sympy as sp

from ._backends import compiled, free_syms

__all__ = ["DEFAULT_DIGITS", "GUARD_DIGITS", "MAX_DIGITS", "to_mpf", "reliable_value", "reliable_sign",
           "reliable_estimate"]

DEFAULT_DIGITS = 30
"""Significant digits of :meth:`Bound.evaluate` unless asked otherwise."""

GUARD_DIGITS = 10
"""Extra decimal digits of the working precision: ``evaluate(digits=d)`` works at ``d + 10`` digits."""

MAX_DIGITS = 4000
"""Cap on the adaptive working precision (decimal digits) of :func:`reliable_value`: a factor that
cancels beyond it (e.g. ``exp(x) - 1`` with ``x < 1e-3990``) is reported as undetermined (never as
0.0) instead of being computed for minutes."""


def to_mpf(x: Any) -> Any:
    """``x`` as an mpmath number at the current working precision (exact where it fits).

    Rationals (sympy, ``fractions.Fraction``) and ``decimal.Decimal`` are divided at the working
    precision, never through float64; ints, floats and mpf are exact.
    """
    if type(x) is float or type(x) is int or isinstance(x, mpmath.mpf):
        return mpmath.mpf(x)  # exact (a float needs 53 bits, the working precision is above)
    if isinstance(x, sp.Rational):
        return mpmath.mpf(int(x.p)) / mpmath.mpf(int(x.q))
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / mpmath.mpf(x.denominator)
    if isinstance(x, Decimal):
        q = sp.Rational(str(x))
        return mpmath.mpf(int(q.p)) / mpmath.mpf(int(q.q))
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.N(x, mpmath.mp.dps + 5))
    if isinstance(x, (int, np.integer)):
        return mpmath.mpf(int(x))
    return mpmath.mpf(float(x))


def _agree(a: Any, b: Any, digits: int) -> bool:
    """Whether two evaluations (at two precisions) agree to ``digits + 2`` significant digits and are
    nonzero, finite and real (then the higher-precision one has at least ``digits`` correct)."""
    if not (isinstance(a, mpmath.mpf) and isinstance(b, mpmath.mpf)):
        return False
    if not (mpmath.isfinite(a) and mpmath.isfinite(b)) or b == 0:
        return False
    return abs(a - b) <= abs(b) * _rel_tol(digits)


@functools.lru_cache(maxsize=64)
def _rel_tol(digits: int) -> Any:
    with mpmath.workdps(20):
        return mpmath.mpf(10) ** (-(digits + 2))


def reliable_value(expr: sp.Expr, values: Mapping[str, Any], digits: int = DEFAULT_DIGITS,
                   *, max_digits: int = MAX_DIGITS) -> tuple[Any, str]:
    """Evaluate a real sympy expression to ``digits`` correct significant digits, or say it cannot.

    mpmath (lambdified) evaluates ``expr`` at ``p = digits + 10`` digits and at ``2p``; the ``2p``
    value is accepted when both are finite, real, nonzero and agree to ``10**-(digits + 2)``
    relative (ordinary inputs stop here: two cheap evaluations). Otherwise (cancellation, as in
    ``exp(x) - 1`` or ``log(1 + x)`` at small ``x``, or an exact zero) the precision keeps doubling,
    ``4p, 8p, ...`` up to ``max_digits``, until two consecutive values agree. Inputs are exact at
    every precision: ints, floats (their exact binary value), mpf and dyadic rationals exactly;
    sympy Rationals, ``Fraction`` and ``Decimal`` divided at the working precision.

    Args:
      expr: a sympy expression whose free symbols are keys (by name) of ``values``.
      values: symbol name -> number (int, float, numpy scalar, mpf, Fraction, Decimal, sympy number).
      digits: correct significant digits wanted (>= 1).
      max_digits: cap on the working precision (decimal digits; raised to ``4 * (digits + 10)``
        if smaller), so a value that cancels completely (an exact zero, or ``exp(x) - 1`` at
        ``x = 1e-5000``) costs milliseconds, not minutes.

    Returns:
      ``(value, how)``: ``value`` an ``mpmath.mpf`` with at least ``digits`` correct digits (made at
      a precision of ``>= 2 * (digits + 10)`` digits; round it with ``+value`` under the caller's
      ``mpmath.workdps``) and ``how = "mpmath@<digits>"``; or ``(None, why)`` when the value could
      not be told from zero within ``max_digits`` digits, or is not finite and real there.

    Source: Ziv's strategy (evaluate at increasing precision until two results agree); J. Ziv,
    "Fast evaluation of elementary mathematical functions with correctly rounded last bit", ACM TOMS
    17(3), 1991. sympy's adaptive ``evalf`` is not used: in sympy 1.14 ``evalf_log`` returns an
    unflagged 0 for ``log(1 + x)`` with ``x < 1e-50`` even with ``strict=True``.
    """
    value, how, _ = reliable_estimate(expr, values, digits, max_digits)
    return value, how


def reliable_estimate(expr: sp.Expr, values: Mapping[str, Any], digits: int,
                      max_digits: int = MAX_DIGITS) -> tuple[Any, str, Any]:
    """:func:`reliable_value` plus the last (unaccepted) estimate, for sign decisions.

    Returns:
      ``(value, how, estimate)``: as :func:`reliable_value`, and the last finite real value computed
      (``mpf(0)`` when it could not be told from zero; ``None`` when not finite and real).
    """
    syms = free_syms(expr)
    fn = compiled(syms, expr, "mpmath")
    prec = digits + GUARD_DIGITS
    max_digits = max(max_digits, 4 * prec)  # room for at least three precisions, even at digits >= MAX_DIGITS
    prev = cur = None
    last = "no finite real value"
    while True:
        try:
            with mpmath.workdps(prec):
                cur = fn(*[to_mpf(values[s.name]) for s in syms])
                if isinstance(cur, (int, float)):  # a constant expression lambdifies to a Python number
                    cur = mpmath.mpf(cur)
                if _agree(prev, cur, digits):
                    return cur, f"mpmath@{prec}", cur
        except (ZeroDivisionError, ValueError, OverflowError, TypeError) as err:
            cur, last = None, f"could not be evaluated ({type(err).__name__}: {err})"
        if prec >= max_digits:
            break
        prev = cur
        prec = min(2 * prec, max_digits)
    if not (isinstance(cur, mpmath.mpf) and mpmath.isfinite(cur)):
        shown = last if cur is None else mpmath.nstr(cur, 8)
        return None, f"is not a finite real number at up to {max_digits} digits ({shown})", None
    if cur == 0 or prev == 0:
        return None, f"could not be told from 0 with up to {max_digits} digits", mpmath.mpf(0)
    return None, f"did not settle to {digits} digits with up to {max_digits} digits", cur


def reliable_sign(expr: sp.Expr, values: Mapping[str, Any], digits: int = DEFAULT_DIGITS) -> int:
    """The sign (-1, 0, +1) of a real expression at a point, decided reliably (see :func:`reliable_value`).

    An expression that cannot be told from zero within :data:`MAX_DIGITS` digits counts as 0 (so a
    vacuity test ``expr <= 0`` says vacuous, a constraint ``expr >= 0`` holds).

    Raises:
      ValueError: the expression is not real or finite at the point.
    """
    v, how, estimate = reliable_estimate(expr, values, digits, MAX_DIGITS)
    if v is None and estimate is None:
        raise ValueError(f"{sp.sstr(expr)[:80]} {how}")
    return int(mpmath.sign(v if v is not None else estimate))
