"""Each blind spot of the main job, shown closed: a fault of that kind is injected and a check fails.

The six kinds (docs/self-test.md): a weaker bound, an agreement whose limit is wrong, a reported
metric computed wrongly, a driver passing a rescaled argument to its kernel, an O(h) change of the
integrator, a theory object off at finite arguments. Faults come from the self-test's registry and
are applied with its hook; the checks run at small sizes (seeded, deterministic).
"""

from __future__ import annotations

import pytest

from contrastive_bounds.properties.checks._registry import registered_checks
from contrastive_bounds.properties.selftest import get_fault, substituted


def _run(check_id: str, seed: int = 0, **params):
    spec = registered_checks()[check_id]
    return spec.fn({**spec.defaults["quick"], **params}, seed)


def _under(fault_id: str, check_id: str, **params):
    with substituted(*get_fault(fault_id).substitutions):
        return _run(check_id, **params)


SMALL_DESCENT = {"num_samples": 200, "num_classes": 5, "batch_size": 32, "steps": 60}


def _red(out) -> bool:
    """Red in the main job: violated by a failed deterministic condition, or by a test whose p-value survives
    the first Holm step over the registered checks (what the self-test counts as a catch)."""
    if out.verdict != "violated":
        return False
    return bool(out.failed_conditions) or out.p_value is None or out.p_value <= 1e-3 / len(registered_checks())


@pytest.mark.slow
def test_weaker_loss_gap_bound_turns_the_check_red_though_every_gap_stays_below_it():
    """A looser bound passes 'measured <= bound' forever; the in-check closed form and C03 catch it."""
    out = _under("loss_gap.exponent", "B2.loss_gap", examples=8)
    assert out.verdict == "violated" and "DISAGREES" in out.summary
    assert out.details["worst"]["gap"] <= out.details["worst"]["bound"]  # the comparison alone would pass


@pytest.mark.slow
def test_weaker_corollary_and_weaker_theorem1_are_caught():
    """A looser CKA corollary, and Theorem 1 loosened consistently in both of its implementations."""
    assert _under("cka_lower.looser", "B5.corollaries_any_pair", examples=8).verdict == "violated"
    out = _under("theorem1.constant", "B4.theorem1", **SMALL_DESCENT)
    assert out.verdict == "violated"
    failed = [r for r in out.details["independent"] if not r["ok"]]
    assert any("C02" in r["source"] for r in failed) and any(r["source"] == "independent" for r in failed)


@pytest.mark.slow
def test_kramers_ratio_tending_to_two_fails_the_limit_and_the_band_model_factor():
    """exact/Kramers -> 2 monotonically passes a trend check; the O(T) limit and the independent model factor do not."""
    out = _under("kramers.prefactor_pi", "A5.kramers", chains=256, theory_temperatures=[0.3, 0.2, 0.15])
    assert _red(out) and not out.details["limit_holds"] and out.details["monotone_to_1"]
    assert any(c.kind == "exact" and "0.6" in c.name for c in out.failed_conditions)  # the O(T) limit, deterministic
    band = _under("kramers.prefactor_pi", "A4.trapping", chains=128, t_end=40.0)
    assert _red(band) and "model factor" in band.summary and "independent" in {c.kind for c in band.failed_conditions}


@pytest.mark.slow
def test_reported_cka_without_centring_and_spearman_rsa_are_caught():
    """The descent check recomputes CKA and RSA a second way: a missing centring or a wrong correlation fails it."""
    for fault in ("cka.no_centring", "rsa.spearman"):
        out = _under(fault, "B5.cka_rsa_along_descent", **SMALL_DESCENT)
        assert _red(out) and "independent" in {c.kind for c in out.failed_conditions}, fault


@pytest.mark.slow
def test_driver_passing_rescaled_arguments_is_caught_by_the_replays():
    """A rescaled step size (similarity descent) and a schedule read at the step index (Langevin)."""
    out = _under("descent.step_size", "B3.replay_descent", steps=2)
    assert out.verdict == "violated" and out.empirical > 1e-6
    out = _under("langevin.time_index", "A1.replay_langevin", chains=4, steps=3)
    assert out.verdict == "violated"
    assert _run("A1.replay_langevin", chains=4, steps=3).verdict == "holds"


@pytest.mark.slow
def test_o_h_change_of_the_noise_is_caught_by_the_one_step_moments():
    """Noise variance (1 + h) times too large: an O(h) effect, seen by the one-step variance test."""
    out = _under("integrator.noise_variance", "A1.one_step", chains_circle=1 << 18, chains_sphere=1 << 17)
    assert _red(out) and not out.failed_conditions  # stochastic, and significant after Holm
    assert all(c["detectable_variance_change_in_units_of_h"] < 0.75 for c in out.details["cases"])
    assert _run("A1.one_step", chains_circle=1 << 18, chains_sphere=1 << 17).verdict == "holds"


@pytest.mark.slow
def test_schedule_off_at_finite_t_keeps_its_verdict_but_fails_the_value_checks():
    """log(t + t0 + 1) has the same HKS constant (same verdict); its values at given t do not match."""
    from contrastive_bounds.theory._schedules import make_schedule

    with substituted(*get_fault("schedule.log_shift").substitutions):
        s = make_schedule("temperature", c=1.0, t0=10.0)
        assert s.converges(1.53125).converges is False  # the verdict is unchanged
        values = _run("A2.schedule_values")
        trap = _run("A4.trapping", chains=128, t_end=40.0)
    assert _red(values) and "Schedule.temperature" in values.summary
    assert _red(trap) and {"independent", "reference"} & {c.kind for c in trap.failed_conditions}


@pytest.mark.parametrize("fault_id", ["rsa_lower_sharp.looser", "theorem2.constant"])
@pytest.mark.slow
def test_more_weaker_bounds(fault_id):
    """The sharp RSA corollary loosened, Theorem 2's constant loosened."""
    check = get_fault(fault_id).checks[0]
    params = {"examples": 8} if check.startswith("B5") else SMALL_DESCENT
    assert _red(_under(fault_id, check, **params))


@pytest.mark.slow
def test_a_fault_is_seen_by_a_check_whose_programs_were_compiled_before_it():
    """The substitution hook empties the compiled-chunk and landscape caches: a drift fault applied after a
    clean run of the same check (its chunk already compiled, its landscape memoised) still turns it red."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin._chunk import chunk_fn

    assert _run("A1.one_step").verdict == "holds"
    assert chunk_fn.cache_info()[0] > 0 and get_landscape.cache_info()[0] > 0
    assert _under("integrator.drift", "A1.one_step").verdict == "violated"
    assert _run("A1.one_step").verdict == "holds"  # restored: the faulty chunk is not reused either
