"""Checks a run's inputs before its first step: positions, Arc targets, the schedule, the step size.

Everything here runs before compilation (the configuration's own fields are checked when a
:class:`._config.SimulationConfig` or :class:`._config.DriverOptions` is built), so a bad argument is refused
with a message naming it, and a step size that makes the results meaningless is warned about before any
time is spent.
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.langevin._config import SimulationConfig
from contrastive_bounds.numerics.langevin._kernel import LangevinKernel
from contrastive_bounds.numerics.langevin._observables import Arc
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["check_positions", "check_arcs", "check_temperatures", "step_warnings", "raise_non_finite"]


def check_positions(positions: Any) -> np.ndarray:
    """``positions`` as a numpy array of shape ``(chains, N, d)``, float32/float64, finite, on the sphere.

    Raises:
      ValueError: float64 with x64 off, wrong shape (no chains, N < 1, d < 2), another dtype, NaN/inf,
        or a norm off 1 by more than 1e-5 (float32) / 1e-10 (float64).
    """
    require_x64(positions, what="contrastive_bounds.numerics.langevin.simulate")
    pos = np.asarray(positions)
    if pos.ndim != 3 or pos.shape[0] < 1 or pos.shape[1] < 1 or pos.shape[2] < 2:
        raise ValueError(f"positions must have shape (chains, N, d) with chains >= 1, N >= 1, d >= 2, got {pos.shape}")
    if pos.dtype not in (np.float32, np.float64):
        raise ValueError(f"positions must be float32 or float64, got {pos.dtype}")
    if not np.all(np.isfinite(pos)):
        raise ValueError("positions contains NaN or inf")
    err = float(np.max(np.abs(np.linalg.norm(pos.astype(np.float64), axis=-1) - 1.0)))
    tol = 1e-5 if pos.dtype == np.float32 else 1e-10
    if err > tol:
        raise ValueError(f"positions must lie on the sphere: max | |z| - 1 | = {err:.3g} > {tol:g}")
    return pos


def check_arcs(config: SimulationConfig, shape: tuple[int, ...]) -> None:
    """An :class:`._observables.Arc` target or basin needs S¹ positions (``shape[1:] == (1, 2)``); the
    other checks of targets and basins are :class:`._config.SimulationConfig`'s.

    Raises:
      ValueError: naming the Arc and the positions' shape.
    """
    for obj in ((config.target,) if config.target is not None else ()) + tuple(config.basins):
        if isinstance(obj, Arc) and tuple(shape[1:]) != (1, 2):
            raise ValueError(f"an Arc target needs an S^1 landscape (N=1, d=2), positions have shape {tuple(shape)}")


def check_temperatures(kernel: LangevinKernel, t_start: float, t_end: float, dtype: Any) -> float:
    """Refuse a schedule that is not finite and > 0 on [t_start, t_end] (C12); return the largest
    temperature seen on a 1 025-point grid of that span.

    Raises:
      ValueError: naming the first grid time with a bad temperature (or the schedule's own
        ``validate_range`` error).
    """
    spec = kernel.temperature.spec
    validate = getattr(spec, "validate_range", None)
    if callable(validate):
        validate(t_start, t_end)
    grid = jnp.asarray(np.linspace(t_start, t_end, 1025), dtype)
    temps = np.asarray(kernel.temperature_fn(grid))
    bad = ~(np.isfinite(temps) & (temps > 0))
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(
            f"temperature(t={float(grid[i])!r})={float(temps[i])!r} is not finite and > 0 on the run's "
            f"time span [{t_start!r}, {t_end!r}] (C12); shift the schedule (t0) or start later"
        )
    return float(np.max(temps))


def step_warnings(kernel: LangevinKernel, max_temperature: float) -> list[str]:
    """Why the step is too coarse to mean anything (warned, not refused: the run is still defined).

    Curvature: :meth:`.LangevinKernel.step_size_warning`. Noise: one step moves a chain by about
    ``sqrt(2·T·h)`` radians along the sphere; above 1 rad the position after a step is nearly
    uniform whatever the landscape (the Euler–Maruyama step of Langevin dynamics needs
    ``sqrt(2Th)`` small, e.g. Kloeden & Platen, 1992, §9.8)."""
    notes = []
    curvature = kernel.step_size_warning()
    if curvature is not None:
        notes.append(curvature)
    move = math.sqrt(2.0 * max_temperature * kernel.step_size)
    if move > 1.0:
        notes.append(f"step_size={kernel.step_size:g} at temperature up to {max_temperature:.3g}: one step's noise "
                     f"sqrt(2*T*h) = {move:.3g} rad > 1, so each step nearly randomises the position and the results "
                     f"may be meaningless; use step_size < {0.5 / max_temperature:.3g}")
    return notes


def raise_non_finite(kernel: LangevinKernel, first: int, last: int, t_start: float, dtype: Any) -> None:
    """The energies of a chunk are not finite: the step overflowed. Raise a ValueError that names the
    step size and the temperature instead of returning NaN positions."""
    h = kernel.step_size
    temps = np.asarray(kernel.temperature_fn(jnp.asarray(t_start + h * np.array([first, last]), dtype)))
    raise ValueError(
        f"the run left the {np.dtype(dtype).name} range between steps {first} and {last} (non-finite energy): "
        f"step_size={h!r}, temperature {float(temps[0]):.3g} .. {float(temps[1]):.3g}; the increment "
        f"h*grad V + sqrt(2*T*h)*xi overflowed: use a smaller step_size (or temperature)"
    )
