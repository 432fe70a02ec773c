"""Hessian-free log-determinants, traces, stiffest eigenvalue and orbit density (hessfree.logdet) against dense
references: numpy ``slogdet``/``eigvalsh`` of a dense deflated Hessian built in conftest from ``jax.hessian``
(independent of the package's Hessian code), and the dense Eyring–Kramers data of network_kramers on the
reference networks (N = 4 on S¹ and N = 6 on S², τ = 0.1), which the size switch must reproduce.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree import follow_modes, verify_point
from contrastive_bounds.numerics.landscapes.hessfree.logdet import (
    log_determinant,
    log_orbit_volume_density,
    quadrature_bound,
    stiffest_eigenvalue_bound,
)
from contrastive_bounds.numerics.landscapes.kramers_curvature import orbit_volume_density
from contrastive_bounds.numerics.landscapes.network_kramers import network_trap


def _minimum_and_saddle(ref, n: int, d: int, tau: float):
    """A polished minimum of InfoNCE (L-BFGS then Newton–CG) and a certified saddle by following its softest mode."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
    from contrastive_bounds.numerics.landscapes.trap_tools import newton_polish

    spec = infonce_spec(n, d, tau)
    z0 = ref.unit_rows(np.random.default_rng(3), n, d)
    zmin, g = newton_polish(spec.potential, minimize_batch(spec, z0[None]).z[0])
    assert g < 1e-9
    searches = [s for s in follow_modes(spec.potential, zmin, modes=2) if s.verified]
    assert searches, "no certified saddle from the softest modes"
    return spec, zmin, searches[0].z


@pytest.mark.slow
@pytest.mark.heavy(reason="29 s; test_network_trap_hessian_free_equals_dense_on_the_reference_networks compares "
                          "with the dense log-determinant always")
@pytest.mark.parametrize("n, d", [(32, 8)])
def test_log_determinant_equals_numpy_slogdet_at_a_few_hundred_coordinates(ref, n, d):
    """At N·d = 256 (N/2 > d + 1: many minima, no simplex): log det′H at a minimum and log|det′H| at an index-1 saddle equal numpy's slogdet of the
    dense deflated Hessian to 1e-8 (method "basis": exact up to the quadrature, whose stated error must cover the
    difference), the traces to 1e-9 relative, the locked negative eigenvalue to 1e-9; Rademacher probes land within
    their stated error of the same value."""
    spec, zmin, zts = _minimum_and_saddle(ref, n, d, 0.1)
    for z, negatives in ((zmin, 0), (zts, 1)):
        lam = ref.deflated_dense_spectrum(spec.potential, z)
        sign, ref_logdet = np.linalg.slogdet(np.diag(lam))
        assert int(np.sum(lam < 0)) == negatives
        ld = log_determinant(spec.potential, z, lock=4, steps=48)
        assert ld.negative == negatives
        assert abs(ld.log_abs_det - ref_logdet) <= max(1e-8, ld.error), (ld.log_abs_det, ref_logdet, ld.error)
        assert ld.error < 1e-6
        assert math.isclose(ld.trace, float(np.sum(lam)), rel_tol=1e-9)
        assert math.isclose(ld.locked[0], float(lam[0]), rel_tol=1e-9)
        assert ld.dimension == lam.size
        rad = log_determinant(spec.potential, z, lock=4, steps=48, method="rademacher", probes=64, seed=1)
        assert abs(rad.log_abs_det - ref_logdet) <= 2.5 * rad.error, (rad.log_abs_det, ref_logdet, rad.error)
        assert rad.stderr > 0
    hf = stiffest_eigenvalue_bound(spec.potential, zmin)
    lam = ref.deflated_dense_spectrum(spec.potential, zmin)
    assert lam[-1] * (1 - 1e-12) <= hf <= lam[-1] * (1 + 1e-6)


@pytest.mark.slow
def test_the_step_size_stiffness_is_the_dense_spectrum_or_this_bound_and_the_old_name_warns(ref):
    """network_anneal.stiffest_eigenvalue (what the step-size rule reads) is the dense spectrum's largest |λ| below
    the size switch and exactly stiffest_eigenvalue_bound above it (forced here with curvature="hessfree"); the
    bound is above the dense value of an independent jax.hessian reference by at most 1e-6 relative. The former
    name hessfree.logdet.stiffest_eigenvalue still answers, with a DeprecationWarning, and is the bound."""
    import contrastive_bounds.numerics.landscapes.hessfree.logdet as logdet
    from contrastive_bounds.numerics.langevin.network_anneal import stiffest_eigenvalue
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
    from contrastive_bounds.numerics.landscapes.trap_tools import newton_polish

    spec = infonce_spec(4, 3, 0.2)
    z, g = newton_polish(spec.potential, minimize_batch(spec, ref.unit_rows(np.random.default_rng(5), 4, 3)[None]).z[0])
    assert g < 1e-9
    lam = ref.deflated_dense_spectrum(spec.potential, z)
    dense = stiffest_eigenvalue(spec, z, curvature="dense")
    assert dense == pytest.approx(float(np.max(np.abs(lam))), rel=1e-10)
    bound = stiffest_eigenvalue_bound(spec.potential, z, orthogonal=True)
    assert stiffest_eigenvalue(spec, z, curvature="hessfree") == bound
    assert dense * (1 - 1e-12) <= bound <= dense * (1 + 1e-6)
    removal = r"removed in the next minor release \(0\.2\.0\): use stiffest_eigenvalue_bound"
    with pytest.warns(DeprecationWarning, match=removal):
        old = logdet.stiffest_eigenvalue
    assert old is stiffest_eigenvalue_bound
    with pytest.raises(AttributeError):
        logdet.no_such_name  # noqa: B018


