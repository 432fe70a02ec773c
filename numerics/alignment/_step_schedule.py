"""Step-size schedules eta_t for similarity descent (docs/theorems.md B3, B4: Theorem 1 holds for any sequence).

A :class:`StepSizeSchedule` is a *shape* f(t) >= 0 over the steps t = 0..T-1; the step sizes of a
run are ``eta_t = step_size * f(t)`` (:meth:`StepSizeSchedule.step_sizes`), with ``step_size`` the
run's ``DescentConfig.step_size`` (the peak, or base, step size). Every form except ``array`` has
f = 1 at the end of its warm-up, so ``step_size`` keeps its meaning; for ``array`` f is the user's
sequence (``step_size = 1`` gives the values themselves).

The sequence is computed once, vectorised in float64 (no loop over steps), and is *data* of the
compiled ``lax.scan`` of :mod:`._descent_run` (one compilation for every schedule of one shape).

Forms (u = t - W is the step counted from the end of the warm-up, H = ``decay_steps``, by default
T - W, the steps after the warm-up; every parameter is a float unless said):

================  =====================================================  ===========================================
form              f(t) for t >= W                                        parameters (defaults)
================  =====================================================  ===========================================
``constant``      1
``step``          gamma^floor(u / period)                                ``gamma`` in (0, 1], ``period`` int >= 1
``exponential``   gamma^(u / period)                                     ``gamma`` in (0, 1], ``period`` > 0 (1)
``cosine``        f_end + (1 - f_end)(1 + cos(pi min(u, H)/H))/2          ``final_fraction`` f_end in [0, 1] (0), ``decay_steps``
``linear``        1 - (1 - f_end) min(u, H)/H                            ``final_fraction`` (0), ``decay_steps``
``polynomial``    f_end + (1 - f_end)(1 - min(u, H)/H)^power             ``power`` > 0, ``final_fraction`` (0), ``decay_steps``
``inverse-sqrt``  1 / sqrt(1 + u / t0)                                   ``t0`` > 0 (1)
``inverse-time``  1 / (1 + u / t0)                                       ``t0`` > 0 (1)
``array``         the user's values v_t (length T, finite, >= 0)         (no warm-up)
================  =====================================================  ===========================================

Warm-up (every form but ``array``): for t < W = ``warmup_steps``, f(t) = w0 + (1 - w0) t / W with
w0 = ``warmup_start`` in [0, 1] (default 0: eta_0 = 0), the linear warm-up of Goyal et al. (2017).
The forms are those of optax (``exponential_decay`` with and without ``staircase``,
``cosine_decay_schedule`` (Loshchilov and Hutter 2017), ``linear_schedule``,
``polynomial_schedule``, ``warmup_cosine_decay_schedule``), of the inverse square root of Vaswani
et al. (2017) and of the Robbins-Monro 1/t rate; the tests compare them with optax.
"""

from __future__ import annotations

import hashlib
import math
import types
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real

__all__ = ["StepSizeSchedule", "SCHEDULE_FORMS", "SCHEDULE_PARAMETERS", "constant_schedule"]

SCHEDULE_FORMS = ("constant", "step", "exponential", "cosine", "linear", "polynomial", "inverse-sqrt",
                  "inverse-time", "array")

#: form -> (required parameters, {optional parameter: default}); ``decay_steps`` defaults to T - W (None here).
SCHEDULE_PARAMETERS: dict[str, tuple[tuple[str, ...], dict[str, float | None]]] = {
    "constant": ((), {}),
    "step": (("gamma", "period"), {}),
    "exponential": (("gamma",), {"period": 1.0}),
    "cosine": ((), {"final_fraction": 0.0, "decay_steps": None}),
    "linear": ((), {"final_fraction": 0.0, "decay_steps": None}),
    "polynomial": (("power",), {"final_fraction": 0.0, "decay_steps": None}),
    "inverse-sqrt": ((), {"t0": 1.0}),
    "inverse-time": ((), {"t0": 1.0}),
    "array": ((), {}),
}

_INT_PARAMS = ("period", "decay_steps")


def _check_param(form: str, name: str, value: Any) -> float | int:
    """One schedule parameter, validated against its domain (the message names the parameter)."""
    if name == "gamma":
        return check_real("gamma", value, 0.0, 1.0, hi_closed=True)
    if name == "period" and form == "step":
        return check_int("period", value, 1)
    if name == "decay_steps":
        return check_int("decay_steps", value, 1, 2**31 - 1)
    if name == "final_fraction":
        return check_real("final_fraction", value, 0.0, 1.0, lo_closed=True, hi_closed=True)
    # period (exponential), power, t0: positive reals
    return check_real(name, value, 0.0)


