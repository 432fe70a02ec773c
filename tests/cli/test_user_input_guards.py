"""Guards on what a user types: a saved anneal run is not overwritten without --resume and a resume of
another run names the setting that differs; absurd step counts print a short number; --solve refuses
digits beyond 60; align compare names a constant representation by its argument."""

from __future__ import annotations

import numpy as np
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

runner = CliRunner()
SCHEDULE = ["double-well", "--schedule", "temperature", "c=1.0", "--chains", "16", "--time", "2"]


def test_anneal_refuses_to_overwrite_a_saved_run_and_names_what_differs_on_resume(tmp_path):
    """Second run into the same --checkpoint without --resume: exit 2 and the file unchanged; --resume with
    another c: exit 2 naming the schedule's constant in both versions (not a shared, cut-off prefix)."""
    ckpt = tmp_path / "run.npz"
    first = runner.invoke(app, ["anneal", *SCHEDULE, "--checkpoint", str(ckpt)])
    assert first.exit_code == 0, first.output
    before = ckpt.read_bytes()
    again = runner.invoke(app, ["anneal", *SCHEDULE, "--checkpoint", str(ckpt)])
    assert again.exit_code == 2 and "already holds a saved run" in again.output and "--resume" in again.output
    assert ckpt.read_bytes() == before
    other = ["c=1.5" if a == "c=1.0" else a for a in SCHEDULE]
    res = runner.invoke(app, ["anneal", *other, "--checkpoint", str(ckpt), "--resume"])
    assert res.exit_code == 2 and "different run" in res.output
    assert "T(t) = 1 / log" in res.output and "T(t) = 1.5 / log" in res.output


def test_absurd_time_over_step_size_is_refused_with_a_short_number():
    """--time 1e300: the step count is printed as 5e+301, not a 300-digit integer; an infinite ratio too."""
    res = runner.invoke(app, ["anneal", *SCHEDULE[:-1], "1e300"])
    assert res.exit_code == 2 and "5e+301 steps" in res.output and len(res.output) < 400
    res = runner.invoke(app, ["anneal", *SCHEDULE, "--step-size", "1e-320"])
    assert res.exit_code == 2 and "inf steps" in res.output


def test_solve_digits_above_60_are_refused():
    """--solve with --digits 100: exit 2 naming --digits and [5, 60]; 60 itself is accepted."""
    base = ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100", "delta=0.05",
            "steps=1000", "m=512", "--solve", "eta_sum"]
    res = runner.invoke(app, [*base, "--digits", "100"])
    assert res.exit_code == 2 and "--digits=100" in res.output and "[5, 60]" in res.output
    assert runner.invoke(app, [*base, "--digits", "60"]).exit_code == 0


def test_compare_names_the_constant_representation(tmp_path):
    """Rows all equal in CL: exit 2 naming CL (not an internal variable), no traceback."""
    np.save(tmp_path / "c.npy", np.ones((10, 3)))
    np.save(tmp_path / "r.npy", np.random.default_rng(0).standard_normal((10, 3)))
    res = runner.invoke(app, ["align", "compare", str(tmp_path / "r.npy"), str(tmp_path / "c.npy")])
    assert res.exit_code == 2 and "error: NSCL is constant" in res.output and "Traceback" not in res.output
    assert "x_nscl" not in res.output  # the library's name, rewritten to the argument as typed
