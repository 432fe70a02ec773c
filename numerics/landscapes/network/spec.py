"""What a landscape network is built for: a potential on ``(S^{d−1})^N`` with its declared symmetry.

A :class:`LandscapeSpec` holds a pure JAX potential ``V(z)``, ``z`` of shape ``(N, d)`` with unit rows
-> scalar, its :class:`~.symmetry.Symmetry`, and an optional sphere radius ``R`` (the potential is
evaluated at ``R·u`` for ``u`` on the unit sphere: critical points and their energies — hence H* —
do not depend on the metric, so the search runs on unit spheres; Hessian eigenvalues are reported
in the unit-sphere metric, ``1/R²`` times them in the metric of the radius-R sphere).

Builders: :func:`infonce_spec` (finite-τ InfoNCE, docs/theorems.md A7), :func:`thomson_spec`,
:func:`landscape_spec` (any registry :class:`~..registry.Landscape`, symmetry by name),
:func:`user_spec` (any JAX potential). Every builder validates its arguments and probes the
potential (:func:`validate_potential`): scalar output, finite values and gradients at random
configurations, and invariance under random elements of the declared symmetry.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.landscapes.network.arguments import check_pairs, check_radius, infonce_arguments, \
    thomson_arguments
from contrastive_bounds.numerics.landscapes._infonce import infonce_potential
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, apply_element, random_element
from contrastive_bounds.numerics.landscapes._landscape import Landscape
from contrastive_bounds.numerics.landscapes._thomson import thomson_potential
from contrastive_bounds.theory._domains import check_int

__all__ = ["LandscapeSpec", "infonce_spec", "thomson_spec", "landscape_spec", "user_spec", "validate_potential"]

_PROBE_SEED = 20240613
_SYMMETRY_RTOL = 1e-9


@dataclass(frozen=True, eq=False)
class LandscapeSpec:
    """A potential on ``(S^{dim−1})^{num_points}`` with its symmetry (immutable).

    Attributes:
      name: short name (``"infonce"``, ``"thomson"``, a registry name or ``"user"``).
      num_points: N >= 1; dim: d >= 2.
      potential: ``z -> V(R·z)`` already including the radius; z ``(N, d)`` unit rows, float64.
      symmetry: the declared :class:`Symmetry`.
      params: the parameters it was built with (JSON-ready).
      radius: R > 0 (1 for the unit sphere).
      description: one line for humans.
    """

    name: str
    num_points: int
    dim: int
    potential: Callable[[jax.Array], jax.Array] = field(repr=False)
    symmetry: Symmetry = Symmetry.none()
    params: dict[str, Any] = field(default_factory=dict)
    radius: float = 1.0
    description: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    def compiled(self, key: tuple, build: Callable[[], Any]) -> Any:
        """A jitted function built once per spec and ``key`` (so each (N, d) compiles once)."""
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def energy(self, z: Any) -> float:
        """``V(z)`` as a Python float (jitted once per spec); z ``(N, d)`` float64.

        Raises:
          X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
        """
        require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.LandscapeSpec.energy")
        value = self.compiled(("value",), lambda: jax.jit(self.potential))
        return float(value(jnp.asarray(z, dtype=jnp.float64)))

    def value_and_grad(self, z: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(V(z), ∇V(z))`` (Euclidean gradient in ambient coordinates), pure JAX."""
        return jax.value_and_grad(self.potential)(z)

    def fingerprint(self) -> dict[str, Any]:
        """What identifies the landscape for a resume: name, N, d, radius, symmetry, params and a hash
        of the potential's values at three fixed random configurations (so a different user
        function is detected)."""
        z = _probe_points(self.num_points, self.dim, 3)
        vals = [repr(self.energy(zi)) for zi in z]
        return {"name": self.name, "num_points": self.num_points, "dim": self.dim, "radius": self.radius,
                "symmetry": self.symmetry.to_dict(), "params": _jsonable(self.params),
                "probe": hashlib.sha256("|".join(vals).encode()).hexdigest()[:16]}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (as :meth:`fingerprint` plus the description)."""
        return {**self.fingerprint(), "description": self.description}


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    return obj


def _probe_points(n: int, d: int, k: int) -> np.ndarray:
    g = np.random.default_rng(_PROBE_SEED).normal(size=(k, n, d))
    return g / np.linalg.norm(g, axis=-1, keepdims=True)


def validate_potential(potential: Callable[[jax.Array], jax.Array], num_points: int, dim: int,
                       symmetry: Symmetry, *, name: str = "potential") -> None:
    """Probe a potential before a search; raise a ValueError naming what is wrong.

    Checks at three random configurations (fixed seed): the output is a scalar (shape ``()``),
    values and gradients are finite, and ``V`` is invariant (relative ``1e-9``) under a random
    element of ``symmetry`` at each. Needs JAX's float64 mode.

    Raises:
      X64DisabledError: JAX's float64 mode is off (landscape networks compute in float64).
      ValueError: the call fails; output shape not ``()``; a NaN/inf value or gradient; the declared
        symmetry does not hold (named: ``symmetry``).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.spec.validate_potential")
    rng = np.random.default_rng(_PROBE_SEED + 1)
    probes = _probe_points(num_points, dim, 3)
    try:
        out = jax.eval_shape(potential, jax.ShapeDtypeStruct((num_points, dim), jnp.float64))
    except Exception as exc:  # noqa: BLE001 - a user function can raise anything
        raise ValueError(f"{name} failed on z of shape ({num_points}, {dim}): {type(exc).__name__}: {exc}") from None
    if not hasattr(out, "shape") or tuple(out.shape) != ():
        raise ValueError(f"{name} returned shape {tuple(getattr(out, 'shape', ('not an array',)))} for z of shape "
                         f"({num_points}, {dim}); it must return a scalar (shape ())")
    value_and_grad = jax.jit(jax.value_and_grad(potential))
    value = jax.jit(potential)
    for z in probes:
        v, g = value_and_grad(jnp.asarray(z))
        v, g = float(v), np.asarray(g)
        if not math.isfinite(v) or not np.all(np.isfinite(g)):
            raise ValueError(f"{name} returned a non-finite value or gradient (V = {v!r}) at a random configuration; "
                             "it must be finite and differentiable on the product of spheres")
        rot, perm = random_element(symmetry, num_points, dim, rng)
        v2 = float(value(jnp.asarray(apply_element(z, rot, perm))))
        if abs(v2 - v) > _SYMMETRY_RTOL * max(1.0, abs(v)):
            raise ValueError(f"symmetry={symmetry.describe()!r} is not a symmetry of {name}: V changes from {v!r} "
                             f"to {v2!r} under a random element of the declared group")


