"""The unit of the main job: a check joins a theorem (bound or claim) with a measurement.

A check is a function ``fn(params, seed) -> Outcome`` registered with :func:`check`. The runner
(:mod:`.runner`) wraps each outcome in a :class:`CheckResult` with the scenario, timing, seed and
versions, so every record in ``results.json`` is enough to re-run it.

Verdicts (DESIGN.md, Check):

- ``holds``: the measurement is on the right side of the bound (or the toolkit's assertion about a
  claim is confirmed), with the stated false-alarm probability;
- ``violated``: the measurement contradicts the bound (for a stochastic check: the whole confidence
  interval is on the wrong side, and the suite's Holm correction still rejects);
- ``vacuous``: the bound says nothing here (with the reason);
- ``inconclusive``: the interval straddles the bound; ``samples_needed`` says how many would decide.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

__all__ = ["Outcome", "CheckResult", "CheckSpec", "PlotSpec", "Series", "check", "defined_checks",
           "compare_upper", "compare_lower", "Verdict"]

Verdict = Literal["holds", "violated", "vacuous", "inconclusive"]
ROUNDING = 1e-9  # relative slack granted to deterministic float64 comparisons (rounding only)


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
      verdict: one of holds / violated / vacuous / inconclusive.
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
      table: rows of evidence across a grid (each a dict column -> value, the same columns in every
        row), shown as a table in the report (e.g. H* across a grid with the search effort behind it).
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
    table: list[dict[str, Any]] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """Notebook display: the verdict, the summary and the numbers as a small HTML table."""
        import html

        rows = [("bound", self.bound if self.bound is not None else
                 (f"10^{self.bound_log10:.4g}" if self.bound_log10 is not None else None)),
                ("empirical", self.empirical), ("interval", self.interval), ("ratio", self.ratio),
                ("false alarm", self.false_alarm or None), ("p-value", self.p_value), ("samples", self.samples),
                ("samples needed", self.samples_needed), ("reason", self.reason)]
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


@dataclass
class CheckResult:
    """One record of ``results.json``: an :class:`Outcome` plus what is needed to re-run it."""

    check: str
    theorem: str
    statement: str
    scenario: str
    params: dict[str, Any]
    seed: int
    outcome: Outcome
    seconds: float
    versions: dict[str, str]
    profile: str
    figures: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (NaN/inf become None in the writer)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "CheckResult":
        """Inverse of :meth:`to_dict` (used by ``--resume``)."""
        o = dict(d["outcome"])
        o["plots"] = [PlotSpec(**{**p, "series": [Series(**s) for s in p["series"]]}) for p in o.get("plots", [])]
        for key in ("interval", "band"):
            if o.get(key) is not None:
                o[key] = tuple(o[key])
        return cls(**{**d, "outcome": Outcome(**o)})

    def _repr_html_(self) -> str:
        """Notebook display: check id, scenario, theorem, seed and time above the outcome's table."""
        import html

        head = (f"<code>{html.escape(self.check)}</code> ({html.escape(self.scenario)}, seed {self.seed}, "
                f"{self.seconds:.1f} s): <i>{html.escape(self.theorem)}</i>")
        err = f"<br><b>error</b>: {html.escape(self.error)}" if self.error else ""
        return f"<div>{head}{err}{self.outcome._repr_html_()}</div>"

    def _repr_latex_(self) -> str:
        """Notebook/LaTeX display of the outcome (see :meth:`Outcome._repr_latex_`)."""
        return self.outcome._repr_latex_()


@dataclass(frozen=True)
class CheckSpec:
    """A registered check: id, the theorem it tests, and the function that runs it."""

    id: str
    theorem: str
    statement: str
    fn: Callable[[Mapping[str, Any], int], Outcome]
    defaults: Mapping[str, Mapping[str, Any]]  # profile -> default params
    paper: Literal["A", "B"]
    validate: Callable[[Mapping[str, Any]], None] | None = None  # raises ValueError naming a bad parameter


_CHECKS: dict[str, CheckSpec] = {}


def check(id: str, *, theorem: str, statement: str, paper: Literal["A", "B"],
          quick: Mapping[str, Any], thorough: Mapping[str, Any] | None = None,
          validate: Callable[[Mapping[str, Any]], None] | None = None) -> Callable:
    """Decorator registering ``fn(params, seed) -> Outcome`` as a check.

    Args:
      id: unique dotted id, e.g. ``"B4.theorem1"`` (THEOREMS.md section first).
      theorem: the theorem/claim tested, with its registry name where there is one.
      statement: the statement in one line.
      paper: ``"A"`` or ``"B"``.
      quick, thorough: default parameters of the built-in scenario in each profile.
      validate: optional ``validate(params)`` raising ValueError (naming the parameter and its range)
        for parameters the check cannot run with; called on user scenarios before anything runs.

    Raises:
      ValueError: duplicate id from a different function (re-loading the same file, e.g. in a
        notebook or a second scenario file importing it, replaces the old definition).
    """

    def deco(fn: Callable[[Mapping[str, Any], int], Outcome]) -> Callable:
        old = _CHECKS.get(id)
        if old is not None and (Path(old.fn.__code__.co_filename).name, old.fn.__qualname__) != (
                Path(fn.__code__.co_filename).name, fn.__qualname__):
            raise ValueError(f"check id {id!r} registered twice (by {old.fn.__qualname__} and {fn.__qualname__})")
        _CHECKS[id] = CheckSpec(id, theorem, statement, fn, {"quick": dict(quick), "thorough": dict(thorough or quick)},
                                paper, validate)
        return fn

    return deco


