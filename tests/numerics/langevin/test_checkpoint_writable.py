"""An unwritable checkpoint location fails before the first chunk, naming ``checkpoint=`` (a read-only
folder must not let ``simulate`` compute a whole chunk and then fail with OSError)."""

from __future__ import annotations

import errno

import numpy as np
import pytest

from contrastive_bounds.numerics import filemode
from contrastive_bounds.numerics.langevin import simulate
from contrastive_bounds.numerics.filemode import ensure_writable_parent
from contrastive_bounds.numerics.landscapes.registry import get_landscape
from contrastive_bounds.numerics.langevin.kernel import langevin_kernel
from contrastive_bounds.numerics.alignment.descent_run import DescentConfig, make_problem, run_similarity_descent


def _deny(*args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied")


def test_probe_creates_the_folder_and_leaves_nothing(tmp_path):
    target = tmp_path / "a" / "b" / "run.npz"
    assert ensure_writable_parent(target, "checkpoint") == target
    assert target.parent.is_dir() and list(target.parent.iterdir()) == []


def test_probe_names_the_argument_and_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(filemode.tempfile, "mkstemp", _deny)
    with pytest.raises(ValueError, match=r"^checkpoint='.*run\.npz': its folder '.*' is not writable \(Permission denied\)$"):
        ensure_writable_parent(tmp_path / "run.npz", "checkpoint")


def test_folder_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="cannot be created"):
        ensure_writable_parent(blocker / "sub" / "run.npz", "checkpoint")


def test_simulate_fails_before_any_step(tmp_path, monkeypatch):
    kernel = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.01)
    z = np.tile(np.array([[[1.0, 0.0]]]), (2, 1, 1))
    calls = []
    monkeypatch.setattr(filemode.tempfile, "mkstemp", _deny)
    monkeypatch.setattr("contrastive_bounds.numerics.langevin.driver.chunk_fn", lambda *a, **k: calls.append(1))
    with pytest.raises(ValueError, match=r"^checkpoint=.* is not writable"):
        simulate(kernel, z, num_steps=10, seed=0, checkpoint=tmp_path / "run.npz", progress=False)
    assert calls == []  # refused before anything was compiled or run


def test_similarity_descent_fails_before_any_chunk(tmp_path, monkeypatch):
    sigma0, labels = make_problem(8, 2, seed=0)
    monkeypatch.setattr(filemode.tempfile, "mkstemp", _deny)
    with pytest.raises(ValueError, match=r"^checkpoint=.* is not writable"):
        run_similarity_descent(sigma0, labels, DescentConfig(batch_size=4, steps=2, tau=0.5, step_size=0.1),
                               checkpoint=str(tmp_path / "run.npz"))


def test_fingerprint_difference_names_the_settings():
    """A refused resume says which settings differ (not only that the configuration differs)."""
    from contrastive_bounds.numerics.langevin.checkpoint import fingerprint_difference

    a = '{"shards": 2, "prng": "fused-threefry", "seed": 1, "x": 1, "y": 2}'
    assert fingerprint_difference(a, '{"shards": 1, "prng": "fused-threefry", "seed": 1, "x": 1, "y": 2}') == \
        "shards: 2 in the checkpoint, 1 now"
    many = fingerprint_difference(a, '{"shards": 1, "prng": "threefry2x32", "seed": 2, "x": 3, "y": 2}')
    assert many.startswith("prng: \"fused-threefry\" in the checkpoint, \"threefry2x32\" now; seed: 1") and \
        many.endswith("; and 1 more")
    assert fingerprint_difference("not json", a) == "unreadable fingerprint"
