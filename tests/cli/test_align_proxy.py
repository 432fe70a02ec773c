"""``contrastive-bounds align proxy`` and ``align batch-scaling`` (docs/theorems.md B9, B10): results and bad input.

Bad input exits 2 with one line naming the argument; a diverging SGD run is reported with its step and
learning rate, never as a result; JSON has no NaN/Infinity.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
import pytest

runner = CliRunner()
PROXY = ["align", "proxy", "--model", "mlp", "--reference-size", "16", "--batch-size", "8", "--steps", "12",
         "--hidden", "8", "--projection-dim", "4", "--num-classes", "4", "--record-every", "2", "--fit-steps", "2",
         "--learning-rate", "0.05"]
GRID = ["align", "batch-scaling", "--batch-sizes", "8,16", "--exponents", "1,0", "--seeds", "2", "--epochs", "2",
        "--reference-batch", "8", "--reference-size", "32", "--num-classes", "4", "--hidden", "8"]


def _one_line_error(res, *words):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.slow
def test_proxy_json_reports_fidelity_eta_and_theorem1():
    """--json: eta_eff with both estimators, per-loss tracking, the verdict and Theorem 1 on real training."""
    res = runner.invoke(app, PROXY + ["--json"])
    assert res.exit_code == 0, res.output
    assert "NaN" not in res.stdout and "Infinity" not in res.stdout
    out = json.loads(res.stdout)
    assert out["eta"]["estimator"] == "fit" and out["eta"]["eta_eff"] > 0 and out["eta"]["eta_ntk"] > 0
    assert set(out["tracking"]) == {"cl", "nscl"} and out["verdict"]
    t1 = out["theorem1_real"]
    assert t1["d_T_real"] > 0 and t1["bounds_log10"]["theorem1"] >= t1["bounds_log10"]["L2"]
    assert len(out["curves"]["step"]) == 6 and out["curves"]["step"][-1] == 12
    assert out["float_dtype"] == "float64"


@pytest.mark.slow
def test_proxy_table_output():
    """The terminal form prints eta_eff, the fidelity table, the verdict and the Theorem-1 line."""
    res = runner.invoke(app, PROXY + ["--eta-estimator", "ntk"])
    assert res.exit_code == 0, res.output
    for word in ("eta_eff =", "(ntk)", "rel. error CL", "verdict (tolerance 10%)", "Theorem 1 with S = T eta_eff"):
        assert word in res.stdout


def test_proxy_reference_set_too_large_names_the_option():
    """A reference set whose Sigma's exceed memory is refused before anything runs, naming --reference-size."""
    res = runner.invoke(app, ["align", "proxy", "--reference-size", "1000000"])
    _one_line_error(res, "--reference-size", "GiB")


def test_proxy_divergence_names_step_and_learning_rate():
    """An overflowing learning rate: exit 2 with the model, the step and the learning rate, no result."""
    res = runner.invoke(app, PROXY + ["--learning-rate", "1e100"])
    _one_line_error(res, "diverged at step 1", "--learning-rate=1e+100")


def test_proxy_bad_options():
    """Out-of-domain options exit 2 naming the argument."""
    _one_line_error(runner.invoke(app, PROXY + ["--views", "fresh", "--model", "free"]), "--views='fresh' needs --model='mlp'")
    _one_line_error(runner.invoke(app, PROXY + ["--record-every", "0"]), "--record-every=0")
    _one_line_error(runner.invoke(app, PROXY + ["--eta-estimator", "adam"]), "--eta-estimator='adam'")
    _one_line_error(runner.invoke(app, PROXY + ["--tau", "0"]), "--tau=0.0")


@pytest.mark.slow
def test_batch_scaling_json_and_table():
    """--json: per-cell tables with intervals, trends with the bound's and the paper's verdicts; the table form too."""
    res = runner.invoke(app, GRID + ["--budgets", "epochs", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["float_dtype_training"] == "float32"
    assert {t["vs_paper"] for t in out["trends_cka"]} <= {"agrees", "disagrees", "undecided"}
    assert len(out["table_cka"]) == 2 * 2 and not out["diverged"]
    res = runner.invoke(app, GRID + ["--budgets", "epochs"])
    assert res.exit_code == 0, res.output
    assert "trend in B" in res.stdout and "B=16" in res.stdout


def test_batch_scaling_bad_options():
    """Malformed lists and out-of-range values exit 2 naming the option."""
    _one_line_error(runner.invoke(app, GRID + ["--exponents", "a,b"]), "--exponents")
    _one_line_error(runner.invoke(app, GRID + ["--batch-sizes", "8.5,16"]), "--batch-sizes")
    _one_line_error(runner.invoke(app, GRID + ["--reference-batch", "64"]), "--reference-batch=64 must be one of --batch-sizes=(8, 16)")
    _one_line_error(runner.invoke(app, GRID + ["--budgets", "epochs,weeks"]), "--budgets=")


def test_batch_scaling_table_prints_intervals_inside_the_range(monkeypatch):
    """Seeds near CKA = 1 whose t-interval passes 1: the table prints the interval cut at 1.000 with a mark
    and a footnote saying so, never a CKA above 1."""
    import re

    import contrastive_bounds.numerics.alignment._batch_scaling as bs
    from contrastive_bounds.numerics.alignment._batch_scaling import ScalingConfig
    from contrastive_bounds.numerics.alignment._batch_scaling_report import ScalingResult
    from contrastive_bounds.numerics.alignment._sgd import SGDConfig

    cfg = ScalingConfig(batch_sizes=(8, 16), exponents=(1.0, 0.0), budgets=("epochs",), seeds=3, epochs=2,
                        reference_batch=8, sgd=SGDConfig(reference_size=32, num_classes=4, hidden=8, views="fresh",
                                                         dtype="float32"))
    near_one = {0: 0.999, 1: 0.95, 2: 0.99}
    cells = [{"batch_size": b, "budget": "epochs", "steps": 2 * (32 // b), "gain_ntk": 1.0,
              "lanes": [{"exponent": a, "seed": s, "learning_rate": 0.05, "cka": near_one[s] - 0.01 * (b == 16),
                         "rsa": near_one[s] - 0.02, "cka_features": near_one[s], "rho": 0.1, "r": 0.1}
                        for a in cfg.exponents for s in range(3)]} for b in cfg.batch_sizes]
    monkeypatch.setattr(bs, "run_batch_scaling", lambda config, **kw: ScalingResult(config, cells, 0.25))
    res = runner.invoke(app, ["align", "batch-scaling", "--batch-sizes", "8,16", "--exponents", "1,0", "--budgets",
                              "epochs", "--seeds", "3", "--epochs", "2", "--reference-batch", "8", "--reference-size",
                              "32", "--num-classes", "4", "--hidden", "8"])
    assert res.exit_code == 0, res.output
    highs = [float(h) for h in re.findall(r"\[-?\d\.\d{3}, (-?\d\.\d{3})\]", res.stdout)]
    assert highs and max(highs) <= 1.0 and "1.000]*" in res.stdout
    assert "reached past the range of CKA, [0, 1], and is cut there" in res.stdout