def _scaled(potential: Callable, r: float) -> Callable:
    if r == 1.0:
        return potential
    return lambda z: potential(r * z)


def infonce_spec(num_points: int, dim: int, tau: float, pairs: Any = None, *, coupled: bool = False,
                 radius: float = 1.0) -> LandscapeSpec:
    """Finite-τ InfoNCE over positive pairs on ``(S^{dim−1})^{num_points}`` (docs/theorems.md A7).

    ``V`` = mean over directed pairs of ``−s_ij/τ + logsumexp_{k∉{i,j}} s_ik/τ`` (coupled: the
    positive joins the denominator), ``s = z zᵀ`` on the sphere of radius ``radius``
    (``s = R² cos``, i.e. ``τ → τ/R²``). Symmetry ``O(d)`` × pair-preserving permutations. The pairs are
    kept in canonical order (each ``(i, j)`` with ``i < j``, sorted): the order they are given in does not
    change the landscape, nor its fingerprint.

    Args:
      num_points: N, integer >= 3 (every anchor needs a negative). dim: d, integer >= 2.
      tau: temperature in [1e-4, 1e4] (:data:`~.arguments.TAU_RANGE`). pairs: index pairs (default
      :func:`~.arguments.default_pairs`). coupled: bool. radius: sphere radius R > 0. Checked by
      :func:`~.arguments.infonce_arguments` (the command line's and the sweep kind's refusals are these).

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
      ValueError: naming ``num_points``, ``dim``, ``tau``, ``pairs`` or ``radius`` with its range.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.infonce_spec")
    a = infonce_arguments(num_points, dim, tau, pairs, coupled=bool(coupled), radius=radius)
    return _infonce_spec(a.num_points, a.dim, a.tau, a.pairs, a.coupled, a.radius)


@functools.lru_cache(maxsize=32)
def _infonce_spec(n: int, d: int, t: float, prs: tuple[tuple[int, int], ...], coupled: bool, r: float) -> LandscapeSpec:
    """Built once per arguments, so repeated searches reuse the compiled kernels (cached per spec)."""
    pot = _scaled(infonce_potential(n, prs, t, coupled=bool(coupled)), r)
    sym = Symmetry.infonce(prs)
    validate_potential(pot, n, d, sym, name="infonce potential")
    return LandscapeSpec("infonce", n, d, pot, sym,
                         {"tau": t, "pairs": [list(p) for p in prs], "coupled": bool(coupled)}, r,
                         f"finite-τ InfoNCE, τ = {t:g}, {'coupled' if coupled else 'decoupled'}, pairs {list(prs)}, "
                         f"N = {n} on S^{d - 1}" + (f" of radius {r:g}" if r != 1.0 else ""))


def thomson_spec(num_points: int, dim: int = 3) -> LandscapeSpec:
    """The Thomson problem on ``(S^{dim−1})^N``; symmetry ``O(d)`` × all permutations.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
      ValueError: ``num_points < 2`` or ``dim < 2`` (named).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.thomson_spec")
    a = thomson_arguments(num_points, dim)
    return _thomson_spec(a.num_points, a.dim)


