"""Ctrl-C and chunk pacing in simulate: an interrupt between chunks saves the state and carries the
partial result, a resumed run equals an uninterrupted one bit for bit (whatever the chunks, also
below one record and from an odd step with the fused generator), and the pacer sizes chunks from the
measured cost so that a compiled chunk never runs for long."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

import contrastive_bounds.numerics.langevin._cost as cost
from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin import (Arc, DriverOptions, SimulationConfig, SimulationInterrupted,
                                                  langevin_kernel, simulate)
from contrastive_bounds.numerics.langevin._cost import ChunkPacer, buffer_units, choose_unit_steps, estimate_run_cost

KERNEL = langevin_kernel(get_landscape("double-well"), temperature=0.5, step_size=0.02)
FIELDS = ("positions", "potential", "running_min", "hit_time", "occupancy", "final_basin", "escapes", "energy_trace")


def _start(chains: int = 64, dtype=np.float64) -> np.ndarray:
    th = np.linspace(0.0, 2 * np.pi, chains, endpoint=False)
    return np.stack([np.cos(th), np.sin(th)], axis=-1)[:, None, :].astype(dtype)


def _same(a, b) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.mark.slow
def test_sigint_between_chunks_saves_the_state_and_resume_is_bit_identical(tmp_path, monkeypatch):
    """SIGINT during a run: simulate finishes the chunk in flight, writes the checkpoint, restores the
    previous SIGINT handler and raises SimulationInterrupted (a KeyboardInterrupt) with the partial
    result; resuming from the checkpoint gives exactly the uninterrupted run."""
    config = SimulationConfig(num_steps=1200, seed=3, record_every=60, target=Arc(-0.3, 0.3),
                              basins=[Arc(-1.0, 1.0), Arc(2.0, 4.0)])
    full = simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=120))
    calls = []
    original = ChunkPacer.record

    def record(self, units, elapsed):
        calls.append(units)
        if len(calls) == 3:
            os.kill(os.getpid(), signal.SIGINT)  # arrives while the loop runs, as Ctrl-C would
        original(self, units, elapsed)

    monkeypatch.setattr(cost.ChunkPacer, "record", record)
    before = signal.getsignal(signal.SIGINT)
    ck = tmp_path / "run.npz"
    with pytest.raises(SimulationInterrupted) as info:
        simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=120, checkpoint=ck, checkpoint_seconds=float("inf")))
    assert signal.getsignal(signal.SIGINT) is before
    assert isinstance(info.value, KeyboardInterrupt)
    part = info.value.result
    assert part.steps_done == 360 and not part.complete and info.value.checkpoint == ck and ck.exists()
    assert part.energy_trace.shape == (6, 64)
    np.testing.assert_array_equal(part.energy_trace, full.energy_trace[:6])
    monkeypatch.setattr(cost.ChunkPacer, "record", original)
    again = info.value.save(tmp_path / "copy.npz")  # the CLI saves here when no checkpoint was given
    for path in (ck, again):
        _same(simulate(KERNEL, _start(), config, DriverOptions(chunk_steps=120, checkpoint=path, resume=True)), full)


@pytest.mark.parametrize("prng, dtype", [("fused-threefry", np.float32), ("threefry2x32", np.float64)])
@pytest.mark.slow
def test_chunks_below_a_record_and_odd_starts_change_nothing(tmp_path, prng, dtype):
    """Units shorter than a record (chunk_steps 3 and 4 with record_every 12), a stop at an odd step and
    a resume from it (the fused generator then starts mid-pair), and automatic pacing all give the
    results of one chunk, bit for bit."""
    config = SimulationConfig(num_steps=240, seed=5, record_every=12, target=Arc(-0.3, 0.3))
    z = _start(32, dtype)
    ref = simulate(KERNEL, z, config, DriverOptions(prng_impl=prng, chunk_steps=240))
    assert ref.config["prng_impl"] == prng
    for chunk in (3, 4, None):
        _same(simulate(KERNEL, z, config, DriverOptions(prng_impl=prng, chunk_steps=chunk)), ref)
    ck = tmp_path / f"{prng}.npz"
    part = simulate(KERNEL, z, config, DriverOptions(prng_impl=prng, chunk_steps=3, stop_after_steps=31, checkpoint=ck))
    assert part.steps_done == 33 and part.energy_trace.shape == (2, 32)
    _same(simulate(KERNEL, z, config, DriverOptions(prng_impl=prng, chunk_steps=12, checkpoint=ck, resume=True)), ref)
    _same(simulate(KERNEL, z, config, DriverOptions(prng_impl=prng, checkpoint=ck, resume=True)), ref)


def test_unit_choice_divides_the_record_and_the_start():
    """choose_unit_steps: the largest divisor of record_every that divides the start step and fits the
    time budget (at least 1); buffer rows are a power of two under 32 MiB."""
    assert choose_unit_steps(100, 0, 1000, 1e-9, 1.0) == 100
    assert choose_unit_steps(100, 0, 10**6, 1e-8, 1.0) == 100
    assert choose_unit_steps(100, 0, 10**7, 1e-8, 1.0) == 10
    assert choose_unit_steps(100, 30, 10**7, 1e-8, 1.0) == 10
    assert choose_unit_steps(100, 35, 10**7, 1e-8, 1.0) == 5
    assert choose_unit_steps(100, 0, 10**9, 1.0, 1.0) == 1
    assert choose_unit_steps(100, 0, 10, 1e-9, 1.0, cap=30) == 25
    assert buffer_units(100, 1024, 8) == 128
    assert buffer_units(1, 1024, 8) == 1
    assert buffer_units(10**6, 10**6, 8) == 4  # 4 rows x 10^6 chains x 8 B = 32 MB


def test_pacer_learns_the_cost_and_retunes_a_unit_that_is_far_too_long():
    """The first two chunks aim at a quarter of the target; later ones at the target from the measured
    cost; a unit measured at 8x the target is cut to a divisor that fits, a tiny one grows back to a
    record, at most twice; a fixed chunk_steps is never changed."""
    p = ChunkPacer(chains=1000, record_every=1000, start_step=0, step_cost=1e-8, seconds=1.0)
    assert p.unit == 1000  # 1000 x 1000 x 1e-8 = 0.01 s <= a quarter second
    assert p.next_units(10**6, 10**4) == 25  # 0.25 s / 0.01 s
    p.record(25, 5.0)  # compile included: can only lower the estimate
    assert p.cost == 1e-8 and p.next_units(10**6, 10**4) == 25
    p.record(25, 2.0)  # measured 8e-8 per chain-step
    assert p.cost == pytest.approx(8e-8) and p.next_units(10**6, 10**4) == 12
    assert not p.retune(2000)
    p.record(1, 8.0)  # 8e-6: one unit = 8 s, four times the tolerated 2 s
    assert p.retune(3000) and p.unit == 50 and p.calls == 0  # 1000 x 50 x 8e-6 = 0.4 s <= 0.5 s
    p.record(1, 0.4)
    p.record(1, 0.0001)  # now very fast: 2e-9
    assert p.retune(3100) and p.unit == 100  # back to a divisor of the record that divides the step
    p.record(1, 0.1)
    p.record(1, 80.0)
    assert not p.retune(3200)  # no changes left
    fixed = ChunkPacer(chains=10, record_every=50, start_step=0, step_cost=1e-8, seconds=1.0, chunk_steps=120)
    assert fixed.unit == 50 and fixed.next_units(10**4, 100) == 2
    fixed.record(2, 100.0)
    fixed.record(2, 100.0)
    assert not fixed.retune(100)


def test_run_cost_counts_chain_steps_and_memory():
    """estimate_run_cost: chain-steps = chains x steps; memory grows with the chains, the records and
    the state's size, and covers at least the state and the trace."""
    c = estimate_run_cost(1000, 5000, 1, 2, 8, 100)
    assert c.chain_steps == 5_000_000
    assert c.memory_bytes >= 1000 * (2 * 2 + 1) * 8 + 100 * 1000 * 8
    assert estimate_run_cost(2000, 5000, 1, 2, 8, 100).memory_bytes > c.memory_bytes
    assert estimate_run_cost(1000, 5000, 4, 3, 8, 100).memory_bytes > c.memory_bytes
    assert "chain-steps" in c.describe() and "MiB" in c.describe()
