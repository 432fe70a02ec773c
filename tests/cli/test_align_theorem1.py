"""``align theorem1 LOG`` and the step-size options of ``align simulate`` (docs/theorems.md B4).

The bound reported along a user's log is held to the mpmath closed form (docs/reference-values.md C02,
whose reference value is read from the page), the links to independent numpy computations; malformed
logs exit 2 naming the array; a violated link exits 1 naming the step.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties._statements import contradictions

from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent
from contrastive_bounds.numerics.alignment._step_schedule import StepSizeSchedule
from contrastive_bounds.properties.cli._app import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
N, C, B, T = 60, 10, 40, 10


def _c02_bound() -> tuple[dict, float]:
    """The first C02 'bound' row of docs/reference-values.md: its inputs and value."""
    for line in (ROOT / "docs" / "reference-values.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] == "C02" and cells[1] == "bound":
            return dict(kv.strip().split("=") for kv in cells[2].split(",")), float(cells[3])
    raise AssertionError("no C02 bound row")


def _user_log(tmp_path: Path) -> tuple[str, dict]:
    """A user's log written with plain np.savez: the similarity matrices of a scheduled descent at every step,
    the batches, the step sizes, labels and tau (no toolkit writer involved)."""
    s0, lab = make_problem(N, C, dim=6, seed=8)
    cfg = DescentConfig(batch_size=B, steps=T, tau=0.5, step_size=2.0, seed=1, chunk_size=T,
                        schedule=StepSizeSchedule("step", {"gamma": 0.5, "period": 3}))
    res = run_similarity_descent(s0, lab, cfg, trajectory_every=1)
    from contrastive_bounds.numerics.alignment._theorem1_log_io import theorem1_log_arrays

    arrays = theorem1_log_arrays(res)
    user = {k: arrays[k] for k in ("sigma_cl", "sigma_nscl", "labels", "batches", "step_sizes")}
    user.update(tau=np.array(0.5), symmetric=np.array(False))
    path = str(tmp_path / "mylog.npz")
    np.savez(path, **user)
    return path, user


@pytest.mark.slow
def test_theorem1_on_a_users_similarity_matrices(tmp_path):
    """Done-when of issue 24: the bound at every record equals the mpmath closed form with S = sum_{s<t} eta_s,
    the L1 mismatch equals a numpy computation of B3's gradients, L2 per step its formula, and all hold (exit 0)."""
    path, user = _user_log(tmp_path)
    res = runner.invoke(app, ["align", "theorem1", path, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    per = out["per_record"]
    mp.mp.dps = 40
    pi_max, tau, delta = 0.1, mp.mpf("0.5"), mp.mpf("0.05")
    eps = mp.sqrt(mp.log(T * B / delta) / (2 * B))
    dlt = 2 * mp.e ** (2 / tau) * (pi_max + eps) / (1 - pi_max - eps)
    assert out["delta_log10"] == pytest.approx(float(mp.log10(dlt)), abs=1e-13)
    assert per["theorem1_log10"][0] is None and per["status"][0] == "start"  # log10 of the bound 0 at t = 0
    s = mp.mpf(0)
    for t in range(1, T + 1):
        s += mp.mpf(float(user["step_sizes"][t - 1]))
        bound = mp.e ** (s / (2 * tau**2 * B)) * s / (tau * mp.sqrt(B)) * dlt
        assert per["theorem1_log10"][t] == pytest.approx(float(mp.log10(bound)), abs=1e-12)
    d = np.linalg.norm((user["sigma_cl"] - user["sigma_nscl"]).reshape(T + 1, -1), axis=1)
    np.testing.assert_allclose(per["distance"], d, rtol=1e-13)
    a, c = 1 / (2 * 0.25 * B), 10.0 ** out["delta_log10"] / (0.5 * math.sqrt(B))
    np.testing.assert_allclose(per["l2_step_log10"][1:], np.log10((1 + a * user["step_sizes"]) * d[:-1]
                                                                  + c * user["step_sizes"]), rtol=1e-13)
    n = N
    for t in (0, T - 1):
        batch, sig = user["batches"][t], (user["sigma_cl"][t], user["sigma_nscl"][t])
        g = []
        for sgm, kind in zip(sig, ("cl", "nscl")):
            rows = np.zeros((B, 2 * n))
            for k, i in enumerate(batch):
                cols = [c2 for j in batch if j != i and (kind == "cl" or user["labels"][j] != user["labels"][i])
                        for c2 in (j, j + n)]
                q = np.exp(sgm[i, cols] / 0.5 - np.max(sgm[i, cols] / 0.5))
                rows[k, cols] = q / q.sum() / (0.5 * B)
                rows[k, i + n] -= 1 / (0.5 * B)
            g.append(rows)
        assert per["mismatch"][t] == pytest.approx(float(np.linalg.norm(g[0] - g[1])), rel=1e-12)
        assert 10.0 ** per["l1_log10"][t] == pytest.approx(c + a * d[t], rel=1e-13)
    assert all(out["holds"].values()) and out["status"] == "uninformative" and out["batch_event"] is True
    text = runner.invoke(app, ["align", "theorem1", path, "--rows", "4"])
    assert text.exit_code == 0 and "status at T: uninformative" in text.stdout and "slack" in text.stdout


def test_theorem1_reproduces_the_c02_reference_value(tmp_path):
    """A log with C02's inputs (pi_max = 1/C, B, T, delta, tau, S as step sizes summing to S, batch size only)
    reports the bound of docs/reference-values.md C02 at T, and says L1 is not evaluated (no batches)."""
    p, value = _c02_bound()
    steps, s_total = int(p["T"]), float(p["S"])
    etas = np.linspace(1.0, 3.0, steps)
    etas *= s_total / math.fsum(etas.tolist())
    sig = np.stack([np.eye(4), np.eye(4)])
    path = tmp_path / "c02.npz"
    np.savez(path, sigma_cl=sig, sigma_nscl=sig, record_steps=np.array([0, steps]), step_sizes=etas,
             batch_size=np.array(int(p["B"])), pi_max=np.array(1 / float(p["C"])), tau=np.array(float(p["tau"])),
             delta=np.array(float(p["delta"])))
    res = runner.invoke(app, ["align", "theorem1", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["bounds"]["theorem1"] == pytest.approx(value, rel=1e-12)
    assert out["l1_evaluated"] is False and "batch" in out["l1_reason"]
    assert set(out["bounds_log10"]) == {"L2", "L3", "theorem1"}
    assert out["bounds"]["L2"] <= out["bounds"]["L3"] <= out["bounds"]["theorem1"]


def _bad(tmp_path, name, **arrays):
    path = tmp_path / f"{name}.npz"
    np.savez(path, **arrays)
    return str(path)


@pytest.mark.slow
def test_malformed_logs_exit_2_naming_the_array(tmp_path):
    """Empty, text, pickled, wrong shapes, non-symmetric, out of [-1, 1], mismatched lengths and NaN: exit 2 with
    one line naming LOG and the array; bad options name the option."""
    eye = np.stack([np.eye(4)] * 3)
    good = dict(sigma_cl=eye, sigma_nscl=eye, labels=np.array([0, 1]), batches=np.array([[0, 1], [1, 0]]),
                step_sizes=np.array([0.1, 0.2]), tau=np.array(0.5))
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    text = tmp_path / "text.npz"
    text.write_text("hello\n")
    pick = tmp_path / "pick.npz"
    np.savez(pick, **{**good, "labels": np.array([object(), 1], dtype=object)})
    nonsym = eye.copy()
    nonsym[1, 0, 3] = 0.5
    nan = eye.copy()
    nan[2, 2, 2] = np.nan
    cases = [
        (str(empty), r"LOG=.* is empty \(0 bytes\)"),
        (str(text), r"LOG=.* is not a .npy or .npz file"),
        (str(pick), r"labels holds Python objects \(pickled data\), which are never loaded"),
        (_bad(tmp_path, "shape", **{**good, "sigma_cl": np.ones((3, 4))}), r"sigma_cl has shape \(3, 4\)"),
        (_bad(tmp_path, "nonsym", **{**good, "sigma_nscl": nonsym}), r"sigma_nscl is not symmetric"),
        (_bad(tmp_path, "range", **{**good, "sigma_cl": 2 * eye}), r"sigma_cl has entries outside \[-1, 1\]"),
        (_bad(tmp_path, "lengths", **{**good, "step_sizes": np.ones(5)}), r"step_sizes has \(5,\) values; .* T=2"),
        (_bad(tmp_path, "nan", **{**good, "sigma_nscl": nan}), r"sigma_nscl has NaN or inf at record 2"),
        (_bad(tmp_path, "notau", **{k: v for k, v in good.items() if k != "tau"}), r"holds no tau"),
        (str(tmp_path / "missing.npz"), r"LOG=.*: no such file or folder"),
    ]
    for path, match in cases:
        res = runner.invoke(app, ["align", "theorem1", path])
        assert res.exit_code == 2, (path, res.output)
        assert len(res.output.strip().splitlines()) == 1 and re.search(match, res.output), (match, res.output)
        assert "Traceback" not in res.output and "allow_pickle" not in res.output
    ok = _bad(tmp_path, "ok", **good)
    for opts, match in ((["--tau", "0.7"], r"--tau=0.7 differs from the log's array 'tau' = 0.5"),
                        (["--eta", "1"], r"--eta=1.0 is given but LOG=.* holds step_sizes"),
                        (["--rows", "1"], r"--rows=1 must be in \[2, 10000\]")):
        res = runner.invoke(app, ["align", "theorem1", ok, *opts])
        assert res.exit_code == 2 and re.search(match, res.output), res.output


def test_a_violated_link_exits_1_and_names_the_step(tmp_path):
    """A log whose runs move apart far faster than similarity descent allows (step sizes 1e-9) fails L2 at step 1:
    exit 1, and the first failing step is reported."""
    eye = np.stack([np.eye(4)] * 3)
    apart = eye.copy()
    apart[1:, 0, 1] = apart[1:, 1, 0] = 0.9
    path = _bad(tmp_path, "apart", sigma_cl=eye, sigma_nscl=apart, step_sizes=np.full(2, 1e-9), batch_size=np.array(2),
                pi_max=np.array(0.1), tau=np.array(1.0), delta=np.array(0.5))
    res = runner.invoke(app, ["align", "theorem1", path, "--json"])
    assert res.exit_code == 1, res.output
    out = json.loads(res.stdout)
    assert out["holds"]["L2_step"] is False and out["first_violation"]["L2_step"] == 1
    assert out["holds"]["theorem1"] is False and out["first_violation"]["theorem1"] == 1
    text = runner.invoke(app, ["align", "theorem1", path])
    assert text.exit_code == 1
    last = text.output.strip().splitlines()[-1]  # the table's False alone once said what failed
    assert last.startswith("theorem1 failed: link L2 per step (from the measured d_t) fails at step 1 (d_t = 10^"), last
    assert "Theorem 1's bound fails at step 1 (d_t = 10^" in last and " > bound 10^" in last
    assert contradictions(last) == []


@pytest.mark.slow
def test_simulate_with_a_schedule_and_a_saved_log(tmp_path):
    """`align simulate --eta-schedule ... --save-log` reports S = sum eta_t and writes a log on which
    `align theorem1` gives the simulation's own bounds; an explicit --eta-file gives the same run."""
    log = str(tmp_path / "sim.npz")
    common = ["align", "simulate", "--num-samples", str(N), "--num-classes", str(C), "--batch-size", str(B),
              "--steps", str(T), "--eta", "2", "--json"]
    res = runner.invoke(app, common + ["--eta-schedule", "cosine", "--eta-param", "final_fraction=0.1",
                                       "--warmup-steps", "2", "--save-log", log, "--log-every", "3"])
    assert res.exit_code == 0, res.output
    sim = json.loads(res.stdout)
    etas = StepSizeSchedule("cosine", {"final_fraction": 0.1}, warmup_steps=2).step_sizes(2.0, T)
    assert sim["eta_sum"] == math.fsum(etas.tolist()) and sim["step_sizes"]["form"] == "cosine"
    assert sim["log"] == {"path": log, "records": 5}  # steps 0, 3, 6, 9, 10
    ev = json.loads(runner.invoke(app, ["align", "theorem1", log, "--json"]).stdout)
    for link in ("L2", "L3", "theorem1"):
        assert ev["bounds_log10"][link] == pytest.approx(sim["bounds_log10"][link], abs=1e-12)
    assert ev["d_T"] == pytest.approx(sim["d_T"], rel=1e-12)
    np.save(tmp_path / "etas.npy", etas)
    res2 = runner.invoke(app, common[:-3] + ["--eta", "1", "--eta-file", str(tmp_path / "etas.npy"), "--json"])
    assert res2.exit_code == 0, res2.output
    assert json.loads(res2.stdout)["d_T"] == sim["d_T"]


@pytest.mark.parametrize("opts,match", [
    (["--eta-schedule", "cosinus"], r"--eta-schedule='cosinus' is not a step-size schedule"),
    (["--eta-schedule", "step", "--eta-param", "gamma=2", "--eta-param", "period=3"], r"--eta-param gamma=2 is outside"),
    (["--eta-schedule", "step", "--eta-param", "gamma=0.5"], r"needs --eta-param period="),
    (["--eta-schedule", "cosine", "--eta-param", "alpha"], r"'alpha' is not of the form key=value"),
    (["--warmup-steps", "30"], r"--warmup-steps=30 must be below --steps=20"),
    (["--eta-schedule", "array"], r"--eta-schedule array needs --eta-file"),
    (["--eta-file", "nothere.npy"], r"--eta-file='nothere.npy': no such file"),
    (["--save-log", "x.json"], r"--save-log='x.json' must end in .npz"),
    (["--save-log", "x.npz", "--log-every", "0"], r"--log-every=0 must be in \[1, --steps=20\]"),
])
@pytest.mark.slow
def test_simulate_schedule_options_exit_2_naming_the_option(opts, match, tmp_path):
    """Bad schedule options exit 2 with one line naming the option as typed, before any output."""
    res = runner.invoke(app, ["align", "simulate", "--num-samples", "20", "--batch-size", "8", "--steps", "20", *opts])
    assert res.exit_code == 2 and re.search(match, res.output), res.output
    assert len(res.output.strip().splitlines()) == 1
