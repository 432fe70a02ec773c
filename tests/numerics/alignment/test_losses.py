"""Contrastive losses (docs/theorems.md B1, B2; cases C06, C07) against an independent mpmath reference."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import contrastive_bounds.numerics.alignment._loss_core as loss_core
import contrastive_bounds.numerics.alignment._losses as L
from contrastive_bounds.numerics.alignment._loss_core import masked_logsumexp
from contrastive_bounds.theory import loss_gap_value



@pytest.fixture(autouse=True)
def _forty_digits():
    """The mpmath references of this module work at 40 digits; the global precision is restored after each
    test so that other modules' mpmath comparisons see the default."""
    with mp.workdps(40):
        yield


# ------------------------------------------------------------------ independent mpmath reference
def _cos(u, v):
    dot = mp.fsum(mp.mpf(a) * mp.mpf(b) for a, b in zip(u, v))
    nu = mp.sqrt(mp.fsum(mp.mpf(a) ** 2 for a in u))
    nv = mp.sqrt(mp.fsum(mp.mpf(b) ** 2 for b in v))
    return dot / (nu * nv)


def ref_two_view(z1, z2, labels, tau, kind, coupled=False, anchors="first"):
    """Direct transcription of B1 with loops, 40 digits."""
    tau = mp.mpf(tau)
    b = len(z1)
    views = [z1, z2]
    rows = [(0, i) for i in range(b)] + ([(1, i) for i in range(b)] if anchors == "both" else [])
    total = mp.mpf(0)
    for v, i in rows:
        a = views[v][i]
        p = views[1 - v][i]
        terms = []
        for t in range(b):
            if t == i or (kind == "nscl" and labels[t] == labels[i]):
                continue
            terms += [mp.e ** (_cos(a, z1[t]) / tau), mp.e ** (_cos(a, z2[t]) / tau)]
        if coupled:
            terms.append(mp.e ** (_cos(a, p) / tau))
        total += -_cos(a, p) / tau + mp.log(mp.fsum(terms))
    return total / len(rows)


def ref_supcon(z1, z2, labels, tau):
    tau = mp.mpf(tau)
    feats = list(z1) + (list(z2) if z2 is not None else [])
    labs = list(labels) + (list(labels) if z2 is not None else [])
    losses = []
    for a in range(len(feats)):
        others = [k for k in range(len(feats)) if k != a]
        pos = [k for k in others if labs[k] == labs[a]]
        if not pos:
            continue
        den = mp.log(mp.fsum(mp.e ** (_cos(feats[a], feats[k]) / tau) for k in others))
        losses.append(-mp.fsum(_cos(feats[a], feats[p]) / tau - den for p in pos) / len(pos))
    return mp.fsum(losses) / len(losses)


def _rel(x, ref):
    return abs(mp.mpf(float(x)) - ref) / abs(ref)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("tau", [0.07, 0.5, 2.0])
@pytest.mark.parametrize("coupled", [False, True])
@pytest.mark.slow
def test_cl_nscl_match_mpmath(seed, tau, coupled):
    """float64 CL/NSCL (decoupled and coupled, one or both anchor views) equal a 40-digit reference to 1e-12."""
    rng = np.random.default_rng(seed)
    z1, z2 = rng.standard_normal((2, 6, 4))
    y = np.array([0, 1, 0, 2, 1, 2])
    for anchors in ("first", "both"):
        cl = L.info_nce_loss(z1, z2, tau=tau, coupled=coupled, anchors=anchors)
        assert _rel(cl, ref_two_view(z1, z2, y, tau, "cl", coupled, anchors)) < 1e-12
        ns = L.nscl_loss(z1, z2, y, tau=tau, coupled=coupled, anchors=anchors)
        assert _rel(ns, ref_two_view(z1, z2, y, tau, "nscl", coupled, anchors)) < 1e-12


@pytest.mark.parametrize("tau", [0.1, 0.8])
@pytest.mark.slow
def test_supcon_matches_mpmath(tau):
    """SupCon equals the 40-digit reference to 1e-12."""
    rng = np.random.default_rng(5)
    z1, z2 = rng.standard_normal((2, 7, 3))
    y = np.array([0, 1, 1, 2, 0, 2, 1])
    assert _rel(L.supcon_loss(z1, z2, y, tau=tau), ref_supcon(z1, z2, y, tau)) < 1e-12


