"""Similarity descent against plain SGD (docs/theorems.md B9): gradient identities, eta_eff, exactness, resume, bad input."""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.alignment._descent import DescentState, descent_step
from contrastive_bounds.numerics.alignment._descent_gradients import batch_loss_on_sigma
from contrastive_bounds.numerics.alignment._eta_eff import (
    batch_rows, estimate_eta_eff, first_order_terms, orthonormal_fit_expansion, symmetric_block_gradients)
from contrastive_bounds.numerics.alignment._proxy import ProxyConfig, run_proxy_comparison
from contrastive_bounds.numerics.alignment._sgd import (
    SGDConfig, TrainingDivergedError, batch_for_step, check_reference_memory, init_model, load_reference_set,
    pair_losses, reference_sigma, run_keys, sgd_pair_step)
from contrastive_bounds import theory as alignment
MLP = SGDConfig(model="mlp", reference_size=16, batch_size=8, learning_rate=0.05, steps=12, hidden=8, feature_dim=8,
                projection_dim=4, num_classes=4)
FREE = SGDConfig(model="free", reference_size=8, batch_size=4, learning_rate=0.01, steps=1, projection_dim=16,
                 num_classes=4)
RUN = ProxyConfig(sgd=MLP, record_every=2, records_per_chunk=3, fit_steps=2)


@pytest.fixture(scope="module")
def mlp_setup():
    ref = load_reference_set(MLP)
    p0 = init_model(MLP)
    batch = batch_for_step(run_keys(MLP.seed)["batches"], ref.labels, MLP.batch_size, 0)
    return ref, p0, batch


@pytest.fixture(scope="module")
def full_run():
    return run_proxy_comparison(RUN)


def _scatter(block: jax.Array, rows: jax.Array, m: int) -> np.ndarray:
    out = np.zeros((m, m))
    r = np.asarray(rows)
    out[np.ix_(r, r)] = np.asarray(block)
    return out


@pytest.mark.parametrize("kind", ["cl", "nscl"])
@pytest.mark.slow
def test_proxy_step_is_the_autodiff_gradient_of_the_batch_loss_in_sigma(mlp_setup, kind):
    """The proxy moves Sigma by -eta (G + G^T)/2 with G = d(batch loss)/d(Sigma) (ordered pairs, B3), at float64."""
    ref, p0, batch = mlp_setup
    sigma = reference_sigma(p0, ref)
    m, n = sigma.shape[0], MLP.reference_size
    g_auto = np.asarray(jax.grad(lambda s: batch_loss_on_sigma(s, batch, ref.labels, tau=MLP.tau, kind=kind))(sigma))
    rows = batch_rows(batch, n)
    blk = sigma[rows][:, rows]
    gs = symmetric_block_gradients(blk, blk, batch, ref.labels, MLP.tau)[0 if kind == "cl" else 1]
    sym_auto = 0.5 * (g_auto + g_auto.T)
    np.testing.assert_allclose(_scatter(gs, rows, m), sym_auto, rtol=0, atol=1e-14 * np.abs(sym_auto).max())
    eta = 0.3
    state = DescentState(sigma, sigma, jnp.zeros(()))
    new, rec = descent_step(state, batch, ref.labels, tau=MLP.tau, step_size=eta, symmetrize=True, unique=True)
    assert float(rec.max_abs_preclip) > 1.0  # this step clips some entries: the reference clips them too
    moved = np.asarray(new.sigma_cl if kind == "cl" else new.sigma_nscl)
    s = np.asarray(sigma)
    np.testing.assert_allclose(moved, np.clip(s - eta * sym_auto, -1.0, 1.0), rtol=0, atol=1e-15)


