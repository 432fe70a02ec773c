"""Task kinds of a sweep: what one task computes, as a pure function of (kind, parameters, seed).

A kind is a :class:`TaskKind`: its parameters (each a :class:`ParamSpec` with a type, a default and a
domain check), the typed output columns it adds to the results table, a cost estimate, and
``run(params, seed) -> TaskOutput``. The built-in kinds live in the modules of :data:`KIND_MODULES`;
importing a module registers its kinds with :func:`register_kind` (as the checks register with
``@check``). Adding a kind is one module and one line in :data:`KIND_MODULES`::

    # properties/sweeps/kinds/_landscape.py
    from contrastive_bounds.properties.sweeps.kinds._kind import ParamSpec, TaskKind, TaskOutput, register_kind

    def _run(params, seed):
        ...                                   # call the numerics; never write files here
        return TaskOutput("measured", summary="...", empirical=h_star, outputs={"num_minima": 12})

    register_kind(TaskKind("landscape", "critical height of an InfoNCE landscape network",
                           params=(ParamSpec("dim", int, 3, check=...), ...),
                           outputs={"num_minima": int}, run=_run, cost=lambda p: 5.0))

and ``"contrastive_bounds.properties.sweeps.kinds._landscape"`` appended to :data:`KIND_MODULES`.

Kinds with a *target* (``check``: a registered check id; ``bound``: a registered bound name) take
their parameter list from the target: ``TaskKind.specialise(target)`` returns the concrete kind.

Verdicts a row can carry (``TaskOutput.verdict``): ``holds``, ``violated``, ``inconclusive`` (a
comparison was made), ``vacuous`` / ``uninformative`` (the bound says nothing here; ``reason`` says
why), ``evaluated`` (a pure theory value, nothing measured) and ``measured`` (a measurement with no
prediction to compare it with); the engine adds ``error`` for a task that raised.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["ParamSpec", "TaskKind", "TaskOutput", "register_kind", "get_kind", "list_kinds", "KIND_MODULES",
           "VERDICTS", "REQUIRED", "KIND_ALIASES", "check_columns"]

#: Modules whose import registers the built-in kinds.
KIND_MODULES: tuple[str, ...] = (
    "contrastive_bounds.properties.sweeps.kinds._check",
    "contrastive_bounds.properties.sweeps.kinds._anneal",
    "contrastive_bounds.properties.sweeps.kinds._align",
    "contrastive_bounds.properties.sweeps.kinds._bound",
    "contrastive_bounds.properties.sweeps.kinds._landscape",
)

#: Other spellings accepted in a spec's ``kind`` (the command line's words).
KIND_ALIASES = {"align simulate": "align-simulate", "align train": "align-train"}

VERDICTS = ("holds", "violated", "inconclusive", "vacuous", "uninformative", "evaluated", "measured", "error")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Default of a parameter that every row must give.
REQUIRED: Any = _Required()

_TYPE_NAMES = {int: "an integer", float: "a number", bool: "a boolean", str: "a string", list: "a list"}


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a kind.

    Attributes:
      name: the field's term (``tau``, ``batch_size``, ``chains``...); also the results column.
      type: ``int``, ``float``, ``bool``, ``str`` or ``list`` (a list is stored as JSON text).
      default: used when a row does not give it; :data:`REQUIRED` when it must be given; ``None``
        for an optional parameter that is absent unless given.
      check: ``check(value) -> value`` raising ValueError naming the parameter and its range
        (``theory.domains.check_real`` / ``check_int`` do); None: any value of the type.
      choices: allowed values of a ``str`` parameter.
      description: one line for ``--list`` and the docs.
    """

    name: str
    type: type
    default: Any = REQUIRED
    check: Callable[[Any], Any] | None = None
    choices: tuple[str, ...] | None = None
    description: str = ""

    def coerce(self, value: Any) -> Any:
        """Return ``value`` as this parameter's type, checked against its domain.

        Raises:
          ValueError: wrong type (an int is accepted for a float, nothing else is converted), a
            value outside ``choices``, or the domain check's own message.
        """
        t = self.type
        ok = (isinstance(value, bool) if t is bool else
              isinstance(value, (int, float)) and not isinstance(value, bool) if t is float else
              isinstance(value, int) and not isinstance(value, bool) if t is int else
              isinstance(value, (list, tuple)) if t is list else isinstance(value, t))
        if not ok:
            raise ValueError(f"{self.name}={value!r} must be {_TYPE_NAMES.get(t, t.__name__)}")
        if t is float:
            value = float(value)
            if not math.isfinite(value):
                raise ValueError(f"{self.name}={value!r} must be finite")
        if t is list:
            value = list(value)
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.name}={value!r} must be one of {', '.join(map(str, self.choices))}")
        if self.check is not None:
            value = self.check(value)
            if t is float:
                value = float(value)
        return value