@pytest.mark.slow
def test_supcon_single_view_excluded_anchors_c06():
    """C06: SupCon reference with anchors 0 and 3 (no positive) excluded."""
    f = np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0.8, 0.6], [0, 0, 1.0]])
    y = np.array([0, 1, 1, 3])
    assert float(L.supcon_loss(f, None, y, tau=0.8, empty="exclude")) == pytest.approx(0.875701372216451689, rel=1e-12)
    assert float(L.supcon_loss(f, None, y, tau=0.1, empty="exclude")) == pytest.approx(0.514009511796244864, rel=1e-12)
    assert _rel(L.supcon_loss(f, None, y, tau=0.8, empty="exclude"), ref_supcon(f, None, y, 0.8)) < 1e-12
    with pytest.raises(ValueError, match="anchor 0 has no positive"):
        L.supcon_loss(f, None, y, tau=0.8)


@pytest.mark.slow
def test_nscl_empty_negative_set_c06():
    """C06: an NSCL anchor whose batch has no other-class sample raises naming it; exclusion is counted."""
    rng = np.random.default_rng(0)
    z1, z2 = rng.standard_normal((2, 4, 3))
    with pytest.raises(ValueError, match="anchor 0 has no denominator"):
        L.nscl_loss(z1, z2, np.zeros(4, int), tau=0.5)
    y = np.array([0, 0, 0, 1])
    sim = L.cosine_similarity_matrix(z1, jnp.concatenate([z1, z2]))
    pw, dm = L.view_masks(y, kind="nscl")
    dm = np.asarray(dm).copy()
    dm[2] = False  # fully masked row
    res = L.anchor_losses(sim, pw, dm, tau=0.5, empty="exclude")
    assert res.num_excluded == 1 and not bool(res.included[2]) and float(res.losses[2]) == 0.0
    assert np.all(np.isfinite(np.asarray(res.losses)))
    with pytest.raises(ValueError, match="anchor 2"):
        L.anchor_losses(sim, pw, dm, tau=0.5)


@pytest.mark.slow
def test_masked_gradient_c07():
    """C07: L(tau) = -s0/tau + lse(s/tau) with a -inf entry: value and dL/dtau (not NaN)."""
    s = jnp.array([[0.9, 0.1, -jnp.inf]])
    pw = jnp.array([[1.0, 0.0, 0.0]])
    dm = jnp.array([[True, True, True]])
    f = lambda tau: L.anchor_loss_terms(s, pw, dm, tau)[0]  # noqa: E731
    assert float(f(0.1)) == pytest.approx(3.35406372895768832e-4, rel=1e-12)
    assert float(jax.grad(f)(0.1)) == pytest.approx(0.0268280104373182483, rel=1e-12)
    res = L.anchor_losses(np.asarray(s), pw, dm, tau=0.1)
    assert float(res.losses[0]) == pytest.approx(3.35406372895768832e-4, rel=1e-12)


