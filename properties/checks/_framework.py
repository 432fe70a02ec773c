"""The unit of the main job: a check joins a theorem (bound or claim) with a measurement.

A check is a function ``fn(params, seed) -> Outcome`` registered with :func:`check`. The runner
(:mod:`.runner`) wraps each outcome in a :class:`CheckResult` with the scenario, timing, seed and
versions, so every record in ``results.json`` is enough to re-run it.

The verdicts and what they mean are in :mod:`._outcome`; the comparisons that produce them
(``compare_upper``, ``compare_lower``, ``compare_band``) and the rules that keep a ``holds`` honest
(informative, powered) are in :mod:`._verdicts`.
Every outcome a registered check returns goes through :func:`~._verdicts.assess`.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

from contrastive_bounds.properties.checks._outcome import (CONDITION_KINDS, FAILING, FAILING_STRICT, VERDICTS, Condition,
                                                          Outcome, PlotSpec, Series, Verdict)
from contrastive_bounds.properties.checks._verdicts import (ROUNDING, assess, compare_band, compare_lower,
                                                           compare_upper, could_not_have_failed)

__all__ = ["CheckResult", "CheckSpec", "check", "defined_checks", "state_truthfully"]


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
    def from_dict(cls, d: Mapping[str, Any]) -> CheckResult:
        """Inverse of :meth:`to_dict` (used by ``--resume``)."""
        o = dict(d["outcome"])
        o["plots"] = [PlotSpec(**{**p, "series": [Series(**s) for s in p["series"]]}) for p in o.get("plots", [])]
        o["conditions"] = [Condition(**c) for c in o.get("conditions", [])]
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
    fn: Callable[[Mapping[str, Any], int], Outcome]  # the check's function, its outcome passed through assess
    defaults: Mapping[str, Mapping[str, Any]]  # profile -> default params
    paper: Literal["A", "B"]
    validate: Callable[[Mapping[str, Any]], None] | None = None  # raises ValueError naming a bad parameter


_CHECKS: dict[str, CheckSpec] = {}


def check(id: str, *, theorem: str, statement: str, paper: Literal["A", "B"],
          quick: Mapping[str, Any], thorough: Mapping[str, Any] | None = None,
          validate: Callable[[Mapping[str, Any]], None] | None = None) -> Callable:
    """Decorator registering ``fn(params, seed) -> Outcome`` as a check.

    The decorated name is the assessed function (every outcome goes through :func:`~._verdicts.assess`,
    so a failed deterministic condition is ``violated`` however the check is called); the original is
    its ``__wrapped__``.

    Args:
      id: unique dotted id, e.g. ``"B4.theorem1"`` (docs/theorems.md section first).
      theorem: the theorem/claim tested, with its registry name where there is one.
      statement: the statement in one line.
      paper: ``"A"`` or ``"B"``.
      quick, thorough: default parameters of the built-in scenario in each profile.
      validate: optional ``validate(params)`` raising ValueError (naming the parameter and its range)
        for parameters the check cannot run with; called on user scenarios before anything runs.

    Raises:
      ValueError: duplicate id from a different function (re-loading the same file, e.g. in a
        notebook or a second scenario file importing it, replaces the old definition).

    Examples:
      A check of your own: a function ``(params, seed) -> Outcome`` registered by the decorator, here the
      Clopper-Pearson upper end of a fair coin's heads fraction against the bound 0.6 (what ``contrastive-bounds
      check`` runs for every registered check; ``properties.scenarios`` names it in a TOML file):

      >>> import numpy as np
      >>> from contrastive_bounds.numerics import clopper_pearson
      >>> @check("my.coin", theorem="a fair coin", statement="heads fraction <= 0.6", paper="B",
      ...        quick={"flips": 2000})
      ... def coin(params, seed):
      ...     heads = int(np.random.default_rng(seed).integers(0, 2, params["flips"]).sum())
      ...     ci = clopper_pearson(heads, params["flips"], 0.999)
      ...     return compare_upper(0.6, ci.estimate, (ci.lo, ci.hi), what="heads fraction", samples=params["flips"])
      >>> outcome = coin({"flips": 2000}, 0)
      >>> outcome.verdict
      'holds'
      >>> "my.coin" in defined_checks()
      True
    """

    def deco(fn: Callable[[Mapping[str, Any], int], Outcome]) -> Callable:
        old = _CHECKS.get(id)
        old_fn = getattr(old.fn, "__wrapped__", old.fn) if old is not None else None
        if old_fn is not None and (Path(old_fn.__code__.co_filename).name, old_fn.__qualname__) != (
                Path(fn.__code__.co_filename).name, fn.__qualname__):
            raise ValueError(f"check id {id!r} registered twice (by {old_fn.__qualname__} and {fn.__qualname__})")

        @functools.wraps(fn)
        def assessed(params: Mapping[str, Any], seed: int) -> Outcome:
            return state_truthfully(assess(fn(params, seed)))  # informative and powered, whoever built the outcome

        _CHECKS[id] = CheckSpec(id, theorem, statement, assessed,
                                {"quick": dict(quick), "thorough": dict(thorough or quick)}, paper, validate)
        return assessed  # a direct call of the module's function is assessed too (its original: __wrapped__)

    return deco


def state_truthfully(outcome: Outcome) -> Outcome:
    """Add a failed ``statement`` condition (so the verdict is ``violated``) when the outcome prints an
    inequality its own numbers contradict (:func:`~contrastive_bounds.properties.contradictions`
    over the summary and every condition's name and detail). Idempotent; returns ``outcome``."""
    from contrastive_bounds.properties._statements import contradictions

    if any(c.kind == "statement" for c in outcome.conditions):
        return outcome
    texts = [outcome.summary] + [t for c in outcome.conditions for t in (c.name, c.detail)]
    found = [str(x) for t in texts for x in contradictions(t)]
    if found:
        outcome.require("statement", "the printed inequalities agree with the printed numbers", False, "; ".join(found))
        assess(outcome)
    return outcome


def defined_checks() -> dict[str, CheckSpec]:
    """The checks defined so far by :func:`check` (imports nothing; see
    :func:`contrastive_bounds.properties.checks.registered_checks` for the built-in ones)."""
    return dict(sorted(_CHECKS.items()))
