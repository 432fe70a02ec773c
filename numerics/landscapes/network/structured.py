"""Structure-aware starts for InfoNCE landscapes: pair states placed on spherical codes (A7, A9).

Random starts estimate basin *volumes*; H* is a maximum over every non-global minimum, whatever its
volume. The minima of finite-τ InfoNCE over disjoint positive pairs are, to a first approximation,
*cluster configurations*: each pair is collapsed (both points at one site), split antipodally or split
at another angle (its two points at two sites), the negatives-only points sit in groups, and the sites
form a well-spread code. A template is such an assignment of points to the vertices of a code of
:func:`~.codes.code_library`:

* every vertex holds at least one *end* — a collapsed pair, one point of a split pair, or a group of
  negatives-only points — so the code's K is the number of distinct sites;
* a template's *excess* is (ends − K): excess 0 puts one end on every vertex; excess 1 lets one vertex
  hold two ends (e.g. two collapsed pairs on one site, a trap of N = 10, d = 3, τ = 0.05), and so on;
* K runs from ``max(2, pairs + [negatives-only points exist] − max_excess)`` (every pair collapsed, the
  negatives in one group, as many shared sites as the excess allows) to ``2·pairs + negatives-only
  points`` (every pair split, every negative alone).

Enumeration: the templates of each *cell* (a code, an excess level 0 … ``max_excess``, and either "every
split pair on an antipodal pair of vertices" — for codes that have antipodal pairs — or "any splits")
are generated in a canonical order (pairs are interchangeable, and so are negatives-only points, under the landscape's
symmetry). The budget is shared among the cells by water-filling: a cell with fewer templates than its
share is enumerated in full and its unused share goes to the others; a cell with more is *sampled*
(random placements of that cell, as many as its share). The result says which cells were enumerated and
which sampled (:class:`StructuredInfo`). Templates equal up to the landscape's symmetry (rotation,
reflection, pair-preserving relabelling; decided exactly by :func:`~.symmetry.equivalent`) are kept
once; each distinct template gives ``copies`` starts with small random tangent perturbations of growing
size (the template itself is often a symmetric saddle).

Pair graphs that are not a matching (a point in two pairs) have no such unit structure: their
templates are random assignments of points to code vertices (sampled, said so).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator

import numpy as np

from contrastive_bounds.numerics.landscapes.network.codes import code_library
from contrastive_bounds.numerics._sphere import project_tangent, retract
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, wl_colors

#: each further perturbed copy of a template is this many times farther from it
NOISE_GROWTH = 3.0

__all__ = ["NOISE_GROWTH", "StructuredInfo", "pair_units", "infonce_templates", "structured_starts", "placements", "supports_structured"]

Placement = tuple[tuple[tuple[int, int], ...], tuple[int, ...], tuple[tuple[int, int], ...]]


@dataclass
class StructuredInfo:
    """What the structured starts were (recorded in the search effort).

    Attributes:
      codes: number of spherical codes used; code_names: their names.
      levels: per cell, ``{"code", "excess", "splits", "templates", "mode"}`` (splits ``"antipodal"`` or
        ``"any"``) with mode ``"enumerated"`` (all of them), ``"sampled k of > n"`` (random placements; n:
        templates generated before its share ran out) or ``"first k of > n in canonical order"``
        (an antipodal cell larger than its share).
      templates: templates placed (before removing symmetric copies). distinct: after.
      starts: perturbed starts handed to the minimiser (distinct × copies). budget: the template budget.
      complete_levels: the excess levels enumerated in full on every code. note: a sentence for humans.
    """

    codes: int = 0
    code_names: list[str] = field(default_factory=list)
    levels: list[dict[str, Any]] = field(default_factory=list)
    templates: int = 0
    distinct: int = 0
    starts: int = 0
    budget: int = 0
    complete_levels: list[int] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "StructuredInfo":
        """Inverse of :meth:`to_dict`."""
        return cls(**d)


def supports_structured(symmetry: Symmetry) -> bool:
    """Whether structured starts apply: the landscape is InfoNCE-like (O(d) × pair-preserving permutations)."""
    return symmetry.orthogonal and symmetry.permutations == "pairs" and bool(symmetry.pairs)


def pair_units(pairs: tuple[tuple[int, int], ...], n: int) -> tuple[list[tuple[int, int]], list[int]] | None:
    """``(pairs, negatives-only points)`` when ``pairs`` are disjoint (a matching of the ``n`` points), else None."""
    return _matching(pairs, n)


def _matching(pairs: tuple[tuple[int, int], ...], n: int) -> tuple[list[tuple[int, int]], list[int]] | None:
    used: set[int] = set()
    for i, j in pairs:
        if i in used or j in used:
            return None
        used.update((i, j))
    return [tuple(p) for p in pairs], [k for k in range(n) if k not in used]


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Ordered ways to write ``total`` as ``parts`` positive integers."""
    if parts == 0:
        if total == 0:
            yield ()
        return
    for cut in itertools.combinations(range(1, total), parts - 1):
        b = (0, *cut, total)
        yield tuple(b[i + 1] - b[i] for i in range(parts))


