"""The parts a :class:`~._bound.Bound` is declared with, and how its parameters are described.

- :class:`Vacuity`: where the bound says nothing (``expr <= 0``), with the reason;
- :class:`Constraint`: a cross-parameter domain condition (``expr >= 0``) whose violation is an error;
- :class:`Reparametrisation`: another way to give some parameters (``num_classes`` for ``pi_max``);
- :class:`Caveat`: where an estimate is outside its regime (``expr <= 0``): a note, not vacuity.

:func:`accepted_params` lists every keyword a bound accepts, with its role, so that ``list``,
``bound NAME --help`` and the unknown-parameter message all show the same complete list
(:func:`parameter_lines`, :func:`unknown_parameter_message`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import sympy as sp

from ._domains import Param

__all__ = ["Vacuity", "Constraint", "Reparametrisation", "Caveat", "AcceptedParam", "accepted_params",
           "param_text", "parameter_lines", "unknown_parameter_message"]


@dataclass(frozen=True)
class Vacuity:
    """The bound is vacuous where ``expr <= 0`` (``expr`` a sympy expression in the parameters)."""

    expr: sp.Expr
    reason: str


@dataclass(frozen=True)
class Constraint:
    """A cross-parameter domain condition: ``expr >= 0`` must hold, else ValueError(message)."""

    expr: sp.Expr
    message: str


@dataclass(frozen=True)
class Caveat:
    """An estimate is outside its regime where ``expr <= 0``: the value is still given, with ``note``.

    Example: the Eyring–Kramers time with ``barrier/temperature < 10`` (order-one corrections).
    """

    expr: sp.Expr
    note: str


@dataclass(frozen=True)
class Reparametrisation:
    """An alternative way to give some parameters, e.g. ``num_classes`` instead of ``pi_max``.

    Attributes:
      inputs: the alternative parameters (validated like any other).
      outputs: target parameter name -> function of the inputs (exact sympy arithmetic) giving it.
      description: how the alternative maps, for humans (``pi_max = 1/num_classes``).
    """

    inputs: tuple[Param, ...]
    outputs: Mapping[str, Callable[..., Any]]
    description: str = ""


@dataclass(frozen=True)
class AcceptedParam:
    """One keyword a bound accepts.

    Attributes:
      param: the :class:`Param` (name, domain, meaning, units).
      role: ``"required"``, ``"alternative"`` (a reparametrisation input: give it instead of the
        parameters it replaces) or ``"optional"`` (only needed to judge informativeness against
        the trivial bound).
      note: for alternatives, the mapping (``pi_max = 1/num_classes``); for optional parameters,
        the trivial bound they enter.
    """

    param: Param
    role: str
    note: str = ""


def accepted_params(bound: Any) -> list[AcceptedParam]:
    """Every keyword ``bound`` accepts: its parameters, their alternatives, optional trivial-bound ones."""
    out = [AcceptedParam(p, "required") for p in bound.params]
    seen = {p.name for p in bound.params}
    for rp in bound.reparametrisations:
        for p in rp.inputs:
            if p.name not in seen:
                seen.add(p.name)
                out.append(AcceptedParam(p, "alternative", rp.description))
    if bound.trivial is not None:
        for p in bound.trivial[1]:
            if p.name not in seen:
                seen.add(p.name)
                out.append(AcceptedParam(p, "optional", f"judges informativeness: trivial bound {bound.trivial[2]}"))
    return out


def param_text(p: Param) -> str:
    """``name in DOMAIN: meaning [units]`` for one parameter."""
    units = f" [{p.units}]" if p.units and p.units != "dimensionless" else ""
    return f"{p.name} in {p.domain_text()}: {p.description or 'no description'}{units}"


def parameter_lines(bound: Any) -> list[str]:
    """One line per accepted keyword (see :func:`accepted_params`), marked by role."""
    lines = []
    for a in accepted_params(bound):
        tag = {"required": "", "alternative": "(alternative) ", "optional": "(optional) "}[a.role]
        lines.append(f"{tag}{param_text(a.param)}" + (f" -- {a.note}" if a.note else ""))
    return lines


def unknown_parameter_message(bound: Any, key: str) -> str:
    """One line: ``key`` is not a parameter of ``bound``; every accepted keyword with domain and meaning."""
    return f"{bound.name} has no parameter {key!r}; it accepts: " + "; ".join(parameter_lines(bound))
