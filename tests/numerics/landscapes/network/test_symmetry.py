"""Symmetry: rotated/reflected/permuted copies are one critical point; multiplicities; group orders (A9)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import Symmetry, infonce_spec, thomson_spec
from contrastive_bounds.numerics.landscapes.network.catalog import record_minimum
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.symmetry import (
    align,
    apply_element,
    equivalent,
    group_order,
    multiplicity,
    random_element,
)
from contrastive_bounds.numerics.landscapes.network.verify import classify


def _unit(x):
    x = np.asarray(x, dtype=np.float64)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


TETRAHEDRON = _unit([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]])
OCTAHEDRON = np.concatenate([np.eye(3), -np.eye(3)])
_PHI = (1 + math.sqrt(5)) / 2
ICOSAHEDRON = _unit([[0, s1, s2 * _PHI] for s1 in (1, -1) for s2 in (1, -1)]
                    + [[s1, s2 * _PHI, 0] for s1 in (1, -1) for s2 in (1, -1)]
                    + [[s2 * _PHI, 0, s1] for s1 in (1, -1) for s2 in (1, -1)])
TRIANGULAR_BIPYRAMID = np.array([[0, 0, 1], [0, 0, -1], [1, 0, 0], [-0.5, math.sqrt(3) / 2, 0],
                                 [-0.5, -math.sqrt(3) / 2, 0]], dtype=np.float64)


@pytest.mark.parametrize("shape, order", [(TETRAHEDRON, 24), (OCTAHEDRON, 48), (ICOSAHEDRON, 120),
                                          (TRIANGULAR_BIPYRAMID, 12)])
def test_thomson_multiplicity_is_n_factorial_over_the_point_group(shape, order):
    """Under O(3) × S_N the multiplicity of a polyhedron is N!/|point group| (T_d 24, O_h 48, I_h 120,
    D_3h 12): the exact group orders come from the orbit–stabiliser chain on labelled Gram graphs."""
    sym = Symmetry.all_points()
    assert multiplicity(shape, sym) == math.factorial(len(shape)) // order


def test_pair_graph_group_orders():
    """|automorphisms| of 4 disjoint pairs = 2^4·4! = 384; of the path 0-1-2 = 2; of no edges on 5 points = 5!."""
    flags = np.zeros((8, 8), dtype=int)
    for i in range(4):
        flags[2 * i, 2 * i + 1] = flags[2 * i + 1, 2 * i] = 1
    assert group_order(flags) == 384
    path = np.zeros((3, 3), dtype=int)
    path[0, 1] = path[1, 0] = path[1, 2] = path[2, 1] = 1
    assert group_order(path) == 2
    assert group_order(np.zeros((5, 5), dtype=int)) == 120


def test_rotated_reflected_permuted_copies_are_recognised():
    """A copy of a configuration under a random element of the declared group (rotation, reflection,
    allowed permutation) is equivalent; a small deformation, or a permutation that breaks the pairs, is not."""
    rng = np.random.default_rng(7)
    z = _unit(rng.normal(size=(8, 3)))
    sym = Symmetry.infonce([(0, 1), (2, 3), (4, 5), (6, 7)])
    for _ in range(5):
        rot, perm = random_element(sym, 8, 3, rng)
        copy = apply_element(z, rot, perm)
        assert equivalent(z, copy, sym)
        assert equivalent(z, copy @ np.diag([1.0, 1.0, -1.0]), sym)  # a reflection is in O(3)
    broken = z[[0, 2, 1, 3, 4, 5, 6, 7]]  # swaps points of two different pairs
    assert not equivalent(z, broken, sym)
    assert equivalent(z, broken, Symmetry.all_points())  # ... which is allowed when all permutations are
    deformed = _unit(z + 1e-4 * rng.normal(size=z.shape))
    assert not equivalent(z, deformed, sym)
    assert not equivalent(z, apply_element(z, random_element(sym, 8, 3, rng)[0], np.arange(8)), Symmetry.none())


@pytest.mark.slow
def test_catalog_keeps_one_minimum_for_symmetric_copies_of_an_infonce_minimum():
    """A refined InfoNCE minimum and a rotated + pair-permuted copy of it are one catalogue entry (the copy
    counts a hit), and the alignment heuristic brings the copy back onto the original."""
    spec = infonce_spec(4, 3, 0.5)
    z = np.array([[0, 0, 1], [0, 0, 1], [0, 0, -1], [0, 0, -1]], dtype=np.float64)  # pairs collapsed, antipodal
    cp = classify(spec, z, expect=0)
    assert cp.verified and cp.energy == pytest.approx(spec.energy(z))
    store = NetworkStore(spec.fingerprint(), SearchSettings())
    first, new = record_minimum(store, spec, cp, "random start")
    assert new and store.minima[0].multiplicity == 1
    rng = np.random.default_rng(1)
    rot = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    copy = apply_element(z, rot, np.array([3, 2, 1, 0]))
    second, new = record_minimum(store, spec, classify(spec, copy, expect=0), "hop")
    assert (second, new) == (first, False) and store.minima[0].hits == 2
    back = align(z, copy, spec.symmetry)
    assert np.max(np.abs(back - z)) < 1e-10


def test_thomson_minimum_classification_removes_exactly_the_rotation_modes():
    """At the tetrahedron the Hessian has 3 zero modes (so(3)); they are removed explicitly, none is left,
    the 5 remaining eigenvalues are positive, and the orbit modes are annihilated by the Hessian."""
    spec = thomson_spec(4)
    cp = classify(spec, TETRAHEDRON, expect=0)
    assert cp.energy == pytest.approx(3.674234614174767, rel=1e-14)
    assert cp.orbit_dim == cp.orbit_dim_formula == 3
    assert cp.zero_modes == 0 and cp.index == 0 and cp.verified
    assert len(cp.eigenvalues) == 4 * 2 - 3 and cp.eigenvalues[0] > 0.1
    assert cp.orbit_residual < 1e-12
