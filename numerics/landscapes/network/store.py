"""Saving a search as it goes, and resuming it (atomic JSON: temp file + ``os.replace``).

The state file (``network.json`` in the output folder) holds the landscape's fingerprint, the search
settings, every minimum and transition state found (coordinates written with ``repr``, so they read
back bit for bit), the basin-hopping walkers, the pairs tried and pending, and the effort. It is
rewritten after every batch (starts, hop round, band batch, refinement batch), so an interrupted
search loses at most the batch in flight; :func:`check_resume` refuses a state written for another
landscape or other settings, naming what differs.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from contrastive_bounds.numerics.filemode import ensure_writable_parent, publish_mode

__all__ = ["STATE_FILE", "STATE_VERSION", "save_state", "load_state", "check_resume", "atomic_write_bytes",
           "prepare_folder"]

STATE_FILE = "network.json"
STATE_VERSION = 2


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, ``os.replace``),
    with the mode an ordinary ``open(path, "w")`` would give.

    Raises:
      OSError: the folder is not writable (the target is then untouched).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        publish_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_state(path: str | os.PathLike, state: dict[str, Any]) -> None:
    """Write the search state as JSON atomically (``version`` added)."""
    payload = {"version": STATE_VERSION, **state}
    atomic_write_bytes(path, (json.dumps(payload, allow_nan=False) + "\n").encode())


def load_state(path: str | os.PathLike) -> dict[str, Any]:
    """Read a state file written by :func:`save_state`.

    Raises:
      FileNotFoundError: no such file. ValueError: not a state file of this version (named).
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no saved search at {str(p)!r} (nothing to resume)")
    try:
        data = json.loads(p.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"resume file {str(p)!r} is not a readable search state ({exc})") from None
    if not isinstance(data, dict) or "version" not in data:
        raise ValueError(f"resume file {str(p)!r} is not a search state (no version field)")
    if data["version"] != STATE_VERSION:
        raise ValueError(f"resume file {str(p)!r} was written by search state version {data['version']!r}; this "
                         f"version reads version {STATE_VERSION} only (the search gained structured starts, closure and "
                         "steepest-descent connections): start a fresh search in another folder, or delete this one")
    return data


def check_resume(saved: dict[str, Any], fingerprint: dict[str, Any], settings: dict[str, Any]) -> None:
    """Refuse to resume a state written for another landscape or other settings.

    Raises:
      ValueError: naming every differing landscape field or setting with both values.
    """
    diffs = []
    old_fp = saved.get("landscape", {})
    for key in sorted(set(old_fp) | set(fingerprint)):
        if key == "description":
            continue
        if old_fp.get(key) != fingerprint.get(key):
            diffs.append(f"landscape {key}: saved {old_fp.get(key)!r}, now {fingerprint.get(key)!r}")
    old_set = saved.get("settings", {})
    for key in sorted(set(old_set) | set(settings)):
        if old_set.get(key) != settings.get(key):
            diffs.append(f"{key}: saved {old_set.get(key)!r}, now {settings.get(key)!r}")
    if diffs:
        raise ValueError("resume refused: the saved search differs in " + "; ".join(diffs))


def prepare_folder(out: str | os.PathLike) -> Path:
    """The output folder, created and probed for writability before a long search starts.

    Raises:
      ValueError: naming ``out`` when the folder cannot be created or written.
    """
    folder = Path(out)
    ensure_writable_parent(folder / STATE_FILE, "out")
    return folder

