"""Rigorous interval evaluation of sympy expressions with python-flint's ``arb`` (ball arithmetic).

mpmath's interval mode is not rigorous for ``exp``/``log``; arb is. The evaluator walks the sympy
tree and maps each node to arb operations, so every constant is enclosed exactly (Rationals as
exact quotients, pi and e as arb constants) and the result is a ball guaranteed to contain the true
range of the expression over the input balls. Source: Johansson, "Arb: efficient arbitrary-precision
midpoint-radius interval arithmetic", IEEE Trans. Computers 66 (2017).
"""

from __future__ import annotations

import functools
from typing import Callable, Mapping

import flint
import sympy as sp

from ._special import arb_function

__all__ = ["arb_interval", "arb_eval", "arb_compile", "interval_mul", "interval_pow", "increasing", "INCREASING"]


def arb_interval(lo: float | str, hi: float | str) -> flint.arb:
    """The arb ball enclosing the real interval ``[lo, hi]`` (``lo <= hi``)."""
    lo_f, hi_f = float(lo), float(hi)
    if not lo_f <= hi_f:
        raise ValueError(f"interval [{lo}, {hi}] is empty or NaN")
    a, b = flint.arb(lo_f), flint.arb(hi_f)
    rad = (hi_f - lo_f) / 2
    ball = flint.arb((lo_f + hi_f) / 2, rad * (1 + 1e-12) + abs(hi_f) * 1e-15 + 1e-300)
    while not (ball.contains(a) and ball.contains(b)):  # floating mid-point rounding: widen
        rad = rad * 2 + 1e-300
        ball = flint.arb((lo_f + hi_f) / 2, rad)
    return ball


def interval_mul(a: flint.arb, b: flint.arb) -> flint.arb:
    """The product of two balls as an interval product: the hull of the four endpoint products.

    Midpoint-radius multiplication overestimates wide balls enough to lose the sign
    (``[0.01, 10]·[0.1, 100]`` would contain negatives); the endpoint products do not.
    """
    if not (a.is_finite() and b.is_finite()):
        return a * b
    if a.is_exact() or b.is_exact():
        return a * b  # a point times a ball is exact in midpoint-radius form
    al, au, bl, bu = a.lower(), a.upper(), b.lower(), b.upper()
    return (al * bl).union(al * bu).union(au * bl).union(au * bu)


INCREASING = frozenset({"exp", "log", "log1p", "expm1", "Softplus", "Exprel", "LogExprel"})
"""Functions evaluated endpoint-wise on wide balls by :func:`increasing`."""


def increasing(x: flint.arb, fn: Callable[[flint.arb], flint.arb]) -> flint.arb:
    """``fn`` (increasing) over the ball ``x`` as ``[fn(lower), fn(upper)]``.

    arb's midpoint-radius ``exp`` of a wide ball can contain 0 (``exp([61550, 61611])``); the
    endpoint images cannot, and enclose the range exactly for an increasing function.
    """
    if x.is_exact() or not x.is_finite():
        return fn(x)
    return fn(x.lower()).union(fn(x.upper()))


def interval_pow(b: flint.arb, e: int) -> flint.arb:
    """``b**e`` for an integer ``e >= 0``: exact endpoints for a ball of one sign, else repeated :func:`interval_mul`."""
    if e == 0:
        return flint.arb(1)
    if b.is_finite() and not b.is_exact() and (b > 0 or b < 0):
        lo, hi = b.lower() ** e, b.upper() ** e
        return lo.union(hi)
    out = b
    for _ in range(e - 1):
        out = interval_mul(out, b)
    return out


def arb_eval(expr: sp.Expr, env: Mapping[sp.Symbol, flint.arb]) -> flint.arb:
    """Evaluate ``expr`` over arb balls.

    Args:
      expr: a sympy expression built from Add, Mul, Pow, exp, log, sqrt, Abs, sign, Min, Max, Heaviside,
        log1p, expm1, the
        special functions of :mod:`._special` (Softplus, Exprel, LogExprel), numbers, pi, E and
        symbols in ``env``.
      env: symbol -> arb ball.

    Returns:
      An arb ball containing ``expr``'s value for every point of the input balls (it may be
      infinite/NaN-wide when e.g. a log's argument ball touches 0). Products are interval
      products (:func:`interval_mul`), so wide balls of one sign keep their sign.

    Raises:
      ValueError: an unsupported node or a symbol missing from ``env`` (the message names it).
    """
    syms = tuple(env)
    return arb_compile(expr, syms)(*[env[s] for s in syms])


