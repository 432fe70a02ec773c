"""Agreement of a toolkit value with an independent implementation or a reference value.

Every bound, schedule and rate a check relies on is compared, inside the check, with a second
implementation written separately (mpmath closed forms in :mod:`._independent_alignment` and
:mod:`._independent_annealing`) and with reference values at two or more points (docs/reference-values.md C02/C03
where published, 40-digit mpmath otherwise). A bound that became *weaker* still passes
"measured <= bound"; it does not pass these comparisons, so the check turns red
(docs/design.md, Verdicts: "a weaker bound must turn a check red, not only a violated one").

:class:`Agreement` is one comparison; :func:`apply_agreements` folds a list of them into a check's
:class:`~._framework.Outcome` as deterministic conditions (kind ``independent`` for second
implementations, ``reference`` for tabulated values): a disagreement makes it ``violated`` whatever the
p-value of its stochastic test, naming the first disagreement; the rows are in ``details["independent"]``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from contrastive_bounds.properties._statements import compare_text
from contrastive_bounds.properties.checks._outcome import Condition, Outcome

__all__ = ["Agreement", "agreement", "apply_agreements", "relative_error", "DEFAULT_RTOL"]

#: Relative tolerance of a float64 value against its 40-digit reference: rounding only.
DEFAULT_RTOL = 1e-10


def relative_error(value: float, reference: float) -> float:
    """``|value - reference| / max(|reference|, 1e-300)``; ``inf`` when either is not finite (unless equal)."""
    if value == reference:
        return 0.0
    if not (math.isfinite(value) and math.isfinite(reference)):
        return math.inf
    return abs(value - reference) / max(abs(reference), 1e-300)


@dataclass(frozen=True)
class Agreement:
    """One comparison of a toolkit value with an independent one.

    Attributes:
      quantity: what is compared, e.g. ``"alignment.loss_gap (numpy)"``.
      point: the parameters, as text.
      toolkit: the value the check uses; independent: the second implementation's (or reference) value.
      source: ``"independent"`` (a second implementation) or ``"reference"`` (a tabulated value, with
        its origin, e.g. ``"docs/reference-values.md C03"``).
      rel_error: relative difference; rtol: the tolerance it is held to.
    """

    quantity: str
    point: str
    toolkit: float
    independent: float
    source: str
    rel_error: float
    rtol: float

    @property
    def ok(self) -> bool:
        """Whether the two values agree within ``rtol``."""
        return self.rel_error <= self.rtol

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (with ``ok``)."""
        return {**asdict(self), "ok": self.ok}


def agreement(quantity: str, point: str, toolkit: float, independent: float, *, source: str = "independent",
              rtol: float = DEFAULT_RTOL) -> Agreement:
    """Build an :class:`Agreement` (floats are converted; mpmath numbers are accepted)."""
    t, r = float(toolkit), float(independent)
    return Agreement(quantity, point, t, r, source, relative_error(t, r), float(rtol))


def apply_agreements(out: Outcome, rows: Iterable[Agreement]) -> Outcome:
    """Record ``rows`` in ``out.details["independent"]`` and as deterministic conditions of ``out``.

    One condition per kind of comparison present (``independent``: second implementations;
    ``reference``: tabulated values, their source starting with ``"reference"``). A disagreement
    makes ``out`` ``violated`` whatever its p-value says (Holm never softens it).

    Returns:
      ``out`` itself, its verdict field untouched (the summary gains the count and the largest relative
      error, or the first disagreeing row); :func:`~._verdicts.assess` makes a disagreement ``violated``.
    """
    rows = list(rows)
    if not rows:
        return out
    out.details = {**out.details, "independent": [r.to_dict() for r in rows]}
    bad = [r for r in rows if not r.ok]
    for kind in ("independent", "reference"):
        mine = [r for r in rows if (r.source.startswith("reference") == (kind == "reference"))]
        if not mine:
            continue
        wrong = [r for r in mine if not r.ok]
        what = "second implementations" if kind == "independent" else "reference values"
        if wrong:
            b = wrong[0]
            detail = (f"{b.quantity} at {b.point}: {b.toolkit:.17g} vs {b.independent:.17g} ({b.source}; "
                      f"{compare_text('relative', b.rel_error, 'tolerance', b.rtol, '.2e')}; {len(wrong)} of {len(mine)} "
                      "comparisons fail)")
        else:
            detail = f"{len(mine)} comparisons, largest relative difference {max(r.rel_error for r in mine):.1e}"
        out.conditions.append(Condition(kind, f"the values the check uses agree with their {what}", not wrong, detail))
    if bad:  # the verdict becomes violated in assess (the test's own verdict is kept in test_verdict)
        b = bad[0]
        out.summary = (f"{b.quantity} DISAGREES with its {b.source} value at {b.point}: {b.toolkit:.17g} vs "
                       f"{b.independent:.17g} ({compare_text('relative', b.rel_error, 'tolerance', b.rtol, '.2e')}; "
                       f"{len(bad)} of {len(rows)} comparisons fail); " + out.summary)
    else:
        worst = max(r.rel_error for r in rows)
        out.summary += f"; {len(rows)} independent/reference comparisons agree (largest relative difference {worst:.1e})"
    return out
