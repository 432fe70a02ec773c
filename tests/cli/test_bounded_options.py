"""Every bounded option has an upper limit, checked before any work: ``bound --digits`` (5000 printed
the table and then failed on Python's int-to-text limit; 100000 ran for minutes), the sizes of the
align commands (a cost estimate above an hour needs --yes; memory beyond what is free is refused),
the Spearman subsample of ``align compare`` and the mesh of ``barrier`` on S²."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import contrastive_bounds.properties.cli._align_cost as align_cost
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli._common import CLIError

runner = CliRunner()
FROBENIUS = ["bound", "alignment.frobenius", "tau=0.5", "pi_max=0.1", "batch_size=64", "steps=1000", "delta=0.05",
             "eta_sum=10"]


def _one_line(res, *words):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("digits", ["4", "1001", "5000", "100000"])
def test_bound_digits_outside_5_to_1000_are_refused_before_any_work(monkeypatch, digits):
    """Exit 2 naming --digits and [5, 1000], before the registry is even consulted (no table, no minutes)."""
    import contrastive_bounds.theory._registry as registry

    monkeypatch.setattr(registry, "get", lambda name: pytest.fail("the bound was looked up before --digits was checked"))
    _one_line(runner.invoke(app, [*FROBENIUS, "--digits", digits]), f"--digits={digits} is outside its domain: "
                                                                     "integers in [5, 1000]")


def test_bound_digits_at_the_limit_evaluate():
    """1000 digits: exit 0, and the exact value printed with 1000 significant digits."""
    import json

    res = runner.invoke(app, [*FROBENIUS, "--digits", "1000", "--json"])
    assert res.exit_code == 0, res.output
    exact = json.loads(res.stdout)["exact"]
    assert len(exact.split("e")[0].replace(".", "").lstrip("-0")) >= 990


def test_refuse_costly_limit_is_exact_and_yes_lifts_it():
    """The limit is LIMIT_SECONDS itself (not a trend): at the limit a run goes, a second above needs --yes."""
    align_cost.refuse_costly(align_cost.LIMIT_SECONDS, "--steps=1", yes=False)
    with pytest.raises(CLIError, match=r"^--steps=1: an estimated 60 min on a 2-core CPU, above the limit of 60 min"):
        align_cost.refuse_costly(align_cost.LIMIT_SECONDS + 1, "--steps=1", yes=False)
    align_cost.refuse_costly(1e12, "--steps=1", yes=True)
    with pytest.raises(CLIError, match=r"needs about 1 GiB of memory, more than the 0.5 GiB free"):
        align_cost.refuse_memory(2**30, "--hidden=1", available=2**29)


def test_estimates_follow_their_cost_models():
    """The estimates are the documented products of the sizes (exact arithmetic on the rates)."""
    s = align_cost.simulate_seconds(1000, 64, 500)
    assert s == pytest.approx(500 * (2000**2 + 64 * 64 * 2000) * align_cost.SIMULATE_S_PER_ENTRY)
    assert align_cost.simulate_bytes(1000) == 8 * 2000 * 2000 * 8
    assert align_cost.train_seconds(10, 128) == pytest.approx(10 * (20.0 + 12 * 0.05))
    # fixed epochs: steps x B = epochs x n samples per cell, whatever B
    one = align_cost.batch_scaling_seconds((16,), ("epochs",), 1, 1, 1, 512, 16, 256)
    assert align_cost.batch_scaling_seconds((64,), ("epochs",), 1, 1, 1, 512, 16, 256) == pytest.approx(one)
    assert align_cost.batch_scaling_seconds((16,), ("epochs",), 4, 3, 2, 512, 16, 256) == pytest.approx(24 * one)


def test_defaults_of_every_align_command_are_within_the_limit():
    """Nobody needs --yes for the documented defaults."""
    assert align_cost.simulate_seconds(1000, 64, 500) < align_cost.LIMIT_SECONDS
    assert align_cost.train_seconds(30, 128) < align_cost.LIMIT_SECONDS
    assert align_cost.proxy_seconds(256, 32, 300, 256, 32) < align_cost.LIMIT_SECONDS
    assert align_cost.batch_scaling_seconds((16, 32, 64, 128, 256), ("epochs", "steps"), 4, 3, 20, 512, 64,
                                            256) < align_cost.LIMIT_SECONDS


def _no_run(monkeypatch):
    """Replace every align runner by one that says it was reached (so no test trains anything)."""
    import contrastive_bounds.numerics.alignment._batch_scaling as batch_scaling
    import contrastive_bounds.numerics.alignment._descent_run as descent_run
    import contrastive_bounds.numerics.alignment._proxy as proxy
    import contrastive_bounds.numerics.alignment._training as training

    def reached(*a, **k):  # noqa: ANN002, ANN003, ANN202
        raise ValueError("the run was reached")

    for mod, name in ((descent_run, "run_similarity_descent"), (training, "train_alignment"),
                      (proxy, "run_proxy_comparison"), (batch_scaling, "run_batch_scaling")):
        monkeypatch.setattr(mod, name, reached)


@pytest.mark.parametrize("argv, words", [
    (["align", "simulate", "--steps", "2000000000"], ("--steps=2000000000", "days on a 2-core CPU", "add --yes")),
    (["align", "train", "--epochs", "1000"], ("--epochs=1000", "h on a 2-core CPU", "add --yes")),
    (["align", "proxy", "--steps", "2000000000"], ("--steps=2000000000", "add --yes")),
    (["align", "batch-scaling", "--epochs", "100000"], ("--epochs=100000", "add --yes")),
])
@pytest.mark.slow
def test_costly_align_runs_need_yes(monkeypatch, argv, words):
    """Beyond an hour's estimate: one line naming the options that set the cost, nothing run; with --yes the
    run is reached."""
    _no_run(monkeypatch)
    _one_line(runner.invoke(app, argv), *words)
    _one_line(runner.invoke(app, [*argv, "--yes"]), "the run was reached")


@pytest.mark.parametrize("argv, words", [
    (["align", "simulate", "--num-samples", "1000000"], ("--num-samples=1000000", "GiB of memory", "free on this machine")),
    (["align", "proxy", "--hidden", "100000000", "--yes"], ("--hidden=100000000", "GiB of memory")),
    (["align", "proxy", "--model", "free", "--projection-dim", "1000000000", "--yes"], ("--projection-dim=1000000000",)),
    (["align", "batch-scaling", "--hidden", "100000000", "--yes"], ("--hidden=100000000", "GiB of memory")),
])
def test_memory_beyond_the_machine_is_refused_even_with_yes(monkeypatch, argv, words):
    """A size that cannot fit in memory is refused whatever --yes says, naming the option."""
    _no_run(monkeypatch)
    _one_line(runner.invoke(app, argv), *words)


def test_simulate_refuses_a_temperature_whose_exponent_is_beyond_float64(monkeypatch):
    """tau = 1e-300: exp(S/(2 tau^2 B)) is beyond float64 even in log space; one line pointing to the exact
    `bound` command (it used to end in 'math domain error')."""
    _no_run(monkeypatch)
    _one_line(runner.invoke(app, ["align", "simulate", "--tau", "1e-300"]), "--tau=1e-300", "beyond float64 even in log "
              "space", "contrastive-bounds bound alignment.frobenius")


def test_compare_spearman_sample_and_sphere_mesh_have_upper_limits(tmp_path):
    """--spearman-sample above 5000 (its n x n ranks need gigabytes) and an S² mesh above 1e6 vertices (half an
    hour at 1e7) are refused with their ranges."""
    import numpy as np

    rng = np.random.default_rng(0)
    np.save(tmp_path / "a.npy", rng.standard_normal((20, 3)))
    res = runner.invoke(app, ["align", "compare", str(tmp_path / "a.npy"), str(tmp_path / "a.npy"),
                              "--spearman-sample", "5001"])
    _one_line(res, "--spearman-sample=5001 is outside its domain: integers in [3, 5000]")
    _one_line(runner.invoke(app, ["barrier", "vmf", "--resolution", "1000001"]),
              "--resolution=1000001 is outside its domain: integers in [12, 1000000]")
