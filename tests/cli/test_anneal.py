"""The ``anneal`` command (properties/cli/_anneal.py) through typer's CliRunner."""

import json

from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app
import pytest

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, ["anneal", *args])


@pytest.mark.slow
def test_anneal_json_slow_and_fast_schedules_beside_theory():
    """c = 2 > H* = 1.53125: verdict converges and no chain stays trapped; c = 0.8 < H*: verdict
    does not converge and a clearly positive trapped fraction (Clopper-Pearson lower end > 0.1)."""
    common = ["--chains", "256", "--time", "100", "--step-size", "0.02", "--seed", "3", "--json"]
    slow = _run("double-well", "c=2.0", "t0=2", "--schedule", "temperature", *common)
    assert slow.exit_code == 0, slow.output
    out = json.loads(slow.output)
    assert out["theory"]["converges"] is True and out["critical_height"] == 1.53125
    assert out["trapped"]["ci95"][1] < 0.05
    fast = _run("double-well", "c=0.8", "t0=2", "--schedule", "temperature", *common)
    out = json.loads(fast.output)
    assert out["theory"]["converges"] is False
    assert out["trapped"]["ci95"][0] > 0.1
    assert 0 < out["theory"]["kramers_trap_probability"] < 1


def test_anneal_table_output():
    """anneal without --json prints the table with the success fraction and the Kramers column; the theory column
    says the verdict in words (c = 2 > H* = 1.53125: converges in probability), never a Python literal."""
    res = _run("double-well", "c=2.0", "t0=2", "--schedule", "temperature", "--chains", "32", "--time", "2", "--no-progress")
    assert res.exit_code == 0, res.output
    assert "success" in res.output and "Kramers" in res.output
    text = " ".join(res.output.split())
    assert "converges in probability" in text and "converges: True" not in text
    assert not any(f"│ {word}" in res.output or f"{word}," in text for word in ("True", "False", "None"))


def test_anneal_time_line_parts_add_up_to_the_whole_command():
    """The time line breaks the whole command into parts that add up to it: the simulation and "other" (the
    landscape, the verdict and the Kramers band), each to 0.1 s. It had given the simulation and the whole command
    only, leaving the rest of the time unaccounted for."""
    import re

    res = _run("double-well", "c=2.0", "t0=2", "--schedule", "temperature", "--chains", "8", "--time", "1", "--no-progress")
    assert res.exit_code == 0, res.output
    line = " ".join(res.output.split())
    found = re.search(r"simulation (\d+\.\d) s, other (\d+\.\d) s \(the landscape, the verdict and the Kramers band\), "
                      r"whole command (\d+\.\d) s", line)
    assert found, line[-300:]
    simulation, other, whole = (float(x) for x in found.groups())
    assert round(simulation + other, 1) == whole


@pytest.mark.parametrize("parts, total, expected", [
    ([("simulation", 1.04), ("quench", 0.26)], 2.0, "simulation 1.0 s, quench 0.3 s, other 0.7 s (rest), whole command 2.0 s"),
    ([("simulation", 12.34)], 12.46, "simulation 12.3 s, other 0.2 s (rest), whole command 12.5 s"),
    ([("simulation", 0.96), ("quench", 0.06)], 1.0, "simulation 1.0 s, quench 0.1 s, other 0.0 s (rest), whole command 1.0 s"),
])
def test_time_line_takes_the_remainder_from_the_rounded_parts(parts, total, expected):
    """``other`` is the whole minus the parts as printed (so they add up on the page); a remainder below 0 by
    rounding prints 0.0, never a negative time."""
    from contrastive_bounds.properties.cli._anneal_run import time_line

    assert time_line(parts, total, "rest") == expected


