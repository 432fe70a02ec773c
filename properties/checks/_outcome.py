"""What a check returns: :class:`Outcome` (verdict, numbers, figures) and the figure data.

Verdicts (docs/design.md, Verdicts), in :data:`VERDICTS`:

- ``holds``: an informative bound held: the measurement is on the right side of a bound that says
  something here (or the toolkit's assertion about a claim is confirmed), and, for a stochastic
  check, its interval was narrow enough that a real deviation would have shown;
- ``uninformative``: the measurement is on the right side, but the bound is no better than the
  trivial bound of the quantity (``trivial_bound``): it held without saying anything;
- ``violated``: the measurement contradicts the bound (for a stochastic check: the whole confidence
  interval is on the wrong side, and the suite's Holm correction still rejects);
- ``vacuous``: the bound is infinite or undefined here (``reason`` says why);
- ``inconclusive``: the interval straddles the bound, or the check could not have failed at its
  sample size (power below :data:`~._verdicts.POWER_TARGET` against the deviation it must detect);
  ``samples_needed`` says about how many samples would decide.

Deterministic and stochastic evidence are kept apart. An outcome's :attr:`Outcome.conditions` are its
deterministic requirements (:class:`Condition`: a premise of the statement, agreement with the
registry, with a reference value or a second implementation, finiteness of the numbers, an exact
identity); its stochastic test is the comparison of ``empirical``/``interval`` with the bound or band,
summarised by ``p_value``. A failed condition makes the verdict ``violated`` whatever the p-value,
and the suite's Holm correction (which only weighs stochastic evidence) never softens it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Outcome", "Condition", "CONDITION_KINDS", "PlotSpec", "Series", "Verdict", "VERDICTS", "FAILING",
           "FAILING_STRICT"]

Verdict = Literal["holds", "uninformative", "violated", "vacuous", "inconclusive"]

#: Every verdict value, in the order the report lists them.
VERDICTS: tuple[str, ...] = ("holds", "uninformative", "vacuous", "inconclusive", "violated")
#: Verdicts that make ``contrastive-bounds check`` exit 1 (plus a crashed check, ``error``).
FAILING: frozenset[str] = frozenset({"violated"})
#: Verdicts that make ``contrastive-bounds check --strict`` exit 1: every verdict but ``holds`` (a bound that
#: says nothing, and a check that did not decide, fail too).
FAILING_STRICT: frozenset[str] = frozenset({"violated", "uninformative", "vacuous", "inconclusive"})

#: The kinds of deterministic condition an outcome can carry (:class:`Condition`), with what each means.
CONDITION_KINDS: dict[str, str] = {
    "premise": "a premise of the statement (a schedule satisfies the note's condition; the theory says it traps)",
    "registry": "a claim of the theory registry has the verdict the toolkit asserts (certified where certification "
                "was asked)",
    "reference": "a value equals its tabulated reference (docs/reference-values.md) to the stated tolerance",
    "independent": "a value equals a second, separately written implementation to the stated tolerance",
    "finite": "the measured value, the bound and the p-value are numbers (no NaN; no infinite measurement)",
    "exact": "an identity or inequality of deterministic numbers (a replay to rounding, a closed form, a theorem on "
             "exact data, the consistency of a network's table)",
    "statement": "every inequality the outcome prints (its summary, its conditions) agrees with the numbers it prints",
}


@dataclass
class Condition:
    """One deterministic requirement of a check (no randomness behind it: no p-value can excuse it).

    Attributes:
      kind: a key of :data:`CONDITION_KINDS`.
      name: what is required, in words (e.g. ``"premise beta(t) >= (H*+eps)/log(t+2) on [0, 1e6]"``).
      ok: whether it holds.
      detail: the numbers behind it (what was compared, the largest difference).
    """

    kind: str
    name: str
    ok: bool
    detail: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CONDITION_KINDS:
            raise ValueError(f"kind={self.kind!r} must be one of {sorted(CONDITION_KINDS)}")
        self.ok = bool(self.ok)


@dataclass
class Series:
    """One line of a figure: ``y`` against ``x``, optional band ``lo``..``hi``."""

    label: str
    x: list[float]
    y: list[float]
    lo: list[float] | None = None
    hi: list[float] | None = None
    style: str = "-"


@dataclass
class PlotSpec:
    """Data of one figure (drawn by :mod:`.report` with matplotlib; kept as data in results.json)."""

    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    logx: bool = False
    logy: bool = False
    kind: Literal["lines", "bars"] = "lines"


@dataclass
class Outcome:
    """What a check function returns.

    Attributes:
      verdict: one of :data:`VERDICTS` (holds / uninformative / vacuous / inconclusive / violated).
      bound: the bound's value (float) or ``None`` (vacuous, or beyond float64: see ``bound_log10``).
      bound_log10: log10 of the bound when known.
      empirical: the measured value (the worst case over the check's samples, where it has several).
      interval: ``(lo, hi)`` confidence interval of ``empirical`` (equal ends when exact).
      ratio: empirical / bound (for an upper bound: <= 1 means it holds; the tightness).
      summary: one sentence a reader can act on (what was measured, what it means).
      false_alarm: probability that ``violated`` is reported although the statement is true.
      p_value: for stochastic checks, the p-value of "the statement holds" (used for Holm).
      samples: number of independent samples behind ``empirical``.
      samples_needed: for ``inconclusive``: how many samples would likely decide.
      slack: name -> log10 factor of slack (the slack budget of a proof chain), if any.
      reason: why vacuous, or the evidence of a claim's verdict.
      details: JSON-able extra numbers (kept in results.json).
      plots: figures for the report.
      band: for two-sided agreement checks (simulation vs a theoretical prediction), the range the
        theory allows once its stated model error is counted; ``bound`` is then the prediction and
        the verdict is "holds" when the interval meets the band.
      trivial_bound: the value the quantity can never exceed (upper bounds) or fall below (lower
        bounds) whatever happens, e.g. ``2 sqrt(m(m-1))`` for the Frobenius distance of two
        similarity matrices; a bound no better than it is ``uninformative``.
      kind: ``"upper"``, ``"lower"`` or ``"band"`` (agreement), set by the ``compare_*`` functions;
        ``None`` for hand-built outcomes (then a ``band``, or an interval around ``bound``, means
        agreement).
      detect: the smallest deviation beyond the bound or band that the check must detect (units of
        ``empirical``); stochastic agreement checks default to
        :func:`~._verdicts.default_detect`.
      power: probability that the check reports a deviation of ``detect`` (at its false-alarm
        rate and sample size); below :data:`~._verdicts.POWER_TARGET` a ``holds`` becomes
        ``inconclusive``.
      table: rows of evidence across a grid (each a dict column -> value, the same columns in every
        row), shown as a table in the report (e.g. H* across a grid with the search effort behind it).
      conditions: the deterministic conditions (:class:`Condition`) checked beside the stochastic test;
        one that fails makes the verdict ``violated`` whatever ``p_value`` says (added with
        :meth:`require`; :func:`~._verdicts.assess` enforces it and adds the finiteness condition).
      test_verdict: when a condition failed, the verdict the check's test alone gave (e.g. ``holds``:
        the simulation agreed with the band, but the schedule did not satisfy the premise); ``None``
        otherwise.
    """

    verdict: Verdict
    summary: str
    bound: float | None = None
    bound_log10: float | None = None
    empirical: float | None = None
    interval: tuple[float, float] | None = None
    ratio: float | None = None
    false_alarm: float = 0.0
    p_value: float | None = None
    samples: int | None = None
    samples_needed: int | None = None
    slack: dict[str, float] = field(default_factory=dict)
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    plots: list[PlotSpec] = field(default_factory=list)
    band: tuple[float, float] | None = None
    trivial_bound: float | None = None
    kind: Literal["upper", "lower", "band"] | None = None
    detect: float | None = None
    power: float | None = None
    table: list[dict[str, Any]] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    test_verdict: Verdict | None = None

    @property
    def failed_conditions(self) -> list[Condition]:
        """The deterministic conditions that do not hold (any one makes the verdict ``violated``)."""
        return [c for c in self.conditions if not c.ok]

    def require(self, kind: str, name: str, ok: bool, detail: str = "") -> bool:
        """Record a deterministic condition beside the outcome's test.

        The verdict field keeps the verdict of the check's *test* (what the comparison of the numbers
        says) while the check is being built; :func:`~._verdicts.assess` (applied to every outcome a
        registered check returns) then makes a failed condition ``violated`` and keeps the test's own
        verdict in :attr:`test_verdict`. Holm's correction never turns such a ``violated`` into
        ``inconclusive``. The summary gains ``"<KIND> FAILED: name (detail)"`` in front.

        Args:
          kind: a key of :data:`CONDITION_KINDS`; name: what is required; ok: whether it holds;
          detail: the numbers behind it.

        Returns:
          ``ok`` (as a bool), so a check can write ``if not out.require(...): ...``.

        Raises:
          ValueError: unknown ``kind``.
        """
        cond = Condition(kind, name, bool(ok), detail)
        self.conditions.append(cond)
        if not cond.ok:
            self.summary = f"{kind.upper()} FAILED: {name}" + (f" ({detail})" if detail else "") + "; " + self.summary
        return cond.ok

    def _repr_html_(self) -> str:
        """Notebook display: the verdict, the summary and the numbers as a small HTML table."""
        import html

        rows = [("bound", self.bound if self.bound is not None else
                 (f"10^{self.bound_log10:.4g}" if self.bound_log10 is not None else None)),
                ("empirical", self.empirical), ("interval", self.interval), ("ratio", self.ratio),
                ("false alarm", self.false_alarm or None), ("p-value", self.p_value), ("samples", self.samples),
                ("samples needed", self.samples_needed), ("trivial bound", self.trivial_bound),
                ("detects a deviation of", self.detect), ("power", self.power), ("reason", self.reason),
                ("deterministic conditions", (f"{len(self.conditions) - len(self.failed_conditions)} of "
                                              f"{len(self.conditions)} hold") if self.conditions else None)]
        rows += [(f"slack {k} (log10)", v) for k, v in self.slack.items()]
        cells = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(_fmt_cell(v))}</td></tr>"
                        for k, v in rows if v is not None)
        return (f"<div><b>{html.escape(self.verdict)}</b>: {html.escape(self.summary)}"
                f"<table>{cells}</table></div>")

    def _repr_latex_(self) -> str:
        """Notebook/LaTeX display: ``empirical <= bound`` (or the verdict alone) in math mode."""
        if self.bound is None and self.bound_log10 is None:
            return rf"$\text{{{self.verdict}}}$"
        b = f"{self.bound:.6g}" if self.bound is not None else f"10^{{{self.bound_log10:.4g}}}"
        e = "?" if self.empirical is None else f"{self.empirical:.6g}"
        r = "" if self.ratio is None else rf",\ \text{{ratio}}={self.ratio:.3g}"
        return rf"$\text{{{self.verdict}}}:\ \text{{empirical}}={e},\ \text{{bound}}={b}{r}$"


def _fmt_cell(v: Any) -> str:
    """A short text form of a number, pair or string for the HTML displays."""
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, tuple):
        return "[" + ", ".join(_fmt_cell(x) for x in v) + "]"
    return str(v)