@functools.lru_cache(maxsize=256)
def arb_compile(expr: sp.Expr, syms: tuple[sp.Symbol, ...]) -> Callable[..., flint.arb]:
    """Compile ``expr`` once to a function of arb balls (one per symbol of ``syms``, in order).

    Same nodes and guarantees as :func:`arb_eval`; constants are made at the precision of each call
    (``flint.ctx.prec``), so one compiled function serves every precision.

    Raises:
      ValueError: an unsupported node, or a free symbol of ``expr`` not in ``syms``.
    """
    index = {s: i for i, s in enumerate(syms)}
    node = _build(expr, index)
    return lambda *args: node(args)


def _build(expr: sp.Expr, index: Mapping[sp.Symbol, int]) -> Callable[[tuple], flint.arb]:
    if expr.is_Symbol:
        if expr not in index:
            raise ValueError(f"no interval given for symbol {expr}")
        i = index[expr]
        return lambda a: a[i]
    if expr.is_Integer:
        n = int(expr)
        return lambda a: flint.arb(n)
    if expr.is_Rational:
        p, q = int(expr.p), int(expr.q)
        return lambda a: flint.arb(p) / q
    if expr.is_Float:
        sign, man, exp, _ = expr._mpf_  # exact binary value: (-1)^sign * man * 2^exp
        return lambda a: (-1 if sign else 1) * flint.arb(int(man)) * flint.arb(2) ** int(exp)
    if expr is sp.pi:
        return lambda a: flint.arb.pi()
    if expr is sp.E:
        return lambda a: flint.arb(1).exp()
    if isinstance(expr, sp.Add):
        parts = [_build(t, index) for t in expr.args]

        def add(a: tuple) -> flint.arb:
            total = flint.arb(0)
            for f in parts:
                total += f(a)
            return total
        return add
    if isinstance(expr, sp.Mul):
        parts = [_build(t, index) for t in expr.args]

        def mul(a: tuple) -> flint.arb:
            total = parts[0](a)
            for f in parts[1:]:
                total = interval_mul(total, f(a))
            return total
        return mul
    if isinstance(expr, sp.Pow):
        base, exp = expr.args
        b = _build(base, index)
        if exp.is_Integer:
            e = int(exp)
            if e >= 0:
                return lambda a: interval_pow(b(a), e)
            return lambda a: 1 / interval_pow(b(a), -e)
        if exp == sp.Rational(1, 2):
            return lambda a: increasing(b(a), lambda x: x.sqrt())
        if exp == sp.Rational(-1, 2):
            return lambda a: 1 / increasing(b(a), lambda x: x.sqrt())
        e_fn = _build(exp, index)
        return lambda a: increasing(interval_mul(e_fn(a), increasing(b(a), lambda x: x.log())), lambda x: x.exp())
    if isinstance(expr, sp.Abs):
        f = _build(expr.args[0], index)
        return lambda a: abs(f(a))
    if isinstance(expr, (sp.Min, sp.Max)):
        parts = [_build(t, index) for t in expr.args]
        pick = "min" if isinstance(expr, sp.Min) else "max"

        def extremum(a: tuple) -> flint.arb:
            out = parts[0](a)
            for f in parts[1:]:
                out = getattr(out, pick)(f(a))
            return out
        return extremum
    if isinstance(expr, sp.Heaviside):  # the derivative of Min/Max
        f = _build(expr.args[0], index)

        def step(a: tuple) -> flint.arb:
            v = f(a)
            return flint.arb(1) if v > 0 else flint.arb(0) if v < 0 else flint.arb(0.5, 0.5)
        return step
    if isinstance(expr, sp.sign):  # the derivative of Abs
        f = _build(expr.args[0], index)

        def sign(a: tuple) -> flint.arb:
            v = f(a)
            if v > 0:
                return flint.arb(1)
            if v < 0:
                return flint.arb(-1)
            return flint.arb(0, 1)  # [-1, 1]
        return sign
    if isinstance(expr, (sp.exp, sp.log)) or (isinstance(expr, sp.Function) and len(expr.args) == 1):
        name = "exp" if isinstance(expr, sp.exp) else "log" if isinstance(expr, sp.log) else type(expr).__name__
        fn = {"exp": lambda x: x.exp(), "log": lambda x: x.log()}.get(name) or arb_function(name)
        if fn is not None:
            f = _build(expr.args[0], index)
            if name in INCREASING:
                return lambda a: increasing(f(a), fn)
            return lambda a: fn(f(a))
    raise ValueError(f"interval evaluation does not support {type(expr).__name__} in {expr}")
