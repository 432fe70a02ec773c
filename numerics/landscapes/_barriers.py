"""Critical heights ``H*`` of landscapes on grids and meshes, with their evidence (docs/theorems.md A3).

``H*`` is the largest barrier a non-global local minimum must climb to reach a strictly lower one,
computed by 0-dimensional sublevel-set persistence on a grid or mesh (:mod:`._persistence`: gudhi,
with a union-find cross-check on the same graph):

* :func:`circle_barrier` — S¹; for Fourier landscapes it refines grid minima and saddles to machine
  precision (Brent on ``V'``) and states the grid error bound ``sup|V''|·h²/4`` on the unrefined
  value;
* :func:`torus_barrier` — tori ``(S¹)^N``, :func:`sphere_barrier` — S² (Fibonacci mesh);
* :func:`landscape_barrier` — whichever of these the geometry allows.

For other landscapes :func:`._string_method.sampled_minima` and
:func:`._string_method.string_method_barrier` give an *estimate*. Persistence itself is
:mod:`._persistence`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_int

from contrastive_bounds.numerics.landscapes._circle import TWO_PI, analyse_circle
from contrastive_bounds.numerics.landscapes._persistence import (
    MinimumRecord,
    critical_height_from_pairs,
    cycle_edges,
    fibonacci_sphere,
    gudhi_persistence,
    tie_tolerance,
    torus_edges,
    union_find_depths,
)
from contrastive_bounds.numerics.landscapes._landscape import Landscape
from contrastive_bounds.numerics.landscapes._string_method import sampled_minima, string_method_barrier
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["BarrierResult", "MAX_SPHERE_VERTICES", "circle_barrier", "torus_barrier", "sphere_barrier", "landscape_barrier"]


MAX_SPHERE_VERTICES = 10**6
"""Most mesh vertices of :func:`sphere_barrier`: about three minutes and 2 GB at 10^6 on a loaded 2-core
CPU (the mesh, gudhi's simplex tree and the union-find grow linearly; 10^7 would take half an hour)."""


@dataclass(frozen=True)
class BarrierResult:
    """``H*`` of a landscape with its evidence.

    Attributes:
      critical_height: the reported H* (refined where possible).
      error_bound: bound on ``|critical_height − H*|`` (0-ish after refinement: stated as the
        refinement tolerance), or None for estimates.
      grid_critical_height: the raw grid/mesh value; grid_error_bound: a bound on its error
        (``sup|V''|·h²/4`` on S¹; estimated elsewhere, see ``method``).
      resolution: grid points per circle / mesh vertices; spacing: h.
      v_min: global minimum value; minima: list of dicts {theta or vertex, value, depth};
      saddles: list of dicts {theta or vertex, value}; method: text; cross_check: union-find H* on
        the same grid (must equal the gudhi value).
      warnings: one line per failed internal agreement (gudhi vs union-find beyond rounding; on S¹
        Fourier landscapes the grid value vs the exact H* beyond ``error_bound + grid_error_bound``,
        i.e. the grid does not resolve every extremum); empty when everything agrees.
    """

    critical_height: float
    error_bound: float | None
    grid_critical_height: float
    grid_error_bound: float | None
    resolution: int
    spacing: float
    v_min: float
    minima: list[dict[str, float]] = field(default_factory=list)
    saddles: list[dict[str, float]] = field(default_factory=list)
    method: str = ""
    cross_check: float | None = None
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (keys as the attributes), with no inf/NaN.

        A global minimum's depth (``inf`` in :attr:`minima`) becomes ``None`` with ``"global": True``;
        every minimum gets the ``"global"`` flag; ``warnings`` becomes a list.
        """
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["minima"] = [{**m, "depth": m["depth"] if math.isfinite(m["depth"]) else None,
                          "global": not math.isfinite(m["depth"])} for m in self.minima]
        out["warnings"] = list(self.warnings)
        return out


def _checked(res: BarrierResult, tol: float, notes: tuple[str, ...] = ()) -> BarrierResult:
    """``res`` with :attr:`BarrierResult.warnings` filled from its internal agreements (gudhi and
    union-find must agree within ``tol``, the tie tolerance of the grid values) and ``notes``."""
    notes = list(notes)
    if res.cross_check is not None and abs(res.cross_check - res.grid_critical_height) > tol:
        notes.append(
            f"cross-check failed: gudhi gives {res.grid_critical_height!r}, union-find {res.cross_check!r} on the "
            "same grid (they must agree)"
        )
    if res.error_bound is not None and res.grid_error_bound is not None:
        gap = abs(res.grid_critical_height - res.critical_height)
        allowed = res.error_bound + res.grid_error_bound
        if gap > allowed:
            notes.append(
                f"grid value {res.grid_critical_height!r} differs from the exact H* {res.critical_height!r} by "
                f"{gap:.3g}, beyond the stated bound {allowed:.3g}: the grid of {res.resolution} points does not "
                "resolve every extremum; raise the resolution"
            )
    return replace(res, warnings=tuple(notes))


def circle_barrier(landscape: Landscape, *, resolution: int = 4096) -> BarrierResult:
    """``H*`` of an S¹ landscape by persistence on a periodic grid, refined, with its error bound.

    Steps: (1) values on ``resolution`` equispaced angles (float64); (2) 0-dim persistence by gudhi
    (periodic cubical complex) and by :func:`union_find_depths` (must agree: cross-check);
    (3) for Fourier landscapes, the reported H* comes from the exact critical points
    (:func:`~._circle.analyse_circle`: sign scan of ``V'`` refined by Brent's method). Grid error bound (unrefined): grid minima are within
    ``M2·(h/2)²/2`` above the true minima and grid saddles within as much below the true saddles,
    ``M2 = Σ k²(|a_k| + |b_k|) >= sup|V''|``, so ``|H_grid − H*| <= M2·h²/4``, provided the grid
    resolves every extremum (``h`` below half the distance between critical points). Minima whose
    grid values differ by less than ``2·M2·h²/4`` cannot be ordered by the grid and are treated as
    ties (a minimum that close to the global one counts as global on the grid).

    Precision (the float64 policy of docs/design.md): a Fourier landscape is evaluated in numpy
    float64 (grid, critical points, persistence), whatever JAX's x64 mode; any other S¹ landscape is
    evaluated by its JAX potential, which needs x64 for float64, so with x64 off it raises
    :class:`~contrastive_bounds.numerics.X64DisabledError` instead of computing in float32.

    Args:
      landscape: an S¹ landscape (``num_points = 1``, ``dim = 2``).
      resolution: grid points, integer in [16, 10**7].

    Returns:
      :class:`BarrierResult` (float64 values).

    Raises:
      ValueError: not an S¹ landscape, or resolution out of range.
      X64DisabledError: a landscape without a Fourier form while JAX's x64 mode is off.

    Source: docs/theorems.md A3 (critical height); persistence: Edelsbrunner, Letscher, Zomorodian (2002).
    """
    n = check_int("resolution", resolution, 16, 10**7)
    if (landscape.num_points, landscape.dim) != (1, 2):
        raise ValueError(f"landscape {landscape.name!r} is not on S¹ (num_points=1, dim=2)")
    if landscape.fourier is None:  # the JAX potential: float64 only with x64 on
        require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.circle_barrier")
    theta = np.linspace(0.0, TWO_PI, n, endpoint=False)
    if landscape.fourier is not None:
        vals = landscape.fourier.value(theta)
        m2 = landscape.fourier.derivative_bound(2)
    else:
        z = jnp.stack([jnp.cos(theta), jnp.sin(theta)], axis=1)[:, None, :]
        vals = np.asarray(jax.vmap(landscape.potential)(z), dtype=np.float64)
        d2 = np.roll(vals, -1) - 2 * vals + np.roll(vals, 1)
        m2 = float(np.max(np.abs(d2))) / (TWO_PI / n) ** 2
    vals = check_finite_array("V on the grid", vals)
    h = TWO_PI / n
    grid_bound = m2 * h * h / 4.0
    # minima whose grid values differ by less than the grid's resolution cannot be ordered: ties
    tol = max(tie_tolerance(vals), 2.0 * grid_bound)
    v_min_grid = float(vals.min())
    pairs = gudhi_persistence(vals, periodic=True)
    h_gudhi = critical_height_from_pairs(pairs, v_min_grid, tie_tol=tol)
    recs = union_find_depths(vals, cycle_edges(n), tie_tol=tol)
    finite = [r for r in recs if math.isfinite(r.depth) and r.value > v_min_grid + tol]
    h_uf = max((r.depth for r in finite), default=0.0)
    method = f"0-dim sublevel persistence on a periodic grid of {n} points (gudhi PeriodicCubicalComplex; union-find cross-check)"
    if landscape.fourier is not None:
        s = landscape.fourier
        crit = analyse_circle(s)
        minima = [{"theta": float(t), "value": float(v), "depth": math.inf} for t, v in zip(crit.minima, crit.minima_values)]
        for d in crit.depths:
            for m in minima:
                if abs(m["theta"] - d.theta) < 1e-12:
                    m["depth"] = d.depth
        saddles = [{"theta": float(t), "value": float(v)} for t, v in zip(crit.maxima, crit.maxima_values)]
        # Brent on V' locates extrema to ~1e-15 rad; heights carry the rounding of the Fourier sum
        err = s.height_tolerance(1e-13)
        method += "; H* from the exact critical points (sign scan of V' refined by Brent's method)"
        notes = ()
        if not minima:
            notes = ("V is constant (no critical point where V' changes sign): every point is a global minimum, "
                     "H* = 0",)
        return _checked(BarrierResult(crit.critical_height, err, h_gudhi, grid_bound, n, h, crit.v_min, minima, saddles,
                                      method, h_uf), tol, notes)
    minima = [{"theta": float(theta[r.vertex]), "value": r.value, "depth": r.depth} for r in recs]
    saddles = [{"theta": float(theta[r.saddle_vertex]), "value": r.saddle_value} for r in finite]
    method += "; no refinement (not a Fourier landscape); M2 estimated by finite differences"
    return _checked(BarrierResult(h_gudhi, grid_bound, h_gudhi, grid_bound, n, h, v_min_grid, minima, saddles, method, h_uf),
                    tol)


def torus_barrier(landscape: Landscape, *, resolution: int = 64) -> BarrierResult:
    """``H*`` of a landscape on the torus ``(S¹)^N`` (``dim = 2``, small N) by periodic cubical persistence.

    The grid has ``resolution^N`` vertices (axis-neighbour graph, the same for gudhi and the
    union-find cross-check). The error bound is estimated from second differences (not rigorous).

    Raises:
      ValueError: ``dim != 2``, or ``resolution^N > 4·10^6``.
      X64DisabledError: JAX's x64 mode is off (the potential is evaluated by JAX; even for a Fourier
        landscape on (S¹)^1, use :func:`circle_barrier` there).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.torus_barrier")
    n = check_int("resolution", resolution, 8, None)
    if landscape.dim != 2:
        raise ValueError(f"landscape {landscape.name!r} is not on a torus (dim must be 2, got {landscape.dim})")
    k = landscape.num_points
    if n**k > 4_000_000:
        raise ValueError(f"resolution={n} gives {n}^{k} grid points; at most 4e6 allowed")
    th = np.linspace(0.0, TWO_PI, n, endpoint=False)
    mesh = np.stack(np.meshgrid(*([th] * k), indexing="ij"), axis=-1).reshape(-1, k)
    z = jnp.stack([jnp.cos(mesh), jnp.sin(mesh)], axis=-1)
    vals = np.asarray(jax.lax.map(landscape.potential, z, batch_size=4096), dtype=np.float64)
    grid = check_finite_array("V on the grid", vals.reshape((n,) * k))
    tol = tie_tolerance(vals)
    vmin = float(vals.min())
    h_gudhi = critical_height_from_pairs(gudhi_persistence(grid, periodic=True), vmin, tie_tol=tol)
    recs = union_find_depths(vals, torus_edges((n,) * k), tie_tol=tol)
    finite = [r for r in recs if math.isfinite(r.depth) and r.value > vmin + tol]
    h_uf = max((r.depth for r in finite), default=0.0)
    hstep = TWO_PI / n
    m2 = max(float(np.max(np.abs(np.roll(grid, -1, ax) - 2 * grid + np.roll(grid, 1, ax)))) for ax in range(k)) / hstep**2
    bound = k * m2 * hstep * hstep / 4.0
    minima = [{"vertex": r.vertex, "value": r.value, "depth": r.depth, "theta": mesh[r.vertex].tolist()} for r in recs]
    saddles = [{"vertex": r.saddle_vertex, "value": r.saddle_value, "theta": mesh[r.saddle_vertex].tolist()} for r in finite]
    return _checked(BarrierResult(
        h_gudhi, None, h_gudhi, bound, n, hstep, vmin, minima, saddles,
        f"0-dim persistence on a periodic {n}^{k} grid (gudhi; union-find cross-check); error bound estimated "
        "from second differences", h_uf,
    ), tol)



