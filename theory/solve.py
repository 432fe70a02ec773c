"""Solving a bound for one parameter: where is it non-vacuous and informative? Certified with arb.

``solve(bound, "eta_sum", tau=..., ...)`` answers the question a user asks after evaluating a bound:
over which range of one parameter (the others fixed) is the bound non-vacuous, inside its domain
and constraints, and better than its trivial bound (for an estimate: inside its regime)? The answer
is a union of intervals whose finite ends are **certified** with python-flint ``arb`` ball
arithmetic (Johansson 2017):

- each condition ``g(x) > 0`` (vacuity ``expr > 0``, constraint ``expr >= 0``, informativeness
  ``log trivial - log bound > 0`` for an upper bound) is a sympy expression in ``x`` with the other
  parameters substituted exactly;
- the search window (the parameter's domain, with infinite or open ends replaced by ``1e±300`` or
  ``end ± |end|·1e-30``) is split into boxes until on every box either the ball ``g(box)``
  excludes 0 (constant sign, certified) or the ball ``g'(box)`` excludes 0 (``g`` strictly
  monotone there, certified) and the signs of ``g`` at the box ends decide whether it has a root;
- a root is enclosed by bisection on exact dyadic points evaluated in arb (not float64) until the
  enclosure's relative width is ``10**-digits``; ``g`` has opposite certified signs at the two ends
  of the enclosure and is strictly monotone on it, so exactly one root lies inside;
- for an integer parameter the end is the exact integer, with the condition's sign certified at
  it and at its neighbour outside the set.

Non-monotone conditions give several intervals (each root certified as above); a box where
neither ``g`` nor ``g'`` can be told from 0 within the budget (a double root, a tangency) makes
the answer ``refused`` with the reason. What is certified is the window; beyond it (``x > 1e300``,
``0 < x < 1e-300``) nothing is claimed, and the result says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import flint
import mpmath
import sympy as sp

from .bound_spec import accepted_params, param_text, unknown_parameter_message
from .domains import Param, exact_rational
from .intervals import arb_compile

__all__ = ["Endpoint", "Condition", "SolveResult", "solve", "WINDOW_EXPONENT"]

WINDOW_EXPONENT = 300
"""Infinite domain ends are searched up to ``10**300`` (and open ends at 0 from ``10**-300``)."""


@dataclass(frozen=True)
class Endpoint:
    """One end of an interval of the solution.

    Attributes:
      value: the end as a float (the enclosure's midpoint), ``inf``/``-inf`` for an infinite
        domain end, or ``None`` when it does not fit a float64.
      lower, upper: the certified enclosure as decimal strings (equal for an exact end).
      kind: ``"root"`` (a condition changes sign here: certified enclosure), ``"domain"`` (the
        parameter's domain end), ``"window"`` (where the search stopped: nothing is claimed beyond)
        or ``"integer"`` (the exact integer end of an integer parameter).
      closed: whether the end itself belongs to the set.
      condition: for a root or integer end, the condition that ends the set here.
      evidence: how the end is certified.
    """

    value: float | None
    lower: str
    upper: str
    kind: str
    closed: bool
    condition: str = ""
    evidence: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"value": self.value, "enclosure": [self.lower, self.upper], "kind": self.kind, "closed": self.closed,
                "condition": self.condition, "evidence": self.evidence}


@dataclass(frozen=True)
class Condition:
    """One condition of the solution set, ``expr > 0`` (``>= 0`` when not strict), in the solved parameter."""

    label: str
    meaning: str
    expr: sp.Expr
    strict: bool = True
    monotone: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the expression as text)."""
        return {"label": self.label, "meaning": self.meaning, "expr": sp.sstr(self.expr)[:400], "strict": self.strict,
                "monotone": self.monotone}


@dataclass(frozen=True)
class SolveResult:
    """The range of one parameter over which a bound is non-vacuous and informative.

    Attributes:
      name: the bound. param: the solved parameter. kind: the bound's kind.
      status: ``"intervals"`` (the set is the union of ``intervals``, one or more), ``"whole window"``
        (every condition holds on the whole search window), ``"empty"`` (no value qualifies; ``reason``
        says which condition fails) or ``"refused"`` (a sign could not be certified; ``reason``).
      intervals: ``(lower end, upper end)`` pairs of :class:`Endpoint`, increasing.
      conditions: the conditions solved, in order, with certified monotonicity where found.
      informativeness_judged: False when the trivial bound needs a parameter that was not given:
        the set is then where the bound is non-vacuous only (``notes`` says what to give).
      window: the searched range as decimal strings.
      reason: for ``empty``/``refused``.
      notes: what is and is not certified, what was not judged.
      params: the fixed parameters (as given, validated).
    """

    name: str
    param: str
    kind: str
    status: str
    intervals: list[tuple[Endpoint, Endpoint]]
    conditions: list[Condition]
    informativeness_judged: bool
    window: tuple[str, str]
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def lower(self) -> Endpoint | None:
        """The lowest end of the set (None when empty or refused)."""
        return self.intervals[0][0] if self.intervals else None

    @property
    def upper(self) -> Endpoint | None:
        """The highest end of the set (None when empty or refused)."""
        return self.intervals[-1][1] if self.intervals else None

    def describe(self) -> str:
        """One line: the set in interval notation, e.g. ``eta_sum in (0, 12.3]``."""
        if self.status in ("empty", "refused"):
            return f"{self.param}: {self.status} ({self.reason})"
        parts = []
        for lo, hi in self.intervals:
            parts.append(f"{'[' if lo.closed else '('}{_show(lo)}, {_show(hi)}{']' if hi.closed else ')'}")
        return f"{self.param} in " + " U ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"name": self.name, "param": self.param, "kind": self.kind, "status": self.status,
                "set": self.describe(), "intervals": [[lo.to_dict(), hi.to_dict()] for lo, hi in self.intervals],
                "conditions": [c.to_dict() for c in self.conditions],
                "informativeness_judged": self.informativeness_judged, "window": list(self.window),
                "reason": self.reason, "notes": self.notes,
                "params": {k: str(v) for k, v in self.params.items()}}


def _show(e: Endpoint) -> str:
    if e.kind == "domain" and e.value is not None and math.isinf(e.value):
        return "inf" if e.value > 0 else "-inf"
    return e.lower if e.lower == e.upper else mpmath.nstr(mpmath.mpf(e.lower) / 2 + mpmath.mpf(e.upper) / 2, 17)


# ------------------------------------------------------------------------------------------- arb helpers
def _point(x: flint.arb) -> flint.arb:
    """An exact dyadic point near ``x`` (the ball's midpoint)."""
    return x.mid()


def _ball(a: flint.arb, b: flint.arb) -> flint.arb:
    return a.union(b)


def _split(a: flint.arb, b: flint.arb, anchors: tuple[Any, Any] = (None, None)) -> flint.arb:
    """A split point of [a, b]: geometric in the distance to a finite domain end (``anchors``: lower,
    upper or None) when [a, b] spans more than a factor 4 of it, geometric in |x| likewise, else the
    midpoint; always an exact dyadic point."""
    lo_anchor, hi_anchor = anchors
    if lo_anchor is not None and lo_anchor != 0 and a > lo_anchor:
        da, db = a - lo_anchor, b - lo_anchor
        if db > 4 * da:
            return _point(lo_anchor + (da * db).sqrt())
    if hi_anchor is not None and hi_anchor != 0 and b < hi_anchor:
        da, db = hi_anchor - b, hi_anchor - a
        if db > 4 * da:
            return _point(hi_anchor - (da * db).sqrt())
    if a > 0 and b > 4 * a:
        return _point((a * b).sqrt())
    if b < 0 and a < 4 * b:
        return -_point((a * b).sqrt())
    if a < 0 < b and (b > 1 or a < -1):
        return flint.arb(0)
    return _point((a + b) / 2)


def _dec(x: flint.arb, digits: int, rounding: str = "nearest") -> str:
    """The exact point ``x`` as a decimal string of ``digits + 2`` significant digits, rounded to
    nearest, or outward (``"down"``/``"up"``) so that an enclosure printed in decimal still encloses."""
    v = _to_mpf(x)
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


def _to_mpf(x: flint.arb) -> Any:
    """The midpoint of ``x`` as an mpmath number, exactly (no rounding to mpmath's working precision)."""
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    if man == 0:
        return mpmath.mpf(0)
    with mpmath.workprec(max(53, man.bit_length() + 8)):
        return mpmath.mpf((man, exp))


def _float(x: flint.arb) -> float | None:
    v = float(_to_mpf(x))
    return v if math.isfinite(v) else None


def _arb_exact(v: Any) -> flint.arb:
    q = exact_rational(v)
    return flint.arb(int(q.p)) / int(q.q) if q.q != 1 else flint.arb(int(q.p))


class _Fn:
    """A condition compiled for arb: value and derivative at a ball, with precision escalation at points."""

    def __init__(self, expr: sp.Expr, x: sp.Symbol) -> None:
        self.g = arb_compile(expr, (x,))
        self.dg = arb_compile(sp.diff(expr, x), (x,))

    def ball(self, a: flint.arb, b: flint.arb) -> flint.arb:
        return self.g(_ball(a, b))

    def dball(self, a: flint.arb, b: flint.arb) -> flint.arb:
        return self.dg(_ball(a, b))

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


def _sign(v: flint.arb) -> int:
    if not v.is_finite():
        return 0
    return 1 if v > 0 else -1 if v < 0 else 0


# ------------------------------------------------------------------------------------------- isolation
@dataclass
class _Piece:
    a: flint.arb
    b: flint.arb
    sign: int  # +1 / -1 constant sign on [a, b]; 0: a root in [a, b] (kind "root"); 2: undecided
    rising: bool = False  # for roots: g increases through the root


def _isolate(fn: _Fn, a: flint.arb, b: flint.arb, budget: list[int], rel: flint.arb,
             anchors: tuple[Any, Any] = (None, None)) -> list[_Piece]:
    """Pieces of [a, b] in increasing order: constant certified sign, or one certified simple root."""
    out: list[_Piece] = []
    stack = [(a, b)]
    while stack:
        lo, hi = stack.pop()
        g = fn.ball(lo, hi)
        s = _sign(g)
        if s:
            out.append(_Piece(lo, hi, s))
            continue
        d = _sign(fn.dball(lo, hi))
        if d:
            sl, sh = fn.sign_at(lo), fn.sign_at(hi)
            if sl and sh and sl == sh:
                out.append(_Piece(lo, hi, sl))
                continue
            if sl and sh:
                root = _refine(fn, lo, hi, sl, rel, anchors)
                if lo < root.a:
                    out.append(_Piece(lo, root.a, sl))  # monotone, sign sl at both ends of [lo, root.a]
                out.append(root)
                if root.b < hi:
                    out.append(_Piece(root.b, hi, sh))
                continue
            if sl == 0 and sh:  # g(lo) = 0 to the working precision; strictly monotone, so sign sh after it
                out.append(_Piece(lo, lo, 0, rising=d > 0))
                out.append(_Piece(lo, hi, sh))
                continue
            if sh == 0 and sl:
                out.append(_Piece(lo, hi, sl))
                out.append(_Piece(hi, hi, 0, rising=d > 0))
                continue
        budget[0] -= 1
        width_ok = (hi - lo) > rel * (abs(lo) + abs(hi))
        if budget[0] <= 0 or not width_ok:
            out.append(_Piece(lo, hi, 2))
            continue
        m = _split(lo, hi, anchors)
        if not (lo < m < hi):
            out.append(_Piece(lo, hi, 2))
            continue
        stack.append((m, hi))
        stack.append((lo, m))
    return out


def _refine(fn: _Fn, lo: flint.arb, hi: flint.arb, s_lo: int, rel: flint.arb,
            anchors: tuple[Any, Any] = (None, None)) -> _Piece:
    """Bisect a monotone box whose ends have opposite certified signs down to relative width ``rel``."""
    for _ in range(20000):
        if (hi - lo) <= rel * (abs(lo) + abs(hi)):
            break
        m = _split(lo, hi, anchors)
        if not (lo < m < hi):
            break
        sm = fn.sign_at(m)
        if sm == 0:
            return _Piece(m, m, 0, rising=s_lo < 0)
        if sm == s_lo:
            lo = m
        else:
            hi = m
    return _Piece(lo, hi, 0, rising=s_lo < 0)


# ------------------------------------------------------------------------------------------- setup
def _window(p: Param) -> tuple[flint.arb, flint.arb, bool, bool]:
    """(lo, hi, lo is the domain end, hi is the domain end) of the search window for ``p``."""
    big = flint.arb(10) ** WINDOW_EXPONENT
    small = 1 / big
    d = p.domain

    def end(v: float, closed: bool, upward: bool) -> tuple[flint.arb, bool]:
        if math.isinf(v):
            return (big if upward else -big), False
        x = _arb_exact(v)
        if closed:
            return x, True
        if v == 0:
            return (small if not upward else -small), False
        step = abs(x) * flint.arb(2) ** -(flint.ctx.prec - 8)  # representable at the working precision
        return _point(x - step if upward else x + step), False

    lo, lo_dom = end(d.lo, d.lo_closed, False)
    hi, hi_dom = end(d.hi, d.hi_closed, True)
    if p.integer:
        lo = flint.arb(math.ceil(float(_to_mpf(lo)))) if lo.abs_upper() < 2**52 else lo
    return _point(lo), _point(hi), lo_dom, hi_dom


def _fixed(bound: Any, name: str, values: dict[str, Any], x: sp.Symbol) -> tuple[dict[sp.Symbol, sp.Expr], list[Condition],
                                                                             dict[str, Any], list[str]]:
    """Substitution (parameter symbol -> exact number or expression in x), domain conditions of
    reparametrised targets, validated values, and the trivial-bound parameters still missing."""
    acc = {a.param.name: a.param for a in accepted_params(bound)}
    for k in values:
        if k not in acc:
            raise ValueError(unknown_parameter_message(bound, k))
        if k == name:
            raise ValueError(f"{bound.name}: {name} is the parameter solved for; do not give it a value")
    val = {k: acc[k].validate(v) for k, v in values.items()}
    subs: dict[sp.Symbol, sp.Expr] = {}
    conds: list[Condition] = []
    for rp in bound.reparametrisations:
        ins = [p.name for p in rp.inputs]
        if name not in ins and not any(n in val for n in ins):
            continue
        missing = [n for n in ins if n != name and n not in val]
        if missing:
            raise ValueError(f"{bound.name}: {', '.join(n for n in ins if n in val or n == name)} needs also "
                             f"{', '.join(missing)} ({rp.description})")
        args = [x if n == name else sp.Integer(val[n]) if isinstance(val[n], int) else exact_rational(val[n]) for n in ins]
        for target, fn in rp.outputs.items():
            if target in val or target == name:
                raise ValueError(f"{bound.name}: give either {target} or {', '.join(ins)}, not both")
            e = sp.sympify(fn(*args))
            tp = bound.param(target)
            if e.free_symbols:
                d = tp.domain
                if math.isfinite(d.lo):
                    conds.append(Condition("domain", f"{tp.name} = {sp.sstr(e)} {'>=' if d.lo_closed else '>'} {d.lo:g}",
                                           e - sp.Rational(d.lo), strict=not d.lo_closed))
                if math.isfinite(d.hi):
                    conds.append(Condition("domain", f"{tp.name} = {sp.sstr(e)} {'<=' if d.hi_closed else '<'} {d.hi:g}",
                                           sp.Rational(d.hi) - e, strict=not d.hi_closed))
            else:
                tp.validate(e)
            subs[tp.symbol] = e
    for p in bound.params:
        if p.symbol in subs:
            continue
        if p.name == name:
            subs[p.symbol] = x
        elif p.name in val:
            subs[p.symbol] = exact_rational(val[p.name])
        else:
            alts = [rp.description for rp in bound.reparametrisations if p.name in rp.outputs]
            hint = f" (or {'; '.join(alts)})" if alts else ""
            raise ValueError(f"{bound.name}: missing parameter {param_text(p)}{hint}")
    missing: list[str] = []
    if bound.trivial is not None:
        for p in bound.trivial[1]:
            if p.name == name:
                subs[p.symbol] = x
            elif p.name in val:
                subs[p.symbol] = exact_rational(val[p.name])
            else:
                missing.append(p.name)
    return subs, conds, val, missing


def _conditions(bound: Any, subs: dict[sp.Symbol, sp.Expr], missing: list[str]) -> list[Condition]:
    out = [Condition("constraint", c.message, c.expr.subs(subs), strict=False) for c in bound.constraints]
    out += [Condition("non-vacuous", f"non-vacuous (vacuous where {v.reason.split(':')[0]})", v.expr.subs(subs))
            for v in bound.vacuity]
    if bound.kind == "estimate":
        out += [Condition("regime", f"inside the regime (outside where {c.note.split(':')[0]})", c.expr.subs(subs))
                for c in bound.caveats]
    elif bound.trivial is not None and not missing:
        # logs after substitution, expanded only where sympy knows the signs (x carries its domain's sign)
        log_bound = sp.Add(*[sp.expand_log(sp.log(f.subs(subs))) for f in bound.factors.values()])
        log_triv = sp.expand_log(sp.log(bound.trivial[0].subs(subs)))
        g = log_triv - log_bound if bound.kind == "upper" else log_bound - log_triv
        rel = "below" if bound.kind == "upper" else "above"
        out.append(Condition("informative", f"informative: the bound is {rel} the trivial bound {bound.trivial[2]}", g))
    return out


# ------------------------------------------------------------------------------------------- solve
def solve(bound: Any, param: str, *, digits: int = 15, max_boxes: int = 4000,
          window: tuple[Any, Any] | None = None, **values: Any) -> SolveResult:
    """The range of ``param`` over which ``bound`` is non-vacuous and informative, endpoints certified.

    Args:
      bound: a :class:`~contrastive_bounds.theory.bound.Bound`.
      param: the parameter to solve for: one of the bound's parameters, an alternative
        (``num_classes``) or an optional trivial-bound parameter (``m``).
      digits: relative width ``10**-digits`` of each certified root enclosure (5..60).
      max_boxes: budget of sub-boxes per condition (>= 10); exhausted -> ``refused``.
      window: optional ``(lo, hi)`` inside the domain to search instead of the default window.
      **values: every other parameter, as for :meth:`Bound.evaluate` (kept exact).

    Returns:
      :class:`SolveResult`. For an upper or lower bound the conditions are its constraints, its
      vacuity conditions and, when every trivial-bound parameter is known, informativeness; for an
      estimate, its caveats (inside its regime) instead of informativeness.

    Raises:
      ValueError: an unknown parameter, ``param`` also given a value, a missing parameter (named
        with its domain and meaning), a value outside its domain, ``digits``/``max_boxes`` out of
        range, or a window outside the domain.

    What is certified: on the window, every end of type ``root`` encloses exactly one sign change
    of its condition (opposite arb-certified signs at the enclosure's ends, arb-certified strict
    monotonicity on it), every integer end has the condition's sign certified at it and at its
    outside neighbour, and every other condition holds (arb-certified) on the pieces reported.
    """
    if not isinstance(digits, int) or isinstance(digits, bool) or not 5 <= digits <= 60:
        raise ValueError(f"digits={digits!r} is outside its domain: integers in [5, 60]")
    if not isinstance(max_boxes, int) or isinstance(max_boxes, bool) or max_boxes < 10:
        raise ValueError(f"max_boxes={max_boxes!r} is outside its domain: integers in [10, inf)")
    acc = {a.param.name: a.param for a in accepted_params(bound)}
    if param not in acc:
        raise ValueError(f"cannot solve for {param!r}: " + unknown_parameter_message(bound, param))
    p = acc[param]
    positive = p.domain.lo > 0 or (p.domain.lo == 0 and not p.domain.lo_closed)
    x = sp.Symbol(param, positive=True) if positive else sp.Symbol(param, real=True)
    subs, dom_conds, val, missing = _fixed(bound, param, dict(values), x)
    conds = dom_conds + _conditions(bound, subs, missing)
    prec0 = flint.ctx.prec
    flint.ctx.prec = int(digits * 3.33) + 40
    try:
        lo, hi, lo_dom, hi_dom = _window(p)
        if window is not None:
            wlo, whi = (p.validate(w) for w in window)
            lo, hi, lo_dom, hi_dom = _arb_exact(wlo), _arb_exact(whi), False, False
            if not lo < hi:
                raise ValueError(f"window={window!r} must have lo < hi")
        win = (_dec(lo, 4), _dec(hi, 4))
        notes = [f"certified with python-flint arb at {flint.ctx.prec} bits on the window {param} in [{win[0]}, {win[1]}]"
                 + ("" if lo_dom and hi_dom else "; nothing is claimed beyond the window")]
        if missing:
            notes.append(bound.judge_hint(missing) + "; the range below is where the bound is non-vacuous only")
        result = _solve_on(bound, p, x, conds, lo, hi, lo_dom, hi_dom, digits, max_boxes)
    finally:
        flint.ctx.prec = prec0
    status, intervals, reason, solved = result
    return SolveResult(bound.name, param, bound.kind, status, intervals, solved, not missing, win, reason, notes, val)


def _solve_on(bound: Any, p: Param, x: sp.Symbol, conds: list[Condition], lo: flint.arb, hi: flint.arb,
              lo_dom: bool, hi_dom: bool, digits: int, max_boxes: int) -> tuple[str, list, str | None, list[Condition]]:
    rel = flint.arb(10) ** (-digits)
    d = p.domain
    anchors = (_arb_exact(d.lo) if math.isfinite(d.lo) else None, _arb_exact(d.hi) if math.isfinite(d.hi) else None)
    dl, dh = (digits if lo_dom else 4), (digits if hi_dom else 4)
    lo_end = Endpoint(_float(lo), _dec(lo, dl), _dec(lo, dl), "domain" if lo_dom else "window", lo_dom)
    hi_end = Endpoint(_float(hi), _dec(hi, dh), _dec(hi, dh), "domain" if hi_dom else "window", hi_dom)
    segs: list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]] = [(lo, hi, lo_end, hi_end)]
    solved: list[Condition] = []
    for cond in conds:
        if x not in cond.expr.free_symbols:
            fn = _Fn(cond.expr, x)
            s = fn.sign_at(lo)
            ok = s > 0 or (s == 0 and not cond.strict)
            solved.append(Condition(cond.label, cond.meaning, cond.expr, cond.strict, "constant"))
            if not ok:
                return "empty", [], f"{cond.meaning} fails for every {p.name} (it does not depend on {p.name})", solved
            continue
        fn = _Fn(cond.expr, x)
        budget = [max_boxes]
        new: list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]] = []
        mono: set[int] = set()
        for a, b, ea, eb in segs:
            pieces = sorted(_isolate(fn, a, b, budget, rel, anchors), key=lambda q: (_to_mpf(q.a), _to_mpf(q.b)))
            bad = [q for q in pieces if q.sign == 2]
            if bad:
                q = bad[0]
                return "refused", [], (f"could not certify the sign of the condition '{cond.meaning}' on {p.name} in "
                                       f"[{_dec(q.a, 8)}, {_dec(q.b, 8)}] within {max_boxes} boxes (a double root, a "
                                       "tangency or a singularity there)"), solved + [cond]
            mono.update(1 if q.rising else -1 for q in pieces if q.sign == 0)
            new.extend(_positive_runs(pieces, a, b, ea, eb, cond, digits))
        solved.append(Condition(cond.label, cond.meaning, cond.expr, cond.strict,
                                _monotone(fn, segs, max_boxes, anchors)))
        segs = new
        if not segs:
            return "empty", [], f"no {p.name} in the window satisfies: {cond.meaning}", solved
    intervals = [(ea, eb) for _, _, ea, eb in segs]
    if p.integer:
        intervals = [_integer_ends(ea, eb, a, b, conds, x, p) for a, b, ea, eb in segs]
        intervals = [iv for iv in intervals if iv is not None]
        if not intervals:
            return "empty", [], f"no integer {p.name} in the window satisfies every condition", solved
    whole = len(intervals) == 1 and intervals[0][0].kind in ("domain", "window") and intervals[0][1].kind in ("domain", "window")
    return ("whole window" if whole else "intervals"), intervals, None, solved