@dataclass(frozen=True, eq=False)
class StepSizeSchedule:
    """The shape f(t) of a step-size sequence eta_t = step_size * f(t) (see the module table).

    Attributes:
      form: one of :data:`SCHEDULE_FORMS`.
      params: the form's parameters (a read-only mapping; defaults filled in, ``decay_steps`` only
        when given).
      warmup_steps: W, integer >= 0 (< T, checked by :meth:`validate`); 0 for ``array``.
      warmup_start: w0 in [0, 1], the warm-up's first multiplier.
      values: for ``array`` the user's sequence, float64 (T,), read-only; else None.

    Raises (on construction):
      ValueError: an unknown form (naming ``form`` and the forms), an unknown or missing parameter,
        a parameter outside its domain (naming it), ``warmup_steps`` < 0, ``warmup_start`` outside
        [0, 1], a warm-up with ``array``, or array values that are not a non-empty 1-D finite
        array >= 0 (naming ``step_sizes``).

    Source: docs/theorems.md B4 (Theorem 1 with S = sum_t eta_t for any sequence).
    """

    form: str = "constant"
    params: Mapping[str, float] = field(default_factory=dict)
    warmup_steps: int = 0
    warmup_start: float = 0.0
    values: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.form not in SCHEDULE_FORMS:
            raise ValueError(f"form={self.form!r} is not a step-size schedule; choose one of {', '.join(SCHEDULE_FORMS)}")
        required, optional = SCHEDULE_PARAMETERS[self.form]
        given = dict(self.params)
        unknown = sorted(set(given) - set(required) - set(optional))
        if unknown:
            allowed = ", ".join(required + tuple(optional)) or "none"
            raise ValueError(f"{unknown[0]}= is not a parameter of the {self.form!r} schedule (its parameters: {allowed})")
        missing = [p for p in required if p not in given]
        if missing:
            raise ValueError(f"the {self.form!r} schedule needs {missing[0]}= (its required parameters: {', '.join(required)})")
        clean: dict[str, float | int] = {}
        for name in required + tuple(optional):
            if name in given:
                clean[name] = _check_param(self.form, name, given[name])
            elif optional.get(name) is not None:
                clean[name] = optional[name]
        object.__setattr__(self, "params", types.MappingProxyType(clean))
        w = check_int("warmup_steps", self.warmup_steps, 0, 2**31 - 1)
        object.__setattr__(self, "warmup_steps", w)
        object.__setattr__(self, "warmup_start", check_real("warmup_start", self.warmup_start, 0.0, 1.0,
                                                            lo_closed=True, hi_closed=True))
        if self.form == "array":
            if w:
                raise ValueError("warmup_steps must be 0 for an explicit array of step sizes (put the warm-up in the array)")
            object.__setattr__(self, "values", _check_values(self.values))
        elif self.values is not None:
            raise ValueError(f"values are only taken by the 'array' schedule, not by {self.form!r}")

    @classmethod
    def from_array(cls, step_sizes: Any) -> StepSizeSchedule:
        """The ``array`` schedule: ``eta_t = step_size * step_sizes[t]`` (``step_size = 1``: the values themselves).

        Args:
          step_sizes: array-like (T,), finite and >= 0 (any real dtype; stored as float64).

        Raises:
          ValueError: naming ``step_sizes`` for an empty, non-1-D, non-real, NaN/inf or negative array.
        """
        return cls("array", values=step_sizes)

    def validate(self, steps: int) -> None:
        """Check the schedule against a run of ``steps`` steps (T).

        Raises:
          ValueError: ``warmup_steps`` >= T (naming it and T), ``decay_steps`` > T - W, or an
            ``array`` whose length is not T (naming ``step_sizes``).
        """
        t = check_int("steps", steps, 1)
        if self.form == "array":
            if self.values.size != t:
                raise ValueError(f"step_sizes has {self.values.size} values but the run has steps={t}: give one step "
                                 "size per step")
            return
        if self.warmup_steps >= t:
            raise ValueError(f"warmup_steps={self.warmup_steps} must be below steps={t} (the warm-up would be the whole run)")
        h = self.params.get("decay_steps")
        if h is not None and h > t - self.warmup_steps:
            raise ValueError(f"decay_steps={h} exceeds the {t - self.warmup_steps} steps after the warm-up "
                             f"(steps={t}, warmup_steps={self.warmup_steps})")

    def multipliers(self, steps: int) -> np.ndarray:
        """f(0), ..., f(T-1) as float64 (T,), vectorised (no loop over steps); see the module table.

        Raises:
          ValueError: as :meth:`validate`.
        """
        self.validate(steps)
        if self.form == "array":
            return self.values.copy()
        t = np.arange(steps, dtype=np.float64)
        w = self.warmup_steps
        u = np.maximum(t - w, 0.0)
        f = _shape(self.form, self.params, u, float(self.params.get("decay_steps") or (steps - w)))
        if w:
            w0 = self.warmup_start
            f = np.where(t < w, w0 + (1.0 - w0) * t / w, f)
        return f

    def step_sizes(self, step_size: float, steps: int) -> np.ndarray:
        """eta_t = step_size * f(t), float64 (T,): the sequence a run of ``steps`` steps uses.

        Args:
          step_size: the base (peak) step size >= 0, finite.
          steps: T >= 1.

        Returns:
          float64 (T,), finite and >= 0 (exactly ``step_size`` at every step for ``constant``).

        Raises:
          ValueError: as :meth:`validate`; ``step_size`` outside [0, inf) (naming it); a product
            beyond float64 (an ``array`` value times ``step_size`` overflowing, naming ``step_sizes``).
        """
        eta = check_real("step_size", step_size, 0.0, lo_closed=True)
        with np.errstate(over="ignore"):
            out = eta * self.multipliers(steps)
        if not np.all(np.isfinite(out)):
            raise ValueError(f"step_sizes times step_size={eta:g} overflows float64 (largest value "
                             f"{float(np.max(self.multipliers(steps))):.6g})")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description: form, parameters, warm-up; for ``array`` its length, sum, range and sha256."""
        out: dict[str, Any] = {"form": self.form, "params": dict(self.params), "warmup_steps": self.warmup_steps,
                               "warmup_start": self.warmup_start}
        if self.form == "array":
            v = self.values
            out.update(length=int(v.size), sum=math.fsum(v.tolist()), min=float(v.min()), max=float(v.max()),
                       sha256=hashlib.sha256(v.tobytes()).hexdigest())
        return out

    def describe(self) -> str:
        """One line for people: ``cosine (final_fraction=0.1), warm-up 50 steps from 0``."""
        if self.form == "array":
            return f"array of {self.values.size} values in [{self.values.min():.6g}, {self.values.max():.6g}]"
        parts = ", ".join(f"{k}={v:g}" for k, v in self.params.items())
        text = self.form + (f" ({parts})" if parts else "")
        if self.warmup_steps:
            text += f", linear warm-up over {self.warmup_steps} steps from {self.warmup_start:g}"
        return text

    def identity(self) -> str:
        """A string that two schedules share exactly when they give the same sequence for every T."""
        d = self.to_dict()
        return repr(sorted((k, v if not isinstance(v, dict) else sorted(v.items())) for k, v in d.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StepSizeSchedule) and self.identity() == other.identity()

    def __hash__(self) -> int:
        return hash(self.identity())


def constant_schedule() -> StepSizeSchedule:
    """The ``constant`` schedule (f = 1): ``eta_t = step_size`` at every step."""
    return StepSizeSchedule("constant")


def _check_values(values: Any) -> np.ndarray:
    if values is None:
        raise ValueError("the 'array' schedule needs its step_sizes (use StepSizeSchedule.from_array)")
    a = np.asarray(values)
    if a.dtype.kind not in "biuf" or a.dtype.kind == "b":
        raise ValueError(f"step_sizes must be a real numeric array; got dtype {a.dtype}")
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"step_sizes must be a non-empty 1-D array (one step size per step); got shape {a.shape}")
    a = a.astype(np.float64)
    bad = ~np.isfinite(a) | (a < 0)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"step_sizes[{i}]={float(a[i])!r} must be finite and >= 0")
    a.setflags(write=False)
    return a


def _shape(form: str, p: Mapping[str, float], u: np.ndarray, horizon: float) -> np.ndarray:
    """f at the post-warm-up steps ``u`` (float64 array) for every form but ``array``."""
    if form == "constant":
        return np.ones_like(u)
    if form == "step":
        return np.power(p["gamma"], np.floor(u / p["period"]))
    if form == "exponential":
        return np.power(p["gamma"], u / p["period"])
    if form in ("cosine", "linear", "polynomial"):
        x = np.minimum(u, horizon) / horizon
        end = p["final_fraction"]
        if form == "cosine":
            return end + (1.0 - end) * 0.5 * (1.0 + np.cos(np.pi * x))
        if form == "linear":
            return 1.0 - (1.0 - end) * x
        return end + (1.0 - end) * np.power(1.0 - x, p["power"])
    if form == "inverse-sqrt":
        return 1.0 / np.sqrt(1.0 + u / p["t0"])
    return 1.0 / (1.0 + u / p["t0"])  # inverse-time