@dataclass
class TaskOutput:
    """What ``TaskKind.run`` returns: the common columns of a row plus the kind's own outputs.

    Attributes:
      verdict: one of :data:`VERDICTS` (not ``error``); summary: one sentence.
      bound, bound_log10: the theory's value (``bound`` None where beyond float64 or vacuous).
      empirical, ci_lo, ci_hi: the measurement and its confidence interval (equal ends when exact).
      ratio, ratio_log10: empirical/bound for an upper bound, bound/empirical for a lower bound,
        empirical/prediction for an agreement (``ratio_log10`` exact where ``ratio`` underflows).
      p_value, false_alarm, samples: the statistics of a stochastic comparison.
      reason: why vacuous / uninformative / measured-only.
      outputs: the kind's typed output columns (:attr:`TaskKind.outputs`).
      details: JSON-able extras (kept as text in the row).
    """

    verdict: str
    summary: str = ""
    bound: float | None = None
    bound_log10: float | None = None
    empirical: float | None = None
    ci_lo: float | None = None
    ci_hi: float | None = None
    ratio: float | None = None
    ratio_log10: float | None = None
    p_value: float | None = None
    false_alarm: float | None = None
    samples: int | None = None
    reason: str | None = None
    outputs: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskKind:
    """A kind of task.

    Attributes:
      name: what a spec's ``kind`` says (``anneal``, ``align-simulate``...).
      description: one line.
      params: the parameters, in column order.
      outputs: output column name -> type (``int``, ``float``, ``bool``, ``str``).
      run: ``run(params, seed) -> TaskOutput``; pure: the same arguments give the same output on
        any worker (no clock, no global state; the row's wall time is measured by the engine).
      cost: ``cost(params) -> seconds`` on one core (an estimate, for the pre-run cost check).
      validate: optional cross-parameter check ``validate(params)`` raising ValueError naming the
        parameters (single parameters are checked by their :class:`ParamSpec`).
      uses_seed: False for deterministic kinds (a spec may then give one seed only).
      target: for kinds specialised to a check or a bound, its id (recorded in every row).
      target_key: the spec key naming the target (``check``, ``bound``) of a generic kind that
        must be specialised; None when the kind is concrete.
      specialise: ``specialise(target) -> TaskKind`` for generic kinds.
    """

    name: str
    description: str
    params: tuple[ParamSpec, ...]
    outputs: Mapping[str, type]
    run: Callable[[Mapping[str, Any], int], TaskOutput]
    cost: Callable[[Mapping[str, Any]], float]
    validate: Callable[[Mapping[str, Any]], None] | None = None
    uses_seed: bool = True
    target: str = ""
    target_key: str | None = None
    specialise: Callable[[str], "TaskKind"] | None = None

    def param(self, name: str) -> ParamSpec:
        """The parameter called ``name``; KeyError when the kind has none."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def resolve(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter of a row: the given values coerced and checked, defaults filled in.

        Raises:
          ValueError: an unknown parameter (naming the known ones), a missing required one, or a
            value outside its domain (the parameter's own message); then :attr:`validate`'s.
        """
        names = [p.name for p in self.params]
        for k in given:
            if k not in names:
                raise ValueError(f"unknown parameter {k!r} of kind {self.name!r}; parameters: {', '.join(names)}")
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name in given:
                out[p.name] = p.coerce(given[p.name])
            elif p.default is REQUIRED:
                raise ValueError(f"missing parameter {p.name!r} of kind {self.name!r} ({p.description})")
            elif p.default is not None:
                out[p.name] = p.default
        if self.validate is not None:
            self.validate(out)
        return out


_KINDS: dict[str, TaskKind] = {}


def check_columns(kind: TaskKind) -> TaskKind:
    """Return ``kind`` after checking that its parameter and output names can be results columns.

    Raises:
      ValueError: a parameter or output name that is a reserved results column (``seed``,
        ``verdict``, ``bound``...), or an output that repeats a parameter name.
    """
    from contrastive_bounds.properties.sweeps._store import RESERVED_COLUMNS

    label = kind.name + (f" {kind.target}" if kind.target else "")
    for p in kind.params:
        if p.name in RESERVED_COLUMNS:
            raise ValueError(f"kind {label!r}: parameter {p.name!r} is a reserved results column")
    for name in kind.outputs:
        if name in RESERVED_COLUMNS or name in {p.name for p in kind.params}:
            raise ValueError(f"kind {label!r}: output {name!r} clashes with a results column or a parameter")
    return kind


def register_kind(kind: TaskKind) -> TaskKind:
    """Register ``kind`` under its name (re-registering the same name replaces it); returns it.

    Raises:
      ValueError: as :func:`check_columns`.
    """
    _KINDS[kind.name] = check_columns(kind)
    return kind


def _load() -> None:
    for module in KIND_MODULES:
        importlib.import_module(module)


def list_kinds() -> dict[str, TaskKind]:
    """Every registered kind (importing :data:`KIND_MODULES`), sorted by name."""
    _load()
    return dict(sorted(_KINDS.items()))


def get_kind(name: str, target: str | None = None) -> TaskKind:
    """The kind called ``name`` (an alias of :data:`KIND_ALIASES` accepted), specialised to ``target``.

    Raises:
      ValueError: unknown kind (listing the known ones); a generic kind without its target, or a
        target given to a kind that takes none; an unknown target (the specialiser's message).
    """
    _load()
    name = KIND_ALIASES.get(name, name)
    if name not in _KINDS:
        raise ValueError(f"kind={name!r} is not a task kind; kinds: {', '.join(sorted(_KINDS))}")
    kind = _KINDS[name]
    if kind.target_key is None:
        if target is not None:
            raise ValueError(f"kind {name!r} takes no target; remove the {target!r} key")
        return kind
    if target is None:
        raise ValueError(f"kind {name!r} needs the spec key {kind.target_key!r} (which {kind.target_key} to run)")
    assert kind.specialise is not None
    return kind.specialise(target)
