"""File output and checkpoints (tester3 findings #6, #7, #12, #14).

* ``check --out`` into an unwritable place exits 2 with one line, before any check runs (#6);
* files written atomically (temp file + ``os.replace``) get ``0o666 & ~umask``, not 0600 (#12);
* a corrupt checkpoint raises a ValueError naming ``checkpoint=`` (#7);
* ``simulate``'s ``target``/``basins``/``resume`` are validated up front (#14, #7).
"""

from __future__ import annotations

import errno
import json
import os
import stat
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.numerics.langevin import Arc, EnergyBelow, simulate
from contrastive_bounds.numerics.langevin.kernel import langevin_kernel
from contrastive_bounds.numerics.landscapes.registry import get_landscape
from contrastive_bounds.properties import runner as runner_mod
from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.theory.annealing import make_schedule

cli = CliRunner()

USER_CHECKS = '''
from contrastive_bounds.properties.checks.framework import check, compare_upper

@check("tester3io.square", theorem="x^2 <= bound", statement="x^2 <= bound for the given x", paper="B",
       quick={"x": 0.5, "bound": 1.0})
def square(params, seed):
    return compare_upper(float(params["bound"]), float(params["x"]) ** 2, what="x^2")
'''


def _scenarios(tmp_path: Path) -> Path:
    (tmp_path / "tester3_checks.py").write_text(USER_CHECKS)
    f = tmp_path / "scenarios.toml"
    f.write_text('imports = ["tester3_checks.py"]\n[[scenario]]\nname = "s"\ncheck = "tester3io.square"\n')
    return f


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


# ---------------------------------------------------------------- #6: check --out


