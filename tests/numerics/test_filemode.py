"""numerics.filemode: every atomic write publishes its file with ``0o666 & ~umask`` (mkstemp's private 0600
had made reports and checkpoints unreadable to a CI or a shared folder), the umask is read without changing
it, and the writability probe names the argument and the system's reason before any work is done."""

from __future__ import annotations

import errno
import os

import pytest

import contrastive_bounds.numerics._filemode as filemode
from contrastive_bounds.numerics._filemode import ensure_writable_parent


def _deny(*args, **kwargs):
    raise PermissionError(errno.EACCES, "Permission denied")


def test_umask_reader_matches_os_umask():
    """current_umask equals the umask os.umask reports and leaves it unchanged."""
    old = os.umask(0o027)
    try:
        from contrastive_bounds.numerics._filemode import current_umask

        assert current_umask() == 0o027
    finally:
        os.umask(old)
    assert os.umask(old) == old  # unchanged by current_umask


def test_every_atomic_writer_publishes_with_the_umask(tmp_path):
    """publish_mode gives 0o666 & ~umask, and every mkstemp in the similarity-descent checkpoints and the
    `align train --plot` writer is followed by publish_mode (those two writers had kept mkstemp's 0600)."""
    import os
    import stat

    import contrastive_bounds.numerics._filemode as filemode

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

    import contrastive_bounds.numerics.alignment._descent_run as similarity_descent_run
    import contrastive_bounds.properties.cli._align as cli_align

    for module in (similarity_descent_run, cli_align):
        src = inspect.getsource(module)
        assert src.count("mkstemp(") == src.count("publish_mode(tmp)"), module.__name__


def test_probe_creates_the_folder_and_leaves_nothing(tmp_path):
    """ensure_writable_parent creates missing folders and leaves no probe file behind."""
    target = tmp_path / "a" / "b" / "run.npz"
    assert ensure_writable_parent(target, "checkpoint") == target
    assert target.parent.is_dir() and list(target.parent.iterdir()) == []


def test_probe_names_the_argument_and_the_reason(tmp_path, monkeypatch):
    """A folder where files cannot be created is a ValueError naming the argument, the folder and the system's
    reason."""
    monkeypatch.setattr(filemode.tempfile, "mkstemp", _deny)
    with pytest.raises(ValueError, match=r"^checkpoint='.*run\.npz': its folder '.*' is not writable \(Permission denied\)$"):
        ensure_writable_parent(tmp_path / "run.npz", "checkpoint")


def test_folder_that_cannot_be_created_is_named(tmp_path):
    """A parent path under a regular file is a ValueError saying the folder cannot be created."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="cannot be created"):
        ensure_writable_parent(blocker / "sub" / "run.npz", "checkpoint")



def test_write_atomically_keeps_the_old_file_when_the_writer_fails(tmp_path):
    """A writer that raises halfway: the previous content stays, no temporary file is left, the error
    propagates; a writer that finishes replaces the file (text and binary)."""
    import pytest

    from contrastive_bounds.numerics._filemode import write_atomically

    target = tmp_path / "state.json"
    write_atomically(target, lambda fh: fh.write("old"), binary=False)

    def half(fh):
        fh.write("partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, half, binary=False)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]
    write_atomically(target, lambda fh: fh.write(b"new"))
    assert target.read_bytes() == b"new"


def test_write_atomically_takes_content_or_a_writer_and_fsyncs_on_request(tmp_path, monkeypatch):
    """bytes, str (UTF-8) and a callable write the same file; fsync=True calls os.fsync once on the temporary file
    before the replace, fsync=False never; the file is replaced whole and no temporary is left."""
    synced = []
    real = filemode.os.fsync
    monkeypatch.setattr(filemode.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    target = tmp_path / "out.txt"
    filemode.write_atomically(target, b"one\n", fsync=True)
    assert target.read_bytes() == b"one\n" and len(synced) == 1
    filemode.write_atomically(target, "zwei ü\n")
    assert target.read_text(encoding="utf-8") == "zwei ü\n" and len(synced) == 1
    filemode.write_atomically(target, lambda fh: fh.write("three\n"), binary=False, fsync=True)
    assert target.read_text() == "three\n" and len(synced) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_the_toolkit_has_one_atomic_writer():
    """No module but numerics._filemode creates a temporary file and replaces a target itself (six modules had
    their own temp-file-and-os.replace code; saved network searches included)."""
    import re
    from pathlib import Path

    root = Path(filemode.__file__).resolve().parents[1]
    own = []
    for folder in ("theory", "numerics", "properties"):
        for path in (root / folder).rglob("*.py"):
            rel = path.relative_to(root).as_posix()
            if rel == "numerics/_filemode.py":
                continue
            code = re.sub(r'""".*?"""', "", path.read_text(encoding="utf-8"), flags=re.S)
            if re.search(r"\bmkstemp\(|\bos\.replace\(|\bos\.rename\(|NamedTemporaryFile\(", code):
                own.append(rel)
    assert own == []
