"""A first Ctrl-C or SIGTERM is not lost when its ``KeyboardInterrupt`` is raised inside a garbage-collector callback
(properties.cli._stop_watch): CPython drops an exception raised there (JAX runs such a callback at every collection),
and a landscape search sent SIGTERM then ran to its end and exited 0. The stop watch delivers the dropped interrupt
again, so the command's own code gets it (and saves); the re-delivery does not count as the second signal that
would end the process at once. The control runs show the loss the watch prevents."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

# the signal arrives while a gc callback runs (the callback sends it to its own process), so the handler's
# KeyboardInterrupt is raised inside the callback; the main code then works for up to 5 s in plain Python
SCRIPT = """
import gc, os, signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal (a background CI job inherits SIG_IGN)
from contrastive_bounds.properties.cli._app import _terminate_like_interrupt, stopped_by_sigterm
from contrastive_bounds.properties.cli._stop_watch import StopWatch
_terminate_like_interrupt()
SIG = signal.{sig}
if {watch}:
    StopWatch(hint_after=30.0, grace=0.5,
              signal_of_record=lambda: signal.SIGTERM if stopped_by_sigterm() else signal.SIGINT).start()
sent = []
def callback(phase, info):
    if phase == "start" and not sent:
        sent.append(1)
        os.kill(os.getpid(), SIG)
        total = 0
        for i in range(100_000):  # bytecodes inside the callback: the handler runs here
            total += i
gc.callbacks.append(callback)
try:
    end = time.monotonic() + 5.0
    while time.monotonic() < end:
        gc.collect()
        total = sum(range(1000))
    print("ran to its end", flush=True)
except KeyboardInterrupt:
    print("interrupted in the main code", flush=True)
    time.sleep(1.5)  # longer than the watch's grace: a re-delivery counted as a second signal would end it here
    print("saved", flush=True)
    sys.exit(143 if stopped_by_sigterm() else 130)
"""


def _run(sig: str, watch: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    return subprocess.run([sys.executable, "-c", SCRIPT.format(sig=sig, watch=watch)], capture_output=True, text=True,
                          env=env, timeout=60)


@pytest.mark.parametrize("sig, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_an_interrupt_dropped_in_a_gc_callback_reaches_the_main_code(sig, code):
    """With the watch: the main code gets the interrupt, finishes its own stop (longer than the grace of a second
    signal) and exits 130 or 143; nothing is reported as an ignored exception."""
    done = _run(sig, watch=True)
    assert done.returncode == code, done.stderr
    assert done.stdout.split() == ["interrupted", "in", "the", "main", "code", "saved"], done.stdout
    assert "Exception ignored" not in done.stderr and "stopped at once" not in done.stderr, done.stderr


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_without_the_watch_the_interrupt_is_lost(sig):
    """Control: the same process without the watch loses the signal (CPython reports the dropped exception and the
    main code runs to its end, exit 0): the loss the watch exists to prevent is real in this setting."""
    done = _run(sig, watch=False)
    assert done.returncode == 0, done.stderr
    assert "ran to its end" in done.stdout
    assert "Exception ignored" in done.stderr and "KeyboardInterrupt" in done.stderr
