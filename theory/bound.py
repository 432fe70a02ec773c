"""The :class:`Bound` object: a cited sympy expression with validated parameters.

A bound is a product of named factors (so that a breakdown "which term dominates" comes for free),
over parameters with domains. It evaluates

- at any precision with mpmath (:meth:`Bound.evaluate`), never overflowing: values beyond float64
  come back with ``value=None`` and their ``log10``;
- vectorised in log space with numpy or JAX (:meth:`Bound.evaluate_log10`);
- to LaTeX (:meth:`Bound.latex`) and to callables (:meth:`Bound.lambdify`).

Vacuity is a result, not an error: a bound whose condition fails (e.g. ``1 - pi_max - epsilon <= 0``
makes Delta infinite) evaluates to a :class:`BoundValue` with ``vacuous=True`` and the reason.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from fractions import Fraction
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping

import mpmath
import numpy as np
import sympy as sp

from .domains import Param
from .source import Source

__all__ = ["Bound", "BoundValue", "Vacuity", "Constraint", "Reparametrisation", "LogArray"]

DEFAULT_DIGITS = 30


@dataclass(frozen=True)
class Vacuity:
    """The bound is vacuous where ``expr <= 0`` (``expr`` a sympy expression in the parameters)."""

    expr: sp.Expr
    reason: str


@dataclass(frozen=True)
class Constraint:
    """A cross-parameter domain condition: ``expr >= 0`` must hold, else ValueError(message)."""

    expr: sp.Expr
    message: str


@dataclass(frozen=True)
class Reparametrisation:
    """An alternative way to give some parameters, e.g. ``num_classes`` instead of ``pi_max``.

    Attributes:
      inputs: the alternative parameters (validated like any other).
      outputs: target parameter name -> function of the inputs (exact sympy arithmetic) giving it.
      description: how the alternative maps, for humans (``pi_max = 1/num_classes``).
    """

    inputs: tuple[Param, ...]
    outputs: Mapping[str, Callable[..., Any]]
    description: str = ""


@dataclass(frozen=True)
class BoundValue:
    """The result of evaluating a bound at one point.

    Attributes:
      name: the bound's registry name.
      value: the value as a float, or ``None`` when vacuous, outside float64's normal range
        (overflow, subnormal, or underflow to 0.0), or unknown (see ``reason``).
      log10: log10 of the value (given for a non-vacuous positive bound unless its log10 exceeds
        float64 or a factor is unknown), else ``None``.
      vacuous: whether the bound says nothing at this point.
      reason: why it is vacuous, uninformative, beyond float64 even in log space, or unknown (a
        factor that cannot be told from 0 within :data:`MAX_DIGITS` digits), else ``None``.
      uninformative: the bound is finite but weaker than a trivial bound (``reason`` says which).
      log10_exact: log10 as a decimal string at ``digits`` digits (always given for a positive
        value; the only form of log10 when even log10 exceeds float64, e.g. tau = 1e-300).
      factors: factor name -> log10 of that factor (the breakdown; ``None`` where undefined or
        beyond float64).
      factors_exact: factor name -> log10 of that factor as a decimal string at ``digits`` digits
        (``None`` where undefined): the breakdown when a factor's log10 itself exceeds float64.
      source: the citation.
      digits: significant digits used by mpmath.
      mp_value: the mpmath value (full precision), or ``None``.
      params: the parameters after reparametrisation and validation.
    """

    name: str
    value: float | None
    log10: float | None
    vacuous: bool
    reason: str | None
    factors: dict[str, float | None]
    source: Source
    digits: int
    mp_value: Any = None
    uninformative: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    log10_exact: str | None = None
    factors_exact: dict[str, str | None] = field(default_factory=dict)

    def dominant_factor(self) -> str | None:
        """The factor with the largest |log10| (the term that dominates), or None.

        Compared at full precision where a factor's log10 exceeds float64 (``factors_exact``).
        """
        sizes = {}
        for k, v in self.factors.items():
            exact = self.factors_exact.get(k)
            if exact is not None:
                sizes[k] = abs(mpmath.mpf(exact))
            elif v is not None:
                sizes[k] = abs(mpmath.mpf(v))
        return max(sizes, key=lambda k: sizes[k]) if sizes else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: name, value, log10, vacuous, reason, factors, source (+ extras)."""
        return {
            "name": self.name,
            "value": self.value,
            "log10": self.log10,
            "vacuous": self.vacuous,
            "reason": self.reason,
            "uninformative": self.uninformative,
            "factors": self.factors,
            "source": self.source.cite(),
            "digits": self.digits,
            "exact": mpmath.nstr(self.mp_value, self.digits) if self.mp_value is not None else None,
            "log10_exact": self.log10_exact,
            "factors_log10_exact": self.factors_exact,
            "params": {k: (str(v) if isinstance(v, sp.Basic) else (mpmath.nstr(v, self.digits) if isinstance(v, mpmath.mpf) else v))
                       for k, v in self.params.items()},
        }

    def _repr_html_(self) -> str:  # notebook display
        if self.vacuous:
            body = f"<b>vacuous</b>: {self.reason}"
        elif self.log10 is None and self.log10_exact is None:
            body = f"<b>unknown</b>: {self.reason}"
        else:
            log10 = f"{self.log10:.6g}" if self.log10 is not None else self.log10_exact
            shown = f"{self.value:.6g}" if self.value is not None else f"10^{log10}"
            body = f"{shown} (log10 = {log10})"
            if self.uninformative:
                body += f"; <i>uninformative</i>: {self.reason}"
        rows = "".join(f"<tr><td>{k}</td><td>{self.factors_exact.get(k) or '' if v is None else f'{v:.4g}'}</td></tr>"
                       for k, v in self.factors.items())
        return (f"<div><code>{self.name}</code> = {body}<br><small>{self.source.cite()}</small>"
                f"<table><tr><th>factor</th><th>log10</th></tr>{rows}</table></div>")


