"""Public hypothesis strategies: shapes, invariants, and few JAX compilations (C14)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings

from contrastive_bounds.properties import strategies as cbst
from contrastive_bounds.theory import alignment as A


@given(cbst.sphere_points())
def test_sphere_points_are_unit(z):
    assert z.shape[0] in cbst.SIZE_BUCKETS and z.shape[1] in cbst.DIM_BUCKETS
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1.0, rtol=1e-12)


@given(cbst.labels(n=16, num_classes=4))
def test_labels_cover_every_class(y):
    assert y.shape == (16,) and set(np.unique(y)) == {0, 1, 2, 3}


@given(cbst.labels(n=16, num_classes=4, balanced=True))
def test_balanced_labels(y):
    assert np.bincount(y).tolist() == [4, 4, 4, 4]


@given(cbst.cosine_grams())
def test_cosine_grams_are_psd_unit_diagonal(g):
    np.testing.assert_allclose(np.diag(g), 1.0)
    assert np.allclose(g, g.T) and np.all(np.abs(g) <= 1.0)
    assert np.linalg.eigvalsh(g).min() > -1e-10


@given(cbst.barrier_landscapes(heights=(0.5, 5.0)))
def test_barrier_landscapes_know_their_height(land):
    from contrastive_bounds.numerics.landscapes.barriers import circle_barrier

    assert abs(circle_barrier(land, resolution=2048).critical_height - land.critical_height) < 1e-6 * max(1.0, land.critical_height)


@given(cbst.schedules())
def test_schedules_are_valid_on_their_range(s):
    s.validate_range(1.0, 100.0)  # the generator form has beta(0) = 0, so ranges start at t = 1
    t = np.linspace(1.0, 100.0, 11)
    assert np.all(np.isfinite(s.temperature(t))) and np.all(s.temperature(t) > 0)


@given(cbst.bound_params(A.FROBENIUS, non_vacuous=True))
def test_bound_params_are_in_domain_and_non_vacuous(p):
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
