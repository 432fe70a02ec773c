"""Step-size schedules in similarity descent (docs/theorems.md B3, B4: Theorem 1 for any sequence eta_t).

The forms are held to optax's schedules and to exact values; the driver to its kernel (a replayed
step with a non-constant eta_t) and to the pre-schedule driver (constant eta_t, bit for bit); the
link bounds to closed forms of the L2 recursion and to the mpmath Theorem-1 bound with S = sum eta_t.
"""

from __future__ import annotations

import math
from functools import partial

import jax
import jax.numpy as jnp
import mpmath as mp
import numpy as np
import optax
import pytest

import contrastive_bounds.numerics.alignment._descent as SD
from contrastive_bounds.numerics.alignment._descent_result import LINKS
from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
from contrastive_bounds.numerics.alignment._descent_run import chunk_batches, run_descent_chunk, run_similarity_descent
from contrastive_bounds.numerics.alignment._step_schedule import SCHEDULE_FORMS, StepSizeSchedule
from contrastive_bounds import theory as alignment
T = 40


@pytest.mark.parametrize("schedule,reference", [
    (StepSizeSchedule("cosine", {"final_fraction": 0.05}, warmup_steps=6, warmup_start=0.1),
     optax.warmup_cosine_decay_schedule(0.1, 1.0, 6, T, 0.05)),
    (StepSizeSchedule("cosine", {"decay_steps": 25}), optax.cosine_decay_schedule(1.0, 25, 0.0)),
    (StepSizeSchedule("linear", {"final_fraction": 0.2}), optax.linear_schedule(1.0, 0.2, T)),
    (StepSizeSchedule("polynomial", {"power": 2.0, "final_fraction": 0.01, "decay_steps": 30}),
     optax.polynomial_schedule(1.0, 0.01, 2.0, 30)),
    (StepSizeSchedule("step", {"gamma": 0.5, "period": 7}), optax.exponential_decay(1.0, 7, 0.5, staircase=True)),
    (StepSizeSchedule("exponential", {"gamma": 0.8, "period": 3.0}), optax.exponential_decay(1.0, 3, 0.8)),
], ids=["warmup_cosine", "cosine", "linear", "polynomial", "step", "exponential"])
def test_forms_equal_optax(schedule, reference):
    """Each form (and the linear warm-up) equals optax's schedule of the same name at every step, to 1e-12."""
    expected = np.array([float(reference(t)) for t in range(T)])
    np.testing.assert_allclose(schedule.multipliers(T), expected, rtol=1e-12, atol=1e-15)
    assert np.ptp(expected) > 0.1  # a real schedule, not a constant


