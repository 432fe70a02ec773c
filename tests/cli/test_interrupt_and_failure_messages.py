"""What a user is told when a command stops early: Ctrl-C in align proxy / landscape before anything is
saved, a failing --strict run (which records fail), an absent checkpoint given to --resume, and the
command wrapper's out-of-memory and too-large-size errors (exit 2, one line, no traceback)."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from contrastive_bounds.numerics.landscapes.network import search as network_search
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.cli._common import command
import pytest

runner = CliRunner()


def _raise(exc):
    def fn(*args, **kwargs):
        raise exc
    return fn


def test_align_proxy_ctrl_c_says_where_the_progress_is(tmp_path, monkeypatch):
    """With --checkpoint: exit 130 and a line naming the file and how to continue; without: says nothing was saved."""
    import contrastive_bounds.numerics.alignment._proxy as proxy

    monkeypatch.setattr(proxy, "run_proxy_comparison", _raise(KeyboardInterrupt()))
    args = ["align", "proxy", "--model", "free", "--reference-size", "16", "--batch-size", "8", "--steps", "20",
            "--json"]
    res = runner.invoke(app, [*args, "--checkpoint", str(tmp_path / "p.npz")])
    assert res.exit_code == 130 and "p.npz" in res.output and "rerun the same command" in res.output
    res = runner.invoke(app, args)
    assert res.exit_code == 130 and "nothing was saved" in res.output and "--checkpoint" in res.output


def test_landscape_ctrl_c_before_the_first_save_does_not_claim_a_saved_file(tmp_path, monkeypatch):
    """Interrupted before network.json exists: the message says nothing was saved (and no --resume hint)."""
    monkeypatch.setattr(network_search, "landscape_network", _raise(KeyboardInterrupt()))  # imported when the command runs
    res = runner.invoke(app, ["landscape", "infonce", "--points", "4", "--dim", "2", "--out", str(tmp_path / "o")])
    assert res.exit_code == 130 and "nothing was saved yet" in res.output and "--resume" not in res.output


@pytest.mark.slow
def test_strict_failure_names_the_records_that_fail(tmp_path):
    """check --strict on an uninformative bound: exit 1 and a line naming the check and its verdict; the same
    from --report-only."""
    res = runner.invoke(app, ["check", "--only", "B6.weight_divergence", "--strict", "--out", str(tmp_path)])
    assert res.exit_code == 1
    assert "check failed (--strict" in res.output and "B6.weight_divergence (uninformative)" in res.output
    again = runner.invoke(app, ["check", "--report-only", "--strict", "--out", str(tmp_path)])
    assert again.exit_code == 1 and "B6.weight_divergence (uninformative)" in again.output


def test_anneal_resume_from_an_absent_checkpoint_is_refused(tmp_path):
    """--resume with a path that does not exist: exit 2 naming it (a typo must not start the run over)."""
    res = runner.invoke(app, ["anneal", "double-well", "--schedule", "temperature", "c=1.0", "--chains", "8", "--time",
                              "1", "--checkpoint", str(tmp_path / "typo.npz"), "--resume"])
    assert res.exit_code == 2 and "nothing to resume" in res.output and "typo.npz" in res.output


def test_wrapper_turns_memory_and_overflow_errors_into_exit_2(capsys):
    """MemoryError, an XLA RESOURCE_EXHAUSTED error and OverflowError: one line, exit 2; other errors propagate."""
    import pytest

    class XlaRuntimeError(RuntimeError):
        pass

    cases = ((MemoryError(), "out of memory"), (XlaRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating"),
                                                "out of memory"),
             (OverflowError("Python integer 4000000000 out of bounds for int32"), "too large"))
    for exc, word in cases:
        with pytest.raises(typer.Exit) as stop:
            command(_raise(exc))()
        err = capsys.readouterr().err
        assert stop.value.exit_code == 2 and word in err and len(err.strip().splitlines()) == 1
    with pytest.raises(RuntimeError, match="a bug"):
        command(_raise(RuntimeError("a bug")))()
