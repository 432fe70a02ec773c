"""Regressions of ``contrastive-bounds align`` found by a new-user test (THEOREMS.md B4, B8).

The rule checked here: bad input exits 2 with exactly one line naming the argument; in-domain input
gives a result in which no -inf/inf/NaN is shown as a number (JSON has no Infinity/NaN either).
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.alignment.descent_run import (
    LINKS, DescentConfig, make_problem, run_similarity_descent)
from contrastive_bounds.properties.cli import align as cli_align
from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.theory import alignment

runner = CliRunner()
SMALL = ["align", "simulate", "--num-samples", "100", "--steps", "20"]


def _no_nonfinite_text(text: str) -> None:
    for word in ("inf", "Infinity", "NaN", "nan"):
        assert word not in text.replace("informative", ""), text


def test_simulate_eta_zero_reports_exact_zero_not_inf():
    """eta = 0: nothing moves, so d_T = 0 and every link's bound is exactly 0 (S = 0 in B4)."""
    res = runner.invoke(app, SMALL + ["--eta", "0"])
    assert res.exit_code == 0, res.output
    _no_nonfinite_text(res.stdout)
    assert "n/a (d_T = 0)" in res.stdout and "status: no_motion" in res.stdout

    res = runner.invoke(app, SMALL + ["--eta", "0", "--json"])
    assert res.exit_code == 0, res.output
    assert "Infinity" not in res.stdout and "NaN" not in res.stdout
    out = json.loads(res.stdout)
    assert out["status"] == "no_motion" and "step_size = 0" in out["reason"]
    assert out["d_T"] == 0.0 and out["d_T_log10"] is None
    assert out["bounds"] == {k: 0.0 for k in LINKS}
    assert out["bounds_log10"] == {k: None for k in LINKS}  # log10 0 = -inf, explained by status
    assert out["slack_log10"] == {k: None for k in LINKS}  # 0/0
    assert all(out["holds"].values())
    assert out["delta_log10"] == pytest.approx(math.log10(out["delta_value"]), rel=1e-12)


def test_simulate_small_tau_bounds_in_log10_not_overflow_error():
    """tau = 1e-4 is in-domain: Delta ~ 10^8686 overflows float64, the bounds are reported in log10.

    Reference: Theorem 1 at T, log10(exp(S/(2 tau^2 B)) S Delta/(tau sqrt B)) with
    Delta = 2 e^{2/tau} (pi_max + eps)/(1 - pi_max - eps), evaluated with 40-digit mpmath.
    """
    res = runner.invoke(app, SMALL + ["--tau", "1e-4", "--json"])
    assert res.exit_code == 0, res.output
    assert "Infinity" not in res.stdout and "NaN" not in res.stdout
    out = json.loads(res.stdout)
    mp.mp.dps = 40
    tau, b, t, s = mp.mpf("1e-4"), 64, 20, mp.mpf(20)
    eps = mp.sqrt(mp.log(mp.mpf(t * b) / mp.mpf("0.05")) / (2 * b))
    pi = mp.mpf(out["pi_max"])
    delta = 2 * mp.exp(2 / tau) * (pi + eps) / (1 - pi - eps)
    thm1 = mp.log10(mp.exp(s / (2 * tau**2 * b)) * s * delta / (tau * mp.sqrt(b)))
    assert out["delta_log10"] == pytest.approx(float(mp.log10(delta)), rel=1e-13)
    assert out["bounds_log10"]["theorem1"] == pytest.approx(float(thm1), rel=1e-13)
    assert out["delta_value"] is None and out["bounds"]["theorem1"] is None  # beyond float64: see *_log10
    assert out["status"] == "uninformative" and all(out["holds"].values())
    assert all(math.isfinite(out["bounds_log10"][k]) for k in LINKS)
    finals = [out["bounds_log10"][k] for k in LINKS[1:]]
    assert finals == sorted(finals)  # L1 <= L2 <= L3 <= Thm 1 (B4 links)

    res = runner.invoke(app, SMALL + ["--tau", "1e-4"])
    assert res.exit_code == 0, res.output
    _no_nonfinite_text(res.stdout)
    assert "Delta = 10^8685.98" in res.stdout and "10^" in res.stdout


def test_log_space_link_bounds_match_direct_delta():
    """Where Delta fits a float, the driver's log-space bounds equal the theory functions at Delta."""
    s0, lab = make_problem(30, 3, dim=4, seed=1)
    res = run_similarity_descent(s0, lab, DescentConfig(batch_size=10, steps=15, tau=0.3, step_size=0.7,
                                                        chunk_size=15, empty_negatives="exclude"))
    etas = np.full(15, 0.7)
    kw = dict(tau=0.3, batch_size=10, delta_value=res.delta_value)
    assert math.isfinite(res.delta_value)
    for link, fn in (("L2", alignment.link_l2_log10), ("L3", alignment.link_l3_log10),
                     ("theorem1", alignment.theorem1_log10)):
        np.testing.assert_allclose(res.bounds_log10[link][1:], fn(etas, **kw)[1:], rtol=1e-13)
    l1_direct = np.log10(np.cumsum(etas * res.l1_bound()))
    np.testing.assert_allclose(res.bounds_log10["L1"][1:], l1_direct, rtol=1e-13)
    np.testing.assert_allclose(res.l1_bound_log10(), np.log10(res.l1_bound()), rtol=1e-13)


def test_train_plot_folder_checked_before_training(monkeypatch):
    """--plot in a missing folder: exit 2 naming --plot, before any training (no temporary file named)."""
    from contrastive_bounds.numerics.alignment import training

    def no_training(*args, **kwargs):
        raise AssertionError("training started before --plot was checked")

    monkeypatch.setattr(training, "train_alignment", no_training)
    res = runner.invoke(app, ["align", "train", "--plot", "/nonexistent/dir/x.png", "--epochs", "1"])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and res.output.startswith("error: --plot='/nonexistent/dir/x.png'")
    assert "does not exist" in res.output and ".png'" in res.output and "tmp" not in res.output


@pytest.mark.parametrize("argv, name", [
    (["align", "simulate", "--batch-size", "200", "--num-samples", "100"], "batch_size=200"),
    (["align", "train", "--batch-size", "100000"], "batch_size=100000"),
    (["align", "simulate", "--num-samples", "10", "--num-classes", "2", "--batch-size", "8", "--stratified", "--replace",
      "--steps", "1"], "stratified"),
])
def test_bad_input_is_one_line_before_progress(monkeypatch, argv, name):
    """Bad input: one line 'error: ...' (no leading blank line), raised before progress output starts."""
    started = []
    monkeypatch.setattr(cli_align, "_progress", lambda *a: started.append(a) or (None, None))
    res = runner.invoke(app, argv)
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and res.output.count("\n") == 1, repr(res.output)
    assert name in res.output
    assert started == []


def test_no_blank_line_when_stdout_is_not_a_terminal():
    """Piped output (not a terminal) has no progress bar, hence no stray leading blank line."""
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "20", "--num-classes", "2", "--batch-size", "8",
                              "--steps", "5"])
    assert res.exit_code == 0, res.output
    assert res.stdout.lstrip(" ").startswith("CL vs NSCL"), repr(res.stdout[:80])
