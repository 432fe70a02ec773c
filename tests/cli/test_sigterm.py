"""SIGTERM is handled like Ctrl-C by the console entry point (``properties.cli._app._terminate_like_interrupt``).

Guards: a stopped background job (whose SIGINT a non-interactive shell ignores), ``kill`` or a scheduler's stop
saves what a long command found and prints how to resume, instead of dying with the block in progress lost.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time

import pytest

from contrastive_bounds.properties.cli._app import _terminate_like_interrupt


@pytest.fixture
def restore_handlers():
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])


@pytest.mark.parametrize("sigint", [signal.default_int_handler, signal.SIG_IGN, signal.SIG_DFL])
def test_sigterm_raises_keyboard_interrupt_without_a_python_sigint_handler(restore_handlers, sigint):
    """With Python's default SIGINT handler, or SIGINT ignored (``nohup cmd &``) or at the OS default, SIGTERM
    raises ``KeyboardInterrupt`` in the main thread (what the commands catch to save and exit 130)."""
    signal.signal(signal.SIGINT, sigint)
    _terminate_like_interrupt()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5.0)  # the handler runs between bytecodes: the sleep is interrupted at once


def test_sigterm_runs_the_sigint_handler_in_place(restore_handlers):
    """A command's own (deferred) SIGINT handler in place when SIGTERM arrives is the one that runs: it receives
    SIGINT's number, and nothing is raised unless it raises."""
    seen = []
    signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    _terminate_like_interrupt()
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.05)
    assert seen == [signal.SIGINT]


@pytest.mark.slow
def test_sigterm_stops_a_landscape_search_with_its_state_saved_and_it_resumes(tmp_path):
    """A real ``landscape`` process stopped by SIGTERM once its first save is on disk: exit 143 within seconds,
    the line saying where the state is and to rerun with --resume; the resumed run says it is resuming and
    finishes (exit 0) with every minimum of the saved state."""
    out = tmp_path / "net"
    cmd = [sys.executable, "-m", "contrastive_bounds.properties", "landscape", "infonce", "--points", "6", "--dim",
           "3", "--tau", "0.1", "--starts", "64", "--hop-rounds", "40", "--out", str(out)]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and not (out / "network.json").exists() and proc.poll() is None:
            time.sleep(0.2)
        assert proc.poll() is None and (out / "network.json").exists(), "the search ended before its first save"
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, stderr  # 128 + SIGTERM, after saving as Ctrl-C does
    assert waited < 20.0, waited
    # where the search stood (its last progress report: phase, done/total, minima so far), then what was saved
    assert re.search(r"interrupted \(last progress: (starts|structured starts|hops|transition states) \d+(/\d+)?(, [^)]*)?\): "
                     r"everything found so far is saved in", stderr) and "--resume" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    saved = {m["energy"] for m in json.loads((out / "network.json").read_text())["minima"]}
    res = subprocess.run([*cmd, "--resume", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    assert f"resuming the search saved in {out / 'network.json'}" in res.stderr, res.stderr
    assert saved <= {m["energy"] for m in json.loads(res.stdout)["minima"]}


@pytest.mark.parametrize("terminated, said", [(True, "terminated (SIGTERM)"), (False, "interrupted (Ctrl-C)")])
def test_a_command_stopped_before_it_saves_anything_names_the_signal(monkeypatch, capsys, terminated, said):
    """A command that has nothing to save (stopped before its work began) says which signal stopped it: SIGTERM is
    not reported as a Ctrl-C; exit status 130 inside, 143 from the entry point after SIGTERM."""
    import typer

    from contrastive_bounds.properties.cli import _app
    from contrastive_bounds.properties.cli._common import command

    monkeypatch.setattr(_app, "_TERMINATED", [terminated])

    @command
    def stopped() -> None:
        raise KeyboardInterrupt

    with pytest.raises(typer.Exit) as code:
        stopped()
    assert code.value.exit_code == 130 and said in capsys.readouterr().err
