"""Network H*, minima and saddle energies agree with the grid/persistence code and closed forms (A9 vs A3).

On S¹ the grid code refines critical points exactly (Brent on V'); on S² its mesh values are refined
here independently (scipy's root finder on the gradient in a local chart, no Riemannian machinery);
on the torus (S¹)² a separable potential has closed-form critical points. Agreement is to 1e-8
relative or better.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import root

from contrastive_bounds.numerics.landscapes._barriers import circle_barrier, sphere_barrier, torus_barrier
from contrastive_bounds.numerics.landscapes.network import landscape_network, landscape_spec, user_spec
from contrastive_bounds.numerics.landscapes._registry import get_landscape

SMALL = dict(starts=16, hop_batch=8, max_hop_rounds=3, patience=2, chunk=8, max_ts_rounds=3)


def _rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


@pytest.mark.slow
def test_double_well_matches_the_closed_form():
    """V = −0.5 cos θ − cos 2θ: minima −1.5 and −0.5, two saddles at cos θ = −1/8 with V = 33/32, H* =
    1.53125 exactly (C13): the network must give these to 1e-12 and D = H*/(V(π) − V(0)) = 1.53125."""
    res = landscape_network(landscape_spec(get_landscape("double-well")), **SMALL)
    assert res.status == "complete"
    assert sorted(m.energy for m in res.minima) == pytest.approx([-1.5, -0.5], abs=1e-12)
    assert len(res.transition_states) == 2
    for t in res.transition_states:
        assert t.energy == pytest.approx(33 / 32, abs=1e-12)
        assert t.z[0, 0] == pytest.approx(-1 / 8, abs=1e-12)
        assert t.gradient_norm <= 1e-8 and t.index == 1
    assert res.critical_height == pytest.approx(1.53125, abs=1e-12)
    assert res.catoni_difficulty == pytest.approx(1.53125, abs=1e-12)
    assert res.analysis.cross_check == pytest.approx(res.critical_height, abs=1e-14)


@pytest.mark.slow
def test_triple_well_matches_the_refined_grid():
    """cos 3θ + 0.5 cos θ (two equal non-global minima): minima, saddles and H* equal circle_barrier's
    refined values to 1e-10 relative."""
    land = get_landscape("triple-well")
    grid = circle_barrier(land)
    res = landscape_network(landscape_spec(land), **SMALL)
    assert sorted(m.energy for m in res.minima) == pytest.approx(sorted(m["value"] for m in grid.minima), rel=1e-10)
    assert sorted(t.energy for t in res.transition_states) == pytest.approx(sorted(s["value"] for s in grid.saddles),
                                                                            rel=1e-10)
    assert _rel(res.critical_height, grid.critical_height) < 1e-10
    assert res.status == "complete" and len(res.global_minima) == 1


def _refine_on_s2(potential, point):
    """A critical point of V on S² near ``point`` by scipy's root finder on the gradient of V in the chart
    x(a, b) = normalize(p + a e1 + b e2) (independent of the network's tangent bases and Hessians)."""
    p = np.asarray(point, dtype=np.float64)
    e1 = np.cross(p, [0.3, 0.5, 0.8]) if abs(p[2]) < 0.9 else np.cross(p, [1.0, 0.0, 0.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(p, e1)

    def chart(ab):
        x = jnp.asarray(p) + ab[0] * jnp.asarray(e1) + ab[1] * jnp.asarray(e2)
        return potential((x / jnp.linalg.norm(x))[None, :])

    grad = jax.jit(jax.grad(chart))
    hess = jax.jit(jax.hessian(chart))
    sol = root(lambda ab: np.asarray(grad(jnp.asarray(ab))), np.zeros(2), jac=lambda ab: np.asarray(hess(jnp.asarray(ab))),
               tol=1e-13)
    assert np.linalg.norm(np.asarray(grad(jnp.asarray(sol.x)))) < 1e-11  # converged (hybr may still complain)
    return float(chart(jnp.asarray(sol.x)))


@pytest.mark.slow
def test_sphere_mixture_matches_the_mesh_refined_independently():
    """A three-well von Mises–Fisher mixture on S²: the network's minima and the saddles that set the
    barriers equal the mesh's critical vertices refined by scipy (1e-8 relative); H* equals the
    refined persistence value, and the raw mesh H* is within its stated error estimate."""
    land = get_landscape("vmf-mixture", means=[[0, 0, 1], [1, 0, 0], [0, -0.6, -0.8]], kappas=[5.0, 4.0, 6.0],
                         weights=[0.5, 0.3, 0.2])
    mesh = sphere_barrier(land, num_vertices=20000)
    minima = {m["vertex"]: _refine_on_s2(land.potential_fn, m["point"]) for m in mesh.minima}
    saddles = [_refine_on_s2(land.potential_fn, s["point"]) for s in mesh.saddles]
    res = landscape_network(landscape_spec(land), **SMALL)
    assert res.status == "complete"
    assert sorted(m.energy for m in res.minima) == pytest.approx(sorted(minima.values()), rel=1e-8)
    ts = sorted(t.energy for t in res.transition_states)
    for s in saddles:  # every barrier-setting saddle of the mesh is a verified transition state
        assert min(_rel(t, s) for t in ts) < 1e-8
    refined_h = max(saddles[k] - minima[r["vertex"]] for k, r in
                    enumerate(m for m in mesh.minima if np.isfinite(m["depth"])))
    assert _rel(res.critical_height, refined_h) < 1e-8
    assert abs(mesh.critical_height - res.critical_height) <= mesh.grid_error_bound
    assert len(res.minima) == 3


def _separable(z):
    """V(θ1, θ2) = f(θ1) + f(θ2) with the double well f = −0.5 cos θ − cos 2θ, in z-coordinates."""
    c, s = z[:, 0], z[:, 1]
    return jnp.sum(-0.5 * c - (c * c - s * s))


@pytest.mark.slow
def test_torus_separable_matches_closed_forms_and_the_grid():
    """On (S¹)² the separable double well has minima −3, −2, −2, −1 (products of the 1-D minima) and
    index-1 saddles (minimum, saddle) with energies −1.5 + 33/32 and −0.5 + 33/32 (each 4 times); every
    non-global minimum climbs 1.53125, so H* = 1.53125 exactly; torus_barrier's grid agrees within its
    error estimate."""
    spec = user_spec(_separable, 2, 2, name="torus-double-well")
    res = landscape_network(spec, **SMALL)
    assert res.status == "complete"
    assert sorted(m.energy for m in res.minima) == pytest.approx([-3.0, -2.0, -2.0, -1.0], abs=1e-12)
    energies = sorted(t.energy for t in res.transition_states)
    assert energies == pytest.approx([-1.5 + 33 / 32] * 4 + [-0.5 + 33 / 32] * 4, abs=1e-12)
    assert res.critical_height == pytest.approx(1.53125, abs=1e-12)
    from contrastive_bounds.numerics.landscapes._landscape import Landscape

    grid = torus_barrier(Landscape("torus", 2, 2, _separable), resolution=128)
    assert abs(grid.critical_height - res.critical_height) <= grid.grid_error_bound
