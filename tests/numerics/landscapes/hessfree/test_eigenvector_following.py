"""Hybrid eigenvector following, Hessian-free and batched, against the dense network search (A9)."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree import HEFSettings, follow_modes, hef_searcher, queue_searcher
from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import MAX_ITER, hef_single
from contrastive_bounds.numerics.landscapes.network import infonce_spec
from contrastive_bounds.numerics.landscapes.network.verify import classify
from contrastive_bounds.numerics._sphere import retract

ROOT = Path(__file__).resolve().parents[4]
PUBLISHED = {(e["num_points"], e["dim"], e["tau"]): e["critical_height"]
             for e in json.loads((ROOT / "docs" / "data" / "landscape-values.json").read_text())["table"]
             if e["radius"] == 1.0}


@pytest.mark.slow
@pytest.mark.parametrize("n,d,modes,both", [
    pytest.param(4, 2, 3, True, marks=pytest.mark.heavy(reason="44 s; the N = 6, d = 3 row runs always")),
    (6, 3, 2, False)])
def test_following_the_trap_softest_modes_reaches_the_dense_barrier(dense_network, n, d, modes, both):
    """From the minima of the dense N = n, d network (τ = 0.1; N = 6: the trap only, its global minimum's soft
    modes lead to a degenerate saddle of index 2), the softest modes both ways: each end point
    certified as a transition state is one of the dense search's transition states (energy to 1e-9) and the
    dense classify verifies it as index 1; every end point the certificate rejects is rejected by the dense
    verifier too; from the trap, the lowest certified saddle minus the trap's energy is the published H*
    (docs/data/landscape-values.json) to 1e-9."""
    net = dense_network(n, d, 0.1)
    spec = infonce_spec(n, d, 0.1)
    trap = max(net.minima, key=lambda m: m.energy)
    chosen = net.minima if both else [trap]
    out = follow_modes(spec.potential, np.stack([m.z for m in chosen]), modes=modes)
    dense_ts = np.array([t.energy for t in net.transition_states])
    ids = [m.id for m in chosen]
    for r in out:
        dense = classify(spec, r.z, expect=1)
        assert r.verified == dense.verified, (r.certificate.reason, dense.reason)
        if r.verified:
            assert np.min(np.abs(dense_ts - r.energy)) < 1e-9
            assert r.certificate.kind == "transition state" and r.gradient_norm <= 1e-8
        else:
            assert r.certificate.reason
    from_trap = [r.energy for r in out if r.verified and ids[r.start] == trap.id]
    assert from_trap, "no certified saddle from the trap"
    assert min(from_trap) - trap.energy == pytest.approx(PUBLISHED[(n, d, 0.1)], abs=1e-9)


@pytest.mark.slow
def test_batched_searches_equal_single_searches_and_one_iteration_replays_the_dense_kernel(ref, dense_network):
    """vmap'd searches and the refilled queue (2 lanes, one padding start) from kicks off the N = 4, d = 2 trap give
    the single searches' end points (Gram matrices to 1e-9, energies to 1e-12: equal up to the rotation orbit,
    whose zero modes are free). One iteration without transverse steps is
    the uphill step h = 2F/(|θ| + sqrt(θ² + 4F²)) (capped by the trust radius) along the lowest eigenvector of
    the dense deflated Hessian (θ its eigenvalue, F = grad V·v), retracted: replayed here from eigh to 1e-8."""
    n, d = 4, 2
    net = dense_network(n, d, 0.1)
    pot = ref.infonce(n, 0.1)
    rng = np.random.default_rng(3)
    trap = max(net.minima, key=lambda m: m.energy).z
    m0 = np.stack([rng.normal(size=(n, d)) for _ in range(3)])
    z0 = np.stack([np.asarray(retract(jnp.asarray(trap), 0.05 * jnp.asarray(m / np.linalg.norm(m)))) for m in m0])
    keys = jax.random.split(jax.random.key(0), 3)
    settings = HEFSettings(max_iter=60)
    batched = hef_searcher(pot, settings=settings)(jnp.asarray(z0), jnp.asarray(m0), keys)
    active = jnp.asarray([True, False, True])
    queued = queue_searcher(pot, slots=2, settings=settings)(jnp.asarray(z0), jnp.asarray(m0), keys, active)
    single = jax.jit(lambda z, m, k: hef_single(pot, z, m, k, settings=settings))
    for i in range(3):
        one = single(jnp.asarray(z0[i]), jnp.asarray(m0[i]), keys[i])
        zs = np.asarray(one.z)
        for other, on in ((batched, True), (queued, bool(active[i]))):
            if not on:  # a padding start of the queue: one iteration's slot, no search
                assert int(other.iterations[i]) == 0
                continue
            zb = np.asarray(other.z[i])
            # the same end point up to the rotation orbit (its deflated zero modes are free: vmap rounds differently)
            assert np.max(np.abs(zs @ zs.T - zb @ zb.T)) < 1e-9
            assert float(one.value) == pytest.approx(float(other.value[i]), abs=1e-12)
            assert int(one.status) == int(other.status[i])
    step = HEFSettings(max_iter=1, tangent_steps=0, tangent_steps_converged=0, mode_krylov=8, mode_tol=1e-13,
                       mode_restarts=20, uphill_initial=0.3, max_uphill=0.3)
    z = ref.unit_rows(rng, n, d)
    got = jax.jit(lambda z, m, k: hef_single(pot, z, m, k, settings=step))(jnp.asarray(z), jnp.asarray(m0[0]), keys[0])
    assert int(got.status) == MAX_ITER
    hess = ref.dense_riemannian_hessian(pot, z)
    normals = np.zeros((n, n * d))
    for i in range(n):
        normals[i, i * d:(i + 1) * d] = z[i]
    excluded = np.concatenate([normals, ref.rotation_generators(z)])
    u, s, _ = np.linalg.svd(excluded.T, full_matrices=True)
    comp = u[:, int(np.sum(s > 1e-8)):]
    lam, vec = np.linalg.eigh(comp.T @ hess @ comp)
    v = (comp @ vec[:, 0]).reshape(n, d)
    m = m0[0] - np.sum(m0[0] * z, axis=1, keepdims=True) * z
    v = v if np.sum(v * m) >= 0 else -v
    g = np.array(jax.grad(pot)(jnp.asarray(z)))
    g -= np.sum(g * z, axis=1, keepdims=True) * z
    f = float(np.sum(g * v))
    theta = lam[0]
    h = 2 * f / (abs(theta) + np.sqrt(theta ** 2 + 4 * f * f)) if theta < 0 else np.sign(f or 1.0) * 0.3
    h = float(np.clip(h, -0.3, 0.3))
    expected = np.asarray(retract(jnp.asarray(z), h * jnp.asarray(v)))
    assert float(got.mode_eigenvalue) == pytest.approx(theta, abs=1e-8)
    assert np.max(np.abs(np.asarray(got.z) - expected)) < 1e-8
