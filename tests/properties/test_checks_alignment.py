"""Paper B checks: a correct bound passes; deliberately wrong bounds are caught (issue 6, item 6)."""

from __future__ import annotations

import numpy as np
import pytest

from contrastive_bounds.properties.checks._alignment_descent import descent_run
from contrastive_bounds.properties.checks._registry import registered_checks
from contrastive_bounds import theory as A
SMALL_DESCENT = {"num_samples": 200, "num_classes": 5, "batch_size": 32, "steps": 60, "tau": 0.5,
                 "step_size": 1.0, "delta": 0.05}


def _run(check_id: str, params: dict | None = None, seed: int = 0):
    spec = registered_checks()[check_id]
    return spec.fn({**spec.defaults["quick"], **(params or {})}, seed)


@pytest.fixture(autouse=True)
def _fresh_descent_cache():
    descent_run.cache_clear()
    yield
    descent_run.cache_clear()


@pytest.mark.slow
def test_correct_bounds_hold():
    """The Paper B checks hold for the correct bounds (B4 reference values and Theorem 1 with its slack
    budget, B2, B6, B5)."""
    assert _run("B4.reference_values").verdict == "holds"
    out = _run("B4.theorem1", SMALL_DESCENT)
    # it holds, but at about 1.5e5 it is above the trivial bound 2 sqrt(m(m-1)) = 798 (m = 400): uninformative
    assert out.verdict == "uninformative" and out.ratio < 1 and out.bound > 100 * out.trivial_bound
    assert out.trivial_bound == pytest.approx(2 * np.sqrt(400 * 399), rel=1e-12)
    assert all(c.ok for c in out.conditions) and {c.kind for c in out.conditions} == {"exact", "independent", "reference"}
    assert set(out.slack) >= {"L1", "L2", "L3", "theorem1"}
    assert _run("B2.loss_gap", {"examples": 15}).verdict == "holds"
    b6 = _run("B6.weight_divergence", SMALL_DESCENT)
    assert b6.verdict == "uninformative" and b6.bound > b6.trivial_bound
    assert _run("B5.corollaries_any_pair", {"examples": 15}).verdict == "holds"


def test_theorem1_divided_by_10_is_caught(monkeypatch):
    """Theorem 1 is loose by orders of magnitude in simulation, so a factor 10 is caught by the
    reference values and by the two independent implementations disagreeing, not by d_T."""
    monkeypatch.setitem(A.FROBENIUS.factors, "drift", A.FROBENIUS.factors["drift"] / 10)
    assert _run("B4.reference_values").verdict == "violated"
    out = _run("B4.theorem1", SMALL_DESCENT)
    assert out.verdict == "violated" and out.test_verdict == "uninformative"  # d_T alone could not see it
    assert {c.kind for c in out.failed_conditions} == {"independent", "reference"}
    assert "INDEPENDENT FAILED: the Theorem-1 bound is the same in both toolkit implementations" in out.summary


def test_per_step_theorem1_numerics_fault_is_caught(monkeypatch):
    """A per-step Theorem 1 bound made 10x too small is caught by B4.theorem1."""
    real = A.theorem1_log10
    monkeypatch.setattr(A, "theorem1_log10", lambda etas, **kw: real(etas, **kw) - 1.0)
    assert _run("B4.theorem1", SMALL_DESCENT).verdict == "violated"


@pytest.mark.slow
def test_loss_gap_bound_divided_by_10_is_caught(monkeypatch):
    """A loss-gap bound divided by 10 is caught by B2."""
    real = A.loss_gap_value
    monkeypatch.setattr(A, "loss_gap_value", lambda tau, pi_max: real(tau, pi_max) / 10)
    out = _run("B2.loss_gap", {"examples": 30})
    assert out.verdict == "violated"


def test_wrong_cka_corollary_is_caught(monkeypatch):
    """A corollary that is too strong (1.05 x the sharp bound) must fail on searched Gram pairs."""
    monkeypatch.setattr(A, "cka_lower_sharp", lambda rho: np.minimum(1.0, 1.05 * np.sqrt(np.clip(1 - np.asarray(rho) ** 2, 0, 1))))
    assert _run("B5.corollaries_any_pair", {"examples": 30}).verdict == "violated"


@pytest.mark.slow
def test_batch_event_with_too_small_epsilon_is_caught(monkeypatch):
    """An epsilon of 0 in the batch event of B4 is caught with p < 1e-6."""
    monkeypatch.setattr(A, "epsilon_value", lambda b, t, d: 0.0)
    out = _run("B4.batch_event", {"runs": 200})
    assert out.verdict == "violated" and out.p_value < 1e-6


def test_theorem2_with_wrong_smoothness_is_caught(monkeypatch):
    """Theorem 2's form with beta_s halved falls below the exact L2 recursion: caught."""
    real = A.WEIGHT_DIVERGENCE.evaluate

    def wrong(**kw):
        kw["smoothness"] = kw["smoothness"] / 2
        kw["grad_norm"] = kw["grad_norm"] / 2
        return real(**kw)

    monkeypatch.setattr(A.WEIGHT_DIVERGENCE, "evaluate", wrong)
    assert _run("B6.weight_divergence", SMALL_DESCENT).verdict == "violated"


@pytest.mark.slow
def test_batch_event_uses_the_toolkits_sampler_and_sees_one_that_is_not_iid():
    """B4.batch_event draws with numerics' sample_batch: a sampler returning each index twice keeps every failure
    frequency at 0 (the Hoeffding event is loose), but the first anchor's same-class count leaves Binomial(B-1, 1/C)
    (chi-square p < 1e-10, significant after Holm); the correct sampler's law test passes."""
    from contrastive_bounds.properties.selftest import get_fault, substituted

    good = _run("B4.batch_event", {"runs": 200})
    assert good.verdict == "holds" and good.details["p_law"] > 1e-3
    assert good.details["sampler"].startswith("numerics.alignment.descent.sample_batch")
    with substituted(*get_fault("sampler.duplicates").substitutions):
        bad = _run("B4.batch_event", {"runs": 200})
    assert bad.verdict == "violated" and bad.details["failures"] == 0 and bad.details["p_law"] < 1e-10
    assert bad.p_value < 1e-3 / 40 and not bad.failed_conditions  # stochastic, and significant
