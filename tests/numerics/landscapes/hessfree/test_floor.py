"""The basin floor of eigenvector following: a search ends (``BELOW_FLOOR``) at its first iterate below its floor,
and is otherwise the unfloored search (replayed step by step against the kernel); the queue, the provider and
the network's ``connect_candidates`` carry the floors through (docs/landscape-networks.md, "Searches at scale");
and ``connect_candidates`` certifies no point again that equals a known verified saddle."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree import HEFSettings, queue_searcher
from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import BELOW_FLOOR, CONVERGED, hef_init, \
    hef_single, hef_step
from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec
from contrastive_bounds.numerics.landscapes.network.connect import connect_candidates
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE
from contrastive_bounds.numerics.landscapes.network.hessfree_curvature import HESSFREE
from contrastive_bounds.numerics.landscapes.network.records import Candidate
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics._sphere import retract

N, D, TAU = 8, 4, 0.01
#: the cross-polytope trap of N = 8, d = 4: every pair split antipodally on its own axis, V = 1/τ + log(N − 2)
V_TRAP = 1 / TAU + np.log(N - 2)
#: a floor 1 above the trap: some searches from the trap pass below it on their way up (their lowest V along the
#: way is 0.01–0.07 above the trap), others never come near it
FLOOR = V_TRAP + 1.0
SETTINGS = HEFSettings(max_iter=120)


@pytest.fixture(scope="module")
def starts():
    """The trap kicked by 0.05 along each of its 8 softest modes, both signs: ``(z0, modes, keys)``."""
    spec = infonce_spec(N, D, TAU)
    z = np.zeros((N, D))
    for u in range(N // 2):
        z[2 * u, u], z[2 * u + 1, u] = 1.0, -1.0
    assert float(spec.potential(jnp.asarray(z))) == pytest.approx(V_TRAP, abs=1e-12)
    _, modes = HESSFREE.softest(spec, z, 8)
    m0 = np.concatenate([modes, -modes])
    z0 = retract(np.repeat(z[None], len(m0), axis=0), 0.05 * m0)
    keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(jax.random.key(3), jnp.arange(len(m0), dtype=jnp.uint32))
    return spec, z0, m0, keys


def _trajectory(spec, step, z0, m0, key):
    """The unfloored search's iterates, one ``hef_step`` at a time: ``(values, points, statuses)``."""
    st = hef_init(spec.potential, jnp.asarray(z0), jnp.asarray(m0), key, settings=SETTINGS)
    values, points, statuses = [], [], []
    while int(st.status) == 0:
        st = step(st)
        values.append(float(st.value)), points.append(np.asarray(st.z)), statuses.append(int(st.status))
    return np.array(values), points, statuses


def test_a_floored_search_ends_at_its_first_iterate_below_the_floor_and_is_otherwise_the_unfloored_search(starts):
    """Every start is replayed by ``hef_step`` without a floor: where the replay passes below FLOOR, the floored
    ``hef_single`` ends BELOW_FLOOR after exactly the iterations to the first iterate below it, at that iterate (to
    1e-12); where it never does, the floored search is the unfloored one (same status, iterations, end point).
    Both kinds occur among these starts."""
    spec, z0, m0, keys = starts
    one = jax.jit(lambda z, m, k, f: hef_single(spec.potential, z, m, k, settings=SETTINGS, floor=f))
    step = jax.jit(lambda s: hef_step(spec.potential, s, orthogonal=True, settings=SETTINGS))
    crossed = 0
    for b in range(len(z0)):
        values, points, statuses = _trajectory(spec, step, z0[b], m0[b], keys[b])
        res = one(jnp.asarray(z0[b]), jnp.asarray(m0[b]), keys[b], FLOOR)
        below = np.flatnonzero(values < FLOOR)
        if below.size:
            crossed += 1
            i = int(below[0])
            assert int(res.status) == BELOW_FLOOR and int(res.iterations) == i + 1
            np.testing.assert_allclose(np.asarray(res.z), points[i], atol=1e-12)
            assert float(res.value) < FLOOR
        else:
            assert int(res.status) == statuses[-1] and int(res.iterations) == len(values)
            np.testing.assert_allclose(np.asarray(res.z), points[-1], atol=1e-12)
    assert 0 < crossed < len(z0)


