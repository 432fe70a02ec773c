"""The B9/B10 checks hold on the correct numerics and turn red on a planted fault (a check is worth what it catches)."""

from __future__ import annotations

import numpy as np
import pytest

import contrastive_bounds.numerics.alignment._batch_scaling_report as batch_scaling_report
import contrastive_bounds.numerics.alignment._eta_eff as eta_eff
import contrastive_bounds.numerics.alignment._proxy_result as proxy_result
import contrastive_bounds.properties.checks._alignment_training as T
from contrastive_bounds.properties.checks._registry import registered_checks

KNOWN = {"reference_size": 8, "batch_size": 4, "num_classes": 4, "tau": 0.5, "eta": 0.01, "trials": 1}
GRID = {"batch_sizes": [8, 16], "exponents": [1.0, 0.0], "budgets": ["epochs", "steps"], "seeds": 2, "epochs": 2,
        "reference_batch": 8, "eta_ref": 0.05, "reference_size": 32, "hidden": 8, "tau": 0.5}
PROXY = {"reference_size": 16, "batch_size": 8, "steps": 12, "record_every": 2, "fit_steps": 2, "eta": 0.05,
         "free_eta": 0.05, "widths": [8], "taus": [0.5], "small_eta": 1e-4}


def test_b9_b10_checks_are_registered():
    """The four checks are in the main job with quick and thorough parameters."""
    checks = registered_checks()
    for cid in ("B9.proxy_known_case", "B9.proxy_fidelity", "B9.theorem1_real", "B10.batch_scaling"):
        assert cid in checks and checks[cid].defaults["quick"] != checks[cid].defaults["thorough"]


@pytest.mark.slow
def test_known_case_holds_and_catches_a_wrong_expansion(monkeypatch):
    """Correct: holds. A second-order coefficient off by 10 % breaks the eta^3 order: violated."""
    assert T.proxy_known_case(KNOWN, 0).verdict == "holds"
    real = eta_eff.orthonormal_fit_expansion
    monkeypatch.setattr(eta_eff, "orthonormal_fit_expansion", lambda g: (real(g)[0], 1.1 * real(g)[1]))
    out = T.proxy_known_case(KNOWN, 0)
    assert out.verdict == "violated" and "ORDER OUTSIDE" in out.summary


@pytest.mark.slow
def test_known_case_catches_a_wrong_ntk_gain(monkeypatch):
    """An NTK term scaled by 1.01 gives a gain of 4.04 instead of 4: violated."""
    real = eta_eff.first_order_terms  # the check imports it at call time, so patching the module reaches it

    def scaled(*a, **k):
        out = real(*a, **k).copy()
        out[..., 3] *= 1.01
        return out

    monkeypatch.setattr(eta_eff, "first_order_terms", scaled)
    assert T.proxy_known_case(KNOWN, 0).verdict == "violated"


@pytest.mark.slow
def test_theorem1_real_uninformative_above_the_trivial_bound_holds_below_and_catches_a_bound_too_small(monkeypatch):
    """At tau = 0.5 the bound on the real d_T (about 1.1e3) exceeds the trivial 2 sqrt(m(m-1)) = 63: uninformative,
    never holds; at tau = 2 it is about 9.4 < 63 and holds; every condition (links, L1, the bound against mpmath and
    C02) holds in both. Bounds divided by 10^12: the links are exceeded and the values disagree with mpmath."""
    T._proxy_run.cache_clear()
    out = T.theorem1_real(PROXY, 0)
    assert out.verdict == "uninformative" and out.bound > 10 * out.trivial_bound
    assert out.trivial_bound == pytest.approx(2 * np.sqrt(32 * 31), rel=1e-12) and all(c.ok for c in out.conditions)
    informative = T.theorem1_real({**PROXY, "taus": [2.0]}, 0)
    assert informative.verdict == "holds" and informative.bound < informative.trivial_bound
    assert {c.kind for c in informative.conditions} == {"exact", "independent", "reference"}
    real = proxy_result.ProxyResult.link_bounds_log10
    monkeypatch.setattr(proxy_result.ProxyResult, "link_bounds_log10",
                        lambda self: {k: v - 12 for k, v in real(self).items()})
    bad = T.theorem1_real(PROXY, 0)
    assert bad.verdict == "violated" and {"exact", "independent"} <= {c.kind for c in bad.failed_conditions}


@pytest.mark.slow
def test_proxy_fidelity_holds_on_tiny_runs():
    """The estimator limit and the two-way metrics hold; the findings name both runs."""
    out = T.proxy_fidelity(PROXY, 0)
    assert out.verdict == "holds" and "free (d = m" in out.summary and "mlp hidden=8" in out.summary
    assert len(out.plots) == 2


@pytest.mark.slow
def test_batch_scaling_holds_and_catches_a_wrong_bound(monkeypatch):
    """Correct: holds. A per-step Theorem-1 numerics off by 1 % (log10) disagrees with the symbolic bound: violated."""
    T._grid.cache_clear()
    assert T.batch_scaling(GRID, 0).verdict == "holds"
    real = batch_scaling_report.alignment.frobenius_log10
    monkeypatch.setattr(batch_scaling_report.alignment, "frobenius_log10", lambda *a: real(*a) * 1.01)
    out = T.batch_scaling(GRID, 0)
    assert out.verdict == "violated" and np.isfinite(out.empirical) and out.empirical > 1e-9


@pytest.mark.slow
def test_batch_scaling_catches_broken_shared_randomness(monkeypatch):
    """If the B_ref cell differed between scalings (randomness not shared), the check is violated, even
    with both CKA forms moved together (so only the exactness assertion can catch it)."""
    T._grid.cache_clear()
    res = T._grid.__wrapped__
    calls = {"n": 0}

    def perturbed(spec):
        out = res(spec)
        for c in out.cells:
            if c["batch_size"] == 8:
                for lane in c["lanes"]:
                    if lane["exponent"] == 1.0:
                        lane["cka"] += 1e-3
                        lane["cka_features"] += 1e-3
        calls["n"] += 1
        return out

    monkeypatch.setattr(T, "_grid", perturbed)
    assert T.batch_scaling(GRID, 0).verdict == "violated" and calls["n"] == 1
