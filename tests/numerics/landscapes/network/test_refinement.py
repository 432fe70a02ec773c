"""Individualisation–refinement isomorphisms (network.refinement), the engine of ``symmetry.equivalent``: the same
isomorphisms as networkx's VF2 (the reference), the closed-form automorphism count of the cross-polytope, and
``equivalent`` deciding the same pairs as the VF2 path did."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network.refinement import label_isomorphisms, refine_colours
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, _gram, equivalent, label_matrices, \
    labelled_matcher


def _vf2(la: np.ndarray, lb: np.ndarray) -> set[tuple[int, ...]]:
    """Every label isomorphism by networkx's VF2 (node labels on the diagonal), as tuples ``p[i]``."""
    out = set()
    for mapping in labelled_matcher(la, lb).isomorphisms_iter():
        out.add(tuple(mapping[i] for i in range(la.shape[0])))
    return out


def _random_labels(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    lab = rng.integers(0, k, size=(n, n))
    lab = np.triu(lab, 1)
    return lab + lab.T + np.diag(rng.integers(0, 2, size=n))


@pytest.mark.parametrize("seed", range(12))
def test_the_isomorphisms_are_vf2s_on_random_and_symmetric_labelled_graphs(seed):
    """Random labelled complete graphs (few labels, so many automorphisms) against a random relabelling of
    themselves, and against a copy with one edge label changed: the set of isomorphisms equals VF2's in both cases
    (nonempty, then empty)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    la = _random_labels(rng, n, int(rng.integers(1, 3)))
    p = rng.permutation(n)
    lb = la[np.ix_(p, p)]
    ours = {tuple(int(x) for x in q) for q in label_isomorphisms(la, lb)}
    assert ours == _vf2(la, lb) and ours
    for q in ours:
        assert np.array_equal(lb[np.ix_(q, q)], la)
    lc = lb.copy()
    lc[0, 1] = lc[1, 0] = lb.max() + 1
    assert list(label_isomorphisms(la, lc)) == [] and _vf2(la, lc) == set()


@pytest.mark.parametrize("pairs", [2, 3, 4])
def test_the_cross_polytope_has_the_closed_form_number_of_pair_preserving_automorphisms(pairs):
    """The cross-polytope configuration (pair k at ±e_k), pair-preserving relabellings: the automorphisms of its
    labelled Gram graph are the hyperoctahedral group's 2^k·k! (swap within any pair, permute the pairs)."""
    n = 2 * pairs
    z = np.zeros((n, pairs))
    for k in range(pairs):
        z[2 * k, k], z[2 * k + 1, k] = 1.0, -1.0
    sym = Symmetry.infonce([(2 * k, 2 * k + 1) for k in range(pairs)])
    la, lb = label_matrices([_gram(z), _gram(z)], sym, 1e-9)
    assert sum(1 for _ in label_isomorphisms(la, lb)) == 2 ** pairs * math.factorial(pairs)


def test_refinement_is_joint_and_stable():
    """Colours are numbered jointly (isomorphic graphs get equal colour histograms) and refining the result again
    changes nothing (the colouring is stable)."""
    rng = np.random.default_rng(5)
    la = _random_labels(rng, 9, 3)
    p = rng.permutation(9)
    lab = np.stack([la, la[np.ix_(p, p)]])
    col = refine_colours(lab, np.zeros((2, 9), dtype=np.int64))
    assert np.array_equal(np.sort(col[0]), np.sort(col[1])) and np.array_equal(col[1][np.argsort(p)], col[0])
    again = refine_colours(lab, col)
    assert len(set(again.reshape(-1).tolist())) == len(set(col.reshape(-1).tolist()))


def test_equivalent_decides_images_and_near_misses_of_infonce_configurations():
    """Random N = 10 configurations on S^3 with InfoNCE's pair symmetry: an image under a random pair-preserving
    relabelling and rotation is equivalent; the same image with one point moved by 1e-4 (beyond tol = 1e-6) is not;
    a relabelling that breaks a pair is not (unless it happens to be an automorphism, which a generic configuration
    has not)."""
    rng = np.random.default_rng(11)
    n, d = 10, 4
    sym = Symmetry.infonce([(2 * k, 2 * k + 1) for k in range(n // 2)])
    for _ in range(5):
        z = rng.normal(size=(n, d))
        z /= np.linalg.norm(z, axis=1, keepdims=True)
        q, _ = np.linalg.qr(rng.normal(size=(d, d)))
        order = rng.permutation(n // 2)
        perm = np.concatenate([[2 * k, 2 * k + 1][:: 1 if rng.random() < 0.5 else -1] for k in order])
        img = z[perm] @ q.T
        assert equivalent(z, img, sym, tol=1e-6)
        moved = img.copy()
        moved[3] += 1e-4 * rng.normal(size=d)
        moved[3] /= np.linalg.norm(moved[3])
        assert not equivalent(z, moved, sym, tol=1e-6)
        broken = z[[1, 2, 0, *range(3, n)]] @ q.T  # 0 -> 1 -> 2 -> 0: splits the pair (0, 1)
        assert not equivalent(z, broken, sym, tol=1e-6)


def test_bad_shapes_are_refused_naming_the_arguments():
    """Label matrices of different or non-square shapes: ValueError naming la and lb."""
    with pytest.raises(ValueError, match="la and lb"):
        list(label_isomorphisms(np.zeros((3, 3), dtype=np.int64), np.zeros((4, 4), dtype=np.int64)))
