"""Sweep kind ``check``: a registered check of the main job over a grid of its parameters.

A spec names the check (``kind = "check"``, ``check = "A4.convergence"``); its parameters are the
check's own (the defaults of its ``quick`` profile, with their types), validated by the check's
``validate`` where it has one. One task calls the check function ``fn(params, seed)`` from
:func:`contrastive_bounds.properties.checks.registered_checks` and stores its
:class:`~contrastive_bounds.properties.checks.Outcome`: verdict, bound, empirical value and
interval, ratio, p-value, false-alarm probability, reason; the slack budget and the check's
details go to ``details``. Figures of the outcome are not kept (the sweep report draws its own).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from contrastive_bounds.properties.sweeps.kinds._kind import ParamSpec, TaskKind, TaskOutput, check_columns, register_kind

__all__ = ["CHECK"]

OUTPUTS = {"band_lo": float, "band_hi": float, "samples_needed": int}
#: Cost assumed per check run when nothing better is known (seconds on one core; the quick
#: profile's checks take 1-15 s on the reference machine).
DEFAULT_CHECK_SECONDS = 10.0


def _param(name: str, default: Any) -> ParamSpec:
    t = bool if isinstance(default, bool) else int if isinstance(default, int) else float if isinstance(default, float) \
        else str if isinstance(default, str) else list
    return ParamSpec(name, t, list(default) if t is list else default, description=f"check parameter (default {default!r})")


def _run_with(check_id: str):
    def run(params: Mapping[str, Any], seed: int) -> TaskOutput:
        from contrastive_bounds.properties.checks._registry import registered_checks

        o = registered_checks()[check_id].fn(dict(params), seed)
        lo, hi = o.interval if o.interval is not None else (None, None)
        ratio_l10 = math.log10(o.ratio) if o.ratio is not None and o.ratio > 0 and math.isfinite(o.ratio) else None
        band = o.band or (None, None)
        return TaskOutput(o.verdict, o.summary, bound=o.bound, bound_log10=o.bound_log10, empirical=o.empirical,
                          ci_lo=lo, ci_hi=hi, ratio=o.ratio, ratio_log10=ratio_l10, p_value=o.p_value,
                          false_alarm=o.false_alarm, samples=o.samples, reason=o.reason,
                          outputs={"band_lo": band[0], "band_hi": band[1], "samples_needed": o.samples_needed},
                          details={"slack": dict(o.slack), "details": o.details})
    return run


def specialise(check_id: str) -> TaskKind:
    """The ``check`` kind for the registered check ``check_id``.

    Raises:
      ValueError: unknown check id (listing close ids).
    """
    import difflib

    from contrastive_bounds.properties.checks._registry import registered_checks

    checks = registered_checks()
    if check_id not in checks:
        close = difflib.get_close_matches(str(check_id), list(checks), n=3)
        raise ValueError(f"check={check_id!r} is not a registered check" + (f"; did you mean {', '.join(close)}?" if close
                                                                          else f"; checks: {', '.join(checks)}"))
    spec = checks[check_id]
    params = tuple(_param(k, v) for k, v in spec.defaults["quick"].items())
    return check_columns(TaskKind(
        "check", f"check {check_id}: {spec.statement}", params=params, outputs=OUTPUTS, run=_run_with(check_id),
        cost=lambda p: DEFAULT_CHECK_SECONDS, validate=spec.validate, target=check_id))


CHECK = register_kind(TaskKind(
    "check", "a registered check of the main job (spec key `check` = its id) over a grid of its parameters",
    params=(), outputs=OUTPUTS, run=lambda p, s: TaskOutput("error"), cost=lambda p: DEFAULT_CHECK_SECONDS,
    target_key="check", specialise=specialise))
