"""Declared symmetries of a potential on ``(S^{d−1})^N``: equivalence, multiplicity, alignment (A9).

A :class:`Symmetry` is a subgroup of ``O(d) × S_N`` acting by ``z ↦ P z Rᵀ`` (rotate/reflect every
point by ``R``, relabel points by ``P``) under which ``V`` is invariant:

* ``Symmetry.none()`` — no symmetry (generic S¹/S² landscapes): configurations are compared
  coordinate by coordinate.
* ``Symmetry.infonce(pairs)`` — ``O(d)`` × the permutations that map the set of positive pairs to
  itself (the automorphisms of the pair graph; for disjoint pairs: swaps within pairs and
  permutations of pairs). Finite-τ InfoNCE depends on ``z`` only through the Gram matrix
  ``G = z zᵀ`` and the pair structure, so two configurations are equivalent iff
  ``G' = P G Pᵀ`` for an allowed ``P`` (Gram matrices of unit vectors determine the configuration up
  to ``O(d)``).
* ``Symmetry.all_points()`` — ``O(d)`` × all permutations (Thomson problem, identical particles).

Equivalence is decided exactly (not by a hash): Gram entries of both configurations are clustered
into labels with a tolerance, a labelled graph isomorphism is searched with networkx's VF2
(Cordella et al. 2004), and each candidate permutation is verified entry by entry
(``max |P G Pᵀ − G'| <= tol``). The multiplicity of a critical point is the number of distinct
configurations modulo ``O(d)`` in its orbit, ``|Π| / |Stab_Π(G)|``; both group orders are exact, from bliss's
generators of the labelled Gram graph's automorphism group (:mod:`.automorphisms`), at every N (the
orbit–stabiliser chain of VF2 isomorphism tests is the tests' reference, ``group_order(..., method=
"isomorphisms")``). Alignment (:func:`~.symmetry_alignment.align`, in :mod:`.symmetry_alignment`) picks the
representative of an orbit nearest to a reference configuration — a heuristic used only to start
paths; it never decides equivalence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
from networkx.algorithms.isomorphism import GraphMatcher

from contrastive_bounds.numerics.landscapes.network.constants import DEFAULT_GRAM_TOL
from contrastive_bounds.numerics.landscapes.network.refinement import label_isomorphisms
# alignment was defined here; `from .symmetry import align` keeps working
from contrastive_bounds.numerics.landscapes.network.symmetry_alignment import align  # noqa: F401

__all__ = ["Symmetry", "equivalent", "invariant", "wl_colors", "group_order", "multiplicity", "random_element",
           "apply_element", "label_matrices", "labelled_matcher"]

_MAX_ISOMORPHISMS = 2000  # candidate permutations verified entry by entry before giving up


@dataclass(frozen=True)
class Symmetry:
    """A declared symmetry group ``G ⊂ O(d) × S_N`` of a potential.

    Attributes:
      orthogonal: ``V(z Rᵀ) = V(z)`` for every ``R ∈ O(d)`` (one global rotation/reflection).
      permutations: ``"none"`` (identity only), ``"all"`` (every relabelling of the points) or
        ``"pairs"`` (the automorphisms of the graph whose edges are ``pairs``).
      pairs: the positive pairs (for ``"pairs"``), tuples ``(i, j)`` with ``i != j``.
    """

    orthogonal: bool = False
    permutations: str = "none"
    pairs: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if self.permutations not in ("none", "all", "pairs"):
            raise ValueError(f"symmetry permutations={self.permutations!r} must be 'none', 'all' or 'pairs'")
        if self.permutations == "pairs" and not self.orthogonal:
            raise ValueError("symmetry with permutations='pairs' needs orthogonal=True (InfoNCE is O(d)-invariant)")

    @classmethod
    def none(cls) -> Symmetry:
        """No symmetry (generic landscapes on S¹, S², tori)."""
        return cls(False, "none", ())

    @classmethod
    def infonce(cls, pairs: Any) -> Symmetry:
        """``O(d)`` × pair-preserving permutations (finite-τ InfoNCE over ``pairs``)."""
        return cls(True, "pairs", tuple((int(i), int(j)) for i, j in pairs))

    @classmethod
    def all_points(cls) -> Symmetry:
        """``O(d)`` × all permutations (Thomson problem)."""
        return cls(True, "all", ())

    @classmethod
    def rotations(cls) -> Symmetry:
        """``O(d)`` only (labelled points)."""
        return cls(True, "none", ())

    def describe(self) -> str:
        """One line for humans."""
        rot = "O(d)" if self.orthogonal else "no rotation"
        perm = {"none": "no permutation", "all": "all permutations of the points",
                "pairs": f"permutations preserving the pairs {list(self.pairs)}"}[self.permutations]
        return f"{rot} × {perm}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (lists instead of tuples)."""
        return {"orthogonal": self.orthogonal, "permutations": self.permutations, "pairs": [list(p) for p in self.pairs]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Symmetry:
        """Inverse of :meth:`to_dict` (ValueError for a malformed one)."""
        return cls(bool(d["orthogonal"]), str(d["permutations"]), tuple((int(i), int(j)) for i, j in d.get("pairs", ())))


# ----------------------------------------------------------------------------------- labels
def _gram(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    return z @ z.T


def _pair_flags(sym: Symmetry, n: int) -> np.ndarray:
    f = np.zeros((n, n), dtype=np.int64)
    for i, j in sym.pairs:
        f[i, j] = f[j, i] = 1
    return f


def _cluster_labels(values: np.ndarray, tol: float) -> np.ndarray:
    """Integer labels: sorted values split where consecutive gaps exceed ``tol``."""
    order = np.argsort(values, kind="stable")
    gaps = np.diff(values[order]) > tol
    lab = np.concatenate([[0], np.cumsum(gaps)])
    out = np.empty_like(lab)
    out[order] = lab
    return out


def label_matrices(mats: list[np.ndarray], sym: Symmetry, tol: float) -> list[np.ndarray]:
    """Integer edge labels ``2·(Gram cluster) + (pair flag)`` of ``(N, N)`` float matrices, clustered together with
    gaps ``> tol``: equal labels across the list for entries equal within the clustering."""
    n = mats[0].shape[0]
    flat = np.concatenate([m.reshape(-1) for m in mats])
    lab = _cluster_labels(flat, tol).reshape(len(mats), n, n)
    flags = _pair_flags(sym, n)
    return [2 * lab[k] + flags for k in range(len(mats))]


def _graph(labels: np.ndarray, colors: np.ndarray | None = None) -> nx.Graph:
    n = labels.shape[0]
    g = nx.Graph()
    for i in range(n):
        g.add_node(i, c=int(colors[i]) if colors is not None else 0, s=int(labels[i, i]))
    for i in range(n):
        for j in range(i + 1, n):
            g.add_edge(i, j, l=int(labels[i, j]))
    return g


def labelled_matcher(l1: np.ndarray, l2: np.ndarray, c1: np.ndarray | None = None,
                     c2: np.ndarray | None = None) -> GraphMatcher:
    """networkx VF2 matcher between two complete graphs with integer edge labels ``(N, N)`` and node colours ``(N,)``."""
    return GraphMatcher(_graph(l1, c1), _graph(l2, c2),
                        node_match=lambda a, b: a["c"] == b["c"] and a["s"] == b["s"],
                        edge_match=lambda a, b: a["l"] == b["l"])


def wl_colors(labels: np.ndarray, rounds: int = 3) -> np.ndarray:
    """Colour refinement (1-dimensional Weisfeiler–Leman) of a complete graph with integer edge labels.

    Start from the diagonal labels; each round a node's colour becomes a hash of its colour and the
    sorted multiset of (edge label, neighbour colour). Equivalent configurations get equal sorted
    colour lists (an invariant, so a mismatch proves non-equivalence), and the colours prune the
    isomorphism search (nodes may only map to nodes of the same colour). Hashes of integer tuples are
    the same in every process, so colours of different configurations are comparable.
    """
    lab = np.asarray(labels, dtype=np.int64)
    n = lab.shape[0]
    col = [hash(int(lab[i, i])) for i in range(n)]
    for _ in range(rounds):
        col = [hash((col[i], tuple(sorted((int(lab[i, j]), col[j]) for j in range(n) if j != i)))) for i in range(n)]
    return np.array(col, dtype=np.int64)


def invariant(z: Any, sym: Symmetry) -> np.ndarray:
    """A vector equal (within rounding) for equivalent configurations: a fast pre-filter only.

    With ``O(d)``: sorted Gram entries (all, or per pair/non-pair class); without: the coordinates
    (rows sorted when all permutations are allowed).
    """
    z = np.asarray(z, dtype=np.float64)
    if not sym.orthogonal:
        return np.sort(z, axis=0).reshape(-1) if sym.permutations == "all" else z.reshape(-1)
    g = _gram(z)
    iu = np.triu_indices(z.shape[0], 1)
    if sym.permutations == "none":
        return g[iu]
    if sym.permutations == "all":
        return np.sort(g[iu])
    flags = _pair_flags(sym, z.shape[0])[iu].astype(bool)
    return np.concatenate([np.sort(g[iu][flags]), np.sort(g[iu][~flags])])


def equivalent(z1: Any, z2: Any, sym: Symmetry, *, tol: float = DEFAULT_GRAM_TOL) -> bool:
    """Whether ``z2 = P z1 Rᵀ`` for an element ``(R, P)`` of ``sym`` (within ``tol``).

    Args:
      z1, z2: float arrays ``(N, d)`` with unit rows. tol: allowed deviation of Gram entries
        (or of coordinates when ``sym`` has no ``O(d)`` part).

    Returns:
      True iff a permutation of the group maps one Gram matrix onto the other entry by entry within
      ``tol`` (verified, not hashed); without ``O(d)``, iff coordinates match within ``tol`` after the
      best allowed relabelling.
    """
    a = np.asarray(z1, dtype=np.float64)
    b = np.asarray(z2, dtype=np.float64)
    if a.shape != b.shape:
        return False
    ia, ib = invariant(a, sym), invariant(b, sym)
    if np.max(np.abs(ia - ib), initial=0.0) > 4 * tol:
        return False
    if not sym.orthogonal:
        if sym.permutations == "none":
            return bool(np.max(np.abs(a - b)) <= tol)
        from scipy.optimize import linear_sum_assignment

        cost = np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
        r, c = linear_sum_assignment(cost)
        return bool(np.max(np.abs(a[r] - b[c])) <= tol)
    ga, gb = _gram(a), _gram(b)
    if sym.permutations == "none":
        return bool(np.max(np.abs(ga - gb)) <= tol)
    la, lb = label_matrices([ga, gb], sym, tol)
    # the label isomorphisms by individualisation-refinement (.refinement; networkx's VF2, labelled_matcher, is
    # the tests' reference), each verified on the Gram entries
    for count, perm in enumerate(label_isomorphisms(la, lb)):
        if np.max(np.abs(ga - gb[np.ix_(perm, perm)])) <= tol:
            return True
        if count >= _MAX_ISOMORPHISMS:
            break
    return False


def group_order(labels: np.ndarray, colors: np.ndarray | None = None, *, method: str = "bliss") -> int:
    """Order of the automorphism group of a complete graph with integer edge labels (exact).

    Args:
      labels: ``(N, N)`` symmetric integer edge labels (diagonal: node labels). colors: ``(N,)`` integer node
        colours, optional. method: ``"bliss"`` (default; :func:`~.automorphisms.automorphism_order`: bliss's
        generators, checked, and their Schreier–Sims order — milliseconds to ~0.2 s at N = 64) or
        ``"isomorphisms"`` (the orbit–stabiliser chain ``|Aut| = Π_k |orbit of x_k in Stab(x_1..x_{k−1})|``,
        each orbit by networkx VF2 isomorphism tests with ``x_k`` and a candidate individualised: the independent
        reference, minutes at N = 64).
    Returns:
      ``|Aut|``, an exact Python int (e.g. ``P!·2^P`` for ``P`` disjoint pairs).
    Raises:
      ValueError: ``method`` not one of those two; ``labels`` not a square symmetric integer array, or ``colors``
        not ``(N,)`` integers (:func:`~.automorphisms.check_labels`).
    """
    from contrastive_bounds.numerics.landscapes.network.automorphisms import automorphism_order, check_labels

    if method not in ("bliss", "isomorphisms"):
        raise ValueError(f"method={method!r} must be 'bliss' or 'isomorphisms'")
    labels, col = check_labels(labels, colors)
    if method == "bliss":
        return automorphism_order(labels, col)
    n = labels.shape[0]
    col = col.copy()
    order = 1
    next_color = int(col.max()) + 1
    for x in range(n):
        same = [v for v in range(n) if col[v] == col[x]]
        if len(same) == 1:
            continue
        orbit = 1
        cx = col.copy()
        cx[x] = next_color
        for v in same:
            if v == x:
                continue
            cv = col.copy()
            cv[v] = next_color
            if labelled_matcher(labels, labels, cx, cv).is_isomorphic():
                orbit += 1
        order *= orbit
        col = cx
        next_color += 1
    return order


def _permutation_group_order(sym: Symmetry, n: int) -> int:
    if sym.permutations == "none":
        return 1
    if sym.permutations == "all":
        return math.factorial(n)
    return group_order(_pair_flags(sym, n))


def multiplicity(z: Any, sym: Symmetry, *, tol: float = DEFAULT_GRAM_TOL) -> int:
    """Number of distinct configurations modulo ``O(d)`` in the orbit of ``z`` under ``sym``.

    Args:
      z: ``(N, d)`` float64, unit rows, finite. sym: the landscape's :class:`Symmetry`. tol: > 0, the Gram (or, without
        ``O(d)``, coordinate) tolerance within which entries count as equal.
    Returns:
      ``|Π| / |Stab_Π(z)|``, an exact Python int ≥ 1, with ``Π`` the permutation part of ``sym`` and ``Stab_Π(z)`` the
      allowed permutations that fix the Gram matrix (with ``O(d)``) or the coordinates (without) within ``tol``.
    Raises:
      ValueError: ``z`` not a 2-D array of finite numbers with at least one point, or ``tol`` not > 0 (named).

    1 for ``Symmetry.none()``. E.g. the Thomson icosahedron (N = 12): ``12!/120`` (``I_h`` has order 120); InfoNCE's
    collapsed pairs on the cross-polytope of ``S^15`` (N = 64): ``31!! = 191898783962510625``. Both orders are exact
    at every N (:func:`group_order` by bliss: ~0.2 s at N = 64, d = 32).
    """
    a = np.asarray(z, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] < 1:
        raise ValueError(f"z must be an (N, d) array of points, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("z has non-finite entries (NaN or inf); a multiplicity needs a configuration")
    if not tol > 0:
        raise ValueError(f"tol={tol!r} must be > 0")
    n = a.shape[0]
    if sym.permutations == "none":
        return 1
    if not sym.orthogonal:  # all permutations, coordinates: stabiliser = permutations of coincident rows
        groups: dict[int, int] = {}
        reps: list[np.ndarray] = []
        for row in a:
            for k, r in enumerate(reps):
                if np.max(np.abs(r - row)) <= tol:
                    groups[k] += 1
                    break
            else:
                reps.append(row)
                groups[len(reps) - 1] = 1
        stab = math.prod(math.factorial(c) for c in groups.values())
        return math.factorial(n) // stab
    (lab,) = label_matrices([_gram(a)], sym, tol)
    return _permutation_group_order(sym, n) // group_order(lab)


def random_element(sym: Symmetry, num_points: int, dim: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random element ``(R, perm)`` of the group (``R`` identity without ``O(d)``).

    For ``"pairs"`` the permutation is drawn among the pair graph's automorphisms (networkx VF2,
    the first few hundred, then uniformly among those).
    """
    r = np.linalg.qr(rng.normal(size=(dim, dim)))[0] if sym.orthogonal else np.eye(dim)
    if sym.permutations == "none":
        perm = np.arange(num_points)
    elif sym.permutations == "all":
        perm = rng.permutation(num_points)
    else:
        flags = _pair_flags(sym, num_points)
        autos = []
        for k, m in enumerate(labelled_matcher(flags, flags).isomorphisms_iter()):
            autos.append(np.array([m[i] for i in range(num_points)]))
            if k >= 400:
                break
        perm = autos[int(rng.integers(len(autos)))]
    return r, perm


def apply_element(z: Any, rotation: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """``(P z) Rᵀ``: row ``i`` of the result is ``R z_{perm[i]}``."""
    return np.asarray(z, dtype=np.float64)[perm] @ np.asarray(rotation).T
