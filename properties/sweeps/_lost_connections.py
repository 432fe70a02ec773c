"""Quiet logs while a sweep holds a cluster: dask's records of connections that a lost worker broke.

While a sweep holds a cluster, dask's records of connections closed by a lost worker or a
closing cluster (``CommClosedError``, heartbeats to a scheduler that is going away, a broadcast
to a dead worker) are dropped by :class:`LostConnectionFilter`, in this process and in the
workers; when the sweep has stopped (finished, interrupted, scheduler lost), everything below
CRITICAL that dask logs while the cluster closes is dropped. Any other dask error is still shown,
and a task's own error is in its row (``error``), never in a log.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import contextmanager
from typing import Iterator

__all__ = ["LostConnectionFilter", "quiet_lost_connections", "install_worker_filter"]


def _benign_types() -> tuple[type[BaseException], ...]:
    from distributed.comm.core import CommClosedError
    from tornado.iostream import StreamClosedError

    return (CommClosedError, StreamClosedError, ConnectionError, asyncio.CancelledError)


#: Messages dask logs, without an exception attached, about a connection that a lost worker or a
#: closing cluster broke; what they report is handled by the sweep (the task runs again, the rows
#: are saved, the lost scheduler is reported in one line).
_BENIGN_TEXT = ("CommClosedError", "Stream is closed", "Failed to reconnect to scheduler", "Worker failed to connect",
                "Failed to restart worker", "lost connection", "Connection refused",
                "Failed to communicate with scheduler during heartbeat", "Failed to unregister",
                "Restart timed out", "Timed out connecting Nanny", "Worker process still alive after")


class LostConnectionFilter(logging.Filter):
    """A logging filter for dask's handlers: drops the records of connections closed by a lost worker
    or a closing cluster (an exception of :func:`_benign_types`, or one of :data:`_BENIGN_TEXT`);
    with ``closing`` set, drops every record below CRITICAL (the cluster is being shut down after
    the sweep stopped). Everything else passes, a real library error included."""

    def __init__(self) -> None:
        super().__init__("contrastive-bounds-sweep")
        self.closing = False

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.CRITICAL:
            return True
        if self.closing:
            return False
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and isinstance(exc, _benign_types()):
            return False
        text = record.getMessage()
        return not any(t.lower() in text.lower() for t in _BENIGN_TEXT)


def _dask_handlers() -> list[logging.Handler]:
    """The handlers dask's records reach: those of the ``distributed`` logger (dask's own, from its
    logging configuration) and, when it propagates, the root logger's."""
    log = logging.getLogger("distributed")
    handlers = list(log.handlers)
    if log.propagate:
        handlers += [h for h in logging.getLogger().handlers if h not in handlers]
    return handlers


@contextmanager
def quiet_lost_connections() -> Iterator[LostConnectionFilter]:
    """Install a :class:`LostConnectionFilter` on dask's handlers for the block (removed after it)."""
    filt = LostConnectionFilter()
    handlers = _dask_handlers()
    for h in handlers:
        h.addFilter(filt)
    try:
        yield filt
    finally:
        for h in handlers:
            h.removeFilter(filt)


def install_worker_filter() -> None:
    """In a worker process: the same filter on dask's handlers, for the process's lifetime (a worker
    logs a failed heartbeat when the scheduler closes before it)."""
    for h in _dask_handlers():
        if not any(isinstance(f, LostConnectionFilter) for f in h.filters):
            h.addFilter(LostConnectionFilter())
