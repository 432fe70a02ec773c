"""Potentials ``V`` on ``(S^{d−1})^N`` as pure JAX functions with metadata (THEOREMS.md A1, A3, A7).

A :class:`Landscape` takes ``z`` of shape ``(N, d)`` (N unit vectors in R^d) and returns a scalar;
it is jit/vmap/grad-able and keeps the input dtype (float32 or float64). ``grad`` is the *Euclidean*
gradient; the simulator projects it onto the tangent space ``P(z) = I − z zᵀ`` per factor.

Built-in names (``get_landscape(name, **params)``; ``list_landscapes()``):

* ``double-well`` — S¹, ``V = −0.5 cos θ − cos 2θ``: minima 0 (−1.5) and π (−0.5), saddles at
  ``cos θ = −1/8`` (V = 33/32), ``H* = 1.53125`` exactly (case C13).
* ``triple-well`` — S¹, ``V = cos 3θ + 0.5 cos θ``: ``H* ≈ 1.5215`` (two equal non-global minima).
* ``barrier-H`` (param ``H`` in ``(0, 1e6]``) — S¹, ``V = (H / 1.53125)·(−0.5 cos θ − cos 2θ)``: the double
  well scaled so that ``H* = H`` exactly (used for the seed note's table, A8.3).
* ``fourier`` (params ``cos``, ``sin``: dicts ``{k: coefficient}``) — any S¹ trigonometric polynomial;
  files via :func:`load_fourier`.
* ``vmf`` (params ``kappa > 0``, ``dim >= 2``, default 3) — ``V = −kappa·z_d`` on S^{dim−1}; Gibbs law
  von Mises–Fisher (A1 validation: ``E[z_3] = coth(kappa/T) − T/kappa`` on S²).
* ``vmf-mixture`` (params ``means`` (K,3), ``kappas`` (K,), ``weights`` (K,)) — S²,
  ``V = −log Σ_i w_i exp(kappa_i (mu_i·z − 1))``; default: two components with a non-global minimum.
* ``infonce-toy`` — the author's hardest-negative potential U0 on N = 4 points of S², positive pairs
  (0,1), (2,3); ``infonce-toy-soft`` (param ``beta0``) its soft-max surrogate; ``infonce``
  (params ``tau``, ``num_points``, ``dim``, ``pairs``, ``coupled``) finite-τ InfoNCE
  (see :mod:`.infonce_potentials`).
* ``thomson`` (params ``num_points >= 2``, ``dim >= 2``, default 3) — Coulomb energy
  ``Σ_{i<j} 1/|z_i − z_j|`` on ``(S^{dim−1})^N`` (see :mod:`.thomson`; published minima for N = 2..12 on S²).

The β-scaled model of A7 (v0 multiplies the drift by β) is :func:`scaled` applied to a landscape.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_finite_array, check_int, check_real

from contrastive_bounds.numerics.landscapes.circle import MAX_COEFFICIENT, FourierSeries, analyse_circle, read_fourier_file
from contrastive_bounds.numerics.landscapes.infonce import (
    hardest_negative_potential,
    hardest_negative_value_and_grad,
    infonce_potential,
    soft_hardest_negative_potential,
)
from contrastive_bounds.numerics.landscapes.thomson import THOMSON_SOURCE, thomson_potential

__all__ = ["Landscape", "get_landscape", "list_landscapes", "landscape_parameters", "resolve_landscape",
           "load_fourier", "fourier_landscape", "scaled"]

DOUBLE_WELL_H = 1.53125  # H* of −0.5 cos θ − cos 2θ (C13), exact in binary


@dataclass(frozen=True, eq=False)
class Landscape:
    """A potential on ``(S^{dim−1})^{num_points}`` with metadata.

    Attributes:
      name: registry name (or ``"fourier:<file>"``).
      num_points: N; dim: ambient dimension d.
      v_min: global minimum value (float) or None when not known.
      critical_height: H* (float) or None when not known (then use :mod:`.barriers`).
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
        :mod:`.barriers` project onto the tangent space).
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
    :func:`~.circle.analyse_circle` (float64 critical points, error ~1e-14).
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
      FileNotFoundError, ValueError: see :func:`~.circle.read_fourier_file` (missing file; folder or
        malformed content).
    """
    series = read_fourier_file(path)
    return fourier_landscape(series, name=f"fourier:{Path(path).name}", source=f"file {path}")


def scaled(landscape: Landscape, factor: float) -> Landscape:
    """``factor · V`` with metadata scaled (``factor > 0``).

    This is the v0 model of THEOREMS.md A7: multiplying the drift by β (``L ≈ β·U0``) at
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