def _positive_runs(pieces: list[_Piece], a: flint.arb, b: flint.arb, ea: Endpoint, eb: Endpoint, cond: Condition,
                   digits: int) -> list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]]:
    """Sub-intervals of [a, b] where the condition holds, from sorted pieces (constant signs and roots)."""
    runs: list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]] = []
    start: tuple[flint.arb, Endpoint] | None = None
    prev = 0
    for i, q in enumerate(pieces):
        if q.sign == 1:
            if start is None:
                # at the window's start, or right after a point where the sign was not certified non-zero
                start = (q.a, ea) if i == 0 else (q.a, _root_end(_Piece(q.a, q.a, 0, True), cond, digits))
        elif q.sign == -1:
            if start is not None:
                runs.append((start[0], q.a, start[1], _root_end(_Piece(q.a, q.a, 0, False), cond, digits)))
                start = None
        else:  # a certified root (enclosure) or a zero at a point
            end = _root_end(q, cond, digits)
            if q.rising:
                start = (q.b, end)
            elif start is not None:
                runs.append((start[0], q.a, start[1], end))
                start = None
        prev = q.sign
    if start is not None and prev != 0 or (start is not None and pieces and pieces[-1].rising and pieces[-1].b < b):
        runs.append((start[0], b, start[1], eb))
    return runs


