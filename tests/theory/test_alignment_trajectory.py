"""Theorem 1's proof links along a trajectory (docs/theorems.md B4), any step-size sequence, any d_0.

Held to a 40-digit mpmath transcription of the recursions (a plain loop), to the independent
``theory.alignment`` implementation for d_0 = 0, and to the chain's ordering L2 <= L3 <= Theorem 1.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds import theory as alignment
import contrastive_bounds.theory._alignment_trajectory as AT



@pytest.fixture(autouse=True)
def _forty_digits():
    """The mpmath references of this module at 40 digits, restored after each test (a module-level
    ``mp.dps`` would change the precision of every later test in the process)."""
    with mp.workdps(40):
        yield


def _mp_chain(etas, tau, b, delta_l10, d0):
    """(L2, L3, Theorem 1) at every t by the recursions themselves, in mpmath."""
    a = 1 / (2 * mp.mpf(tau) ** 2 * b)
    c = mp.mpf(10) ** mp.mpf(delta_l10) / (mp.mpf(tau) * mp.sqrt(b))
    bt, p, s = mp.mpf(d0), mp.mpf(1), mp.mpf(0)
    out = [(mp.mpf(d0),) * 3]
    for e in etas:
        e = mp.mpf(float(e))
        bt = (1 + a * e) * bt + c * e
        p *= 1 + a * e
        s += e
        out.append((bt, p * (d0 + c * s), mp.e ** (a * s) * (d0 + c * s)))
    return out


def _l10(x):
    return -math.inf if x == 0 else float(mp.log10(x))


@pytest.mark.parametrize("d0", [0.0, 0.37])
def test_chain_equals_the_mpmath_recursion(d0):
    """L2 (solved recursion from b_0 = d_0), L3 and Theorem 1 equal the mpmath loop at every step to 1e-12,
    for a non-constant sequence with zero steps, and with d_0 > 0 (the Groenwall extension)."""
    etas = np.array([0.0, 0.5, 2.0, 0.0, 1.25, 3.0, 0.1, 0.7])
    got = AT.link_chain_log10(etas, tau=0.4, batch_size=6, delta_log10=1.3, initial_distance=d0)
    ref = _mp_chain(etas, 0.4, 6, 1.3, d0)
    for t, row in enumerate(ref):
        for name, value in zip(("L2", "L3", "theorem1"), row):
            assert got[name][t] == pytest.approx(_l10(value), abs=1e-12), (name, t)


def test_chain_agrees_with_the_per_step_theory_functions():
    """d_0 = 0: the same numbers as alignment.link_l2_log10 / link_l3_log10 / theorem1_log10 (the other implementation)."""
    rng = np.random.default_rng(3)
    etas = rng.uniform(0, 4, 300) * (rng.uniform(size=300) > 0.2)
    dl10 = math.log10(alignment.delta_value(0.3, 0.1, 0.2))
    got = AT.link_chain_log10(etas, tau=0.3, batch_size=32, delta_log10=dl10)
    kw = dict(tau=0.3, batch_size=32, delta_value=10.0 ** dl10)
    for name, fn in (("L2", alignment.link_l2_log10), ("L3", alignment.link_l3_log10),
                     ("theorem1", alignment.theorem1_log10)):
        np.testing.assert_allclose(got[name][1:], fn(etas, **kw)[1:], rtol=1e-13)
        assert got[name][0] == -math.inf


def test_interval_l2_composes_the_recursion_between_records():
    """L2 over a gap equals running the recursion in mpmath from the measured d at the earlier record; for records
    at every step it is (1 + a eta_t) d_t + c eta_t."""
    etas = np.array([0.3, 1.0, 0.0, 2.0, 0.5, 0.5, 1.5])
    steps = np.array([0, 2, 3, 7])
    dist = np.array([0.0, 0.4, 0.41, 1.7])
    tau, b, dl10 = 0.5, 10, 0.8
    got = AT.link_l2_interval_log10(etas, steps, dist, tau=tau, batch_size=b, delta_log10=dl10)
    a = 1 / (2 * mp.mpf(tau) ** 2 * b)
    c = mp.mpf(10) ** mp.mpf(dl10) / (mp.mpf(tau) * mp.sqrt(b))
    for k in range(3):
        x = mp.mpf(dist[k])
        for e in etas[steps[k]:steps[k + 1]]:
            x = (1 + a * mp.mpf(float(e))) * x + c * mp.mpf(float(e))
        assert got[k] == pytest.approx(_l10(x), abs=1e-12)
    one = AT.link_l2_interval_log10(etas, np.arange(8), np.linspace(0, 1, 8), tau=tau, batch_size=b, delta_log10=dl10)
    direct = np.log10((1 + float(a) * etas) * np.linspace(0, 1, 8)[:-1] + float(c) * etas)
    np.testing.assert_allclose(one[etas > 0], direct[etas > 0], rtol=1e-13)


def test_l1_bound_is_c_plus_a_d():
    """L1: c + a d with c = Delta/(tau sqrt B), a = 1/(2 tau^2 B); the same as alignment.link_l1_bound."""
    d = np.array([0.0, 0.5, 30.0])
    got = AT.link_l1_log10(d, tau=0.7, batch_size=12, delta_log10=math.log10(5.0))
    ref = alignment.link_l1_bound(d, tau=0.7, batch_size=12, delta_value=5.0)
    np.testing.assert_allclose(10.0 ** got, ref, rtol=1e-14)


def test_vacuous_and_huge_delta():
    """Delta infinite: every bound after t = 0 is +inf (never NaN); Delta = 10^5000 stays finite in log10."""
    etas = np.ones(5)
    vac = AT.link_chain_log10(etas, tau=0.5, batch_size=4, delta_log10=math.inf, initial_distance=0.2)
    for v in vac.values():
        assert v[0] == pytest.approx(math.log10(0.2)) and np.all(v[1:] == np.inf)
    assert np.all(AT.link_l1_log10([0.1], tau=0.5, batch_size=4, delta_log10=math.inf) == np.inf)
    assert np.all(AT.link_l2_interval_log10(etas, [0, 5], [0, 1], tau=0.5, batch_size=4, delta_log10=math.inf) == np.inf)
    huge = AT.link_chain_log10(etas, tau=0.5, batch_size=4, delta_log10=5000.0)
    assert np.all(np.isfinite(huge["theorem1"][1:])) and huge["theorem1"][-1] > 5000


@pytest.mark.parametrize("call,match", [
    (lambda: AT.link_chain_log10([], tau=1, batch_size=1, delta_log10=0), r"^step_sizes must be a non-empty 1-D"),
    (lambda: AT.link_chain_log10([1, -1], tau=1, batch_size=1, delta_log10=0), r"^step_sizes\[1\]=-1.0"),
    (lambda: AT.link_chain_log10([1], tau=0, batch_size=1, delta_log10=0), r"^tau=0 is outside"),
    (lambda: AT.link_chain_log10([1], tau=1, batch_size=0, delta_log10=0), r"^batch_size=0 is outside"),
    (lambda: AT.link_chain_log10([1], tau=1, batch_size=1, delta_log10=-math.inf), r"^delta_log10=-inf"),
    (lambda: AT.link_chain_log10([1], tau=1, batch_size=1, delta_log10=0, initial_distance=-1), r"^initial_distance"),
    (lambda: AT.link_l2_interval_log10([1, 1], [0, 1], [0, 0], tau=1, batch_size=1, delta_log10=0), r"from 0 to T=2"),
    (lambda: AT.link_l2_interval_log10([1, 1], [0, 2], [0], tau=1, batch_size=1, delta_log10=0), r"one distance per"),
    (lambda: AT.link_l1_log10([np.nan], tau=1, batch_size=1, delta_log10=0), r"^distance must be finite"),
])
def test_bad_input_names_the_argument(call, match):
    """Out-of-domain input raises ValueError naming the argument (C04)."""
    with pytest.raises(ValueError, match=match):
        call()


@given(etas=st.lists(st.floats(0, 50), min_size=1, max_size=40), d0=st.floats(0, 100),
       tau=st.floats(0.05, 5), b=st.integers(1, 4096), dl10=st.floats(-3, 400))
def test_chain_is_ordered(etas, d0, tau, b, dl10):
    """At every step L2 <= L3 <= Theorem 1 (each link of the proof is looser than the previous), all finite."""
    got = AT.link_chain_log10(etas, tau=tau, batch_size=b, delta_log10=dl10, initial_distance=d0)
    tol = 1e-9
    assert np.all(got["L2"] <= got["L3"] + tol) and np.all(got["L3"] <= got["theorem1"] + tol)
    assert not np.any(np.isnan(got["theorem1"]))