@pytest.mark.parametrize("kind", ["cl", "nscl"])
@pytest.mark.slow
def test_training_loss_is_the_sigma_loss_and_its_gradient_the_chain_rule(mlp_setup, kind):
    """With fixed views the SGD batch loss equals the B3 loss of the reference Sigma(theta), and its parameter
    gradient is J^T Gs (the vector-Jacobian product of Sigma(theta) with the symmetrised proxy gradient)."""
    ref, p0, batch = mlp_setup
    sigma = reference_sigma(p0, ref)
    tau = jnp.asarray(MLP.tau)
    loss_z = float(pair_losses(p0, batch, ref, MLP, tau, kind))
    loss_s = float(batch_loss_on_sigma(sigma, batch, ref.labels, tau=MLP.tau, kind=kind))
    assert loss_z == pytest.approx(loss_s, rel=1e-13)
    rows = batch_rows(batch, MLP.reference_size)
    gs = symmetric_block_gradients(sigma[rows][:, rows], sigma[rows][:, rows], batch, ref.labels, MLP.tau)
    g = gs[0 if kind == "cl" else 1]
    direct = jax.grad(pair_losses)(p0, batch, ref, MLP, tau, kind)
    chain = jax.grad(lambda p: jnp.sum(g * reference_sigma(p, ref)[rows][:, rows]))(p0)
    for a, b in zip(jax.tree_util.tree_leaves(direct), jax.tree_util.tree_leaves(chain)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-13 * float(jnp.max(jnp.abs(a))) + 1e-300)


@pytest.mark.slow
def test_eta_eff_known_case_is_four_eta_with_the_derived_orders():
    """Free orthonormal embeddings: NTK gain exactly 4; the fitted eta_eff minus 4 eta - 4 eta^2 tr(Gs^3)/||Gs||^2
    shrinks as eta^3, eta_fit/eta - 4 as eta, and ||dSigma + 4 eta Gs|| as eta^2 (derived in eta_eff's docstring)."""
    fit_err, gain_err, resid = [], [], []
    for lr in (0.01, 0.005):
        cfg = dataclasses.replace(FREE, learning_rate=lr)
        ref, p0 = load_reference_set(cfg), init_model(cfg)
        s0 = reference_sigma(p0, ref)
        np.testing.assert_allclose(np.asarray(s0), np.eye(cfg.m), atol=1e-14)  # orthonormal start
        est = estimate_eta_eff(cfg, ref, p0, fit_steps=1)
        assert est.per_model["cl"]["eta_ntk"] / lr == pytest.approx(4.0, rel=1e-12)
        batch = batch_for_step(run_keys(cfg.seed)["batches"], ref.labels, cfg.batch_size, 0)
        rows = batch_rows(batch, cfg.reference_size)
        gs = symmetric_block_gradients(s0[rows][:, rows], s0[rows][:, rows], batch, ref.labels, cfg.tau)[0]
        c1, c2 = orthonormal_fit_expansion(np.asarray(gs))
        assert c1 == 4.0 and c2 != 0.0
        fit = est.per_model["cl"]["eta_fit"]
        fit_err.append(abs(fit - (4 * lr + c2 * lr * lr)))
        gain_err.append(abs(fit / lr - 4.0))
        new, _, _, _ = sgd_pair_step(p0, p0, batch, ref, cfg, jnp.asarray(cfg.tau), jnp.asarray(lr))
        ds = np.asarray(reference_sigma(new, ref) - s0)
        resid.append(np.linalg.norm(ds + 4 * lr * _scatter(gs, rows, cfg.m)))
    assert 2.7 <= math.log2(fit_err[0] / fit_err[1]) <= 3.3
    assert 0.8 <= math.log2(gain_err[0] / gain_err[1]) <= 1.2
    assert 1.8 <= math.log2(resid[0] / resid[1]) <= 2.2