def test_the_queue_carries_each_start_its_own_floor(starts):
    """queue_searcher with one lane and per-start floors (FLOOR on the odd starts, −inf on the even, two padding
    rows) ends each search as hef_single with that floor does: same status, iterations and end point."""
    spec, z0, m0, keys = starts
    floors = np.where(np.arange(len(z0)) % 2 == 1, FLOOR, -np.inf)
    pad = lambda a: np.concatenate([a, a[:2]])  # noqa: E731
    active = jnp.arange(len(z0) + 2) < len(z0)
    ks = jnp.concatenate([keys, keys[:2]])
    queued = queue_searcher(spec.potential, slots=1, settings=SETTINGS)(
        jnp.asarray(pad(z0)), jnp.asarray(pad(m0)), ks, active, jnp.asarray(pad(floors)))
    one = jax.jit(lambda z, m, k, f: hef_single(spec.potential, z, m, k, settings=SETTINGS, floor=f))
    statuses = []
    for b in range(len(z0)):
        ref = one(jnp.asarray(z0[b]), jnp.asarray(m0[b]), keys[b], floors[b])
        assert int(queued.status[b]) == int(ref.status) and int(queued.iterations[b]) == int(ref.iterations)
        np.testing.assert_allclose(np.asarray(queued.z[b]), np.asarray(ref.z), atol=1e-12)
        statuses.append(int(ref.status))
    assert BELOW_FLOOR in statuses[1::2] and BELOW_FLOOR not in statuses[0::2] and CONVERGED in statuses


def test_the_provider_flags_the_searches_that_ended_below_their_floor_and_the_dense_one_ignores_floors(starts):
    """HESSFREE.refine fills ``below`` with the searches that ended BELOW_FLOOR (those whose V at the end point
    lies below the floor) and returns the unfloored end points for the others; DENSE.refine leaves ``below``
    untouched (the dense small-size reference runs every search to its end)."""
    spec, z0, m0, _ = starts
    floors = np.full(len(z0), FLOOR)
    below = [None] * len(z0)
    ends = HESSFREE.refine(spec, z0, m0, index=1, chunk=8, max_iter=120, floors=floors, below=below)
    free = HESSFREE.refine(spec, z0, m0, index=1, chunk=8, max_iter=120)
    energies = np.array([float(spec.potential(jnp.asarray(e))) for e in ends])
    assert all(isinstance(b, bool) for b in below) and 0 < sum(below) < len(z0)
    assert all((energies[k] < FLOOR) == below[k] for k in range(len(z0)))
    for k in range(len(z0)):
        if not below[k]:
            np.testing.assert_allclose(ends[k], free[k], atol=1e-12)
    untouched = ["x"] * 2
    DENSE.refine(spec, z0[:2], m0[:2], index=1, chunk=8, max_iter=50, floors=floors[:2], below=untouched)
    assert untouched == ["x", "x"]


