"""The Hessian-free curvature provider in the network search: it reproduces the dense reference's networks on the
small table's rows (docs/data/landscape-values.json, docs/reference-values.md), classifies as the dense provider
does, holds no (N·d)² array in its compiled functions, and is the automatic choice above HESSFREE_THRESHOLD."""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network
from contrastive_bounds.numerics.landscapes.network.constants import HESSFREE_THRESHOLD
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, PROVIDERS, curvature_provider, \
    default_curvature
from contrastive_bounds.numerics.landscapes.network.hessfree_curvature import HESSFREE, newton_cg_polisher, \
    modes_off_symmetry
from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
from contrastive_bounds.numerics._sphere import uniform

ROOT = Path(__file__).resolve().parents[4]
VALUES = json.loads((ROOT / "docs" / "data" / "landscape-values.json").read_text())


def _row(n, d, tau):
    (e,) = [e for e in VALUES["table"] if (e["num_points"], e["dim"], e["tau"], e["radius"]) == (n, d, tau, 1.0)]
    return e


def test_the_provider_is_registered_and_chosen_above_the_threshold():
    """"hessfree" is a registered provider; the automatic choice is dense up to N·d = HESSFREE_THRESHOLD and
    Hessian-free above; the budgeted settings come with it."""
    assert PROVIDERS["hessfree"] is HESSFREE and curvature_provider("hessfree") is HESSFREE
    assert curvature_provider(None) is DENSE
    assert default_curvature(6, 3) == "dense" and default_curvature(HESSFREE_THRESHOLD, 1) == "dense"
    assert default_curvature(HESSFREE_THRESHOLD + 1, 1) == "hessfree" and default_curvature(64, 32) == "hessfree"
    assert SearchSettings.for_size(6, 3) == SearchSettings()
    big = SearchSettings.for_size(64, 32)
    assert big.structured_rule == "families" and big.trap_modes > 0 and big.max_explored > 0 and big.multiplicities
    with pytest.raises(ValueError, match="trap_modes"):
        SearchSettings(trap_modes=-1)
    with pytest.raises(ValueError, match="structured_rule"):
        SearchSettings(structured_rule="all")
    assert modes_off_symmetry(6, 3, 3) == 9


