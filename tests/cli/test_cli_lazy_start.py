"""The command line starts without JAX where it needs none (``--help``, ``bound``, ``list``, ``claims``):
commands are loaded lazily and float64 is requested without importing JAX. Timing is in
benchmarks/cli_start.py; these tests guard what makes it fast (which modules are imported)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest
import typer

from contrastive_bounds.properties.cli._app import COMMANDS, app, load_command

#: the simulator's modules (its package face is lazy and light: importing it is not what these tests guard)
HEAVY = ("jax", "gudhi", "optax", "matplotlib", "contrastive_bounds.numerics.langevin._driver",
         "contrastive_bounds.numerics.langevin._kernel", "sklearn")

PROBE = ("import sys, json\nfrom contrastive_bounds.properties.cli import main\nsys.argv = ['contrastive-bounds', *{argv!r}]\n"
         "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
         "print(json.dumps({{'code': code, 'heavy': [m for m in {heavy!r} if m in sys.modules]}}), file=sys.stderr)\n")


SAVED = os.path.join(os.path.dirname(__file__), "..", "numerics", "landscapes", "network", "data", "saved",
                     "v2-infonce-n4-d2-tau0.1-done")


@pytest.mark.parametrize("argv", [
    ["landscape", "infonce", "--tau", "0"],
    ["landscape", "infonce", "--points", "4", "--pairs", "0-0"],
    ["landscape", "thomson", "--points", "1"],
    ["anneal", "--search", "/no/such/folder", "--schedule", "fixed", "c=0.1"],
    ["anneal", "--search", SAVED, "--start", "m9", "--schedule", "fixed", "c=0.1"],
    ["anneal", "--search", SAVED, "--start", "m1", "--delta", "-1", "--schedule", "fixed", "c=0.1"],
    ["anneal", "--search", SAVED, "--start", "m1", "--time", "1", "--step-size", "0.3", "--schedule", "fixed", "c=0.1"],
    ["anneal", "infonce", "--points", "4", "--dim", "2", "--tau", "0.2", "--search", SAVED, "--schedule", "fixed",
     "c=0.1"],
])
@pytest.mark.slow
def test_bad_landscape_and_search_options_exit_2_before_jax_is_imported(argv):
    """A bad landscape option, or a bad --search/--start/--delta/--step-size or landscape options that differ from
    the saved search's: exit 2 without importing JAX (about 5 s sooner than after it)."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True,
                          text=True, timeout=120, env=env)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 2 and "error: " in proc.stderr, proc.stderr[-2000:]
    assert report["heavy"] == [], f"{argv} imported {report['heavy']}"


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100", "delta=0.05", "steps=1000",
     "eta_sum=10"],
    ["list", "--json"],
    ["claims", "--only", "alignment.frobenius_decreasing_in_tau"],
    ["bound", "--help"],
])
@pytest.mark.slow
def test_commands_without_jax_import_no_heavy_module(argv):
    """`--help`, `bound`, `list`, `claims` used to import JAX, gudhi and every landscape (4-12 s)."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)], capture_output=True,
                          text=True, timeout=120, env=env)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), proc.stderr[-2000:]
    assert report["heavy"] == [], f"{argv} imported {report['heavy']}"


def test_command_table_matches_the_modules():
    """COMMANDS names each command, the module that registers it and its help's first line, in order."""
    for name, (module, short) in COMMANDS.items():
        cmd = load_command(name)
        assert cmd.name == name
        assert (cmd.help or "").strip().splitlines()[0] == short, name
    registered = []
    for module in dict.fromkeys(m for m, _ in COMMANDS.values()):
        holder = typer.Typer()
        importlib.import_module(f"contrastive_bounds.properties.cli.{module}").register(holder)
        registered += [c.name for c in holder.registered_commands] + [g.name for g in holder.registered_groups]
    assert sorted(registered) == sorted(COMMANDS)


def test_top_level_help_lists_every_command_and_unknown_command_exits_2():
    """The lazy group's help lists the commands with their help; an unknown one is one line, exit 2."""
    from typer.testing import CliRunner

    res = CliRunner().invoke(app, ["--help"])
    assert res.exit_code == 0
    for name, (_, short) in COMMANDS.items():
        assert name in res.output and short.split()[0] in res.output
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, "-m", "contrastive_bounds.properties", "nope"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: No such command 'nope'."
