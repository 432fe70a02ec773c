"""Critical heights ``H*`` by 0-dimensional sublevel-set persistence (THEOREMS.md A3).

``H*`` is the largest barrier a non-global local minimum must climb to reach a strictly lower one.
On a sampled landscape it is the largest finite 0-dimensional persistence (elder rule) among
components born above the global minimum: equal minima merging with each other (ties) are not
depths, and their survivor carries the true depth.

Two independent implementations:

* :func:`gudhi_persistence` — gudhi's (periodic) cubical complex with vertex values (S¹, tori
  ``(S¹)^N`` with the axis-neighbour graph) or a lower-star simplex tree (S² meshes);
* :func:`union_find_depths` — a plain union-find sweep over any vertex graph, which also returns
  the depth of every minimum, its saddle and its target (disconnectivity data).

For S¹ Fourier landscapes :func:`circle_barrier` refines grid minima and saddles to machine
precision (Brent on ``V'``) and states the grid error bound ``sup|V''|·h²/4`` on the unrefined value.
For other landscapes :func:`sampled_minima` + :func:`string_method_barrier` give an *estimate*.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory.domains import check_finite_array, check_int, check_real

from contrastive_bounds.numerics.landscapes.circle import TWO_PI, FourierSeries, analyse_circle
from contrastive_bounds.numerics.landscapes.registry import Landscape
from contrastive_bounds.numerics.precision import require_x64

__all__ = [
    "MinimumRecord",
    "BarrierResult",
    "union_find_depths",
    "gudhi_persistence",
    "critical_height_from_pairs",
    "cycle_edges",
    "torus_edges",
    "circle_barrier",
    "landscape_barrier",
    "torus_barrier",
    "fibonacci_sphere",
    "sphere_barrier",
    "sampled_minima",
    "string_method_barrier",
]


@dataclass(frozen=True)
class MinimumRecord:
    """One local minimum of a sampled landscape.

    Attributes:
      vertex: grid/mesh index; value: V there; depth: barrier to a strictly lower minimum
        (``inf`` for global minima); saddle_vertex / saddle_value: where and at what height its
        component first meets a strictly lower one (-1 / inf for global minima).
    """

    vertex: int
    value: float
    depth: float
    saddle_vertex: int
    saddle_value: float


def _tie_tol(values: np.ndarray) -> float:
    """``1e-12·(max V − min V) + 16·eps·max|V|``: relative to the landscape's own range (heights of
    ``c·V + const`` scale by ``c``), plus the rounding of values of size ``max|V|``."""
    v = np.asarray(values, dtype=np.float64)
    if v.size == 0:
        return 0.0
    return 1e-12 * float(np.max(v) - np.min(v)) + 16.0 * float(np.finfo(np.float64).eps) * float(np.max(np.abs(v)))


def union_find_depths(values: Any, edges: Any, *, tie_tol: float | None = None) -> list[MinimumRecord]:
    """Depth of every local minimum of a function on a graph by a union-find sweep (elder rule).

    Vertices are added in increasing value; an edge joins two components when its later endpoint
    is added. Each component keeps its lowest value and the list of minima *tied* at that value
    (within ``tie_tol``); when it meets a component whose lowest value is strictly lower, all of
    its tied minima get depth ``current value − their value`` (so ties are not depths).

    Args:
      values: float64 array (n,) of finite values at vertices.
      edges: int array (m, 2) of vertex pairs (undirected).
      tie_tol: values closer than this are equal; default ``1e-12·(max V − min V) + 16·eps·max|V|``.

    Returns:
      one :class:`MinimumRecord` per connected-component birth, sorted by vertex.

    Raises:
      ValueError: non-finite values, or edges out of range.
    """
    v = check_finite_array("values", np.asarray(values, dtype=np.float64), ndim=1)
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    n = v.size
    if e.size and (e.min() < 0 or e.max() >= n):
        raise ValueError(f"edges refer to vertices outside [0, {n - 1}]")
    tol = _tie_tol(v) if tie_tol is None else float(tie_tol)
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in e:
        adj[a].append(b)
        adj[b].append(a)
    parent = np.full(n, -1, dtype=np.int64)
    low = np.zeros(n)
    pending: dict[int, list[int]] = {}
    records: dict[int, MinimumRecord] = {}

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for x in np.argsort(v, kind="stable"):
        x = int(x)
        roots = {find(int(y)) for y in adj[x] if parent[y] >= 0}
        parent[x] = x
        if not roots:
            low[x] = v[x]
            pending[x] = [x]
            continue
        roots_sorted = sorted(roots, key=lambda r: low[r])
        r0 = roots_sorted[0]
        for r in roots_sorted[1:]:
            if low[r] > low[r0] + tol:  # r meets something strictly lower: its tied minima die here
                for m in pending.pop(r):
                    records[m] = MinimumRecord(m, float(v[m]), float(v[x] - v[m]), x, float(v[x]))
            else:  # a tie: keep both as pending in the merged component
                pending[r0].extend(pending.pop(r))
            parent[r] = r0
        parent[x] = r0
    for r, mins in pending.items():
        for m in mins:
            records[m] = MinimumRecord(m, float(v[m]), math.inf, -1, math.inf)
    return [records[k] for k in sorted(records)]


def gudhi_persistence(values: Any, *, periodic: bool | None = None, simplices: Any = None) -> np.ndarray:
    """Finite 0-dimensional persistence pairs ``(birth, death)`` of the sublevel filtration, by gudhi.

    Args:
      values: vertex values; an array of shape (n,) or (n1, ..., nk) for a (periodic) cubical grid,
        or (n,) together with ``simplices`` for a mesh.
      periodic: for grids, whether every dimension is periodic (S¹, tori). Ignored for meshes.
      simplices: int array (m, 3) of triangles (or (m, 2) edges): lower-star filtration on this mesh.

    Returns:
      float64 array (p, 2) of finite pairs (essential classes omitted), rows sorted by birth.

    Source: gudhi ``PeriodicCubicalComplex(vertices=..., periodic_dimensions=...)`` /
    ``SimplexTree`` with ``extend_filtration``-free lower-star values.
    """
    import gudhi

    v = check_finite_array("values", np.asarray(values, dtype=np.float64))
    if simplices is None:
        cplx = gudhi.PeriodicCubicalComplex(vertices=v, periodic_dimensions=[bool(periodic)] * v.ndim)
        pairs = cplx.persistence(homology_coeff_field=2, min_persistence=-1)
    else:
        st = gudhi.SimplexTree()
        flat = v.reshape(-1)
        for i, val in enumerate(flat):
            st.insert([i], filtration=float(val))
        simp = np.asarray(simplices, dtype=np.int64)
        # faces first, each with its own lower-star value (inserting a triangle alone would give
        # its edges the triangle's value)
        faces = [simp] if simp.shape[1] == 2 else [simp[:, [0, 1]], simp[:, [1, 2]], simp[:, [0, 2]], simp]
        for group in faces:
            for row in group:
                s = [int(a) for a in row]
                st.insert(s, filtration=float(flat[s].max()))
        st.make_filtration_non_decreasing()
        pairs = st.persistence(homology_coeff_field=2, min_persistence=-1)
    out = np.array([p for d, p in pairs if d == 0 and math.isfinite(p[1])], dtype=np.float64).reshape(-1, 2)
    return out[np.argsort(out[:, 0], kind="stable")]


def critical_height_from_pairs(pairs: np.ndarray, v_min: float, *, tie_tol: float) -> float:
    """``H* = max(death − birth)`` over finite pairs born strictly above ``v_min`` (0.0 if none).

    Pairs born at the global minimum level are ties between global minima, not depths; the elder
    rule gives the survivor of tied non-global minima their true depth, so the maximum is exact.
    """
    p = np.asarray(pairs, dtype=np.float64).reshape(-1, 2)
    keep = p[:, 0] > v_min + tie_tol
    return float(np.max(p[keep, 1] - p[keep, 0])) if np.any(keep) else 0.0


def cycle_edges(n: int) -> np.ndarray:
    """Edges (n, 2) of the cycle graph 0-1-...-(n−1)-0."""
    i = np.arange(n)
    return np.stack([i, (i + 1) % n], axis=1)


def torus_edges(shape: tuple[int, ...]) -> np.ndarray:
    """Axis-neighbour edges of a periodic grid of ``shape`` (C-order vertex numbering)."""
    idx = np.arange(int(np.prod(shape))).reshape(shape)
    return np.concatenate(
        [np.stack([idx.reshape(-1), np.roll(idx, -1, axis=ax).reshape(-1)], axis=1) for ax in range(len(shape))]
    )


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
    (:func:`~.circle.analyse_circle`: sign scan of ``V'`` refined by Brent's method). Grid error bound (unrefined): grid minima are within
    ``M2·(h/2)²/2`` above the true minima and grid saddles within as much below the true saddles,
    ``M2 = Σ k²(|a_k| + |b_k|) >= sup|V''|``, so ``|H_grid − H*| <= M2·h²/4``, provided the grid
    resolves every extremum (``h`` below half the distance between critical points). Minima whose
    grid values differ by less than ``2·M2·h²/4`` cannot be ordered by the grid and are treated as
    ties (a minimum that close to the global one counts as global on the grid).

    Args:
      landscape: an S¹ landscape (``num_points = 1``, ``dim = 2``).
      resolution: grid points, integer >= 16.

    Raises:
      ValueError: not an S¹ landscape, or resolution out of range.
    """
    require_x64(np.float64, what="landscapes.barriers.circle_barrier")
    n = check_int("resolution", resolution, 16, 10**7)
    if (landscape.num_points, landscape.dim) != (1, 2):
        raise ValueError(f"landscape {landscape.name!r} is not on S¹ (num_points=1, dim=2)")
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
    tol = max(_tie_tol(vals), 2.0 * grid_bound)
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
    """
    require_x64(np.float64, what="landscapes.barriers.torus_barrier")
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
    tol = _tie_tol(vals)
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


def fibonacci_sphere(num_vertices: int) -> tuple[np.ndarray, np.ndarray]:
    """Fibonacci points on S² and their triangulation (convex hull).

    Returns:
      (points float64 (n, 3) unit rows, triangles int (m, 3)).

    Raises:
      ValueError: ``num_vertices < 12``.
    """
    from scipy.spatial import ConvexHull

    n = check_int("num_vertices", num_vertices, 12, None)
    i = np.arange(n) + 0.5
    phi = np.arccos(1.0 - 2.0 * i / n)
    golden = math.pi * (1.0 + math.sqrt(5.0))
    pts = np.stack([np.cos(golden * i) * np.sin(phi), np.sin(golden * i) * np.sin(phi), np.cos(phi)], axis=1)
    return pts, ConvexHull(pts).simplices.astype(np.int64)


def sphere_barrier(landscape: Landscape, *, num_vertices: int = 20000) -> BarrierResult:
    """``H*`` of an S² landscape (N = 1, d = 3) by lower-star persistence on a Fibonacci mesh.

    gudhi simplex tree with lower-star filtration; union-find on the mesh edges as cross-check.
    The error bound is estimated as ``M2·h²/4`` with ``M2`` from the spread of values along edges
    (not rigorous; an estimate, so ``error_bound`` is None).

    Raises:
      ValueError: not an S² landscape, or ``num_vertices < 12``.
    """
    require_x64(np.float64, what="landscapes.barriers.sphere_barrier")
    if (landscape.num_points, landscape.dim) != (1, 3):
        raise ValueError(f"landscape {landscape.name!r} is not on S² (num_points=1, dim=3)")
    pts, tri = fibonacci_sphere(num_vertices)
    vals = np.asarray(jax.lax.map(landscape.potential, jnp.asarray(pts)[:, None, :], batch_size=4096), dtype=np.float64)
    vals = check_finite_array("V on the mesh", vals)
    tol = _tie_tol(vals)
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
    """``H*`` of a landscape by the grid method its geometry allows (THEOREMS.md A3).

    S¹ (N = 1, d = 2): :func:`circle_barrier`; S² (N = 1, d = 3): :func:`sphere_barrier`; tori
    ``(S¹)^N`` with ``N <= 3``: :func:`torus_barrier`.

    Args:
      landscape: any landscape of those geometries.
      resolution: grid points per circle (S¹: integer in [16, 1e7] (1e7: about a minute), default 4096; tori: integer >= 8,
        default 64) or mesh vertices (S²: integer >= 12, default 20000). ``None`` means the default;
        every given value is validated (0 is not a sentinel).

    Raises:
      ValueError: ``resolution`` outside its range (named), or a geometry with no grid method (use
        :func:`sampled_minima` and :func:`string_method_barrier`, estimates).
    """
    require_x64(np.float64, what="landscapes.barriers.landscape_barrier")
    geom = (landscape.num_points, landscape.dim)
    if geom == (1, 2):
        kind, lo, hi = "circle", 16, 10**7
    elif geom == (1, 3):
        kind, lo, hi = "sphere", 12, 10**7
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


# ---------------------------------------------------------------------------- high dimensions
def _normalize(z: jax.Array) -> jax.Array:
    return z / jnp.linalg.norm(z, axis=-1, keepdims=True)


def _project(z: jax.Array, g: jax.Array) -> jax.Array:
    return g - jnp.sum(g * z, axis=-1, keepdims=True) * z


def sampled_minima(landscape: Landscape, key: jax.Array, *, starts: int = 256, steps: int = 2000,
                   step_size: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Local minima from many random starts by projected gradient descent (an estimate).

    Chains are vmapped and steps run in ``lax.scan``; the retraction is normalisation.

    Args:
      landscape: any landscape; key: a JAX PRNG key; starts: number of uniform random starts
      (int >= 1); steps: descent steps (int >= 1); step_size: > 0.

    Returns:
      (final states float (starts, N, d), final values float (starts,)) in the default float dtype.
    """
    require_x64(np.float64, what="landscapes.barriers.sampled_minima")
    s = check_int("starts", starts, 1, None)
    k = check_int("steps", steps, 1, None)
    eta = check_real("step_size", step_size, 0.0, math.inf)
    z0 = _normalize(jax.random.normal(key, (s, landscape.num_points, landscape.dim)))

    def descend(z: jax.Array) -> jax.Array:
        def body(z: jax.Array, _: Any) -> tuple[jax.Array, None]:
            return _normalize(z - eta * _project(z, landscape.grad(z))), None

        return jax.lax.scan(body, z, None, length=k)[0]

    zf = jax.jit(jax.vmap(descend))(z0)
    return np.asarray(zf), np.asarray(jax.vmap(landscape.potential)(zf))


