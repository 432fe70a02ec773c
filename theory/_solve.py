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
from typing import Any

import flint
import sympy as sp

from ._bound_spec import accepted_params, param_text, unknown_parameter_message
from ._domains import Param, exact_rational
from ._isolate import (ArbCondition, Piece, arb_exact, arb_to_float, arb_to_mpf, certified_monotonicity, decimal_text,
                      exact_point, floor_integer, isolate)
from ._solve_result import SolutionCondition, Endpoint, SolveResult

__all__ = ["solve", "log_difference", "WINDOW_EXPONENT"]

WINDOW_EXPONENT = 300
"""Infinite domain ends are searched up to ``10**300`` (and open ends at 0 from ``10**-300``)."""


# ------------------------------------------------------------------------------------------- setup
def _window(p: Param) -> tuple[flint.arb, flint.arb, bool, bool]:
    """(lo, hi, lo is the domain end, hi is the domain end) of the search window for ``p``."""
    big = flint.arb(10) ** WINDOW_EXPONENT
    small = 1 / big
    d = p.domain

    def end(v: float, closed: bool, upward: bool) -> tuple[flint.arb, bool]:
        if math.isinf(v):
            return (big if upward else -big), False
        x = arb_exact(v)
        if closed:
            return x, True
        if v == 0:
            return (small if not upward else -small), False
        step = abs(x) * flint.arb(2) ** -(flint.ctx.prec - 8)  # representable at the working precision
        return exact_point(x - step if upward else x + step), False

    lo, lo_dom = end(d.lo, d.lo_closed, False)
    hi, hi_dom = end(d.hi, d.hi_closed, True)
    if p.integer:
        lo = flint.arb(math.ceil(float(arb_to_mpf(lo)))) if lo.abs_upper() < 2**52 else lo
    return exact_point(lo), exact_point(hi), lo_dom, hi_dom