def test_orthonormal_fit_expansion_rejects_bad_input():
    """A non-symmetric or zero Gs has no expansion: ValueError, never NaN."""
    with pytest.raises(ValueError, match="symmetric"):
        orthonormal_fit_expansion(np.array([[0.0, 1.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="zero"):
        orthonormal_fit_expansion(np.zeros((3, 3)))


@pytest.mark.slow
def test_least_squares_gain_tends_to_the_ntk_gain_on_the_mlp(mlp_setup):
    """eta_fit/eta -> ||J^T Gs||^2/||Gs||^2 as eta -> 0 on the ReLU network: the gap halves with eta."""
    ref, p0, _ = mlp_setup
    gaps = []
    for lr in (1e-4, 5e-5):
        t = first_order_terms(p0, p0, ref, dataclasses.replace(MLP, learning_rate=lr), 2)[0]
        fit, ntk = -t[:, 0].sum() / t[:, 1].sum() / lr, t[:, 3].sum() / t[:, 1].sum()
        gaps.append(abs(fit / ntk - 1))
    assert gaps[0] < 1e-2
    assert 1.8 <= gaps[0] / gaps[1] <= 2.2  # first order in eta


@pytest.mark.slow
def test_same_seed_gives_identical_sigma_trajectories_whatever_the_chunking(full_run):
    """Shared randomness is exact: same seed -> bitwise the same records and final Sigma's, also with other chunks."""
    again = run_proxy_comparison(dataclasses.replace(RUN, records_per_chunk=2))
    for key, v in full_run.records.items():
        np.testing.assert_array_equal(v, again.records[key], err_msg=key)
    for name in ("sigma_cl", "sigma_nscl", "proxy_cl", "proxy_nscl"):
        np.testing.assert_array_equal(getattr(full_run, name), getattr(again, name))
    other = run_proxy_comparison(dataclasses.replace(RUN, sgd=dataclasses.replace(MLP, seed=1)))
    assert not np.array_equal(other.records["d_real"], full_run.records["d_real"])


@pytest.mark.slow
def test_checkpoint_resume_is_identical_and_refuses_another_run(tmp_path, full_run):
    """A run stopped after one chunk resumes from its checkpoint to the same numbers; another config is refused."""
    ck = str(tmp_path / "run.ckpt.npz")
    part = run_proxy_comparison(RUN, checkpoint=ck, max_chunks=1)
    assert not part.complete and part.steps_done == 6
    done = run_proxy_comparison(RUN, checkpoint=ck)
    assert done.complete
    for key, v in full_run.records.items():
        np.testing.assert_array_equal(v, done.records[key], err_msg=key)
    np.testing.assert_array_equal(full_run.sigma_nscl, done.sigma_nscl)
    assert done.eta == full_run.eta
    with pytest.raises(ValueError, match=r"different run \(its configuration differs: tolerance: 0.1 in the checkpoint, "
                                          r"0.2 now\)"):
        run_proxy_comparison(dataclasses.replace(RUN, tolerance=0.2), checkpoint=ck)


def test_run_records_are_consistent(full_run):
    """Records: Sigma stays a cosine Gram, the proxy's d_t and CKA equal those of its final matrices, and the
    fidelity is err/move; the verdict names both losses."""
    r = full_run
    assert np.all(r.records["sigma_defect"] <= 1e-12)
    assert r.records["d_proxy"][-1] == pytest.approx(np.linalg.norm(r.proxy_cl - r.proxy_nscl), rel=1e-12)
    assert r.records["d_real"][-1] == pytest.approx(np.linalg.norm(r.sigma_cl - r.sigma_nscl), rel=1e-12)
    f = r.final_metrics()
    assert f["cka_real_gram"] == pytest.approx(f["cka_real_features"], abs=1e-12)
    assert f["cka_proxy_gram"] == pytest.approx(f["cka_proxy_recorded"], abs=1e-12)
    np.testing.assert_allclose(r.fidelity()["cl"], r.records["err_cl"] / r.records["move_cl"])
    assert "CL:" in r.verdict() and "NSCL:" in r.verdict()


def test_theorem1_on_real_training_matches_the_bound_object(full_run):
    """Theorem 1 with S = T eta_eff from the per-step numerics equals the symbolic alignment.frobenius (mpmath)."""
    t = full_run.theorem1_real()
    sym = alignment.FROBENIUS.evaluate(tau=MLP.tau, pi_max=full_run.pi_max, batch_size=MLP.batch_size, steps=MLP.steps,
                                       delta=RUN.delta, eta_sum=t["eta_sum"])
    assert t["bounds_log10"]["theorem1"] == pytest.approx(sym.log10, rel=1e-10)
    b = t["bounds_log10"]
    assert b["L2"] <= b["L3"] <= b["theorem1"]
    assert all(t["holds"].values()) and t["l1_real_holds"]
    assert t["slack_log10"]["L2"] == pytest.approx(b["L2"] - math.log10(t["d_T_real"]), rel=1e-12)


def test_tracking_reports_where_the_proxy_stops(full_run):
    """tracking(): last step within tolerance and the first above it, from the recorded errors."""
    r = dataclasses.replace(full_run)
    r.records = dict(r.records)
    steps = r.records["step"]
    r.records["err_cl"] = np.array([0.01, 0.05, 0.2, 0.05, 0.3, 0.4]) * r.records["move_cl"]
    t = r.tracking(0.1)["cl"]
    assert (t["within_until"], t["first_above"]) == (int(steps[1]), int(steps[2]))
    assert r.tracking(0.5)["cl"]["first_above"] is None
    r.records["err_cl"] = 0.9 * r.records["move_cl"]
    assert r.tracking(0.1)["cl"]["within_until"] == 0 and "never within" in r.verdict(0.1)


@pytest.mark.parametrize("lr, what", [(1e100, "non-finite loss or parameters"), (1e40, "no longer a cosine Gram")])
@pytest.mark.slow
def test_divergence_is_reported_with_step_and_learning_rate(lr, what):
    """SGD that overflows (NaN loss) or whose embedding norms overflow (Sigma's diagonal leaves 1 while the loss
    looks finite) raises with the step and the learning rate; it is never returned as a result."""
    with pytest.raises(TrainingDivergedError, match=what) as info:
        run_proxy_comparison(dataclasses.replace(RUN, sgd=dataclasses.replace(MLP, learning_rate=lr), fit_steps=1))
    err = info.value
    assert err.step == 1 and err.learning_rate == lr and f"learning_rate={lr:.6g}" in str(err)
    assert isinstance(err, ValueError)


def test_reference_set_too_large_is_refused_up_front():
    """m^2 float64 beyond the free memory: refused before any data is loaded, naming --reference-size and GiB."""
    with pytest.raises(ValueError, match=r"reference_size=1000000 \(--reference-size\) needs .* GiB"):
        run_proxy_comparison(ProxyConfig(sgd=dataclasses.replace(MLP, reference_size=10**6)))
    assert check_reference_memory(100, available=10**9) == 8 * 200 * 200 * 8
    with pytest.raises(ValueError, match="0.00238 GiB"):
        check_reference_memory(100, available=1000)


@pytest.mark.parametrize("field, value, match", [
    ("reference_size", 2000, "exceeds the"), ("batch_size", 17, "batch_size"), ("views", "fresh", "needs model='mlp'"),
    ("learning_rate", 0.0, "learning_rate"), ("dtype", "float16", "dtype")])
def test_bad_sgd_config_names_the_field(field, value, match):
    """Bad input: ValueError naming the field and its range."""
    cfg = dataclasses.replace(FREE if field == "views" else MLP, **{field: value})
    with pytest.raises(ValueError, match=match):
        load_reference_set(cfg)


def test_bad_proxy_config_names_the_field():
    """record_every, fit_steps, estimator and tolerance are validated with their names."""
    for kw, match in (({"record_every": 0}, "record_every"), ({"fit_steps": 99}, "fit_steps"),
                      ({"eta_estimator": "adam"}, "eta_estimator"), ({"tolerance": 1.5}, "tolerance"),
                      ({"eta_eff": -1.0}, "eta_eff")):
        with pytest.raises(ValueError, match=match):
            dataclasses.replace(RUN, **kw).validate()