def string_method_barrier(landscape: Landscape, z_a: Any, z_b: Any, *, images: int = 32, iterations: int = 2000,
                          step_size: float = 0.01) -> tuple[float, np.ndarray]:
    """Minimum-energy-path barrier between two states by the simplified string method (an estimate).

    E, Ren & Vanden-Eijnden (2007): images evolve by projected gradient descent, then are
    re-interpolated to equal arc length (chordal, per factor normalised). Returns the highest
    energy on the converged string minus ``V(z_a)``; with a finite number of images this is a
    lower estimate of the true saddle (error O(spacing²)).

    Args:
      z_a, z_b: arrays (N, d) of unit rows; images: int >= 3; iterations: int >= 1; step_size > 0.

    Returns:
      (barrier estimate float, energies along the final string float64 (images,)).
    """
    require_x64(z_a, z_b, np.float64, what="landscapes.barriers.string_method_barrier")
    m = check_int("images", images, 3, None)
    it = check_int("iterations", iterations, 1, None)
    eta = check_real("step_size", step_size, 0.0, math.inf)
    za = _normalize(jnp.asarray(z_a))
    zb = _normalize(jnp.asarray(z_b))
    s = jnp.linspace(0.0, 1.0, m)[:, None, None]
    path = _normalize((1 - s)[..., None][..., 0] * za + s * zb + 1e-6 * jnp.ones_like(za))
    grad = jax.vmap(landscape.grad)
    target = jnp.linspace(0.0, 1.0, m)

    def reparam(p: jax.Array) -> jax.Array:
        seg = jnp.linalg.norm((p[1:] - p[:-1]).reshape(m - 1, -1), axis=1)
        arc = jnp.concatenate([jnp.zeros(1, p.dtype), jnp.cumsum(seg)])
        arc = arc / jnp.maximum(arc[-1], 1e-300)
        flat = p.reshape(m, -1)
        new = jax.vmap(lambda col: jnp.interp(target, arc, col), in_axes=1, out_axes=1)(flat)
        return _normalize(new.reshape(p.shape))

    def body(p: jax.Array, _: Any) -> tuple[jax.Array, None]:
        moved = _normalize(p - eta * _project(p, grad(p)))
        moved = moved.at[0].set(p[0]).at[-1].set(p[-1])
        return reparam(moved), None

    final = jax.jit(lambda p: jax.lax.scan(body, p, None, length=it)[0])(path)
    energies = np.asarray(jax.vmap(landscape.potential)(final), dtype=np.float64)
    return float(energies.max() - energies[0]), energies