@pytest.mark.slow
def test_masked_logsumexp_empty_row_gradient_is_zero():
    """A fully masked row gives -inf and a zero gradient (not NaN), while other rows keep their values and
    softmax gradients."""
    x = jnp.array([[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])
    m = jnp.array([[True, True, False], [False, False, False]])
    out = L.masked_logsumexp(x, m)
    assert float(out[0]) == pytest.approx(math.log(math.e + math.e ** 2), rel=1e-14) and out[1] == -jnp.inf
    g = jax.grad(lambda a: jnp.where(m.any(1), L.masked_logsumexp(a, m), 0.0).sum())(x)
    sm = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    np.testing.assert_allclose(np.asarray(g), [[sm[0], sm[1], 0.0], [0, 0, 0]], rtol=1e-14, atol=0)


def test_zero_row_norm_gradient_and_projection_c07():
    """C07: gradient of a masked norm at a zero row is not NaN; projecting a zero vector raises."""
    g = jax.grad(lambda z: loss_core._safe_normalize(z).sum())(jnp.zeros((2, 3)))
    assert np.all(np.isfinite(np.asarray(g)))
    with pytest.raises(ValueError, match="zero row at index"):
        L.normalize(np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="zero row"):
        L.info_nce_loss(np.zeros((3, 2)), np.ones((3, 2)), tau=0.5)


def test_bad_inputs_name_the_argument():
    """Non-positive or non-finite tau, malformed embeddings and a batch of one are refused naming the
    argument."""
    z = np.ones((3, 2)) + np.arange(6).reshape(3, 2)
    with pytest.raises(ValueError, match="tau"):
        L.info_nce_loss(z, z, tau=0.0)
    with pytest.raises(ValueError, match="tau"):
        L.info_nce_loss(z, z, tau=float("nan"))
    with pytest.raises(ValueError, match="z"):
        L.info_nce_loss(z * np.nan, z, tau=1.0)
    with pytest.raises(ValueError, match="batch_size=1"):
        L.info_nce_loss(z[:1], z[:1], tau=1.0)


@pytest.mark.slow
def test_jit_batch_loss_equals_validated_loss():
    """The jitted batch loss equals the validated losses (NSCL coupled, SupCon) to 1e-14."""
    rng = np.random.default_rng(3)
    z1, z2 = rng.standard_normal((2, 8, 5))
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    f = jax.jit(L.batch_loss, static_argnames=("kind", "coupled", "anchors"))
    assert float(f(z1, z2, y, tau=0.3, kind="nscl", coupled=True)) == pytest.approx(
        float(L.nscl_loss(z1, z2, y, tau=0.3, coupled=True)), rel=1e-14)
    assert float(f(z1, z2, y, tau=0.3, kind="supcon")) == pytest.approx(float(L.supcon_loss(z1, z2, y, tau=0.3)), rel=1e-14)


@given(
    seed=st.integers(0, 2**31 - 1),
    bucket=st.sampled_from([(8, 3), (16, 4)]),
    num_classes=st.integers(2, 5),
    tau=st.floats(0.05, 5.0),
    coupled=st.booleans(),
)
@pytest.mark.slow
def test_loss_gap_bound_b2(seed, bucket, num_classes, tau, coupled):
    """B2: L^NSCL <= L^DCL <= L^NSCL + log(1 + e^{2/tau} n_max/(N - n_max)) for any embeddings and labels."""
    b, d = bucket  # shapes from two buckets (C14)
    rng = np.random.default_rng(seed)
    z1, z2 = rng.standard_normal((2, b, d))
    y = rng.integers(0, num_classes, b)
    y[0], y[1] = 0, 1  # at least two classes
    counts = np.bincount(y)
    dcl = float(L.info_nce_loss(z1, z2, tau=tau, coupled=coupled))
    nscl = float(L.nscl_loss(z1, z2, y, tau=tau, coupled=coupled))
    bound = loss_gap_value(tau, counts.max() / b)
    assert nscl <= dcl + 1e-12 * abs(dcl)
    assert dcl - nscl <= bound * (1 + 1e-12) + 1e-12


@pytest.mark.slow
def test_masked_logsumexp_of_an_all_minus_inf_row_is_minus_inf_with_zero_gradient():
    """A row whose unmasked entries are all -inf gives -inf (it had given NaN) with a finite, zero gradient;
    other rows keep their exact values and softmax gradients, also under jit."""
    x = jnp.array([[-jnp.inf, -jnp.inf, 1.0], [1.0, 2.0, 3.0], [-jnp.inf, 0.5, -jnp.inf]])
    m = jnp.array([[True, True, False], [True, False, True], [True, True, False]])
    out = masked_logsumexp(x, m)
    assert out[0] == -jnp.inf
    assert float(out[1]) == pytest.approx(math.log(math.e + math.e ** 3), rel=1e-15)
    assert float(out[2]) == 0.5
    g_all = jax.grad(lambda a: masked_logsumexp(a, jnp.array([True, True])))(jnp.array([-jnp.inf, -jnp.inf]))
    np.testing.assert_array_equal(np.asarray(g_all), [0.0, 0.0])
    g = jax.grad(lambda a: jnp.sum(jnp.where(jnp.isfinite(masked_logsumexp(a, m)), masked_logsumexp(a, m), 0.0)))(x)
    sm = np.exp([1.0, 3.0]) / np.exp([1.0, 3.0]).sum()
    np.testing.assert_allclose(np.asarray(g), [[0, 0, 0], [sm[0], 0, sm[1]], [0, 1, 0]], rtol=1e-14, atol=0)
    assert float(jax.jit(masked_logsumexp)(jnp.array([-jnp.inf, -jnp.inf]), jnp.array([True, True]))) == -math.inf


# ------------------------------------------------------------------ tiny tau (B1)
# References: closed forms for orthonormal batches, an independent 60-digit mpmath transcription of
# docs/theorems.md B1, and the tau -> 0 limit tau * L -> mean_i (max_{D_i} s - s_i,pos). Logit differences
# are formed before dividing by tau and means do not overflow, so tiny tau gives finite, exact losses.
TINY64 = float(np.finfo(np.float64).tiny)
TINY32 = float(np.finfo(np.float32).tiny)


def _ref_info_nce(z1, z2, tau, coupled):
    """B1, decoupled or coupled, first views as anchors; 60 digits (handles exponents like 1e300)."""
    with mp.workdps(60):
        tau = mp.mpf(tau)
        unit = lambda v: [mp.mpf(float(x)) / mp.sqrt(mp.fsum(mp.mpf(float(y)) ** 2 for y in v)) for x in v]  # noqa: E731
        a = [unit(v) for v in z1]
        b = [unit(v) for v in z2]
        cos = lambda u, v: mp.fsum(x * y for x, y in zip(u, v))  # noqa: E731
        total = mp.mpf(0)
        for i in range(len(a)):
            terms = [cos(a[i], w[t]) for t in range(len(a)) if t != i for w in (a, b)]
            if coupled:
                terms.append(cos(a[i], b[i]))
            top = max(terms)
            total += (top - cos(a[i], b[i])) / tau + mp.log(mp.fsum(mp.exp((s - top) / tau) for s in terms))
        return total / len(a)


@pytest.mark.parametrize("tau", [TINY64, 1e-300, 1e-30, 1e-3, 0.5, 1e300])
@pytest.mark.slow
def test_info_nce_orthonormal_batch_closed_form(tau):
    """Rows e_1..e_B, z1 = z2: decoupled L = -1/tau + log(2(B-1)) and coupled L = log1p(2(B-1) e^{-1/tau}) for
    tau from the smallest normal float64 to 1e300 (tiny tau had given NaN)."""
    b = 4
    z = np.eye(b)
    dec = float(L.info_nce_loss(z, z, tau=tau))
    cpl = float(L.info_nce_loss(z, z, tau=tau, coupled=True))
    assert dec == pytest.approx(-1.0 / tau + math.log(2 * (b - 1)), rel=1e-14, abs=1e-14)
    assert cpl == pytest.approx(float(mp.log1p(2 * (b - 1) * mp.exp(-1 / mp.mpf(tau)))), rel=1e-14, abs=1e-300)
    both = float(L.info_nce_loss(z, z, tau=tau, anchors="both"))
    assert both == pytest.approx(dec, rel=1e-15)


@pytest.mark.slow
def test_info_nce_mean_does_not_overflow_at_the_smallest_tau():
    """Every anchor's loss is 2/tau + log 2 = 2^1023 at the smallest tau: the mean is that number, not the inf
    a sum-then-divide mean gave."""
    z1 = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0]])
    loss = float(L.info_nce_loss(z1, -z1, tau=TINY64))
    assert loss == 2.0**1023  # + log 2 is below one ulp
    # every anchor: positive -1, negatives {-1, 1, 1, -1}: 2 + log(2 e^2 + 2 e^-2)
    assert float(L.info_nce_loss(z1, -z1, tau=0.5)) == pytest.approx(4.0 + math.log(2.0) + math.log1p(math.exp(-4.0)),
                                                                    rel=1e-15)


