"""Isomorphisms of two complete graphs with integer edge labels by individualisation–refinement, in numpy (A9).

The equality test of critical points up to symmetry (:func:`~.symmetry.equivalent`) asks whether a permutation
maps one labelled Gram matrix onto the other. :func:`label_isomorphisms` enumerates the candidate permutations
the way practical graph-isomorphism codes do (McKay & Piperno, J. Symb. Comput. 60, 94 (2014), Sec. 2–3): colour
refinement (1-dimensional Weisfeiler–Leman) run on both graphs *jointly*, so a colour means the same in both;
when a colour class has more than one node, the first node of that class in the first graph is individualised
(given a colour of its own) against each node of the class in the second graph in turn, and refinement runs
again. Refinement is isomorphism-invariant, so every isomorphism maps each class onto the class of the same
colour and is reached by one branch: the enumeration is complete. A branch ends when the two graphs' colour
histograms differ (no isomorphism there) or every class is a single node (one candidate permutation, yielded
when it maps every label onto the equal label).

It replaces networkx's VF2 matcher (:func:`~.symmetry.labelled_matcher`, kept as the reference of the tests) in
:func:`~.symmetry.equivalent`: on the saddles of the N = 64, d = 32 cross-polytope trap (2–15 colour classes among
64 points) one test took ~30 ms with VF2 in pure Python, most of a plain per-trap following's time, where each
refinement here is a few sorted ``(2, N, N)`` integer arrays.
"""

from __future__ import annotations

import functools
from typing import Iterator

import numpy as np

__all__ = ["label_isomorphisms", "refine_colours", "MAX_BRANCHES"]

#: refinements at most per enumeration (a search that needs more stops without yielding further candidates: the
#: caller treats an unproven pair as different, as it does past its cap on candidate permutations)
MAX_BRANCHES = 20000


@functools.lru_cache(maxsize=8)
def _hash(length: int) -> np.ndarray:
    """The coefficients of :func:`refine_colours`' row hash for rows of ``length`` entries (odd int64, fixed)."""
    return np.random.default_rng([20261205, length]).integers(1, 2**62, size=length, dtype=np.int64) | 1


def refine_colours(labels: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Joint colour refinement of two labelled complete graphs to the stable colouring.

    Args:
      labels: ``(2, N, N)`` int64 edge labels (diagonal: node labels). colours: ``(2, N)`` int64 initial colours
        (equal integers mean equal colours in both graphs).

    Returns:
      ``(2, N)`` int64 colours, ``0 .. k − 1``, numbered jointly: a node's colour is determined by its previous
      colour and the sorted multiset of (edge label, neighbour colour) over the other nodes, iterated until the
      number of colours stops growing.
    """
    lab = np.asarray(labels, dtype=np.int64)
    col = np.asarray(colours, dtype=np.int64)
    n = lab.shape[1]
    off = ~np.eye(n, dtype=bool)
    _, col = np.unique(col.reshape(-1), return_inverse=True)
    col = col.reshape(2, n)
    count = int(col.max()) + 1
    while True:
        keys = lab * (count + 1) + col[:, None, :]  # (edge label, neighbour colour) as one integer
        keys = np.sort(keys[:, off].reshape(2, n, n - 1), axis=-1)
        rows = np.concatenate([col[..., None], lab[:, np.arange(n), np.arange(n)][..., None], keys], axis=-1)
        # one integer per row (a fixed random linear hash, wrapping in int64): a collision can only merge two
        # colours in both graphs alike, which keeps the colouring invariant (less pruning, never a wrong answer)
        hashed = rows.reshape(2 * n, -1) @ _hash(rows.shape[-1])
        _, new = np.unique(hashed, return_inverse=True)
        new = new.reshape(2, n)
        k = int(new.max()) + 1
        if k == count:
            return new
        col, count = new, k


def label_isomorphisms(la: np.ndarray, lb: np.ndarray, *, max_branches: int = MAX_BRANCHES) -> Iterator[np.ndarray]:
    """Every permutation ``p`` with ``lb[p][:, p] == la`` (node ``i`` of the first graph to node ``p[i]`` of the
    second), by individualisation–refinement (module docstring).

    Args:
      la, lb: ``(N, N)`` int64 symmetric edge labels of the two graphs (diagonal: node labels; equal integers are
        equal labels in both, e.g. :func:`~.symmetry.label_matrices` of both at once). max_branches: refinements
        at most, >= 1.

    Yields:
      ``(N,)`` int64 permutations, each an exact label isomorphism; none when the graphs are not isomorphic (or
      the branch budget ran out first).

    Raises:
      ValueError: the shapes differ or are not square (named).
    """
    a, b = np.asarray(la, dtype=np.int64), np.asarray(lb, dtype=np.int64)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"la and lb must be square and of one shape, got {a.shape} and {b.shape}")
    n = a.shape[0]
    if n == 0:
        yield np.zeros(0, dtype=np.int64)
        return
    lab = np.stack([a, b])
    budget = [int(max_branches)]

    def search(colours: np.ndarray) -> Iterator[np.ndarray]:
        if budget[0] <= 0:
            return
        budget[0] -= 1
        col = refine_colours(lab, colours)
        k = int(col.max()) + 1
        ha, hb = np.bincount(col[0], minlength=k), np.bincount(col[1], minlength=k)
        if not np.array_equal(ha, hb):
            return
        if k == n:  # discrete: one candidate
            where_b = np.empty(k, dtype=np.int64)
            where_b[col[1]] = np.arange(n)
            p = where_b[col[0]]
            if np.array_equal(b[np.ix_(p, p)], a):
                yield p
            return
        sizes = np.where(ha > 1, ha, n + 1)
        cell = int(np.argmin(sizes))  # the smallest class with more than one node
        u = int(np.flatnonzero(col[0] == cell)[0])
        for v in np.flatnonzero(col[1] == cell):
            nxt = col.copy()
            nxt[0, u] = nxt[1, int(v)] = k  # individualise u against v
            yield from search(nxt)

    yield from search(np.zeros((2, n), dtype=np.int64))
