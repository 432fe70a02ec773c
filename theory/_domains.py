"""Parameter domains and input validation.

Every bound parameter carries a domain; every evaluation validates against it and raises a
``ValueError`` that names the argument, its value and its domain (cases C04 of docs/reference-values.md). The plain
functions :func:`check_real`, :func:`check_int` and :func:`check_probability` are the same checks
for code that has no :class:`Param` (simulators, metrics, the command line).
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import sympy as sp

__all__ = ["Interval", "Param", "check_real", "check_int", "check_seed", "check_probability", "check_finite_array",
           "MAX_SEED", "exact_rational"]


@dataclass(frozen=True)
class Interval:
    """A real interval with open or closed ends; ``lo``/``hi`` may be ``-inf``/``inf`` (always open)."""

    lo: float = -math.inf
    hi: float = math.inf
    lo_closed: bool = False
    hi_closed: bool = False

    def contains(self, x: float) -> bool:
        """Return whether the real number ``x`` lies in the interval (NaN never does)."""
        if math.isnan(x):
            return False
        lo_ok = x >= self.lo if self.lo_closed else x > self.lo
        hi_ok = x <= self.hi if self.hi_closed else x < self.hi
        return lo_ok and hi_ok

    def __str__(self) -> str:
        def fmt(v: float) -> str:
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            return f"{v:g}"

        left = "[" if self.lo_closed and math.isfinite(self.lo) else "("
        right = "]" if self.hi_closed and math.isfinite(self.hi) else ")"
        return f"{left}{fmt(self.lo)}, {fmt(self.hi)}{right}"


def _describe(value: Any) -> str:
    try:
        return repr(float(value)) if not isinstance(value, numbers.Integral) else str(int(value))
    except (TypeError, ValueError, OverflowError):
        return repr(value)


def _short_exact(value: Any) -> str:
    """A huge exact number for a message: all digits if short, else its magnitude (10**400 -> '1e+400')."""
    text = str(value)
    if len(text) <= 40:
        return text
    with mpmath.workdps(20):
        try:
            return mpmath.nstr(mpmath.mpf(int(value)) if isinstance(value, numbers.Integral) else mpmath.mpf(text), 6)
        except (ValueError, TypeError):
            return text[:40] + "..."


def _nan_error(name: str, domain: Any) -> ValueError:
    """The one refusal of a NaN: the argument and its allowed range, as every other number error names it; a
    caller that checks only realness here (the whole line, its range checked after) gets "give a real number"."""
    if domain is None or domain == Interval():
        return ValueError(f"{name}=nan is not allowed (NaN); give a real number")
    return ValueError(f"{name}=nan is not allowed (NaN); domain {domain}")


def _as_real(name: str, value: Any, domain: Any = None) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be a number, not a bool")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a real number") from None
    except OverflowError:  # an exact integer (or Fraction) beyond float64, e.g. 10**400
        raise ValueError(f"{name}={_short_exact(value)} is beyond the float64 range (|x| <= 1.8e308) that this "
                         "argument takes") from None
    if math.isnan(x):
        raise _nan_error(name, domain)
    return x


def check_real(
    name: str,
    value: Any,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_closed: bool = False,
    hi_closed: bool = False,
    allow_inf: bool = False,
) -> float:
    """Validate a real scalar and return it as ``float``.

    Args:
      name: the argument's public name (used in the message).
      value: anything ``float()`` accepts (Python, numpy or sympy number, string of a number).
      lo, hi, lo_closed, hi_closed: the domain.
      allow_inf: accept ``inf`` when the domain includes it (default: never).

    Raises:
      ValueError: ``"tau=-1.0 is outside its domain (0, inf)"``; NaN, inf and non-numbers likewise
        name the argument.

    Examples:
      >>> check_real("tau", 0.5, 0.0)
      0.5
      >>> check_real("tau", -1, 0.0)
      Traceback (most recent call last):
      ...
      ValueError: tau=-1 is outside its domain (0, inf)
    """
    dom = Interval(lo, hi, lo_closed, hi_closed)
    x = _as_real(name, value, dom)
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name}={x!r} must be finite; domain {dom}")
    if not math.isinf(x) and not dom.contains(x):
        raise ValueError(f"{name}={_describe(value)} is outside its domain {dom}")
    return x


def _stdlib_exact(name: str, value: Any, domain: Any = None) -> Any:
    """``fractions.Fraction`` and finite ``decimal.Decimal`` as exact sympy Rationals (others unchanged).

    Raises:
      ValueError: a Decimal NaN or infinity (naming ``name``).
    """
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if value.is_nan():
            raise _nan_error(name, domain)
        if value.is_infinite():
            raise ValueError(f"{name}={value} must be finite")
        return sp.Rational(str(value))
    return value


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """Validate an integer scalar in ``[lo, hi]`` and return it as ``int``.

    Args:
      name: the argument's public name (used in the message).
      value: an int (any size, kept exact), numpy integer, integral float, or an exact rational
        (sympy, ``fractions.Fraction``, ``decimal.Decimal``) whose value is an integer.
      lo, hi: the inclusive range (``None``: unbounded).

    Raises:
      ValueError: not an integer (``2.5``, ``Fraction(5, 2)``, NaN, inf, a bool), or outside
        ``[lo, hi]``; the message names the argument, its value and the allowed range.
    """
    if isinstance(value, bool):
        raise ValueError(f"{name}={value!r} must be an integer, not a bool")
    lo_s = "-inf" if lo is None else str(lo)
    hi_s = "inf" if hi is None else str(hi)
    allowed = f"integers in {'(' if lo is None else '['}{lo_s}, {hi_s}{')' if hi is None else ']'}"
    shown, value = value, _stdlib_exact(name, value, allowed)
    if isinstance(value, sp.Rational) and not isinstance(value, sp.Integer):
        raise ValueError(f"{name}={shown} must be an integer")
    if isinstance(value, numbers.Integral):
        n = int(value)  # exact: never through a float (2**53 + 1 stays itself)
    else:
        x = _as_real(name, value, allowed)
        if math.isinf(x) or x != math.floor(x):
            raise ValueError(f"{name}={_describe(value)} must be an integer")
        n = int(x)
    if (lo is not None and n < lo) or (hi is not None and n > hi):
        raise ValueError(f"{name}={n} is outside its domain: {allowed}")
    return n


MAX_SEED = 2**32 - 1
"""Largest seed any entry point accepts: ``jax.random.key`` takes a 32-bit seed without x64 (2**32
silently becomes the key of seed 0) and overflows above 2**63 with it, so one range for every
command and function keeps a seed meaning the same run everywhere."""


def check_seed(value: Any, name: str = "seed") -> int:
    """Validate a random seed: an integer in ``[0, MAX_SEED]`` = ``[0, 2**32 - 1]``; returns it as ``int``.

    Raises:
      ValueError: not an integer, negative, or above ``2**32 - 1`` (the message names ``name`` and the range).
    """
    return check_int(name, value, 0, MAX_SEED)


def check_probability(name: str, value: Any, *, closed: bool = False) -> float:
    """Validate a probability in the open interval (0, 1) (closed [0, 1] if ``closed``)."""
    return check_real(name, value, 0.0, 1.0, lo_closed=closed, hi_closed=closed)


def check_finite_array(name: str, array: Any, *, ndim: int | None = None) -> np.ndarray:
    """Return ``np.asarray(array)`` after checking it is finite (and of ``ndim`` dims if given).

    Raises:
      ValueError: NaN or inf present (the message gives the first bad index), or wrong ``ndim``.
    """
    a = np.asarray(array)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {a.shape}")
    if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {bad})")
    return a


def _exact(value: Any) -> sp.Rational | None:
    """``value`` (sympy Rational/Float, mpmath mpf) as an exact Rational; None for NaN/inf."""
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            return None
        man, exp = value.man_exp  # |value| = man * 2**exp
        return (-1 if value < 0 else 1) * sp.Integer(man) * sp.Integer(2) ** exp
    if isinstance(value, sp.Float):
        if not value.is_finite:
            return None
        return sp.Rational(value)  # a binary Float is an exact Rational
    return value


def _check_exact(name: str, value: Any, domain: Interval) -> None:
    """Domain check of an exact or high-precision number without rounding it to float64.

    Raises:
      ValueError: NaN, inf, or outside ``domain`` (the message names ``name``, the value and the domain).
    """
    q = _exact(value)
    if q is None:
        if isinstance(value, mpmath.mpf) and mpmath.isnan(value) or isinstance(value, sp.Float) and value.is_nan:
            raise _nan_error(name, domain)
        raise ValueError(f"{name}={value} must be finite; domain {domain}")
    lo_ok = math.isinf(domain.lo) or (q >= sp.Rational(domain.lo) if domain.lo_closed else q > sp.Rational(domain.lo))
    hi_ok = math.isinf(domain.hi) or (q <= sp.Rational(domain.hi) if domain.hi_closed else q < sp.Rational(domain.hi))
    if not (lo_ok and hi_ok):
        if isinstance(value, sp.Integer):
            shown = str(value)
        elif isinstance(value, mpmath.mpf):
            shown = mpmath.nstr(value, 15)
        else:
            with mpmath.workdps(30):
                shown = mpmath.nstr(mpmath.mpf(q.p) / q.q, 25)
        raise ValueError(f"{name}={shown} is outside its domain {domain}")


def exact_rational(value: Any) -> sp.Rational:
    """A finite real number as an exact sympy Rational: ints, floats (their exact binary value),
    numpy scalars, ``Fraction``, ``Decimal``, sympy numbers and mpmath ``mpf``.

    Raises:
      ValueError: NaN, inf or not a real number.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is a bool, not a number")
    value = _stdlib_exact("value", value)
    if isinstance(value, (np.integer, np.floating)):
        value = value.item()
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not finite")
        return sp.Rational(value)
    q = _exact(value) if isinstance(value, (mpmath.mpf, sp.Float)) else value
    if isinstance(q, sp.Rational):
        return q
    raise ValueError(f"{value!r} is not a finite real number")


