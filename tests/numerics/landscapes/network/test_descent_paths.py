"""A saddle is joined to the minima its steepest-descent path reaches, not where a quasi-Newton jump lands.

The fixture is an index-1 saddle of decoupled InfoNCE, N = 10, d = 3, τ = 0.05 (V ≈ −8.7935). L-BFGS from
``z_TS ± 0.02 v`` (the previous search's descent) does not end in the minima at −14.4751 and −10.1507; the
integrated path does, and an independent integration (scipy's DOP853 on a numpy InfoNCE gradient written
out by hand) ends in the same two basins.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from contrastive_bounds.numerics.landscapes.network import SearchSettings, infonce_spec
from contrastive_bounds.numerics.landscapes.network.connect import connect
from contrastive_bounds.numerics.landscapes.network.descent import descend_batch, settle
from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.verify import classify, newton_polish

TAU = 0.05
PAIRS = [(2 * k, 2 * k + 1) for k in range(5)]
FIXTURE = Path(__file__).parent / "data" / "saddle_infonce_n10_d3_tau0.05.json"
TARGETS = (-14.475076202764976, -10.150704115731948)


def _retract(z, v):
    w = z + v
    return w / np.linalg.norm(w, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def saddle():
    spec = infonce_spec(10, 3, TAU)
    cp = classify(spec, np.asarray(json.loads(FIXTURE.read_text())["z"]), expect=1)
    return spec, cp


def _numpy_grad(z):
    """Euclidean gradient of the decoupled InfoNCE loss, by hand (independent of the JAX potential)."""
    n = len(z)
    g = np.zeros_like(z)
    m = 2 * len(PAIRS)
    for i, j in PAIRS:
        for a, p in ((i, j), (j, i)):
            neg = [k for k in range(n) if k not in (a, p)]
            s = z[neg] @ z[a] / TAU
            w = np.exp(s - s.max())
            w /= w.sum()
            g[a] += (-z[p] + w @ z[neg]) / TAU
            g[p] += -z[a] / TAU
            g[neg] += w[:, None] * z[a] / TAU
    return g / m


def _independent_flow(z0, t_end=10.0):
    n, d = z0.shape

    def rhs(_, y):
        z = y.reshape(n, d)
        z = z / np.linalg.norm(z, axis=-1, keepdims=True)
        g = _numpy_grad(z)
        return -(g - np.sum(g * z, axis=-1, keepdims=True) * z).reshape(-1)

    sol = solve_ivp(rhs, (0.0, t_end), z0.reshape(-1), method="DOP853", rtol=1e-10, atol=1e-12)
    z = sol.y[:, -1].reshape(n, d)
    return z / np.linalg.norm(z, axis=-1, keepdims=True)


def test_the_fixture_is_a_verified_transition_state(saddle):
    """The stored configuration is an index-1 saddle at V = −8.79347015 with |grad V| below 1e-10."""
    _, cp = saddle
    assert cp.verified and cp.index == 1 and cp.gradient_norm < 1e-10
    assert cp.energy == pytest.approx(-8.793470154177658, abs=1e-9)


def test_quasi_newton_descent_jumps_while_the_path_and_an_independent_integration_agree(saddle):
    """L-BFGS from z_TS ± 0.02 v misses one of the two basins; the integrated path ends in −14.4751 and
    −10.1507, the basins DOP853 (rtol 1e-10) reaches on a hand-written numpy gradient."""
    spec, cp = saddle
    careless = minimize_batch(spec, np.stack([_retract(cp.z, s * 0.02 * cp.mode) for s in (1, -1)]), chunk=8)
    careless_e = sorted(spec.energy(z) for z in newton_polish(spec, careless.z))
    assert not np.allclose(careless_e, sorted(TARGETS), atol=1e-6)  # the jump the path must not make

    starts = np.stack([_retract(cp.z, s * 1e-3 * cp.mode) for s in (1, -1)])
    flow = descend_batch(spec, starts, chunk=8)
    assert list(flow.status) == [1, 1] and np.all(flow.gradient_norm <= 1e-4) and np.all(flow.path_length > 0.5)
    settled = settle(spec, flow.z, eigenvalue_tol=1e-8, gradient_tol=1e-8)
    assert all(st.reason == "" for st in settled)
    ours = [st.point.energy for st in settled]
    assert sorted(ours) == pytest.approx(sorted(TARGETS), abs=1e-9)

    theirs = [spec.energy(newton_polish(spec, _independent_flow(z)[None])[0]) for z in starts]
    assert theirs == pytest.approx(ours, abs=1e-9)


def test_connect_records_the_saddle_between_the_basins_its_path_reaches(saddle):
    """connect() with the default descent joins the saddle to −14.4751 and −10.1507, says 'path' for both
    sides, credits the new minima to eigenvector following and logs the connection as events; the previous
    descent joins it elsewhere."""
    spec, cp = saddle
    joined = {}
    for descent in ("path", "quasi-newton"):
        settings = SearchSettings(descent=descent)
        store = NetworkStore(spec.fingerprint(), settings)
        connect(spec, settings, store, [cp], "eigenvector following")
        (ts,) = store.transition_states
        joined[descent] = sorted(store.minima[i].energy for i in ts.minima) if ts.verified else None
        if descent == "path":
            assert ts.verified and [d["method"] for d in ts.descents] == ["path", "path"]
            assert {m.found_by for m in store.minima} == {"eigenvector following"}
            assert all("descent from the saddle at V = -8.79347" in m.found_detail for m in store.minima)
            kinds = [e.kind for e in store.events]
            assert kinds.count("new minimum") == 2 and kinds[-2:] == ["new transition state", "connection"]
            assert store.events[-1].minima == tuple(ts.minima) and store.effort().verified_ts == 1
    assert joined["path"] == pytest.approx(sorted(TARGETS), abs=1e-9)
    assert joined["quasi-newton"] is None or not np.allclose(joined["quasi-newton"], sorted(TARGETS), atol=1e-6)


def test_settle_refuses_a_path_that_ends_on_a_saddle(saddle):
    """A 'path end' placed on the saddle itself is not a minimum: settle says so instead of accepting it."""
    spec, cp = saddle
    (st,) = settle(spec, cp.z[None], eigenvalue_tol=1e-8, gradient_tol=1e-8)
    assert st.point.index == 1 and st.end.index == 1 and "not a minimum" in st.reason
    assert math.isfinite(st.point.energy)


def test_one_start_at_a_time_reaches_what_the_vmapped_lanes_reach():
    """Guards the CPU rule of ``optimize.batch_size``: from N·d = SERIAL_COORDINATES up the while-loop kernels run one
    start at a time, below it in padded vmapped batches; at N = 32, d = 16 (N·d = 512) the serial steepest-descent
    paths and L-BFGS runs end at the same minima as the 8-row vmapped kernels (energies to 1e-9, same status)."""
    import jax

    from contrastive_bounds.numerics.landscapes.network.descent import flow_kernel
    from contrastive_bounds.numerics.landscapes.network.optimize import SERIAL_COORDINATES, batch_size, minimizer, \
        padded_size

    big, small = infonce_spec(32, 16, 0.1), infonce_spec(6, 3, 0.1)
    assert 32 * 16 >= SERIAL_COORDINATES > 6 * 3
    cpu = jax.default_backend() == "cpu"
    assert batch_size(big, 20, 8) == (1 if cpu else padded_size(20, 8))
    assert batch_size(small, 20, 8) == padded_size(20, 8) == 8
    z = np.random.default_rng(3).normal(size=(4, 32, 16))
    z /= np.linalg.norm(z, axis=-1, keepdims=True)
    flow = descend_batch(big, z, chunk=8)
    lanes = flow_kernel(big, 8, ())(np.concatenate([z, z]))
    assert np.all(np.asarray(flow.status) == 1) and np.array_equal(np.asarray(flow.status), np.asarray(lanes[4])[:4])
    assert np.allclose(np.asarray(flow.energy), np.asarray(lanes[1])[:4], rtol=0, atol=1e-9)
    res = minimize_batch(big, z, chunk=8)
    ref = minimizer(big, 8)(np.concatenate([z, z]))
    assert np.array_equal(np.asarray(res.status), np.asarray(ref[4])[:4])
    assert np.allclose(np.asarray(res.energy), np.asarray(ref[1])[:4], rtol=0, atol=1e-9)