def placements(k: int, pairs: int, singles: int, excess: int,
               edges: list[tuple[int, int]] | None = None) -> Iterator[Placement]:
    """Every placement of ``pairs`` interchangeable pairs and ``singles`` interchangeable negatives-only
    points on ``k`` sites with the given excess, in canonical order.

    Yields ``(split, collapsed, groups)``: split pairs as site pairs ``(a, b)``, ``a < b``, non-decreasing;
    collapsed pairs as sites, non-decreasing; groups of negatives-only points as ``(site, size)`` on
    distinct increasing sites. Every site holds at least one end; ends − k = ``excess``. ``edges``
    restricts the site pairs a split pair may take (default: all ``a < b``).
    """
    edges = [(a, b) for a in range(k) for b in range(a + 1, k)] if edges is None else sorted(edges)
    cap = 1 + excess
    for s in range(pairs, -1, -1):
        c = pairs - s
        g = k + excess - 2 * s - c
        if (singles == 0 and g != 0) or (singles > 0 and not 1 <= g <= min(singles, k)):
            continue
        occ = [0] * k

        def extra() -> int:
            return sum(max(0, o - 1) for o in occ)

        def split(start: int, left: int, chosen: list) -> Iterator[tuple]:
            if left == 0:
                yield tuple(chosen)
                return
            for e in range(start, len(edges)):
                a, b = edges[e]
                if occ[a] >= cap or occ[b] >= cap:
                    continue
                occ[a] += 1
                occ[b] += 1
                if extra() <= excess:
                    chosen.append((a, b))
                    yield from split(e, left - 1, chosen)
                    chosen.pop()
                occ[a] -= 1
                occ[b] -= 1

        def collapsed(start: int, left: int, chosen: list) -> Iterator[tuple]:
            if left == 0:
                yield tuple(chosen)
                return
            for v in range(start, k):
                if occ[v] >= cap:
                    continue
                occ[v] += 1
                if extra() <= excess:
                    chosen.append(v)
                    yield from collapsed(v, left - 1, chosen)
                    chosen.pop()
                occ[v] -= 1

        for sp in split(0, s, []):
            for co in collapsed(0, c, []):
                base = extra()
                empty = [v for v in range(k) if occ[v] == 0]
                for gs in itertools.combinations(range(k), g):
                    added = sum(1 for v in gs if occ[v] >= 1)
                    if base + added != excess or any(v not in gs for v in empty):
                        continue
                    for sizes in _compositions(singles, g):
                        yield sp, co, tuple(zip(gs, sizes))


def _random_placement(k: int, pairs: int, singles: int, excess: int, rng: np.random.Generator) -> Placement | None:
    """One random placement with the given excess (None when the draw breaks a rule; the caller redraws)."""
    feasible = [s for s in range(pairs + 1)
                if (singles == 0 and k + excess - 2 * s - (pairs - s) == 0)
                or (singles > 0 and 1 <= k + excess - 2 * s - (pairs - s) <= min(singles, k))]
    if not feasible:
        return None
    s = int(rng.choice(feasible))
    c, g = pairs - s, k + excess - 2 * s - (pairs - s)
    slots = list(range(k)) + [int(x) for x in rng.integers(k, size=excess)]
    rng.shuffle(slots)
    sp = [tuple(sorted((slots[2 * i], slots[2 * i + 1]))) for i in range(s)]
    co = slots[2 * s: 2 * s + c]
    gs = slots[2 * s + c:]
    if any(a == b for a, b in sp) or len(set(gs)) != len(gs):
        return None
    sizes = next(itertools.islice(_compositions(singles, g), int(rng.integers(math.comb(singles - 1, g - 1))), None)) \
        if g else ()
    order = np.argsort(gs)
    return tuple(sorted(sp)), tuple(sorted(co)), tuple((gs[i], sizes[r]) for r, i in enumerate(order))


def _configuration(sites: np.ndarray, pl: Placement, units: tuple[list, list], n: int) -> np.ndarray:
    prs, singles = units
    z = np.zeros((n, sites.shape[1]))
    split, collapsed, groups = pl
    for (i, j), (a, b) in zip(prs, split):
        z[i], z[j] = sites[a], sites[b]
    for (i, j), v in zip(prs[len(split):], collapsed):
        z[i] = z[j] = sites[v]
    it = iter(singles)
    for v, size in groups:
        for _ in range(size):
            z[next(it)] = sites[v]
    return z


