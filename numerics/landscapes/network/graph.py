"""The kinetic transition network: H*, Catoni's D, global minima, merge tree (docs/theorems.md A9, A3, A6).

Nodes are minima (up to symmetry), edges verified transition states. For a non-global minimum ``x``
its barrier is ``min over paths to a strictly lower minimum of (highest transition state on the
path) − V(x)`` and ``H* = max_x barrier(x)`` (Becker & Karplus, J. Chem. Phys. 106, 1495 (1997);
Wales, Energy Landscapes (2003)). It is computed by the union-find sweep of
:func:`~contrastive_bounds.numerics.landscapes.union_find_depths` (elder rule, ties are not
depths) on the bipartite graph minima–transition states — the same construction as the grid code —
and cross-checked by a bottleneck (minimax) Dijkstra search per minimum on a networkx graph.

A non-global minimum with no path to a lower one in the network is *unconnected*: its barrier is
unknown (at least the highest barrier its component has climbed), so ``H*`` is then reported as
incomplete. Working on the quotient by the symmetry is exact: a path between classes lifts to a
path between representatives (apply the group element edge by edge).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import networkx as nx
import numpy as np

from contrastive_bounds.numerics.landscapes._persistence import union_find_depths
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.theory._annealing import catoni_difficulty

__all__ = ["NetworkAnalysis", "analyse_network", "to_networkx", "merge_tree", "minimax_barriers", "energy_tie_tol"]


def energy_tie_tol(energies: Sequence[float]) -> float:
    """Energies closer than ``1e-10·max(1, max|V|)`` are equal (refined critical points carry ~1e-14)."""
    e = np.asarray(list(energies), dtype=np.float64)
    return 1e-10 * max(1.0, float(np.max(np.abs(e), initial=0.0)))


@dataclass
class NetworkAnalysis:
    """H* and friends from a network.

    Attributes:
      critical_height: H* over the connected non-global minima (0.0 when every minimum is global).
      complete: no non-global minimum is unconnected (else H* is only what the network shows).
      v_min: lowest minimum energy. global_minima: ids within the tie tolerance of v_min.
      barriers: ``{id: {"barrier", "saddle_energy", "ts", "target"}}`` per non-global connected minimum.
      unconnected: ids of non-global minima with no path to a lower minimum in the network.
      catoni_difficulty: ``max barrier(x)/(V(x) − v_min)`` over connected non-global minima (A6); None where it is
        undefined (a maximum over no minimum: every minimum global or none connected; or a zero barrier), with
        ``catoni_note`` saying why (``""`` when defined).
      cross_check: H* by the bottleneck Dijkstra search (must equal ``critical_height``).
      warnings: disagreements and incompleteness, one line each.
    """

    critical_height: float
    complete: bool
    v_min: float
    global_minima: list[int]
    barriers: dict[int, dict[str, Any]] = field(default_factory=dict)
    unconnected: list[int] = field(default_factory=list)
    catoni_difficulty: float | None = None
    cross_check: float = 0.0
    warnings: list[str] = field(default_factory=list)
    catoni_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (ids as strings in ``barriers``)."""
        return {"critical_height": self.critical_height, "complete": self.complete, "v_min": self.v_min,
                "global_minima": list(self.global_minima),
                "barriers": {str(k): v for k, v in self.barriers.items()},
                "unconnected": list(self.unconnected), "catoni_difficulty": self.catoni_difficulty,
                "catoni_note": self.catoni_note, "cross_check": self.cross_check, "warnings": list(self.warnings)}


def to_networkx(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState]) -> nx.MultiGraph:
    """A networkx multigraph: node per minimum (``energy``, ``multiplicity``), edge per verified TS
    (``energy``, ``ts`` id); a TS joining a minimum to itself is a self-loop."""
    g = nx.MultiGraph()
    for m in minima:
        g.add_node(m.id, energy=m.energy, multiplicity=m.multiplicity)
    for t in transition_states:
        if t.verified and len(t.minima) == 2:
            g.add_edge(t.minima[0], t.minima[1], energy=t.energy, ts=t.id)
    return g


def minimax_barriers(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState],
                     tie_tol: float) -> dict[int, float]:
    """Barrier of every minimum by a bottleneck Dijkstra search (independent of the union-find).

    For each minimum ``x`` the smallest achievable maximum TS energy on a path to any minimum lower than
    ``V(x) − tie_tol``, minus ``V(x)``; ``inf`` when none is reachable.
    """
    g = to_networkx(minima, transition_states)
    energy = {m.id: m.energy for m in minima}
    out = {}
    for m in minima:
        best = {m.id: -math.inf}
        heap = [(-math.inf, m.id)]
        found = math.inf
        while heap:
            level, u = heapq.heappop(heap)
            if level > best.get(u, math.inf):
                continue
            if energy[u] < m.energy - tie_tol:
                found = level
                break
            for _, w, data in g.edges(u, data=True):
                cand = max(level, data["energy"])
                if cand < best.get(w, math.inf):
                    best[w] = cand
                    heapq.heappush(heap, (cand, w))
        out[m.id] = found - m.energy if math.isfinite(found) else math.inf
    return out


