"""The independent implementations the checks compare with (properties/checks/independent_*.py) agree
with the toolkit and with their tabulated references, and disagree when a formula changes."""

from __future__ import annotations

import math

import mpmath
import pytest

import contrastive_bounds.properties.checks._independent_alignment as ia
import contrastive_bounds.properties.checks._independent_annealing as ian
import contrastive_bounds.properties.checks._independent_metrics as im
from contrastive_bounds.properties.checks._agreement import agreement


def test_alignment_verifiers_agree_at_check_points_and_references():
    """Every comparison used by Paper B's checks holds for the correct toolkit (C02, C03, closed forms)."""
    rows = (ia.verify_loss_gap([(0.5, 0.1), (0.1, 0.37)]) + ia.verify_corollaries([0.0, 0.2, 0.9, 1.5], [0.3])
            + ia.verify_epsilon(64, 100, 0.05) + ia.verify_theorem1(0.5, 0.1, 64, 300, 0.05, 300.0)
            + ia.verify_links(1.0, 300, 0.5, 64, 20.0) + ia.verify_weight_divergence(0.5, 0.1, 64, 300, 0.05, 300.0, 0.125, 1 / 128))
    bad = [r for r in rows if not r.ok]
    assert not bad and len(rows) > 50


def test_tabulated_references_match_the_mpmath_closed_forms():
    """The hard-coded 40-digit values equal the closed forms (so an edit of either shows)."""
    with mpmath.workdps(45):
        for args, ref in ia.WEIGHT_DIVERGENCE_REFS:
            assert abs(ia.weight_divergence_log10_mp(*args) - mpmath.mpf(ref)) < mpmath.mpf("1e-35")
        for args, refs in ia.LINK_REFS:
            for got, want in zip(ia.links_log10_mp(*args), refs):
                assert abs(got - mpmath.mpf(want)) < mpmath.mpf("1e-35")
        for form, p, t, ref in ian.SCHEDULE_REFS:
            assert abs(ian.schedule_temperature_mp(form, p, t) - mpmath.mpf(ref)) < mpmath.mpf("1e-35")
        for (c, b, t, dl, tau, s), (eps, delta, log10) in ia.C02:  # published values vs our closed forms
            assert abs(ia.epsilon_mp(b, t, dl) - mpmath.mpf(eps)) < mpmath.mpf("1e-19")
            assert abs(ia.frobenius_log10_mp(tau, mpmath.mpf(1) / c, b, t, dl, s) - mpmath.mpf(log10)) < mpmath.mpf("1e-15")


def test_exact_mfpt_by_the_ode_agrees_with_the_toolkits_quadrature():
    """Two exact MFPT computations (numpy ODE vs mpmath Green's function) at T = 0.6 and 0.15 (C13 landscape)."""
    from contrastive_bounds.theory._kramers import exact_mfpt_interval

    ts = math.acos(-1 / 8)
    for temp in (0.6, 0.15):
        grid, err = ian.mfpt_grid(ian.double_well_potential(1.0), math.pi, 0.1, 2 * math.pi - 0.1, temp)
        ref = exact_mfpt_interval(lambda x: -0.5 * mpmath.cos(x) - mpmath.cos(2 * x), math.pi, 0.1, 2 * math.pi - 0.1, temp,
                                  slope_bound=2.5, breakpoints=[ts, math.pi, 2 * math.pi - ts]).time_float
        assert grid == pytest.approx(ref, rel=1e-9) and err < 1e-8 * ref


def test_closed_form_trap_matches_c13_and_the_kramers_rate_scales():
    """double-well trap: barrier 49/32, curvatures 7/2 and -63/16 (docs/reference-values.md C13); barrier-H scales them."""
    d = ian.double_well_trap(1.0)
    assert d["barriers"] == (1.53125, 1.53125) and d["curvature_min"] == 3.5 and d["curvature_saddle"] == -3.9375
    k = float(ian.kramers_rate(2.0, 0.5))
    assert k == pytest.approx(2 * 2 * math.sqrt(3.9375 * 3.5) / (2 * math.pi) * math.exp(-2 * 1.53125 / 0.5), rel=1e-14)


def test_second_metric_computations_match_the_toolkit_and_see_a_missing_centring():
    """Trace-identity CKA, Gram-form linear CKA, corrcoef RSA: equal to the toolkit; an uncentred CKA is not."""
    import numpy as np

    from contrastive_bounds.numerics.alignment._cka import cka_rho, cosine_gram, cosine_gram_cka, linear_cka
    from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity, rsa_r

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((40, 6)), rng.standard_normal((40, 5))
    y[:, :3] += x[:, :3]
    a, b = cosine_gram(x), cosine_gram(y)
    assert im.cka_trace(a, b) == pytest.approx(cosine_gram_cka(a, b), rel=1e-12)
    assert im.linear_cka_gram_form(x, y) == pytest.approx(linear_cka(x, y, debiased=False), rel=1e-12)
    assert im.rsa_corrcoef(a, b) == pytest.approx(rsa_from_similarity(a, b), rel=1e-12)
    assert im.rho_direct(a, b) == pytest.approx(cka_rho(a, b), rel=1e-12)
    assert im.r_direct(a, b) == pytest.approx(rsa_r(a, b), rel=1e-12)
    uncentred = float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    assert not agreement("cka", "", uncentred, im.cka_trace(a, b), rtol=1e-9).ok


@pytest.mark.slow
def test_population_losses_mp_match_the_toolkit_and_c06_style_reference():
    """The mpmath per-anchor formula equals population_loss_gap (float64) to 1e-12."""
    import numpy as np

    from contrastive_bounds.numerics.alignment._training import population_loss_gap

    rng = np.random.default_rng(1)
    z1, z2 = rng.standard_normal((12, 4)), rng.standard_normal((12, 4))
    y = np.arange(12) % 3
    got = population_loss_gap(z1, z2, y, tau=0.3)
    want = im.population_losses_mp(z1, z2, y, 0.3)
    assert got[0] == pytest.approx(want[0], rel=1e-12) and got[1] == pytest.approx(want[1], rel=1e-12)


def test_agreement_flags_non_finite_and_large_differences():
    assert agreement("q", "", math.inf, math.inf).ok
    assert not agreement("q", "", math.inf, 1.0).ok
    assert not agreement("q", "", 1.0 + 1e-8, 1.0).ok and agreement("q", "", 1.0 + 1e-11, 1.0).ok