def test_anneal_bad_input_exits_2_with_one_line():
    """Invalid schedules, negative constants, a time that is not a multiple of the step and a landscape
    without a trap exit 2 naming the argument."""
    res = _run("double-well", "c=2.0", "--schedule", "temperature", "t0=1", "--chains", "8", "--time", "1")
    assert res.exit_code == 2 and "t0" in res.output
    res = _run("double-well", "c=-1", "--schedule", "temperature", "--time", "1")
    assert res.exit_code == 2 and "c=" in res.output
    res = _run("double-well", "c=2", "t0=2", "--schedule", "temperature", "--time", "1", "--step-size", "0.3")
    assert res.exit_code == 2 and "--time=1.0 must be a positive whole multiple of --step-size=0.3" in res.output
    res = _run("vmf", "c=2", "t0=2", "--schedule", "temperature", "--time", "1")
    assert res.exit_code == 2 and "start=trap" in res.output


def test_console_script_reports_usage_errors_in_one_line(monkeypatch, capsys):
    """The entry point (not CliRunner): a bad option value, an unknown option and an unknown command
    each give ONE line on stderr and exit code 2; a good command exits 0."""
    import pytest

    from contrastive_bounds.properties.cli._app import main

    cases = [
        (["anneal", "double-well", "--schedule", "temperature", "c=2.0", "--chains", "abc"], "--chains"),
        (["bound", "delta", "--bogus"], "--bogus"),
        (["nonsense"], "nonsense"),
    ]
    for argv, name in cases:
        monkeypatch.setattr("sys.argv", ["contrastive-bounds", *argv])
        with pytest.raises(SystemExit) as exc:
            main()
        err = capsys.readouterr().err
        assert exc.value.code == 2 and name in err and len(err.strip().splitlines()) == 1, err
    monkeypatch.setattr("sys.argv", ["contrastive-bounds", "list"])
    main()  # no SystemExit on success
    assert "delta" in capsys.readouterr().out


@pytest.mark.slow
def test_a_step_size_too_large_for_the_landscape_is_warned_about():
    """h·Σk²|c_k| > 1 (barrier-H, H = 100: Σk²|c_k| = 100/1.53125·4.5 ≈ 294): a warning naming step_size
    (in the JSON and on stderr); none at the default-like h = 0.02 on double-well (4.5·0.02 = 0.09)."""
    big = _run("barrier-H", "--param", "H=100", "--schedule", "temperature", "c=2", "--chains", "8",
               "--time", "1", "--step-size", "0.1", "--json")
    assert big.exit_code == 0, big.output
    out = json.loads(big.stdout)
    assert len(out["warnings"]) == 1 and "step_size=0.1" in out["warnings"][0] and "29.4" in out["warnings"][0]
    small = _run("double-well", "--schedule", "temperature", "c=2", "--chains", "8", "--time", "1",
                 "--step-size", "0.02", "--json")
    assert json.loads(small.stdout)["warnings"] == []


@pytest.mark.slow
def test_anneal_takes_a_fourier_file_like_barrier_and_kramers(tmp_path):
    """anneal takes S¹ Fourier files as its help says (it had refused them): the double well written as a
    file gives the same JSON numbers as the built-in (same seed)."""
    f = tmp_path / "dw.json"
    f.write_text('{"cos": {"1": -0.5, "2": -1.0}}')
    common = ["c=2.0", "t0=2", "--schedule", "temperature", "--chains", "32", "--time", "4", "--seed", "1", "--json"]
    from_file = _run(str(f), *common)
    assert from_file.exit_code == 0, from_file.output
    built_in = json.loads(_run("double-well", *common).stdout)
    out = json.loads(from_file.stdout)
    assert out["landscape"].startswith("fourier:") and out["critical_height"] == 1.53125
    assert out["success"] == built_in["success"] and out["hitting_time"] == built_in["hitting_time"]
    assert out["total_time_s"] >= out["simulation_time_s"] > 0 and "wall_time_s" not in out