def defined_checks() -> dict[str, CheckSpec]:
    """The checks defined so far by :func:`check` (imports nothing; see
    :func:`contrastive_bounds.properties.checks.registry.registered_checks` for the built-in ones)."""
    return dict(sorted(_CHECKS.items()))


def _needed(n: int | None, estimate: float, half_width: float, margin: float) -> int | None:
    """Samples that would shrink the half-width below the margin (CI width ~ 1/sqrt(n))."""
    if not n or margin <= 0 or half_width <= 0:
        return None
    return int(math.ceil(n * (half_width / margin) ** 2))


def compare_upper(bound: float | None, empirical: float, interval: tuple[float, float] | None = None, *,
                  samples: int | None = None, what: str = "value", reason: str | None = None,
                  bound_log10: float | None = None, false_alarm: float = 0.0) -> Outcome:
    """Verdict for "empirical <= bound" (an upper bound).

    ``interval`` is the confidence interval of ``empirical`` (omit for an exact, deterministic value:
    then only float rounding, relative 1e-9, is tolerated). ``bound=None`` with ``bound_log10=None``
    means vacuous (give ``reason``); a bound beyond float64 is given by ``bound_log10`` alone.
    """
    if bound is None and bound_log10 is None:
        return Outcome("vacuous", f"bound is vacuous: {reason}", empirical=empirical, interval=interval,
                       reason=reason, samples=samples)
    lo, hi = interval if interval is not None else (empirical, empirical)
    if bound is None:  # astronomically large: holds unless the measurement is too
        ratio = 0.0
        return Outcome("holds", f"{what} {empirical:.4g} <= 10^{bound_log10:.1f}", None, bound_log10, empirical,
                       (lo, hi), ratio, false_alarm, samples=samples)
    tol = ROUNDING * max(abs(bound), 1e-300) if interval is None else 0.0
    ratio = empirical / bound if bound > 0 else (math.inf if empirical > 0 else 0.0)
    blog = math.log10(bound) if bound > 0 else None
    if hi <= bound + tol:
        verdict: Verdict = "holds"
        text = f"{what} {empirical:.4g} <= bound {bound:.4g} (ratio {ratio:.3g})"
    elif lo > bound + tol:
        verdict = "violated"
        text = f"{what} {empirical:.4g} EXCEEDS bound {bound:.4g} (ratio {ratio:.3g})"
    else:
        verdict = "inconclusive"
        text = f"{what} interval [{lo:.4g}, {hi:.4g}] straddles bound {bound:.4g}"
    needed = _needed(samples, empirical, (hi - lo) / 2, abs(bound - empirical)) if verdict == "inconclusive" else None
    return Outcome(verdict, text, bound, blog, empirical, (lo, hi), ratio, false_alarm, samples=samples,
                   samples_needed=needed)


def compare_lower(bound: float | None, empirical: float, interval: tuple[float, float] | None = None, *,
                  samples: int | None = None, what: str = "value", reason: str | None = None,
                  false_alarm: float = 0.0) -> Outcome:
    """Verdict for "empirical >= bound" (a lower bound); conventions as :func:`compare_upper`.

    The ratio reported is ``bound / empirical`` (<= 1 when it holds; near 1 means tight).
    """
    if bound is None:
        return Outcome("vacuous", f"bound is vacuous: {reason}", empirical=empirical, interval=interval,
                       reason=reason, samples=samples)
    lo, hi = interval if interval is not None else (empirical, empirical)
    tol = ROUNDING * max(abs(bound), 1.0) if interval is None else 0.0
    ratio = bound / empirical if empirical > 0 else None
    if lo >= bound - tol:
        verdict: Verdict = "holds"
        text = f"{what} {empirical:.4g} >= bound {bound:.4g}"
    elif hi < bound - tol:
        verdict = "violated"
        text = f"{what} {empirical:.4g} is BELOW bound {bound:.4g}"
    else:
        verdict = "inconclusive"
        text = f"{what} interval [{lo:.4g}, {hi:.4g}] straddles bound {bound:.4g}"
    needed = _needed(samples, empirical, (hi - lo) / 2, abs(bound - empirical)) if verdict == "inconclusive" else None
    return Outcome(verdict, text, bound, math.log10(bound) if bound > 0 else None, empirical, (lo, hi), ratio,
                   false_alarm, samples=samples, samples_needed=needed)
