"""The ``contrastive-bounds align`` commands (``simulate``, ``train``; docs/theorems.md B4, B5, B8).

Bad input exits 2 with exactly one line naming the argument; in-domain input gives a result in which
no -inf/inf/NaN is shown as a number (JSON has no Infinity/NaN either), and a vacuous corollary bound
is reported as vacuous, never as a live bound.
"""

from __future__ import annotations

import json
import math
import re

import mpmath as mp
import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.alignment._descent_result import LINKS
from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent
import contrastive_bounds.properties.cli._align as cli_align
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds import theory as alignment
from contrastive_bounds.theory._registry import get

runner = CliRunner()
SMALL = ["align", "simulate", "--num-samples", "100", "--steps", "20"]


def _no_nonfinite_text(text: str) -> None:
    for word in ("inf", "Infinity", "NaN", "nan"):
        assert word not in text.replace("informative", ""), text


@pytest.mark.slow
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
    with mp.workdps(40):  # 40 digits here only: a global mp.dps would leak into later tests
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
    import contrastive_bounds.numerics.alignment._training as training

    def no_training(*args, **kwargs):
        raise AssertionError("training started before --plot was checked")

    monkeypatch.setattr(training, "train_alignment", no_training)
    res = runner.invoke(app, ["align", "train", "--plot", "/nonexistent/dir/x.png", "--epochs", "1"])
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and res.output.startswith("error: --plot='/nonexistent/dir/x.png'")
    assert "does not exist" in res.output and ".png'" in res.output and "tmp" not in res.output


@pytest.mark.parametrize("argv, name", [
    (["align", "simulate", "--batch-size", "200", "--num-samples", "100"], "--batch-size=200"),
    (["align", "train", "--batch-size", "100000"], "--batch-size=100000"),
    (["align", "simulate", "--num-samples", "10", "--num-classes", "2", "--batch-size", "8", "--stratified", "--replace",
      "--steps", "1"], "--stratified samples without replacement; it cannot be combined with --replace"),
])
def test_bad_input_is_one_line_before_progress(monkeypatch, argv, name):
    """Bad input: one line 'error: ...' (no leading blank line), raised before progress output starts."""
    started = []
    monkeypatch.setattr(cli_align, "progress_bar", lambda *a: started.append(a) or (None, None))
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


def test_simulate_json_reports_links_that_bound_d_T():
    """align simulate --json reports m, the step count, every link's bound above d_T with non-negative slack,
    and CKA/RSA above their corollary bounds."""
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "100", "--num-classes", "5", "--batch-size", "16",
                              "--steps", "40", "--tau", "0.5", "--eta", "1.0", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["m"] == 200 and out["steps"] == 40
    assert all(out["holds"].values())
    for link in ("triangle", "L1", "L2", "L3", "theorem1"):
        assert out["d_T"] <= out["bounds"][link] * (1 + 1e-9)
        assert out["slack_log10"][link] >= -1e-12
    assert out["cka"] >= out["cka_lower"] and out["rsa"] >= out["rsa_lower"]


def test_simulate_and_train_bad_input_exit_2():
    """A negative tau (simulate) and an unknown dataset (train) exit 2 naming the argument."""
    res = runner.invoke(app, ["align", "simulate", "--tau", "-1"])
    assert res.exit_code == 2 and "tau=-1.0" in res.output
    res = runner.invoke(app, ["align", "train", "--dataset", "cifar10"])
    assert res.exit_code == 2 and "dataset='cifar10'" in res.output


@pytest.mark.slow
def test_train_json_and_plot(tmp_path):
    """align train --json reports one history entry per epoch and the loss-gap verdict, and --plot writes a
    PNG."""
    png = tmp_path / "align.png"
    res = runner.invoke(app, ["align", "train", "--num-classes", "2", "--epochs", "1", "--batch-size", "64",
                              "--plot", str(png), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out["history"]) == 1 and out["loss_gap_within_bound_every_epoch"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_marks_a_vacuous_cka_bound_as_vacuous():
    """At rho = 1.034 the CKA corollary is marked vacuous in text and JSON with the reason the registered
    bound gives (as `bound alignment.cka_lower rho=...` does) instead of being printed as a bound; the
    existing keys keep their values and the RSA bound (r < 1) stays live."""
    args = ["align", "simulate", "--num-samples", "100", "--steps", "50", "--eta", "1e6"]
    res = runner.invoke(app, args + ["--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["rho"] == pytest.approx(1.034, abs=5e-4) and out["r"] < 1
    assert out["cka_lower"] == pytest.approx((1 - out["rho"]) / (1 + out["rho"]), rel=1e-12)
    reason = get("alignment.cka_lower").evaluate(rho=out["rho"]).reason
    assert reason and "rho >= 1" in reason
    assert out["cka_lower_vacuous"] == reason
    assert out["rsa_lower_vacuous"] is None
    assert out["rsa_lower"] == pytest.approx((1 - out["r"]) / (1 + out["r"]), rel=1e-12)
    assert out["cka_lower_prior"] <= 0 and "no guarantee" in out["cka_lower_prior_vacuous"]
    text = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert text.exit_code == 0, text.output
    line = next(ln for ln in text.stdout.splitlines() if ln.startswith("CKA = "))
    assert f"corollary bound {out['cka_lower']:.6f} is vacuous: {reason}" in line
    assert f">= {out['cka_lower']:.6f}" not in line
    assert f"RSA = {out['rsa']:.6f} >= {out['rsa_lower']:.6f}" in line


def test_simulate_live_bounds_have_no_vacuity():
    """With rho, r < 1 both corollaries are live: *_vacuous is null and the text says >=."""
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "100", "--steps", "20", "--json"])
    out = json.loads(res.stdout)
    assert out["rho"] < 1 and out["r"] < 1
    assert out["cka_lower_vacuous"] is None and out["rsa_lower_vacuous"] is None
    assert out["cka"] >= out["cka_lower"] > 0


@pytest.mark.slow
def test_simulate_help_states_pi_max():
    """The help says classes are as balanced as n allows, pi_max = ceil(n/C)/n (not 1/C), and the run with C =
    3, n = 100 reports exactly 0.34."""
    h = runner.invoke(app, ["align", "simulate", "--help"], env={"COLUMNS": "400"})
    assert "ceil(n/C)/n" in h.stdout and "pi_max = 1/C)" not in h.stdout
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "100", "--num-classes", "3", "--steps", "5",
                              "--json"])
    assert json.loads(res.stdout)["pi_max"] == math.ceil(100 / 3) / 100