def _fixed(bound: Any, name: str, values: dict[str, Any], x: sp.Symbol) -> tuple[dict[sp.Symbol, sp.Expr], list[SolutionCondition],
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
    conds: list[SolutionCondition] = []
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
                    conds.append(SolutionCondition("domain", f"{tp.name} = {sp.sstr(e)} {'>=' if d.lo_closed else '>'} {d.lo:g}",
                                           e - sp.Rational(d.lo), strict=not d.lo_closed))
                if math.isfinite(d.hi):
                    conds.append(SolutionCondition("domain", f"{tp.name} = {sp.sstr(e)} {'<=' if d.hi_closed else '<'} {d.hi:g}",
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


def log_difference(expr: sp.Expr) -> sp.Expr:
    """``expr`` = P - N with P, N sums of terms sympy knows to be positive: ``log P - log N`` (same sign
    where both are positive), else ``expr`` unchanged.

    ``1 - S e^{S/128}`` has the sign of ``-log S - S/128``; the ball of the first over a box spanning
    ``e^{60}`` contains 0 (midpoint-radius balls cannot hold a range wider than ~2^30 with its sign),
    the ball of the second does not.
    """
    pos, neg = [], []
    for term in sp.Add.make_args(sp.expand(expr, deep=False)):
        if term.is_positive:
            pos.append(term)
        elif term.is_negative:
            neg.append(-term)
        else:
            return expr
    if not pos or not neg:
        return expr
    return sp.expand_log(sp.log(sp.Add(*pos))) - sp.expand_log(sp.log(sp.Add(*neg)))


def _conditions(bound: Any, subs: dict[sp.Symbol, sp.Expr], missing: list[str]) -> list[SolutionCondition]:
    out = [SolutionCondition("constraint", c.message, log_difference(c.expr.subs(subs)), strict=False) for c in bound.constraints]
    out += [SolutionCondition("non-vacuous", f"non-vacuous (vacuous where {v.reason.split(':')[0]})", log_difference(v.expr.subs(subs)))
            for v in bound.vacuity]
    if bound.kind == "estimate":
        out += [SolutionCondition("regime", f"inside the regime (outside where {c.note.split(':')[0]})",
                          log_difference(c.expr.subs(subs))) for c in bound.caveats]
    elif bound.trivial is not None and not missing:
        # logs after substitution, expanded only where sympy knows the signs (x carries its domain's sign)
        log_bound = sp.Add(*[sp.expand_log(sp.log(f.subs(subs))) for f in bound.factors.values()])
        log_triv = sp.expand_log(sp.log(bound.trivial[0].subs(subs)))
        g = log_triv - log_bound if bound.kind == "upper" else log_bound - log_triv
        rel = "below" if bound.kind == "upper" else "above"
        out.append(SolutionCondition("informative", f"informative: the bound is {rel} the trivial bound {bound.trivial[2]}", g))
    return out


# ------------------------------------------------------------------------------------------- solve
def solve(bound: Any, param: str, *, digits: int = 15, max_boxes: int = 4000,
          window: tuple[Any, Any] | None = None, **values: Any) -> SolveResult:
    """The range of ``param`` over which ``bound`` is non-vacuous and informative, endpoints certified.

    Args:
      bound: a :class:`~contrastive_bounds.theory.Bound`.
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

    Examples:
      The largest step-size sum S with an informative Theorem 1 bound at m = 512 samples, certified:

      >>> from contrastive_bounds.theory import get_bound
      >>> res = solve(get_bound("alignment.frobenius"), "eta_sum", tau=0.5, batch_size=256, num_classes=100,
      ...             delta=0.05, steps=1000, m=512)
      >>> res.status, round(res.intervals[0][1].value, 6), res.intervals[0][1].kind
      ('intervals', 125.2127, 'root')
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
            lo, hi, lo_dom, hi_dom = arb_exact(wlo), arb_exact(whi), False, False
            if not lo < hi:
                raise ValueError(f"window={window!r} must have lo < hi")
        win = (decimal_text(lo, 4), decimal_text(hi, 4))
        notes = [f"certified with python-flint arb at {flint.ctx.prec} bits on the window {param} in [{win[0]}, {win[1]}]"
                 + ("" if lo_dom and hi_dom else "; nothing is claimed beyond the window")]
        if missing:
            notes.append(bound.judge_hint(missing) + "; the range below is where the bound is non-vacuous only")
        result = _solve_on(bound, p, x, conds, lo, hi, lo_dom, hi_dom, digits, max_boxes)
    finally:
        flint.ctx.prec = prec0
    status, intervals, reason, solved = result
    return SolveResult(bound.name, param, bound.kind, status, intervals, solved, not missing, win, reason, notes, val)


def _solve_on(bound: Any, p: Param, x: sp.Symbol, conds: list[SolutionCondition], lo: flint.arb, hi: flint.arb,
              lo_dom: bool, hi_dom: bool, digits: int, max_boxes: int) -> tuple[str, list, str | None, list[SolutionCondition]]:
    rel = flint.arb(10) ** (-digits)
    d = p.domain
    anchors = (arb_exact(d.lo) if math.isfinite(d.lo) else None, arb_exact(d.hi) if math.isfinite(d.hi) else None)
    dl, dh = (digits if lo_dom else 4), (digits if hi_dom else 4)
    lo_end = Endpoint(arb_to_float(lo), decimal_text(lo, dl), decimal_text(lo, dl), "domain" if lo_dom else "window", lo_dom)
    hi_end = Endpoint(arb_to_float(hi), decimal_text(hi, dh), decimal_text(hi, dh), "domain" if hi_dom else "window", hi_dom)
    segs: list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]] = [(lo, hi, lo_end, hi_end)]
    solved: list[SolutionCondition] = []
    for cond in conds:
        if x not in cond.expr.free_symbols:
            fn = ArbCondition(cond.expr, x)
            s = fn.sign_at(lo)
            ok = s > 0 or (s == 0 and not cond.strict)
            solved.append(SolutionCondition(cond.label, cond.meaning, cond.expr, cond.strict, "constant"))
            if not ok:
                return "empty", [], f"{cond.meaning} fails for every {p.name} (it does not depend on {p.name})", solved
            continue
        fn = ArbCondition(cond.expr, x)
        budget = [max_boxes]
        new: list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]] = []
        mono: set[int] = set()
        for a, b, ea, eb in segs:
            pieces = sorted(isolate(fn, a, b, budget, rel, anchors), key=lambda q: (arb_to_mpf(q.a), arb_to_mpf(q.b)))
            bad = [q for q in pieces if q.sign == 2]
            if bad:
                q = bad[0]
                return "refused", [], (f"could not certify the sign of the condition '{cond.meaning}' on {p.name} in "
                                       f"[{decimal_text(q.a, 8)}, {decimal_text(q.b, 8)}] within {max_boxes} boxes (a double root, a "
                                       "tangency or a singularity there)"), solved + [cond]
            mono.update(1 if q.rising else -1 for q in pieces if q.sign == 0)
            new.extend(_positive_runs(pieces, a, b, ea, eb, cond, digits))
        solved.append(SolutionCondition(cond.label, cond.meaning, cond.expr, cond.strict,
                                certified_monotonicity(fn, segs, max_boxes, anchors)))
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


def _positive_runs(pieces: list[Piece], a: flint.arb, b: flint.arb, ea: Endpoint, eb: Endpoint, cond: SolutionCondition,
                   digits: int) -> list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]]:
    """Sub-intervals of [a, b] where the condition holds, from sorted pieces (constant signs and roots)."""
    runs: list[tuple[flint.arb, flint.arb, Endpoint, Endpoint]] = []
    start: tuple[flint.arb, Endpoint] | None = None
    prev = 0
    for i, q in enumerate(pieces):
        if q.sign == 1:
            if start is None:
                # at the window's start, or right after a point where the sign was not certified non-zero
                start = (q.a, ea) if i == 0 else (q.a, _root_end(Piece(q.a, q.a, 0, True), cond, digits))
        elif q.sign == -1:
            if start is not None:
                runs.append((start[0], q.a, start[1], _root_end(Piece(q.a, q.a, 0, False), cond, digits)))
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


def _root_end(q: Piece, cond: SolutionCondition, digits: int) -> Endpoint:
    exact = q.a == q.b
    ev = (f"arb: {cond.label} condition = 0 at this point to the working precision; strictly "
          f"{'increasing' if q.rising else 'decreasing'} around it") if exact else (
        f"arb: the {cond.label} condition has opposite certified signs at the enclosure's ends and a derivative of one "
        f"sign ({'increasing' if q.rising else 'decreasing'}) on it: exactly one root inside")
    return Endpoint(arb_to_float((q.a + q.b) / 2), decimal_text(q.a, digits, "down"), decimal_text(q.b, digits, "up"), "root",
                    not cond.strict, cond.meaning, ev)


def _integer_ends(ea: Endpoint, eb: Endpoint, a: flint.arb, b: flint.arb, conds: list[SolutionCondition], x: sp.Symbol,
                  p: Param) -> tuple[Endpoint, Endpoint] | None:
    """The exact integer ends of a real interval, each certified by evaluating every condition there."""
    fns = [(c, ArbCondition(c.expr, x)) for c in conds if x in c.expr.free_symbols]

    def ok(n: int) -> tuple[bool, str]:
        for c, fn in fns:
            s = fn.sign_at(flint.arb(n))
            if s < 0 or (s == 0 and c.strict):
                return False, c.meaning
        return True, ""

    def first_inside(start: flint.arb, step: int) -> int | None:
        n = int(math.ceil(float(arb_to_mpf(start)))) if step > 0 else int(math.floor(float(arb_to_mpf(start))))
        for _ in range(4):
            good, _ = ok(n)
            if good:
                return n
            n += step
        return None

    lo_n = first_inside(floor_integer(a) if ea.kind == "root" else a, 1)
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
