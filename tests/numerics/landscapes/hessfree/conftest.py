"""Shared pieces of the Hessian-free tests: an independent dense Riemannian Hessian, small potentials."""

from __future__ import annotations

import functools
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._infonce import infonce_potential


def unit_rows(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    """``(n, d)`` float64 unit rows from normalised Gaussians."""
    z = rng.normal(size=(n, d))
    return z / np.linalg.norm(z, axis=1, keepdims=True)


def default_pairs(n: int) -> list[tuple[int, int]]:
    """(0, 1), (2, 3), ...: the pairs of network.spec.default_pairs, written out here."""
    return [(2 * k, 2 * k + 1) for k in range(n // 2)]


def infonce(n: int, tau: float = 0.1, coupled: bool = False):
    """Decoupled (or coupled) InfoNCE over the default pairs."""
    return infonce_potential(n, default_pairs(n), tau, coupled=coupled)


def generic_potential(z):
    """A smooth potential with no symmetry (linear, cubic Gram and coupling terms): the Weingarten term and
    every coordinate matter."""
    n, d = z.shape
    a = jnp.sin(jnp.arange(n * d, dtype=z.dtype).reshape(n, d) * 0.7 + 0.3)
    return jnp.sum(a * z) + 0.5 * jnp.sum((z @ z.T) ** 3) + jnp.sin(z[0] @ z[-1]) * z[1, 0]


def dense_riemannian_hessian(potential, z: np.ndarray) -> np.ndarray:
    """``(N·d, N·d)`` ambient matrix of ``u ↦ P(∇²V P u) − (z_i·∇_i V) P_i u_i`` built from ``jax.hessian`` and
    the projector ``P = blockdiag(I − z_i z_iᵀ)`` (Absil, Mahony & Trumpf 2013, eq. (10)); independent of the
    package's Hessian code."""
    n, d = z.shape
    zj = jnp.asarray(z)
    h = np.asarray(jax.hessian(potential)(zj)).reshape(n * d, n * d)
    g = np.asarray(jax.grad(potential)(zj))
    p = np.zeros((n * d, n * d))
    for i in range(n):
        p[i * d:(i + 1) * d, i * d:(i + 1) * d] = np.eye(d) - np.outer(z[i], z[i])
    radial = np.repeat(np.sum(z * g, axis=1), d)
    return p @ h @ p - p * radial[None, :]


def rotation_generators(z: np.ndarray) -> np.ndarray:
    """``(d(d−1)/2, N·d)``: the fields ``(A z_i)_i`` of ``A = e_a e_bᵀ − e_b e_aᵀ``, written out here."""
    n, d = z.shape
    rows = []
    for a in range(d):
        for b in range(a + 1, d):
            f = np.zeros((n, d))
            f[:, a] = z[:, b]
            f[:, b] = -z[:, a]
            rows.append(f.reshape(-1))
    return np.array(rows)


def deflated_dense_spectrum(potential, z: np.ndarray, orthogonal: bool = True) -> np.ndarray:
    """Eigenvalues of the dense Riemannian Hessian on the tangent space off the rotation orbit (ascending),
    via an explicit orthonormal basis of that space (numpy SVD)."""
    n, d = z.shape
    hess = dense_riemannian_hessian(potential, z)
    normals = np.zeros((n, n * d))
    for i in range(n):
        normals[i, i * d:(i + 1) * d] = z[i]
    blocks = [normals] + ([rotation_generators(z)] if orthogonal else [])
    excluded = np.concatenate(blocks)
    u, s, _ = np.linalg.svd(excluded.T, full_matrices=True)
    rank = int(np.sum(s > 1e-8 * np.sqrt(n)))
    comp = u[:, rank:]
    return np.linalg.eigvalsh(comp.T @ hess @ comp)


@pytest.fixture(scope="session")
def ref():
    """The helpers above as one namespace (tests import no module of their folder)."""
    return types.SimpleNamespace(unit_rows=unit_rows, default_pairs=default_pairs, infonce=infonce,
                                 generic_potential=generic_potential, dense_riemannian_hessian=dense_riemannian_hessian,
                                 rotation_generators=rotation_generators, deflated_dense_spectrum=deflated_dense_spectrum)


@functools.lru_cache(maxsize=None)
def _dense_network(n: int, d: int, tau: float):
    from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_network

    return landscape_network(infonce_spec(n, d, tau), seed=0)


@pytest.fixture(scope="session")
def dense_network():
    """``dense_network(n, d, tau)``: the repository's dense default search (seed 0), once per session."""
    return _dense_network