# ------------------------------------------------------------------------------ named landscapes
def _double_well() -> Landscape:
    s = FourierSeries.from_dicts({1: -0.5, 2: -1.0})
    return fourier_landscape(
        s, name="double-well", critical_height=DOUBLE_WELL_H,
        description="V(θ) = −0.5 cos θ − cos 2θ: minima θ=0 (−1.5), θ=π (−0.5); saddles cos θ = −1/8 "
                    "(V = 33/32); H* = 1.53125 exactly",
        source="THEOREMS.md A3 / CASES.md C13 (our reference)",
    )


def _triple_well() -> Landscape:
    s = FourierSeries.from_dicts({3: 1.0, 1: 0.5})
    return fourier_landscape(
        s, name="triple-well",
        description="V(θ) = cos 3θ + 0.5 cos θ: global minimum θ=π (−1.5), two equal non-global minima; H* ≈ 1.5215",
        source="THEOREMS.md A3 / CASES.md C13 (our reference)",
    )


def _barrier_h(H: float = 1.0) -> Landscape:
    # upper end: the coefficients H/1.53125·(0.5, 1) stay within MAX_COEFFICIENT
    h = check_real("H", H, 0.0, MAX_COEFFICIENT, hi_closed=True)
    f = h / DOUBLE_WELL_H
    s = FourierSeries.from_dicts({1: -0.5 * f, 2: -1.0 * f})
    return fourier_landscape(
        s, name="barrier-H", critical_height=h, params={"H": h},
        description=f"V(θ) = (H/1.53125)(−0.5 cos θ − cos 2θ) with H = {h:g}: the double well scaled so H* = H exactly",
        source="THEOREMS.md A8.3 (test family for the seed note's table)",
    )


def _fourier(cos: dict | None = None, sin: dict | None = None) -> Landscape:
    return fourier_landscape(FourierSeries.from_dicts(cos, sin), params={"cos": cos, "sin": sin})


def _vmf(kappa: float = 1.0, dim: int = 3) -> Landscape:
    k = check_real("kappa", kappa, 0.0, math.inf)
    d = check_int("dim", dim, 2, None)

    def potential(z: jax.Array) -> jax.Array:
        return -k * z[0, d - 1]

    e = np.zeros((1, d))
    e[0, -1] = 1.0
    return Landscape(
        name="vmf", num_points=1, dim=d, potential_fn=potential, v_min=-k, critical_height=0.0, minima=(e,),
        description=f"V(z) = −{k:g}·z_{d} on S^{d - 1}; Gibbs law at T is von Mises–Fisher(κ/T); "
                    "on S²: E[z_3] = coth(κ/T) − T/κ",
        source="THEOREMS.md A1 (validation target)", params={"kappa": k, "dim": d},
    )


_DEFAULT_MIX = dict(
    means=[[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]],
    kappas=[4.0, 4.0],
    weights=[0.7, 0.3],
)


def _vmf_mixture(means: Any = None, kappas: Any = None, weights: Any = None) -> Landscape:
    mu = check_finite_array("means", _DEFAULT_MIX["means"] if means is None else means, ndim=2).astype(np.float64)
    ka = check_finite_array("kappas", _DEFAULT_MIX["kappas"] if kappas is None else kappas, ndim=1).astype(np.float64)
    w = check_finite_array("weights", _DEFAULT_MIX["weights"] if weights is None else weights, ndim=1).astype(np.float64)
    if mu.shape[1] != 3 or not (mu.shape[0] == ka.size == w.size):
        raise ValueError(f"means must be (K, 3) with K = len(kappas) = len(weights); got {mu.shape}, {ka.size}, {w.size}")
    norms = np.linalg.norm(mu, axis=1)
    if np.any(np.abs(norms - 1.0) > 1e-9):
        raise ValueError(f"means must be unit vectors; norms {norms.tolist()}")
    if np.any(ka <= 0) or np.any(w <= 0):
        raise ValueError("kappas and weights must be > 0")
    logw = np.log(w / w.sum())

    def potential(z: jax.Array) -> jax.Array:
        x = z[0]
        dt = x.dtype
        return -jax.scipy.special.logsumexp(jnp.asarray(logw, dt) + jnp.asarray(ka, dt) * (jnp.asarray(mu, dt) @ x - 1.0))

    return Landscape(
        name="vmf-mixture", num_points=1, dim=3, potential_fn=potential,
        description="V(z) = −log Σ_i w_i exp(κ_i(μ_i·z − 1)) on S² (a mixture of von Mises–Fisher wells); "
                    "H* by barriers.sphere_persistence",
        source="toolkit test landscape (THEOREMS.md A3: S² meshes)",
        params={"means": mu.tolist(), "kappas": ka.tolist(), "weights": w.tolist()},
    )