def test_anneal_errors_name_its_own_options():
    """The generator form cannot start at t = 0 (anneal always does), and the error says so; a step count
    beyond the range names --time and --step-size, not internal names."""
    res = _run("double-well", "c=2", "--schedule", "generator", "--time", "10")
    assert res.exit_code == 2 and "--schedule generator on anneal's range [0, --time=10]: t_start=0.0" in res.output
    res = _run("double-well", "c=2", "t0=2", "--schedule", "temperature", "--time", "1e9")
    assert res.exit_code == 2
    assert "--time / --step-size = 50000000000 steps is outside its domain: at most 2147483646 steps" in res.output


@pytest.mark.slow
def test_anneal_runs_when_the_kramers_quadrature_cannot_reach_its_temperature():
    """barrier-H with H = 1e6 (inside its domain) runs although the exact quadrature cannot reach the run's
    temperature: the Kramers band is taken at the quadrature's smallest temperature, with a warning (the
    optional Kramers column had made the command fail)."""
    res = _run("barrier-H", "--param", "H=1e6", "c=2", "--schedule", "temperature", "--chains", "8", "--time", "1",
               "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["theory"]["kramers_trap_probability"] == 1.0 and out["warnings"]


def test_anneal_help_lists_exactly_the_landscapes_it_can_run():
    """The help lists only landscapes anneal can run: vmf-mixture and infonce (no known global minimum) had
    been listed although they always fail."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape, list_landscapes
    from contrastive_bounds.properties.cli._anneal import ANNEAL_LANDSCAPES

    runnable = []
    for name in list_landscapes():
        if name == "fourier":  # coefficients come from a file
            continue
        if get_landscape(name).v_min is not None:
            runnable.append(name)
    assert sorted(ANNEAL_LANDSCAPES) == sorted(runnable)
    res = _run("vmf-mixture", "c=2", "t0=2", "--schedule", "temperature", "--start", "uniform", "--time", "1")
    assert res.exit_code == 2 and "no known global minimum" in res.output


@pytest.mark.slow
def test_anneal_reports_the_step_size_warning_once_in_its_output():
    """anneal reports simulate's step-size warning once, in its JSON warnings, instead of a Python warning
    line."""
    res = CliRunner().invoke(app, ["anneal", "barrier-H", "--param", "H=1000", "c=1", "t0=2", "--schedule", "temperature",
                                   "--chains", "4", "--time", "0.04", "--json", "--no-progress"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out["warnings"]) == 1 and "h * sup|V''| can reach" in out["warnings"][0]



BAD_OPTIONS = [
    (["--chains", "0"], "--chains=0 is outside its domain"),
    (["--time", "-1"], "--time=-1.0 is outside its domain"),
    (["--step-size", "0"], "--step-size=0.0 is outside its domain"),
    (["--seed", "-1"], "--seed=-1 is outside its domain"),
    (["--delta", "-1"], "--delta=-1.0 is outside its domain"),
    (["--start", "bogus"], "--start='bogus' is not one of"),
    (["--integrator", "rk4"], "--integrator='rk4' is not one of"),
    (["--time", "1.01"], "--time=1.01 must be a positive whole multiple of --step-size=0.02"),
    (["--time", "1e9"], "--time / --step-size = 50000000000 steps is outside its domain"),
    (["--resume"], "--resume needs --checkpoint FILE"),
    (["--checkpoint", "D"], "--checkpoint='D' is a folder; give a file path such as 'D/run.npz'"),
    (["--checkpoint", "D", "--resume"], "--checkpoint='D' is a folder; give a file path such as 'D/run.npz'"),
    (["--checkpoint", "F.npz"], "--checkpoint='F.npz' already holds a saved run; add --resume"),
    (["--checkpoint", "run.ckpt"], "--checkpoint='run.ckpt' must end in .npz"),
    (["--checkpoint", "missing/run.npz"], "--checkpoint='missing/run.npz': its folder 'missing' does not exist"),
    (["--checkpoint", "F/run.npz"], "--checkpoint='F/run.npz': its folder 'F' is not a folder"),
    (["--checkpoint", "F/run.npz", "--resume"], "--checkpoint='F/run.npz' does not exist: nothing to resume"),
    (["--checkpoint", "/proc/anneal-run.npz"], "--checkpoint='/proc/anneal-run.npz': its folder '/proc' is not writable"),
    (["--checkpoint", "missing/run.npz", "--resume"], "--checkpoint='missing/run.npz' does not exist: nothing to resume"),
]

LAZY_PROBE = """
import json, sys
from contrastive_bounds.properties.cli._app import main
out = []
for argv in json.loads(sys.argv[1]):
    sys.argv = ["contrastive-bounds", "anneal", "double-well", "c=2", "t0=2", "--schedule", "temperature", *argv]
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    out.append({"code": code, "jax": "jax" in sys.modules})
print(json.dumps(out), file=sys.stderr)
"""


@pytest.mark.slow
def test_bad_options_exit_2_with_one_line_before_jax_is_imported(tmp_path):
    """Bad anneal options (not the landscape's) exit 2 with one line naming the option before JAX is imported
    (they had waited for JAX's ~5 s start): ranges, the start mode, the integrator, --time against the step, and
    --checkpoint before any computation — a folder (also with --resume), a saved run without --resume, a path
    under a file, an unwritable place, nothing to resume (without creating its folder), a name not ending in .npz,
    a folder that does not exist (it had been created)."""
    import os
    import subprocess
    import sys

    (tmp_path / "D").mkdir()
    (tmp_path / "F").write_text("not a checkpoint")
    (tmp_path / "F.npz").write_text("not a checkpoint")
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, "-c", LAZY_PROBE, json.dumps([argv for argv, _ in BAD_OPTIONS])], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env)
    lines = proc.stderr.strip().splitlines()
    report = json.loads(lines[-1])
    errors = lines[:-1]
    assert len(errors) == len(BAD_OPTIONS), proc.stderr[-3000:]
    for (argv, expected), line, result in zip(BAD_OPTIONS, errors, report):
        assert result == {"code": 2, "jax": False}, (argv, line)
        assert line.startswith("error: ") and expected in line, (argv, line)
    assert not (tmp_path / "missing").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["D", "F", "F.npz"]  # nothing written


def test_a_checkpoint_folder_is_refused_before_the_landscape_or_the_run(tmp_path, monkeypatch):
    """--checkpoint FOLDER (with or without --resume) is refused before anything is computed: neither the landscape
    nor the experiment is reached (it had said 'already holds a saved run' for a folder, and with --resume had failed
    only when the simulator started)."""
    import contrastive_bounds.numerics.langevin._annealing as annealing

    calls = []
    monkeypatch.setattr(annealing, "anneal", lambda *a, **k: calls.append("anneal"))
    monkeypatch.setattr("contrastive_bounds.numerics.landscapes._registry.resolve_landscape",
                        lambda *a, **k: calls.append("landscape"))
    for extra in ([], ["--resume"]):
        res = _run("double-well", "c=2", "t0=2", "--schedule", "temperature", "--time", "1", "--checkpoint",
                   str(tmp_path), *extra)
        assert res.exit_code == 2 and f"--checkpoint={str(tmp_path)!r} is a folder" in res.output, res.output
    assert calls == []


def test_help_and_docs_state_the_same_trap_rule():
    """`anneal --help`, docs/cli.md (generated from it) and docs/simulator.md describe --start trap by the rule the
    code applies (numerics.network_experiment.start_minimum: the largest barrier, lowest id among equals), and none
    calls it "the deepest non-global minimum"."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    rule = "the non-global minimum with the largest barrier to a lower minimum"
    res = runner.invoke(app, ["anneal", "--help"], terminal_width=400)
    assert res.exit_code == 0
    help_text = " ".join(res.output.replace("│", " ").split())
    simulator = " ".join((root / "docs/simulator.md").read_text().split())
    for text in (help_text, (root / "docs/cli.md").read_text(), simulator):
        assert rule in text
        assert "trap (the deepest non-global minimum)" not in text
