"""Distribution tests of a standard normal generator, for the fused generator before it is a default.

A sample is an array ``x[k, i]``: the normal of step k for element (chain coordinate) i, exactly as
the simulator consumes them (:func:`fused_sample`). The tests, each with its p-value under the
hypothesis "iid N(0, 1)":

* law (:func:`law_tests`): the first four moments (z-tests with the exact variances of N(0, 1)
  moments: Var x = 1, Var x² = 2, Var x³ = 15, Var x⁴ = 96), Kolmogorov–Smirnov (asymptotic
  Kolmogorov distribution) and Anderson–Darling (the case of a fully specified law; asymptotic
  distribution by Marsaglia & Marsaglia, J. Stat. Software 9(2), 2004) on the sorted sample, and
  the two-sided tail frequencies beyond 4σ and 5σ (exact binomial tests);
* independence (:func:`independence_tests`): correlation of the two normals of a Box–Muller pair
  (steps 2p, 2p + 1) and of their squares (the pair shares its radius), a 20 × 20 chi-square test of
  the pair's joint law, the correlation across successive pairs (steps 2p + 1, 2p + 2), and across
  elements at lags 1 and half the elements (adjacent chains; the boundary between two shards).

Correlation tests use the z-statistic sqrt(n)·r (n pairs; under independence r·sqrt(n) → N(0, 1)).
Sources: Stephens (1974, JASA 69) for EDF tests; Box & Muller (1958).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special, stats

__all__ = ["NormalTest", "fused_sample", "law_tests", "independence_tests", "anderson_darling_normal",
           "kolmogorov_smirnov_normal", "ad_asymptotic_cdf"]


@dataclass(frozen=True)
class NormalTest:
    """One test: ``name``, its ``statistic`` (z, D, A², chi², count), ``p_value`` and a ``detail`` line."""

    name: str
    statistic: float
    p_value: float
    detail: str

    def passed(self, alpha: float) -> bool:
        return self.p_value >= alpha


def fused_sample(seed: int, num_steps: int, elements: int, dtype: Any = np.float32, offset: int = 0) -> np.ndarray:
    """``(num_steps, elements)`` normals of the ``"fused-threefry"`` generator for steps 0..num_steps−1
    (``num_steps`` even), element counters ``offset + i``: what the simulator draws.

    Drawn a block of pairs at a time (memory: the result plus one block)."""
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.langevin._fused_rng import fused_normal_pairs
    from contrastive_bounds.numerics.langevin._noise import noise_key

    if num_steps % 2:
        raise ValueError(f"num_steps={num_steps} must be even (steps come in Box-Muller pairs)")
    key = noise_key(seed, "fused-threefry")
    out = np.empty((num_steps, elements), np.dtype(dtype))
    block = max(1, min(num_steps // 2, (1 << 24) // max(1, elements)))
    draw = jax.jit(lambda first: fused_normal_pairs(key, first + jnp.arange(block, dtype=jnp.uint32), (elements,),
                                                    dtype, jnp.uint32(offset)))
    for p0 in range(0, num_steps // 2, block):
        pairs = np.asarray(draw(jnp.uint32(p0)))
        m = min(block, num_steps // 2 - p0)
        out[2 * p0:2 * (p0 + m):2] = pairs[:m].real
        out[2 * p0 + 1:2 * (p0 + m):2] = pairs[:m].imag
    return out


def ad_asymptotic_cdf(z: float) -> float:
    """P(A² ≤ z) for the Anderson–Darling statistic of a fully specified continuous law, n → ∞
    (Marsaglia & Marsaglia 2004, ``ADinf``; error < 2e-6)."""
    if z <= 0:
        return 0.0
    if z < 2:
        return math.exp(-1.2337141 / z) / math.sqrt(z) * (
            2.00012 + (0.247105 - (0.0649821 - (0.0347962 - (0.011672 - 0.00168691 * z) * z) * z) * z) * z)
    return math.exp(-math.exp(1.0776 - (2.30695 - (0.43424 - (0.082433 - (0.008056 - 0.0003146 * z) * z) * z) * z) * z))


def _sorted_chunks(xs: np.ndarray, chunk: int = 1 << 22):
    for a in range(0, xs.size, chunk):
        yield a, xs[a:a + chunk].astype(np.float64)


def kolmogorov_smirnov_normal(xs_sorted: np.ndarray) -> tuple[float, float]:
    """(D, p) of the one-sample KS test against N(0, 1) on a sorted sample; asymptotic p-value
    (``scipy.stats.kstwobign``: exact to O(n^-1/2) relative, ample at n ≥ 10^6)."""
    n = xs_sorted.size
    d = 0.0
    for a, x in _sorted_chunks(xs_sorted):
        u = special.ndtr(x)
        i = np.arange(a + 1, a + x.size + 1, dtype=np.float64)
        d = max(d, float(np.max(i / n - u)), float(np.max(u - (i - 1) / n)))
    return d, float(stats.kstwobign.sf(math.sqrt(n) * d))


def anderson_darling_normal(xs_sorted: np.ndarray) -> tuple[float, float]:
    """(A², p) of the Anderson–Darling test against the fully specified N(0, 1) on a sorted sample:
    A² = −n − (1/n) Σ (2i − 1)[log Φ(x_(i)) + log Φ(−x_(n+1−i))], with ``log_ndtr`` for the tails."""
    n = xs_sorted.size
    total = 0.0
    for a, x in _sorted_chunks(xs_sorted):
        i = np.arange(a + 1, a + x.size + 1, dtype=np.float64)
        # term (2i − 1) log Φ(x_(i)), and for j = n + 1 − i: (2(n + 1 − j) − 1) log Φ(−x_(j))
        total += float(np.sum((2 * i - 1) * special.log_ndtr(x)))
        total += float(np.sum((2 * (n + 1 - i) - 1) * special.log_ndtr(-x)))
    a2 = -n - total / n
    return a2, 1.0 - ad_asymptotic_cdf(a2)


def _z(name: str, value: float, expected: float, var: float, n: int, what: str) -> NormalTest:
    z = (value - expected) / math.sqrt(var / n)
    return NormalTest(name, z, float(2 * stats.norm.sf(abs(z))), f"{what} = {value:.6g} (N(0,1): {expected:g}), z = {z:+.2f}")


def law_tests(x: np.ndarray) -> list[NormalTest]:
    """Moments 1-4, KS, AD and the tails beyond 4σ and 5σ of the whole sample ``x`` (any shape)."""
    flat = np.ravel(x)
    n = flat.size
    sums = np.zeros(4)
    for _, c in _sorted_chunks(flat):
        c2 = c * c
        sums += (c.sum(), c2.sum(), (c2 * c).sum(), (c2 * c2).sum())
    m = sums / n
    out = [_z("mean", m[0], 0.0, 1.0, n, "E[x]"), _z("second moment", m[1], 1.0, 2.0, n, "E[x^2]"),
           _z("third moment", m[2], 0.0, 15.0, n, "E[x^3]"), _z("fourth moment", m[3], 3.0, 96.0, n, "E[x^4]")]
    xs = np.sort(flat)
    d, p = kolmogorov_smirnov_normal(xs)
    out.append(NormalTest("Kolmogorov-Smirnov", d, p, f"D = {d:.3g} (sqrt(n) D = {math.sqrt(n) * d:.3f}), n = {n:.3g}"))
    a2, p = anderson_darling_normal(xs)
    out.append(NormalTest("Anderson-Darling", a2, p, f"A^2 = {a2:.3f}, n = {n:.3g}"))
    for k in (4.0, 5.0):
        count = int(np.searchsorted(xs, -k, side="left") + (n - np.searchsorted(xs, k, side="right")))
        p_k = float(2 * stats.norm.sf(k))
        res = stats.binomtest(count, n, p_k)
        ci = res.proportion_ci(0.999)
        out.append(NormalTest(f"tail |x| > {k:g}", count, float(res.pvalue),
                              f"{count} beyond {k:g} sigma, expected {n * p_k:.1f}; 99.9% interval of the rate "
                              f"[{ci.low:.3g}, {ci.high:.3g}] vs {p_k:.3g}"))
    return out


def _chunked_pairs(a: np.ndarray, b: np.ndarray, chunk: int = 1 << 21):
    a, b = np.ravel(a), np.ravel(b)
    for i in range(0, a.size, chunk):
        yield a[i:i + chunk].astype(np.float64), b[i:i + chunk].astype(np.float64)


def _corr(name: str, a: np.ndarray, b: np.ndarray, what: str, square: bool = False) -> NormalTest:
    n, sa, sb, saa, sbb, sab = 0, 0.0, 0.0, 0.0, 0.0, 0.0
    for ca, cb in _chunked_pairs(a, b):
        if square:
            ca, cb = ca * ca, cb * cb
        n += ca.size
        sa, sb = sa + ca.sum(), sb + cb.sum()
        saa, sbb, sab = saa + (ca * ca).sum(), sbb + (cb * cb).sum(), sab + (ca * cb).sum()
    cov = sab / n - (sa / n) * (sb / n)
    r = cov / math.sqrt((saa / n - (sa / n) ** 2) * (sbb / n - (sb / n) ** 2))
    z = r * math.sqrt(n)
    return NormalTest(name, z, float(2 * stats.norm.sf(abs(z))), f"{what}: r = {r:+.3g}, z = {z:+.2f}, n = {n:.3g}")


def _chi2_pairs(a: np.ndarray, b: np.ndarray, cells: int = 20) -> NormalTest:
    counts = np.zeros(cells * cells, np.int64)
    for ca, cb in _chunked_pairs(a, b):
        ia = np.minimum((special.ndtr(ca) * cells).astype(np.int64), cells - 1)
        ib = np.minimum((special.ndtr(cb) * cells).astype(np.int64), cells - 1)
        counts += np.bincount(ia * cells + ib, minlength=cells * cells)
    expected = counts.sum() / cells**2
    chi2 = float(np.sum((counts - expected) ** 2) / expected)
    dof = cells**2 - 1
    return NormalTest("pair joint law (chi-square)", chi2, float(stats.chi2.sf(chi2, dof)),
                      f"(Phi(x_2p), Phi(x_2p+1)) in {cells}x{cells} equal cells: chi^2 = {chi2:.1f}, {dof} dof")


def independence_tests(x: np.ndarray) -> list[NormalTest]:
    """Independence tests of ``x[k, i]`` (steps × elements, an even number of steps)."""
    even, odd = x[0::2], x[1::2]
    half = x.shape[1] // 2
    return [
        _corr("pair: x_2p vs x_2p+1", even, odd, "the two normals of a Box-Muller pair"),
        _corr("pair: squares", even, odd, "x_2p^2 vs x_2p+1^2 (shared radius)", square=True),
        _chi2_pairs(even, odd),
        _corr("successive pairs: x_2p+1 vs x_2p+2", x[1:-1:2], x[2::2], "last normal of a pair vs first of the next"),
        _corr("adjacent elements", x[:, :-1], x[:, 1:], "element i vs i+1 (neighbouring chains)"),
        _corr(f"elements at lag {half}", x[:, :half], x[:, half:2 * half], "element i vs i+elements/2 (two shards)"),
    ]
