"""The :class:`Bound` object: a cited sympy expression with validated parameters.

A bound is a product of named factors (so that a breakdown "which term dominates" comes for free),
over parameters with domains. It evaluates

- at any precision with mpmath (:meth:`Bound.evaluate`), never overflowing: values beyond float64
  come back with ``value=None`` and their ``log10``;
- vectorised in log space with numpy or JAX (:meth:`Bound.evaluate_log10`);
- to LaTeX (:meth:`Bound.latex`) and to callables (:meth:`Bound.lambdify`);
- backwards: :meth:`Bound.solve` gives the range of one parameter over which the bound is
  non-vacuous and informative, with endpoints certified by interval arithmetic.

Vacuity is a result, not an error: a bound whose condition fails (e.g. ``1 - pi_max - epsilon <= 0``
makes Delta infinite) evaluates to a :class:`BoundValue` with ``vacuous=True`` and the reason.

This module holds the class; its parts live in modules of their own:
declarations (:mod:`._bound_spec`), value objects (:mod:`._bound_value`), precision
(:mod:`._reliable`), compilation (:mod:`._backends`), vectorised evaluation (:mod:`._bound_arrays`),
point evaluation (:mod:`._bound_point`) and solving (:mod:`._solve`).
"""

from __future__ import annotations

from typing import Any, Callable, Literal, Mapping

import sympy as sp

from ._backends import compiled
from ._bound_arrays import evaluate_log10 as _evaluate_log10
from ._bound_spec import (AcceptedParam, Caveat, Constraint, Reparametrisation, Vacuity, accepted_params,
                         param_text, parameter_lines, unknown_parameter_message)
from ._bound_value import INFORMATIVENESS, BoundValue, LogArray
from ._domains import Param
from ._bound_point import EVALUATE_MAX_DIGITS, evaluate_point  # noqa: F401 - EVALUATE_MAX_DIGITS: its old path
from ._reliable import DEFAULT_DIGITS, MAX_DIGITS, reliable_sign
from ._source import Source

__all__ = ["Bound"]

KINDS = ("upper", "lower", "estimate")


