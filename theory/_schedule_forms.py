"""The schedule forms of docs/theorems.md A2 and their evaluation from a form name and its parameters.

:func:`form_beta` and :func:`form_temperature` evaluate ``beta(t)`` and ``T(t)`` of a form from a
mapping of its parameters, in any array namespace (``numpy`` or ``jax.numpy``) and with elementwise
operations only, so the same code runs eagerly, under ``jit`` and under ``vmap``; the parameter
values may be Python floats or traced scalars. :class:`._schedules.Schedule` evaluates through them,
and the simulator (:mod:`contrastive_bounds.numerics.langevin._temperature`) does too with the
parameters as data of its compiled program, so runs that differ only in their constants share one
compilation. The definitions of the forms are tabled in :mod:`._schedules`.
"""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Mapping

import numpy as np

__all__ = ["FORMS", "LOG_FORMS", "FAST_FORMS", "FORM_PARAMETERS", "form_beta", "form_temperature"]

#: Logarithmic forms, all with a finite positive HKS constant.
LOG_FORMS = ("temperature", "inverse-temperature", "author", "noise", "generator")
#: Forms whose temperature goes to 0 faster than any c/log t (or reaches 0 in finite time).
FAST_FORMS = ("linear", "exponential", "polynomial", "sqrt")
FORMS = ("fixed",) + LOG_FORMS + FAST_FORMS

#: form -> (required parameters, {optional parameter: default}); every parameter is a float.
FORM_PARAMETERS: dict[str, tuple[tuple[str, ...], dict[str, float]]] = {
    "fixed": (("c",), {}),
    "temperature": (("c",), {"t0": 2.0}),
    "inverse-temperature": (("c",), {"t0": 2.0}),
    "author": (("c",), {"t0": 1.0}),
    "noise": (("c",), {"t0": 2.0}),
    "generator": (("c",), {}),
    "linear": (("c", "t_end"), {}),
    "exponential": (("c", "gamma"), {"period": 1.0}),
    "polynomial": (("c", "alpha"), {"t0": 1.0}),
    "sqrt": (("c",), {"t0": 1.0}),
}


def form_beta(form: str, p: Mapping[str, Any], t: Any, xp: ModuleType = np) -> Any:
    """Inverse temperature ``beta(t) = 1/T(t)`` of schedule ``form`` with parameters ``p``.

    Args:
      form: one of :data:`FORMS`; p: its parameters (all of :data:`FORM_PARAMETERS`' names for the
        form, floats or traced scalars; ``gamma`` of ``exponential`` must be a float).
      t: continuous time (float or array of any shape; ``t >= 0`` is the meaningful range).
      xp: ``numpy`` or ``jax.numpy``; elementwise ops only, so it is jit/vmap-safe.

    Returns:
      array of ``t``'s shape. Values outside the validated range may be 0, negative or inf (see
      :meth:`._schedules.Schedule.validate_range`; nothing is clamped).

    Raises:
      KeyError: a parameter of the form missing from ``p``.

    Source: docs/theorems.md A2 (the conventions).
    """
    if form == "fixed":
        return 0.0 * t + 1.0 / p["c"]
    if form in ("temperature", "inverse-temperature"):
        return xp.log(t + p["t0"]) / p["c"]
    if form == "author":
        return p["c"] * xp.log(t + p["t0"])
    if form == "noise":
        return 2.0 * xp.log(t + p["t0"]) / p["c"]
    if form == "generator":
        return xp.log1p(t) / p["c"]
    if form == "polynomial":
        return p["c"] * (t + p["t0"]) ** p["alpha"]
    return 1.0 / form_temperature(form, p, t, xp)


def form_temperature(form: str, p: Mapping[str, Any], t: Any, xp: ModuleType = np) -> Any:
    """Temperature ``T(t)`` of schedule ``form`` with parameters ``p`` (the ``T`` of
    ``dZ = −grad V dt + sqrt(2T) dW``, docs/theorems.md A1); arguments, return and errors as :func:`form_beta`."""
    if form == "fixed":
        return 0.0 * t + p["c"]
    if form == "linear":
        return p["c"] * (1.0 - t / p["t_end"])
    if form == "exponential":
        return p["c"] * xp.exp((t / p["period"]) * math.log(p["gamma"]))
    if form == "sqrt":
        return p["c"] / xp.sqrt(t + p["t0"])
    return 1.0 / form_beta(form, p, t, xp)
