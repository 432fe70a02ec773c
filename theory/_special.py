"""Special functions that bounds use in stable forms, with one implementation per backend.

sympy has no ``softplus`` or ``exprel``; the bounds need them so that their log forms never
overflow (``log(1 + e^x)`` at ``x = 1000``) and never divide 0 by 0 (``(e^x - 1)/x`` at ``x = 0``).
Each is a ``sympy.Function`` whose numerical meaning is given here for every backend the toolkit
compiles to (:func:`backend_functions`, used by :mod:`._backends`) and for python-flint balls
(:func:`arb_function`, used by :mod:`._intervals`), so the same expression evaluates in numpy, JAX,
mpmath and interval arithmetic.
"""

from __future__ import annotations

from typing import Any, Callable

import mpmath
import numpy as np
import sympy as sp

__all__ = ["Softplus", "Exprel", "LogExprel", "backend_functions", "arb_function"]


class Softplus(sp.Function):
    """softplus(x) = log(1 + e^x), lambdified to ``logaddexp(0, x)`` (no overflow)."""

    def _eval_rewrite_as_log(self, x: sp.Expr, **kwargs: Any) -> sp.Expr:  # pragma: no cover - sympy hook
        return sp.log(1 + sp.exp(x))

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x = self.args[0]
        return 1 / (1 + sp.exp(-x))


class Exprel(sp.Function):
    """exprel(x) = (e^x - 1)/x, continued by 1 at x = 0 (positive and increasing on the real line).

    ``∫_a^b e^{(1-p)u} du = e^{(1-p)a} (b - a) exprel((1-p)(b - a))`` has no 0/0 at ``p = 1``.
    """

    @classmethod
    def eval(cls, x: sp.Expr) -> sp.Expr | None:
        if x.is_zero:
            return sp.Integer(1)
        return None

    def _eval_rewrite_as_exp(self, x: sp.Expr, **kwargs: Any) -> sp.Expr:  # pragma: no cover - sympy hook
        return (sp.exp(x) - 1) / x

    def _eval_is_positive(self) -> bool | None:
        return True if self.args[0].is_real else None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x = self.args[0]
        return (sp.exp(x) * (x - 1) + 1) / x**2


class LogExprel(sp.Function):
    """log(exprel(x)), computed without overflow: ``max(x, 0) + log(-expm1(-|x|)) - log|x|`` (0 at 0)."""

    @classmethod
    def eval(cls, x: sp.Expr) -> sp.Expr | None:
        if x.is_zero:
            return sp.Integer(0)
        return None

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        x = self.args[0]
        return Exprel(x).fdiff() / Exprel(x)


def _mp_softplus(x: Any) -> Any:
    return x + mpmath.log1p(mpmath.exp(-x)) if x > 0 else mpmath.log1p(mpmath.exp(x))


def _mp_exprel(x: Any) -> Any:
    return mpmath.mpf(1) if x == 0 else mpmath.expm1(x) / x


def _mp_logexprel(x: Any) -> Any:
    if x == 0:
        return mpmath.mpf(0)
    a = abs(x)
    return max(x, 0) + mpmath.log(-mpmath.expm1(-a)) - mpmath.log(a)


def _xp_functions(xp: Any) -> dict[str, Callable[..., Any]]:
    def softplus(x: Any) -> Any:
        return xp.logaddexp(0.0, x)

    def exprel(x: Any) -> Any:
        x = xp.asarray(x, dtype=float)
        safe = xp.where(x == 0, 1.0, x)
        small = xp.abs(x) < 1e-8
        return xp.where(small, 1.0 + x / 2, xp.expm1(safe) / safe)

    def logexprel(x: Any) -> Any:
        x = xp.asarray(x, dtype=float)
        a = xp.abs(x)
        safe = xp.where(a == 0, 1.0, a)
        small = a < 1e-8
        return xp.where(small, x / 2, xp.maximum(x, 0.0) + xp.log(-xp.expm1(-safe)) - xp.log(safe))

    return {"Softplus": softplus, "Exprel": exprel, "LogExprel": logexprel,
            "log1p": xp.log1p, "expm1": xp.expm1}


def backend_functions(backend: str) -> dict[str, Callable[..., Any]]:
    """Name -> implementation of the special functions for ``backend`` (``numpy``, ``jax``, ``mpmath``).

    Raises:
      ValueError: an unknown backend.
    """
    if backend == "mpmath":
        return {"Softplus": _mp_softplus, "Exprel": _mp_exprel, "LogExprel": _mp_logexprel}
    if backend == "numpy":
        return _xp_functions(np)
    if backend == "jax":
        import jax.numpy as jnp

        return _xp_functions(jnp)
    raise ValueError(f"backend={backend!r} must be one of 'numpy', 'jax', 'mpmath'")


def _arb_exprel(x: Any) -> Any:
    import flint

    if not x.contains(0):
        return x.expm1() / x
    # exprel is increasing on the real line: the ball's image is [exprel(lower), exprel(upper)]
    lo, hi = x.lower(), x.upper()
    f_lo = flint.arb(1) if lo == 0 else lo.expm1() / lo
    f_hi = flint.arb(1) if hi == 0 else hi.expm1() / hi
    return f_lo.union(f_hi)


def _arb_softplus(x: Any) -> Any:
    import flint

    if x > 0:
        return x + (-x).exp().log1p()
    if x < 0:
        return x.exp().log1p()
    return (flint.arb(1) + x.exp()).log()


def arb_function(name: str) -> Callable[[Any], Any] | None:
    """The python-flint ``arb`` (ball) implementation of special function ``name``, or None.

    Each returned function maps a ball to a ball containing the function's range over it
    (``Exprel`` by monotonicity where the ball contains 0).
    """
    table: dict[str, Callable[[Any], Any]] = {
        "Softplus": _arb_softplus,
        "Exprel": _arb_exprel,
        "LogExprel": lambda x: _arb_exprel(x).log(),
        "log1p": lambda x: x.log1p(),
        "expm1": lambda x: x.expm1(),
    }
    return table.get(name)

