"""Contrastive losses (THEOREMS.md B1, B2; cases C06, C07) against an independent mpmath reference."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds.numerics.alignment import losses as L
from contrastive_bounds.theory.alignment import loss_gap_value

mp.mp.dps = 40


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
def test_supcon_matches_mpmath(tau):
    rng = np.random.default_rng(5)
    z1, z2 = rng.standard_normal((2, 7, 3))
    y = np.array([0, 1, 1, 2, 0, 2, 1])
    assert _rel(L.supcon_loss(z1, z2, y, tau=tau), ref_supcon(z1, z2, y, tau)) < 1e-12


def test_supcon_single_view_excluded_anchors_c06():
    """C06: SupCon reference with anchors 0 and 3 (no positive) excluded."""
    f = np.array([[1, 0, 0], [0.6, 0.8, 0], [0, 0.8, 0.6], [0, 0, 1.0]])
    y = np.array([0, 1, 1, 3])
    assert float(L.supcon_loss(f, None, y, tau=0.8, empty="exclude")) == pytest.approx(0.875701372216451689, rel=1e-12)
    assert float(L.supcon_loss(f, None, y, tau=0.1, empty="exclude")) == pytest.approx(0.514009511796244864, rel=1e-12)
    assert _rel(L.supcon_loss(f, None, y, tau=0.8, empty="exclude"), ref_supcon(f, None, y, 0.8)) < 1e-12
    with pytest.raises(ValueError, match="anchor 0 has no positive"):
        L.supcon_loss(f, None, y, tau=0.8)


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


def test_masked_gradient_c07():
    """C07: L(tau) = -s0/tau + lse(s/tau) with a -inf entry: value and dL/dtau (not NaN)."""
    s = jnp.array([[0.9, 0.1, -jnp.inf]])
    pw = jnp.array([[1.0, 0.0, 0.0]])
    dm = jnp.array([[True, True, True]])
    f = lambda tau: L._core(s, pw, dm, tau)[0]  # noqa: E731
    assert float(f(0.1)) == pytest.approx(3.35406372895768832e-4, rel=1e-12)
    assert float(jax.grad(f)(0.1)) == pytest.approx(0.0268280104373182483, rel=1e-12)
    res = L.anchor_losses(np.asarray(s), pw, dm, tau=0.1)
    assert float(res.losses[0]) == pytest.approx(3.35406372895768832e-4, rel=1e-12)


def test_masked_logsumexp_empty_row_gradient_is_zero():
    x = jnp.array([[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]])
    m = jnp.array([[True, True, False], [False, False, False]])
    out = L.masked_logsumexp(x, m)
    assert float(out[0]) == pytest.approx(math.log(math.e + math.e ** 2), rel=1e-14) and out[1] == -jnp.inf
    g = jax.grad(lambda a: jnp.where(m.any(1), L.masked_logsumexp(a, m), 0.0).sum())(x)
    sm = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()
    np.testing.assert_allclose(np.asarray(g), [[sm[0], sm[1], 0.0], [0, 0, 0]], rtol=1e-14, atol=0)


def test_zero_row_norm_gradient_and_projection_c07():
    """C07: gradient of a masked norm at a zero row is not NaN; projecting a zero vector raises."""
    g = jax.grad(lambda z: L._safe_normalize(z).sum())(jnp.zeros((2, 3)))
    assert np.all(np.isfinite(np.asarray(g)))
    with pytest.raises(ValueError, match="zero row at index"):
        L.normalize(np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="zero row"):
        L.info_nce_loss(np.zeros((3, 2)), np.ones((3, 2)), tau=0.5)


def test_bad_inputs_name_the_argument():
    z = np.ones((3, 2)) + np.arange(6).reshape(3, 2)
    with pytest.raises(ValueError, match="tau"):
        L.info_nce_loss(z, z, tau=0.0)
    with pytest.raises(ValueError, match="tau"):
        L.info_nce_loss(z, z, tau=float("nan"))
    with pytest.raises(ValueError, match="z"):
        L.info_nce_loss(z * np.nan, z, tau=1.0)
    with pytest.raises(ValueError, match="batch_size=1"):
        L.info_nce_loss(z[:1], z[:1], tau=1.0)


def test_jit_batch_loss_equals_validated_loss():
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
