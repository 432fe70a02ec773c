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
      value: the value as a float, or ``None`` when vacuous or outside float64's range.
      log10: log10 of the value (always given for a non-vacuous positive bound), else ``None``.
      vacuous: whether the bound says nothing at this point.
      reason: why it is vacuous (or uninformative), else ``None``.
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
    it is never NaN.
    """

    log10: Any
    vacuous: Any


def _modules(backend: str) -> Any:
    if backend == "mpmath":
        return "mpmath"
    if backend == "jax":
        import jax.numpy as jnp

        return [{"log1p": jnp.log1p, "expm1": jnp.expm1, "Softplus": lambda x: jnp.logaddexp(0.0, x)}, jnp]
    return [{"log1p": np.log1p, "expm1": np.expm1, "Softplus": lambda x: np.logaddexp(0.0, x)}, "numpy"]


@functools.lru_cache(maxsize=512)
def _compiled(syms: tuple[sp.Symbol, ...], expr: sp.Expr, backend: str) -> Callable[..., Any]:
    """sympy.lambdify once per (symbols, expression, backend): compiling costs ~ms, evaluating ~us.

    Safe for mpmath: the mpmath printer keeps exact binary Floats and evaluates constants such as
    sqrt(2) at call time, at the caller's working precision (case C05).
    """
    return sp.lambdify(list(syms), expr, modules=_modules(backend))


def _to_mpf(x: Any) -> Any:
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, sp.Rational):
        return mpmath.mpf(int(x.p)) / mpmath.mpf(int(x.q))
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.N(x, mpmath.mp.dps + 5))
    if isinstance(x, (int, np.integer)):
        return mpmath.mpf(int(x))
    return mpmath.mpf(float(x))


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
            val = self._mp_eval(c.expr, out, DEFAULT_DIGITS)
            if val < 0:
                shown = ", ".join(f"{s}={out[str(s)]}" for s in sorted(c.expr.free_symbols, key=str))
                raise ValueError(f"{self.name}: {c.message} (got {shown})")
        return out

    def _mp_eval(self, expr: sp.Expr, values: Mapping[str, Any], digits: int) -> Any:
        syms = sorted(expr.free_symbols, key=str)
        with mpmath.workdps(digits + 10):
            fn = _compiled(tuple(syms), expr, "mpmath")
            return fn(*[_to_mpf(values[str(s)]) for s in syms])

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, digits: int = DEFAULT_DIGITS, **values: Any) -> BoundValue:
        """Evaluate at one point with mpmath at ``digits`` significant digits.

        Args:
          digits: significant digits (>= 5); the working precision is ``digits + 10``.
          **values: the parameters (or their alternatives), as Python/numpy numbers, sympy
            Rationals (kept exact) or mpmath numbers (kept at full precision).

        Returns:
          :class:`BoundValue`. ``value`` is ``None`` when the bound does not fit a float64;
          ``log10`` is always given for a non-vacuous positive bound.

        Raises:
          ValueError: see :meth:`resolve`; ``digits < 5``.
        """
        if not isinstance(digits, int) or digits < 5:
            raise ValueError(f"digits={digits!r} is outside its domain: integers in [5, inf)")
        vals = self.resolve(values)
        for v in self.vacuity:
            if self._mp_eval(v.expr, vals, digits) <= 0:
                return BoundValue(self.name, None, None, True, v.reason, {k: None for k in self.factors},
                                  self.source, digits, None, False, vals)
        factor_log10: dict[str, float | None] = {}
        factor_exact: dict[str, str | None] = {}
        with mpmath.workdps(digits + 10):
            total = mpmath.mpf(1)
            for fname, f in self.factors.items():
                fv = self._mp_eval(f, vals, digits)
                total *= fv
                flog = mpmath.log10(fv) if fv > 0 else None
                factor_log10[fname] = float(flog) if flog is not None and abs(flog) < mpmath.mpf("1e308") else None
                factor_exact[fname] = mpmath.nstr(flog, digits) if flog is not None else None
            value_mp = +total
            log10_mp = mpmath.log10(value_mp) if value_mp > 0 else None
            log10_exact = mpmath.nstr(log10_mp, digits) if log10_mp is not None else None
            log10 = float(log10_mp) if log10_mp is not None and abs(log10_mp) < mpmath.mpf("1e308") else None
            value = float(value_mp) if abs(value_mp) < mpmath.mpf("1.7e308") else None
            if value is not None and value != 0 and abs(value) < 2.3e-308:
                value = None  # subnormal / underflow: keep log10 only
            uninformative, reason = False, None
            if self.trivial is not None and all(p.name in vals for p in self.trivial[1]):
                triv = self._mp_eval(self.trivial[0], vals, digits)
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

        Args:
          backend: ``"numpy"`` (float64) or ``"jax"`` (the caller's JAX precision).
          **arrays: each parameter (or its alternative) as a scalar or array; all broadcast together.

        Returns:
          :class:`LogArray` with ``log10`` (float array, broadcast shape) and ``vacuous`` (bool).
          Never NaN: vacuous entries hold ``+inf`` (upper bound) or ``-inf`` (lower bound).

        Raises:
          ValueError: any entry outside its domain, NaN or inf (naming the parameter and the first
            offending value), or a violated constraint.
        """
        vals = self._resolve_arrays(arrays)
        xp = np
        if backend == "jax":
            import jax.numpy as jnp

            xp = jnp
        fn = self.lambdify(backend, log=True)
        args = [xp.asarray(vals[p.name]) for p in self.params]
        with np.errstate(all="ignore"):
            ln = fn(*args)
            vac = xp.zeros(xp.broadcast_shapes(*[xp.shape(a) for a in args]) if args else (), dtype=bool)
            for v in self.vacuity:
                syms = [p.symbol for p in self.params]
                g = _compiled(tuple(syms), v.expr, backend)
                vac = vac | (xp.asarray(g(*args)) <= 0)
            ln = xp.broadcast_to(xp.asarray(ln, dtype=float), vac.shape)
            fill = xp.inf if self.kind == "upper" else -xp.inf
            log10 = xp.where(vac, fill, ln / math.log(10.0))
        if backend == "numpy":
            bad = ~np.isfinite(log10) & ~np.asarray(vac)
            if np.any(bad):
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                raise ValueError(f"{self.name}: log10 of the bound is beyond float64 (or lost) at index {idx}; "
                                 "use evaluate(), which keeps it exactly with mpmath")
        return LogArray(log10, vac)

    def _resolve_arrays(self, arrays: Mapping[str, Any]) -> dict[str, np.ndarray]:
        arrays = {k: np.asarray(v) for k, v in arrays.items()}
        out: dict[str, np.ndarray] = {}
        for rp in self.reparametrisations:
            given = [p.name for p in rp.inputs if p.name in arrays]
            if not given:
                continue
            if len(given) != len(rp.inputs):
                raise ValueError(f"{self.name}: {', '.join(given)} needs all of {[p.name for p in rp.inputs]}")
            ins = [self._check_array(p, arrays.pop(p.name)) for p in rp.inputs]
            for target, fn in rp.outputs.items():
                if target in arrays:
                    raise ValueError(f"{self.name}: give either {target} or {', '.join(given)}, not both")
                out[target] = np.asarray(fn(*[a.astype(float) for a in ins]), dtype=float)
        for p in self.params:
            if p.name in out:
                out[p.name] = self._check_array(p, out[p.name])
            elif p.name in arrays:
                out[p.name] = self._check_array(p, arrays.pop(p.name))
            else:
                raise ValueError(f"{self.name}: missing parameter {p.name}, domain {p.domain_text()}")
        if arrays:
            raise ValueError(f"{self.name} has no parameter {sorted(arrays)[0]!r}")
        for c in self.constraints:
            syms = [p.symbol for p in self.params]
            g = np.asarray(_compiled(tuple(syms), c.expr, "numpy")(*[out[p.name] for p in self.params]))
            if np.any(g < 0):
                raise ValueError(f"{self.name}: {c.message}")
        return out

    @staticmethod
    def _check_array(p: Param, a: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=float)
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

    def __repr__(self) -> str:
        return f"Bound({self.name!r}: {self.title})"
