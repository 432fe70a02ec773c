"""One trap explored Hessian-free and saved as a network (numerics.landscapes.trap_network; A5, A9).

Guards: on the table's N = 6, d = 2, τ = 0.1 landscape (two minima from random starts, H* = 0.18809, complete
in docs/landscape-networks.md) the per-trap exploration finds the trap and its barrier equals the closed
network's H* (from the dense search, an independent path) to 1e-9; the saved folder reads back through the one
reader, its status is "open" (closure not attempted) with the closure text naming the Hessian-free
exploration; the annealing plan on it states that, and its Eyring–Kramers trap equals the dense closed search's.
The multiplicity at scale equals the exact orbit–stabiliser count where both run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import infonce_spec, load_saved_search
from contrastive_bounds.numerics.landscapes.network_kramers import network_trap
from contrastive_bounds.numerics.landscapes.trap_network import EXPLORATION, explore_trap
from contrastive_bounds.numerics.landscapes.trap_tools import multiplicity_at_scale


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    spec = infonce_spec(6, 2, 0.1)
    folder = tmp_path_factory.mktemp("trap")
    return spec, folder, explore_trap(spec, folder, starts=64, seed=0, trap="highest", modes=2)


@pytest.fixture(scope="module")
def dense_search(explored):
    """The closed search of the same landscape on the dense path (an independent route to the same trap)."""
    from contrastive_bounds.numerics.landscapes.network import landscape_network

    return landscape_network(explored[0], seed=0)


@pytest.mark.slow
def test_per_trap_exploration_reproduces_the_closed_network_barrier(explored, dense_search):
    """The N = 6, d = 2 trap (V = −2.4091) and its barrier 0.18809 as the dense closed search gives them."""
    spec, folder, out = explored
    dense = dense_search
    a = dense.analysis
    (tid,) = list(a.barriers)
    by_id = {m.id: m for m in dense.minima}
    assert math.isclose(out.trap_energy, by_id[tid].energy, rel_tol=0, abs_tol=1e-9)
    assert abs(out.barrier - a.barriers[tid]["barrier"]) <= 1e-9
    assert abs(out.barrier - 0.18809) <= 5e-6  # the published table's value (5 digits)
    assert out.exploration == EXPLORATION and out.verified >= 1


@pytest.mark.slow
def test_saved_exploration_reads_back_open_and_says_what_it_is(explored, dense_search):
    """The one reader reads it; status open (closure not attempted); the closure text names the exploration; the
    annealing plan notes it, and its trap (energy, barrier, lowest escape saddle and its log-prefactor) is that of the
    dense closed search."""
    from contrastive_bounds.numerics.network_experiment import plan_anneal
    from contrastive_bounds.theory._schedules import make_schedule

    spec, folder, out = explored
    saved = load_saved_search(folder)
    assert saved.store.curvature == "hessfree"
    assert saved.status().startswith("open: closure not attempted")
    assert not saved.critical_height_known
    assert "Hessian-free following" in saved.effort["closure"] and "not a closed search" in saved.effort["closure"]
    saved.verify_energies(spec)
    plan = plan_anneal(saved, make_schedule("fixed", c=0.05), chains=4, t_end=0.1, start="trap")
    assert any("not a closed search" in n for n in plan.notes)
    assert plan.trap is not None and plan.trap.non_degenerate
    # the plan's Eyring–Kramers trap, from the saved per-trap exploration, against that of the closed dense search
    # (other saddle coordinates, found another way): the same trap, barrier and lowest escape saddle's prefactor.
    # Hessian-free against dense at the same points: hessfree/test_logdet.py; a Hessian-free evaluation here is where
    # full-suite runs stalled inside XLA's CPU runtime (docs/simulator.md, "Devices on CPU")
    ref = network_trap(dense_search, spec, curvature="dense")
    assert plan.trap.curvature == ref.curvature == "dense"
    assert abs(plan.trap.energy - ref.energy) <= 1e-9 and abs(plan.trap.barrier - ref.barrier) <= 1e-9
    assert abs(plan.trap.barrier - out.barrier) <= 1e-12
    low, low_ref = min(plan.trap.saddles, key=lambda x: x.energy), min(ref.saddles, key=lambda x: x.energy)
    assert abs(low.energy - low_ref.energy) <= 1e-9
    assert low.log_prefactor is not None and abs(low.log_prefactor - low_ref.log_prefactor) <= 1e-9


def test_multiplicity_at_scale_equals_the_exact_count_and_the_closed_forms():
    """multiplicity_at_scale equals the orbit–stabiliser count by VF2 isomorphism tests (group_order's reference
    method) on generic configurations (trivial stabiliser: 4!·2^4), collapsed pairs (each swap stabilises: 4!) and two
    pairs on one site (the swap of those pairs stabilises too: 4!·2^4/2^5 = 12), and at N = 64 the closed forms of
    collapsed pairs on the cross-polytope of S^15 (31!! pairings of the 32 pairs into antipodes) and of a generic
    configuration (32!·2^32)."""
    from contrastive_bounds.numerics.landscapes.network.symmetry import _gram, group_order, label_matrices

    rng = np.random.default_rng(0)
    spec = infonce_spec(8, 3, 0.1)
    z = rng.normal(size=(8, 3))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    zc = np.repeat(z[::2], 2, axis=0)  # collapsed pairs
    zd = zc.copy()
    zd[2:4] = zd[0:2]  # pairs 0 and 1 on one site
    full = group_order(label_matrices([np.eye(8)], spec.symmetry, 1e-8)[0], method="isomorphisms")
    assert full == math.factorial(4) * 2 ** 4
    for c, want in ((z, 384), (zc, 24), (zd, 12)):
        (lab,) = label_matrices([_gram(c)], spec.symmetry, 1e-8)
        assert multiplicity_at_scale(spec, c) == want == full // group_order(lab, method="isomorphisms")
    spec64 = infonce_spec(64, 16, 0.1)
    axes = np.concatenate([np.eye(16), -np.eye(16)])  # ±e_k: 32 sites, each holding one collapsed pair
    cross = np.repeat(axes[rng.permutation(32)], 2, axis=0)
    assert multiplicity_at_scale(spec64, cross) == math.prod(range(1, 32, 2)) == 191898783962510625
    g = rng.normal(size=(64, 16))
    assert multiplicity_at_scale(spec64, g / np.linalg.norm(g, axis=1, keepdims=True)) == math.factorial(32) * 2 ** 32
