"""Evaluating a :class:`~._bound.Bound` at one point with mpmath, to a stated number of correct digits.

What :meth:`Bound.evaluate <contrastive_bounds.theory._bound.Bound.evaluate>` does (see there for the arguments,
the result and what it raises): vacuity first, then every factor with :func:`~._reliable.reliable_value` (its
declared log where the factor cannot be told from 0), the product, its float64 value where it fits, the
informativeness against the trivial bound and the caveats of an estimate.
"""

from __future__ import annotations

from typing import Any, Mapping

import mpmath

from ._bound_value import BoundValue
from ._reliable import GUARD_DIGITS, reliable_sign, reliable_value

__all__: list[str] = []

#: Largest ``digits`` :meth:`Bound.evaluate <contrastive_bounds.theory._bound.Bound.evaluate>` accepts (its working
#: precision is about twice that; Python prints integers of at most 4300 digits).
EVALUATE_MAX_DIGITS = 1000


def evaluate_point(bound: Any, digits: int, values: Mapping[str, Any]) -> BoundValue:
    """:meth:`Bound.evaluate <contrastive_bounds.theory._bound.Bound.evaluate>` of ``bound`` at ``values`` with
    ``digits`` correct significant digits (arguments, result and errors: see there).

    Raises:
      ValueError: ``digits`` outside [5, :data:`EVALUATE_MAX_DIGITS`]; a parameter refused by
        :meth:`~._bound.Bound.resolve`.
    """
    if not isinstance(digits, int) or isinstance(digits, bool) or not 5 <= digits <= EVALUATE_MAX_DIGITS:
        raise ValueError(f"digits={digits!r} is outside its domain: integers in [5, {EVALUATE_MAX_DIGITS}]")
    vals = bound.resolve(values)
    for v in bound.vacuity:
        if reliable_sign(v.expr, vals, digits) <= 0:
            return BoundValue(bound.name, None, None, True, v.reason, {k: None for k in bound.factors},
                              bound.source, digits, None, False, vals, informativeness="vacuous", kind=bound.kind)
    factor_log10: dict[str, float | None] = {}
    factor_exact: dict[str, str | None] = {}
    unknown: list[str] = []
    with mpmath.workdps(digits + GUARD_DIGITS):
        total = mpmath.mpf(1)
        for fname in bound.factors:
            fv, why = _factor_value(bound, fname, vals, digits)
            if fv is None:
                unknown.append(why)
                factor_log10[fname], factor_exact[fname] = None, None
                continue
            total *= fv
            flog = mpmath.log10(fv) if fv > 0 else None
            factor_log10[fname] = float(flog) if flog is not None and abs(flog) < mpmath.mpf("1e308") else None
            factor_exact[fname] = mpmath.nstr(flog, digits) if flog is not None else None
        if unknown:
            return BoundValue(bound.name, None, None, False, "; ".join(unknown), factor_log10, bound.source,
                              digits, None, False, vals, None, factor_exact, informativeness="unknown",
                              kind=bound.kind)
        value_mp = +total
        log10_mp = mpmath.log10(value_mp) if value_mp > 0 else None
        log10_exact = mpmath.nstr(log10_mp, digits) if log10_mp is not None else None
        log10 = float(log10_mp) if log10_mp is not None and abs(log10_mp) < mpmath.mpf("1e308") else None
        value = float(value_mp) if abs(value_mp) < mpmath.mpf("1.7e308") else None
        if value is not None and value_mp != 0 and abs(value) < 2.3e-308:
            value = None  # subnormal, or underflow to 0.0 of a nonzero value: keep log10 only
        judged = _judge(bound, value_mp, vals, digits)
        reason = judged[1] if judged[0] else None
        if log10 is None and log10_exact is not None:
            reason = (f"beyond float64 even in log space: log10 = {mpmath.nstr(log10_mp, 8)}"
                      + (f"; {reason}" if reason else ""))
        notes = tuple(c.note for c in bound.caveats if reliable_sign(c.expr, vals, digits) <= 0)
    return BoundValue(bound.name, value, log10, False, reason, factor_log10, bound.source, digits,
                      value_mp, judged[0], vals, log10_exact, factor_exact, judged[2], judged[3], judged[1],
                      notes, bound.kind)


def _factor_value(bound: Any, fname: str, vals: Mapping[str, Any], digits: int) -> tuple[Any, str | None]:
    """One factor to ``digits`` correct digits: :func:`reliable_value`, then, where that cannot tell
    it from 0, ``exp`` of its declared log (``log_factors``, e.g. ``log(expm1(x))``), checked the
    same way at two precisions. Returns ``(mpf, None)`` or ``(None, why)``."""
    v, how = reliable_value(bound.factors[fname], vals, digits)
    if v is not None and v != 0:
        return v, None
    if fname in bound.log_factors:
        ln, _ = reliable_value(bound.log_factors[fname], vals, digits)
        if ln is not None:
            with mpmath.workdps(2 * (digits + GUARD_DIGITS)):
                return mpmath.exp(ln), None
    if v is not None:  # an exact zero
        return v, None
    return None, f"factor {fname!r} {how} (catastrophic cancellation): its value is unknown"


def _judge(bound: Any, value_mp: Any, vals: Mapping[str, Any], digits: int) -> tuple[bool | None, str | None, str, tuple[str, ...]]:
    """(uninformative, note, informativeness, missing) of a finite value against the trivial bound."""
    if bound.kind == "estimate":
        return False, None, "not applicable", ()
    if bound.trivial is None:
        return False, None, "no trivial bound", ()
    missing = [p.name for p in bound.trivial[1] if p.name not in vals]
    if missing:
        return None, bound.judge_hint(missing), "not judged", tuple(missing)
    triv, how = reliable_value(bound.trivial[0], vals, digits)
    if triv is None:
        return None, f"informativeness not judged: the trivial bound {bound.trivial[2]} {how}", "not judged", ()
    worse = value_mp >= triv if bound.kind == "upper" else value_mp <= triv
    shown = mpmath.nstr(triv, 8)
    if worse:
        return True, f"uninformative: exceeds the trivial bound {bound.trivial[2]} = {shown}", "uninformative", ()
    return False, f"informative: better than the trivial bound {bound.trivial[2]} = {shown}", "informative", ()