@pytest.mark.parametrize("kind", ["proc", "parent_is_file", "sys"])
def test_check_out_unwritable_exits_2_before_any_check_runs(tmp_path, monkeypatch, kind):
    """tester3 #6: an unwritable --out is bad input (exit 2, one line naming --out), found before the run."""
    if kind == "proc":
        out = Path("/proc/contrastive-bounds-report")
    elif kind == "sys":
        out = Path("/sys/rep")
    else:
        (tmp_path / "plain").write_text("x")
        out = tmp_path / "plain" / "rep"
    if kind != "parent_is_file" and not out.parent.is_dir():
        pytest.skip(f"{out.parent} does not exist here")

    def no_run(*a, **k):  # noqa: ANN002, ANN003
        raise AssertionError("run_suite was called although --out is unwritable")

    monkeypatch.setattr(runner_mod, "run_suite", no_run)
    res = cli.invoke(app, ["check", "--scenarios", str(_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = res.output.strip()
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert text.startswith("error: --out=") and str(out) in text


def test_check_out_read_only_folder_is_refused(tmp_path, monkeypatch):
    """tester3 #6: an existing folder where files cannot be created (write probe fails) exits 2."""
    out = tmp_path / "ro"
    out.mkdir()
    real_mkstemp = runner_mod.tempfile.mkstemp

    def failing_mkstemp(*a, **k):  # noqa: ANN002, ANN003
        if Path(k.get("dir", "")) == out:
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_mkstemp(*a, **k)

    monkeypatch.setattr(runner_mod.tempfile, "mkstemp", failing_mkstemp)
    res = cli.invoke(app, ["check", "--scenarios", str(_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 2
    assert res.output.strip() == f"error: --out={out} is not writable (Permission denied)"
    assert not list(out.iterdir())


def test_check_write_failure_during_the_run_exits_2_with_one_line(tmp_path, monkeypatch):
    """tester3 #6: a write that fails after the probe (disk full) exits 2 with one line, no traceback."""

    def disk_full(path, text):  # noqa: ANN001
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(runner_mod, "atomic_write_text", disk_full)
    out = tmp_path / "rep"
    res = cli.invoke(app, ["check", "--scenarios", str(_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 2
    last = res.output.strip().splitlines()[-1]
    assert last == f"error: --out={out}: writing the results failed (No space left on device: {out / 'results.json'})"
    assert "Traceback" not in res.output


def test_run_suite_checks_out_dir_first(tmp_path):
    """tester3 #6: the Python API refuses an out_dir under a regular file, naming out_dir."""
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match=r"^out_dir=.* cannot be created"):
        runner_mod.run_suite([], profile="quick", out_dir=tmp_path / "f" / "rep")


# ---------------------------------------------------------------- #12: file modes


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_atomic_write_honours_the_umask(tmp_path):
    """tester3 #12: atomic_write_* give 0o666 & ~umask (0o644 / 0o640 / 0o600), not always 0600."""
    for mask, expected in ((0o022, 0o644), (0o027, 0o640), (0o077, 0o600), (0o002, 0o664)):
        old = os.umask(mask)
        try:
            p = tmp_path / f"f{mask:o}.txt"
            runner_mod.atomic_write_text(p, "hello")
            runner_mod.atomic_write_text(p, "again")  # replacing keeps the same rule
        finally:
            os.umask(old)
        assert p.read_text() == "again" and _mode(p) == expected, (oct(mask), oct(_mode(p)))
    assert not [q for q in tmp_path.iterdir() if q.name.startswith(".")]  # no temp files left


def test_umask_reader_matches_os_umask():
    """tester3 #12: the umask read without changing it equals the one os.umask reports."""
    old = os.umask(0o027)
    try:
        from contrastive_bounds.numerics.filemode import current_umask

        assert current_umask() == 0o027
    finally:
        os.umask(old)
    assert os.umask(old) == old  # unchanged by current_umask


def test_check_report_files_are_world_readable_under_umask_022(tmp_path, umask_022):
    """tester3 #12: report.html, report.md and results.json from `check` are 0o644 with umask 022."""
    out = tmp_path / "rep"
    res = cli.invoke(app, ["check", "--scenarios", str(_scenarios(tmp_path)), "--out", str(out)])
    assert res.exit_code == 0, res.output
    for name in ("report.html", "report.md", "results.json"):
        assert _mode(out / name) == 0o644, (name, oct(_mode(out / name)))
    assert json.loads((out / "results.json").read_text())["results"][0]["check"] == "tester3io.square"


# ---------------------------------------------------------------- #7, #14: simulate


def _kernel():
    land = get_landscape("double-well")
    return langevin_kernel(land, temperature=make_schedule("temperature", c=2.0, t0=2.0), step_size=0.02)


KERNEL = _kernel()


def _start(chains: int = 8) -> np.ndarray:
    pos = np.zeros((chains, 1, 2))
    pos[:, 0, 0] = -1.0  # theta = pi
    return pos


KW = dict(num_steps=200, seed=5, record_every=20, chunk_steps=100)


def test_checkpoint_file_mode_honours_the_umask(tmp_path, umask_022):
    """tester3 #12: simulate's checkpoint is 0o644 with umask 022 (was mkstemp's 0600)."""
    ck = tmp_path / "ck.npz"
    simulate(KERNEL, _start(), checkpoint=ck, **KW)
    assert _mode(ck) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["ck.npz"]


def _valid_checkpoint(tmp_path: Path) -> Path:
    ck = tmp_path / "ck.npz"
    part = simulate(KERNEL, _start(), checkpoint=ck, stop_after_steps=100, **KW)
    assert part.steps_done == 100
    return ck


def _assert_unreadable(ck: Path, reason: str) -> None:
    with pytest.raises(ValueError) as info:
        simulate(KERNEL, _start(), checkpoint=ck, resume=True, **KW)
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
    """tester3 #7: garbage (pickle message), empty (EOFError), bare header -> ValueError naming checkpoint=."""
    ck = tmp_path / "ck.npz"
    ck.write_bytes(content)
    _assert_unreadable(ck, reason)


def test_truncated_checkpoint_names_checkpoint(tmp_path):
    """tester3 #7: a truncated checkpoint (zipfile.BadZipFile before) -> ValueError naming checkpoint=."""
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
    """tester3 #7: a valid npz with NaN 'position' is refused up front (it used to blame step_size)."""
    ck = _valid_checkpoint(tmp_path)
    _rewrite(ck, position=_nan_first)
    _assert_unreadable(ck, "'position' has NaN or inf")


@pytest.mark.parametrize("key", ["potential", "grad", "running_min", "energy_trace"])
def test_checkpoint_with_non_finite_arrays_is_refused(tmp_path, key):
    """tester3 #7: NaN in any float array of the state is refused, naming the array."""
    ck = _valid_checkpoint(tmp_path)
    _rewrite(ck, **{key: _nan_first})
    _assert_unreadable(ck, f"'{key}' has NaN or inf")


def test_checkpoint_hit_time_may_be_inf_but_not_nan(tmp_path):
    """tester3 #7: hit_time = inf means 'not hit' (allowed); NaN is refused."""
    ck = tmp_path / "ck.npz"
    simulate(KERNEL, _start(), checkpoint=ck, stop_after_steps=100, target=EnergyBelow(-10.0), **KW)
    with np.load(ck) as data:
        assert np.all(np.isinf(data["hit_time"]))  # nobody reaches V < -10: inf entries are legal
    res = simulate(KERNEL, _start(), checkpoint=ck, resume=True, target=EnergyBelow(-10.0), **KW)
    assert res.complete
    _rewrite(ck, hit_time=_nan_first)
    with pytest.raises(ValueError, match=r"'hit_time' has NaN"):
        simulate(KERNEL, _start(), checkpoint=ck, resume=True, target=EnergyBelow(-10.0), **KW)


def test_checkpoint_missing_key_or_wrong_shape_is_refused(tmp_path):
    """tester3 #7: missing arrays and arrays of the wrong shape or step are refused, naming checkpoint=."""
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
    res = simulate(KERNEL, _start(), checkpoint=ck, resume=True, **KW)  # the untouched file still resumes
    assert res.complete and res.energy_trace.shape == (10, 8)


def test_zip_with_other_members_is_refused(tmp_path):
    """tester3 #7: a zip archive that is not an npz of ours is refused (not a KeyError)."""
    ck = tmp_path / "ck.npz"
    with zipfile.ZipFile(ck, "w") as z:
        z.writestr("hello.txt", "hi")
    _assert_unreadable(ck, "missing array")


def test_checkpoint_that_is_a_folder_is_refused_up_front(tmp_path):
    """tester3 #7: checkpoint=<an existing folder> -> ValueError naming checkpoint (not IsADirectoryError)."""
    for resume in (False, True):
        with pytest.raises(ValueError, match=r"^checkpoint='.*' is a folder"):
            simulate(KERNEL, _start(), checkpoint=tmp_path, resume=resume, **KW)
    (tmp_path / "plain").write_text("x")
    with pytest.raises(ValueError, match=r"^checkpoint='.*': its folder .* is not a folder"):
        simulate(KERNEL, _start(), checkpoint=tmp_path / "plain" / "ck.npz", **KW)


def test_resume_without_checkpoint_is_refused():
    """tester3 #7: resume=True without checkpoint= used to be ignored silently."""
    with pytest.raises(ValueError, match=r"^resume=True needs checkpoint="):
        simulate(KERNEL, _start(), resume=True, **KW)


@pytest.mark.parametrize("target", [3, "arc", 1.5, [Arc(-0.5, 0.5)]])
def test_target_must_be_callable(target):
    """tester3 #14: target=3 gave a JAX TypeError; now a ValueError naming target."""
    with pytest.raises(ValueError, match=r"^target=.* must be None or a predicate"):
        simulate(KERNEL, _start(), target=target, **KW)


@pytest.mark.parametrize("basins", [[3], 3, Arc(-0.5, 0.5), "ab", [Arc(-0.5, 0.5), None], {Arc(-0.5, 0.5)}])
def test_basins_must_be_a_sequence_of_callables(basins):
    """tester3 #14: basins=[3] gave "'int' object is not callable"; now a ValueError naming basins."""
    with pytest.raises(ValueError, match=r"^basins(\[\d\])?=.* (must be a sequence|is not a predicate)"):
        simulate(KERNEL, _start(), basins=basins, **KW)


def test_valid_target_and_basins_still_run():
    """tester3 #14: the checks accept Arc, EnergyBelow, a plain function, and a list or tuple of basins."""

    def left(position, potential):  # noqa: ANN001
        return position[0, 0] < 0

    res = simulate(KERNEL, _start(), target=EnergyBelow(-0.9), basins=[Arc(-1.6, 1.6), left], **KW)
    assert res.occupancy.shape == (8, 2)
    np.testing.assert_allclose(res.occupancy.sum(axis=1) <= 1.0 + 1e-12, True)


def test_every_atomic_writer_publishes_with_the_umask(tmp_path):
    """tester3 #12 (the two writers left after the first fix): `align train --plot` PNGs and the
    similarity-descent checkpoints used mkstemp's 0600; all writers now share numerics.filemode."""
    import os
    import stat

    from contrastive_bounds.numerics import filemode

    old = os.umask(0o022)
    try:
        assert filemode.current_umask() == 0o022
        f = tmp_path / "x.bin"
        f.write_bytes(b"1")
        os.chmod(f, 0o600)
        filemode.publish_mode(f)
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o644
        os.umask(0o027)
        filemode.publish_mode(f)
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o640
    finally:
        os.umask(old)
    import inspect

    from contrastive_bounds.numerics.alignment import descent_run as similarity_descent_run
    from contrastive_bounds.properties.cli import align as cli_align

    for module in (similarity_descent_run, cli_align):
        src = inspect.getsource(module)
        assert src.count("mkstemp(") == src.count("publish_mode(tmp)"), module.__name__
