"""Certificates from Ritz values and residuals: the rule, its bounds, and agreement with the dense verifier (A9)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.hessfree.certify import certify_spectrum, verify_batch
from contrastive_bounds.numerics.landscapes.network import infonce_spec
from contrastive_bounds.numerics.landscapes.network.verify import classify


def test_index_one_needs_the_second_eigenvalue_certified_above_the_band():
    """θ = (−1, 0.5) with tiny residuals is a transition state; a second Ritz value inside the zero band, or one
    whose residual interval reaches into it, makes the point unverified ("not certified above the zero band"),
    even though the Ritz value itself is positive."""
    ok = certify_spectrum(1.0, 1e-10, [-1.0, 0.5, 2.0], [1e-12, 1e-12, 1e-12], top=10.0, expect=1)
    assert ok.verified and ok.kind == "transition state" and ok.index == 1
    band = ok.band
    assert band == pytest.approx(1e-7)
    inside = certify_spectrum(1.0, 1e-10, [-1.0, 0.5 * band, 2.0], [1e-12] * 3, top=10.0, expect=1)
    assert not inside.verified and inside.kind == "unresolved" and "not certified above the zero band" in inside.reason
    # θ2 = 3·band with residual 5·band: no help from Kato–Temple when the next value is close (4·band) ...
    reaching = certify_spectrum(1.0, 1e-10, [-1.0, 3 * band, 4 * band], [1e-12, 5 * band, 1e-12], top=10.0, expect=1)
    assert reaching.eigenvalues[1] > band and not reaching.verified and "eigenvalue 2" in reaching.reason
    # ... but with the next eigenvalue at 2, λ2 >= θ2 − r2²/(2 − θ2) certifies it above the band
    temple = certify_spectrum(1.0, 1e-10, [-1.0, 3 * band, 2.0], [1e-12, 5 * band, 1e-12], top=10.0, expect=1)
    assert temple.verified and temple.lower[1] == pytest.approx(3 * band - (5 * band) ** 2 / (2.0 - 3 * band), rel=1e-6)


def test_index_counts_gradient_and_exhausted_spaces():
    """Two certified negative values give index 2 (a saddle, not a TS); a large gradient is "not critical"; when
    every computed value is negative the index is only a lower bound unless the space was exhausted."""
    two = certify_spectrum(0.0, 1e-12, [-1.0, -0.5, 0.3], [1e-12] * 3, top=1.0, expect=1)
    assert two.index == 2 and two.kind == "saddle of index 2" and not two.verified and "expected 1" in two.reason
    moving = certify_spectrum(0.0, 1e-3, [-1.0, 0.5], [1e-12] * 2, top=1.0, expect=1)
    assert moving.kind == "not critical" and "gradient_tol" in moving.reason
    neg = certify_spectrum(0.0, 1e-12, [-2.0, -1.0], [1e-12] * 2, top=2.0)
    assert neg.kind == "unresolved" and "at least 2" in neg.reason
    whole = certify_spectrum(0.0, 1e-12, [-2.0, -1.0], [1e-12] * 2, top=2.0, exhausted=True)
    assert whole.kind == "saddle of index 2" and not whole.verified
    minimum = certify_spectrum(0.0, 1e-12, [0.2, 0.3], [1e-12] * 2, top=2.0, expect=0)
    assert minimum.verified and minimum.kind == "minimum"


def test_kato_temple_bound_holds_and_beats_the_residual_bound():
    """For H = diag(1, 3, 7) and y = cos ε e1 + sin ε e2 (ε = 1e-3): θ = yᵀHy, r = |Hy − θy|. The certified lower
    bound on λ1 = 1 lies below 1 and above θ − r (Kato–Temple with the gap to the next interval), and λ1 <= θ; with
    the true λ2 as the next value the bound is exact up to rounding and still not above 1."""
    eps = 1e-3
    h = np.diag([1.0, 3.0, 7.0])  # the gap is taken to the next interval (2.5 ± 0), below λ2 = 3
    y = np.array([np.cos(eps), np.sin(eps), 0.0])
    theta = y @ h @ y
    r = np.linalg.norm(h @ y - theta * y)
    cert = certify_spectrum(0.0, 0.0, [theta, 2.5], [r, 0.0], top=7.0, expect=0)
    assert cert.lower[0] <= 1.0 <= cert.upper[0] and cert.upper[0] == pytest.approx(theta, abs=1e-14)
    assert cert.lower[0] > theta - r
    assert 1.0 - cert.lower[0] < 1e-5
    tight = certify_spectrum(0.0, 0.0, [theta, 3.0], [r, 0.0], top=7.0, expect=0)  # exact for a 2-d problem
    assert tight.lower[0] <= 1.0 and 1.0 - tight.lower[0] < 1e-12


def test_bad_arguments_are_named():
    """expect, tolerances and mismatched arrays are refused with the argument named."""
    with pytest.raises(ValueError, match="expect=2"):
        certify_spectrum(0.0, 0.0, [1.0], [0.0], top=1.0, expect=2)
    with pytest.raises(ValueError, match="gradient_tol"):
        certify_spectrum(0.0, 0.0, [1.0], [0.0], top=1.0, gradient_tol=0.0)
    with pytest.raises(ValueError, match="residual_norms"):
        certify_spectrum(0.0, 0.0, [1.0, 2.0], [0.0], top=1.0)


@pytest.mark.slow
def test_certificates_agree_with_the_dense_verifier_on_the_network_critical_points(dense_network):
    """At every minimum and transition state of the dense N = 6, d = 3, τ = 0.1 network the Hessian-free
    certificate gives the dense classify's kind and index, and its lowest eigenvalues equal the dense ones to
    1e-8 (off the symmetry modes; degenerate copies come from the locked second Lanczos run)."""
    net = dense_network(6, 3, 0.1)
    spec = infonce_spec(6, 3, 0.1)
    points = [m.z for m in net.minima] + [t.z for t in net.transition_states]
    certs = verify_batch(spec.potential, np.stack(points), expect=None)
    for z, cert in zip(points, certs):
        dense = classify(spec, z)
        assert cert.kind == dense.kind and cert.index == dense.index, (cert.reason, dense.reason)
        k = min(len(cert.eigenvalues), 4)
        assert np.allclose(cert.eigenvalues[:k], dense.eigenvalues[:k], atol=1e-8)
        assert cert.verified
        assert cert.orbit_residual < 1e-6


@pytest.mark.slow
def test_certificates_on_a_potential_without_symmetry_match_closed_forms():
    """V = z1² + 2 z2² + 4 z3² on S² (no symmetry): at ±e_i the eigenvalues are 2(a_j − a_i); e1 is a minimum,
    e2 a transition state, e3 a saddle of index 2 (both eigenvalues negative, the space exhausted)."""
    a = jnp.asarray([1.0, 2.0, 4.0])
    pot = lambda z: jnp.sum(a * z[0] ** 2)  # noqa: E731
    certs = verify_batch(pot, np.eye(3)[:, None, :], orthogonal=False)
    assert [c.kind for c in certs] == ["minimum", "transition state", "saddle of index 2"]
    assert np.allclose(certs[0].eigenvalues, [2.0, 6.0], atol=1e-12)
    assert np.allclose(certs[1].eigenvalues, [-2.0, 4.0], atol=1e-12)
    assert np.allclose(certs[2].eigenvalues, [-6.0, -4.0], atol=1e-12)
    assert certs[0].verified and certs[1].verified and not certs[2].verified
