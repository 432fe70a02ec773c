"""Every output path is checked before any computation, with the message that fits (properties/cli/_common.py:
output_folder, output_file): a folder given where a file is written, a file given where a folder is written, a
missing or unwritable place. Once `align simulate --save-log D` with D an existing folder ran the whole simulation and
then failed with IsADirectoryError (a traceback, exit 1), losing the run."""

import pytest
from typer.testing import CliRunner

import contrastive_bounds.properties.cli._common as common
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli._common import CLIError, output_file, output_folder

runner = CliRunner()
SIMULATE = ["align", "simulate", "--num-samples", "20", "--steps", "5", "--batch-size", "8"]


@pytest.fixture
def no_simulation(monkeypatch):
    """Any computation fails the test: the path must be refused first."""
    import contrastive_bounds.numerics.alignment._descent_run as descent_run

    def refuse(*args, **kwargs):
        raise AssertionError("the simulation started before the output path was checked")

    monkeypatch.setattr(descent_run, "run_similarity_descent", refuse)
    monkeypatch.setattr(descent_run, "make_problem", refuse)


def _one_line(res, start):
    assert res.exit_code == 2, res.output
    assert res.output.count("\n") == 1 and res.output.startswith(start), res.output
    assert "Traceback" not in res.output
    return res.output


@pytest.mark.parametrize("option", ["--save-log", "--checkpoint"])
def test_simulate_refuses_a_folder_for_its_files_before_simulating(tmp_path, no_simulation, option):
    folder = tmp_path / "D.npz"
    folder.mkdir()
    out = _one_line(runner.invoke(app, [*SIMULATE, option, str(folder)]), f"error: {option}='{folder}' is a folder")
    assert "give a file name" in out


def test_simulate_refuses_a_log_in_a_missing_or_file_folder_before_simulating(tmp_path, no_simulation):
    missing = tmp_path / "nowhere" / "run.npz"
    _one_line(runner.invoke(app, [*SIMULATE, "--save-log", str(missing)]),
              f"error: --save-log='{missing}': its folder '{missing.parent}' does not exist (create it first)")
    blocker = tmp_path / "file"
    blocker.write_text("")
    _one_line(runner.invoke(app, [*SIMULATE, "--save-log", str(blocker / "run.npz")]),
              f"error: --save-log='{blocker / 'run.npz'}': '{blocker}' is a file, not a folder")


def test_an_unwritable_folder_is_named_with_the_systems_reason(tmp_path, monkeypatch, no_simulation):
    monkeypatch.setattr("contrastive_bounds.numerics._filemode.probe_writable_folder",
                        lambda folder: "is not writable (Permission denied)")
    _one_line(runner.invoke(app, [*SIMULATE, "--save-log", str(tmp_path / "run.npz")]),
              f"error: --save-log='{tmp_path / 'run.npz'}': its folder '{tmp_path}' is not writable (Permission denied)")


def test_output_folder_messages(tmp_path, monkeypatch):
    """A file is not a folder; a folder below a file cannot be created; without create nothing is made."""
    f = tmp_path / "f"
    f.write_text("")
    with pytest.raises(CLIError, match=r"^--out=.*/f is an existing file, not a folder: give a folder"):
        output_folder(f, "--out")
    with pytest.raises(CLIError, match=r"^--out=.*/f/sub cannot be created \(Not a directory\)"):
        output_folder(f / "sub", "--out")
    with pytest.raises(CLIError, match=r"^--out=.*/f/sub cannot be created \(.*/f is a file\)"):
        output_folder(f / "sub", "--out", create=False)
    assert output_folder(tmp_path / "new" / "deeper", "--out", create=False) == tmp_path / "new" / "deeper"
    assert not (tmp_path / "new").exists()
    assert output_folder(tmp_path / "new", "--out").is_dir()


def test_output_file_messages(tmp_path):
    with pytest.raises(CLIError, match=r"^--plot='.*x\.jpg' must end in \.png$"):
        output_file(tmp_path / "x.jpg", "--plot", suffix=".png")
    assert output_file(tmp_path / "x.PNG", "--plot", suffix=".png") == tmp_path / "x.PNG"
    existing = tmp_path / "old.npz"
    existing.write_bytes(b"x")
    assert output_file(existing, "--save-log", suffix=".npz") == existing  # replaced atomically at the end