class _Distinct:
    """Templates kept once up to the symmetry. Template Gram entries are exact code inner products, so each
    is labelled by its Gram entries rounded to 1e-6 (doubled, plus 1 on positive pairs); two templates are
    the same iff a label-preserving relabelling exists (networkx VF2 on cached graphs, nodes coloured by
    colour refinement, which also buckets the candidates)."""

    def __init__(self, symmetry: Symmetry) -> None:
        self.symmetry = symmetry
        self.buckets: dict[bytes, list[Any]] = {}
        self.items: list[np.ndarray] = []

    def add(self, z: np.ndarray) -> None:
        from networkx.algorithms.isomorphism import GraphMatcher

        n = z.shape[0]
        flags = np.zeros((n, n), dtype=np.int64)
        for i, j in self.symmetry.pairs:
            flags[i, j] = flags[j, i] = 1
        labels = 2 * np.round(1e6 * (z @ z.T)).astype(np.int64) + flags
        colors = wl_colors(labels)
        key = np.sort(colors).tobytes() + np.sort(labels, axis=None).tobytes()
        bucket = self.buckets.setdefault(key, [])
        graph = _graph(labels, colors)
        for other in bucket:
            if GraphMatcher(other, graph, node_match=lambda a, b: a["c"] == b["c"],
                            edge_match=lambda a, b: a["l"] == b["l"]).is_isomorphic():
                return
        bucket.append(graph)
        self.items.append(z)


def _graph(labels: np.ndarray, colors: np.ndarray) -> Any:
    import networkx as nx

    g = nx.Graph()
    n = labels.shape[0]
    g.add_nodes_from((i, {"c": int(colors[i])}) for i in range(n))
    g.add_edges_from((i, j, {"l": int(labels[i, j])}) for i in range(n) for j in range(i + 1, n))
    return g


