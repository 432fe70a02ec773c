"""File permissions for the toolkit's atomic writes (temp file + ``os.replace``).

``tempfile.mkstemp`` creates files with mode 0600; a report, figure or checkpoint written that way
stays private whatever the user's umask. :func:`publish_mode` gives a temp file the mode an ordinary
``open(path, "w")`` would have (``0o666 & ~umask``) before it replaces the target. Used by
:mod:`.driver`, :mod:`.similarity_descent_run` and the command line's report and plot writers.
"""

from __future__ import annotations

import os

__all__ = ["current_umask", "publish_mode"]


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
