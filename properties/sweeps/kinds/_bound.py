"""Sweep kind ``bound``: a registered bound of the theory over a grid of its parameters (pure theory).

A spec names the bound (``kind = "bound"``, ``bound = "alignment.frobenius"``); its parameters are
the bound's (integer parameters as integers, the others as numbers), plus the optional parameters
of its trivial bound (e.g. ``m`` of ``alignment.frobenius``, which decides ``uninformative``) and the
inputs of its reparametrisations. Each row is validated by ``Bound.resolve`` before anything runs
(domains and constraints, naming the parameter). One task evaluates the bound with mpmath
(``Bound.evaluate``, 30 digits: never overflows) and stores its value and log10, the dominant
factor and the breakdown (``details``). Verdict: ``vacuous`` or ``uninformative`` with the reason,
else ``evaluated`` (nothing is measured; ``status`` says ``undetermined`` when a factor could not
be told from 0). The kind is deterministic: a spec gives no seeds.
"""

from __future__ import annotations

from typing import Any, Mapping

from contrastive_bounds.properties.sweeps.kinds._kind import REQUIRED, ParamSpec, TaskKind, TaskOutput, check_columns, register_kind

__all__ = ["BOUND", "DIGITS"]

DIGITS = 30
OUTPUTS = {"status": str, "dominant_factor": str, "log10_exact": str}


def _get(name: str):
    import contrastive_bounds.theory._registry as registry
    from contrastive_bounds.theory._bound import Bound

    try:
        obj = registry.get(name)
    except KeyError as exc:
        raise ValueError(f"bound={name!r}: {exc.args[0] if exc.args else 'unknown'}") from None
    if not isinstance(obj, Bound):
        raise ValueError(f"bound={name!r} is a claim, not a bound")
    return obj


def _run_with(name: str):
    def run(params: Mapping[str, Any], seed: int) -> TaskOutput:
        res = _get(name).evaluate(digits=DIGITS, **params)
        if res.vacuous:
            verdict, status = "vacuous", "vacuous"
        elif res.log10 is None and res.log10_exact is None:
            verdict, status = "evaluated", "undetermined"
        elif res.uninformative:
            verdict, status = "uninformative", "uninformative"
        else:
            verdict, status = "evaluated", "informative"
        shown = (f"10^{res.log10:.6g}" if res.log10 is not None else res.log10_exact or "unknown")
        return TaskOutput(verdict, f"{name} = {shown} ({status})", bound=res.value, bound_log10=res.log10, reason=res.reason,
                          outputs={"status": status, "dominant_factor": res.dominant_factor(), "log10_exact": res.log10_exact},
                          details={"factors_log10": res.factors, "source": res.source.cite()})
    return run


def _validate_with(name: str):
    def validate(params: Mapping[str, Any]) -> None:
        _get(name).resolve(params)
    return validate


def specialise(name: str) -> TaskKind:
    """The ``bound`` kind for the registered bound ``name``.

    Raises:
      ValueError: unknown name, or a claim's name.
    """
    b = _get(name)
    params = [ParamSpec(p.name, int if p.integer else float, REQUIRED, description=f"{p.description} ({p.domain_text()})")
              for p in b.params]
    seen = {p.name for p in params}
    extra = list(b.trivial[1]) if b.trivial else []
    extra += [p for rp in b.reparametrisations for p in rp.inputs]
    for p in extra:
        if p.name not in seen:
            seen.add(p.name)
            params.append(ParamSpec(p.name, int if p.integer else float, None, description=f"optional: {p.description}"))
    if b.reparametrisations:  # a reparametrised parameter may be given through its alternative instead
        targets = {t for rp in b.reparametrisations for t in rp.outputs}
        params = [ParamSpec(p.name, p.type, None, description=p.description) if p.name in targets else p for p in params]
    return check_columns(TaskKind(
        "bound", f"bound {name}: {b.title}", params=tuple(params), outputs=OUTPUTS, run=_run_with(name),
        cost=lambda p: 0.05, validate=_validate_with(name), uses_seed=False, target=name))


BOUND = register_kind(TaskKind(
    "bound", "a registered bound (spec key `bound` = its name) evaluated over a grid: value, log10, vacuous/uninformative",
    params=(), outputs=OUTPUTS, run=lambda p, s: TaskOutput("error"), cost=lambda p: 0.05, uses_seed=False,
    target_key="bound", specialise=specialise))
