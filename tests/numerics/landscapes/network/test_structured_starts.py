"""Structured starts: spherical codes against published values, template counts against an independent
enumeration, the documented traps among the templates, and the enumerated/sampled statement."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import Symmetry, infonce_spec, thomson_spec
from contrastive_bounds.numerics.landscapes.network.codes import (
    code_library,
    cross_polytope,
    cube,
    icosahedron,
    polygon,
    riesz_code,
    simplex,
)
from contrastive_bounds.numerics.landscapes.network.structured import infonce_templates, placements, structured_starts
from contrastive_bounds.numerics.landscapes.network.symmetry import equivalent
from contrastive_bounds.numerics.landscapes._thomson import THOMSON_GLOBAL_MINIMA


def _pair_energy(x, s=1.0):
    d = np.linalg.norm(x[:, None] - x[None], axis=-1)
    iu = np.triu_indices(len(x), 1)
    return float(np.sum(d[iu] ** -s))


@pytest.mark.parametrize("k", range(2, 13))
def test_thomson_codes_reach_the_published_global_minima(k):
    """The Riesz s = 1 code of k points on S² has the energy of the published Thomson table (Wales & Ulker
    2006) to 1e-8 relative, recomputed here from its coordinates."""
    code = riesz_code(k, 3, 1.0)
    assert np.allclose(np.linalg.norm(code.points, axis=1), 1.0, atol=1e-12)
    assert _pair_energy(code.points) == pytest.approx(THOMSON_GLOBAL_MINIMA[k], rel=1e-8)


def test_regular_codes_have_their_closed_form_inner_products():
    """k-gon: cos(2π/k) between neighbours; simplex: −1/(k−1); cross-polytope: 0 and −1; cube: (d − 2j)/d;
    icosahedron: five neighbours at 1/√5 per vertex."""
    g = polygon(7).points @ polygon(7).points.T
    assert g[0, 1] == pytest.approx(math.cos(2 * math.pi / 7), abs=1e-14)
    s = simplex(5).points
    off = (s @ s.T)[~np.eye(5, dtype=bool)]
    assert s.shape == (5, 4) and np.allclose(off, -0.25, atol=1e-14)
    c = cross_polytope(3).points @ cross_polytope(3).points.T
    assert sorted(set(np.round(c[0], 12))) == [-1.0, 0.0, 1.0]
    q = cube(3).points @ cube(3).points.T
    assert sorted(set(np.round(q[0] * 3, 10))) == [-3.0, -1.0, 1.0, 3.0]
    ico = icosahedron().points @ icosahedron().points.T
    assert all(np.sum(np.isclose(row, 1 / math.sqrt(5), atol=1e-12)) == 5 for row in ico)


def test_code_library_lists_each_code_once():
    """K = 4 in d = 2 is one code (the square is the 2-d cross-polytope); K = 6 in d = 3 has the hexagon and the
    octahedron (the Thomson and Tammes minima for 6 points are the octahedron again)."""
    assert [c.name for c in code_library(4, 4, 2)] == ["regular 4-gon (d=2)"]
    six = code_library(6, 6, 3)
    assert [c.name for c in six] == ["regular 6-gon (d=2)", "cross-polytope, 6 vertices (d=3)"]


def _brute_force(k, pairs, singles, excess):
    """Placements counted independently: every assignment of each (labelled) pair to a site pair or a site
    and of each negatives-only point to a site, canonicalised by sorting (pairs and singles are
    interchangeable), kept when every site holds an end and ends − k = excess."""
    choices = [(a, b) for a in range(k) for b in range(a, k)]
    found = set()
    for pc in itertools.product(choices, repeat=pairs):
        for uc in itertools.product(range(k), repeat=singles):
            occ = [0] * k
            for a, b in pc:
                occ[a] += 1
                if b != a:
                    occ[b] += 1
            for v in set(uc):
                occ[v] += 1
            if min(occ) >= 1 and sum(occ) - k == excess:
                found.add((tuple(sorted(pc)), tuple(sorted(uc))))
    return len(found)


@pytest.mark.parametrize("k, pairs, singles", [(4, 2, 0), (6, 3, 0), (5, 3, 0), (4, 2, 1), (5, 2, 2), (3, 2, 2)])
def test_placement_counts_match_an_independent_enumeration(k, pairs, singles):
    """placements() yields exactly as many canonical placements as the brute-force count, at excess 0, 1, 2, and
    no placement twice."""
    for excess in range(3):
        ours = list(placements(k, pairs, singles, excess))
        assert len(ours) == len(set(ours)) == _brute_force(k, pairs, singles, excess)


def test_excess_zero_counts_have_the_closed_form():
    """Excess 0 with u = 0: Σ_s K!/(2^s s! c!) (s split, c = M − s collapsed, 2s + c = K); e.g. 945 perfect
    matchings of 10 sites and 15 ways to place 4 collapsed pairs and one split pair on 6 sites."""
    assert sum(1 for _ in placements(10, 5, 0, 0)) == 945
    assert sum(1 for _ in placements(6, 5, 0, 0)) == math.factorial(6) // (2 * math.factorial(4))


def test_the_documented_traps_are_templates():
    """N = 6, d = 3: three pairs split antipodally on three orthogonal axes (the trap random starts miss); N = 10,
    d = 3: four collapsed pairs with one split antipodally on the octahedron, and two collapsed pairs sharing
    one vertex of a tetrahedron (excess 1) — each equal, up to the symmetry, to one template."""
    e = np.eye(3)
    prs6 = ((0, 1), (2, 3), (4, 5))
    tmpl, info = infonce_templates(6, 3, prs6, Symmetry.infonce(prs6), budget=4000, max_excess=2, seed=0)
    split = np.array([e[0], -e[0], e[1], -e[1], e[2], -e[2]])
    assert any(equivalent(t, split, Symmetry.infonce(prs6)) for t in tmpl)
    assert info.levels and all(lv["mode"] == "enumerated" for lv in info.levels)
    assert "every cell (code, excess, antipodal or any splits) enumerated in full" in info.note
    prs10 = tuple((2 * k, 2 * k + 1) for k in range(5))
    sym = Symmetry.infonce(prs10)
    tmpl, info = infonce_templates(10, 3, prs10, sym, budget=4000, max_excess=2, seed=0)
    octa = np.array([e[0], e[0], e[1], e[1], -e[1], -e[1], e[2], e[2], -e[2], -e[2]])
    octa[:2] = [e[0], -e[0]]
    tet = simplex(4).points
    doubled = np.array([tet[0], tet[0], tet[1], tet[1], tet[2], tet[2], tet[1], tet[1], tet[3], tet[3]])
    assert any(equivalent(t, octa, sym) for t in tmpl)
    assert any(equivalent(t, doubled, sym) for t in tmpl)
    assert any(lv["mode"].startswith("sampled") for lv in info.levels) and "sampled" in info.note


def test_structured_starts_are_perturbed_templates_and_absent_without_pairs():
    """Each start is a template moved by about `noise` per point (unit rows kept); a Thomson landscape (no pairs)
    gets none, and the note says why."""
    spec = infonce_spec(4, 2, 0.1)
    starts, info = structured_starts(spec, budget=100, max_excess=2, copies=2, noise=0.05, seed=0)
    assert starts.shape == (2 * info.distinct, 4, 2) and np.allclose(np.linalg.norm(starts, axis=-1), 1.0)
    tmpl, _ = infonce_templates(4, 2, spec.symmetry.pairs, spec.symmetry, budget=100, max_excess=2, seed=0)
    moved = np.linalg.norm(starts[: len(tmpl)] - tmpl, axis=-1)
    assert 0.0 < np.median(moved) < 0.2
    none, why = structured_starts(thomson_spec(5), budget=100, max_excess=2, copies=1, noise=0.05, seed=0)
    assert none.shape[0] == 0 and "not InfoNCE" in why.note


def test_templates_are_kept_once_exactly_as_an_exhaustive_comparison_says():
    """N = 6, d = 3: the distinct templates are as many as an exhaustive pairwise equivalence test over every
    placed template finds, and no two kept templates are equivalent."""
    import contrastive_bounds.numerics.landscapes.network.structured as structured

    prs = ((0, 1), (2, 3), (4, 5))
    sym = Symmetry.infonce(prs)
    placed = []

    class Recording(structured._Distinct):
        def add(self, z):
            placed.append(z)
            super().add(z)

    original = structured._Distinct
    structured._Distinct = Recording
    try:
        kept, info = infonce_templates(6, 3, prs, sym, budget=4000, max_excess=2, seed=0)
    finally:
        structured._Distinct = original
    reps = []
    for t in placed:
        if not any(equivalent(r, t, sym, tol=1e-7) for r in reps):
            reps.append(t)
    assert len(placed) == info.templates and len(kept) == info.distinct == len(reps)
    assert not any(equivalent(a, b, sym, tol=1e-7) for i, a in enumerate(kept) for b in kept[i + 1:])
