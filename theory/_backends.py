"""Compiling sympy expressions to callables: one lambdify per (symbols, expression, backend).

The backends are ``numpy`` (float64), ``jax`` (the caller's JAX precision; sympy's JaxPrinter turns
``Piecewise`` into ``jnp.select``, so the callables trace under ``jax.jit``/``jax.vmap``) and
``mpmath`` (the caller's ``mpmath.mp.dps``; constants such as ``sqrt(2)`` are evaluated at call
time at that precision, case C05 of docs/reference-values.md). The special functions of :mod:`._special` and
sympy's ``log1p``/``expm1`` are mapped for every backend.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import sympy as sp

from ._special import backend_functions

__all__ = ["BACKENDS", "lambdify_modules", "compiled", "free_syms"]

BACKENDS = ("numpy", "jax", "mpmath")


def lambdify_modules(backend: str) -> list[Any]:
    """The ``modules`` argument of ``sympy.lambdify`` for ``backend``.

    Raises:
      ValueError: an unknown backend.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} must be one of {', '.join(map(repr, BACKENDS))}")
    return [backend_functions(backend), backend]


@functools.lru_cache(maxsize=512)
def compiled(syms: tuple[sp.Symbol, ...], expr: sp.Expr, backend: str) -> Callable[..., Any]:
    """``sympy.lambdify(syms, expr)`` for ``backend``, once per arguments (cached).

    Compiling costs milliseconds, evaluating microseconds. The mpmath printer keeps exact binary
    Floats and evaluates constants at the caller's working precision (case C05).

    Raises:
      ValueError: an unknown backend.
    """
    return sp.lambdify(list(syms), expr, modules=lambdify_modules(backend))


@functools.lru_cache(maxsize=1024)
def free_syms(expr: sp.Expr) -> tuple[sp.Symbol, ...]:
    """The free symbols of ``expr`` sorted by name (cached: ``free_symbols`` walks the whole tree)."""
    return tuple(sorted(expr.free_symbols, key=str))