@pytest.mark.slow
def test_hessfree_classification_agrees_with_the_dense_one():
    """At InfoNCE minima (N = 6, d = 3, τ = 0.1) from random starts, and at a minimum kicked off by 0.02 rad (not
    critical), the Hessian-free classification gives the dense provider's kind, index, energy and gradient norm,
    its lowest eigenvalues to 1e-7 and complete_spectrum False; its Newton–CG polish reaches |grad V| <= 1e-12;
    its stiffest eigenvalue (Lanczos on −Hess V) is the dense one's largest |λ| to 1e-8."""
    spec = infonce_spec(6, 3, 0.1)
    z0 = uniform(np.random.default_rng(3), (3, 6, 3))
    res = minimize_batch(spec, z0, chunk=8)
    zh = HESSFREE.polish(spec, res.z, chunk=8, eigenvalue_tol=1e-8)
    zd = DENSE.polish(spec, res.z, chunk=8, eigenvalue_tol=1e-8)
    kick = zh[:1] + 0.02 * np.random.default_rng(4).normal(size=zh[:1].shape)
    kick /= np.linalg.norm(kick, axis=-1, keepdims=True)
    kw = dict(expect=0, gradient_tol=1e-8, eigenvalue_tol=1e-8, chunk=8)
    hf = HESSFREE.classify(spec, np.concatenate([zh, kick]), **kw)
    de = DENSE.classify(spec, np.concatenate([zd, kick]), **kw)
    for h, d in zip(hf, de):
        assert (h.kind, h.index, h.verified) == (d.kind, d.index, d.verified)
        assert h.energy == pytest.approx(d.energy, rel=1e-10, abs=1e-10)
        assert not h.complete_spectrum and d.complete_spectrum
        k = min(3, h.eigenvalues.size)
        assert np.allclose(h.eigenvalues[:k], d.eigenvalues[:k], atol=1e-7)
    assert all(h.gradient_norm <= 1e-12 for h in hf[:3])
    assert hf[3].kind == "not critical" and hf[3].gradient_norm == pytest.approx(de[3].gradient_norm, rel=1e-8)
    assert HESSFREE.stiffest(spec, zh[0]) == pytest.approx(DENSE.stiffest(spec, zd[0]), rel=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("n, d, tau", [
    pytest.param(4, 2, 0.1, marks=pytest.mark.heavy(reason="45 s; the N = 6, τ = 0.05 row (two traps) runs always")),
    (6, 2, 0.05)])
def test_the_hessfree_search_reproduces_the_table_rows(n, d, tau):
    """The default search with curvature="hessfree" (seed 0) gives the stored dense network of the row: the same
    minima classes (energies to 1e-8, multiplicities), H* to 1e-9 and the status; every explored minimum was
    followed along all of its modes (per-trap closed), so the network is closed as the dense one is. The rows: the
    trap random starts find (N = 4 on S¹) and the two-trap row only structured starts complete (N = 6, τ = 0.05).
    About 40 s and 60 s on 2 cores (the Lanczos kernels compile per N·d)."""
    res = landscape_network(infonce_spec(n, d, tau), curvature="hessfree", seed=0, draw=False)
    stored = _row(n, d, tau)["seeds"]["0"]
    assert res.curvature == "hessfree"
    assert sorted((round(m.energy, 8), m.multiplicity) for m in res.minima) == \
        [(round(m["energy"], 8), m["multiplicity"]) for m in stored["minima"]]
    assert res.critical_height == pytest.approx(_row(n, d, tau)["critical_height"], abs=1e-9)
    assert res.status == stored["status"] == "complete"
    assert all(r["per_trap_closed"] and r["modes"] == r["of"] for r in res.exploration["explored"])
    assert not res.exploration["unexplored"]


def _shapes(jaxpr) -> list[tuple[int, ...]]:
    """Every intermediate array shape of a (closed) jaxpr, sub-jaxprs (while, cond, pjit, scan) included."""
    out = []
    inner = getattr(jaxpr, "jaxpr", jaxpr)
    for eqn in inner.eqns:
        out += [tuple(v.aval.shape) for v in eqn.outvars if hasattr(v.aval, "shape")]
        for p in eqn.params.values():
            subs = p if isinstance(p, (list, tuple)) else [p]
            for sub in subs:
                if hasattr(sub, "eqns") or hasattr(getattr(sub, "jaxpr", None), "eqns"):
                    out += _shapes(sub)
    return out


@pytest.mark.slow
def test_no_dense_hessian_in_the_hessfree_path():
    """The compiled functions of the provider — certification (two Lanczos runs), the softest modes to follow,
    Newton–CG polish, hybrid eigenvector following — hold no array of (N·d)² elements or more (N = 16, d = 8:
    (N·d)² = 16 384; the dense kernel of the same spec does, as a control)."""
    n, d = 16, 8
    spec = infonce_spec(n, d, 0.1)
    z = jnp.asarray(uniform(np.random.default_rng(0), (1, n, d)))
    key = jax.random.key(0)
    limit = (n * d) ** 2
    from contrastive_bounds.numerics.landscapes.hessfree.certify import verifier

    one = verifier(spec.potential, k=4, batched=True)
    jaxprs = {
        "verify": jax.make_jaxpr(one)(z, jax.random.split(key, 1)),
        "modes": jax.make_jaxpr(HESSFREE._modes(spec, 8))(z[0], key),
        "polish": jax.make_jaxpr(newton_cg_polisher(spec.potential, True, 4, 1e-12))(z[0]),
        "follow": jax.make_jaxpr(HESSFREE._searcher(spec, 50))(z, z, jax.random.split(key, 1), jnp.ones(1, bool)),
    }
    for name, jp in jaxprs.items():
        biggest = max(int(np.prod(s)) for s in _shapes(jp))
        assert biggest < limit, (name, biggest)
    from contrastive_bounds.numerics.landscapes.network.saddle import critical_data

    dense = jax.make_jaxpr(lambda x: critical_data(spec.potential, x, True))(z[0])
    assert max(int(np.prod(s)) for s in _shapes(dense)) >= limit


@pytest.mark.slow
@pytest.mark.heavy(reason="5-6 min; test_symmetric_modes.py's N = 8, d = 4 row checks the reduced closure against "
                          "plain following in every run")
def test_the_n64_d32_search_finds_the_closed_form_minimum_and_a_trap_sampled_modulo_symmetry_and_says_open():
    """N = 64, d = 32 (N·d = 2 048) at τ = 0.01, a reduced budget of the default search: the closed-form global
    minimum (collapsed pairs on the 32-vertex simplex, V* = −32/(31·0.01) + log 62) is found to 1e-9; the all-split
    cross-polytope template gives a verified trap at V = 1/τ + log 62 = 104.127134385 (every anchor's positive at
    −1, its 62 negatives orthogonal); the trap is explored first (non-global first) modulo its stabiliser (the
    hyperoctahedral group: 32 verified automorphisms, one point orbit, two ordered-pair orbits, one representative,
    3 Ritz vectors and 10 combinations: 26 searches for all 1 488 modes, where plain following takes 8 928), and
    verified transition states join it to the lower minimum, so it has a barrier; the exploration is stated as
    "sampled modulo symmetry, not per-trap closed (...)", H* is "open" (the global minimum is not explored:
    max_explored = 1),
    and both minima have multiplicity 1 (the whole pair-preserving group of order 32!·2^32 keeps the simplex's and
    the cross-polytope's Gram patterns)."""
    n, d, tau = 64, 32, 0.01
    res = landscape_network(infonce_spec(n, d, tau), SearchSettings.at_scale(starts=1, max_hop_rounds=0, max_explored=1,
                                                                                symmetric_modes=True),
                            draw=False)
    v_star = -32 / (31 * tau) + np.log(62)
    assert res.curvature == "hessfree" and res.closed_form["found"] is not None
    assert res.analysis.v_min == pytest.approx(v_star, abs=1e-9) and res.closed_form["below"] == []
    trap = [m for m in res.minima if abs(m.energy - (1 / tau + np.log(62))) <= 1e-9]
    assert len(trap) == 1 and trap[0].verified and trap[0].multiplicity == 1
    (row,) = res.exploration["explored"]
    assert row["minimum"] == trap[0].id and row["modes"] == row["of"] == 1488 and not row["per_trap_closed"]
    sym = row["modulo_symmetry"]
    assert sym["representatives"] == 1 and sym["directions"] == 13 and row["searches"] == 26
    assert "32 automorphisms" in sym["stabilizer"] and "1 point orbit, 2 ordered-pair orbits" in sym["stabilizer"]
    assert row["barrier"] is not None and row["barrier"] > 0
    assert all(t.verified for t in res.transition_states) and res.transition_states
    assert res.status.startswith("open:") and "not per-trap closed (32 automorphisms" in res.status
    assert [m.multiplicity for m in res.minima if abs(m.energy - v_star) <= 1e-9] == [1]
    assert "multiplicity not computed" not in " ".join(res.notes)


@pytest.mark.slow
def test_the_provider_is_recorded_and_a_resumed_search_keeps_it(tmp_path):
    """A Hessian-free search saves its provider's name in network.json; resuming it without naming a provider uses
    the saved one (not the size's default, dense at N = 4, d = 2), and naming another is refused with both names."""
    spec = infonce_spec(4, 2, 0.1)
    small = dict(starts=4, structured_starts=0, max_hop_rounds=0, draw=False, transition_states=False)
    first = landscape_network(spec, out=tmp_path, curvature="hessfree", **small)
    assert first.curvature == "hessfree"
    assert json.loads((tmp_path / "network.json").read_text())["curvature"] == "hessfree"
    again = landscape_network(spec, out=tmp_path, resume=True, **small)
    assert again.curvature == "hessfree" and [m.energy for m in again.minima] == [m.energy for m in first.minima]
    with pytest.raises(ValueError, match="curvature: saved 'hessfree', now 'dense'"):
        landscape_network(spec, out=tmp_path, resume=True, curvature="dense", **small)


@pytest.mark.slow
def test_refinement_in_padded_queues_gives_the_searches_of_one_queue():
    """The Hessian-free refinement runs its searches in queues of one padded length (so a Ctrl-C waits for one
    queue, not a whole block): 10 searches at N = 4, d = 3, τ = 0.1 in queues of 8 (8, then 2 padded to 8) end
    where the same 10 searches end in one queue of 16, and the fourth ends there when refined alone — each search's
    key is a function of its start, not of its place (one lane on CPU: bit for bit)."""
    spec = infonce_spec(4, 3, 0.1)
    rng = np.random.default_rng(3)
    z = np.stack([np.asarray(uniform(jax.random.key(k), (4, 3), jnp.float64)) for k in range(10)])
    modes = rng.normal(size=z.shape)
    modes -= np.sum(modes * z, axis=-1, keepdims=True) * z
    a = HESSFREE.refine(spec, z, modes, index=1, chunk=8, max_iter=60)
    b = HESSFREE.refine(spec, z, modes, index=1, chunk=16, max_iter=60)
    alone = HESSFREE.refine(spec, z[3:4], modes[3:4], index=1, chunk=8, max_iter=60)
    assert a.shape == z.shape and np.all(np.isfinite(a))
    if jax.default_backend() == "cpu":
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a[3], alone[0])
    else:
        np.testing.assert_allclose(a, b, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(a, axis=-1), 1.0, atol=1e-12)


