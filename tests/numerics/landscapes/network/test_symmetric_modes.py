"""Per-trap closure modulo the trap's stabiliser (network.mode_orbits, network.symmetric_modes, following).

Guards: the stabiliser's orbits are proven by verified automorphisms (the group they generate has the order the
orbit–stabiliser chain of network.symmetry computes independently: the hyperoctahedral 2^4·4! = 384 at the N = 8,
d = 4 cross-polytope); the Ritz vectors are eigenvectors of the independent dense Hessian (network.verify) and
their images under the group span every mode; a random configuration gets no reduction; the reduced search of a
table row reaches the table's saddle energies and H*; the event's new fields keep old logs readable.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec, landscape_network
from contrastive_bounds.numerics.landscapes.network.arguments import default_pairs
from contrastive_bounds.numerics.landscapes.network.events import Followed, event_from_dict
from contrastive_bounds.numerics.landscapes.network.tally import Tally
from contrastive_bounds.numerics.landscapes.network.mode_orbits import stabilizer_orbits
from contrastive_bounds.numerics.landscapes.network.symmetric_modes import act, symmetric_directions
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, label_matrices, group_order
from contrastive_bounds.numerics.landscapes.network.verify import classify

ROOT = Path(__file__).resolve().parents[4]
VALUES = json.loads((ROOT / "docs" / "data" / "landscape-values.json").read_text())


def _cross_polytope(n: int, d: int) -> np.ndarray:
    """All pairs split antipodally along orthogonal axes: pair k at ±e_k (the N = 2d trap, V = 1/τ + log(N − 2))."""
    z = np.zeros((n, d))
    for k, (i, j) in enumerate(default_pairs(n)):
        z[i, k], z[j, k] = 1.0, -1.0
    return z


def _collapsed_simplex(n: int, d: int) -> np.ndarray:
    """Every pair collapsed on a vertex of the regular simplex of N/2 = d vertices (rank d − 1: span(Z) ≠ R^d)."""
    m = n // 2
    e = np.eye(m) - 1.0 / m
    e /= np.linalg.norm(e, axis=1, keepdims=True)
    z = np.zeros((n, d))
    for k, (i, j) in enumerate(default_pairs(n)):
        z[i, :m] = z[j, :m] = e[k]
    return z


def _generated(perms: list[np.ndarray], limit: int = 5000) -> list[np.ndarray]:
    """Every element of the permutation group the ``perms`` generate (breadth first)."""
    n = len(perms[0])
    seen = {tuple(range(n))}
    frontier = [np.arange(n)]
    while frontier:
        nxt = []
        for g in frontier:
            for p in perms:
                h = p[g]
                if tuple(h) not in seen:
                    seen.add(tuple(h))
                    nxt.append(h)
        frontier = nxt
        assert len(seen) <= limit
    return [np.array(s) for s in seen]


def test_the_cross_polytope_stabiliser_is_proven_and_has_the_hyperoctahedral_order():
    """N = 8 on S³: every found automorphism preserves the Gram matrix and the pairs; the group they generate has
    order 384 = 2^4·4!, equal to symmetry.group_order's orbit–stabiliser count of the labelled graph; one point orbit
    and two ordered-pair orbits (a point with its antipodal positive, a point with an orthogonal negative)."""
    z = _cross_polytope(8, 4)
    sym = Symmetry.infonce(default_pairs(8))
    orb = stabilizer_orbits(z, sym)
    pairs = {tuple(sorted(p)) for p in sym.pairs}
    for p in orb.automorphisms:
        assert np.max(np.abs(z @ z.T - (z @ z.T)[np.ix_(p, p)])) == 0.0
        assert {tuple(sorted((int(p[i]), int(p[j])))) for i, j in pairs} == pairs
    (lab,) = label_matrices([z @ z.T], sym, 1e-6)
    assert len(_generated(list(orb.automorphisms))) == group_order(lab) == 2 ** 4 * 24
    assert len(orb.point_orbits) == 1 and len(orb.pair_orbits) == 2 and orb.unproven == 0
    assert sorted(len(o) for o in orb.pair_orbits) == [8, 48]


@pytest.mark.slow
@pytest.mark.parametrize("config, ritz", [(_cross_polytope, 3), (_collapsed_simplex, 5)])
def test_ritz_vectors_are_dense_eigenvectors_and_their_images_span_every_mode(config, ritz):
    """N = 8, d = 4, τ = 0.1 cross-polytope trap, and the collapsed-simplex global minimum (rank 3: a representative
    off span(Z) too): each Ritz vector y has |H y − θ y| <= 1e-9 against the dense
    Hessian rebuilt from network.verify's complete spectrum (an independent path: no Hessian–vector product), as has
    each combination y ± g·y; the Ritz values are among the dense eigenvalues; the images g·y of the Ritz vectors
    alone (3, and 5) over the whole generated group (384 elements each) span all 18 modes off the symmetry."""
    spec = infonce_spec(8, 4, 0.1)
    z = config(8, 4)
    cp = classify(spec, z)
    assert cp.kind == "minimum" and cp.complete_spectrum and len(cp.eigenvalues) == 18
    modes = cp.modes.reshape(18, -1)
    dense = modes.T @ np.diag(cp.eigenvalues) @ modes
    sm = symmetric_directions(spec, z, tol=1e-6, plain=None)
    assert sm.exact and sm.ritz == ritz and sm.representatives == (1 if config is _cross_polytope else 2)
    ritz = sm.directions[sm.is_ritz]
    lam = np.unique(np.round(cp.eigenvalues, 9))
    for th, y in zip(sm.eigenvalues, sm.directions):  # Ritz vectors and their combinations: eigenvectors alike
        flat = y.reshape(-1)
        assert np.linalg.norm(dense @ flat - th * flat) <= 1e-9
        assert np.min(np.abs(lam - th)) <= 1e-9
    group = _generated(list(sm.stabilizer.automorphisms))
    images = np.stack([act(z, g, y).reshape(-1) for g in group for y in ritz])
    assert np.linalg.matrix_rank(images, tol=1e-8) == 18


def test_a_random_configuration_gets_no_reduction():
    """A random configuration of N = 8 points on S³ has distinct colours: no automorphism, 56 singleton pair orbits,
    and symmetric_directions refuses (exact False, the reason names the trivial stabiliser)."""
    rng = np.random.default_rng(5)
    z = rng.normal(size=(8, 4))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    orb = stabilizer_orbits(z, Symmetry.infonce(default_pairs(8)))
    assert orb.trivial and orb.searches == 0 and len(orb.pair_orbits) == 56 and len(orb.point_orbits) == 8
    sm = symmetric_directions(infonce_spec(8, 4, 0.1), z, tol=1e-6, plain=18)
    assert not sm.exact and "trivial" in sm.reason and sm.directions.shape == (0, 8, 4)


def test_the_followed_event_keeps_old_logs_readable():
    """A Followed event without the symmetry fields writes and reads as before (no new keys); one with them round
    trips and the tally records the representatives and the evidence."""
    plain = Followed(3, 10, 5, 5)
    assert set(plain.to_dict()) == {"event", "minimum", "directions", "modes", "of"}
    assert event_from_dict({"event": "followed", "minimum": 3, "directions": 10, "modes": 5, "of": 5}) == plain
    red = Followed(4, 6, 1488, 1488, 1, "32 automorphisms")
    assert event_from_dict(red.to_dict()) == red
    t = Tally.from_events([plain, red])
    assert t.followed[4] == (1488, 1488, 6) and t.modulo_symmetry == {4: (1, "32 automorphisms")}
    assert SearchSettings().symmetric_modes is False and SearchSettings.at_scale().symmetric_modes is False


def test_a_version_4_state_reads_with_plain_following_and_a_reduced_one_round_trips():
    """A state written before symmetric_modes (version 4: no such setting, followed events without the new fields)
    reads with symmetric_modes False and the same per-trap fold; a store whose log holds a reduced Followed event
    saves as the current version (6) and reads back with the representatives, the evidence and the outcomes."""
    from contrastive_bounds.numerics.landscapes.network.serial import STATE_VERSION, store_from_dict, store_to_dict

    data = json.loads((ROOT / "tests" / "numerics" / "landscapes" / "network" / "data" / "saved" /
                       "v2-infonce-n4-d2-tau0.1-done" / "network.json").read_text())
    old = store_to_dict(store_from_dict(data))
    assert old["version"] == STATE_VERSION == 6 and old["settings"]["symmetric_modes"] is False
    v4 = json.loads(json.dumps(old))
    v4["version"] = 4
    del v4["settings"]["symmetric_modes"]
    back = store_from_dict(v4)
    assert back.settings.symmetric_modes is False and back.tally.followed == store_from_dict(data).tally.followed
    back.log(Followed(0, 6, 3, 3, 1, "2 automorphisms", 4, 3, 0))
    again = store_from_dict(json.loads(json.dumps(store_to_dict(back))))
    assert again.tally.modulo_symmetry == {0: (1, "2 automorphisms")} and again.tally.followed[0] == (3, 3, 6)
    assert again.tally.outcomes[0] == (4, 3, 0)


@pytest.mark.slow
def test_the_reduced_search_reaches_the_table_saddles_and_critical_height():
    """N = 8, d = 4, τ = 0.1 (docs/data/landscape-values.json) without bands: following the trap modulo its stabiliser
    (26 searches where plain following takes 108) reaches the table's three saddle energies and H* = 0.0201419 (to
    1e-9), the same as following every mode; the global minimum's reduction is refused (no saving) and said so; the
    trap's row states the stabiliser's evidence and "sampled modulo symmetry, not per-trap closed", and the network is
    open (the reduced following is a sample of starts, not closure)."""
    (row,) = [e for e in VALUES["table"] if (e["num_points"], e["dim"], e["tau"], e["radius"]) == (8, 4, 0.1, 1.0)]
    ref = row["seeds"]["0"]
    res = landscape_network(infonce_spec(8, 4, 0.1), SearchSettings(symmetric_modes=True, pair_distance=0.0,
                                                                     neighbours=0), draw=False)
    assert res.status.startswith("open: closure not reached") and "m1 followed modulo its stabiliser only" in res.status
    assert res.analysis.critical_height == pytest.approx(ref["critical_height"], abs=1e-9)
    plain = landscape_network(infonce_spec(8, 4, 0.1), SearchSettings(pair_distance=0.0, neighbours=0), draw=False)
    assert sorted({round(t.energy, 7) for t in res.transition_states}) == \
        sorted({round(t.energy, 7) for t in plain.transition_states})
    assert plain.analysis.critical_height == pytest.approx(res.analysis.critical_height, abs=1e-9)
    trap, glob = sorted(res.exploration["explored"], key=lambda r: -res.minima[r["minimum"]].energy)
    assert trap["modulo_symmetry"]["representatives"] == 1 and not trap["per_trap_closed"] and trap["modes"] == 18
    assert trap["searches"] < 108 and "384" not in trap["modulo_symmetry"]["stabilizer"]
    assert glob["modulo_symmetry"]["representatives"] == 0 and "no saving" in glob["modulo_symmetry"]["stabilizer"]
    assert "sampled modulo symmetry, not per-trap closed (" in res.exploration["per_trap"]


@pytest.mark.slow
def test_a_reduced_trap_whose_searches_all_fail_is_not_called_closed(monkeypatch):
    """A minimum followed modulo its stabiliser is a sample of starts, never per-trap closed, and its failed searches
    are counted: with the connection step disabled (every search "fails"), the N = 8, d = 4 trap is followed along
    its reduced directions, its row records 0 ended, 0 joined and every direction stalled, the text says "sampled
    modulo symmetry, not per-trap closed", and the search is open (not complete, not barrier-free)."""
    import contrastive_bounds.numerics.landscapes.network.following as following

    monkeypatch.setattr(following, "connect_candidates", lambda *args, **kwargs: [])
    res = landscape_network(infonce_spec(8, 4, 0.1), SearchSettings(symmetric_modes=True, pair_distance=0.0,
                                                                     neighbours=0), draw=False)
    rows = [r for r in res.exploration["explored"] if r["modulo_symmetry"]["representatives"]]
    assert rows and all(not r["per_trap_closed"] and r["ended_at_verified_saddle"] == 0 and r["joined"] == 0
                        and r["stalled_directions"] == r["searches"] // 2 for r in rows)
    assert "sampled modulo symmetry, not per-trap closed" in res.exploration["per_trap"]
    assert res.status.startswith("open: closure not reached") and "m1 followed modulo its stabiliser only" in res.status


def test_the_stabiliser_evidence_counts_in_the_singular_and_plural():
    """The evidence text names one of a thing in the singular ("1 automorphism", "1 point orbit") and more in the
    plural ("2 ordered-pair orbits", "3 searches")."""
    from contrastive_bounds.numerics.landscapes.network.mode_orbits import StabilizerOrbits

    one = StabilizerOrbits(2, (np.array([1, 0]),), 1, 1, ((0, 1),), (((0, 1), (1, 0)),))
    assert one.describe() == ("1 automorphism of the labelled Gram graph found by VF2 and verified (1 search); 1 point "
                              "orbit, 1 ordered-pair orbit; 1 candidate merge unproven and kept split")
    two = StabilizerOrbits(3, (np.array([1, 0, 2]), np.array([0, 2, 1])), 3, 0, ((0,), (1, 2)),
                           (((0, 1),), ((1, 0),)))
    assert two.describe().startswith("2 automorphisms") and "(3 searches); 2 point orbits, 2 ordered-pair orbits" \
        in two.describe() and "unproven" not in two.describe()
