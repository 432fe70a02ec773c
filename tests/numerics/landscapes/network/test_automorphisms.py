"""Automorphism groups of labelled complete graphs by bliss (network.automorphisms; A9): closed-form orders, the VF2
orbit–stabiliser chain as an independent reference, generators that preserve the labels, refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network.automorphisms import automorphism_generators, automorphism_order
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, _gram, group_order, label_matrices


def _pairs(p: int) -> np.ndarray:
    """Labels of P disjoint positive pairs (edge label 1 inside a pair, 0 elsewhere)."""
    lab = np.zeros((2 * p, 2 * p), dtype=np.int64)
    for k in range(p):
        lab[2 * k, 2 * k + 1] = lab[2 * k + 1, 2 * k] = 1
    return lab


@pytest.mark.parametrize("p", [1, 2, 3, 7, 32])
def test_the_pair_graph_has_the_hyperoctahedral_order(p):
    """P disjoint pairs: swaps within pairs and permutations of pairs, P!·2^P (10^45 at P = 32, exact)."""
    assert automorphism_order(_pairs(p)) == math.factorial(p) * 2 ** p


def test_closed_forms_of_uniform_cyclic_and_trivial_graphs():
    """All labels equal: the symmetric group N!; a cycle's labels on K_n (edge i–i±1 labelled 1): the dihedral group
    2n; one point: 1; a node colour that singles out one point of K_6: 5!."""
    assert automorphism_order(np.zeros((9, 9), dtype=np.int64)) == math.factorial(9)
    n = 11
    cyc = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        cyc[i, (i + 1) % n] = cyc[(i + 1) % n, i] = 1
    assert automorphism_order(cyc) == 2 * n
    assert automorphism_order(np.zeros((1, 1), dtype=np.int64)) == 1
    assert automorphism_order(np.zeros((6, 6), dtype=np.int64), np.array([1, 0, 0, 0, 0, 0])) == math.factorial(5)


def test_the_icosahedron_has_its_full_symmetry_group():
    """The 12 vertices of the icosahedron, Gram entries clustered: I_h of order 120 (every permutation allowed)."""
    phi = (1 + 5 ** 0.5) / 2
    v = np.array([(0, s1, s2 * phi) for s1 in (-1, 1) for s2 in (-1, 1)], dtype=float)
    z = np.concatenate([v, v[:, [1, 2, 0]], v[:, [2, 0, 1]]])
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    (lab,) = label_matrices([_gram(z)], Symmetry.all_points(), 1e-8)
    assert automorphism_order(lab) == 120


@pytest.mark.parametrize("seed", range(8))
def test_equals_the_vf2_orbit_stabiliser_chain_on_symmetric_random_configurations(seed):
    """Configurations of 8–12 points built with repeated sites, collapsed and split pairs (stabilisers from 1 to
    hundreds), Gram entries labelled with the pair flags: bliss's order equals networkx VF2's orbit–stabiliser chain,
    and every generator maps the labels onto themselves."""
    rng = np.random.default_rng(seed)
    p = int(rng.integers(4, 7))
    sites = rng.normal(size=(int(rng.integers(2, p + 1)), 3))
    sites /= np.linalg.norm(sites, axis=1, keepdims=True)
    z = np.concatenate([sites, -sites])[rng.integers(0, 2 * len(sites), size=2 * p)]
    sym = Symmetry.infonce([(2 * k, 2 * k + 1) for k in range(p)])
    (lab,) = label_matrices([_gram(z)], sym, 1e-8)
    gens = automorphism_generators(lab)
    for g in gens:
        assert sorted(g.tolist()) == list(range(2 * p)) and np.array_equal(lab[np.ix_(g, g)], lab)
    assert automorphism_order(lab) == group_order(lab, method="isomorphisms") == group_order(lab)


def test_bad_input_is_refused_with_the_argument_named():
    """Non-square, non-integer, asymmetric labels and colours of the wrong shape raise ValueError naming them;
    group_order names its method."""
    with pytest.raises(ValueError, match="labels must be a square"):
        automorphism_order(np.zeros((2, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="labels must be integers"):
        automorphism_order(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        automorphism_order(np.triu(np.ones((3, 3), dtype=np.int64)))
    with pytest.raises(ValueError, match=r"colors must be an integer array of shape \(3,\)"):
        automorphism_order(np.zeros((3, 3), dtype=np.int64), np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="shape \\(5,\\) and dtype float64"):
        automorphism_order(np.zeros((5, 5), dtype=np.int64), np.zeros(5))
    with pytest.raises(ValueError, match="method='vf3' must be 'bliss' or 'isomorphisms'"):
        group_order(np.zeros((3, 3), dtype=np.int64), method="vf3")
    for method in ("bliss", "isomorphisms"):  # the reference path refuses alike (it returned orders for such input)
        with pytest.raises(ValueError, match="labels must be a square"):
            group_order(np.zeros((3, 4), dtype=np.int64), method=method)
        with pytest.raises(ValueError, match="labels must be a square"):
            group_order(np.zeros((0, 0), dtype=np.int64), method=method)
        with pytest.raises(ValueError, match="labels must be integers"):
            group_order(np.full((3, 3), 0.5), method=method)
        with pytest.raises(ValueError, match="symmetric"):
            group_order(np.triu(np.ones((3, 3), dtype=np.int64)), method=method)
        with pytest.raises(ValueError, match="colors must be"):
            group_order(np.zeros((3, 3), dtype=np.int64), np.zeros(4, dtype=np.int64), method=method)


def test_multiplicity_refuses_what_is_not_a_configuration():
    """A 1-D z, NaN coordinates and a tolerance <= 0 are refused naming z or tol (NaN returned 1, a 1-D z raised an
    IndexError, tol = -1 blamed the labels' symmetry)."""
    from contrastive_bounds.numerics.landscapes.network.symmetry import multiplicity

    sym = Symmetry.infonce([(0, 1), (2, 3)])
    z = np.eye(4)
    assert multiplicity(z, sym) == 1  # 4 orthogonal points: every pair-preserving permutation fixes G
    with pytest.raises(ValueError, match=r"z must be an \(N, d\) array"):
        multiplicity(np.ones(4), sym)
    with pytest.raises(ValueError, match="non-finite"):
        multiplicity(np.full((4, 4), np.nan), sym)
    with pytest.raises(ValueError, match="tol=-1 must be > 0"):
        multiplicity(z, sym, tol=-1)
