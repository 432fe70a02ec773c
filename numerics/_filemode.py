"""File permissions and writability for the toolkit's atomic writes (temp file + ``os.replace``).

``tempfile.mkstemp`` creates files with mode 0600; a report, figure or checkpoint written that way
stays private whatever the user's umask. :func:`publish_mode` gives a temp file the mode an ordinary
``open(path, "w")`` would have (``0o666 & ~umask``) before it replaces the target. Used by
:mod:`.driver`, :mod:`.similarity_descent_run` and the command line's report and plot writers.
:func:`probe_writable_folder` / :func:`ensure_writable_parent` prove, before a long run starts, that
its output can be written.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO, Any, Callable

__all__ = ["current_umask", "publish_mode", "write_atomically", "probe_writable_folder", "ensure_writable_parent"]


def current_umask() -> int:
    """The process umask (an int such as ``0o022``).

    Read without changing it where possible (Linux ``/proc/self/status``); elsewhere set and restored
    at once, since ``os.umask`` has no getter. Raises nothing.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def publish_mode(path: str | os.PathLike) -> None:
    """Set ``path``'s mode to ``0o666 & ~umask`` (what ``open(path, "w")`` gives a new file).

    Args:
      path: an existing file (typically the temp file of an atomic write, before ``os.replace``).
    Raises:
      OSError: the mode cannot be changed (not the owner, file gone).
    """
    os.chmod(path, 0o666 & ~current_umask())


def write_atomically(path: str | os.PathLike, write: Callable[[IO[Any]], None] | bytes | str, *,
                     binary: bool = True, prefix: str = ".tmp-", suffix: str = ".tmp", fsync: bool = False) -> None:
    """Write ``path`` all at once: ``write(fh)`` fills a temporary file in the same folder, which gets
    :func:`publish_mode` and then replaces ``path`` (``os.replace``). An interruption at any point leaves
    the previous file intact and no temporary behind. The toolkit's one atomic writer: checkpoints, reports,
    figures, sweep rows and saved searches all go through it.

    Args:
      path: the target file (its folder must exist).
      write: called once with the open temporary file (binary or text); or the content itself, ``bytes``
        (written in binary) or ``str`` (written as UTF-8).
      binary: open the temporary file in binary mode (for a callable ``write``).
      prefix, suffix: of the temporary file's name.
      fsync: flush and ``os.fsync`` the content before the replace, so that an operating-system crash
        leaves the old file or the whole new one (results files, manifests, saved searches).
    Raises:
      OSError: the folder is not writable; whatever ``write`` raises (the temporary file is removed).

    Examples:
      >>> import os, tempfile
      >>> folder = tempfile.mkdtemp()
      >>> target = os.path.join(folder, "results.json")
      >>> write_atomically(target, '{"verdict": "holds"}', fsync=True)
      >>> open(target).read(), sorted(os.listdir(folder))      # no temporary file left behind
      ('{"verdict": "holds"}', ['results.json'])
    """
    if isinstance(write, str):
        write = write.encode("utf-8")
    if isinstance(write, (bytes, bytearray, memoryview)):
        data, binary = write, True
        write = lambda fh: fh.write(data)  # noqa: E731
    folder = os.path.dirname(os.path.abspath(path)) or "."
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    try:
        with os.fdopen(fd, "wb" if binary else "w") as fh:
            write(fh)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        publish_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def probe_writable_folder(folder: str | os.PathLike) -> str | None:
    """Create ``folder`` if missing and prove a file can be written in it (a temp file is created and
    removed, as an atomic write needs). Returns ``None`` on success, else why not: ``"cannot be
    created (<reason>)"`` or ``"is not writable (<reason>)"`` (the operating system's reason). Raises
    nothing: callers word the error with the argument they check."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot be created ({exc.strerror or exc})"
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".contrastive-bounds-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"is not writable ({exc.strerror or exc})"
    return None


def ensure_writable_parent(path: str | os.PathLike, name: str) -> Path:
    """Create the folder of the file ``path`` if missing and prove a file can be written in it
    (:func:`probe_writable_folder`).

    Called before a long run starts, so an unwritable checkpoint location fails at once instead of
    after the first chunk.

    Args:
      path: the file to be written later (need not exist). name: the argument's name, for messages.
    Returns:
      ``Path(path)``.
    Raises:
      ValueError: naming ``name`` when the folder cannot be created or is not writable (read-only,
        permission denied), with the operating system's reason.
    """
    path = Path(path)
    why = probe_writable_folder(path.parent)
    if why is not None:
        raise ValueError(f"{name}={str(path)!r}: its folder {str(path.parent)!r} {why}")
    return path
