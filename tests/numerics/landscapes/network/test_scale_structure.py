"""Structure at scale: the template families (counts by integer partitions, the closed-form simplex minimum as
level 0, the cross-polytope trap of the table's N = 2d rows), the closed-form check of a result, and how two
seeds' networks are compared."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree.simplex import infonce_simplex_energy
from contrastive_bounds.numerics.landscapes.network import infonce_spec
from contrastive_bounds.numerics.landscapes.network.agreement import seed_agreement
from contrastive_bounds.numerics.landscapes.network.families import closed_form_minimum, family_starts, partitions
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry


def test_partitions_are_the_integer_partitions():
    """p(4) = 5 in reverse lexicographic order; p(1..8) = 1, 2, 3, 5, 7, 11, 15, 22 (OEIS A000041)."""
    assert partitions(4) == [(4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)]
    assert [len(partitions(j)) for j in range(1, 9)] == [1, 2, 3, 5, 7, 11, 15, 22]


@pytest.mark.slow
def test_family_starts_count_and_level_zero_is_the_closed_form_minimum():
    """N = 8, d = 4, τ = 0.1 (P = 4 pairs): level 0 is the collapsed simplex, unperturbed, at the closed-form
    energy −P/((P−1)τ) + log(2(P−1)) = −11.5418... to 1e-12; levels 1–2 give 6 classes (merged 1, split 1;
    merged 2 and 1+1, split 2, mixed) plus the all-split cross-polytope, each twice perturbed: 1 + 7·2 starts;
    the first perturbed copy of the cross-polytope lies 0.005 rad RMS per point from the table's trap
    (V = 11.7917594692, docs/data/landscape-values.json)."""
    spec = infonce_spec(8, 4, 0.1)
    starts, info = family_starts(spec, budget=24, max_excess=2, copies=2, noise=0.005, seed=0)
    assert starts.shape == (15, 8, 4) and info.starts == 15 and info.templates == 8
    assert spec.energy(starts[0]) == pytest.approx(infonce_simplex_energy(8, 4, 0.1), abs=1e-12)
    assert infonce_simplex_energy(8, 4, 0.1) == pytest.approx(-4 / (3 * 0.1) + np.log(6), abs=1e-12)
    fams = [(r["family"], r["level"]) for r in info.levels]
    assert fams == [("base", 0), ("merged", 1), ("split", 1), ("merged", 2), ("merged", 2), ("split", 2), ("mixed", 2),
                    ("all split", 4)]
    assert np.allclose(np.linalg.norm(starts, axis=-1), 1.0)
    trap = starts[1 + 6]  # copy 0 of the seventh template
    assert abs(spec.energy(trap) - 11.791759469228055) < 0.1
    # a budget smaller than the classes samples them (seeded) and says so
    few, info2 = family_starts(spec, budget=3, max_excess=2, copies=1, noise=0.005, seed=0)
    assert few.shape[0] == 4 and "3 of 7 classes sampled" in info2.note


@pytest.mark.slow
def test_closed_form_minimum_only_where_the_proof_applies():
    """Known for InfoNCE over a perfect matching with N/2 <= d + 1 (τ' = τ/R² on the radius-R sphere); None for
    N/2 > d + 1, odd N (a negatives-only point) and other landscapes."""
    fp = infonce_spec(8, 4, 0.1).to_dict()
    cf = closed_form_minimum(fp)
    assert cf["energy"] == pytest.approx(infonce_simplex_energy(8, 4, 0.1), abs=1e-15) and cf["pairs"] == 4
    assert closed_form_minimum(infonce_spec(10, 3, 0.1).to_dict()) is None
    assert closed_form_minimum(infonce_spec(7, 4, 0.1).to_dict()) is None
    assert closed_form_minimum({"name": "thomson", "num_points": 4, "dim": 3}) is None
    big = closed_form_minimum(infonce_spec(6, 3, 0.1, radius=2.0).to_dict())
    assert big["energy"] == pytest.approx(infonce_simplex_energy(6, 3, 0.1 / 4.0), abs=1e-12)


def _result(seed, minima, barriers, h):
    mins = [SimpleNamespace(id=i, energy=e, z=z) for i, (e, z) in enumerate(minima)]
    return SimpleNamespace(minima=mins, analysis=SimpleNamespace(barriers={i: {"barrier": b} for i, b in barriers.items()}),
                           critical_height=h, settings={"seed": seed})


def test_seed_agreement_matches_minima_up_to_symmetry():
    """Two networks whose minima are the same up to a rotation and a pair swap agree; a minimum only one seed found
    and a barrier that differs by more than 1e-9 (relative) are reported as disagreement."""
    rng = np.random.default_rng(0)
    sym = Symmetry.infonce(((0, 1), (2, 3)))
    z1 = rng.normal(size=(4, 3))
    z1 /= np.linalg.norm(z1, axis=1, keepdims=True)
    z2 = rng.normal(size=(4, 3))
    z2 /= np.linalg.norm(z2, axis=1, keepdims=True)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    z1b = (z1 @ q.T)[[2, 3, 0, 1]]
    a = _result(0, [(-1.0, z1), (0.5, z2)], {1: 0.25}, 0.25)
    b = _result(1, [(0.5, z2 @ q.T), (-1.0, z1b)], {0: 0.25}, 0.25)
    agree = seed_agreement(a, b, sym)
    assert agree["agree"] and agree["common"] == [[0, 1, -1.0], [1, 0, 0.5]] and agree["seeds"] == [0, 1]
    assert "the two samples agree" in agree["text"]
    c = _result(1, [(-1.0, z1b)], {}, 0.0)
    worse = seed_agreement(a, c, sym)
    assert not worse["agree"] and worse["only_first"] == [1] and "differ" in worse["text"]
    d = _result(1, [(0.5, z2 @ q.T), (-1.0, z1b)], {0: 0.25 + 1e-6}, 0.25 + 1e-6)
    assert not seed_agreement(a, d, sym)["agree"]


def test_seed_agreement_with_one_minimum_and_no_barrier_says_there_was_nothing_to_compare():
    """Two searches that each found only the same global minimum agree on the minima, but the text says that no
    barrier could be compared instead of calling the samples in agreement (what a one-minimum search at scale
    reports)."""
    rng = np.random.default_rng(1)
    sym = Symmetry.infonce(((0, 1), (2, 3)))
    z = rng.normal(size=(4, 3))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    a, b = _result(0, [(-1.0, z)], {}, 0.0), _result(1, [(-1.0, z)], {}, 0.0)
    out = seed_agreement(a, b, sym)
    assert out["agree"] and out["barriers"] == []
    assert "1 minimum found by both" in out["text"] and "no barrier found by both to compare" in out["text"]
    assert "the two samples agree" not in out["text"] and "with no barrier to compare" in out["text"]