def sphere_barrier(landscape: Landscape, *, num_vertices: int = 20000) -> BarrierResult:
    """``H*`` of an S² landscape (N = 1, d = 3) by lower-star persistence on a Fibonacci mesh.

    gudhi simplex tree with lower-star filtration; union-find on the mesh edges as cross-check.
    The error bound is estimated as ``M2·h²/4`` with ``M2`` from the spread of values along edges
    (not rigorous; an estimate, so ``error_bound`` is None).

    Raises:
      ValueError: not an S² landscape, or ``num_vertices`` outside [12, 10**6] (:data:`MAX_SPHERE_VERTICES`).
      X64DisabledError: JAX's x64 mode is off (the potential is evaluated by JAX).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.sphere_barrier")
    check_int("num_vertices", num_vertices, 12, MAX_SPHERE_VERTICES)
    if (landscape.num_points, landscape.dim) != (1, 3):
        raise ValueError(f"landscape {landscape.name!r} is not on S² (num_points=1, dim=3)")
    pts, tri = fibonacci_sphere(num_vertices)
    vals = np.asarray(jax.lax.map(landscape.potential, jnp.asarray(pts)[:, None, :], batch_size=4096), dtype=np.float64)
    vals = check_finite_array("V on the mesh", vals)
    tol = tie_tolerance(vals)
    vmin = float(vals.min())
    h_gudhi = critical_height_from_pairs(gudhi_persistence(vals, simplices=tri), vmin, tie_tol=tol)
    edges = np.unique(np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [0, 2]]]), axis=1), axis=0)
    recs = union_find_depths(vals, edges, tie_tol=tol)
    finite = [r for r in recs if math.isfinite(r.depth) and r.value > vmin + tol]
    h_uf = max((r.depth for r in finite), default=0.0)
    lengths = np.linalg.norm(pts[edges[:, 0]] - pts[edges[:, 1]], axis=1)
    hmax = float(lengths.max())
    slope = np.abs(vals[edges[:, 0]] - vals[edges[:, 1]]) / lengths
    m2 = float(np.max(slope)) / max(hmax, 1e-300)  # crude curvature scale
    minima = [{"vertex": r.vertex, "value": r.value, "depth": r.depth, "point": pts[r.vertex].tolist()} for r in recs]
    saddles = [{"vertex": r.saddle_vertex, "value": r.saddle_value, "point": pts[r.saddle_vertex].tolist()} for r in finite]
    return _checked(BarrierResult(
        h_gudhi, None, h_gudhi, m2 * hmax * hmax / 4.0, pts.shape[0], hmax, vmin, minima, saddles,
        f"lower-star 0-dim persistence on a Fibonacci mesh of {pts.shape[0]} vertices (gudhi SimplexTree; "
        "union-find cross-check); error bound estimated", h_uf,
    ), tol)


_DEFAULT_RESOLUTION = {"circle": 4096, "sphere": 20000, "torus": 64}


def landscape_barrier(landscape: Landscape, *, resolution: int | None = None) -> BarrierResult:
    """``H*`` of a landscape by the grid method its geometry allows (docs/theorems.md A3).

    S¹ (N = 1, d = 2): :func:`circle_barrier`; S² (N = 1, d = 3): :func:`sphere_barrier`; tori
    ``(S¹)^N`` with ``N <= 3``: :func:`torus_barrier`.

    Args:
      landscape: any landscape of those geometries.
      resolution: grid points per circle (S¹: integer in [16, 1e7] (1e7: about two minutes and 4 GB on a
        loaded 2-core CPU), default 4096; tori: integer in [8, 4096] with ``resolution^N <= 4e6``, default
        64) or mesh vertices (S²: integer in [12, 1e6] (1e6: about three minutes and 2 GB), default
        20000). ``None`` means the default; every given value is validated (0 is not a sentinel).

    Precision: as the method it calls; only an S¹ Fourier landscape is computed without JAX (numpy
    float64, whatever x64 says); every other landscape needs JAX's x64 mode.

    Raises:
      ValueError: ``resolution`` outside its range (named), or a geometry with no grid method (use
        :func:`sampled_minima` and :func:`string_method_barrier`, estimates).
      X64DisabledError: JAX's x64 mode is off and the landscape is not an S¹ Fourier landscape.

    Examples:
      H* of the double well by 0-dimensional persistence, with its certified error:

      >>> from contrastive_bounds.numerics.landscapes import get_landscape
      >>> res = landscape_barrier(get_landscape("double-well"))
      >>> res.critical_height, res.v_min, bool(res.error_bound < 1e-12)
      (1.53125, -1.5, True)
      >>> [(round(m["theta"], 6), m["value"]) for m in res.minima]
      [(0.0, -1.5), (3.141593, -0.5)]
    """
    geom = (landscape.num_points, landscape.dim)
    if not (geom == (1, 2) and landscape.fourier is not None):
        require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.landscape_barrier")
    if geom == (1, 2):
        kind, lo, hi = "circle", 16, 10**7
    elif geom == (1, 3):
        kind, lo, hi = "sphere", 12, MAX_SPHERE_VERTICES
    elif landscape.dim == 2 and landscape.num_points <= 3:
        kind, lo, hi = "torus", 8, 4096
    else:
        raise ValueError(
            f"landscape={landscape.name!r} lives on (S^{landscape.dim - 1})^{landscape.num_points}: no grid method; "
            "use numerics.barriers.sampled_minima and string_method_barrier (estimates)"
        )
    n = _DEFAULT_RESOLUTION[kind] if resolution is None else check_int("resolution", resolution, lo, hi)
    if kind == "circle":
        return circle_barrier(landscape, resolution=n)
    if kind == "sphere":
        return sphere_barrier(landscape, num_vertices=n)
    return torus_barrier(landscape, resolution=n)