def _toy_minimum() -> np.ndarray:
    z = np.zeros((4, 3))
    z[:2, 0] = 1.0
    z[2:, 0] = -1.0
    return z


_TOY_PAIRS = ((0, 1), (2, 3))


def _infonce_toy() -> Landscape:
    return Landscape(
        name="infonce-toy", num_points=4, dim=3,
        potential_fn=hardest_negative_potential(4, _TOY_PAIRS),
        v_min=-2.0, critical_height=None, minima=(_toy_minimum(),),
        description="The author's hardest-negative potential U0 = mean over pairs (both directions) of "
                    "(−s_ij + max_{k∉{i,j}} s_ik) on N = 4 points of S², pairs (0,1),(2,3); global minimum −2 "
                    "on the O(3) orbit of z0 = z1 = −z2 = −z3 (one representative listed); non-smooth; "
                    "appears barrier-free (A8.4), H* not known",
        source="Chaudhry (arXiv 2603.12552), repository notebook; THEOREMS.md A7",
        params={"pairs": _TOY_PAIRS}, value_and_grad_fn=hardest_negative_value_and_grad(4, _TOY_PAIRS),
        trailing_batch=True,
    )


def _infonce_toy_soft(beta0: float = 10.0) -> Landscape:
    b = check_real("beta0", beta0, 0.0, math.inf)
    return Landscape(
        name="infonce-toy-soft", num_points=4, dim=3,
        potential_fn=soft_hardest_negative_potential(4, _TOY_PAIRS, b),
        v_min=-2.0 + math.log(2.0) / b, critical_height=None, minima=(_toy_minimum(),),
        description=f"Soft-max surrogate of U0 at beta0 = {b:g}: max_k s_ik replaced by (1/beta0)·logsumexp(beta0·s_ik); "
                    "global minimum −2 + log(2)/beta0 on the same orbit as U0",
        source="THEOREMS.md A7 (surrogate of the author's U0)", params={"beta0": b, "pairs": _TOY_PAIRS},
    )


def _infonce(tau: float = 0.5, num_points: int = 4, dim: int = 3, pairs: Any = _TOY_PAIRS, coupled: bool = False) -> Landscape:
    t = check_real("tau", tau, 0.0, math.inf)
    n = check_int("num_points", num_points, 3, None)
    d = check_int("dim", dim, 2, None)
    prs = tuple((check_int("pair index", i, 0, n - 1), check_int("pair index", j, 0, n - 1)) for i, j in pairs)
    return Landscape(
        name="infonce", num_points=n, dim=d,
        potential_fn=infonce_potential(n, prs, t, coupled=bool(coupled)),
        description=f"finite-τ InfoNCE (τ = {t:g}, {'coupled' if coupled else 'decoupled'} denominator) over positive "
                    f"pairs {list(prs)} on N = {n} points of S^{d - 1}; V = mean loss over directed pairs; "
                    "τ·V → U0 as τ → 0",
        source="THEOREMS.md A7", params={"tau": t, "num_points": n, "dim": d, "pairs": prs, "coupled": bool(coupled)},
    )


def _thomson(num_points: int = 12, dim: int = 3) -> Landscape:
    n = check_int("num_points", num_points, 2, None)
    d = check_int("dim", dim, 2, None)
    return Landscape(
        name="thomson", num_points=n, dim=d, potential_fn=thomson_potential(n),
        description=f"Thomson problem: Coulomb energy Σ 1/|z_i − z_j| of N = {n} unit vectors on S^{d - 1}; "
                    "invariant under O(d) × all permutations; published global minima (9 decimals) for N = 2..12 on S² "
                    "in thomson.THOMSON_GLOBAL_MINIMA (v_min is left None: not known exactly)",
        source=THOMSON_SOURCE, params={"num_points": n, "dim": d},
    )


