"""0-dimensional sublevel-set persistence of sampled landscapes (docs/theorems.md A3): the graph machinery
behind :mod:`._barriers`.

On a sampled landscape ``H*`` is the largest finite 0-dimensional persistence (elder rule) among
components born above the global minimum: equal minima merging with each other (ties) are not
depths, and their survivor carries the true depth. Two independent implementations:

* :func:`gudhi_persistence` — gudhi's (periodic) cubical complex with vertex values (S¹, tori
  ``(S¹)^N`` with the axis-neighbour graph) or a lower-star simplex tree (S² meshes);
* :func:`union_find_depths` — a plain union-find sweep over any vertex graph, which also returns
  the depth of every minimum, its saddle and its target (disconnectivity data).

The vertex graphs: :func:`cycle_edges` (S¹ grids), :func:`torus_edges` (periodic grids),
:func:`fibonacci_sphere` (an S² mesh). All numpy/gudhi in float64; no JAX.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_int

__all__ = [
    "MinimumRecord",
    "tie_tolerance",
    "union_find_depths",
    "gudhi_persistence",
    "critical_height_from_pairs",
    "cycle_edges",
    "torus_edges",
    "fibonacci_sphere",
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


def tie_tolerance(values: np.ndarray) -> float:
    """Values closer than this are ties: ``1e-12·(max V − min V) + 16·eps·max|V|``.

    Relative to the landscape's own range (heights of ``c·V + const`` scale by ``c``), plus the
    rounding of float64 values of size ``max|V|``. (Whether an energy ties with ``V_min`` in a run's global set
    is :func:`contrastive_bounds.numerics.langevin.global_tie_tolerance`, a different rule.)

    Args:
      values: array of any shape (float64 after conversion); empty gives 0.0.

    Returns:
      a float >= 0, in the units of V.
    """
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
    tol = tie_tolerance(v) if tie_tol is None else float(tie_tol)
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