def analyse_network(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState]) -> NetworkAnalysis:
    """H*, barriers, global minima, Catoni's D of the network (only verified TSs and minima are used).

    Raises:
      ValueError: no minimum.
    """
    mins = list(minima)
    if not mins:
        raise ValueError("the network has no minimum")
    tss = [t for t in transition_states if t.verified and len(t.minima) == 2]
    energies = [m.energy for m in mins] + [t.energy for t in tss]
    tol = energy_tie_tol(energies)
    index = {m.id: k for k, m in enumerate(mins)}
    values = np.array(energies, dtype=np.float64)
    edges = []
    for k, t in enumerate(tss):
        for mid in t.minima:
            edges.append((len(mins) + k, index[mid]))
    records = {r.vertex: r for r in union_find_depths(values, np.array(edges, dtype=np.int64).reshape(-1, 2), tie_tol=tol)}
    v_min = min(m.energy for m in mins)
    glob = [m.id for m in mins if m.energy <= v_min + tol]
    barriers: dict[int, dict[str, Any]] = {}
    unconnected = []
    for m in mins:
        if m.id in glob:
            continue
        rec = records[index[m.id]]  # every minimum is a birth: its only neighbours are higher TSs
        if not math.isfinite(rec.depth):
            unconnected.append(m.id)
            continue
        ts = tss[rec.saddle_vertex - len(mins)]
        barriers[m.id] = {"barrier": rec.depth, "saddle_energy": rec.saddle_value, "ts": ts.id,
                          "target": _lower_target(m, rec.saddle_value, mins, tss, tol)}
    cross = minimax_barriers(mins, tss, tol)
    h = max((b["barrier"] for b in barriers.values()), default=0.0)
    h_cross = max((cross[m.id] for m in mins if m.id not in glob and m.id not in unconnected), default=0.0)
    warnings = []
    if abs(h - h_cross) > 4 * tol or any(math.isfinite(cross[i]) for i in unconnected):
        warnings.append(f"cross-check failed: union-find H* = {h!r}, bottleneck search {h_cross!r}")
    if unconnected:
        warnings.append(f"{len(unconnected)} non-global minimum/minima (ids {unconnected}) have no path to a lower "
                        "minimum in the network: H* is incomplete (their barriers are unknown)")
    by_id = {m.id: m for m in mins}
    d, note = _catoni(by_id, barriers, v_min, unconnected)
    return NetworkAnalysis(float(h), not unconnected, float(v_min), glob, barriers, unconnected, d,
                           float(h_cross), warnings, note)


def _catoni(by_id: dict[int, NetworkMinimum], barriers: dict[int, dict[str, Any]], v_min: float,
            unconnected: Sequence[int]) -> tuple[float | None, str]:
    """Catoni's D of the connected non-global minima and ``""``, or None and why it is undefined."""
    if not barriers:
        return None, ("undefined: " + ("no non-global minimum is connected to a lower one in the network" if unconnected
                                       else "every minimum is global (D is a maximum over non-global minima)"))
    if not all(b["barrier"] > 0 for b in barriers.values()):
        return None, "undefined: a non-global minimum has a zero barrier"
    return float(catoni_difficulty([by_id[i].energy for i in barriers], [b["barrier"] for b in barriers.values()],
                                   v_min)), ""


def _lower_target(m: NetworkMinimum, level: float, mins: Sequence[NetworkMinimum], tss: Sequence[TransitionState],
                  tol: float) -> int | None:
    """The lowest minimum reachable from ``m`` through TSs no higher than ``level`` (+ tol)."""
    adj: dict[int, list[int]] = {}
    for t in tss:
        if t.energy <= level + tol:
            a, b = t.minima
            adj.setdefault(a, []).append(b)
            adj.setdefault(b, []).append(a)
    seen, stack = {m.id}, [m.id]
    while stack:
        u = stack.pop()
        for w in adj.get(u, []):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    energy = {x.id: x.energy for x in mins}
    best = min(seen, key=lambda i: energy[i])
    return best if energy[best] < m.energy - tol else None


def merge_tree(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState]) -> list[dict[str, Any]]:
    """The disconnectivity (merge) tree by Kruskal's sweep over verified TSs in increasing energy.

    Returns a list of nodes: leaves ``{"kind": "leaf", "id", "energy", "children": []}`` then merges
    ``{"kind": "merge", "energy", "children": [node indices]}``; roots are nodes never merged
    (one per connected component).
    """
    mins = sorted(minima, key=lambda m: m.energy)
    nodes: list[dict[str, Any]] = [{"kind": "leaf", "id": m.id, "energy": m.energy, "children": [], "low": m.energy}
                                   for m in mins]
    owner = {m.id: k for k, m in enumerate(mins)}
    parent = list(range(len(nodes)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    top = {k: k for k in range(len(mins))}  # union-find root -> current tree node
    for t in sorted((t for t in transition_states if t.verified and len(t.minima) == 2), key=lambda t: t.energy):
        ra, rb = find(owner[t.minima[0]]), find(owner[t.minima[1]])
        if ra == rb:
            continue
        na, nb = top[ra], top[rb]
        kids = sorted([na, nb], key=lambda k: nodes[k]["low"])
        nodes.append({"kind": "merge", "energy": t.energy, "children": kids,
                      "low": min(nodes[na]["low"], nodes[nb]["low"])})
        parent.append(len(parent))
        parent[rb] = ra
        top[ra] = len(nodes) - 1
    roots = {top[find(k)] for k in range(len(mins))}
    for k, n in enumerate(nodes):
        n["root"] = k in roots
    return nodes