def test_inverse_forms_and_scaling_are_exact():
    """inverse-sqrt and inverse-time at exact points (1/sqrt(1 + t/t0), 1/(1 + t/t0)), a warm-up ramp, and
    eta_t = step_size * f(t); constant gives step_size itself at every step."""
    isq = StepSizeSchedule("inverse-sqrt").multipliers(16)
    assert isq[3] == 0.5 and isq[15] == 0.25 and isq[0] == 1.0
    inv = StepSizeSchedule("inverse-time", {"t0": 2.0}, warmup_steps=4).multipliers(10)
    np.testing.assert_array_equal(inv[:4], [0.0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(inv[4:], 1.0 / (1.0 + np.arange(6) / 2.0), rtol=0, atol=0)
    assert np.array_equal(StepSizeSchedule().step_sizes(0.37, 5), np.full(5, 0.37))
    arr = StepSizeSchedule.from_array([0.5, 0.0, 2.0])
    assert np.array_equal(arr.step_sizes(3.0, 3), [1.5, 0.0, 6.0])


@pytest.mark.parametrize("make,match", [
    (lambda: StepSizeSchedule("cosinus"), r"^form='cosinus' is not a step-size schedule"),
    (lambda: StepSizeSchedule("step", {"gamma": 0.5}), r"needs period="),
    (lambda: StepSizeSchedule("step", {"gamma": 1.5, "period": 3}), r"^gamma=1.5 is outside its domain \(0, 1\]"),
    (lambda: StepSizeSchedule("cosine", {"alpha": 0.1}), r"^alpha= is not a parameter of the 'cosine' schedule"),
    (lambda: StepSizeSchedule("inverse-sqrt", {"t0": -1}), r"^t0=-1 is outside"),
    (lambda: StepSizeSchedule("constant", warmup_steps=-2), r"^warmup_steps=-2"),
    (lambda: StepSizeSchedule("constant", warmup_start=1.5), r"^warmup_start=1.5"),
    (lambda: StepSizeSchedule.from_array([1.0, float("nan")]), r"^step_sizes\[1\]=nan must be finite and >= 0"),
    (lambda: StepSizeSchedule.from_array([1.0, -0.1]), r"^step_sizes\[1\]=-0.1"),
    (lambda: StepSizeSchedule.from_array(np.ones((2, 2))), r"^step_sizes must be a non-empty 1-D array"),
    (lambda: StepSizeSchedule.from_array([]), r"^step_sizes must be a non-empty 1-D array"),
    (lambda: StepSizeSchedule("array", values=[1.0], warmup_steps=2), r"^warmup_steps must be 0"),
    (lambda: StepSizeSchedule("constant", warmup_steps=10).multipliers(10), r"^warmup_steps=10 must be below steps=10"),
    (lambda: StepSizeSchedule("cosine", {"decay_steps": 9}, warmup_steps=2).multipliers(10), r"^decay_steps=9 exceeds"),
    (lambda: StepSizeSchedule.from_array([1.0, 2.0]).multipliers(3), r"^step_sizes has 2 values but the run has steps=3"),
    (lambda: StepSizeSchedule.from_array([1e300]).step_sizes(1e10, 1), r"overflows float64"),
])
def test_bad_schedules_name_the_parameter(make, match):
    """Every malformed schedule raises ValueError naming the parameter and its domain (never a NaN sequence)."""
    with pytest.raises(ValueError, match=match):
        make()


def test_schedule_identity_and_config_validation():
    """Schedules compare by what they give; DescentConfig refuses a schedule that does not fit its steps."""
    a = StepSizeSchedule("step", {"gamma": 0.5, "period": 3})
    assert a == StepSizeSchedule("step", {"period": 3, "gamma": 0.5}) and hash(a) == hash(StepSizeSchedule(
        "step", {"gamma": 0.5, "period": 3}))
    assert a != StepSizeSchedule("step", {"gamma": 0.5, "period": 4})
    assert StepSizeSchedule.from_array([1, 2]) != StepSizeSchedule.from_array([1, 3])
    assert set(SCHEDULE_FORMS) >= {"constant", "step", "cosine", "inverse-sqrt", "array"}
    with pytest.raises(ValueError, match=r"^step_sizes has 3 values but the run has steps=5"):
        DescentConfig(batch_size=4, steps=5, schedule=StepSizeSchedule.from_array([1, 2, 3])).validate(8)
    with pytest.raises(ValueError, match="schedule must be a StepSizeSchedule"):
        DescentConfig(batch_size=4, steps=5, schedule="cosine").validate(8)


@partial(jax.jit, static_argnames=("unique",))
def _pre_schedule_scan(state, batches, labels, tau, step_size, *, unique):
    """The scan of the driver as it was before schedules: a scalar step size closed over by the body."""
    return jax.lax.scan(lambda s, b: SD.descent_step(s, b, labels, tau=tau, step_size=step_size, unique=unique),
                        state, batches)


def _pre_schedule_run(s0, lab, cfg):
    """The pre-schedule driver loop (same chunks, d^2 recomputed at each chunk start)."""
    labels = jnp.asarray(lab)
    key = jax.random.key(cfg.seed)
    st = SD.DescentState(jnp.asarray(s0), jnp.asarray(s0), jnp.zeros((), s0.dtype))
    recs = []
    for start in range(0, cfg.steps, cfg.chunk_size):
        count = min(cfg.chunk_size, cfg.steps - start)
        batches = chunk_batches(key, labels, start, count=count, batch_size=cfg.batch_size, replace=cfg.replace,
                                stratified=False, num_classes=int(lab.max()) + 1)
        diff = st.sigma_cl - st.sigma_nscl
        st = st._replace(d2=jnp.sum(diff * diff))
        st, rec = _pre_schedule_scan(st, batches, labels, jnp.asarray(cfg.tau, s0.dtype),
                                     jnp.asarray(cfg.step_size, s0.dtype), unique=not cfg.replace)
        recs.append(np.asarray(rec.distance))
    return np.asarray(st.sigma_cl), np.asarray(st.sigma_nscl), np.concatenate(recs)


@pytest.mark.parametrize("replace", [False, True])
@pytest.mark.slow
def test_constant_step_reproduces_the_pre_schedule_driver_bit_for_bit(replace):
    """Without a schedule, with the 'constant' schedule and with an array of equal values the run equals the
    pre-schedule driver (scalar eta in the scan body) bit for bit: states and distance records."""
    s0, lab = make_problem(24, 3, dim=5, seed=4)
    base = dict(batch_size=8, steps=20, tau=0.4, step_size=1.7, seed=6, chunk_size=10, replace=replace,
                empty_negatives="exclude")
    ref_cl, ref_nscl, ref_d = _pre_schedule_run(s0, lab, DescentConfig(**base))
    for schedule in (None, StepSizeSchedule("constant"), StepSizeSchedule.from_array(np.ones(20))):
        res = run_similarity_descent(s0, lab, DescentConfig(**base, schedule=schedule))
        assert np.array_equal(res.sigma_cl, ref_cl) and np.array_equal(res.sigma_nscl, ref_nscl)
        assert np.array_equal(res.distance[1:], ref_d)
        assert np.array_equal(res.step_sizes, np.full(20, 1.7)) and res.eta_sum == pytest.approx(20 * 1.7, rel=1e-15)


@pytest.mark.slow
def test_replayed_step_equals_the_driver_with_a_non_constant_eta():
    """Step k of a scheduled run, replayed with descent_step from the driver's state at k, its batch and eta_k,
    gives the driver's state at k + 1 and its record (the schedule value of step k, not of another step)."""
    s0, lab = make_problem(24, 3, dim=5, seed=2)
    sched = StepSizeSchedule("step", {"gamma": 0.3, "period": 4}, warmup_steps=2, warmup_start=0.2)
    k = 10
    cfg = dict(batch_size=8, steps=20, tau=0.5, step_size=2.5, seed=11, schedule=sched, chunk_size=10)
    before = run_similarity_descent(s0, lab, DescentConfig(**cfg), max_chunks=1)
    after = run_similarity_descent(s0, lab, DescentConfig(**cfg), trajectory_every=11)
    etas = sched.step_sizes(2.5, 20)
    assert len({etas[0], etas[k - 1], etas[k]}) == 3  # a step where eta_t differs from its neighbours' and eta_0
    batch = chunk_batches(jax.random.key(11), jnp.asarray(lab), k, count=1, batch_size=8, replace=False,
                          stratified=False, num_classes=3)[0]
    st = SD.DescentState(jnp.asarray(before.sigma_cl), jnp.asarray(before.sigma_nscl),
                         jnp.asarray(float(np.sum((before.sigma_cl - before.sigma_nscl) ** 2))))
    step = jax.jit(SD.descent_step, static_argnames=("unique",))
    new, rec = step(st, batch, jnp.asarray(lab), tau=0.5, step_size=float(etas[k]), unique=True)
    assert after.trajectory["steps"][1] == k + 1
    np.testing.assert_allclose(np.asarray(new.sigma_cl), after.trajectory["sigma_cl"][1], rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.asarray(new.sigma_nscl), after.trajectory["sigma_nscl"][1], rtol=0, atol=1e-15)
    assert float(rec.mismatch) == pytest.approx(after.records["mismatch"][k], rel=1e-12)
    assert float(rec.distance) == pytest.approx(after.distance[k + 1], rel=1e-12)
    wrong, _ = step(st, batch, jnp.asarray(lab), tau=0.5, step_size=float(etas[k - 1]), unique=True)
    assert np.max(np.abs(np.asarray(wrong.sigma_cl) - after.trajectory["sigma_cl"][1])) > 1e-6


@pytest.mark.parametrize("schedule", [
    StepSizeSchedule("step", {"gamma": 0.5, "period": 10}),
    StepSizeSchedule("inverse-sqrt", {"t0": 3.0}, warmup_steps=5),
    StepSizeSchedule("cosine", {"final_fraction": 0.0}),
], ids=["step", "inverse_sqrt_warmup", "cosine_to_zero"])
def test_links_hold_along_a_decaying_schedule(schedule):
    """B4 with a decaying eta_t: every link bounds d_t at every step, L1 holds per step, the chain is ordered
    at every step, the slack budget sums to log10(bound / d_T), and S in the bounds is sum eta_t."""
    s0, lab = make_problem(60, 10, seed=5)
    res = run_similarity_descent(s0, lab, DescentConfig(batch_size=40, steps=40, tau=0.5, step_size=3.0,
                                                        chunk_size=20, seed=1, schedule=schedule))
    assert all(res.link_holds().values()), res.link_holds()
    b = np.array([res.bounds_log10[k][1:] for k in LINKS])
    finite = np.isfinite(b).all(axis=0)
    assert np.all(np.diff(b[:, finite], axis=0) >= -1e-12)
    budget = res.slack_budget()
    assert sum(budget.values()) == pytest.approx(res.bounds_log10["theorem1"][-1] - math.log10(res.distance[-1]),
                                                 rel=1e-12)
    etas = schedule.step_sizes(3.0, 40)
    assert res.eta_sum == math.fsum(etas.tolist()) and res.summary()["eta_sum"] == res.eta_sum
    assert np.ptp(etas) > 1.0
    # Theorem 1 with S = sum eta_t, mpmath closed form of docs/reference-values.md C02 (pi_max form)
    ref = alignment.FROBENIUS.evaluate(tau=0.5, batch_size=40, pi_max=res.pi_max, delta=0.05, steps=40,
                                       eta_sum=res.eta_sum)
    assert res.bounds_log10["theorem1"][-1] == pytest.approx(float(mp.log10(ref.value)), abs=1e-12)


def test_l2_recursion_closed_form_for_the_inverse_time_schedule():
    """With eta_t = 1/(a (t + 1)) (inverse-time, t0 = 1, peak 1/a = 2 tau^2 B) the L2 recursion telescopes:
    1 + a eta_t = (t + 2)/(t + 1), so b_T = c T / a exactly, while the Groenwall product gives
    c (T + 1) H_T / a and Theorem 1 c H_T e^{H_T} / a (H_T the harmonic number); the driver's bounds
    equal these to 1e-12 at every step, and so does the constant-eta closed form b_T = (c/a)((1 + a eta)^T - 1)."""
    s0, lab = make_problem(60, 10, seed=3)
    tau, b, steps = 1.0, 40, 40
    a = 1 / (2 * tau * tau * b)
    res = run_similarity_descent(s0, lab, DescentConfig(batch_size=b, steps=steps, tau=tau, step_size=1 / a, seed=2,
                                                        chunk_size=20,
                                                        schedule=StepSizeSchedule("inverse-time", {"t0": 1.0})))
    mp.mp.dps = 40
    c = mp.mpf(10) ** mp.mpf(res.delta_log10) / (mp.mpf(tau) * mp.sqrt(b))
    for t in range(1, steps + 1):
        h = mp.harmonic(t)
        expected = {"L2": c * t / a, "L3": c * (t + 1) * h / a, "theorem1": c * h * mp.e ** h / a}
        for link, value in expected.items():
            assert res.bounds_log10[link][t] == pytest.approx(float(mp.log10(value)), abs=1e-12), (link, t)
    eta = 0.9
    l2 = alignment.link_l2_log10(np.full(25, eta), tau=tau, batch_size=b, delta_value=1.0)
    c1 = 1 / (mp.mpf(tau) * mp.sqrt(b))
    for t in (1, 7, 25):
        closed = c1 / a * ((1 + a * mp.mpf(eta)) ** t - 1)
        assert l2[t] == pytest.approx(float(mp.log10(closed)), abs=1e-13)


def test_schedules_share_one_compilation(compile_count):
    """The schedule is data of the scan: runs with other forms, warm-ups or arrays (same shapes) compile nothing."""
    s0, lab = make_problem(24, 3, dim=4, seed=0)
    base = dict(batch_size=8, steps=20, chunk_size=20, tau=0.3)
    run_similarity_descent(s0, lab, DescentConfig(**base))
    with compile_count() as compiles:
        for sched in (StepSizeSchedule("cosine", warmup_steps=3), StepSizeSchedule("step", {"gamma": 0.1, "period": 2}),
                      StepSizeSchedule.from_array(np.linspace(0, 2, 20))):
            run_similarity_descent(s0, lab, DescentConfig(**base, step_size=2.0, schedule=sched))
    assert compiles.names == []


def test_run_descent_chunk_takes_a_scalar_or_one_eta_per_batch():
    """run_descent_chunk broadcasts a scalar eta and refuses a sequence of the wrong length, naming step_size."""
    s0, lab = make_problem(8, 2, dim=4, seed=0)
    st = SD.DescentState(jnp.asarray(s0), jnp.asarray(s0), jnp.zeros(()))
    batches = jnp.asarray([[0, 1, 2, 3], [4, 5, 6, 7]], jnp.int32)
    with pytest.raises(ValueError, match=r"^step_size must be a scalar or have shape \(2,\)"):
        run_descent_chunk(st, batches, jnp.asarray(lab), 0.5, jnp.ones(3))


@pytest.mark.slow
def test_checkpoint_resume_with_a_schedule_and_trajectory(tmp_path):
    """A scheduled run with a trajectory resumed from its checkpoint equals the uninterrupted run (states,
    records, trajectory); another schedule's checkpoint is refused; the trajectory changes no value and its
    records are the states of shorter runs."""
    s0, lab = make_problem(24, 3, dim=5, seed=1)
    cfg = DescentConfig(batch_size=8, steps=25, tau=0.6, step_size=1.2, seed=4, chunk_size=10,
                        schedule=StepSizeSchedule("cosine", {"final_fraction": 0.1}, warmup_steps=4))
    full = run_similarity_descent(s0, lab, cfg, trajectory_every=3)
    plain = run_similarity_descent(s0, lab, cfg)
    assert np.array_equal(full.sigma_cl, plain.sigma_cl) and np.array_equal(full.records["mismatch"],
                                                                            plain.records["mismatch"])
    assert full.trajectory["steps"].tolist() == [0, 3, 6, 9, 12, 15, 18, 21, 24, 25]
    assert np.array_equal(full.trajectory["sigma_cl"][-1], full.sigma_cl)
    assert np.array_equal(full.trajectory["sigma_cl"][0], s0)
    ck = str(tmp_path / "run.npz")
    part = run_similarity_descent(s0, lab, cfg, checkpoint=ck, max_chunks=2, trajectory_every=3)
    assert part.steps_done == 20
    resumed = run_similarity_descent(s0, lab, cfg, checkpoint=ck, trajectory_every=3)
    for key in ("steps", "sigma_cl", "sigma_nscl"):
        assert np.array_equal(resumed.trajectory[key], full.trajectory[key])
    assert np.array_equal(resumed.distance, full.distance)
    other = DescentConfig(**{**cfg.__dict__, "schedule": StepSizeSchedule("cosine", warmup_steps=4)})
    with pytest.raises(ValueError, match="different run"):
        run_similarity_descent(s0, lab, other, checkpoint=ck, trajectory_every=3)
    with pytest.raises(ValueError, match=r"^trajectory_every=0"):
        run_similarity_descent(s0, lab, cfg, trajectory_every=0)
