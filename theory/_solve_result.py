"""What :func:`._solve.solve` returns: the solution set of one parameter as certified intervals.

:class:`SolveResult` holds the intervals (pairs of :class:`Endpoint`), the :class:`SolutionCondition` objects
solved (with the monotonicity arb certified) and the notes saying what is and is not certified.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp

__all__ = ["Endpoint", "SolutionCondition", "SolveResult", "show_end"]


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
class SolutionCondition:
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
    conditions: list[SolutionCondition]
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
            parts.append(f"{'[' if lo.closed else '('}{show_end(lo)}, {show_end(hi)}{']' if hi.closed else ')'}")
        return f"{self.param} in " + " U ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"name": self.name, "param": self.param, "kind": self.kind, "status": self.status,
                "set": self.describe(), "intervals": [[lo.to_dict(), hi.to_dict()] for lo, hi in self.intervals],
                "conditions": [c.to_dict() for c in self.conditions],
                "informativeness_judged": self.informativeness_judged, "window": list(self.window),
                "reason": self.reason, "notes": self.notes,
                "params": {k: str(v) for k, v in self.params.items()}}


def show_end(e: Endpoint) -> str:
    """An end for interval notation: the exact value, or the enclosure's midpoint at 17 digits (computed in
    double precision, 53 bits, whatever the caller's ``mpmath.mp`` precision: the text is the same in every
    process)."""
    if e.kind == "domain" and e.value is not None and math.isinf(e.value):
        return "inf" if e.value > 0 else "-inf"
    if e.lower == e.upper:
        return e.lower
    with mpmath.workprec(53):
        return mpmath.nstr(mpmath.mpf(e.lower) / 2 + mpmath.mpf(e.upper) / 2, 17)