_REGISTRY: dict[str, Callable[..., Landscape]] = {
    "double-well": _double_well,
    "triple-well": _triple_well,
    "barrier-H": _barrier_h,
    "fourier": _fourier,
    "vmf": _vmf,
    "vmf-mixture": _vmf_mixture,
    "infonce-toy": _infonce_toy,
    "infonce-toy-soft": _infonce_toy_soft,
    "infonce": _infonce,
    "thomson": _thomson,
}


def list_landscapes() -> list[str]:
    """Names accepted by :func:`get_landscape`, sorted."""
    return sorted(_REGISTRY)


_PARAM_RANGES: dict[str, dict[str, str]] = {
    "barrier-H": {"H": f"in (0, {MAX_COEFFICIENT:g}]"},
    "fourier": {"cos": "table {k: a_k}", "sin": "table {k: b_k}"},
    "vmf": {"kappa": "> 0", "dim": "integer >= 2"},
    "vmf-mixture": {"means": "(K, 3) unit rows", "kappas": "(K,) > 0", "weights": "(K,) > 0"},
    "infonce-toy-soft": {"beta0": "> 0"},
    "infonce": {"tau": "> 0", "num_points": "integer >= 3", "dim": "integer >= 2", "pairs": "index pairs",
                "coupled": "bool"},
    "thomson": {"num_points": "integer >= 2", "dim": "integer >= 2"},
}


def landscape_parameters(name: str) -> dict[str, str]:
    """The parameters a named landscape takes: ``{parameter: "allowed range (default D)"}``.

    Read from the builder's signature, so it cannot drift from what :func:`get_landscape` accepts.

    Raises:
      ValueError: unknown name.
    """
    if name not in _REGISTRY:
        raise ValueError(f"landscape={name!r} is unknown; choose one of {', '.join(list_landscapes())} or a Fourier file")
    ranges = _PARAM_RANGES.get(name, {})
    out = {}
    for pname, par in inspect.signature(_REGISTRY[name]).parameters.items():
        default = "" if par.default is None or par.default is inspect.Parameter.empty else f", default {par.default!r}"
        out[pname] = f"{ranges.get(pname, 'any')}{default}"
    return out


def _describe_parameters(name: str) -> str:
    taken = landscape_parameters(name)
    if not taken:
        return f"landscape {name!r} takes no parameters"
    return f"landscape {name!r} takes " + "; ".join(f"{k} {v}" for k, v in taken.items())


def get_landscape(name: str, **params: Any) -> Landscape:
    """Build a named landscape (see the module docstring for names and parameters).

    Raises:
      ValueError: unknown name; a parameter the landscape does not take (the message lists the ones
        it takes, with their ranges); or a parameter outside its domain (named, with its range).
    """
    taken = landscape_parameters(name)
    unknown = sorted(set(params) - set(taken))
    if unknown:
        given = ", ".join(f"{k}={params[k]!r}" for k in unknown)
        raise ValueError(f"parameter {given} is not accepted: {_describe_parameters(name)}")
    try:
        return _REGISTRY[name](**params)
    except TypeError as exc:  # a value of the wrong type deep inside a builder
        raise ValueError(f"bad parameter value for landscape {name!r} ({exc}); {_describe_parameters(name)}") from None


def resolve_landscape(spec: str, **params: Any) -> Landscape:
    """A built-in landscape by name (with ``params``) or an S¹ landscape from a Fourier file path.

    Args:
      spec: a name of :func:`list_landscapes` or the path of a ``.json``/``.toml`` Fourier file.
      **params: parameters of a built-in landscape (none allowed for a file).

    Raises:
      ValueError: ``spec`` neither a built-in name nor an existing file (the message lists the
        built-ins), a folder, a malformed file (see :func:`~.circle.read_fourier_file`), parameters
        given for a file, or bad parameters (see :func:`get_landscape`).
    """
    if spec in _REGISTRY:
        return get_landscape(spec, **params)
    builtins = ", ".join(list_landscapes())
    path = Path(spec)
    if not path.exists():
        raise ValueError(f"landscape={spec!r}: no such built-in landscape or file; built-in landscapes: {builtins}")
    if not path.is_file():
        raise ValueError(f"landscape={spec!r} is a folder, not a Fourier file (.json/.toml); built-in landscapes: {builtins}")
    if params:
        raise ValueError(f"parameters {sorted(params)} are not accepted for a Fourier file (landscape={spec!r})")
    return load_fourier(path)
