"""What evaluating a bound returns: :class:`BoundValue` (one point, mpmath) and :class:`LogArray`
(vectorised, log space), with their JSON and notebook renderings.

Informativeness is explicit. A bound with a trivial bound (one that always holds, e.g.
``2*sqrt(m(m-1))`` for Theorem 1 of Paper B) is judged against it when every parameter of the
trivial bound is known; when one is missing (``m``) the value says so (``uninformative = None``,
``informativeness = "not judged"``) and names what to supply, never a silent ``False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mpmath
import sympy as sp

from ._source import Source

__all__ = ["BoundValue", "LogArray", "INFORMATIVENESS"]

INFORMATIVENESS = ("informative", "uninformative", "not judged", "no trivial bound", "not applicable",
                   "vacuous", "unknown")
"""The values of :attr:`BoundValue.informativeness`."""


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
        factor that cannot be told from 0 within ``MAX_DIGITS`` digits), else ``None``.
      factors: factor name -> log10 of that factor (the breakdown; ``None`` where undefined or
        beyond float64).
      source: the citation.
      digits: significant digits used by mpmath.
      mp_value: the mpmath value (full precision), or ``None``.
      uninformative: ``True`` when the bound is finite but no better than its trivial bound (``reason``
        says which), ``False`` when it is better or the bound has no trivial bound, ``None`` when
        it could not be judged because a parameter of the trivial bound was not given
        (``judge_needs`` names it).
      params: the parameters after reparametrisation and validation.
      log10_exact: log10 as a decimal string at ``digits`` digits (always given for a positive
        value; the only form of log10 when even log10 exceeds float64, e.g. tau = 1e-300).
      factors_exact: factor name -> log10 of that factor as a decimal string at ``digits`` digits
        (``None`` where undefined): the breakdown when a factor's log10 itself exceeds float64.
      informativeness: one of :data:`INFORMATIVENESS`: ``"informative"``, ``"uninformative"``,
        ``"not judged"`` (a trivial-bound parameter is missing), ``"no trivial bound"`` (none is
        declared), ``"not applicable"`` (an estimate, not a bound), ``"vacuous"`` or ``"unknown"``.
      judge_needs: the optional parameters that would let the bound be judged (e.g. ``("m",)``).
      informativeness_note: one sentence: what informativeness was judged against, or how to
        supply what is missing (``give m=<integer in [2, inf)>``).
      notes: caveats of an estimate at this point (e.g. outside the Kramers regime).
      kind: ``"upper"``, ``"lower"`` or ``"estimate"``.
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
    uninformative: bool | None = False
    params: dict[str, Any] = field(default_factory=dict)
    log10_exact: str | None = None
    factors_exact: dict[str, str | None] = field(default_factory=dict)
    informativeness: str = "no trivial bound"
    judge_needs: tuple[str, ...] = ()
    informativeness_note: str | None = None
    notes: tuple[str, ...] = ()
    kind: str = "upper"

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
        """JSON-ready form: name, value, log10, vacuous, reason, informativeness, factors, source (+ extras)."""
        return {
            "name": self.name,
            "kind": self.kind,
            "value": self.value,
            "log10": self.log10,
            "vacuous": self.vacuous,
            "reason": self.reason,
            "uninformative": self.uninformative,
            "informativeness": self.informativeness,
            "informativeness_needs": list(self.judge_needs),
            "informativeness_note": self.informativeness_note,
            "notes": list(self.notes),
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
            elif self.uninformative is None:
                body += f"; <i>informativeness not judged</i>: {self.informativeness_note}"
            for note in self.notes:
                body += f"; <i>note</i>: {note}"
        rows = "".join(f"<tr><td>{k}</td><td>{self.factors_exact.get(k) or '' if v is None else f'{v:.4g}'}</td></tr>"
                       for k, v in self.factors.items())
        return (f"<div><code>{self.name}</code> = {body}<br><small>{self.source.cite()}</small>"
                f"<table><tr><th>factor</th><th>log10</th></tr>{rows}</table></div>")


@dataclass(frozen=True)
class LogArray:
    """Vectorised log-space evaluation: ``log10`` array and the ``vacuous`` mask (same shape).

    Where ``vacuous`` is True, ``log10`` is ``+inf`` for an upper bound (the bound is infinite,
    e.g. Delta with ``1 - pi_max - epsilon <= 0``) and ``-inf`` for a lower bound or an estimate (it
    says nothing); it is never NaN, and never infinite where ``vacuous`` is False (such points
    raise instead).

    Attributes:
      log10: float array (numpy float64, or a JAX array in the caller's JAX precision).
      vacuous: bool array of the same shape.
      uninformative: bool array of the same shape where the bound is no better than its trivial
        bound (judged when the trivial bound's parameters, e.g. ``m`` for ``alignment.frobenius``,
        were given or it has none); ``None`` when it could not be judged (see ``judge_needs``) or the
        bound has no trivial bound.
      judge_needs: the optional parameters that were missing to judge informativeness (``("m",)``),
        empty when judged or when there is no trivial bound.
    """

    log10: Any
    vacuous: Any
    uninformative: Any = None
    judge_needs: tuple[str, ...] = ()