@functools.lru_cache(maxsize=32)
def _thomson_spec(n: int, d: int) -> LandscapeSpec:
    pot = thomson_potential(n)
    sym = Symmetry.all_points()
    validate_potential(pot, n, d, sym, name="thomson potential")
    return LandscapeSpec("thomson", n, d, pot, sym, {}, 1.0, f"Thomson problem, N = {n} on S^{d - 1}")


_INFONCE_NAMES = ("infonce", "infonce-toy-soft")


def landscape_spec(landscape: Landscape, *, symmetry: Symmetry | None = None, radius: float = 1.0) -> LandscapeSpec:
    """A registry landscape with the symmetry its name implies (or the one given).

    ``infonce`` and ``infonce-toy-soft``: ``O(d)`` × pair-preserving permutations; ``thomson``:
    ``O(d)`` × all permutations; every other landscape (S¹, S², vMF mixtures): none.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
      ValueError: ``infonce-toy`` (the hard-max U0 is not differentiable: critical points need a
        Hessian; use ``infonce-toy-soft``), or a failed probe (:func:`validate_potential`).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.landscape_spec")
    if landscape.name == "infonce-toy":
        raise ValueError("landscape='infonce-toy' (the hard-max U0) is not differentiable, so its critical points "
                         "have no Hessian; use infonce-toy-soft (smooth surrogate) or infonce")
    if symmetry is None:
        if landscape.name in _INFONCE_NAMES:
            symmetry = Symmetry.infonce(landscape.params.get("pairs", ()))
        elif landscape.name == "thomson":
            symmetry = Symmetry.all_points()
        else:
            symmetry = Symmetry.none()
    r = check_radius(radius)
    pot = _scaled(landscape.potential_fn, r)
    validate_potential(pot, landscape.num_points, landscape.dim, symmetry, name=f"landscape {landscape.name!r}")
    return LandscapeSpec(landscape.name, landscape.num_points, landscape.dim, pot, symmetry,
                         _jsonable(dict(landscape.params)), r, landscape.description)


def user_spec(potential: Callable[[jax.Array], jax.Array], num_points: int, dim: int, *,
              symmetry: Symmetry | None = None, name: str = "user", params: dict | None = None,
              radius: float = 1.0) -> LandscapeSpec:
    """Any JAX potential ``V(z)``, ``z`` of shape ``(num_points, dim)`` -> scalar, with its symmetry.

    Args:
      potential: pure JAX function (jit/grad-able, float64). num_points: N >= 1. dim: d >= 2.
      symmetry: declared symmetry (default :meth:`Symmetry.none`); checked on random elements.
      name, params: recorded in results (params must be JSON-ready). radius: R > 0.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
      ValueError: ``potential`` not callable, N < 1, d < 2, bad radius, or a failed probe (wrong output
        shape, NaN/inf, symmetry that does not hold).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.user_spec")
    if not callable(potential):
        raise ValueError(f"potential={potential!r} must be a callable z (N, d) -> scalar")
    n = check_int("num_points", num_points, 1, None)
    d = check_int("dim", dim, 2, None)
    sym = Symmetry.none() if symmetry is None else symmetry
    if not isinstance(sym, Symmetry):
        raise ValueError(f"symmetry={symmetry!r} must be a Symmetry (Symmetry.none(), .infonce(pairs), .all_points())")
    if sym.permutations == "pairs":
        check_pairs(sym.pairs, n)
    r = check_radius(radius)
    pot = _scaled(potential, r)
    validate_potential(pot, n, d, sym, name="potential")
    return LandscapeSpec(name, n, d, pot, sym, dict(params or {}), r, f"user potential {name!r}, N = {n} on S^{d - 1}")
