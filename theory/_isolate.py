"""Certified sign structure of a function of one variable with python-flint ``arb`` balls.

The machinery under :func:`._solve.solve`: a condition ``g`` (a sympy expression in one symbol) is
compiled for arb (:class:`ArbCondition`, with its derivative); :func:`isolate` splits an interval
into :class:`Piece` objects on which ``g`` has a certified constant sign or exactly one certified
simple root (``g`` strictly monotone with opposite signs at the ends), :func:`refine_root`
narrows a root's enclosure by bisection on exact dyadic points, and
:func:`certified_monotonicity` certifies the sign of ``g'`` on a union of intervals. Splits are
geometric in the distance to a finite domain end (:func:`split_point`), so singular ends such as
``log(log t)`` at ``t = 1`` are resolved. Source: Johansson, "Arb: efficient arbitrary-precision
midpoint-radius interval arithmetic", IEEE Trans. Computers 66 (2017); the exclusion/monotonicity
test is the classical interval root-isolation scheme (Moore, Kearfott, Cloud, *Introduction to
Interval Analysis*, SIAM 2009, ch. 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import flint
import mpmath
import sympy as sp

from ._domains import exact_rational
from ._intervals import arb_compile

__all__ = ["exact_point", "ball_of", "split_point", "decimal_text", "arb_to_mpf", "arb_to_float", "arb_exact",
           "ArbCondition", "certain_sign", "Piece", "isolate", "refine_root", "certified_monotonicity", "floor_integer"]


def exact_point(x: flint.arb) -> flint.arb:
    """An exact dyadic point near ``x`` (the ball's midpoint)."""
    return x.mid()


def ball_of(a: flint.arb, b: flint.arb) -> flint.arb:
    """The ball enclosing [a, b] (exact points a <= b)."""
    return a.union(b)


def split_point(a: flint.arb, b: flint.arb, anchors: tuple[Any, Any] = (None, None)) -> flint.arb:
    """A split point of [a, b]: geometric in the distance to a finite domain end (``anchors``: lower,
    upper or None) when [a, b] spans more than a factor 4 of it, geometric in |x| likewise, else the
    midpoint; always an exact dyadic point."""
    lo_anchor, hi_anchor = anchors
    if lo_anchor is not None and lo_anchor != 0 and a > lo_anchor:
        da, db = a - lo_anchor, b - lo_anchor
        if db > 4 * da:
            return exact_point(lo_anchor + (da * db).sqrt())
    if hi_anchor is not None and hi_anchor != 0 and b < hi_anchor:
        da, db = hi_anchor - b, hi_anchor - a
        if db > 4 * da:
            return exact_point(hi_anchor - (da * db).sqrt())
    if a > 0 and b > 4 * a:
        return exact_point((a * b).sqrt())
    if b < 0 and a < 4 * b:
        return -exact_point((a * b).sqrt())
    if a < 0 < b and (b > 1 or a < -1):
        return flint.arb(0)
    return exact_point((a + b) / 2)


def decimal_text(x: flint.arb, digits: int, rounding: str = "nearest") -> str:
    """The exact point ``x`` as a decimal string of ``digits + 2`` significant digits, rounded to
    nearest, or outward (``"down"``/``"up"``) so that an enclosure printed in decimal still encloses."""
    v = arb_to_mpf(x)
    n = digits + 2
    text = mpmath.nstr(v, n)
    if rounding == "nearest" or v == 0:
        return text
    with mpmath.workprec(max(200, 4 * n + 64)):
        shown = mpmath.mpf(text)
        ulp = mpmath.mpf(10) ** (int(mpmath.floor(mpmath.log10(abs(v)))) - n + 1)
        if rounding == "down" and shown > v:
            shown -= ulp
        elif rounding == "up" and shown < v:
            shown += ulp
        return mpmath.nstr(shown, n)


def arb_to_mpf(x: flint.arb) -> Any:
    """The midpoint of ``x`` as an mpmath number, exactly (no rounding to mpmath's working precision)."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    if man == 0:
        return mpmath.mpf(0)
    with mpmath.workprec(max(53, man.bit_length() + 8)):
        return mpmath.mpf((man, exp))


def arb_to_float(x: flint.arb) -> float | None:
    """The midpoint of ``x`` as a float, or None beyond float64."""
    v = float(arb_to_mpf(x))
    return v if math.isfinite(v) else None


def arb_exact(v: Any) -> flint.arb:
    """A finite real number (int, float, Rational, Fraction, Decimal, mpf) as an exact arb value
    (a quotient of integers, enclosed at the working precision when not dyadic)."""
    q = exact_rational(v)
    return flint.arb(int(q.p)) / int(q.q) if q.q != 1 else flint.arb(int(q.p))


class ArbCondition:
    """A condition compiled for arb: value and derivative at a ball, with precision escalation at points."""

    def __init__(self, expr: sp.Expr, x: sp.Symbol) -> None:
        self.g = arb_compile(expr, (x,))
        self.dg = arb_compile(sp.diff(expr, x), (x,))

    def ball(self, a: flint.arb, b: flint.arb) -> flint.arb:
        return self.g(ball_of(a, b))

    def dball(self, a: flint.arb, b: flint.arb) -> flint.arb:
        return self.dg(ball_of(a, b))

    def sign_at(self, p: flint.arb) -> int:
        """+1/-1 certified at the exact point ``p`` (precision raised up to 4x); 0 when arb cannot tell."""
        prec0 = flint.ctx.prec
        try:
            for k in (1, 2, 4):
                flint.ctx.prec = prec0 * k
                v = self.g(p)
                if v.is_finite() and v > 0:
                    return 1
                if v.is_finite() and v < 0:
                    return -1
            return 0
        finally:
            flint.ctx.prec = prec0


def certain_sign(v: flint.arb) -> int:
    """+1/-1 when the finite ball ``v`` excludes 0, else 0."""
    if not v.is_finite():
        return 0
    return 1 if v > 0 else -1 if v < 0 else 0


# ------------------------------------------------------------------------------------------- isolation
@dataclass
class Piece:
    a: flint.arb
    b: flint.arb
    sign: int  # +1 / -1 constant sign on [a, b]; 0: a root in [a, b] (kind "root"); 2: undecided
    rising: bool = False  # for roots: g increases through the root


def isolate(fn: ArbCondition, a: flint.arb, b: flint.arb, budget: list[int], rel: flint.arb,
             anchors: tuple[Any, Any] = (None, None)) -> list[Piece]:
    """Pieces of [a, b] in increasing order: constant certified sign, or one certified simple root."""
    out: list[Piece] = []
    stack = [(a, b)]
    while stack:
        lo, hi = stack.pop()
        g = fn.ball(lo, hi)
        s = certain_sign(g)
        if s:
            out.append(Piece(lo, hi, s))
            continue
        d = certain_sign(fn.dball(lo, hi))
        if d:
            sl, sh = fn.sign_at(lo), fn.sign_at(hi)
            if sl and sh and sl == sh:
                out.append(Piece(lo, hi, sl))
                continue
            if sl and sh:
                root = refine_root(fn, lo, hi, sl, rel, anchors)
                if lo < root.a:
                    out.append(Piece(lo, root.a, sl))  # monotone, sign sl at both ends of [lo, root.a]
                out.append(root)
                if root.b < hi:
                    out.append(Piece(root.b, hi, sh))
                continue
            if sl == 0 and sh:  # g(lo) = 0 to the working precision; strictly monotone, so sign sh after it
                out.append(Piece(lo, lo, 0, rising=d > 0))
                out.append(Piece(lo, hi, sh))
                continue
            if sh == 0 and sl:
                out.append(Piece(lo, hi, sl))
                out.append(Piece(hi, hi, 0, rising=d > 0))
                continue
        budget[0] -= 1
        width_ok = (hi - lo) > rel * (abs(lo) + abs(hi))
        if budget[0] <= 0 or not width_ok:
            out.append(Piece(lo, hi, 2))
            continue
        m = split_point(lo, hi, anchors)
        if not (lo < m < hi):
            out.append(Piece(lo, hi, 2))
            continue
        stack.append((m, hi))
        stack.append((lo, m))
    return out


def refine_root(fn: ArbCondition, lo: flint.arb, hi: flint.arb, s_lo: int, rel: flint.arb,
            anchors: tuple[Any, Any] = (None, None)) -> Piece:
    """Bisect a monotone box whose ends have opposite certified signs down to relative width ``rel``."""
    for _ in range(20000):
        if (hi - lo) <= rel * (abs(lo) + abs(hi)):
            break
        m = split_point(lo, hi, anchors)
        if not (lo < m < hi):
            break
        sm = fn.sign_at(m)
        if sm == 0:
            return Piece(m, m, 0, rising=s_lo < 0)
        if sm == s_lo:
            lo = m
        else:
            hi = m
    return Piece(lo, hi, 0, rising=s_lo < 0)


def certified_monotonicity(fn: ArbCondition, segs: list, max_boxes: int, anchors: tuple[Any, Any]) -> str | None:
    """'increasing'/'decreasing' when arb certifies the derivative's sign on every segment, else None."""
    signs = set()
    for a, b, _, _ in segs:
        stack, n = [(a, b)], 0
        while stack:
            lo, hi = stack.pop()
            s = certain_sign(fn.dball(lo, hi))
            if s:
                signs.add(s)
                if len(signs) > 1:
                    return None
                continue
            n += 1
            m = split_point(lo, hi, anchors)
            if n > max_boxes // 4 or not (lo < m < hi):
                return None
            stack += [(lo, m), (m, hi)]
    if len(signs) != 1:
        return None
    return "increasing" if signs.pop() > 0 else "decreasing"


def floor_integer(a: flint.arb) -> flint.arb:
    """``floor`` of a ball's lower end as an exact arb integer (start of an integer scan)."""
    return flint.arb(int(math.floor(float(arb_to_mpf(a.lower())))))
