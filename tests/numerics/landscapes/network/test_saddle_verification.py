"""Transition states are accepted only when converged with exactly one negative eigenvalue (A9).

Test potential (conftest ``quadratic_spec``): V = Σ a_i z_i² on S² with a = (1, 2, 4). Its critical
points are ±e_i with Riemannian Hessian eigenvalues 2(a_j − a_i), j ≠ i (closed form): ±e_1 minima,
±e_2 index-1 saddles, ±e_3 maxima.
"""

from __future__ import annotations

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import landscape_network, user_spec
from contrastive_bounds.numerics.landscapes.network.saddle import refine_batch
from contrastive_bounds.numerics.landscapes.network.verify import classify

E = np.eye(3)[:, None, :]


def test_hessian_eigenvalues_match_the_closed_form_and_index_decides(quadratic_spec):
    """Eigenvalues at e_i are 2(a_j − a_i); e_2 is a verified TS (eigenvalue −2), e_3 (index 2) and e_1
    (index 0) are rejected as transition states with the reason named."""
    ts = classify(quadratic_spec, E[1], expect=1)
    assert ts.verified and ts.kind == "transition state"
    assert ts.eigenvalues == pytest.approx([-2.0, 4.0], abs=1e-13)
    top = classify(quadratic_spec, E[2], expect=1)
    assert not top.verified and top.index == 2 and "index 2" in top.reason
    assert top.eigenvalues == pytest.approx([-6.0, -4.0], abs=1e-13)
    low = classify(quadratic_spec, E[0], expect=1)
    assert not low.verified and low.index == 0
    assert classify(quadratic_spec, E[0], expect=0).verified


def test_unconverged_and_degenerate_points_are_rejected(quadratic_spec):
    """A point 1e-3 away from e_2 fails the gradient tolerance (reported, not accepted); on V = z_3² the
    minimum is the whole equator, so a point of it has a zero mode that is not a declared symmetry:
    reported as degenerate, not verified."""
    near = np.array([[1e-3, 1.0, 0.0]])
    near /= np.linalg.norm(near)
    cp = classify(quadratic_spec, near, expect=1)
    assert not cp.verified and "not converged" in cp.reason and cp.gradient_norm > 1e-8
    flat = user_spec(lambda z: z[0, 2] ** 2, 1, 3, name="equator")
    deg = classify(flat, E[0], expect=0)
    assert deg.zero_modes == 1 and not deg.verified and "degenerate" in deg.reason


def test_eigenvector_following_converges_to_the_index_one_saddle(quadratic_spec):
    """From 0.3 rad off e_2, following the initial direction towards e_2 ends at e_2 with |grad V| <= 1e-11,
    a verified transition state."""
    start = np.array([[[0.3, 1.0, 0.1]]])
    start /= np.linalg.norm(start, axis=-1, keepdims=True)
    mode = np.array([[[-1.0, 0.3, 0.0]]])
    z, v, gnorm, _, _ = refine_batch(quadratic_spec, start, mode, index=1, chunk=8)  # a RefineResult
    assert gnorm[0] <= 1e-11 and v[0] == pytest.approx(2.0, abs=1e-12)
    assert np.abs(np.abs(z[0, 0, 1]) - 1.0) < 1e-12
    assert classify(quadratic_spec, z[0], expect=1).verified


def test_network_of_the_quadratic_potential(quadratic_spec):
    """The search finds the two minima ±e_1 (both global: H* = 0, complete, not 'barrier-free' since there
    are two) and the two saddles ±e_2 (V = 2) each joining them; no index-2 point is accepted."""
    res = landscape_network(quadratic_spec, starts=16, hop_batch=8, max_hop_rounds=2, patience=1, chunk=8, max_ts_rounds=2)
    assert sorted(m.energy for m in res.minima) == pytest.approx([1.0, 1.0], abs=1e-12)
    assert res.global_minima == [0, 1] and res.critical_height == 0.0 and res.status == "complete"
    assert len(res.transition_states) == 2
    for t in res.transition_states:
        assert t.energy == pytest.approx(2.0, abs=1e-12) and t.minima == [0, 1] and t.index == 1
    assert all(t.energy != pytest.approx(4.0) for t in res.transition_states)