@pytest.mark.slow
def test_simulate_checkpoint_survives_ctrl_c_and_resumes_to_the_same_result(monkeypatch, tmp_path):
    """Ctrl-C after the first chunk: exit 130 saying where the progress is; the same command continues from
    the checkpoint to the result of an uninterrupted run, exactly; a malformed checkpoint is refused."""
    import contextlib
    import json

    argv = ["align", "simulate", "--num-samples", "40", "--batch-size", "8", "--steps", "500", "--json"]
    full = json.loads(runner.invoke(app, argv).stdout)
    ckpt = tmp_path / "run.npz"

    def ctrl_c(done, total):  # noqa: ANN001, ANN202
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_align, "progress_bar", lambda *a: (contextlib.nullcontext(), ctrl_c))
    res = runner.invoke(app, [*argv, "--checkpoint", str(ckpt)])
    assert res.exit_code == 130 and f"the progress is saved in {ckpt}" in res.output
    assert int(np.load(ckpt)["step"]) == 250
    monkeypatch.setattr(cli_align, "progress_bar", lambda *a: (None, None))
    resumed = runner.invoke(app, [*argv, "--checkpoint", str(ckpt)])
    assert resumed.exit_code == 0 and json.loads(resumed.stdout) == full
    (tmp_path / "bad.npz").write_text("not a checkpoint")
    bad = runner.invoke(app, [*argv, "--checkpoint", str(tmp_path / "bad.npz")])
    assert bad.exit_code == 2 and "--checkpoint=" in bad.output and "is a text file" in bad.output


def test_simulate_shows_a_vacuous_link_as_vacuous_not_as_holding():
    """C = 2 with B = 8 makes 1 - pi_max - epsilon <= 0 (C02's vacuous case): every link bound is infinite,
    and the table says 'n/a (vacuous ...)' in the holds column instead of a green True."""
    args = ["align", "simulate", "--num-samples", "20", "--num-classes", "2", "--batch-size", "8", "--steps", "5"]
    res = runner.invoke(app, args + ["--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["status"] == "vacuous" and out["bounds_log10"]["theorem1"] is None  # JSON has no Infinity
    text = runner.invoke(app, args, env={"COLUMNS": "400"})
    rows = [ln for ln in text.stdout.splitlines() if "bound theorem1" in ln or "bound L2" in ln]
    assert len(rows) == 2 and all("n/a (vacuous: infinite bound)" in ln and "True" not in ln for ln in rows), text.stdout


def test_warmup_start_outside_0_1_is_refused_even_without_a_warmup():
    """--warmup-start 2 exits 2 naming the option and [0, 1] whether or not --warmup-steps asks for a warm-up."""
    for extra in ([], ["--warmup-steps", "5"]):
        res = runner.invoke(app, SMALL + ["--warmup-start", "2", *extra])
        assert res.exit_code == 2, res.output
        assert "--warmup-start=2.0 is outside its domain [0, 1]" in res.output, res.output


def test_an_astronomical_step_size_file_prints_log10_in_scientific_notation(tmp_path):
    """Step sizes of 1e300 from --eta-file: the bound's log10 (~1e300) is printed as 1.0857e+300, not as a
    300-digit number."""
    path = tmp_path / "eta.npy"
    np.save(path, np.full(20, 1e300))
    res = runner.invoke(app, SMALL + ["--eta-file", str(path)])
    assert res.exit_code == 0, res.output
    assert re.search(r"e\+30[0-9]", res.output), res.output
    assert not re.search(r"[0-9]{40}", res.output), res.output


def test_a_nan_option_is_refused_with_its_allowed_range():
    """``--tau nan`` exits 2 naming the option and its allowed range, as every other bad number does, before any
    simulation starts; ``schedule --critical-height nan`` shares the checker and says its range too."""
    res = runner.invoke(app, SMALL + ["--tau", "nan"])
    assert res.exit_code == 2
    assert "--tau=nan is not allowed (NaN); domain (0, inf)" in res.output
    res = runner.invoke(app, ["schedule", "temperature", "c=2", "--critical-height", "nan"])
    assert res.exit_code == 2
    assert "--critical-height=nan is not allowed (NaN); domain [0, inf)" in res.output