def test_sweep_and_check_refuse_a_file_as_out_before_anything_runs(tmp_path):
    f = tmp_path / "f"
    f.write_text("")
    _one_line(runner.invoke(app, ["sweep", "seed-table", "--profile", "quick", "--out", str(f)]),
              f"error: --out={f} is an existing file, not a folder")
    _one_line(runner.invoke(app, ["check", "--only", "A2.schedule_values", "--out", str(f)]),
              f"error: --out={f} is an existing file, not a folder")
    assert f.read_text() == ""


@pytest.mark.parametrize("typed", ["", "  "])
def test_sweep_and_check_refuse_an_empty_out_echoing_what_was_typed(tmp_path, monkeypatch, typed):
    """``--out ''`` is refused (exit 2, one line) with what the user typed, not '.': a Path option had made it the
    working folder, so ``check --out ''`` ran every check and wrote results.json, the reports and figures/ there,
    and ``sweep --out ''`` used the default folder without a word. Nothing is written."""
    monkeypatch.chdir(tmp_path)
    refusal = f"error: --out={typed!r} is empty: give a folder (created if missing), or leave --out out for the default"
    _one_line(runner.invoke(app, ["check", "--only", "A2.schedule_values", "--out", typed]), refusal)
    _one_line(runner.invoke(app, ["sweep", "seed-table", "--profile", "quick", "--dry-run", "--out", typed]), refusal)
    assert list(tmp_path.iterdir()) == []


def test_common_validation_is_the_one_the_commands_use():
    """One validation helper: the commands import it from properties/cli/_common.py."""
    import inspect

    import contrastive_bounds.properties.cli._align as align
    import contrastive_bounds.properties.cli._align_proxy as align_proxy
    import contrastive_bounds.properties.cli._align_schedule as align_schedule
    import contrastive_bounds.properties.cli._check as check
    import contrastive_bounds.properties.cli._sweep as sweep

    for module in (align, align_proxy, align_schedule):
        assert module.output_file is common.output_file, module.__name__
    for module in (check, sweep):
        assert module.output_folder is common.output_folder, module.__name__
    assert "ensure_writable_parent" not in inspect.getsource(align_schedule)


_PROBE = ("import sys, json\nfrom contrastive_bounds.properties.cli import main\nsys.argv = ['contrastive-bounds', *{argv!r}]\n"
          "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
          "print(json.dumps({{'code': code, 'loaded': [m for m in {late!r} if m in sys.modules]}}), file=sys.stderr)\n")


@pytest.mark.parametrize("command, late", [
    (["landscape", "infonce", "--points", "32", "--dim", "16", "--tau", "0.01"], ("jax",)),
    (["check", "--only", "A2.schedule_values"], ("contrastive_bounds.properties._runner",
                                                 "contrastive_bounds.properties.checks._registry")),
    (["sweep", "seed-table", "--profile", "quick"], ("dask", "pyarrow", "contrastive_bounds.properties.sweeps._engine")),
])
def test_an_existing_out_is_refused_at_argument_validation(tmp_path, command, late):
    """``--out`` naming a folder that holds a search (landscape, without --resume) or an existing file (check, sweep)
    is refused (exit 2) before the potential is built or the checks, dask and the sweep engine are loaded: the
    refusal had come after the build and JAX's compilation (2-3 s, more at scale), or after a second of imports.
    Which modules were loaded at the refusal is what is asserted (timings vary by machine)."""
    import json
    import os
    import subprocess
    import sys

    if command[0] == "landscape":
        out = tmp_path / "search"
        out.mkdir()
        (out / "network.json").write_text("{}")
        expected = f"error: --out='{out}' already holds a search (network.json); add --resume"
    else:
        out = tmp_path / "f"
        out.write_text("")
        expected = f"error: --out={out} is an existing file, not a folder"
    argv = [*command, "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(argv=argv, late=late)], capture_output=True, text=True,
                          timeout=120, env=env)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 2 and expected in proc.stderr, proc.stderr[-2000:]
    assert report["loaded"] == [], f"{argv} loaded {report['loaded']} before refusing --out"