class Bound:
    """A cited bound: a product of named sympy factors over validated parameters.

    Args:
      name: registry name, dotted (``alignment.frobenius``).
      title: one line for humans.
      params: the parameters, in order (each a :class:`Param` with a domain).
      factors: factor name -> sympy expression in the params' symbols; the bound is their product.
      source: a :class:`Source` (paper, arXiv id, theorem, our reading).
      kind: ``"upper"`` or ``"lower"`` (which side of the bounded quantity it is), or
        ``"estimate"`` for an asymptotic approximation (the Eyring–Kramers time): no side, no
        trivial bound, and :class:`Caveat` notes where it leaves its regime.
      quantity: what is bounded, e.g. ``"||Sigma_CL_T - Sigma_NSCL_T||_F"``.
      vacuity: conditions under which the bound says nothing (:class:`Vacuity`).
      constraints: cross-parameter domain conditions (:class:`Constraint`): violations raise.
      reparametrisations: alternative parameters (:class:`Reparametrisation`).
      log_factors: optional factor name -> sympy expression of the natural log of that factor, for
        factors whose ``expand_log`` form is not numerically stable (e.g. ``exp(x) - 1``).
      trivial: optional ``(expr, optional_params, description)``: a bound that always holds (in the
        parameters and ``optional_params``). When every optional parameter is given, a bound no
        better than it is "uninformative"; when one is missing, informativeness is "not judged" and
        the result names it. ``optional_params`` may be empty (a probability's trivial bound 1).
      caveats: for estimates, where the value is outside its regime (:class:`Caveat`).

    Raises:
      ValueError: a factor uses a symbol that is not a declared parameter, or ``kind`` is unknown.
    """

    def __init__(
        self,
        name: str,
        title: str,
        params: tuple[Param, ...],
        factors: Mapping[str, sp.Expr],
        source: Source,
        *,
        kind: Literal["upper", "lower", "estimate"] = "upper",
        quantity: str = "",
        vacuity: tuple[Vacuity, ...] = (),
        constraints: tuple[Constraint, ...] = (),
        reparametrisations: tuple[Reparametrisation, ...] = (),
        log_factors: Mapping[str, sp.Expr] | None = None,
        trivial: tuple[sp.Expr, tuple[Param, ...], str] | None = None,
        caveats: tuple[Caveat, ...] = (),
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind={kind!r} must be one of {KINDS}")
        if kind == "estimate" and trivial is not None:
            raise ValueError(f"{name}: an estimate has no trivial bound")
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
        self.caveats = tuple(caveats)
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
        """The :class:`Param` called ``name`` (also among alternatives and optional trivial-bound ones).

        Raises:
          KeyError: no such parameter (the message lists every accepted one).
        """
        for a in accepted_params(self):
            if a.param.name == name:
                return a.param
        raise KeyError(unknown_parameter_message(self, name))

    def accepted(self) -> list[AcceptedParam]:
        """Every keyword this bound accepts, with its role (required, alternative, optional)."""
        return accepted_params(self)

    def parameter_help(self) -> list[str]:
        """One line per accepted keyword: name, domain, meaning, units, role."""
        return parameter_lines(self)

    def latex(self) -> str:
        """LaTeX of ``quantity <= expr`` (``>=`` for a lower bound, ``\\approx`` for an estimate)."""
        rel = {"upper": r"\le", "lower": r"\ge", "estimate": r"\approx"}[self.kind]
        lhs = self.quantity or r"\mathrm{" + self.name.replace("_", r"\_") + "}"
        return f"{lhs} {rel} {sp.latex(self.expr)}"

    def _repr_latex_(self) -> str:
        return f"${self.latex()}$"

    def describe(self) -> dict[str, Any]:
        """JSON-ready description: every accepted parameter with domain and meaning, factors, source."""
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "quantity": self.quantity,
            "params": {p.name: {"domain": p.domain_text(), "description": p.description, "units": p.units}
                       for p in self.params},
            "alternatives": [rp.description for rp in self.reparametrisations],
            "accepts": [{"name": a.param.name, "role": a.role, "domain": a.param.domain_text(),
                         "description": a.param.description, "units": a.param.units, "note": a.note}
                        for a in accepted_params(self)],
            "trivial": None if self.trivial is None else {"bound": self.trivial[2], "needs": [p.name for p in self.trivial[1]]},
            "factors": {k: str(v) for k, v in self.factors.items()},
            "vacuous_when": [v.reason for v in self.vacuity],
            "caveats": [c.note for c in self.caveats],
            "latex": self.latex(),
            "source": self.source.to_dict(),
        }

    # ------------------------------------------------------------------ input handling
    def resolve(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Apply reparametrisations, validate every parameter and constraint; return name -> value.

        Raises:
          ValueError: unknown or missing parameter (an unknown one is answered with every accepted
            parameter, its domain and meaning), a parameter given twice (directly and through an
            alternative), out-of-domain value, NaN/inf, or a violated constraint; the message
            names the argument, its value and its domain.
        """
        values = dict(values)
        names = {p.name for p in self.params}
        optional = {p.name: p for p in (self.trivial[1] if self.trivial else ())}
        resolved: dict[str, Any] = {}
        allowed = names | set(optional) | {p.name for rp in self.reparametrisations for p in rp.inputs}
        for key in values:
            if key not in allowed:
                raise ValueError(unknown_parameter_message(self, key))
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
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in resolved:
                out[p.name] = p.validate(resolved[p.name])
            elif p.name in values:
                out[p.name] = p.validate(values[p.name])
            else:
                alts = [rp.description for rp in self.reparametrisations if p.name in rp.outputs]
                hint = f" (or {'; '.join(alts)})" if alts else ""
                raise ValueError(f"{self.name}: missing parameter {param_text(p)}{hint}")
        for name, p in optional.items():
            if name in values:
                out[name] = p.validate(values[name])
        for c in self.constraints:
            if reliable_sign(c.expr, out, DEFAULT_DIGITS) < 0:
                shown = ", ".join(f"{s}={out[str(s)]}" for s in sorted(c.expr.free_symbols, key=str))
                raise ValueError(f"{self.name}: {c.message} (got {shown})")
        return out

    def judge_hint(self, missing: list[str]) -> str:
        """How to supply the trivial bound's missing parameters (one sentence)."""
        parts = "; ".join(param_text(self.param(n)) for n in missing)
        return (f"informativeness not judged: the trivial bound {self.trivial[2]} needs {', '.join(missing)} "
                f"({parts}); give {' '.join(f'{n}=<value>' for n in missing)} to judge it")

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, digits: int = DEFAULT_DIGITS, **values: Any) -> BoundValue:
        """Evaluate at one point with mpmath, with ``digits`` correct significant digits.

        Every factor, vacuity condition, constraint and trivial bound is evaluated with
        :func:`reliable_value`: mpmath at ``digits + 10`` and ``2 * (digits + 10)`` digits, accepted
        when the two agree; where they do not (cancellation such as ``exp(x) - 1`` or ``log(1 + x)``
        at small ``x``), the precision doubles up to :data:`MAX_DIGITS` digits on the exact inputs,
        then the factor's declared ``log_factors`` entry is tried the same way. Ordinary inputs take
        the fast path (about 1 ms per call).

        Args:
          digits: significant digits (in [5, :data:`EVALUATE_MAX_DIGITS`]) that the reported value has.
          **values: the parameters (or their alternatives, or the trivial bound's optional
            parameters), as Python/numpy numbers, sympy Rationals, ``fractions.Fraction`` and
            ``decimal.Decimal`` (all kept exact) or mpmath numbers (kept at full precision).

        Returns:
          :class:`BoundValue`. ``value`` is ``None`` when the bound does not fit a float64 (overflow,
          or underflow to a subnormal or to 0.0); ``log10`` is then still given. When a factor
          cannot be told from 0 even at :data:`MAX_DIGITS` digits, ``value``, ``log10`` and
          ``mp_value`` are ``None`` and ``reason`` names the factor (never a silent 0.0). When the
          bound has a trivial bound whose parameters were not all given, ``uninformative`` is
          ``None`` and ``informativeness_note`` says which to give.

        Raises:
          ValueError: see :meth:`resolve`; ``digits`` outside [5, :data:`EVALUATE_MAX_DIGITS`].
        """
        return evaluate_point(self, digits, values)

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
        return compiled(tuple(syms), expr, backend)

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
          same shape) and, when informativeness can be judged, ``uninformative`` (bool, same shape;
          else ``None`` with ``judge_needs`` naming the missing trivial-bound parameters). Never
          NaN: vacuous entries hold ``+inf`` (upper bound) or ``-inf`` (lower bound, estimate), and
          no other entry is infinite.

        Raises:
          ValueError: an unknown or missing parameter; a bool, complex, string or non-numeric
            entry; any entry outside its domain, NaN or inf (naming the parameter, the offending
            value and the domain); shapes that do not broadcast (naming each parameter's shape); a
            violated constraint; a non-vacuous entry whose log10 is beyond the backend's float
            range (float64, or float32 for JAX without x64), naming the index: use
            :meth:`evaluate` there.
        """
        return _evaluate_log10(self, backend, arrays)

    def solve(self, param: str, *, digits: int = 15, max_boxes: int = 4000, window: tuple[Any, Any] | None = None,
              **values: Any) -> Any:
        """The range of ``param`` over which the bound is non-vacuous and informative, certified.

        See :func:`contrastive_bounds.theory.solve` (arguments, result, what is certified).
        """
        from ._solve import solve

        return solve(self, param, digits=digits, max_boxes=max_boxes, window=window, **values)

    def __repr__(self) -> str:
        return f"Bound({self.name!r}: {self.title})"

