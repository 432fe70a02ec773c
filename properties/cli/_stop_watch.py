"""A second Ctrl-C (or SIGTERM) stops the command at once, even while a compiled computation runs.

Python runs a signal's handler only between bytecodes of the main thread. While that thread waits for one compiled
JAX call (a band search of eight pairs at N·d = 512, τ = 0.01 runs for minutes in one ``lax.while_loop``), neither
the first signal's graceful stop (save, print the resume command) nor the second's "stop at once" can happen until
the call returns. :class:`StopWatch` hears the signals where Python's C-level handler announces them
(``signal.set_wakeup_fd``), in a thread of its own that the blocked call does not hold up:

* after the first signal, if the command is still running ``HINT_AFTER`` seconds later, it says that the running
  computation cannot be interrupted and that a second signal stops at once;
* after the second, it gives the main thread ``GRACE`` seconds to stop by itself (the usual path when it is in
  Python), then writes why and ends the process (exit 130 after Ctrl-C, 143 after SIGTERM) without waiting for the
  call. What was saved before is kept: every save is atomic (a temporary file renamed over the old one).

Only the console entry point starts one (main thread; where a wakeup descriptor cannot be set it does nothing).
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading

__all__: list[str] = []

#: seconds after the first signal before the hint that the running computation cannot be interrupted
HINT_AFTER = 3.0
#: seconds the main thread has, after the second signal, to stop by itself before the process is ended
GRACE = 3.0


class StopWatch:
    """Counts SIGINT/SIGTERM from a wakeup descriptor in a daemon thread (module docstring)."""

    def __init__(self, hint_after: float = HINT_AFTER, grace: float = GRACE) -> None:
        self.hint_after, self.grace = float(hint_after), float(grace)
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._previous = -1
        self._done = threading.Event()
        self._last = signal.SIGINT

    def start(self) -> StopWatch:
        """Listen (main thread only; otherwise, or where no wakeup descriptor can be set, a no-op)."""
        if threading.current_thread() is not threading.main_thread():
            return self
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        try:
            self._previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        except (ValueError, OSError):
            reader.close()
            writer.close()
            return self
        self._sockets = (reader, writer)
        threading.Thread(target=self._listen, name="contrastive-bounds-stop-watch", daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening and give the wakeup descriptor back."""
        self._done.set()
        if self._sockets is None:
            return
        try:
            signal.set_wakeup_fd(self._previous)
        except (ValueError, OSError):
            pass
        for s in self._sockets:
            try:
                s.close()
            except OSError:
                pass
        self._sockets = None

    def _listen(self) -> None:
        reader = self._sockets[0] if self._sockets else None
        count = 0
        while reader is not None and not self._done.is_set():
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            for number in data:
                if number not in (signal.SIGINT, signal.SIGTERM):
                    continue
                count += 1
                self._last = signal.Signals(number)
                if count == 1:
                    self._later(self.hint_after, self._hint)
                elif count == 2:
                    self._later(self.grace, self._force)

    def _later(self, seconds: float, fn) -> None:  # noqa: ANN001 - a callable of no arguments
        timer = threading.Timer(seconds, fn)
        timer.daemon = True
        timer.start()

    def _hint(self) -> None:
        if not self._done.is_set():
            print("still finishing the running computation, which cannot be interrupted (it may take minutes); "
                  f"{'Ctrl-C' if self._last == signal.SIGINT else 'SIGTERM'} again stops at once: what was saved "
                  "before is kept, the work since then is lost", file=sys.stderr, flush=True)

    def _force(self) -> None:
        if self._done.is_set():
            return
        print(f"stopped at once ({'Ctrl-C' if self._last == signal.SIGINT else 'SIGTERM'} twice while a compiled "
              "computation was running): what was saved before is kept; rerun with --resume where the command saved a "
              "search or a checkpoint", file=sys.stderr, flush=True)
        os._exit(143 if self._last == signal.SIGTERM else 130)
