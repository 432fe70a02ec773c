"""Error messages on the command line name what the user typed: the library's argument names
(``chains=0``, ``batch_size=0``) become the command's options (``--chains=0``, ``--batch-size=0``),
by one mechanism in ``properties.cli.common.command`` that reads the command's own parameters, so
every command gets it, including those whose checks live in the library."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

import contrastive_bounds.properties.cli._common as common
from contrastive_bounds.properties.cli._app import app

runner = CliRunner()

NAMES = {"batch_size": "--batch-size", "batch-size": "--batch-size", "steps": "--steps", "seed": "--seed",
         "reference_size": "--reference-size", "time": "--time"}


@pytest.mark.parametrize("message, expected", [
    ("batch_size=0 is outside its domain", "--batch-size=0 is outside its domain"),
    ("steps=0 is outside its domain: integers in [1, 9]", "--steps=0 is outside its domain: integers in [1, 9]"),
    ("batch_size=300 must be at most reference_size", "--batch-size=300 must be at most --reference-size"),
    ("batch-size=3 and seed=-1", "--batch-size=3 and --seed=-1"),
    # already an option, dotted, part of a longer identifier, inside a path: unchanged
    ("--batch-size=0 is outside", "--batch-size=0 is outside"),
    ("sgd.batch_size=0 differs", "sgd.batch_size=0 differs"),
    ("max_batch_size=4 and batch_sizes=(1, 2)", "max_batch_size=4 and batch_sizes=(1, 2)"),
    ("file 'runs/batch_size' is missing", "file 'runs/batch_size' is missing"),
    # a plain word is an argument only in its name=value form
    ("too many steps for this seed", "too many steps for this seed"),
    ("time=-1.0 must be positive", "--time=-1.0 must be positive"),
])
def test_in_option_terms_rewrites_argument_names_only(message, expected):
    """Exact rewrites: name=value forms and underscored identifiers, never dotted, dashed or path text."""
    assert common.in_option_terms(message, NAMES) == expected


def test_option_names_come_from_the_command_and_skip_key_value_words():
    """A small typer app: the map is read from its parameters (the option name, not the Python name,
    decides: --time for time_end), aliases add library names, and a key=value word the user typed
    keeps its own name (here the landscape parameter seed=...)."""
    demo = typer.Typer()

    @demo.command()
    @common.command(aliases={"step_size": "eta"})
    def run(params: list[str] = typer.Argument(None), time_end: float = typer.Option(1.0, "--time"),
            eta: float = typer.Option(1.0), seed: int = typer.Option(0), batch_size: int = typer.Option(2)) -> None:
        raise ValueError(f"time={time_end} and step_size={eta} and batch_size={batch_size} and seed={seed} "
                         f"with {params}")

    res = runner.invoke(demo, ["--time", "-1", "--eta", "0", "--batch-size", "0"])
    assert res.exit_code == 2
    assert "error: --time=-1.0 and --eta=0.0 and --batch-size=0 and --seed=0" in res.output
    flags = typer.Typer()

    @flags.command()
    @common.command
    def go(fast: bool = typer.Option(False, "--fast"), progress: bool = typer.Option(True, "--progress/--quiet"),
           other: int = typer.Option(0)) -> None:
        raise ValueError("fast=True needs progress=False; fast=False needs progress=True")

    res = runner.invoke(flags, ["--fast"])
    assert "error: --fast needs --quiet; no --fast needs --progress" in res.output
    res = runner.invoke(demo, ["seed=5", "--seed", "3"])
    assert res.exit_code == 2 and "and seed=3 with ['seed=5']" in res.output


@pytest.mark.parametrize("argv, shown", [
    (["align", "simulate", "--batch-size", "0"], "error: --batch-size=0 is outside its domain"),
    (["align", "simulate", "--eta", "-1"], "error: --eta=-1.0 is outside its domain [0, inf)"),  # library: step_size
    (["align", "proxy", "--steps", "10", "--fit-steps", "20"], "error: --fit-steps=20 is outside its domain: integers in [1, 10]"),
    (["align", "batch-scaling", "--reference-batch", "5"], "error: --reference-batch=5 must be one of --batch-sizes="),
    (["anneal", "double-well", "--schedule", "temperature", "c=1", "--chains", "0"], "error: --chains=0 is outside"),
    (["anneal", "double-well", "--schedule", "temperature", "c=1", "--start", "x"], "error: --start='x' is not one of"),
    (["anneal", "double-well", "--schedule", "bogus", "c=1"], "error: --schedule='bogus' is not a schedule form"),
    (["landscape", "infonce", "--tau", "-1"], "error: --tau=-1.0 is outside [0.0001, 10000]"),
    (["landscape", "infonce", "--points", "4", "--pairs", "0-9"], "error: --pairs index=9 is outside its domain"),
    (["landscape", "infonce", "--points", "4", "--pairs", "0-0"], "error: --pairs entry (0, 0) pairs point 0 with itself"),
    (["align", "simulate", "--eta-schedule", "cosine", "--eta-param", "bogus=1"],
     "error: --eta-param bogus= is not a parameter of the 'cosine' schedule"),
    (["barrier", "double-well", "--resolution", "3"], "error: --resolution=3 is outside its domain"),
    (["schedule", "temperature", "c=1", "--critical-height", "-1"], "error: --critical-height=-1.0 is outside"),
    (["bound", "alignment.frobenius", "--digits", "3"], "error: --digits=3 is outside its domain"),
    # flags are typed bare: stratified=True is --stratified
    (["align", "simulate", "--stratified", "--replace"],
     "error: --stratified samples without replacement; it cannot be combined with --replace"),
    # a suggested remedy names an option the command has
    (["align", "simulate", "--num-samples", "4", "--num-classes", "2", "--batch-size", "2", "--steps", "5"],
     "use --empty-negatives='exclude' to skip such anchors"),
    # a landscape parameter typed as key=value keeps its name
    (["kramers", "barrier-H", "H=-1", "--temperature", "1"], "error: H=-1 is outside its domain"),
])
@pytest.mark.slow
def test_commands_name_their_options(argv, shown):
    """Each command, whoever owns it, says --option=value for the value the user typed (exit 2)."""
    res = runner.invoke(app, argv)
    assert res.exit_code == 2, res.output
    assert shown in res.output and "Traceback" not in res.output


def test_check_and_sweep_messages_from_their_libraries_name_options(monkeypatch, tmp_path):
    """``check`` and ``sweep`` get the rewrite for messages raised deep in their libraries."""
    import contrastive_bounds.properties._scenarios as scenarios
    import contrastive_bounds.properties.sweeps._spec as spec

    def refuse_selection(chosen, only):  # noqa: ANN001, ANN202
        raise ValueError(f"only={only!r} selects no scenario of profile='quick'")

    monkeypatch.setattr(scenarios, "select", refuse_selection)
    res = runner.invoke(app, ["check", "--only", "zz", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "error: --only='zz' selects no scenario of --profile='quick'" in res.output

    def refuse_spec(name, profile="default"):  # noqa: ANN001, ANN202
        raise ValueError(f"profile={profile!r} is not a profile; retries and workers unchanged")

    monkeypatch.setattr(spec, "load_spec", refuse_spec)
    res = runner.invoke(app, ["sweep", "seed-table", "--profile", "nope"])
    assert res.exit_code == 2 and "error: --profile='nope' is not a profile" in res.output


def test_an_alias_may_name_a_positional_argument_and_a_broken_map_never_hides_the_error(monkeypatch):
    """aliases={"x_cl": "cl"}: the library's x_cl is shown as the argument's metavar CL; if reading the
    command's parameters fails, the original message is printed unchanged (exit 2 all the same)."""
    demo = typer.Typer()

    @demo.command()
    @common.command(aliases={"x_cl": "cl"})
    def run(cl: str = typer.Argument(..., metavar="CL"), tau: float = typer.Option(1.0)) -> None:
        raise ValueError(f"x_cl is constant and tau={tau}")

    res = runner.invoke(demo, ["a.npy", "--tau", "2"])
    assert res.exit_code == 2 and "error: CL is constant and --tau=2.0" in res.output
    monkeypatch.setattr(common, "option_names", lambda *a: 1 / 0)
    res = runner.invoke(demo, ["a.npy"])
    assert res.exit_code == 2 and "error: x_cl is constant and tau=1.0" in res.output
