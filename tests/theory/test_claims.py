"""B7 claims: verdicts (proved / certified / refuted) and the claim machinery itself."""

from __future__ import annotations

import sympy as sp

import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._claim import SignCheckSpec, sign_claim_check
import pytest


@pytest.mark.slow
def test_every_b7_claim_is_certified_or_proved_and_agrees():
    """Every B7 claim comes out certified or proved, as the registry expects."""
    seen = 0
    for c in registry.claims():
        if "B7" not in c.tags:
            continue
        seen += 1
        v = c.run(True)
        assert c.agrees(v), (c.name, v)
        if c.expected == "holds":
            assert v.status in ("proved", "certified"), (c.name, v.evidence)
        else:
            assert v.status == "refuted" and v.counterexample is not None
    assert seen >= 9


def test_fixed_epoch_finding_is_registered():
    """The fixed-epoch learning-rate finding is registered and certified."""
    c = registry.get_claim("alignment.lr_scaling_fixed_epochs_a1")
    assert "FALLS" in c.statement and c.expected == "holds"
    assert c.run(True).status == "certified"


def test_sign_check_refutes_a_false_claim_with_counterexample():
    """A false sign claim is refuted with a counterexample point that violates it."""
    x, y = sp.symbols("x y", positive=True)
    check = sign_claim_check(SignCheckSpec(expr=x - y, box={"x": (1.0, 2.0), "y": (0.5, 1.5)}, sign=1))
    v = check(True)
    assert v.status == "refuted"
    pt = v.counterexample["point"]
    assert pt["x"] - pt["y"] <= 0


def test_sign_check_certifies_with_arb():
    """A true sign claim is 'supported' by sampling and 'certified' by arb interval arithmetic."""
    x = sp.Symbol("x", real=True)
    check = sign_claim_check(SignCheckSpec(expr=sp.exp(x) - 1 - x + sp.Rational(1, 1000), box={"x": (-3.0, 3.0)}))
    assert check(False).status == "supported"
    assert check(True).status == "certified"
