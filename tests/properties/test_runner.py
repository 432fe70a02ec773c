"""properties.runner, the suite runner behind ``check``: it refuses an output folder it cannot create
before running anything, and its atomic writes (temp file + os.replace) publish files with
``0o666 & ~umask`` and leave no temporary file behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import contrastive_bounds.properties._runner as runner_mod


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_run_suite_refuses_an_out_dir_it_cannot_create(tmp_path):
    """run_suite refuses an out_dir under a regular file with a ValueError naming out_dir, before any check
    runs."""
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match=r"^out_dir=.* cannot be created"):
        runner_mod.run_suite([], profile="quick", out_dir=tmp_path / "f" / "rep")


def test_atomic_write_honours_the_umask(tmp_path):
    """atomic_write_text gives 0o666 & ~umask (0o644, 0o640, 0o600, 0o664), also when replacing a file, not
    always mkstemp's 0600, and leaves no temporary file."""
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



def test_every_atomic_write_of_properties_and_alignment_goes_through_one_helper():
    """The report writer, the sweep store, the --plot writer and the alignment checkpoints each had their own temp file
    + os.replace; numerics.filemode.write_atomically is the one helper (mode, cleanup on failure, in one place)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    own = [p for folder in ("properties", "numerics/alignment") for p in (root / folder).rglob("*.py")]
    direct = [str(p.relative_to(root)) for p in own if "os.replace(" in p.read_text() or "mkstemp(" in p.read_text()]
    assert direct == []
