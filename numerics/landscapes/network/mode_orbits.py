"""The orbits of a minimum's stabiliser on its points and ordered point pairs, proven by explicit automorphisms (A9).

A configuration ``z`` ``(N, d)`` of a landscape with a declared :class:`~.symmetry.Symmetry` that contains ``O(d)``
is fixed by every element ``(R, π)`` with ``R z_i = z_{π(i)}``: ``π`` an allowed permutation (all, or those
preserving the positive pairs) that preserves the Gram matrix ``G = z zᵀ`` (then such an orthogonal ``R`` exists,
Gram matrices of unit vectors determining the configuration up to ``O(d)``). :func:`stabilizer_orbits` computes
the orbits of that group ``Π_z`` on the points and on the ordered pairs ``(i, j)``, ``i ≠ j``, rigorously:

1. candidates — the Gram entries are labelled with the tolerance and the pair flags (:mod:`.symmetry`'s labelled
   complete graph), colour refinement (1-WL, :func:`~.symmetry.wl_colors`) splits the points; equal colours are
   necessary for one orbit, never sufficient;
2. proof — two points (or two pairs with the same first point) are put in one orbit only by an automorphism found
   with networkx's VF2 (Cordella et al., IEEE TPAMI 26 (2004)) with the points pinned (individualised and refined
   again) and verified entry by entry (``max |G − G[π][:, π]| <= tol``);
3. every automorphism found is applied to all points and all ordered pairs at once (union–find): the components
   are the orbits of the group the automorphisms generate, a subgroup of ``Π_z``, so an orbit is never merged
   wrongly; a candidate never proven stays split (more representatives, never fewer).

Points first (pin ``i → i'`` inside a colour class), then, for one root ``r`` of each point orbit, the orbits of
its stabiliser on the other points (pin ``r → r, j → j'``): every pair ``(i, j)`` is mapped to ``(r, ·)`` by an
automorphism found in the first step, so the pair orbits follow with about ``N`` searches per point orbit. JAX-free.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contrastive_bounds.numerics.landscapes.network.constants import DEFAULT_GRAM_TOL
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, label_matrices, labelled_matcher, \
    wl_colors

__all__ = ["StabilizerOrbits", "stabilizer_orbits", "MAX_AUTOMORPHISM_SEARCHES"]

#: VF2 searches at most per stabiliser (beyond it, unproven candidates stay split: a reduction with more directions)
MAX_AUTOMORPHISM_SEARCHES = 400
#: isomorphisms a pinned VF2 search may propose and have rejected by the entrywise Gram check before giving up
_MAX_CANDIDATES = 50


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = np.arange(n)

    def find(self, a: int) -> int:
        p = self.parent
        root = a
        while p[root] != root:
            root = p[root]
        while p[a] != root:
            p[a], a = root, p[a]
        return int(root)

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


@dataclass(frozen=True)
class StabilizerOrbits:
    """Orbits of the stabiliser ``Π_z`` of a configuration (from :func:`stabilizer_orbits`).

    Attributes:
      num_points: ``N``. automorphisms: the verified permutations found (each an ``(N,)`` int array, ``π[i]`` the
        image of point ``i``), the group's generators as far as this evidence goes.
      searches: VF2 searches run. unproven: candidate merges (equal colours) left split because no automorphism was
        found within the search budget (0: every candidate was decided).
      point_orbits: the orbits of the generated group on the points (sorted lists, by smallest element).
      pair_orbits: its orbits on the ordered pairs ``(i, j)``, ``i ≠ j`` (sorted lists of tuples).
    """

    num_points: int
    automorphisms: tuple[np.ndarray, ...]
    searches: int
    unproven: int
    point_orbits: tuple[tuple[int, ...], ...]
    pair_orbits: tuple[tuple[tuple[int, int], ...], ...]

    @property
    def trivial(self) -> bool:
        """No automorphism other than the identity was found."""
        return not self.automorphisms

    def describe(self) -> str:
        """The evidence in words: automorphisms found, searches, orbits, unproven candidates."""
        def count(k: int, one: str, many: str) -> str:
            return f"{k} {one if k == 1 else many}"

        text = (f"{count(len(self.automorphisms), 'automorphism', 'automorphisms')} of the labelled Gram graph found by "
                f"VF2 and verified ({count(self.searches, 'search', 'searches')}); "
                f"{count(len(self.point_orbits), 'point orbit', 'point orbits')}, "
                f"{count(len(self.pair_orbits), 'ordered-pair orbit', 'ordered-pair orbits')}")
        return text + (f"; {count(self.unproven, 'candidate merge', 'candidate merges')} unproven and kept split"
                       if self.unproven else "")

    def to_dict(self) -> dict:
        """JSON-ready evidence (counts, not the permutations)."""
        return {"automorphisms": len(self.automorphisms), "searches": self.searches, "unproven": self.unproven,
                "point_orbits": len(self.point_orbits), "pair_orbits": len(self.pair_orbits)}


def _pinned(lab: np.ndarray, src: tuple[int, ...], dst: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                                  np.ndarray]:
    """Label matrices with ``src`` (``dst``) individualised in order, and their refined colours."""
    top = int(lab.max()) + 1
    a, b = lab.copy(), lab.copy()
    for k, (s, t) in enumerate(zip(src, dst)):
        a[s, s] = top + k
        b[t, t] = top + k
    return a, b, wl_colors(a), wl_colors(b)


def _automorphism(lab: np.ndarray, gram: np.ndarray, src: tuple[int, ...], dst: tuple[int, ...],
                  tol: float) -> tuple[np.ndarray | None, bool]:
    """``(π, decided)``: a verified Gram- and label-preserving ``π`` with ``π[src] = dst``, or ``(None, True)`` when
    none exists (refined colours differ, or VF2 ran out of isomorphisms), ``(None, False)`` when undecided."""
    a, b, ca, cb = _pinned(lab, src, dst)
    if not np.array_equal(np.sort(ca), np.sort(cb)):
        return None, True
    n = lab.shape[0]
    for count, mapping in enumerate(labelled_matcher(a, b, ca, cb).isomorphisms_iter()):
        perm = np.array([mapping[i] for i in range(n)], dtype=np.int64)
        if np.max(np.abs(gram - gram[np.ix_(perm, perm)])) <= tol:
            return perm, True
        if count + 1 >= _MAX_CANDIDATES:
            return None, False
    return None, True


def stabilizer_orbits(z: np.ndarray, symmetry: Symmetry, *, tol: float = DEFAULT_GRAM_TOL,
                      max_searches: int = MAX_AUTOMORPHISM_SEARCHES) -> StabilizerOrbits:
    """The orbits of ``z``'s stabiliser on points and ordered point pairs (module docstring).

    Args:
      z: float array ``(N, d)``, unit rows (a minimum). symmetry: the landscape's declared symmetry; only one with
        ``O(d)`` and permutations (``"all"`` or ``"pairs"``) has a nontrivial stabiliser here (otherwise every
        orbit is a single point or pair). tol: Gram tolerance (labels and the entrywise check), > 0.
      max_searches: VF2 searches at most (>= 0); beyond it candidates stay split.

    Returns:
      :class:`StabilizerOrbits` (its ``automorphisms`` are each verified; its orbits are those of the group they
      generate: exact up to unproven candidates, which only split orbits).

    Raises:
      ValueError: ``z`` not a 2-D array with ``N >= 2`` points, ``tol`` not > 0 or ``max_searches`` < 0 (named).

    Source: VF2, Cordella, Foggia, Sansone & Vento, IEEE TPAMI 26 (2004) 1367; colour refinement (1-WL); orbits of a
    generated group by union–find over its generators' actions.
    """
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 2 or z.shape[0] < 2:
        raise ValueError(f"z must be an (N, d) array with N >= 2 points, got shape {z.shape}")
    if not tol > 0:
        raise ValueError(f"tol={tol!r} must be > 0")
    if int(max_searches) < 0:
        raise ValueError(f"max_searches={max_searches!r} must be >= 0")
    n = z.shape[0]
    points, pairs = _UnionFind(n), _UnionFind(n * n)
    autos: list[np.ndarray] = []
    searches = unproven = 0
    if symmetry.orthogonal and symmetry.permutations != "none":
        gram = z @ z.T
        (lab,) = label_matrices([gram], symmetry, tol)
        col = wl_colors(lab)
        ii, jj = np.nonzero(~np.eye(n, dtype=bool))

        def apply(perm: np.ndarray) -> None:
            autos.append(perm)
            for i in range(n):
                points.union(i, int(perm[i]))
            for a, b in zip(ii * n + jj, perm[ii] * n + perm[jj]):
                pairs.union(int(a), int(b))

        def merge(cands: list[int], find, pin) -> None:  # noqa: ANN001 - local helper
            nonlocal searches, unproven
            reps: list[int] = []
            for c in cands:
                if any(find(c) == find(r) for r in reps):
                    continue
                joined = False
                for r in reps:
                    if searches >= max_searches:
                        unproven += 1
                        break
                    searches += 1
                    perm, decided = _automorphism(lab, gram, *pin(r, c), tol)
                    if perm is not None:
                        apply(perm)
                        joined = True
                        break
                    unproven += 0 if decided else 1
                if not joined:
                    reps.append(c)

        for c in np.unique(col):
            members = [int(i) for i in np.nonzero(col == c)[0]]
            if len(members) > 1:
                merge(members, points.find, lambda r, c: ((r,), (c,)))
        roots = sorted({points.find(i) for i in range(n)})
        for r in roots:
            a, _, cr, _ = _pinned(lab, (r,), (r,))
            others = [j for j in range(n) if j != r]
            for c in np.unique(cr[others]):
                members = [j for j in others if cr[j] == c]
                if len(members) > 1:
                    merge(members, lambda j, r=r: pairs.find(r * n + j), lambda x, y, r=r: ((r, x), (r, y)))
    point_groups: dict[int, list[int]] = {}
    for i in range(n):
        point_groups.setdefault(points.find(i), []).append(i)
    pair_groups: dict[int, list[tuple[int, int]]] = {}
    for i in range(n):
        for j in range(n):
            if i != j:
                pair_groups.setdefault(pairs.find(i * n + j), []).append((i, j))
    return StabilizerOrbits(n, tuple(autos), searches, unproven,
                            tuple(sorted(tuple(g) for g in point_groups.values())),
                            tuple(sorted(tuple(g) for g in pair_groups.values())))
