"""The batch-size x learning-rate grid (docs/theorems.md B10): schedule, exact shared randomness, verdicts, resume, divergence."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

import contrastive_bounds.numerics.alignment._batch_scaling as bs
from contrastive_bounds.numerics.alignment._batch_scaling import (
    ScalingConfig, learning_rate_for, run_batch_scaling, steps_for)
from contrastive_bounds.numerics.alignment._batch_scaling_report import PAPER_TREND, claim_for
from contrastive_bounds.numerics.alignment._sgd import SGDConfig
from contrastive_bounds import theory as alignment
import contrastive_bounds.theory._registry as registry

GRID = ScalingConfig(batch_sizes=(8, 16), exponents=(1.0, 0.0), seeds=2, epochs=2, reference_batch=8, eta_ref=0.05,
                     sgd=SGDConfig(reference_size=32, num_classes=4, hidden=8, feature_dim=8, projection_dim=4,
                                   views="fresh", dtype="float32"), gain_batches=2)


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    ck = str(tmp_path_factory.mktemp("grid") / "grid.json")
    return run_batch_scaling(GRID, checkpoint=ck), ck


def test_schedule_matches_the_definitions():
    """T = E floor(n/B) at fixed epochs, E floor(n/B_ref) at fixed steps; eta = eta_ref (B/B_ref)^a."""
    assert steps_for(GRID, 16, "epochs") == 2 * (32 // 16) and steps_for(GRID, 16, "steps") == 2 * (32 // 8)
    assert learning_rate_for(GRID, 16, 1.0) == pytest.approx(0.1) and learning_rate_for(GRID, 16, 0.0) == 0.05
    assert learning_rate_for(GRID, 8, 0.25) == pytest.approx(0.05)


@pytest.mark.slow
def test_grid_rows_are_complete_and_two_way_consistent(grid):
    """One row per (budget, B, a, seed); CKA from the Gram form equals the feature form; RSA in [-1, 1]."""
    res, _ = grid
    rows = res.rows()
    assert len(rows) == 2 * 2 * 2 * 2 and not res.diverged()
    for r in rows:
        assert r["cka"] == pytest.approx(r["cka_features"], abs=1e-9)
        assert -1 <= r["rsa"] <= 1 and r["rho"] >= 0
        assert r["learning_rate"] == pytest.approx(learning_rate_for(GRID, r["batch_size"], r["exponent"]))


@pytest.mark.slow
def test_reference_batch_cell_is_identical_across_scalings_and_budgets(grid):
    """At B_ref every scaling uses eta_ref and both budgets the same T: shared randomness gives equal numbers."""
    res, _ = grid
    for s in (0, 1):
        vals = {(r["cka"], r["rsa"]) for r in res.rows() if r["batch_size"] == 8 and r["seed"] == s}
        assert len(vals) == 1


def test_trend_verdicts_and_predicted_signs(grid):
    """Predicted directions come from Theorem 1 at the grid's (T, eta, eps); the symbolic bound agrees; verdicts
    compare the measured sign with the bound's and the paper's."""
    res, _ = grid
    for t in res.trends("cka"):
        num = res.bound_log10(t["exponent"], t["budget"], effective=False)
        sym = res.bound_log10_symbolic(t["exponent"], t["budget"])
        np.testing.assert_allclose(num, sym, rtol=1e-10)
        assert t["bound_log10"] == num
        assert t["paper"] == PAPER_TREND(t["exponent"])
        assert len(t["slopes"]) == 2 and t["measured"] in ("rises", "falls", "flat")
        if t["measured"] == "flat":
            assert t["vs_bound"] == "undecided"
    # fixed epochs, a = 1: S = n c is the same for every B, so the bound falls with B (claim fixed_epochs_a1)
    t = res.trend(1.0, "epochs")
    assert t["bound_direction"] == "falls" and t["bound_predicts"] == "rises"
    assert claim_for(1.0, "epochs") == "alignment.lr_scaling_fixed_epochs_a1"
    assert registry.get(claim_for(0.5, "steps")) is not None and claim_for(0.5, "epochs") is None


def test_resume_recomputes_nothing(grid, monkeypatch):
    """A finished grid resumes from its checkpoint without running a cell; another grid's checkpoint is refused."""
    res, ck = grid

    def boom(*a, **k):
        raise AssertionError("a finished cell was recomputed")

    monkeypatch.setattr(bs, "run_cell", boom)
    again = run_batch_scaling(GRID, checkpoint=ck)
    assert again.rows() == res.rows()
    with pytest.raises(ValueError, match=r"different grid \(its configuration differs: epochs: 2 in the checkpoint, 3 now\)"):
        run_batch_scaling(dataclasses.replace(GRID, epochs=3), checkpoint=ck)
    with open(ck) as fh:
        assert json.load(fh)["fingerprint"]


