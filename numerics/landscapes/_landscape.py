"""The :class:`Landscape` object: a potential ``V`` on ``(S^{d−1})^N`` as a pure JAX function with
its metadata (docs/theorems.md A1, A3, A7), and the constructors that build one from a Fourier series
(:func:`fourier_landscape`, :func:`load_fourier`) or from another landscape (:func:`scaled`).

A :class:`Landscape` takes ``z`` of shape ``(N, d)`` (N unit vectors in R^d) and returns a scalar;
it is jit/vmap/grad-able and keeps the input dtype (float32 or float64). ``grad`` is the *Euclidean*
gradient; the simulator projects it onto the tangent space ``P(z) = I − z zᵀ`` per factor. The
named landscapes are built in :mod:`._builtin` and looked up by :mod:`._registry`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.numerics.landscapes._circle import analyse_circle
from contrastive_bounds.numerics.landscapes._fourier import FourierSeries, read_fourier_file

__all__ = ["Landscape", "fourier_landscape", "load_fourier", "scaled"]


@dataclass(frozen=True, eq=False)
class Landscape:
    """A potential on ``(S^{dim−1})^{num_points}`` with metadata.

    Attributes:
      name: registry name (or ``"fourier:<file>"``).
      num_points: N; dim: ambient dimension d.
      v_min: global minimum value (float) or None when not known.
      critical_height: H* (float) or None when not known (then use :mod:`._barriers`).
      minima: tuple of float64 arrays (N, d): known minima, lowest value first (so ``minima[0]`` is
        a global minimum when any is listed; representatives of orbits for symmetric potentials);
        may be empty.
      description: one paragraph for humans; source: where the potential comes from.
      fourier: for S¹ landscapes, the :class:`FourierSeries` of ``V(θ)``; else None.
      params: the parameters it was built with.
      value_and_grad_fn: optional fused ``z -> (V(z), ∇V(z))`` written by hand (S¹ Fourier
        landscapes, U0); None means autodiff of ``potential_fn``. A hand-written gradient may differ
        from autodiff by a component normal to the sphere (radial per factor); its tangential part
        is exact — the only part any consumer here uses (the simulator and the descent in
        :mod:`._barriers` project onto the tangent space).
      trailing_batch: True iff ``value_and_grad_fn`` also accepts ``z`` of shape
        ``(num_points, dim, *batch)`` ("chains-last") and returns ``((*batch), (num_points, dim, *batch))``;
        the simulator then calls it on all chains at once instead of through ``vmap`` (no transposes).
    """

    name: str
    num_points: int
    dim: int
    potential_fn: Callable[[jax.Array], jax.Array] = field(repr=False)
    v_min: float | None = None
    critical_height: float | None = None
    minima: tuple[np.ndarray, ...] = ()
    description: str = ""
    source: str = ""
    fourier: FourierSeries | None = field(default=None, repr=False)
    params: dict[str, Any] = field(default_factory=dict)
    value_and_grad_fn: Callable[[jax.Array], tuple[jax.Array, jax.Array]] | None = field(default=None, repr=False)
    trailing_batch: bool = False

    def potential(self, z: jax.Array) -> jax.Array:
        """``V(z)``: z of shape ``(num_points, dim)`` (unit rows) -> scalar of z's dtype. Pure JAX.

        Raises:
          ValueError: ``z`` not of shape ``(num_points, dim)`` (checked on the static shape, jit-safe).
        """
        self._check_shape(z)
        return self.potential_fn(z)

    def _check_shape(self, z: jax.Array) -> None:
        if tuple(jnp.shape(z)) != (self.num_points, self.dim):
            raise ValueError(
                f"z has shape {tuple(jnp.shape(z))}; landscape {self.name!r} needs (num_points, dim) = "
                f"({self.num_points}, {self.dim})"
            )

    def grad(self, z: jax.Array) -> jax.Array:
        """Euclidean gradient of :meth:`potential`, same shape and dtype as ``z`` (not projected).

        For S¹ Fourier landscapes it is ``V'(θ)·(−z₁, z₀)``, the gradient of ``V(atan2(z₁, z₀))`` on
        the circle (tangent); for U0 the one-hot subgradient of the hardest negative (see
        ``value_and_grad_fn``).

        Raises:
          ValueError: wrong shape, as :meth:`potential`.
        """
        self._check_shape(z)
        if self.value_and_grad_fn is not None:
            return self.value_and_grad_fn(z)[1]
        return jax.grad(self.potential_fn)(z)

    def value_and_grad(self, z: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(V(z), ∇V(z))`` from one fused evaluation (hand-written where available, else
        ``jax.value_and_grad``); shapes ``()`` and ``(num_points, dim)``, dtype of ``z``. Pure JAX.

        Raises:
          ValueError: wrong shape, as :meth:`potential`.
        """
        self._check_shape(z)
        if self.value_and_grad_fn is not None:
            return self.value_and_grad_fn(z)
        return jax.value_and_grad(self.potential_fn)(z)

    # S¹ helpers ------------------------------------------------------------------------------
    def _series(self) -> FourierSeries:
        if self.fourier is None:
            raise ValueError(f"landscape {self.name!r} is not an S¹ Fourier landscape (N=1, d=2)")
        return self.fourier

    def potential_theta(self, theta: Any, xp: ModuleType = np) -> Any:
        """``V(θ)`` for S¹ landscapes; theta any shape (radians); ``xp`` numpy or jax.numpy.

        Raises:
          ValueError: not an S¹ Fourier landscape.
        """
        return self._series().value(theta, xp=xp)

    def dpotential_theta(self, theta: Any, xp: ModuleType = np) -> Any:
        """``V'(θ)`` (S¹ only; same conventions as :meth:`potential_theta`)."""
        return self._series().value(theta, xp=xp, order=1)

    def d2potential_theta(self, theta: Any, xp: ModuleType = np) -> Any:
        """``V''(θ)`` (S¹ only; same conventions as :meth:`potential_theta`)."""
        return self._series().value(theta, xp=xp, order=2)