@pytest.mark.slow
@pytest.mark.parametrize("n, d", [(4, 2), (6, 3)])
def test_network_trap_hessian_free_equals_dense_on_the_reference_networks(dense_network, n, d):
    """The size switch's two paths give the same trap data on the table's N = 4 (S¹) and N = 6 (S²) networks at
    τ = 0.1: log det′ at the trap, every escape saddle's log|det′|, trace and log-prefactor to 1e-9, the stiffest
    eigenvalue to 1e-6 relative (Lanczos with its residual, an upper bound), the orbit densities to 1e-12."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec

    spec = infonce_spec(n, d, 0.1)
    res = dense_network(n, d, 0.1)
    dense = network_trap(res, spec, curvature="dense")
    hf = network_trap(res, spec, curvature="hessfree")
    assert dense.curvature == "dense" and hf.curvature == "hessfree"
    assert dense.prefactor_reason == hf.prefactor_reason == ""
    assert abs(dense.log_det - hf.log_det) <= 1e-9
    assert math.isclose(dense.trace, hf.trace, rel_tol=1e-10)
    assert dense.stiffest * (1 - 1e-12) <= hf.stiffest <= dense.stiffest * (1 + 1e-6)
    assert math.isclose(dense.orbit_density, hf.orbit_density, rel_tol=1e-12)
    assert len(dense.saddles) == len(hf.saddles) >= 1
    for a, b in zip(dense.saddles, hf.saddles):
        assert a.ts == b.ts
        assert abs(a.log_prefactor - b.log_prefactor) <= 1e-9
        assert abs(a.log_abs_det - b.log_abs_det) <= 1e-9
        assert math.isclose(a.trace, b.trace, rel_tol=1e-10)
        assert math.isclose(a.orbit_density, b.orbit_density, rel_tol=1e-12)
        assert b.log_prefactor_error < 1e-9
    # the trace of the dense path is the sum of every eigenvalue (the Euler bias reads it)
    assert math.isclose(dense.trace, float(np.sum(dense.eigenvalues)), rel_tol=1e-12)


def test_orbit_volume_density_analytic_equals_the_dense_svd(ref):
    """The product of sqrt(σ_a + σ_b) equals the dense SVD of the generator fields, at full rank and at rank d − 1
    (halved), and its dimension is the orbit's."""
    rng = np.random.default_rng(0)
    for n, d in ((5, 3), (7, 4), (3, 4)):
        z = ref.unit_rows(rng, n, d)
        a, ra, oa = orbit_volume_density(z)
        lb, rb, ob = log_orbit_volume_density(z)
        assert (ra, oa) == (rb, ob)
        assert math.isclose(math.log(a), lb, rel_tol=1e-12, abs_tol=1e-12)
    z = ref.unit_rows(rng, 6, 3)
    z[:, 2] = 0.0
    z /= np.linalg.norm(z, axis=1, keepdims=True)  # rank 2 = d − 1 on S²
    a, ra, oa = orbit_volume_density(z)
    lb, rb, ob = log_orbit_volume_density(z)
    assert ra == rb == 2 and oa == ob == 3
    assert math.isclose(math.log(a), lb, rel_tol=1e-12)


def test_quadrature_bound_limits():
    """κ = 1 is exact (0); the bound falls geometrically in the steps, rises with κ, and is infinite for κ = inf."""
    assert quadrature_bound(1.0, 5) == 0.0
    assert quadrature_bound(math.inf, 5) == math.inf
    b10, b20 = quadrature_bound(100.0, 10), quadrature_bound(100.0, 20)
    rho = 11.0 / 9.0
    assert math.isclose(b10 / b20, rho ** 20, rel_tol=1e-12)
    assert quadrature_bound(1e4, 20) > b20


@pytest.mark.slow
def test_log_determinant_refuses_bad_arguments(ref):
    """Bad method, lock, probes or steps are named; a point with an unlocked negative eigenvalue is refused."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec

    spec = infonce_spec(6, 3, 0.1)
    z = ref.unit_rows(np.random.default_rng(1), 6, 3)
    with pytest.raises(ValueError, match="method"):
        log_determinant(spec.potential, z, method="exact")
    with pytest.raises(ValueError, match="lock"):
        log_determinant(spec.potential, z, lock=0)
    with pytest.raises(ValueError, match="steps"):
        log_determinant(spec.potential, z, steps=2)
    # a configuration with two negative eigenvalues: locking one leaves an indefinite complement
    for seed in range(20):
        zr = ref.unit_rows(np.random.default_rng(seed), 6, 3)
        if np.sum(ref.deflated_dense_spectrum(spec.potential, zr) < 0) >= 2:
            break
    else:
        pytest.fail("no test configuration with two negative eigenvalues")
    with pytest.raises(ValueError, match="not positive definite"):
        log_determinant(spec.potential, zr, lock=1)
    # the N = 6 trap (the C15 cross-polytope) is a minimum: its complement is positive definite
    zc = np.zeros((6, 3))
    for k in range(3):
        zc[2 * k, k], zc[2 * k + 1, k] = 1.0, -1.0
    assert verify_point(spec.potential, zc, expect=0).verified
    ld = log_determinant(spec.potential, zc, lock=1)
    lam = ref.deflated_dense_spectrum(spec.potential, zc)
    assert ld.negative == 0 and abs(ld.log_abs_det - float(np.sum(np.log(lam)))) <= 1e-9
