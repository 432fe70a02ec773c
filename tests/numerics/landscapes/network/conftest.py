"""Shared landscapes for the network tests (built once per session, so their kernels compile once)."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import pytest

from contrastive_bounds.numerics.landscapes.network import user_spec

QUADRATIC_A = (1.0, 2.0, 4.0)


def _quadratic(z):
    """V = Σ a_i z_i² on S², a = (1, 2, 4): minima ±e_1, index-1 saddles ±e_2, maxima ±e_3 (closed forms)."""
    return jnp.sum(jnp.asarray(QUADRATIC_A) * z[0] ** 2)


@pytest.fixture(scope="session")
def quadratic_spec():
    """The quadratic potential on S² as a network spec (no symmetry declared)."""
    return user_spec(_quadratic, 1, 3, name="quadratic-s2")


@functools.lru_cache(maxsize=None)
def default_infonce_network(n, d, tau, seed):
    """The default search of decoupled InfoNCE (N = n, S^{d-1}, tau) with this seed, once per session."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

    return landscape_network(infonce_spec(n, d, tau), seed=seed)


@pytest.fixture(scope="session")
def default_search():
    """``default_search(n, d, tau, seed)``: a NetworkResult shared by every test of the session."""
    return default_infonce_network