def _unit_circle(theta: float) -> np.ndarray:
    return np.array([[math.cos(theta), math.sin(theta)]], dtype=np.float64)


def fourier_landscape(series: FourierSeries, *, name: str = "fourier", description: str = "",
                      source: str = "user-supplied Fourier coefficients", params: dict | None = None,
                      critical_height: float | None = None) -> Landscape:
    """An S¹ landscape (N = 1, d = 2) from a Fourier series; ``θ = atan2(z[0,1], z[0,0])``.

    Evaluated in z-coordinates (``cos kθ + i sin kθ = (z0 + i z1)^k``, no transcendental functions)
    with the analytic gradient ``V'(θ)·(−z1, z0)``; ``z`` must be on the circle (unit row).

    Minima, ``v_min`` and (unless given exactly) ``critical_height`` come from
    :func:`~._circle.analyse_circle` (float64 critical points, error ~1e-14).
    """

    # z-coordinates, no atan2/sin/cos: cos kθ + i sin kθ = (z0 + i z1)^k (FourierSeries.value_and_derivative_z).
    def potential(z: jax.Array) -> jax.Array:
        return series.value_and_derivative_z(z[0, 0], z[0, 1])[0].astype(z.dtype)

    def value_and_grad(z: jax.Array) -> tuple[jax.Array, jax.Array]:
        x, y = z[0, 0], z[0, 1]
        v, dv = series.value_and_derivative_z(x, y)
        # Euclidean gradient of V(atan2(z1, z0)) at a unit z: V'(θ)·(−z1, z0) (tangent to the circle).
        g = jnp.stack([-y * dv, x * dv])[None]  # (1, 2, *batch): also works chains-last
        return v.astype(z.dtype), g.astype(z.dtype)

    crit = analyse_circle(series)
    h = crit.critical_height if critical_height is None else critical_height
    text = description or "S¹ potential " + _series_text(series)
    return Landscape(
        name=name, num_points=1, dim=2, potential_fn=potential, v_min=crit.v_min, critical_height=h,
        minima=tuple(_unit_circle(t) for t in crit.minima[np.argsort(crit.minima_values, kind="stable")]),
        description=text, source=source,
        fourier=series, params=dict(params or {}), value_and_grad_fn=value_and_grad, trailing_batch=True,
    )


def _series_text(s: FourierSeries) -> str:
    parts = []
    for k, a, b in zip(s.ks, s.cos, s.sin):
        if a:
            parts.append(f"{a:+g}" if k == 0 else f"{a:+g} cos {k}θ")
        if b and k:
            parts.append(f"{b:+g} sin {k}θ")
    return "V(θ) = " + " ".join(parts)


def load_fourier(path: str | Path) -> Landscape:
    """An S¹ landscape from a JSON/TOML file ``{"cos": {k: a_k}, "sin": {k: b_k}}``.

    Raises:
      FileNotFoundError, ValueError: see :func:`~._fourier.read_fourier_file` (missing file; folder or
        malformed content).
    """
    series = read_fourier_file(path)
    return fourier_landscape(series, name=f"fourier:{Path(path).name}", source=f"file {path}")


def scaled(landscape: Landscape, factor: float) -> Landscape:
    """``factor · V`` with metadata scaled (``factor > 0``).

    This is the v0 model of docs/theorems.md A7: multiplying the drift by β (``L ≈ β·U0``) at
    temperature ``1/β`` is Langevin on ``U0`` at temperature ``1/β²``.

    Raises:
      ValueError: ``factor`` not in ``(0, inf)``.
    """
    f = check_real("factor", factor, 0.0, math.inf)
    base = landscape.potential_fn
    base_vg = landscape.value_and_grad_fn

    def value_and_grad(z: jax.Array) -> tuple[jax.Array, jax.Array]:
        v, g = base_vg(z)
        return f * v, f * g
    return Landscape(
        name=f"{landscape.name}*{f:g}", num_points=landscape.num_points, dim=landscape.dim,
        potential_fn=lambda z: f * base(z),
        v_min=None if landscape.v_min is None else f * landscape.v_min,
        critical_height=None if landscape.critical_height is None else f * landscape.critical_height,
        minima=landscape.minima, description=f"{f:g} × ({landscape.description})", source=landscape.source,
        fourier=None if landscape.fourier is None else landscape.fourier.scaled(f),
        params={**landscape.params, "factor": f},
        value_and_grad_fn=None if base_vg is None else value_and_grad, trailing_batch=landscape.trailing_batch,
    )

