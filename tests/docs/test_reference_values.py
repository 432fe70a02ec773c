"""The reference cases of docs/reference-values.md are what the toolkit computes: every value in the
page's tables is recomputed here from its closed form with 40-digit mpmath (no toolkit code), and then
the toolkit's own function is held to it, so the page, the tests and the code cannot drift apart."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference-values.md"


def _rows():
    rows = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"C\d\d", cells[0]):
            rows.append(tuple(cells))
    return rows


ROWS = _rows()


def _inputs(text):
    if "=" not in text:
        return {}
    return {k.strip(): v.strip() for k, v in (kv.split("=") for kv in text.split(","))}


def _mpf(x):
    if isinstance(x, Fraction):
        return mp.mpf(x.numerator) / x.denominator
    return mp.mpf(x)


def _value(text):
    return _mpf(Fraction(text)) if "/" in text else mp.mpf(text)


def _theorem1(p):
    c, b, t, dl, tau, s = (mp.mpf(p[k]) for k in ("C", "B", "T", "delta", "tau", "S"))
    eps = mp.sqrt(mp.log(t * b / dl) / (2 * b))
    pi = 1 / c
    delta = 2 * mp.e ** (2 / tau) * (pi + eps) / (1 - pi - eps)
    bound = mp.e ** (s / (2 * tau**2 * b)) * s / (tau * mp.sqrt(b)) * delta
    return eps, delta, bound


X8 = [[1, 0], [0, 1], [1, 1], [2, 0], [0, 3], [1, 2]]
Y8 = [[1], [2], [2.5], [3], [5], [4]]
SUPCON_F = [[1, 0, 0], [0.6, 0.8, 0], [0, 0.8, 0.6], [0, 0, 1]]
SUPCON_Y = [0, 1, 1, 3]


def _hsic1(k, l):
    """Song et al. (2012), eq. 5, with exact rationals."""
    n = len(k)
    kt = [[Fraction(0) if i == j else k[i][j] for j in range(n)] for i in range(n)]
    lt = [[Fraction(0) if i == j else l[i][j] for j in range(n)] for i in range(n)]
    tr = sum(kt[i][j] * lt[j][i] for i in range(n) for j in range(n))
    one_k = sum(map(sum, kt))
    one_l = sum(map(sum, lt))
    kl1 = sum(sum(kt[i]) * sum(lt[i]) for i in range(n))
    return (tr + one_k * one_l / ((n - 1) * (n - 2)) - 2 * kl1 / (n - 2)) / (n * (n - 3))


def _gram(x):
    x = [[Fraction(v).limit_denominator(10) for v in row] for row in x]
    return [[sum(a * b for a, b in zip(u, v)) for v in x] for u in x]


def _biased_cka(x, y):
    k, l = _gram(x), _gram(y)
    n = len(k)

    def centred(m):
        r = [sum(row) / n for row in m]
        a = sum(r) / n
        return [[m[i][j] - r[i] - r[j] + a for j in range(n)] for i in range(n)]

    kc, lc = centred(k), centred(l)
    dot = lambda a, b: sum(a[i][j] * b[i][j] for i in range(n) for j in range(n))  # noqa: E731
    return _mpf(dot(kc, lc)) / mp.sqrt(_mpf(dot(kc, kc)) * _mpf(dot(lc, lc)))


def _supcon(tau):
    """Khosla et al. (2020), eq. 2 (L_out), one view, anchors without a positive excluded."""
    f = [[mp.mpf(str(v)) for v in row] for row in SUPCON_F]
    n, losses = len(f), []
    for i in range(n):
        pos = [p for p in range(n) if p != i and SUPCON_Y[p] == SUPCON_Y[i]]
        if not pos:
            continue
        s = [mp.fsum(a * b for a, b in zip(f[i], f[a])) / tau for a in range(n)]
        lse = mp.log(mp.fsum(mp.e ** s[a] for a in range(n) if a != i))
        losses.append(mp.fsum(lse - s[p] for p in pos) / len(pos))
    return mp.fsum(losses) / len(losses)


def _independent(case, quantity, inputs):
    p = _inputs(inputs) if "=" in inputs else {}
    if case == "C01":
        return {"overflow_tau_float32": 2 / mp.log(mp.mpf("3.4028234663852886e38")),
                "overflow_tau_float64": 2 / mp.log(mp.mpf("1.7976931348623157e308")),
                "log_exp_2_over_tau": mp.log(mp.e ** (2 / mp.mpf(p.get("tau", "1"))))}[quantity]
    if case == "C02":
        eps, delta, bound = _theorem1(p)
        return {"epsilon": eps, "Delta": delta, "bound": bound, "log10_bound": mp.log10(bound)}[quantity]
    if case == "C03":
        c, tau = mp.mpf(p["C"]), mp.mpf(p["tau"])
        return mp.log(1 + mp.e ** (2 / tau) / (c - 1))
    if case == "C06":
        return _supcon(mp.mpf(p["tau"]))
    if case == "C07":
        f = lambda tau: -mp.mpf("0.9") / tau + mp.log(mp.e ** (mp.mpf("0.9") / tau) + mp.e ** (mp.mpf("0.1") / tau))  # noqa: E731
        tau = mp.mpf(p["tau"])
        return f(tau) if quantity == "L" else mp.diff(f, tau)
    if case == "C08":
        k, l = _gram(X8), _gram(Y8)
        parts = {"hsic1_KK": _hsic1(k, k), "hsic1_LL": _hsic1(l, l), "hsic1_KL": _hsic1(k, l)}
        if quantity in parts:
            return _mpf(parts[quantity])
        if quantity == "cka_debiased":
            return _mpf(parts["hsic1_KL"]) / mp.sqrt(_mpf(parts["hsic1_KK"]) * _mpf(parts["hsic1_LL"]))
        return _biased_cka(X8, Y8)
    if case == "C11":
        t, h = mp.mpf(p["T"]), mp.mpf(p["h"])
        return t / (1 - h / 2)
    if case == "C13":
        if inputs == "double-well":
            v = lambda th: -mp.mpf("0.5") * mp.cos(th) - mp.cos(2 * th)  # noqa: E731
            saddle = v(mp.acos(mp.mpf(-1) / 8))
            return saddle if quantity == "saddle_value" else saddle - v(mp.pi)
        v = lambda th: mp.cos(3 * th) + mp.mpf("0.5") * mp.cos(th)  # noqa: E731
        crit = sorted(mp.findroot(lambda th: -3 * mp.sin(3 * th) - mp.mpf("0.5") * mp.sin(th), x0)
                      for x0 in np.linspace(0.05, 2 * np.pi - 0.05, 40))
        values = sorted({mp.nstr(v(x), 20): v(x) for x in crit}.values())
        v_min = values[0]
        minima = [x for x in crit if -9 * mp.cos(3 * x) - mp.mpf("0.5") * mp.cos(x) > 0]
        # each non-global minimum of this S¹ potential sits between two maxima; its barrier is the lower one
        maxima = sorted({mp.nstr(x % (2 * mp.pi), 12): x % (2 * mp.pi) for x in crit
                         if -9 * mp.cos(3 * x) - mp.mpf("0.5") * mp.cos(x) < 0}.values())
        best = mp.mpf(0)
        for m in minima:
            if v(m) - v_min < mp.mpf("1e-20"):
                continue
            mm = m % (2 * mp.pi)
            left = max((x for x in maxima if x < mm), default=maxima[-1] - 2 * mp.pi)
            right = min((x for x in maxima if x > mm), default=maxima[0] + 2 * mp.pi)
            best = max(best, min(v(left), v(right)) - v(m))
        return best
    if case == "C15":
        tau = mp.mpf(p["tau"])
        # the global minimum: collapsed pairs on an equilateral triangle (positive at cosine 1, four negatives at -1/2);
        # the trap: pairs split antipodally on orthogonal axes (positive at cosine -1, four negatives at 0)
        s_pos, s_neg = (1, mp.mpf(-1) / 2) if quantity == "global_energy" else (-1, 0)
        return -s_pos / tau + mp.log(4 * mp.e ** (s_neg / tau))
    raise AssertionError(f"no independent formula for {case} {quantity}")


def test_the_page_has_values_for_every_numeric_case():
    """Every case that has reference numbers carries them in a table this test reads."""
    assert {r[0] for r in ROWS} == {"C01", "C02", "C03", "C06", "C07", "C08", "C11", "C13", "C15"}
    assert len(ROWS) >= 25


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(ROWS)])
def test_page_value_equals_independent_closed_form(row):
    """Each tabulated value is what its closed form gives at 40 digits (to the digits printed)."""
    mp.mp.dps = 40
    try:
        case, quantity, inputs, text, _ = row
        want = _value(text)
        got = _independent(case, quantity, inputs)
        digits = len(re.sub(r"[^0-9]", "", text.split("e")[0]).lstrip("0"))
        # a few units in the last printed digit (relative); exact rationals to 30 digits
        tol = mp.mpf(10) ** (-(min(digits, 32) - 2)) if "/" not in text else mp.mpf(10) ** -30
        assert abs(got - want) <= tol * abs(want), (case, quantity, inputs, got, want)
    finally:
        mp.mp.dps = 15


def _page(case, quantity, where=None, **inputs):
    """The tabulated value of ``quantity`` in ``case`` whose inputs are ``where`` (text) or ``inputs``."""
    for c, q, i, v, _ in ROWS:
        same = (i == where) if where is not None else (not inputs or _inputs(i) == {k: str(x) for k, x in inputs.items()})
        if c == case and q == quantity and same:
            return float(_value(v))
    raise KeyError((case, quantity, where, inputs))


def test_toolkit_reproduces_c02_and_c03_from_the_page():
    """Theorem 1's epsilon, Delta, bound (C02) and the loss gap (C03), read from the page."""
    from contrastive_bounds import theory as A
    for c, q, i, _v, _s in ROWS:
        if c == "C02" and q in ("epsilon", "Delta"):
            p = _inputs(i)
            eps = A.epsilon_value(int(p["B"]), int(p["T"]), float(p["delta"]))
            got = eps if q == "epsilon" else A.delta_value(float(p["tau"]), 1 / int(p["C"]), eps)
            assert got == pytest.approx(_page(c, q, **p), rel=1e-12)
        if c == "C03":
            p = _inputs(i)
            assert A.loss_gap_value(float(p["tau"]), 1 / int(p["C"])) == pytest.approx(_page(c, q, **p), rel=1e-13)