@pytest.mark.slow
def test_work_spread_over_two_cpu_devices_ends_where_one_device_does():
    """With two CPU devices (the command line makes one per core) the refinement's queues and the one-at-a-time
    descents run on both at once (:mod:`~contrastive_bounds.numerics.landscapes.network.parallel`); each ends bit
    for bit where it ends with everything on one device: 20 searches at N = 4, d = 3, τ = 0.1 in three queues of 8,
    with their floor flags, and 3 steepest-descent paths at N = 32, d = 16 (N·d = 512: one start at a time). Run in
    a fresh process: the device count is fixed when JAX starts."""
    import os
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import jax, numpy as np
        jax.config.update("jax_enable_x64", True)
        from contrastive_bounds.numerics.landscapes.network import infonce_spec, parallel
        from contrastive_bounds.numerics.landscapes.network.hessfree_curvature import HESSFREE
        from contrastive_bounds.numerics.landscapes.network.descent import descend_batch
        from contrastive_bounds.numerics._sphere import uniform
        assert len(parallel.cpu_devices()) == 2
        spec = infonce_spec(4, 3, 0.1)
        z = np.stack([np.asarray(uniform(jax.random.key(k), (4, 3), jax.numpy.float64)) for k in range(20)])
        modes = np.random.default_rng(3).normal(size=z.shape)
        modes -= np.sum(modes * z, axis=-1, keepdims=True) * z
        energies = np.array([float(spec.potential(jax.numpy.asarray(x))) for x in z])
        floors = np.where(np.arange(20) < 10, -np.inf, energies - 0.01)  # the second half: just below their starts
        big = infonce_spec(32, 16, 0.1)
        starts = np.stack([np.asarray(uniform(jax.random.key(50 + k), (32, 16), jax.numpy.float64)) for k in range(3)])

        def run():
            below = [False] * 20
            ends = HESSFREE.refine(spec, z, modes, index=1, chunk=8, max_iter=60, floors=floors, below=below)
            return ends, below, descend_batch(big, starts, chunk=8, max_steps=300)

        two = run()
        parallel.cpu_devices = lambda: [jax.local_devices()[0]]
        one = run()
        assert np.all(np.isfinite(two[0])) and np.array_equal(two[0], one[0]) and two[1] == one[1]
        assert all(np.array_equal(a, b) for a, b in zip(two[2], one[2])) and np.all(two[2].steps > 0)
        assert 0 < sum(two[1]) < 20 and not any(two[1][:10])  # some searches stopped at their floor, none without one
        print("same", sum(two[1]))
    """)
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    env.pop("JAX_NUM_CPU_DEVICES", None)
    res = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0 and res.stdout.strip().startswith("same"), res.stderr[-2000:]
