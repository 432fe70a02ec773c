"""simulate's checkpoints (docs/theorems.md A1 runs; numerics/langevin): a checkpoint that cannot be written fails
before the first step, one that cannot be read (corrupt, truncated, tampered, a folder) is refused with a
ValueError naming ``checkpoint=`` instead of numpy's or zipfile's internal errors, a refused resume names the
settings that differ, and checkpoint files get the user's umask like every other file the toolkit writes."""

from __future__ import annotations

import errno
import stat
import zipfile
from pathlib import Path

import numpy as np
import pytest

import contrastive_bounds.numerics._filemode as filemode
from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin import DriverOptions, EnergyBelow, SimulationConfig, langevin_kernel, simulate
from contrastive_bounds.theory._schedules import make_schedule


def _kernel():
    land = get_landscape("double-well")
    return langevin_kernel(land, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.02)


KERNEL = _kernel()


def _start(chains: int = 8) -> np.ndarray:
    pos = np.zeros((chains, 1, 2))
    pos[:, 0, 0] = -1.0  # theta = pi
    return pos


CONFIG = SimulationConfig(num_steps=200, seed=5, record_every=20)
TO_EV10 = SimulationConfig(num_steps=200, seed=5, record_every=20, target=EnergyBelow(-10.0))


def _opts(**kw) -> DriverOptions:  # noqa: ANN003
    return DriverOptions(chunk_steps=100, **kw)


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def _deny(*args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied")


def test_unwritable_checkpoint_folder_fails_before_any_step(tmp_path, monkeypatch):
    """A checkpoint folder where files cannot be created is refused, naming checkpoint=, before anything is
    compiled or run (it had failed with OSError after the first chunk's work)."""
    kernel = langevin_kernel(get_landscape("double-well"), temperature=0.3, step_size=0.01)
    z = np.tile(np.array([[[1.0, 0.0]]]), (2, 1, 1))
    calls = []
    monkeypatch.setattr(filemode.tempfile, "mkstemp", _deny)
    monkeypatch.setattr("contrastive_bounds.numerics.langevin._driver.chunk_fn", lambda *a, **k: calls.append(1))
    with pytest.raises(ValueError, match=r"^checkpoint=.* is not writable"):
        simulate(kernel, z, SimulationConfig(num_steps=10, seed=0), DriverOptions(checkpoint=tmp_path / "run.npz"))
    assert calls == []  # refused before anything was compiled or run


def test_checkpoint_file_mode_honours_the_umask(tmp_path, umask_022):
    """The checkpoint is 0o644 under umask 022 (it was mkstemp's private 0600) and no temporary file is left."""
    ck = tmp_path / "ck.npz"
    simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=ck))
    assert _mode(ck) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["ck.npz"]


def _valid_checkpoint(tmp_path: Path) -> Path:
    ck = tmp_path / "ck.npz"
    part = simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=ck, stop_after_steps=100))
    assert part.steps_done == 100
    return ck


def _assert_unreadable(ck: Path, reason: str) -> None:
    with pytest.raises(ValueError) as info:
        simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=ck, resume=True))
    msg = str(info.value)
    assert msg.startswith(f"checkpoint={str(ck)!r} is not a readable checkpoint of this toolkit"), msg
    assert reason in msg and "resume=False" in msg, msg
    assert "allow_pickle" not in msg and "unsafe" not in msg  # never suggest loading it unsafely


@pytest.mark.parametrize(
    "content, reason",
    [(b"garbage", "not an .npz archive"), (b"", "not an .npz archive"), (b"\x93NUMPY\x01\x00", "not an .npz archive")],
    ids=["garbage", "empty", "bare-npy-header"],
)
def test_corrupt_checkpoint_names_checkpoint(tmp_path, content, reason):
    """Garbage, an empty file and a bare .npy header (a pickle message, EOFError) are refused with a
    ValueError naming checkpoint= that never suggests loading the file unsafely."""
    ck = tmp_path / "ck.npz"
    ck.write_bytes(content)
    _assert_unreadable(ck, reason)