@dataclass(frozen=True)
class LogArray:
    """Vectorised log-space evaluation: ``log10`` array and the ``vacuous`` mask (same shape).

    Where ``vacuous`` is True, ``log10`` is ``+inf`` for an upper bound (the bound is infinite,
    e.g. Delta with ``1 - pi_max - epsilon <= 0``) and ``-inf`` for a lower bound (it says nothing);
    it is never NaN, and never infinite where ``vacuous`` is False (such points raise instead).

    Attributes:
      log10: float array (numpy float64, or a JAX array in the caller's JAX precision).
      vacuous: bool array of the same shape.
      uninformative: bool array of the same shape where the bound exceeds its trivial bound (the
        optional trivial-bound parameters, e.g. ``m`` for ``alignment.frobenius``, were given);
        ``None`` when they were not.
    """

    log10: Any
    vacuous: Any
    uninformative: Any = None


def _modules(backend: str) -> Any:
    if backend == "mpmath":
        return "mpmath"
    if backend == "jax":
        import jax.numpy as jnp

        # sympy's JaxPrinter (module "jax") prints Piecewise as jnp.select, so the callable is
        # traceable (jit/vmap) and vectorises over arrays; the numpy printer's Python ``if`` is not
        return [{"log1p": jnp.log1p, "expm1": jnp.expm1, "Softplus": lambda x: jnp.logaddexp(0.0, x)}, "jax"]
    return [{"log1p": np.log1p, "expm1": np.expm1, "Softplus": lambda x: np.logaddexp(0.0, x)}, "numpy"]


@functools.lru_cache(maxsize=512)
def _compiled(syms: tuple[sp.Symbol, ...], expr: sp.Expr, backend: str) -> Callable[..., Any]:
    """sympy.lambdify once per (symbols, expression, backend): compiling costs ~ms, evaluating ~us.

    Safe for mpmath: the mpmath printer keeps exact binary Floats and evaluates constants such as
    sqrt(2) at call time, at the caller's working precision (case C05).
    """
    return sp.lambdify(list(syms), expr, modules=_modules(backend))


@functools.lru_cache(maxsize=1024)
def _free_syms(expr: sp.Expr) -> tuple[sp.Symbol, ...]:
    """The free symbols of ``expr`` sorted by name (cached: free_symbols walks the whole tree)."""
    return tuple(sorted(expr.free_symbols, key=str))


GUARD_DIGITS = 10
"""Extra decimal digits of the working precision: ``evaluate(digits=d)`` works at ``d + 10`` digits."""

MAX_DIGITS = 4000
"""Cap on the adaptive working precision (decimal digits) of :func:`reliable_value`: a factor that
cancels beyond it (e.g. ``exp(x) - 1`` with ``x < 1e-3990``) is reported as undetermined (never as
0.0) instead of being computed for minutes."""