@pytest.mark.parametrize("tau", [1e-300, 1e-100, 1e-6, 0.07])
@pytest.mark.parametrize("coupled", [False, True])
def test_info_nce_matches_mpmath_at_small_tau(tau, coupled):
    """Decoupled and coupled InfoNCE at tau down to 1e-300 equal a 60-digit mpmath transcription of B1 within
    the rounding that 1/tau amplifies."""
    rng = np.random.default_rng(4)
    z1 = rng.standard_normal((6, 3))
    z2 = z1 + 0.4 * rng.standard_normal((6, 3))
    got = float(L.info_nce_loss(z1, z2, tau=tau, coupled=coupled))
    ref = _ref_info_nce(z1, z2, tau, coupled)
    # cosines carry ~1e-16 absolute rounding, amplified by 1/tau: compare relative to the 1/tau scale
    assert abs(got - float(ref)) <= 1e-13 * max(abs(float(ref)), 1.0 / tau * 1e-2, 1.0)


@given(seed=st.integers(0, 2**32 - 1), log_tau=st.floats(math.log(TINY64), math.log(1e-250)))
def test_info_nce_tau_to_zero_limit(seed, log_tau):
    """tau * L tends to mean_i (max_{D_i} s_i - s_i,pos): at tau <= 1e-250 the log term is invisible and the
    scaled loss is finite and equals that limit."""
    tau = math.exp(log_tau)
    rng = np.random.default_rng(seed)
    z1 = rng.standard_normal((8, 3))
    z2 = rng.standard_normal((8, 3))
    u1 = z1 / np.linalg.norm(z1, axis=1, keepdims=True)
    u2 = z2 / np.linalg.norm(z2, axis=1, keepdims=True)
    s = u1 @ np.concatenate([u1, u2]).T
    gaps = []
    for i in range(8):
        neg = [s[i, t] for t in range(8) if t != i] + [s[i, 8 + t] for t in range(8) if t != i]
        gaps.append(max(neg) - s[i, 8 + i])
    limit = float(np.mean(gaps))
    got = float(L.info_nce_loss(z1, z2, tau=tau)) * tau
    assert math.isfinite(got)
    assert got == pytest.approx(limit, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("fn", ["info_nce", "nscl", "supcon", "supcon_single", "anchor"])
def test_min_tau_refused_naming_tau(fn):
    """Every loss refuses a tau below the dtype's smallest normal number (losses.min_tau) with a ValueError
    naming tau and that floor, and is finite at the floor itself."""
    z = np.eye(4)
    lab = np.array([0, 0, 1, 1])
    calls = {
        "info_nce": lambda tau: L.info_nce_loss(z, z, tau=tau),
        "nscl": lambda tau: L.nscl_loss(z, z, lab, tau=tau),
        "supcon": lambda tau: L.supcon_loss(z, z, lab, tau=tau),
        "supcon_single": lambda tau: L.supcon_loss(z, None, lab, tau=tau),
        "anchor": lambda tau: L.anchor_losses(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]]),
                                              np.array([[True, True]]), tau=tau).losses,
    }
    with pytest.raises(ValueError, match=r"tau=1e-320 .*2\.2250738585072014e-308 for float64"):
        calls[fn](1e-320)
    assert math.isfinite(float(np.asarray(calls[fn](TINY64)).ravel()[0]))