def test_truncated_checkpoint_names_checkpoint(tmp_path):
    """A truncated checkpoint (zipfile.BadZipFile before) is refused with a ValueError naming checkpoint=."""
    ck = _valid_checkpoint(tmp_path)
    data = ck.read_bytes()
    for cut in (len(data) // 2, len(data) - 30, 100):
        ck.write_bytes(data[:cut])
        _assert_unreadable(ck, "not an .npz archive")


def _rewrite(ck: Path, **changes) -> None:  # noqa: ANN003
    with np.load(ck) as data:
        arrays = {k: data[k] for k in data.files}
    for k, v in changes.items():
        if v is None:
            del arrays[k]
        else:
            arrays[k] = v(arrays[k]) if callable(v) else v
    np.savez(ck, **arrays)


def _nan_first(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.reshape(-1)[0] = np.nan
    return a


def test_checkpoint_with_nan_positions_is_refused_not_blamed_on_step_size(tmp_path):
    """A valid npz with a NaN 'position' is refused up front as an unreadable checkpoint instead of running
    and blaming step_size."""
    ck = _valid_checkpoint(tmp_path)
    _rewrite(ck, position=_nan_first)
    _assert_unreadable(ck, "'position' has NaN or inf")


@pytest.mark.parametrize("key", ["potential", "grad", "running_min", "energy_trace"])
def test_checkpoint_with_non_finite_arrays_is_refused(tmp_path, key):
    """NaN in any float array of the saved state is refused, naming the array."""
    ck = _valid_checkpoint(tmp_path)
    _rewrite(ck, **{key: _nan_first})
    _assert_unreadable(ck, f"'{key}' has NaN or inf")


def test_checkpoint_hit_time_may_be_inf_but_not_nan(tmp_path):
    """hit_time = inf means 'not hit' and resumes; NaN is refused."""
    ck = tmp_path / "ck.npz"
    simulate(KERNEL, _start(), TO_EV10, _opts(checkpoint=ck, stop_after_steps=100))
    with np.load(ck) as data:
        assert np.all(np.isinf(data["hit_time"]))  # nobody reaches V < -10: inf entries are legal
    res = simulate(KERNEL, _start(), TO_EV10, _opts(checkpoint=ck, resume=True))
    assert res.complete
    _rewrite(ck, hit_time=_nan_first)
    with pytest.raises(ValueError, match=r"'hit_time' has NaN"):
        simulate(KERNEL, _start(), TO_EV10, _opts(checkpoint=ck, resume=True))


def test_checkpoint_missing_key_or_wrong_shape_is_refused(tmp_path):
    """Missing arrays and arrays of the wrong shape or step are refused naming checkpoint=, while the
    untouched file still resumes to the complete run."""
    ck = _valid_checkpoint(tmp_path)
    data = ck.read_bytes()
    _rewrite(ck, grad=None)
    _assert_unreadable(ck, "missing array 'grad'")
    ck.write_bytes(data)
    _rewrite(ck, position=lambda a: a[:3])
    _assert_unreadable(ck, "'position' has shape (3, 1, 2)")
    ck.write_bytes(data)
    _rewrite(ck, step=np.asarray(10**6, np.int32))
    _assert_unreadable(ck, "step")
    ck.write_bytes(data)
    _rewrite(ck, energy_trace=lambda a: a[:2])
    _assert_unreadable(ck, "energy_trace")
    ck.write_bytes(data)
    res = simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=ck, resume=True))  # the untouched file still resumes
    assert res.complete and res.energy_trace.shape == (10, 8)


def test_zip_with_other_members_is_refused(tmp_path):
    """A zip archive that is not an npz of this toolkit is refused as a checkpoint, not with a KeyError."""
    ck = tmp_path / "ck.npz"
    with zipfile.ZipFile(ck, "w") as z:
        z.writestr("hello.txt", "hi")
    _assert_unreadable(ck, "missing array")


def test_checkpoint_that_is_a_folder_is_refused_up_front(tmp_path):
    """checkpoint=<an existing folder>, or a path under a regular file, is refused naming checkpoint= (not
    IsADirectoryError or NotADirectoryError later)."""
    for resume in (False, True):
        with pytest.raises(ValueError, match=r"^checkpoint='.*' is a folder"):
            simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=tmp_path, resume=resume))
    (tmp_path / "plain").write_text("x")
    with pytest.raises(ValueError, match=r"^checkpoint='.*': its folder .* is not a folder"):
        simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=tmp_path / "plain" / "ck.npz"))


def test_resume_without_checkpoint_is_refused():
    """resume=True without checkpoint= is refused (when the options are built) instead of being ignored silently."""
    with pytest.raises(ValueError, match=r"^resume=True needs checkpoint="):
        DriverOptions(resume=True)


def test_fingerprint_difference_names_the_settings():
    """A refused resume names the settings that differ (the first few, then a count) instead of saying only
    that the configuration differs."""
    from contrastive_bounds.numerics._fingerprints import fingerprint_difference

    a = '{"shards": 2, "prng": "fused-threefry", "seed": 1, "x": 1, "y": 2}'
    assert fingerprint_difference(a, '{"shards": 1, "prng": "fused-threefry", "seed": 1, "x": 1, "y": 2}') == \
        "shards: 2 in the checkpoint, 1 now"
    many = fingerprint_difference(a, '{"shards": 1, "prng": "threefry2x32", "seed": 2, "x": 3, "y": 2}')
    assert many.startswith("prng: \"fused-threefry\" in the checkpoint, \"threefry2x32\" now; seed: 1") and \
        many.endswith("; and 1 more")
    assert fingerprint_difference("not json", a) == "unreadable fingerprint"