def _to_mpf(x: Any) -> Any:
    """``x`` as an mpmath number at the current working precision (exact where it fits).

    Rationals (sympy, ``fractions.Fraction``) and ``decimal.Decimal`` are divided at the working
    precision, never through float64, so an exact input is not rounded before it is evaluated.
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
    value, how, _ = _reliable(expr, values, digits, max_digits)
    return value, how


def _reliable(expr: sp.Expr, values: Mapping[str, Any], digits: int, max_digits: int) -> tuple[Any, str, Any]:
    """:func:`reliable_value` plus the last (unaccepted) estimate, for sign decisions."""
    syms = _free_syms(expr)
    fn = _compiled(syms, expr, "mpmath")
    prec = digits + GUARD_DIGITS
    max_digits = max(max_digits, 4 * prec)  # room for at least three precisions, even at digits >= MAX_DIGITS
    prev = cur = None
    last = "no finite real value"
    while True:
        try:
            with mpmath.workdps(prec):
                cur = fn(*[_to_mpf(values[s.name]) for s in syms])
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
    v, how, estimate = _reliable(expr, values, digits, MAX_DIGITS)
    if v is None and estimate is None:
        raise ValueError(f"{sp.sstr(expr)[:80]} {how}")
    return int(mpmath.sign(v if v is not None else estimate))


_FLOAT64_TINY = 2.2250738585072014e-308


def _shown(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 60 else text[:57] + "..."


def _input_array(p: Param, raw: Any) -> tuple[np.ndarray, Any]:
    """One evaluate_log10 input, validated: (float64 array, object array of the exact values where
    some entry does not fit float64, else None).

    Raises:
      ValueError: bools, complex numbers, strings or other non-numbers; NaN, inf or an entry outside
        ``p``'s domain (naming ``p``, the value and the domain).
    """
    try:
        a = np.asarray(raw)
    except (ValueError, TypeError) as err:
        if "Tracer" in type(err).__name__:  # jax.errors.TracerArrayConversionError: called under jit/vmap
            raise ValueError(f"{p.name} is a traced JAX value: evaluate_log10 validates concrete values, so it cannot "
                             "run under jax.jit/vmap/grad; inside them use bound.lambdify('jax') (natural log of "
                             "the bound, no validation)") from None
        raise ValueError(f"{p.name}={_shown(raw)} is not an array of real numbers ({err}); domain {p.domain_text()}") from None
    kind = a.dtype.kind
    if kind == "b":
        raise ValueError(f"{p.name}={_shown(raw)} must be numbers, not bools; domain {p.domain_text()}")
    if kind == "c":
        raise ValueError(f"{p.name}={_shown(raw)} is not real (complex); domain {p.domain_text()}")
    if kind in "iuf":
        return _check_array(p, a.astype(float)), None
    if kind != "O":
        raise ValueError(f"{p.name}={_shown(raw)} is not a real number (dtype {a.dtype}); domain {p.domain_text()}")
    flat = a.reshape(-1)
    exact = np.empty(flat.shape, dtype=object)
    floats = np.empty(flat.shape)
    beyond = False
    for i, x in enumerate(flat):
        if isinstance(x, (bool, np.bool_)):
            raise ValueError(f"{p.name}={x!r} must be a number, not a bool; domain {p.domain_text()}")
        v = p.validate(x)  # raises naming p for complex, strings, NaN, inf, out of domain
        try:
            fv = float(v)
        except OverflowError:
            fv = math.inf
        if not math.isfinite(fv) or (abs(fv) < _FLOAT64_TINY and v != 0):
            beyond = True  # 10**400, mpf('1e-400'): float64 would round it to inf / 0 / a subnormal
        exact[i], floats[i] = v, fv
    return floats.reshape(a.shape), (exact.reshape(a.shape) if beyond else None)


def _check_array(p: Param, a: np.ndarray) -> np.ndarray:
    """Domain check of a float64 array; raises through ``p.validate`` on the first bad entry."""
    flat = a.reshape(-1)
    bad = ~np.isfinite(flat)
    if not bad.any():
        lo, hi, d = p.domain.lo, p.domain.hi, p.domain
        bad = (flat < lo) | (flat > hi) | ((flat == lo) & (not d.lo_closed)) | ((flat == hi) & (not d.hi_closed))
        if p.integer:
            bad |= flat != np.floor(flat)
    if bad.any():
        p.validate(flat[np.argmax(bad)].item())  # raises with the standard message
    return a


class Bound:
    """A cited bound: a product of named sympy factors over validated parameters.

    Args:
      name: registry name, dotted (``alignment.frobenius``).
      title: one line for humans.
      params: the parameters, in order (each a :class:`Param` with a domain).
      factors: factor name -> sympy expression in the params' symbols; the bound is their product.
      source: a :class:`Source` (paper, arXiv id, theorem, our reading).
      kind: ``"upper"`` or ``"lower"`` (which side of the bounded quantity it is).
      quantity: what is bounded, e.g. ``"||Sigma_CL_T - Sigma_NSCL_T||_F"``.
      vacuity: conditions under which the bound says nothing (:class:`Vacuity`).
      constraints: cross-parameter domain conditions (:class:`Constraint`): violations raise.
      reparametrisations: alternative parameters (:class:`Reparametrisation`).
      log_factors: optional factor name -> sympy expression of the natural log of that factor, for
        factors whose ``expand_log`` form is not numerically stable (e.g. ``exp(x) - 1``).
      trivial: optional ``(expr, optional_params, description)``: a bound that always holds; when
        the optional params are given and this bound exceeds it, the result is "uninformative".

    Raises:
      ValueError: a factor uses a symbol that is not a declared parameter.
    """

    def __init__(
        self,
        name: str,
        title: str,
        params: tuple[Param, ...],
        factors: Mapping[str, sp.Expr],
        source: Source,
        *,
        kind: Literal["upper", "lower"] = "upper",
        quantity: str = "",
        vacuity: tuple[Vacuity, ...] = (),
        constraints: tuple[Constraint, ...] = (),
        reparametrisations: tuple[Reparametrisation, ...] = (),
        log_factors: Mapping[str, sp.Expr] | None = None,
        trivial: tuple[sp.Expr, tuple[Param, ...], str] | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.params = tuple(params)
        self.factors = dict(factors)
        self.source = source
        self.kind = kind
        self.quantity = quantity
        self.vacuity = tuple(vacuity)
        self.constraints = tuple(constraints)
        self.reparametrisations = tuple(reparametrisations)
        self.log_factors = dict(log_factors or {})
        self.trivial = trivial
        declared = {p.symbol for p in self.params}
        for fname, f in self.factors.items():
            extra = f.free_symbols - declared
            if extra:
                raise ValueError(f"factor {fname!r} of {name} uses undeclared symbols {sorted(map(str, extra))}")

    # ------------------------------------------------------------------ structure
    @property
    def expr(self) -> sp.Expr:
        """The bound as one sympy expression (product of the factors)."""
        return sp.Mul(*self.factors.values())

    @property
    def symbols(self) -> dict[str, sp.Symbol]:
        """Parameter name -> sympy symbol."""
        return {p.name: p.symbol for p in self.params}

    def param(self, name: str) -> Param:
        """The :class:`Param` called ``name`` (also among reparametrisation inputs)."""
        for p in self.params:
            if p.name == name:
                return p
        for rp in self.reparametrisations:
            for p in rp.inputs:
                if p.name == name:
                    return p
        raise KeyError(f"{self.name} has no parameter {name!r}")

    def latex(self) -> str:
        """LaTeX of ``quantity <= expr`` (or ``>=`` for a lower bound)."""
        rel = r"\le" if self.kind == "upper" else r"\ge"
        lhs = self.quantity or r"\mathrm{" + self.name.replace("_", r"\_") + "}"
        return f"{lhs} {rel} {sp.latex(self.expr)}"

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    def describe(self) -> dict[str, Any]:
        """JSON-ready description: parameters with domains, alternatives, factors, source."""
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "quantity": self.quantity,
            "params": {p.name: {"domain": p.domain_text(), "description": p.description} for p in self.params},
            "alternatives": [rp.description for rp in self.reparametrisations],
            "factors": {k: str(v) for k, v in self.factors.items()},
            "vacuous_when": [v.reason for v in self.vacuity],
            "latex": self.latex(),
            "source": self.source.to_dict(),
        }

    # ------------------------------------------------------------------ input handling
    def resolve(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Apply reparametrisations, validate every parameter and constraint; return name -> value.

        Raises:
          ValueError: unknown or missing parameter, a parameter given twice (directly and through
            an alternative), out-of-domain value, NaN/inf, or a violated constraint; the message
            names the argument, its value and its domain.
        """
        values = dict(values)
        names = {p.name for p in self.params}
        optional = {p.name: p for p in (self.trivial[1] if self.trivial else ())}
        resolved: dict[str, Any] = {}
        for rp in self.reparametrisations:
            given = [p.name for p in rp.inputs if p.name in values]
            if not given:
                continue
            if len(given) != len(rp.inputs):
                missing = [p.name for p in rp.inputs if p.name not in values]
                raise ValueError(f"{self.name}: {', '.join(given)} needs also {', '.join(missing)} ({rp.description})")
            args = [p.validate(values.pop(p.name)) for p in rp.inputs]
            for target, fn in rp.outputs.items():
                if target in values:
                    raise ValueError(f"{self.name}: give either {target} or {', '.join(given)}, not both")
                resolved[target] = fn(*[sp.Integer(a) if isinstance(a, int) else a for a in args])
        allowed = names | set(optional) | {p.name for rp in self.reparametrisations for p in rp.inputs}
        for key in values:
            if key not in allowed:
                raise ValueError(f"{self.name} has no parameter {key!r}; parameters: {', '.join(sorted(names))}")
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in resolved:
                out[p.name] = p.validate(resolved[p.name])
            elif p.name in values:
                out[p.name] = p.validate(values[p.name])
            else:
                alts = [rp.description for rp in self.reparametrisations if p.name in rp.outputs]
                hint = f" (or {'; '.join(alts)})" if alts else ""
                raise ValueError(f"{self.name}: missing parameter {p.name}, domain {p.domain_text()}{hint}")
        for name, p in optional.items():
            if name in values:
                out[name] = p.validate(values[name])
        for c in self.constraints:
            if reliable_sign(c.expr, out, DEFAULT_DIGITS) < 0:
                shown = ", ".join(f"{s}={out[str(s)]}" for s in sorted(c.expr.free_symbols, key=str))
                raise ValueError(f"{self.name}: {c.message} (got {shown})")
        return out

    def _mp_eval(self, expr: sp.Expr, values: Mapping[str, Any], digits: int) -> Any:
        """Plain mpmath evaluation at ``digits + 10`` digits (no cancellation check)."""
        syms = _free_syms(expr)
        with mpmath.workdps(digits + GUARD_DIGITS):
            fn = _compiled(syms, expr, "mpmath")
            return fn(*[_to_mpf(values[s.name]) for s in syms])

    def _factor_value(self, fname: str, vals: Mapping[str, Any], digits: int) -> tuple[Any, str | None]:
        """One factor to ``digits`` correct digits: :func:`reliable_value`, then, where that cannot tell
        it from 0, ``exp`` of its declared log (``log_factors``, e.g. ``log(expm1(x))``), checked the
        same way at two precisions. Returns ``(mpf, None)`` or ``(None, why)``."""
        v, how = reliable_value(self.factors[fname], vals, digits)
        if v is not None and v != 0:
            return v, None
        if fname in self.log_factors:
            ln, _ = reliable_value(self.log_factors[fname], vals, digits)
            if ln is not None:
                with mpmath.workdps(2 * (digits + GUARD_DIGITS)):
                    return mpmath.exp(ln), None
        if v is not None:  # an exact zero
            return v, None
        return None, f"factor {fname!r} {how} (catastrophic cancellation): its value is unknown"

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, digits: int = DEFAULT_DIGITS, **values: Any) -> BoundValue:
        """Evaluate at one point with mpmath, with ``digits`` correct significant digits.

        Every factor, vacuity condition, constraint and trivial bound is evaluated with
        :func:`reliable_value`: mpmath at ``digits + 10`` and ``2 * (digits + 10)`` digits, accepted
        when the two agree; where they do not (cancellation such as ``exp(x) - 1`` or ``log(1 + x)``
        at small ``x``), the precision doubles up to :data:`MAX_DIGITS` digits on the exact inputs,
        then the factor's declared ``log_factors`` entry is tried the same way. Ordinary inputs take the fast path
        (about 1 ms per call).

        Args:
          digits: significant digits (>= 5) that the reported value has.
          **values: the parameters (or their alternatives), as Python/numpy numbers, sympy
            Rationals, ``fractions.Fraction`` and ``decimal.Decimal`` (all kept exact) or mpmath
            numbers (kept at full precision).

        Returns:
          :class:`BoundValue`. ``value`` is ``None`` when the bound does not fit a float64 (overflow,
          or underflow to a subnormal or to 0.0); ``log10`` is then still given. When a factor
          cannot be told from 0 even at :data:`MAX_DIGITS` digits, ``value``, ``log10`` and
          ``mp_value`` are ``None`` and ``reason`` names the factor (never a silent 0.0).

        Raises:
          ValueError: see :meth:`resolve`; ``digits < 5``.
        """
        if not isinstance(digits, int) or isinstance(digits, bool) or digits < 5:
            raise ValueError(f"digits={digits!r} is outside its domain: integers in [5, inf)")
        vals = self.resolve(values)
        for v in self.vacuity:
            if reliable_sign(v.expr, vals, digits) <= 0:
                return BoundValue(self.name, None, None, True, v.reason, {k: None for k in self.factors},
                                  self.source, digits, None, False, vals)
        factor_log10: dict[str, float | None] = {}
        factor_exact: dict[str, str | None] = {}
        unknown: list[str] = []
        with mpmath.workdps(digits + GUARD_DIGITS):
            total = mpmath.mpf(1)
            for fname in self.factors:
                fv, why = self._factor_value(fname, vals, digits)
                if fv is None:
                    unknown.append(why)
                    factor_log10[fname], factor_exact[fname] = None, None
                    continue
                total *= fv
                flog = mpmath.log10(fv) if fv > 0 else None
                factor_log10[fname] = float(flog) if flog is not None and abs(flog) < mpmath.mpf("1e308") else None
                factor_exact[fname] = mpmath.nstr(flog, digits) if flog is not None else None
            if unknown:
                return BoundValue(self.name, None, None, False, "; ".join(unknown), factor_log10, self.source,
                                  digits, None, False, vals, None, factor_exact)
            value_mp = +total
            log10_mp = mpmath.log10(value_mp) if value_mp > 0 else None
            log10_exact = mpmath.nstr(log10_mp, digits) if log10_mp is not None else None
            log10 = float(log10_mp) if log10_mp is not None and abs(log10_mp) < mpmath.mpf("1e308") else None
            value = float(value_mp) if abs(value_mp) < mpmath.mpf("1.7e308") else None
            if value is not None and value_mp != 0 and abs(value) < 2.3e-308:
                value = None  # subnormal, or underflow to 0.0 of a nonzero value: keep log10 only
            uninformative, reason = False, None
            if self.trivial is not None and all(p.name in vals for p in self.trivial[1]):
                triv, _ = reliable_value(self.trivial[0], vals, digits)
                if triv is not None:
                    worse = value_mp >= triv if self.kind == "upper" else value_mp <= triv
                    if worse:
                        uninformative = True
                        reason = f"uninformative: exceeds the trivial bound {self.trivial[2]} = {mpmath.nstr(triv, 8)}"
            if log10 is None and log10_exact is not None:
                reason = (f"beyond float64 even in log space: log10 = {mpmath.nstr(log10_mp, 8)}"
                          + (f"; {reason}" if reason else ""))
        return BoundValue(self.name, value, log10, False, reason, factor_log10, self.source, digits,
                          value_mp, uninformative, vals, log10_exact, factor_exact)

    def log_expressions(self) -> dict[str, sp.Expr]:
        """Factor name -> sympy expression of its natural log (expanded for stability)."""
        out = {}
        for fname, f in self.factors.items():
            if fname in self.log_factors:
                out[fname] = self.log_factors[fname]
            else:
                out[fname] = sp.expand_log(sp.log(f), force=True)
        return out

    def lambdify(self, backend: Literal["numpy", "jax", "mpmath"] = "numpy", *, log: bool | None = None) -> Callable[..., Any]:
        """Compile the bound to a callable of the parameters (in ``self.params`` order).

        Args:
          backend: ``"mpmath"`` gives the bound itself at the caller's ``mpmath.mp.dps`` with
            constants kept at full precision (case C05); ``"numpy"``/``"jax"`` give, by default,
            the natural log of the bound (float backends overflow otherwise, case C01).
          log: override the default (True for float backends, False for mpmath).

        Returns:
          A callable of the parameters in ``self.params`` order, elementwise over broadcastable
          arrays for numpy/JAX. The JAX callable is printed by sympy's JaxPrinter (``Piecewise`` ->
          ``jnp.select``), so it traces under ``jax.jit`` and ``jax.vmap``.

        Raises:
          ValueError: an unknown ``backend``.

        No validation happens inside the callable: use :meth:`evaluate` or
        :meth:`evaluate_log10` for checked evaluation.
        """
        if backend not in ("numpy", "jax", "mpmath"):
            raise ValueError(f"backend={backend!r} must be one of 'numpy', 'jax', 'mpmath'")
        log = (backend != "mpmath") if log is None else log
        syms = [p.symbol for p in self.params]
        expr = sp.Add(*self.log_expressions().values()) if log else self.expr
        return _compiled(tuple(syms), expr, backend)

    def evaluate_log10(self, backend: Literal["numpy", "jax"] = "numpy", **arrays: Any) -> LogArray:
        """Vectorised evaluation in log space over broadcastable arrays of parameters.

        Inputs are validated like :meth:`evaluate`: bools, complex numbers and strings are refused,
        every entry is checked against its domain, and shapes must broadcast. Entries that do not
        fit a float64 (``steps=10**400``, ``tau=mpmath.mpf("1e-400")``) are accepted: the whole
        call is then evaluated point by point with :meth:`evaluate` (mpmath; slower, exact).

        Args:
          backend: ``"numpy"`` (float64) or ``"jax"`` (the caller's JAX precision: float32 unless
            x64 is enabled).
          **arrays: each parameter (or its alternative, e.g. ``num_classes`` for ``pi_max``, or an
            optional trivial-bound parameter such as ``m``) as a scalar or array of real numbers
            (Python/numpy numbers, or exact ones: ints of any size, sympy Rationals, Fraction,
            Decimal, mpf); all broadcast together to one shape.

        Returns:
          :class:`LogArray` with ``log10`` (float array of the broadcast shape), ``vacuous`` (bool,
          same shape) and, when the trivial bound's optional parameters are given, ``uninformative``
          (bool, same shape). Never NaN: vacuous entries hold ``+inf`` (upper bound) or ``-inf``
          (lower bound), and no other entry is infinite.

        Raises:
          ValueError: an unknown or missing parameter; a bool, complex, string or non-numeric
            entry; any entry outside its domain, NaN or inf (naming the parameter, the offending
            value and the domain); shapes that do not broadcast (naming each parameter's shape); a
            violated constraint; a non-vacuous entry whose log10 is beyond the backend's float
            range (float64, or float32 for JAX without x64), naming the index: use
            :meth:`evaluate` there.
        """
        if backend not in ("numpy", "jax"):
            raise ValueError(f"backend={backend!r} must be one of 'numpy', 'jax'")
        conv, shape, exact = self._convert_arrays(arrays)
        if exact:
            return self._log10_pointwise(conv, shape, backend)
        vals, optional = self._resolve_arrays({k: f for k, (f, _) in conv.items()})
        xp = np
        if backend == "jax":
            import jax.numpy as jnp

            xp = jnp
        syms = tuple(p.symbol for p in self.params)
        args = [xp.asarray(vals[p.name]) for p in self.params]
        with np.errstate(all="ignore"):
            ln = self.lambdify(backend, log=True)(*args)
            vac = xp.zeros(shape, dtype=bool)
            for v in self.vacuity:
                vac = vac | (xp.asarray(_compiled(syms, v.expr, backend)(*args)) <= 0)
            ln = xp.broadcast_to(xp.asarray(ln, dtype=float), shape)
            fill = xp.inf if self.kind == "upper" else -xp.inf
            log10 = xp.where(vac, fill, ln / math.log(10.0))
            unin = None
            if optional is not None:
                opt = self.trivial[1]
                tsyms = syms + tuple(p.symbol for p in opt)
                triv = _compiled(tsyms, sp.expand_log(sp.log(self.trivial[0]), force=True), backend)(
                    *args, *[xp.asarray(optional[p.name]) for p in opt])
                triv = xp.broadcast_to(xp.asarray(triv, dtype=float), shape)
                unin = ~vac & ((ln >= triv) if self.kind == "upper" else (ln <= triv))
        bad = ~np.isfinite(np.asarray(log10)) & ~np.asarray(vac)
        if np.any(bad):
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            hint = ""
            dtype = np.asarray(log10).dtype
            if backend == "jax" and dtype != np.float64:
                hint = " (JAX x64 is off; the numpy backend works in float64)"
            raise ValueError(f"{self.name}: log10 of the bound is beyond {dtype} (or lost) at index {idx}"
                             f"{hint}; use evaluate(), which keeps it exactly with mpmath")
        return LogArray(log10, vac, unin)

    def _all_params(self) -> dict[str, Param]:
        """Every accepted keyword: parameters, reparametrisation inputs, optional trivial-bound params."""
        out = {p.name: p for p in self.params}
        for rp in self.reparametrisations:
            out.update({p.name: p for p in rp.inputs})
        if self.trivial is not None:
            out.update({p.name: p for p in self.trivial[1]})
        return out

    def _convert_arrays(self, arrays: Mapping[str, Any]) -> tuple[dict[str, tuple[np.ndarray, Any]], tuple[int, ...], bool]:
        """Validate each input array: name -> (float64 array, object array of exact values or None),
        the broadcast shape, and whether some entry does not fit float64."""
        known = self._all_params()
        for key in arrays:
            if key not in known:
                raise ValueError(f"{self.name} has no parameter {key!r}; parameters: "
                                 f"{', '.join(sorted(p.name for p in self.params))}")
        conv = {k: _input_array(known[k], v) for k, v in arrays.items()}
        try:
            shape = np.broadcast_shapes(*[f.shape for f, _ in conv.values()])
        except ValueError:
            shown = ", ".join(f"{k} {f.shape}" for k, (f, _) in conv.items())
            raise ValueError(f"{self.name}: the parameters' shapes do not broadcast together: {shown}") from None
        return conv, shape, any(e is not None for _, e in conv.values())

    def _log10_pointwise(self, conv: Mapping[str, tuple[np.ndarray, Any]], shape: tuple[int, ...],
                         backend: str) -> LogArray:
        """evaluate_log10 with :meth:`evaluate` at every point (inputs beyond float64)."""
        cols = {k: np.broadcast_to(e if e is not None else f.astype(object), shape) for k, (f, e) in conv.items()}
        log10 = np.empty(shape)
        vac = np.zeros(shape, dtype=bool)
        optional = self.trivial is not None and all(p.name in conv for p in self.trivial[1])
        unin = np.zeros(shape, dtype=bool) if optional else None
        for idx in np.ndindex(*shape):
            res = self.evaluate(digits=17, **{k: c[idx] for k, c in cols.items()})
            if res.vacuous:
                vac[idx], log10[idx] = True, (math.inf if self.kind == "upper" else -math.inf)
                continue
            if res.log10 is None:
                raise ValueError(f"{self.name}: log10 of the bound is beyond float64 (or unknown) at index {idx}: "
                                 f"{res.reason}; use evaluate()")
            log10[idx] = res.log10
            if unin is not None:
                unin[idx] = res.uninformative
        if backend == "jax":
            import jax.numpy as jnp

            return LogArray(jnp.asarray(log10), jnp.asarray(vac), None if unin is None else jnp.asarray(unin))
        return LogArray(log10, vac, unin)

    def _resolve_arrays(self, arrays: Mapping[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
        """Float arrays (validated) -> (parameter name -> array, optional trivial params or None)."""
        arrays = dict(arrays)
        out: dict[str, np.ndarray] = {}
        for rp in self.reparametrisations:
            given = [p.name for p in rp.inputs if p.name in arrays]
            if not given:
                continue
            if len(given) != len(rp.inputs):
                raise ValueError(f"{self.name}: {', '.join(given)} needs all of {[p.name for p in rp.inputs]}")
            ins = [arrays.pop(p.name) for p in rp.inputs]
            for target, fn in rp.outputs.items():
                if target in arrays:
                    raise ValueError(f"{self.name}: give either {target} or {', '.join(given)}, not both")
                out[target] = _check_array(self.param(target), np.asarray(fn(*ins), dtype=float))
        for p in self.params:
            if p.name in arrays:
                out[p.name] = arrays.pop(p.name)
            elif p.name not in out:
                alts = [rp.description for rp in self.reparametrisations if p.name in rp.outputs]
                hint = f" (or {'; '.join(alts)})" if alts else ""
                raise ValueError(f"{self.name}: missing parameter {p.name}, domain {p.domain_text()}{hint}")
        optional = None
        if self.trivial is not None and any(p.name in arrays for p in self.trivial[1]):
            missing = [p.name for p in self.trivial[1] if p.name not in arrays]
            if missing:
                raise ValueError(f"{self.name}: the trivial bound needs also {', '.join(missing)}")
            optional = {p.name: arrays.pop(p.name) for p in self.trivial[1]}
        syms = tuple(p.symbol for p in self.params)
        for c in self.constraints:
            with np.errstate(all="ignore"):
                g = np.asarray(_compiled(syms, c.expr, "numpy")(*[out[p.name] for p in self.params]))
            if np.any(g < 0):
                idx = tuple(int(i) for i in np.argwhere(np.broadcast_to(g < 0, np.broadcast(*out.values(), g).shape))[0])
                raise ValueError(f"{self.name}: {c.message} (first at index {idx})")
        return out, optional

    def __repr__(self) -> str:
        return f"Bound({self.name!r}: {self.title})"
