"""A temperature argument as a compiled program plus data, so that runs differing only in their
schedule's constants share one compilation of the simulator's chunk.

A schedule built by :func:`contrastive_bounds.theory.make_schedule` becomes a
:class:`TemperatureProgram` (its form and the parameters that stay compile-time constants: hashable,
equal for every schedule of that form and those constants) and the values of its other parameters,
which :func:`._chunk.chunk_fn`'s program takes as a traced argument (:meth:`TemperatureProgram.data`).

Bit for bit the same results as compiling the constants in. XLA simplifies arithmetic with constant
operands before it compiles: ``x / c`` becomes ``x * (1/c)`` with ``1/c`` rounded at compile time,
``x ** 2.0`` becomes ``x * x``, and a constant factor of ``T`` is folded with the ``2·h`` of the
noise scale ``sqrt(2·T·h)``. The program therefore evaluates each form in the arithmetic XLA
produces from its constants (docs/theorems.md A2 forms; :data:`COMPILED_FORMS`), with the data rounded
as XLA rounds the constants (in the run's dtype), and keeps compiled in what cannot be data without
changing the arithmetic: the exponent ``alpha`` of ``polynomial``, ``gamma`` and ``period`` of
``exponential``, and ``c`` of ``linear``, ``exponential`` and ``sqrt`` (the factor folded with
``2·h``). A fixed temperature (a float) is data. A callable ``f(t, xp)`` is compiled in (one
compilation per callable). The test ``tests/numerics/langevin/test_schedule_constants_are_data.py``
holds the programs to the constant-compiled results on every form, dtype and kernel path.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_real
from contrastive_bounds.theory._schedules import Schedule

from contrastive_bounds.numerics.langevin._specs import as_temperature_fn

__all__ = ["TRACED_PARAMETERS", "COMPILED_FORMS", "TemperatureProgram", "temperature_program", "KernelTemperature",
           "kernel_temperature"]

#: Parameters of each schedule form that are data of the compiled chunk (the rest are constants).
TRACED_PARAMETERS: dict[str, tuple[str, ...]] = {
    "fixed": ("c",),
    "temperature": ("c", "t0"),
    "inverse-temperature": ("c", "t0"),
    "author": ("c", "t0"),
    "noise": ("c", "t0"),
    "generator": ("c",),
    "linear": ("t_end",),
    "exponential": (),
    "polynomial": ("c", "t0"),
    "sqrt": ("t0",),
}

#: The arithmetic each form compiles to, with ``d`` its data and ``p`` its compiled-in parameters:
#: ``1/c`` and ``2/c`` are rounded in the run's dtype (as XLA folds them), ``t`` is continuous time.
COMPILED_FORMS: dict[str, str] = {
    "fixed": "T = 0·t + c",
    "temperature": "T = 1 / (log(t + t0) · (1/c))",
    "inverse-temperature": "T = 1 / (log(t + t0) · (1/c))",
    "author": "T = 1 / (c · log(t + t0))",
    "noise": "T = 1 / (log(t + t0) · (2/c))",
    "generator": "T = 1 / (log1p(t) · (1/c))",
    "linear": "T = c · (1 − t · (1/t_end))",
    "exponential": "T = c · exp((t / period) · log(gamma))",
    "polynomial": "T = 1 / (c · (t + t0)^alpha)",
    "sqrt": "T = c / sqrt(t + t0)",
}


@dataclass(frozen=True)
class TemperatureProgram:
    """The compiled-in part of a temperature: ``program(data, t) -> T(t)``.

    Attributes:
      kind: ``"schedule"`` (a form of :data:`~contrastive_bounds.theory.FORMS`),
        ``"constant"`` (a fixed float; data ``(T,)``) or ``"callable"`` (``fn(t, xp)``, no data).
      form: the schedule form (``kind == "schedule"``), else ``None``.
      constants: ``((name, value), ...)``: the schedule parameters compiled in.
      traced: the names of the parameters given as ``values``, in order.
      fn: the callable (``kind == "callable"``), else ``None``; compared by identity.

    Equal programs compile to the same chunk; their data differ.
    """

    kind: str
    form: str | None = None
    constants: tuple[tuple[str, float], ...] = ()
    traced: tuple[str, ...] = ()
    fn: Callable[..., Any] | None = None

    def data(self, values: Sequence[float], dtype: Any) -> np.ndarray:
        """The program's data for a run in ``dtype`` from the traced parameters' ``values`` (in the
        order of :attr:`traced`): the reciprocals of :data:`COMPILED_FORMS` rounded in ``dtype``.

        Returns:
          a (k,) array of ``dtype`` (k = 0 for a callable or a schedule with no traced parameter).
        """
        dt = np.dtype(dtype)
        v = dict(zip(self.traced, (dt.type(x) for x in values)))
        one = dt.type(1.0)
        if self.kind != "schedule":
            out = [v[k] for k in self.traced]
        elif self.form in ("temperature", "inverse-temperature", "generator"):
            out = [one / v["c"]] + ([v["t0"]] if "t0" in v else [])
        elif self.form == "noise":
            out = [dt.type(2.0) * (one / v["c"]), v["t0"]]
        elif self.form == "linear":
            out = [one / v["t_end"]]
        else:
            out = [v[k] for k in self.traced]
        return np.asarray(out, dtype=dt).reshape(-1)

    def __call__(self, data: Any, t: jax.Array) -> jax.Array:
        """``T(t)`` (elementwise, ``jax.numpy``) from :meth:`data` (a traced (k,) array inside the chunk).

        Args:
          data: the program's data, of ``t``'s dtype; t: continuous time, any shape.
        Returns:
          array of ``t``'s shape and dtype: the arithmetic of :data:`COMPILED_FORMS`.
        """
        if self.kind == "callable":
            return self.fn(t, jnp)
        if self.kind == "constant":
            return jnp.full_like(t, data[0])
        p = dict(self.constants)
        d = [data[i] for i in range(len(self.traced))]
        f = self.form
        if f == "fixed":
            return 0.0 * t + d[0]
        if f in ("temperature", "inverse-temperature", "noise"):
            return 1.0 / (jnp.log(t + d[1]) * d[0])
        if f == "generator":
            return 1.0 / (jnp.log1p(t) * d[0])
        if f == "author":
            return 1.0 / (d[0] * jnp.log(t + d[1]))
        if f == "polynomial":
            return 1.0 / (d[0] * (t + d[1]) ** p["alpha"])
        if f == "linear":
            return p["c"] * (1.0 - t * d[0])
        if f == "sqrt":
            return p["c"] / jnp.sqrt(t + d[0])
        return p["c"] * jnp.exp((t / p["period"]) * math.log(p["gamma"]))  # exponential


def temperature_program(temperature: Any) -> tuple[TemperatureProgram, tuple[float, ...]]:
    """Split a kernel's ``temperature`` argument into its program and its values.

    Args:
      temperature: a positive finite float (fixed T); a
        :class:`~contrastive_bounds.theory.Schedule` (``form`` and ``params``); another
        object with a method ``temperature(t, xp=...)``; or a callable ``f(t, xp)``.

    Returns:
      ``(program, values)``: the values (Python floats) of the parameters named by
      ``program.traced``; ``program(program.data(values, dtype), t)`` evaluates T(t).

    Raises:
      ValueError: a fixed temperature that is not finite and > 0, or an unsupported object.
    """
    if isinstance(temperature, (int, float, np.floating, np.integer)) and not isinstance(temperature, bool):
        return TemperatureProgram("constant", traced=("c",)), (check_real("temperature", temperature, 0.0, math.inf),)
    if type(temperature) is Schedule:  # (a subclass may evaluate differently: it goes by its method)
        form, params = temperature.form, temperature.params
        traced = tuple(k for k in TRACED_PARAMETERS[form] if k in params)
        constants = tuple(sorted((k, float(v)) for k, v in params.items() if k not in traced))
        return TemperatureProgram("schedule", form, constants, traced), tuple(float(params[k]) for k in traced)
    method = getattr(temperature, "temperature", None)
    if callable(method):
        return TemperatureProgram("callable", fn=_MethodCallable(method)), ()
    if callable(temperature):
        return TemperatureProgram("callable", fn=temperature), ()
    raise ValueError(
        f"temperature={temperature!r} must be a positive float, a Schedule, or a callable f(t, xp)"
    )


@dataclass(frozen=True)
class _MethodCallable:
    """``f(t, xp) = method(t, xp=xp)``, equal for equal methods (so equal objects share a program)."""

    method: Callable[..., Any]

    def __call__(self, t: Any, xp: Any) -> Any:
        return self.method(t, xp=xp)



class KernelTemperature(NamedTuple):
    """A kernel's temperature: ``fn(t) -> T(t)`` and what it was made from (:func:`kernel_temperature`).

    Attributes:
      fn: ``t -> T(t)``, pure JAX, elementwise (the compiled-in form, or the program on its data after
        :meth:`with_data`).
      spec: what was passed as ``temperature`` (a float, a ``Schedule`` or a callable); the driver calls its
        ``validate_range`` over a run's span when it has one.
      program, values: the temperature as a compiled program and the values of its traced parameters;
        ``None`` and ``()`` for a temperature that is compiled in whole.
      description: one line, part of the kernel's description (and so of a checkpoint's fingerprint).
    """

    fn: Callable[[Any], Any]
    spec: Any
    program: TemperatureProgram | None = None
    values: tuple = ()
    description: str = ""

    def at(self, t: Any, dtype: Any) -> jax.Array:
        """``T(t)`` as an array of ``dtype`` (``t`` converted to ``dtype`` first): what a step uses."""
        return jnp.asarray(self.fn(jnp.asarray(t, dtype)), dtype)

    def data(self, dtype: Any) -> np.ndarray:
        """The data of the program for a run in ``dtype`` (``(0,)`` without a program)."""
        if self.program is None:
            return np.zeros(0, dtype)
        return self.program.data(self.values, dtype)

    def with_data(self, data: Any) -> KernelTemperature:
        """This temperature with ``fn`` evaluated by its program on ``data`` (from :meth:`data`; a traced
        array inside a compiled chunk): bit for bit the values of the compiled-in ``fn``.

        Raises:
          ValueError: the temperature has no program.
        """
        if self.program is None:
            raise ValueError("this temperature has no program (build it with kernel_temperature)")
        return self._replace(fn=functools.partial(self.program, data))


def kernel_temperature(temperature: Any) -> KernelTemperature:
    """A kernel's ``temperature`` argument as a :class:`KernelTemperature`.

    Args:
      temperature: as :func:`temperature_program` (a positive float, a ``Schedule``, an object with a method
        ``temperature(t, xp=...)``, or a callable ``f(t, xp)``).
    Raises:
      ValueError: a fixed temperature that is not finite and > 0, or an unsupported object.
    """
    fn = as_temperature_fn(temperature)
    program, values = temperature_program(temperature)
    if hasattr(temperature, "describe"):
        description = temperature.describe()
    elif callable(temperature):
        description = getattr(temperature, "__qualname__", type(temperature).__name__)
    else:
        description = repr(float(temperature))
    return KernelTemperature(fn, temperature, program, values, description)
