"""A signal that arrives after the command has returned, while the interpreter runs its exit handlers (JAX's takes up
to a second on a loaded machine), is ignored (``properties.cli._app._ignore_late_signals``).

Guards: SIGTERM or Ctrl-C in the last moment of a finished command printed a ``KeyboardInterrupt`` traceback from
JAX's exit handler ("Exception ignored in atexit callback") while the process still exited 0. The child below
registers, before the command starts (as JAX does when it is imported), an exit handler that sends itself SIGTERM;
the control run removes the console entry point's guard and shows the traceback the test would otherwise miss.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import atexit, os, signal, sys, time

    def late():  # stands in for JAX's exit handler, registered when JAX started; the signal arrives during it
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.3)
        print("late exit handler finished", file=sys.stderr)

    atexit.register(late)
    from contrastive_bounds.properties.cli import _app
    sys.argv = ["contrastive-bounds", "--help"]
    try:
        _app.main()
    finally:
        if os.environ.get("WITHOUT_GUARD") == "1":
            atexit.unregister(_app._ignore_late_signals)
""")


def _run(without_guard: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "WITHOUT_GUARD": "1" if without_guard else "0"}
    return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.slow
def test_a_signal_during_exit_handlers_is_ignored():
    """Exit 0, the later exit handler runs to its end, and no traceback or ``KeyboardInterrupt`` is printed."""
    out = _run(without_guard=False)
    assert out.returncode == 0, out.stderr
    assert "late exit handler finished" in out.stderr
    assert "Traceback" not in out.stderr and "KeyboardInterrupt" not in out.stderr, out.stderr
    assert "Usage" in out.stdout  # the command itself ran


@pytest.mark.slow
def test_control_without_the_guard_the_signal_prints_a_traceback():
    """The same child without the guard: the SIGTERM handler raises ``KeyboardInterrupt`` inside the exit handler,
    which CPython prints and drops (exit status still 0): what the guard exists to prevent."""
    out = _run(without_guard=True)
    assert out.returncode == 0
    assert "Exception ignored in atexit callback" in out.stderr and "KeyboardInterrupt" in out.stderr, out.stderr
    assert "late exit handler finished" not in out.stderr