def test_connect_candidates_counts_the_searches_below_their_floor_and_records_no_candidate_for_them(starts):
    """connect_candidates with floors: the searches stopped below their floor are counted in the Refined event
    (``below_floor``, among ``unconverged``) and in the effort, their outcomes are None, and they add no record
    (the transition states recorded are those of the other searches, as without floors)."""
    spec, z0, m0, _ = starts
    settings = SearchSettings.at_scale(starts=1)
    cands = [Candidate(a, b, "eigenvector following") for a, b in zip(z0, m0)]
    runs = {}
    for name, floors in (("floored", [FLOOR] * len(cands)), ("free", None)):
        store = NetworkStore(spec.fingerprint(), settings, curvature="hessfree")
        outcomes: list = []
        connect_candidates(spec, settings, store, SearchRandom(0), cands, curvature=HESSFREE, outcomes=outcomes,
                           floors=floors)
        (refined,) = [e for e in store.events if e.kind == "refined"]
        runs[name] = (store, outcomes, refined)
    store, outcomes, refined = runs["floored"]
    below = [None] * len(cands)
    HESSFREE.refine(spec, z0, m0, index=1, chunk=8, max_iter=400, floors=[FLOOR] * len(cands), below=below)
    assert refined.below_floor == sum(below) > 0 and refined.unconverged >= refined.below_floor
    assert store.effort().below_floor == sum(below)
    assert all(outcomes[k] is None for k in range(len(cands)) if below[k])
    free_store, free_outcomes, free_refined = runs["free"]
    assert free_refined.below_floor == 0
    kept = {round(t.energy, 8) for t in store.transition_states}
    assert kept and kept <= {round(t.energy, 8) for t in free_store.transition_states}


def test_basin_margin_is_validated_and_at_scale_sets_it():
    """``basin_margin`` is None by default (every search runs to its end: the stored small networks), 1.0 under
    ``at_scale()``, and a negative or non-finite margin is refused naming the argument."""
    assert SearchSettings().basin_margin is None and SearchSettings.at_scale().basin_margin == 1.0
    for bad in (-0.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="basin_margin"):
            SearchSettings(basin_margin=bad)


def test_the_refined_event_writes_below_floor_only_when_some_search_stopped_there():
    """A Refined event round-trips through its dict with ``below_floor``; with none stopped the dict is the one
    written before floors existed (no ``below_floor`` key), so saved small searches keep their form."""
    from contrastive_bounds.numerics.landscapes.network.events import Refined, event_from_dict

    with_floor, without = Refined("eigenvector following", 10, 4, 3), Refined("eigenvector following", 10, 4)
    assert with_floor.to_dict()["below_floor"] == 3 and event_from_dict(with_floor.to_dict()) == with_floor
    assert without.to_dict() == {"event": "refined", "found_by": "eigenvector following", "count": 10, "unconverged": 4}
    assert event_from_dict(without.to_dict()) == without


class _Counting:
    """HESSFREE with a count of the configurations it was asked to classify."""

    name = "hessfree"

    def __init__(self) -> None:
        self.classified = 0

    def __getattr__(self, attr):
        return getattr(HESSFREE, attr)

    def classify(self, spec, z, **kw):
        self.classified += len(z)
        return HESSFREE.classify(spec, z, **kw)


def test_points_equal_to_a_known_verified_saddle_are_not_certified_again(starts):
    """The same 16 trap searches connected twice into one store: the second time every search that converged to a
    verified transition state of the first is recognised up to symmetry by one gradient and an equivalence test,
    not classified again (the classifier sees only the others), logged as a duplicate, and reported as ending at
    the same record; the store gains no transition state."""
    spec, z0, m0, _ = starts
    settings = SearchSettings.at_scale(starts=1)
    cands = [Candidate(a, b, "eigenvector following") for a, b in zip(z0, m0)]
    store = NetworkStore(spec.fingerprint(), settings, curvature="hessfree")
    counting = _Counting()
    first: list = []
    connect_candidates(spec, settings, store, SearchRandom(0), cands, curvature=counting, outcomes=first)
    assert counting.classified >= len(cands)
    records, verified = len(store.transition_states), sum(t is not None for t in first)
    assert verified > 0
    counting.classified = 0
    duplicates_before = sum(1 for e in store.events if e.kind == "duplicate candidate")
    second: list = []
    connect_candidates(spec, settings, store, SearchRandom(0), cands, curvature=counting, outcomes=second)
    assert second == first and len(store.transition_states) == records
    assert counting.classified == len(cands) - verified
    assert sum(1 for e in store.events if e.kind == "duplicate candidate") - duplicates_before >= verified