def test_divergent_lanes_are_reported_not_used(monkeypatch):
    """eta = 1e30 in float32: every lane diverges and is reported with step and learning rate; no CKA is shown."""
    cfg = dataclasses.replace(GRID, eta_ref=1e30, budgets=("epochs",))
    res = run_batch_scaling(cfg)
    div = res.diverged()
    assert len(div) == len(res.rows()) == 2 * 2 * 2
    for r in div:
        d = r["diverged"]
        assert d["step"] >= 1 and "diverged at step" in d["message"] and "learning_rate=" in d["message"]
        assert "cka" not in r
    assert all(row.get("mean") is None and row["diverged"] == 2 for row in res.table())
    assert all(t["measured"].startswith("undetermined") for t in res.trends())


@pytest.mark.parametrize("kw, match", [
    ({"reference_batch": 32}, "reference_batch"), ({"batch_sizes": (16, 8)}, "increasing"),
    ({"exponents": (3.0,)}, "exponents"), ({"budgets": ("epoch",)}, "budgets"), ({"seeds": 1}, "seeds"),
    ({"batch_sizes": (8, 64)}, "batch_sizes")])
def test_bad_grid_config_names_the_field(kw, match):
    """Bad grid parameters: ValueError naming the field."""
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(GRID, **kw).validate()


def test_bound_direction_uses_epsilon_of_each_cell(grid):
    """The predicted bound at one cell equals frobenius_log10 with S = T eta and Delta(eps(B, T, delta))."""
    res, _ = grid
    b, t_ = 16, steps_for(GRID, 16, "steps")
    eps = alignment.epsilon_value(b, t_, GRID.delta)
    want = alignment.frobenius_log10(t_ * 0.1, GRID.sgd.tau, b, 1.0) + alignment.delta_log10(GRID.sgd.tau, res.pi_max, eps)
    assert res.bound_log10(1.0, "steps", effective=False)[1] == pytest.approx(want, rel=1e-13)
    assert math.isfinite(res.cells[0]["gain_ntk"]) and res.cells[0]["gain_ntk"] > 0


def test_interval_of_a_bounded_metric_stays_in_its_range():
    """Three seeds near CKA = 1 give a Student-t interval reaching past 1 (it printed [0.876, 1.105]); the
    reported interval is that t-interval cut at 1, the lower end unchanged (scipy's t quantile, computed
    here independently), and marked clipped. RSA is cut at -1 likewise; an interval inside stays as it is."""
    from scipy import stats

    from contrastive_bounds.numerics.alignment._batch_scaling_report import bounded_mean_ci

    x = np.array([0.999, 0.95, 0.99])
    half = stats.t.ppf(0.975, 2) * x.std(ddof=1) / math.sqrt(3)
    assert x.mean() + half > 1.0  # the raw interval is impossible
    ci = bounded_mean_ci(x, "cka")
    assert ci["hi"] == 1.0 and ci["lo"] == pytest.approx(x.mean() - half, rel=1e-12) and ci["clipped"] == "above"
    assert ci["lo"] <= ci["mean"] <= ci["hi"]
    r = bounded_mean_ci([-0.999, -0.9, -0.99], "rsa")
    assert r["lo"] == -1.0 and r["clipped"] == "below" and r["hi"] < 0
    inside = bounded_mean_ci([0.4, 0.5, 0.6], "cka")
    assert inside["clipped"] is None and inside["lo"] == pytest.approx(0.5 - stats.t.ppf(0.975, 2) * 0.1 / math.sqrt(3))
    with pytest.raises(ValueError, match="metric='loss' must be one of"):
        bounded_mean_ci([0.1, 0.2], "loss")


def test_grid_table_cuts_intervals_at_the_metric_range(grid):
    """Every cell's interval lies in [0, 1] for CKA and [-1, 1] for RSA, whatever the seeds gave, and a
    cut end is flagged; cells are otherwise the plain t-interval."""
    res, _ = grid
    for metric, (a, b) in (("cka", (0.0, 1.0)), ("rsa", (-1.0, 1.0))):
        for row in res.table(metric):
            if row.get("lo") is not None:
                assert a <= row["lo"] <= row["mean"] <= row["hi"] <= b
                assert row["clipped"] in (None, "below", "above", "both")
