"""Public hypothesis strategies: shapes, invariants, and few JAX compilations (C14)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

import contrastive_bounds.properties.strategies as cbst
from contrastive_bounds import theory as A
import contrastive_bounds.theory._registry as registry
from contrastive_bounds.theory._domains import Interval, Param


@given(cbst.sphere_points())
def test_sphere_points_are_unit(z):
    """sphere_points draws unit rows in the fixed shape buckets."""
    assert z.shape[0] in cbst.SIZE_BUCKETS and z.shape[1] in cbst.DIM_BUCKETS
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1.0, rtol=1e-12)


@given(cbst.labels(n=16, num_classes=4))
def test_labels_cover_every_class(y):
    """labels draws every class at least once."""
    assert y.shape == (16,) and set(np.unique(y)) == {0, 1, 2, 3}


@given(cbst.labels(n=16, num_classes=4, balanced=True))
def test_balanced_labels(y):
    """balanced labels differ in class size by at most one."""
    assert np.bincount(y).tolist() == [4, 4, 4, 4]


@given(cbst.cosine_grams())
def test_cosine_grams_are_psd_unit_diagonal(g):
    """cosine_grams draws symmetric positive semidefinite matrices with unit diagonal."""
    np.testing.assert_allclose(np.diag(g), 1.0)
    assert np.allclose(g, g.T) and np.all(np.abs(g) <= 1.0)
    assert np.linalg.eigvalsh(g).min() > -1e-10


@given(cbst.barrier_landscapes(heights=(0.5, 5.0)))
def test_barrier_landscapes_know_their_height(land):
    """barrier_landscapes draws landscapes whose stated H* equals the computed one within its bound."""
    from contrastive_bounds.numerics.landscapes._barriers import circle_barrier

    assert abs(circle_barrier(land, resolution=2048).critical_height - land.critical_height) < 1e-6 * max(1.0, land.critical_height)


@given(cbst.schedules())
def test_schedules_are_valid_on_their_range(s):
    """schedules draws schedules valid on [1, 100] with positive finite temperatures."""
    s.validate_range(1.0, 100.0)  # the generator form has beta(0) = 0, so ranges start at t = 1
    t = np.linspace(1.0, 100.0, 11)
    assert np.all(np.isfinite(s.temperature(t))) and np.all(s.temperature(t) > 0)


@given(cbst.bound_params(A.FROBENIUS, non_vacuous=True))
def test_bound_params_are_in_domain_and_non_vacuous(p):
    """bound_params(non_vacuous=True) draws in-domain points where the bound is not vacuous."""
    assert not A.FROBENIUS.evaluate(digits=15, **p).vacuous


def test_C14_shape_buckets_bound_the_number_of_compilations():
    """A jitted function under hypothesis compiles once per shape bucket, not once per example."""
    traces = []

    @jax.jit
    def energy(z):
        traces.append(z.shape)  # runs only while tracing
        return jnp.sum(z @ z.T)

    @settings(max_examples=40, database=None)
    @given(cbst.sphere_points())
    def run(z):
        energy(z)

    run()
    assert len(traces) <= len(cbst.SIZE_BUCKETS) * len(cbst.DIM_BUCKETS)


# ---------------------------------------------------------------- bound_params: box against the domains
# The box is intersected with each parameter's domain: open ends are never drawn, infinite ends work for
# integers, and a box that is empty after intersection, malformed, or names an unknown parameter is a
# ValueError naming `box` when the strategy is built (it had drawn out-of-domain points such as tau <= 0).
FROB = registry.get_bound("alignment.frobenius")


@given(p=cbst.bound_params(FROB, box={"tau": (-1.0, 1.0), "batch_size": (2.5, math.inf), "delta": (0.5, 1.0),
                                       "pi_max": (0.0, 0.0 + 1e-9)}))
@pytest.mark.slow
def test_box_is_intersected_with_each_domain(p):
    """Drawn points lie in box ∩ domain: tau in (0, 1], batch_size an integer >= 3 (an infinite end is no
    int(inf)), delta in [0.5, 1), pi_max > 0, and every point is valid for the bound."""
    assert 0.0 < p["tau"] <= 1.0
    assert isinstance(p["batch_size"], int) and p["batch_size"] >= 3
    assert 0.5 <= p["delta"] < 1.0
    assert 0.0 < p["pi_max"] <= 1e-9
    FROB.evaluate(digits=15, **p)  # every point is valid for the bound (raises otherwise)


class _Toy:
    name = "toy"
    params = (Param("h", Interval(0.0, 1.0, lo_closed=False, hi_closed=False)),
              Param("n", Interval(1.0, math.inf, lo_closed=False), integer=True),
              Param("c", Interval(0.0, 1.0, lo_closed=True, hi_closed=True)))


def test_open_ends_are_never_drawn_even_when_the_box_sits_on_them():
    """Box ends equal to open domain ends: the draws are the nearest floats inside, never the end."""
    seen = []
    with pytest.raises(ValueError, match=r"box\['h'\]=\(1.0, 1.001\) does not meet h's domain \(0, 1\)"):
        cbst.bound_params(_Toy(), box={"h": (1.0, 1.0 + 1e-3)})

    @given(cbst.bound_params(_Toy(), box={"h": (0.0, 0.0 + 1e-300), "n": (1.0, 2.0), "c": (1.0, 5.0)}))
    def run2(p):
        seen.append(p)
        assert 0.0 < p["h"] <= 1e-300
        assert p["n"] == 2  # (1, inf) open at 1, box [1, 2]: only 2
        assert p["c"] == 1.0  # [0, 1] closed, box [1, 5]: only 1

    run2()
    assert len(seen) > 0


@pytest.mark.parametrize(
    "box, match",
    [
        ({"tau": (-1.0, 0.0)}, r"box\['tau'\]=\(-1.0, 0.0\) does not meet tau's domain \(0, inf\)"),
        ({"batch_size": (1.2, 1.8)}, r"box\['batch_size'\].*\[1, inf\) \(no integer in it\)"),
        ({"batch_size": (-math.inf, 0.5)}, r"box\['batch_size'\]=\(-inf, 0.5\) does not meet"),
        ({"delta": (1.0, 2.0)}, r"box\['delta'\]=\(1.0, 2.0\) does not meet delta's domain \(0, 1\)"),
        ({"tau": (2.0, 1.0)}, r"box\['tau'\]=\(2.0, 1.0\) must have lo <= hi"),
        ({"tau": (math.nan, 1.0)}, r"neither NaN"),
        ({"tau": "12"}, r"box\['tau'\]='12' must be a pair"),
        ({"tauu": (1.0, 2.0)}, r"box names \['tauu'\], not parameters of 'alignment.frobenius'"),
    ],
)
def test_bad_boxes_raise_when_the_strategy_is_built(box, match):
    """Boxes that miss the domain, contain no integer, are reversed, hold NaN, are not pairs or name unknown
    parameters raise a ValueError naming box when the strategy is built."""
    with pytest.raises(ValueError, match=match):
        cbst.bound_params(FROB, box=box)


@given(p=cbst.bound_params(FROB, box={"steps": (1, math.inf), "eta_sum": (1e-3, math.inf)}))
def test_infinite_box_ends_draw_finite_valid_values(p):
    """Infinite box ends draw finite, valid values (integers for integer parameters)."""
    assert isinstance(p["steps"], int) and p["steps"] >= 1
    assert math.isfinite(p["eta_sum"]) and p["eta_sum"] >= 1e-3

