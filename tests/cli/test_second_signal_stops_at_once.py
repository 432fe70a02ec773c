"""A second Ctrl-C or SIGTERM ends the command at once even while the main thread waits for one long compiled call
(properties.cli._stop_watch): Python runs signal handlers only between bytecodes, so without the watch a band search
of minutes kept running through both signals. The first signal alone, after a few seconds, says the running
computation cannot be interrupted and that a second one stops at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

# a process that starts the console entry point's signal handling (SIGTERM like Ctrl-C, the stop watch) and then
# blocks in one compiled loop of ~10^15 iterations; it prints "ready" first
SCRIPT = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal (a background CI job inherits SIG_IGN)
import jax, jax.numpy as jnp
from contrastive_bounds.properties.cli._app import _terminate_like_interrupt
from contrastive_bounds.properties.cli._stop_watch import StopWatch
_terminate_like_interrupt()
watch = StopWatch(hint_after=1.0, grace=1.0).start()
loop = jax.jit(lambda x: jax.lax.while_loop(lambda c: c < 1e15, lambda c: c + 1.0, x))
loop(jnp.float32(1e15)).block_until_ready()  # compiled before "ready"
print("ready", flush=True)
import numpy as np
np.asarray(loop(jnp.float32(0.0)))  # as the search fetches its results: a wait that runs no signal handler
print("the loop returned", flush=True)
"""


@pytest.mark.slow
@pytest.mark.parametrize("sig, code, name", [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")])
def test_two_signals_end_a_process_blocked_in_a_compiled_call(sig, code, name):
    """First signal: after the hint delay the hint is written (the call goes on); second: the process ends within
    seconds with 130 (Ctrl-C) or 143 (SIGTERM) and says it stopped at once and what is kept."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # the main thread is inside the compiled call's wait by then (not between bytecodes)
        proc.send_signal(sig)
        time.sleep(2.5)
        assert proc.poll() is None  # one signal cannot stop the compiled call
        proc.send_signal(sig)
        started = time.perf_counter()
        out, err = proc.communicate(timeout=30)
        waited = time.perf_counter() - started
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert waited < 15, waited
    assert "the loop returned" not in out
    assert f"{name} again stops at once" in err and "cannot be interrupted" in err
    assert f"stopped at once ({name} twice while a compiled computation was running)" in err
    assert "what was saved before is kept" in err