def _root_end(q: _Piece, cond: Condition, digits: int) -> Endpoint:
    exact = q.a == q.b
    ev = (f"arb: {cond.label} condition = 0 at this point to the working precision; strictly "
          f"{'increasing' if q.rising else 'decreasing'} around it") if exact else (
        f"arb: the {cond.label} condition has opposite certified signs at the enclosure's ends and a derivative of one "
        f"sign ({'increasing' if q.rising else 'decreasing'}) on it: exactly one root inside")
    return Endpoint(_float((q.a + q.b) / 2), _dec(q.a, digits, "down"), _dec(q.b, digits, "up"), "root",
                    not cond.strict, cond.meaning, ev)


def _monotone(fn: _Fn, segs: list, max_boxes: int, anchors: tuple[Any, Any]) -> str | None:
    """'increasing'/'decreasing' when arb certifies the derivative's sign on every segment, else None."""
    signs = set()
    for a, b, _, _ in segs:
        stack, n = [(a, b)], 0
        while stack:
            lo, hi = stack.pop()
            s = _sign(fn.dball(lo, hi))
            if s:
                signs.add(s)
                if len(signs) > 1:
                    return None
                continue
            n += 1
            m = _split(lo, hi, anchors)
            if n > max_boxes // 4 or not (lo < m < hi):
                return None
            stack += [(lo, m), (m, hi)]
    if len(signs) != 1:
        return None
    return "increasing" if signs.pop() > 0 else "decreasing"