@dataclass(frozen=True)
class Param:
    """A named bound parameter with its domain.

    Attributes:
      name: public name, a standard term of the field (``tau``, ``batch_size``, ``delta``...).
      domain: an :class:`Interval`.
      integer: whether only integers are allowed.
      description: one line for humans (shown by ``contrastive-bounds list``).
      units: units or meaning of the scale ("dimensionless", "steps", ...).
    """

    name: str
    domain: Interval = field(default_factory=Interval)
    integer: bool = False
    description: str = ""
    units: str = "dimensionless"

    @property
    def symbol(self) -> sp.Symbol:
        """The sympy symbol, positive when the domain is inside (0, inf) (helps simplification)."""
        positive = self.domain.lo > 0 or (self.domain.lo == 0 and not self.domain.lo_closed)
        if self.integer:
            return sp.Symbol(self.name, integer=True, positive=positive or None)
        return sp.Symbol(self.name, positive=positive or None, real=True)

    def validate(self, value: Any) -> Any:
        """Return ``value`` checked against the domain (an ``int`` for integer params).

        Exact inputs stay exact: sympy Rationals/Integers as they are, ``fractions.Fraction`` and
        ``decimal.Decimal`` become sympy Rationals (``Decimal("0.1")`` is exactly 1/10, never the
        float 0.1), mpmath and sympy Floats keep their precision; other inputs become
        ``float``/``int``.

        Raises:
          ValueError: naming the parameter, its value and its domain (NaN, inf, out of range,
            non-integer for an integer parameter).
        """
        if self.integer:
            lo = None if math.isinf(self.domain.lo) else math.ceil(self.domain.lo) + (0 if self.domain.lo_closed or self.domain.lo != math.ceil(self.domain.lo) else 1)
            hi = None if math.isinf(self.domain.hi) else math.floor(self.domain.hi) - (0 if self.domain.hi_closed or self.domain.hi != math.floor(self.domain.hi) else 1)
            return check_int(self.name, value, lo, hi)
        if isinstance(value, (Fraction, Decimal)):
            value = _stdlib_exact(self.name, value, self.domain)
        if isinstance(value, numbers.Integral) and not isinstance(value, (bool, sp.Basic)) and abs(int(value)) > 2**53:
            value = sp.Integer(int(value))  # an integer beyond float64's exact range stays exact (10**400)
        if isinstance(value, (sp.Rational, sp.Float, mpmath.mpf)):
            # exact or high-precision inputs are kept as they are (case C05) and checked exactly:
            # through float, 1e400 would be "inf" and 1 + 1e-30 would equal 1
            _check_exact(self.name, value, self.domain)
            return value
        return check_real(self.name, value, self.domain.lo, self.domain.hi,
                          lo_closed=self.domain.lo_closed, hi_closed=self.domain.hi_closed)

    def domain_text(self) -> str:
        """Human-readable domain, e.g. ``integers in [1, inf)`` or ``(0, 1)``."""
        return f"integers in {self.domain}" if self.integer else str(self.domain)
