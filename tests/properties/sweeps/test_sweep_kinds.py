"""Task kinds of a sweep (properties/sweeps/kinds/): each row reports what the numerics and the theory give."""

import math

import pytest
from scipy import stats

from contrastive_bounds.properties.sweeps._engine import execute_task, make_row, validate_row
from contrastive_bounds.properties.sweeps.kinds import ParamSpec, TaskKind, TaskOutput, get_kind, register_kind
from contrastive_bounds.properties.sweeps._spec import parse_spec


def _one(data):
    spec = parse_spec(data, label="t")
    assert len(spec.tasks) == 1
    return spec.tasks[0], execute_task(spec.tasks[0])


@pytest.mark.slow
def test_anneal_row_equals_the_simulator_and_the_kramers_band():
    """The row's success count, trapped fraction and Kramers prediction are those of run_schedule and
    kramers_trap_band on the same landscape, schedule and seed; the success interval is Clopper-Pearson
    (recomputed here from scipy's beta quantiles); c_over_h = 2 on a log form is the HKS constant 2 H*. The
    row's bound and ratio are empty: its verdict is the trapped fraction against the Kramers band, and the
    success fraction (once printed "<= Kramers escape" whatever the numbers) is compared with nothing."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin._experiments import circle_trap, kramers_trap_band, run_schedule
    from contrastive_bounds.theory._schedules import make_schedule

    task, row = _one({"kind": "anneal", "seeds": [7], "params": {
        "H": 2.0, "schedule": "temperature", "c_over_h": 2.0, "chains": 128, "t_end": 5.0, "step_size": 0.01}})
    land = get_landscape("barrier-H", H=2.0)
    sched = make_schedule("temperature", c=4.0, t0=2.0)
    run = run_schedule(land, sched, chains=128, t_end=5.0, step_size=0.01, seed=7)
    band = kramers_trap_band(land, sched, circle_trap(land), 0.0, 5.0, 0.01)
    k, n = run.success, 128
    assert row["empirical"] == k / n and row["trapped"] == run.trapped / n and row["samples"] == n
    assert row["ci_lo"] == pytest.approx(stats.beta.ppf(0.025, k, n - k + 1), rel=1e-9)
    assert row["ci_hi"] == pytest.approx(stats.beta.ppf(0.975, k + 1, n - k), rel=1e-9)
    assert row["kramers_trapped"] == band.predicted and (row["kramers_lo"], row["kramers_hi"]) == (band.lo, band.hi)
    # the verdict compares the trapped fraction with the band, never the success fraction with a bound
    assert row["bound"] is None and row["ratio"] is None and row["bound_log10"] is None
    meets = not (row["trapped_hi"] < band.lo or row["trapped_lo"] > band.hi)
    assert row["verdict"] == ("holds" if meets else "violated")
    assert row["hks_constant"] == 4.0 and row["c_used"] == 4.0 and row["critical_height"] == 2.0
    assert row["converges"] is True and row["verdict"] in ("holds", "violated")
    assert row["num_steps"] == 500 and task.params["c_over_h"] == 2.0


@pytest.mark.slow
def test_anneal_without_a_prediction_is_measured_with_the_reason():
    """Chains started uniformly have no Kramers prediction: verdict 'measured', the reason says why, no bound."""
    _, row = _one({"kind": "anneal", "params": {"H": 1.0, "schedule": "fixed", "c": 0.5, "chains": 16, "t_end": 0.5,
                                                "step_size": 0.01, "start": "uniform"}})
    assert row["verdict"] == "measured" and "no Kramers prediction" in row["reason"] and row["bound"] is None


def test_bound_rows_equal_bound_evaluate_and_report_vacuous_and_uninformative():
    """Pure theory rows: the value is Bound.evaluate's; a vacuous point (1 - pi_max - epsilon <= 0) and an
    uninformative one (above the trivial 2 sqrt(m(m-1))) say so with the theory's reason, never a NaN."""
    import contrastive_bounds.theory._registry as registry

    base = {"batch_size": 256, "num_classes": 100, "delta": 0.05, "steps": 1000, "eta_sum": 10.0, "tau": 0.5}
    _, row = _one({"kind": "bound", "bound": "alignment.frobenius", "params": base})
    ref = registry.get("alignment.frobenius").evaluate(**base)
    assert row["verdict"] == "evaluated" and row["status"] == "informative"
    assert row["bound"] == ref.value and row["bound_log10"] == ref.log10 and row["seed"] == 0
    _, vac = _one({"kind": "bound", "bound": "alignment.frobenius", "params": {**base, "batch_size": 2, "num_classes": 2}})
    assert vac["verdict"] == "vacuous" and vac["bound"] is None and vac["reason"]
    _, unin = _one({"kind": "bound", "bound": "alignment.frobenius", "params": {**base, "tau": 0.05, "m": 8}})
    assert unin["verdict"] == "uninformative" and "trivial" in unin["reason"] and unin["m"] == 8