def infonce_templates(num_points: int, dim: int, pairs: tuple[tuple[int, int], ...], symmetry: Symmetry, *,
                      budget: int, max_excess: int, seed: int) -> tuple[np.ndarray, StructuredInfo]:
    """Distinct cluster templates (unperturbed), ``(T, N, d)`` float64, and what they were.

    Args:
      num_points: N. dim: d. pairs: the positive pairs. symmetry: the landscape's symmetry.
      budget: templates placed at most (>= 1). max_excess: highest excess level (>= 0). seed: for sampling.
    """
    info = StructuredInfo(budget=int(budget))
    rng = np.random.default_rng([seed, 2])
    units = _matching(tuple(pairs), num_points)
    distinct = _Distinct(symmetry)
    if units is None:
        return _unstructured(num_points, dim, symmetry, budget, rng, info, distinct)
    m, u = len(units[0]), len(units[1])
    k_max = 2 * m + u
    k_min = max(2, m + (1 if u else 0) - max_excess)
    codes = [c for c in code_library(k_min, min(k_max, 64), dim) if c.size <= k_max]
    info.codes, info.code_names = len(codes), [c.name for c in codes]
    axes = {i: _antipodal_edges(c.points) for i, c in enumerate(codes)}
    cells = [(i, e, kind) for e in range(max_excess + 1) for i in range(len(codes))
             for kind in (("antipodal", "any") if axes[i] and m else ("any",))]
    gens = {c: placements(codes[c[0]].size, m, u, c[1], axes[c[0]] if c[2] == "antipodal" else None) for c in cells}
    got: dict[tuple, list[Placement]] = {c: [] for c in cells}
    done: set[tuple] = set()
    share = {c: 0 for c in cells}
    left = int(budget)
    while left > 0 and len(done) < len(cells):  # water-filling: small cells are enumerated in full
        open_cells = [c for c in cells if c not in done]
        fair = max(1, left // len(open_cells))
        for c in open_cells:
            more = list(itertools.islice(gens[c], fair))
            got[c] += more
            take = min(len(more), left)
            share[c] += take
            left -= take
            if len(more) < fair:
                done.add(c)
            if left <= 0:
                break
    for c in cells:  # one look ahead: is a cell that used its share exhausted after all?
        if c not in done and next(gens[c], None) is None:
            done.add(c)
    for c in cells:
        i, e, kind = c
        if c in done or kind == "antipodal":
            chosen = got[c][: share[c]]
        else:  # sampled: random placements of this cell instead of its first ones in canonical order
            want, found, tries = share[c], set(), 0
            while len(found) < want and tries < 50 * max(want, 1):
                tries += 1
                pl = _random_placement(codes[i].size, m, u, e, rng)
                if pl is not None:
                    found.add(pl)
            chosen = sorted(found)
        for pl in chosen:
            distinct.add(_configuration(codes[i].embedded(dim), pl, units, num_points))
        info.templates += len(chosen)
        if chosen or c in done:
            mode = ("enumerated" if c in done else f"first {len(chosen)} of > {len(got[c])} in canonical order"
                    if kind == "antipodal" else f"sampled {len(chosen)} of > {len(got[c])}")
            info.levels.append({"code": codes[i].name, "excess": e, "splits": kind, "templates": len(chosen),
                                "mode": mode})
    info.complete_levels = [e for e in range(max_excess + 1) if all(c in done for c in cells if c[1] == e)]
    info.distinct = len(distinct.items)
    sampled = [lv for lv in info.levels if lv["mode"] != "enumerated"]
    info.note = (f"{info.templates} templates on {info.codes} spherical codes (K = {k_min}..{k_max} sites, excess "
                 f"0..{max_excess}), {info.distinct} distinct up to symmetry; "
                 + ("every cell (code, excess, antipodal or any splits) enumerated in full" if not sampled else
                    f"{len(info.levels) - len(sampled)} cells (code, excess, antipodal or any splits) enumerated in "
                    f"full, {len(sampled)} sampled or cut (budget {budget} templates)"))
    z = np.stack(distinct.items) if distinct.items else np.zeros((0, num_points, dim))
    return z, info


def _antipodal_edges(points: np.ndarray) -> list[tuple[int, int]]:
    """Vertex pairs ``(a, b)``, ``a < b``, with ``x_a = −x_b`` (to 1e-9)."""
    g = points @ points.T
    k = len(points)
    return [(a, b) for a in range(k) for b in range(a + 1, k) if g[a, b] < -1 + 1e-9]


def _water_fill(counts: dict[int, int], total: int) -> dict[int, int]:
    """Split ``total`` among codes: a code with fewer templates than an equal share gets all of them."""
    share, left, keys = {}, total, sorted(counts, key=lambda i: counts[i])
    for r, i in enumerate(keys):
        fair = left // (len(keys) - r)
        share[i] = min(counts[i], fair)
        left -= share[i]
    return share


def _unstructured(n: int, d: int, symmetry: Symmetry, budget: int, rng: np.random.Generator, info: StructuredInfo,
                  distinct: _Distinct) -> tuple[np.ndarray, StructuredInfo]:
    codes = list(code_library(2, min(n, 64), d))
    info.codes, info.code_names = len(codes), [c.name for c in codes]
    for t in range(int(budget)):
        c = codes[t % len(codes)]
        assign = np.concatenate([rng.permutation(c.size), rng.integers(c.size, size=max(0, n - c.size))])[:n]
        distinct.add(c.embedded(d)[rng.permutation(assign)])
    info.templates, info.distinct = int(budget), len(distinct.items)
    info.levels.append({"excess": None, "templates": int(budget), "mode": f"sampled {budget} random assignments"})
    info.note = (f"the pairs are not disjoint: {budget} random assignments of points to the vertices of {info.codes} "
                 f"codes (sampled), {info.distinct} distinct up to symmetry")
    return np.stack(distinct.items), info


def structured_starts(spec: Any, *, budget: int, max_excess: int, copies: int, noise: float, seed: int
                      ) -> tuple[np.ndarray, StructuredInfo]:
    """Perturbed structured starts for an InfoNCE-like spec, ``(T·copies, N, d)`` float64, with their info.

    Each distinct template (:func:`infonce_templates`) is perturbed ``copies`` times by a random tangent
    vector of RMS size ``noise·3^c`` (radians) per point for copy ``c`` (default 0.005, 0.015, 0.045: the
    small ones stay in the small basins next to a template — a 0.05 perturbation misses the N = 6, d = 2,
    τ = 0.05 trap at V = 17.36 one time in four — the large one leaves the symmetric saddles a template
    can sit on), seeded by ``(seed, 3, copy)``. A spec without the InfoNCE symmetry gives no starts
    (info.note says so).
    """
    info = StructuredInfo(budget=int(budget))
    sym = spec.symmetry
    if budget <= 0 or copies <= 0:
        info.note = "structured starts switched off"
        return np.zeros((0, spec.num_points, spec.dim)), info
    if not supports_structured(sym):
        info.note = "no structured starts: the landscape has no positive-pair structure (not InfoNCE)"
        return np.zeros((0, spec.num_points, spec.dim)), info
    tmpl, info = infonce_templates(spec.num_points, spec.dim, sym.pairs, sym, budget=budget, max_excess=max_excess,
                                   seed=seed)
    out = []
    for c in range(copies):
        rng = np.random.default_rng([seed, 3, c])
        xi = rng.normal(size=tmpl.shape) * noise * NOISE_GROWTH ** c / math.sqrt(max(spec.dim - 1, 1))
        out.append(retract(tmpl, project_tangent(tmpl, xi)))
    starts = np.concatenate(out) if out else tmpl
    info.starts = int(starts.shape[0])
    return starts, info