def _integer_ends(ea: Endpoint, eb: Endpoint, a: flint.arb, b: flint.arb, conds: list[Condition], x: sp.Symbol,
                  p: Param) -> tuple[Endpoint, Endpoint] | None:
    """The exact integer ends of a real interval, each certified by evaluating every condition there."""
    fns = [(c, _Fn(c.expr, x)) for c in conds if x in c.expr.free_symbols]

    def ok(n: int) -> tuple[bool, str]:
        for c, fn in fns:
            s = fn.sign_at(flint.arb(n))
            if s < 0 or (s == 0 and c.strict):
                return False, c.meaning
        return True, ""

    def first_inside(start: flint.arb, step: int) -> int | None:
        n = int(math.ceil(float(_to_mpf(start)))) if step > 0 else int(math.floor(float(_to_mpf(start))))
        for _ in range(4):
            good, _ = ok(n)
            if good:
                return n
            n += step
        return None

    lo_n = first_inside(_floor_arb(a) if ea.kind == "root" else a, 1)
    hi_n = first_inside(b, -1)
    if lo_n is None or hi_n is None or lo_n > hi_n:
        return None

    def end(n: int, e: Endpoint, outside: int) -> Endpoint:
        if e.kind == "window":
            return e
        if e.kind != "root":
            return Endpoint(float(n), str(n), str(n), e.kind, True, e.condition, e.evidence)
        good_out, why = ok(outside)
        ev = (f"arb: every condition holds at {p.name} = {n}; at {outside} '{why}' fails" if not good_out else
              f"arb: every condition holds at {n} (the neighbour {outside} too: the root lies between integers "
              "further out; reported end is the first integer checked)")
        return Endpoint(float(n), str(n), str(n), "integer", True, e.condition, ev)

    return end(lo_n, ea, lo_n - 1), end(hi_n, eb, hi_n + 1)


def _floor_arb(a: flint.arb) -> flint.arb:
    """``floor`` of a ball's lower end as an exact arb integer (start of an integer scan)."""
    return flint.arb(int(math.floor(float(_to_mpf(a.lower())))))

