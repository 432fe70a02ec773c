"""``anneal`` states what a run costs and how it ran, refuses a run beyond its stated limit unless
--yes, and on Ctrl-C (SIGINT to the real process) stops within seconds, keeps a checkpoint of the
run and prints the command that resumes it."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time

import numpy as np
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._anneal_run import MAX_CHAIN_STEPS
from contrastive_bounds.properties.cli._app import app
import pytest

runner = CliRunner()
SCHEDULE = ["double-well", "c=2.0", "t0=2", "--schedule", "temperature"]


def test_json_says_generator_devices_and_cost():
    """--json has the noise generator (float64: jax.random's threefry2x32), the device count and the cost."""
    res = runner.invoke(app, ["anneal", *SCHEDULE, "--chains", "16", "--time", "2", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["noise_generator"] == "threefry2x32" and out["devices"] >= 1
    assert out["cost"]["chain_steps"] == 16 * 100 and out["cost"]["memory_bytes"] > 16 * 100


def test_a_run_beyond_the_limit_is_refused_unless_yes():
    """10^7 chains x 5·10^5 steps exceeds MAX_CHAIN_STEPS: exit 2 with one line giving the cost and
    naming --yes, before anything runs."""
    started = time.perf_counter()
    res = runner.invoke(app, ["anneal", *SCHEDULE, "--chains", "10000000", "--time", "10000"])
    assert res.exit_code == 2
    assert "too big" in res.output and "--yes" in res.output and f"{MAX_CHAIN_STEPS:.0e}" in res.output
    assert time.perf_counter() - started < 20
    res = runner.invoke(app, ["anneal", *SCHEDULE, "--chains", "8", "--time", "2", "--resume"])
    assert res.exit_code == 2 and "--checkpoint" in res.output


def _read_until(proc: subprocess.Popen, pattern: str, timeout: float) -> str:
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    text, deadline = "", time.monotonic() + timeout
    while time.monotonic() < deadline and pattern not in text:
        if sel.select(timeout=1.0):
            line = proc.stderr.readline()
            if not line:
                break
            text += line
    return text


@pytest.mark.slow
def test_sigint_stops_within_seconds_keeps_a_checkpoint_and_prints_the_resume_command(tmp_path):
    """A real `anneal` process with 32 768 chains for 10^5 steps (3.3·10^9 chain-steps: minutes):
    SIGINT once the run has started; the process exits with 130 within a few seconds, prints
    'resume with: ... --checkpoint FILE --resume', and FILE is a checkpoint of that run (a resume
    with another seed is refused naming the seed, so it is this run's file)."""
    cmd = [sys.executable, "-m", "contrastive_bounds.properties", "anneal", *SCHEDULE, "--chains", "32768",
           "--time", "2000", "--no-progress"]
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        head = _read_until(proc, "Ctrl-C", timeout=120)
        assert "cost: 3.28e+09 chain-steps" in head, head
        time.sleep(3.0)  # into the run (compiling or in a chunk)
        assert proc.poll() is None, proc.stderr.read()
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert waited < 8.0, f"took {waited:.1f} s to stop"
    match = re.search(r"state saved to (\S+)\nresume with: (.+)", err)
    assert match, err
    path = tmp_path / match.group(1)
    assert path.exists() and match.group(2).endswith(f"--checkpoint {match.group(1)} --resume")
    assert "contrastive-bounds anneal double-well" in match.group(2) and "--chains 32768" in match.group(2)
    with np.load(path) as ck:
        assert 0 <= int(ck["step"]) < 100_000 and ck["position"].shape == (32768, 1, 2)
    res = runner.invoke(app, ["anneal", *SCHEDULE, "--chains", "32768", "--time", "2000", "--seed", "1",
                              "--checkpoint", str(path), "--resume"])
    assert res.exit_code == 2 and "seed: 0 in the checkpoint, 1 now" in res.output, res.output