def test_a_refused_langevin_resume_names_what_the_user_changed_not_the_fingerprint_keys():
    """The Langevin checkpoint's refusal names its fields as a user of ``anneal`` knows them: the starting positions
    "differ" (never their SHA-256 digests), the shape as chains × points × dimension, the steps with their options."""
    import json

    from contrastive_bounds.numerics._fingerprints import fingerprint_difference
    from contrastive_bounds.numerics.langevin._checkpoint import FINGERPRINT_LABELS

    old = {"positions_sha256": "a" * 64, "shape": [8, 1, 2], "num_steps": 100, "seed": 0}
    new = {"positions_sha256": "b" * 64, "shape": [16, 1, 2], "num_steps": 150, "seed": 0}
    text = fingerprint_difference(json.dumps(old), json.dumps(new), labels=FINGERPRINT_LABELS)
    assert text == ("the number of steps (--time / --step-size): 100 in the checkpoint, 150 now; the starting positions "
                    "(from LANDSCAPE, --start, --chains and --seed) differ; chains × points × dimension: [8, 1, 2] in "
                    "the checkpoint, [16, 1, 2] now"), text
    assert "aaaa" not in text and "sha256" not in text


def test_a_changed_constant_of_a_long_kernel_description_shows_with_its_clause():
    """Two kernel descriptions that differ in a constant are shown by the clauses around the change (between "; "
    and ", " separators, non-ASCII kept), not cut at 60 characters before reaching it."""
    import json

    from contrastive_bounds.numerics._fingerprints import fingerprint_difference

    kernel = ("langevin(potential=infonce(N=4, d=2, tau=0.1), integrator=geodesic, step_size=0.01, temperature="
              "temperature: T(t) = 0.5 / log(t + 2); HKS constant c_T = lim T(t)·log t = 0.5, anisotropy=None)")

    def diff(other: str) -> str:
        return fingerprint_difference(json.dumps({"kernel": kernel}), json.dumps({"kernel": other}))

    assert diff(kernel.replace("0.5", "0.7")) == (
        'kernel: "...temperature=temperature: T(t) = 0.5 / log(t + 2); HKS constant c_T = lim T(t)·log t = 0.5..." '
        'in the checkpoint, "...temperature=temperature: T(t) = 0.7 / log(t + 2); HKS constant c_T = lim T(t)·log t '
        '= 0.7..." now')
    assert diff(kernel.replace("step_size=0.01", "step_size=0.02")) == \
        'kernel: "...step_size=0.01..." in the checkpoint, "...step_size=0.02..." now'
    assert diff(kernel.replace("infonce(", "thomson(", 1)) == \
        'kernel: "langevin(potential=infonce(N=4..." in the checkpoint, "langevin(potential=thomson(N=4..." now'


def test_a_checkpoint_write_that_fails_midway_keeps_the_previous_file(tmp_path, monkeypatch):
    """Checkpoints go through the one atomic-write helper (filemode.write_atomically): a write that fails midway
    (a full disk) leaves the previous checkpoint intact and no temporary file beside it."""
    import contrastive_bounds.numerics.langevin._checkpoint as ckpt_io

    ck = _valid_checkpoint(tmp_path)
    before = ck.read_bytes()
    with np.load(ck) as data:
        fingerprint = str(data["fingerprint"])
    carry, trace = ckpt_io.load_checkpoint(ck, fingerprint)
    written = []
    monkeypatch.setattr(ckpt_io, "write_atomically",
                        lambda path, write, **kw: (written.append(path), filemode.write_atomically(path, write, **kw)))

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    with pytest.raises(OSError, match="No space left"):
        ckpt_io.save_checkpoint(ck, carry, trace, fingerprint)
    assert written == [ck]
    assert ck.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["ck.npz"]


def test_a_resumed_run_with_progress_says_where_it_resumes(tmp_path, capsys):
    """With progress on, a run continued from its checkpoint says so on stderr once the checkpoint was accepted:
    the file and the step it resumes at (100 of 200); a fresh run and a run without progress say nothing of it."""
    ck = _valid_checkpoint(tmp_path)
    capsys.readouterr()
    res = simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=ck, resume=True, progress=True))
    assert res.complete
    assert f"resuming the run saved in {ck} at step 100 of 200" in capsys.readouterr().err
    simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=tmp_path / "fresh.npz", progress=True))
    assert "resuming" not in capsys.readouterr().err
    simulate(KERNEL, _start(), CONFIG, _opts(checkpoint=ck, resume=True, progress=True))  # finished: said so
    assert f"the run saved in {ck} had finished (step 200 of 200): reporting it" in capsys.readouterr().err
