"""The landscape and anneal commands hold no rule of their own: every bad input they refuse, the library refuses
with the same sentence (argument names spelled as options on the command line), and so does the sweep kind.

Each case runs the command (exit 2, one line) and calls the library directly with the same input; the option
names are mapped by hand here (``tau=`` -> ``--tau=``, ``t_end=`` -> ``--time=``, ...), independently of the
command line's own renaming.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.landscapes.network import load_saved_search
from contrastive_bounds.numerics.landscapes.network.arguments import infonce_arguments, thomson_arguments
from contrastive_bounds.numerics.network_experiment import plan_anneal, start_minimum
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.theory._schedules import make_schedule

runner = CliRunner()
SAVED = Path(__file__).parents[1] / "numerics" / "landscapes" / "network" / "data" / "saved" / \
    "v2-infonce-n4-d2-tau0.1-done"
NAMES = {"num_points=": "--points=", "dim=": "--dim=", "tau=": "--tau=", "radius=": "--radius=", "start=": "--start=",
         "delta=": "--delta=", "t_end=": "--time=", "step_size=": "--step-size="}


def _as_options(message: str) -> str:
    for a, b in NAMES.items():
        message = message.replace(a, b)
    return "--" + message if message.startswith("pairs ") else message


def _refused(argv):
    res = runner.invoke(app, argv)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    return lines[0].removeprefix("error: ")


def _library(call):
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


@pytest.mark.parametrize("options, call", [
    (["infonce", "--tau", "0"], lambda: infonce_arguments(tau=0.0)),
    (["infonce", "--tau", "1e5"], lambda: infonce_arguments(tau=1e5)),
    (["infonce", "--points", "2"], lambda: infonce_arguments(num_points=2)),
    (["infonce", "--dim", "1"], lambda: infonce_arguments(dim=1)),
    (["infonce", "--points", "4", "--pairs", "0-0"], lambda: infonce_arguments(4, pairs=[(0, 0)])),
    (["infonce", "--points", "4", "--pairs", "0-9"], lambda: infonce_arguments(4, pairs=[(0, 9)])),
    (["infonce", "--points", "4", "--pairs", "0-1,1-0"], lambda: infonce_arguments(4, pairs=[(0, 1), (1, 0)])),
    (["infonce", "--radius", "0"], lambda: infonce_arguments(radius=0.0)),
    (["thomson", "--points", "1"], lambda: thomson_arguments(num_points=1)),
])
def test_landscape_options_are_refused_by_the_library_with_the_same_sentence(options, call):
    """`landscape` and `anneal ... --search` refuse bad InfoNCE/Thomson options exactly as the library's argument
    check (which infonce_spec, thomson_spec and the sweep kind use) refuses the same values."""
    expected = _as_options(_library(call))
    assert _refused(["landscape", *options]) == expected
    assert _refused(["anneal", *options, "--search", str(SAVED), "--schedule", "fixed", "c=0.1"]) == expected


def test_the_sweep_kind_and_the_spec_builder_refuse_the_tau_the_command_refuses():
    """tau = 0 and 1e5: infonce_spec and the `landscape` sweep kind raise the library's sentence; 0.05 passes both."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.properties.sweeps.kinds import get_kind

    for tau in (0.0, 1e5):
        message = _library(lambda: infonce_arguments(tau=tau))
        assert _library(lambda: infonce_spec(4, 2, tau)) == message
        assert message in _library(lambda: get_kind("landscape").resolve({"num_points": 4, "dim": 2, "tau": tau}))
    assert get_kind("landscape").resolve({"num_points": 4, "dim": 2, "tau": 0.05})["tau"] == 0.05


@pytest.mark.slow
def test_anneal_search_refusals_are_the_librarys(tmp_path):
    """A start label the search does not hold, a negative delta, a delta whose global set swallows the start minimum,
    a step that does not divide the horizon, an edited saved energy: `anneal --search` and plan_anneal (the library
    call behind it) refuse each with the same sentence."""
    saved = load_saved_search(SAVED)
    sched = make_schedule("fixed", c=0.1)
    base = dict(chains=8, t_end=1.0, start="m1")
    args = ["anneal", "--search", str(SAVED), "--schedule", "fixed", "c=0.1", "--chains", "8", "--time", "1"]
    cases = [(["--start", "m9"], dict(start="m9")), (["--start", "m1", "--delta", "-1"], dict(delta=-1.0)),
             (["--start", "m1", "--delta", "40"], dict(delta=40.0)),
             (["--start", "m1", "--step-size", "0.3"], dict(step_size=0.3))]
    for extra, kw in cases:
        expected = _as_options(_library(lambda: plan_anneal(saved, sched, **{**base, **kw})))
        assert _refused([*args, *extra]) == expected, extra
    assert _library(lambda: start_minimum(saved, "m9")) == _library(lambda: plan_anneal(saved, sched, **{**base,
                                                                                                       "start": "m9"}))
    edited = tmp_path / "edited"
    shutil.copytree(SAVED, edited)
    state = json.loads((edited / "network.json").read_text())
    state["minima"][1]["energy"] = -100.0
    (edited / "network.json").write_text(json.dumps(state))
    message = _library(lambda: plan_anneal(load_saved_search(edited), sched, **base))
    assert _refused(["anneal", "--search", str(edited), "--schedule", "fixed", "c=0.1", "--chains", "8", "--time", "1",
                     "--start", "m1"]) == f"--search={str(edited)!r}: {message}"
