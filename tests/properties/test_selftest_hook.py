"""The substitution hook of the self-test (properties/selftest/_hook.py): scope, restore, caches, errors."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

from contrastive_bounds.properties.selftest._hook import Substitution, resolve_target, substituted
from contrastive_bounds import theory as A
def test_everywhere_replaces_every_alias_and_restores():
    """A formula fault must reach the modules that imported the function by name, and vanish after the block."""
    import contrastive_bounds.numerics.alignment._training as training

    orig = A.loss_gap_value
    assert training.alignment.loss_gap_value is orig
    with substituted(Substitution(f"{A.__name__}:loss_gap_value", lambda f: (lambda tau, pi_max: -1.0))) as replaced:
        assert A.loss_gap_value(0.5, 0.1) == -1.0
        assert any(r.endswith("theory._alignment_values.loss_gap_value") for r in replaced)
    assert A.loss_gap_value is orig


def test_here_replaces_only_the_named_binding():
    """A driver-wiring fault changes what the driver calls, not the kernel a replay calls."""
    import contrastive_bounds.numerics.alignment._descent as descent
    import contrastive_bounds.numerics.alignment._descent_run as descent_run

    orig = descent.descent_step
    with substituted(Substitution("contrastive_bounds.numerics.alignment._descent_run:descent_step",
                                  lambda f: "patched", scope="here")) as replaced:
        assert descent_run.descent_step == "patched"
        assert descent.descent_step is orig
        assert replaced == ["contrastive_bounds.numerics.alignment._descent_run.descent_step"]
    assert descent_run.descent_step is orig


def test_class_and_instance_attributes_are_restored_even_after_an_error():
    """Methods of classes (Schedule) and of one object (a Bound's evaluate) are patched and put back."""
    from contrastive_bounds.theory._schedules import Schedule, make_schedule

    beta = Schedule.__dict__["beta"]
    with pytest.raises(RuntimeError, match="inside"):
        with substituted(Substitution("contrastive_bounds.theory._schedules:Schedule.beta", lambda f: (lambda self, t, xp=np: 7.0)),
                         Substitution(f"{A.__name__}:FROBENIUS.evaluate", lambda f: (lambda **kw: "patched"))):
            assert make_schedule("temperature", c=2.0).beta(3.0) == 7.0
            assert A.FROBENIUS.evaluate() == "patched"
            raise RuntimeError("inside")
    assert Schedule.__dict__["beta"] is beta
    assert "evaluate" not in vars(A.FROBENIUS)  # the instance override is removed, the class method is back
    assert make_schedule("temperature", c=2.0, t0=2.0).temperature(0.0) == pytest.approx(2 / math.log(2.0), rel=1e-15)


@pytest.mark.slow
def test_caches_are_cleared_so_jitted_code_and_lru_caches_see_the_fault():
    """jit caches and module-level lru_caches would replay pre-fault results; the hook empties both."""
    import contrastive_bounds.properties.checks._alignment_descent as alignment_descent

    @jax.jit
    def uses_noise_scale(t):
        import contrastive_bounds.numerics.langevin._increments as increments
        return increments.noise_scale(t, 0.5)

    before = float(uses_noise_scale(2.0))
    alignment_descent.descent_run.cache_clear()
    alignment_descent.descent_run(20, 2, 4, 2, 0.5, 1.0, 0.05, 0)
    assert alignment_descent.descent_run.cache_info().currsize == 1
    with substituted(Substitution("contrastive_bounds.numerics.langevin._increments:noise_scale", lambda f: (lambda t, h: 3.0 * t))):
        assert alignment_descent.descent_run.cache_info().currsize == 0
        assert float(uses_noise_scale(2.0)) == 6.0
    assert float(uses_noise_scale(2.0)) == before


@pytest.mark.parametrize("target, needle", [("no_colon", "must look like"), ("contrastive_bounds.nowhere:f", "cannot be imported"),
                                            (f"{A.__name__}:no_such_name", "not found")])
def test_bad_targets_raise_naming_the_target(target, needle):
    """A fault whose target does not exist must fail loudly, not silently test nothing."""
    with pytest.raises(ValueError, match=needle):
        resolve_target(target)
    with pytest.raises(ValueError):
        with substituted(Substitution(target if ":" in target else "a:b", lambda f: f)):
            pass


def test_substitution_validates_scope():
    """Only the two documented scopes exist."""
    with pytest.raises(ValueError, match="scope"):
        Substitution(f"{A.__name__}:cka_lower", lambda f: f, scope="nowhere")


def test_a_face_that_first_reads_a_name_during_a_substitution_gets_the_original_back():
    """A lazy package face caches a name on first read; when that first read happens while a fault is applied,
    the face cached the substitute. After the block the face gives the original again (a fault left behind
    turned later checks red, in whatever order the tests ran)."""
    import contrastive_bounds.theory as theory
    from contrastive_bounds.theory import _alignment_values

    original = _alignment_values.delta_value
    vars(theory).pop("delta_value", None)  # not read through the face yet

    def broken(*args, **kwargs):
        return 0.0

    with substituted(Substitution("contrastive_bounds.theory._alignment_values:delta_value", lambda f: broken)):
        assert theory.delta_value is broken  # first read through the face, during the fault
    assert theory.delta_value is original and _alignment_values.delta_value is original
