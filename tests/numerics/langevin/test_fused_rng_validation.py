"""The fused generator's law at CI scale (10^7 normals, as the simulator draws them) and the tests used
to validate it: each statistic is checked against scipy, and each test is shown to reject a generator
that is slightly wrong (so a pass means something). The 10^8-normal validation that made the fused
generator the float32 default is benchmarks/validate_fused_rng.py (results in docs/simulator.md)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from contrastive_bounds.numerics.langevin._noise_validation import (
    ad_asymptotic_cdf,
    anderson_darling_normal,
    fused_sample,
    independence_tests,
    kolmogorov_smirnov_normal,
    law_tests,
)

FAMILY_ALPHA = 1e-4  # fixed seed: deterministic, but a correct generator fails with probability <= 1e-4


@pytest.fixture(scope="module")
def sample():
    return fused_sample(20261201, 610, 16384)  # 610 steps x 16384 chains = 1.0e7 float32 normals


@pytest.mark.slow
def test_fused_normals_pass_the_law_and_independence_tests_at_ten_million(sample):
    """Moments 1-4, KS, AD, tails beyond 4 and 5 sigma, pair/successive/cross-chain independence of
    10^7 fused normals: every p-value above the Bonferroni level (family false alarm 1e-4)."""
    assert sample.shape == (610, 16384) and sample.dtype == np.float32
    results = law_tests(sample) + independence_tests(sample)
    assert len(results) == 14
    alpha = FAMILY_ALPHA / len(results)
    failed = [f"{r.name}: p={r.p_value:.3g} ({r.detail})" for r in results if not r.passed(alpha)]
    assert not failed, failed


def test_the_sample_is_what_the_simulator_draws(sample):
    """fused_sample's rows are fused_normals(step) for the same seed (to float32 rounding): the
    validated numbers are the simulator's numbers (steps 2p and 2p+1 the two parts of one pair)."""
    import jax.numpy as jnp

    from contrastive_bounds.numerics.langevin._fused_rng import fused_normals
    from contrastive_bounds.numerics.langevin._noise import noise_key

    import jax

    key = noise_key(20261201, "fused-threefry")
    one_step = jax.jit(lambda k: fused_normals(key, k, (16384,), jnp.float32))
    for step in (0, 1, 2, 609):  # equal to float32 rounding: XLA may fuse the polynomials differently
        np.testing.assert_allclose(np.asarray(one_step(jnp.uint32(step))), sample[step], rtol=2e-6, atol=2e-7)
    assert not np.allclose(sample[0], sample[2])


def test_statistics_equal_scipys_at_small_n():
    """KS D and p, and the AD statistic, equal scipy's (kstest; goodness_of_fit's AD statistic); the
    asymptotic AD law gives Stephens' critical values 1.933 / 2.492 / 3.857 at 10 / 5 / 1 %."""
    x = np.sort(np.random.default_rng(3).standard_normal(3000))
    d, p = kolmogorov_smirnov_normal(x)
    ref = stats.kstest(x, "norm")
    assert d == pytest.approx(ref.statistic, rel=1e-12) and p == pytest.approx(ref.pvalue, abs=0.02)
    a2, _ = anderson_darling_normal(x)
    gof = stats.goodness_of_fit(stats.norm, x, known_params={"loc": 0.0, "scale": 1.0}, statistic="ad",
                                n_mc_samples=10, rng=np.random.default_rng(0))
    assert a2 == pytest.approx(gof.statistic, rel=1e-10)
    for crit, level in ((1.933, 0.90), (2.492, 0.95), (3.857, 0.99)):
        assert ad_asymptotic_cdf(crit) == pytest.approx(level, abs=2e-3)


@pytest.mark.parametrize("defect, test_name", [
    ("variance", "second moment"),
    ("truncated", "tail |x| > 4"),
    ("heavy", "fourth moment"),
    ("shifted_cdf", "Anderson-Darling"),
    ("pair_correlated", "pair: x_2p vs x_2p+1"),
    ("shared_radius", "pair: squares"),
    ("neighbours", "adjacent elements"),
])
def test_each_test_rejects_a_slightly_wrong_generator(defect, test_name):
    """A generator with one small defect (variance 1.01, no tails beyond 3.9 sigma, Student t with 60
    dof, a 0.01 shift, pair correlation 0.01, pairs sharing |x|, neighbouring chains correlated 0.01)
    at 10^6-10^7 draws is rejected by the test aimed at it at the CI level."""
    rng = np.random.default_rng(11)
    n_steps, width = 400, 4096
    x = rng.standard_normal((n_steps, width))
    if defect == "variance":
        x = x * np.sqrt(1.01)
    elif defect == "truncated":
        x = np.where(np.abs(x) > 3.9, rng.uniform(-3.9, 3.9, x.shape), x)
    elif defect == "heavy":
        x = rng.standard_t(60, (n_steps, width)) / np.sqrt(60 / 58)
    elif defect == "shifted_cdf":
        x = x + 0.01
    elif defect == "pair_correlated":
        x[1::2] = 0.9999 * x[1::2] + 0.01 * x[0::2]
    elif defect == "shared_radius":
        r = np.sqrt(x[0::2] ** 2 + x[1::2] ** 2)
        x[1::2] = np.sign(x[1::2]) * np.abs(x[0::2]) * (1 + 0.3 * (r > 2))
    elif defect == "neighbours":
        x[:, 1:] = 0.99995 * x[:, 1:] + 0.01 * x[:, :-1]
    results = {r.name: r for r in law_tests(x.astype(np.float32)) + independence_tests(x.astype(np.float32))}
    assert not results[test_name].passed(FAMILY_ALPHA / len(results)), results[test_name].detail