@pytest.mark.slow
def test_toolkit_reproduces_c06_c07_c08_from_the_page():
    """SupCon with excluded anchors (C06), the masked loss and its tau-derivative (C07), HSIC and CKA (C08)."""
    import jax
    import jax.numpy as jnp

    import contrastive_bounds.numerics.alignment._losses as L
    from contrastive_bounds.numerics import alignment as S

    f, y = np.array(SUPCON_F, float), np.array(SUPCON_Y)
    for tau in ("0.8", "0.1"):
        got = float(L.supcon_loss(f, None, y, tau=float(tau), empty="exclude"))
        assert got == pytest.approx(_page("C06", "supcon", tau=tau), rel=1e-12)
    s = jnp.array([[0.9, 0.1, -jnp.inf]])
    pw, dm = jnp.array([[1.0, 0.0, 0.0]]), jnp.array([[True, True, True]])
    loss = lambda tau: L.anchor_loss_terms(s, pw, dm, tau)[0]  # noqa: E731
    assert float(loss(0.1)) == pytest.approx(_page("C07", "L", tau="0.1"), rel=1e-12)
    assert float(jax.grad(loss)(0.1)) == pytest.approx(_page("C07", "dL_dtau", tau="0.1"), rel=1e-12)
    x, yy = np.array(X8, float), np.array(Y8, float)
    k, l = x @ x.T, yy @ yy.T
    assert S.hsic_gram(k, l, debiased=True) == pytest.approx(_page("C08", "hsic1_KL"), rel=1e-12)
    assert S.linear_cka(x, yy, debiased=True) == pytest.approx(_page("C08", "cka_debiased"), rel=1e-12)


def test_toolkit_reproduces_c13_from_the_page():
    """The double well's registered H* and saddle value, and the triple well's grid H*, read from the page."""
    import math

    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    dw = get_landscape("double-well")
    assert dw.critical_height == _page("C13", "critical_height", "double-well")
    assert float(dw.potential_theta(math.acos(-1 / 8))) == pytest.approx(_page("C13", "saddle_value", "double-well"), rel=1e-15)
    tw = get_landscape("triple-well")
    assert tw.critical_height == pytest.approx(_page("C13", "critical_height", "triple-well"), abs=1e-4)