@pytest.mark.slow
def test_align_simulate_row_is_theorem1_along_the_run_and_its_slack_budget_telescopes():
    """d_T and Theorem 1 at T are run_similarity_descent's; ratio_log10 = log10 d_T - log10 bound, and the link
    slacks (log10 factors from d_T up to Theorem 1) add up to exactly minus that."""
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
    from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent

    p = {"num_samples": 40, "num_classes": 4, "batch_size": 8, "tau": 0.5, "eta": 0.5, "steps": 20}
    _, row = _one({"kind": "align-simulate", "seeds": [3], "params": p})
    sigma0, labels = make_problem(40, 4, seed=3)
    ref = run_similarity_descent(sigma0, labels, DescentConfig(batch_size=8, steps=20, tau=0.5, step_size=0.5, seed=3)).summary()
    assert row["empirical"] == ref["d_T"] and row["bound_log10"] == ref["bounds_log10"]["theorem1"]
    assert row["ratio_log10"] == pytest.approx(math.log10(ref["d_T"]) - ref["bounds_log10"]["theorem1"], abs=1e-12)
    total = sum(row[f"slack_{k}"] for k in ("triangle", "L1", "L2", "L3", "theorem1"))
    assert total == pytest.approx(-row["ratio_log10"], abs=1e-9)
    assert row["verdict"] == {"informative": "holds", "uninformative": "uninformative"}[ref["status"]]
    assert row["links_hold"] is True and row["cka"] == ref["cka"]


def test_check_kind_stores_the_checks_outcome():
    """kind 'check' runs the registered check function with the row's parameters and keeps its outcome."""
    from contrastive_bounds.properties.checks._registry import registered_checks

    _, row = _one({"kind": "check", "check": "A3.critical_height", "params": {"resolution": 512}})
    ref = registered_checks()["A3.critical_height"].fn({"resolution": 512}, 0)
    assert row["verdict"] == ref.verdict == "holds" and row["empirical"] == ref.empirical and row["target"] == "A3.critical_height"
    with pytest.raises(ValueError, match="resolution=2.5 must be an integer"):
        parse_spec({"kind": "check", "check": "A3.critical_height", "params": {"resolution": 2.5}}, label="t")


def test_a_task_that_raises_gives_an_error_row_and_rows_refuse_non_finite_numbers():
    """A failing task becomes an 'error' row with the exception (the sweep goes on); a kind returning NaN, an
    undeclared output or an interval that misses its estimate is refused by name."""
    def boom(params, seed):
        raise RuntimeError("numerics broke")
    register_kind(TaskKind("test-only-raises", "raises", params=(ParamSpec("x", float, 1.0),), outputs={"y": float},
                           run=boom, cost=lambda p: 0.0))
    _, row = _one({"kind": "test-only-raises"})
    assert row["verdict"] == "error" and "RuntimeError: numerics broke" in row["error"] and row["summary"]
    kind = get_kind("test-only-raises")
    task = parse_spec({"kind": "test-only-raises"}, label="t").tasks[0]
    with pytest.raises(ValueError, match="column 'empirical' = nan"):
        make_row(task, kind, TaskOutput("measured", empirical=float("nan")), 0.0)
    with pytest.raises(ValueError, match=r"undeclared output\(s\) \['z'\]"):
        make_row(task, kind, TaskOutput("measured", outputs={"z": 1.0}), 0.0)
    with pytest.raises(ValueError, match="does not contain empirical"):
        make_row(task, kind, TaskOutput("holds", empirical=0.5, ci_lo=0.6, ci_hi=0.7), 0.0)
    with pytest.raises(ValueError, match="verdict='fine'"):
        validate_row({**row, "verdict": "fine"}, kind)