@pytest.mark.slow
def test_min_tau_of_float32_is_its_smallest_normal():
    """min_tau is the smallest normal number of the input's dtype: float32 input is refused below 1.2e-38 and
    computed in float32 at it."""
    z = np.eye(3, dtype=np.float32)
    assert L.min_tau(np.float32) == TINY32 and L.min_tau(np.float64) == TINY64
    with pytest.raises(ValueError, match=r"tau=1e-40 .*1\.1754943508222875e-38 for float32"):
        L.info_nce_loss(z, z, tau=1e-40)
    out = L.info_nce_loss(z, z, tau=TINY32)
    assert out.dtype == jnp.float32
    assert float(out) == pytest.approx(-1.0 / TINY32 + math.log(4.0), rel=1e-6)  # -2^126


def test_overflowing_similarities_raise_instead_of_inf():
    """Similarities whose logits overflow raise naming the anchor and tau instead of returning inf."""
    sim = np.array([[-1e308, 1e308]])
    with pytest.raises(ValueError, match="anchor 0 .*tau=0.5"):
        L.anchor_losses(sim, np.array([[1.0, 0.0]]), np.array([[True, True]]), tau=0.5)


@pytest.mark.slow
def test_batch_loss_gradient_finite_at_tiny_tau():
    """The jitted batch loss at tau = 1e-300 equals the validated loss and has a finite gradient."""
    rng = np.random.default_rng(1)
    z1 = rng.standard_normal((4, 3))
    z2 = z1 + 0.3 * rng.standard_normal((4, 3))
    f = lambda a: L.batch_loss(a, z2, jnp.arange(4), tau=1e-300, kind="cl")  # noqa: E731
    assert float(f(jnp.asarray(z1))) == pytest.approx(float(L.info_nce_loss(z1, z2, tau=1e-300)), rel=1e-14)
    assert np.all(np.isfinite(np.asarray(jax.grad(f)(jnp.asarray(z1)))))


@pytest.mark.slow
def test_x64_off_float64_input_names_the_float32_floor_and_enable_x64():
    """Package default (x64 off), fresh interpreter: float64 input is refused with X64DisabledError (the
    float64 policy); float32 input with tau = 1e-300 is refused naming the float32 floor and enable_x64;
    tau = 1e-30 still runs in float32."""
    code = (
        "import numpy as np\n"
        "from contrastive_bounds.numerics.alignment import info_nce_loss\n"
        "z = np.eye(3)[:2]\n"
        "try:\n    info_nce_loss(z, z, tau=0.5)\nexcept RuntimeError as e:\n    print(type(e).__name__, e)\n"
        "z = z.astype(np.float32)\n"
        "try:\n    info_nce_loss(z, z, tau=1e-300)\nexcept ValueError as e:\n    print(e)\n"
        "print(float(info_nce_loss(z, z, tau=1e-30)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    refused, msg, val = out.stdout.strip().splitlines()
    assert refused.startswith("X64DisabledError contrastive_bounds.numerics.alignment.info_nce_loss got float64 input")
    assert "tau=1e-300" in msg and "1.1754943508222875e-38" in msg and "enable_x64" in msg
    assert float(val) == pytest.approx(-1e30, rel=1e-6)

