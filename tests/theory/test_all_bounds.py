"""Every registered bound: mpmath evaluation vs vectorised log-space evaluation at random points."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contrastive_bounds.properties.strategies as cbst
import contrastive_bounds.theory._registry as registry

BOUNDS = registry.bounds()
# moderate boxes keep exp(S/(2 tau^2 B)) inside what numpy's log space and mpmath both resolve
BOX = {"tau": (0.05, 5.0), "eta_sum": (1e-3, 1e3), "eta": (1e-3, 10.0), "steps": (1, 10**6), "batch_size": (1, 10**4),
       "pi_max": (1e-3, 0.9), "delta": (1e-4, 0.9), "distance": (0.0, 100.0), "rho": (0.0, 3.0), "r": (0.0, 3.0),
       "k_norm": (1e-3, 1e3), "grad_norm": (1e-3, 1e3), "smoothness": (1e-3, 10.0)}


def test_registry_has_every_paper_b_bound():
    """The registry holds every Paper B bound."""
    names = {b.name for b in BOUNDS}
    assert {"alignment.epsilon", "alignment.delta", "alignment.frobenius", "alignment.loss_gap",
            "alignment.cka_lower", "alignment.rsa_lower", "alignment.weight_divergence",
            "alignment.link_l1", "alignment.link_l2", "alignment.link_l3"} <= names
    for b in BOUNDS:
        assert b.source.cite() and b.latex()


@pytest.mark.parametrize("bound", BOUNDS, ids=[b.name for b in BOUNDS])
@settings(max_examples=15)
@given(data=st.data())
@pytest.mark.slow
def test_mpmath_and_log_space_agree(bound, data):
    """Property: every registered bound's mpmath evaluation and vectorised log-space evaluation agree on value
    and vacuity at random in-domain points."""
    p = data.draw(cbst.bound_params(bound, box={k: v for k, v in BOX.items() if k in {q.name for q in bound.params}}))
    exact = bound.evaluate(**p)
    la = bound.evaluate_log10(**p)
    assert bool(la.vacuous) == exact.vacuous
    if exact.vacuous:
        assert exact.value is None and exact.reason
        assert math.isinf(float(la.log10))
        return
    assert exact.log10 is not None and math.isfinite(exact.log10)
    assert float(la.log10) == pytest.approx(exact.log10, rel=1e-9, abs=1e-9)
    if exact.value is not None:
        assert 10 ** exact.log10 == pytest.approx(exact.value, rel=1e-9)
