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

It also keeps a first signal from being lost. The handler that turns a signal into ``KeyboardInterrupt`` runs
at whatever bytecode the main thread is at; when that is a garbage-collector callback or a ``__del__`` (JAX runs one
at every collection), CPython reports the exception to ``sys.unraisablehook`` and drops it, and the command ran to its
end as if no signal had come. The watch's hook delivers such a dropped interrupt again (``_thread.interrupt_main``
with the signal of record), silently, so it lands in the command's own code, which saves and prints how to resume;
the re-delivery does not count as a second signal.

Only the console entry point starts one (main thread; where a wakeup descriptor cannot be set it does nothing).
"""

from __future__ import annotations

import _thread
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable

__all__: list[str] = []

#: seconds after the first signal before the hint that the running computation cannot be interrupted
HINT_AFTER = 3.0
#: seconds the main thread has, after the second signal, to stop by itself before the process is ended
GRACE = 3.0


#: seconds before a dropped interrupt is delivered again (a delivery while the main thread is still in the hook that
#: asked for it would be dropped for good: CPython does not report an exception of that hook to it again)
AGAIN_AFTER = 0.1
#: the byte that asks the listener to deliver a dropped interrupt again (no signal has number 0)
_AGAIN = b"\0"


class StopWatch:
    """Counts SIGINT/SIGTERM from a wakeup descriptor in a daemon thread (module docstring)."""

    def __init__(self, hint_after: float = HINT_AFTER, grace: float = GRACE,
                 signal_of_record: Callable[[], int] | None = None) -> None:
        """``signal_of_record()`` names the signal whose dropped ``KeyboardInterrupt`` is delivered again (SIGINT
        when not given; the console entry point says SIGTERM once SIGTERM came)."""
        self.hint_after, self.grace = float(hint_after), float(grace)
        self._sockets: tuple[socket.socket, socket.socket] | None = None
        self._previous = -1
        self._done = threading.Event()
        self._last = signal.SIGINT
        self._signal_of_record = signal_of_record or (lambda: signal.SIGINT)
        self._again = signal.SIGINT
        self._echoes = 0  # re-deliveries still to be heard on the wakeup descriptor (not a user's signal)
        self._lock = threading.Lock()
        self._previous_hook = None

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
        self._previous_hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        threading.Thread(target=self._listen, name="contrastive-bounds-stop-watch", daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop listening and give the wakeup descriptor back."""
        self._done.set()
        if self._sockets is None:
            return
        if sys.unraisablehook == self._unraisable and self._previous_hook is not None:
            sys.unraisablehook = self._previous_hook
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
                if number == _AGAIN[0]:  # later, so that the main thread has left the hook that asked
                    self._later(AGAIN_AFTER, lambda signum=self._again: _thread.interrupt_main(signum))
                    continue
                if number not in (signal.SIGINT, signal.SIGTERM):
                    continue
                with self._lock:
                    if self._echoes:  # a dropped interrupt delivered again, not a new signal
                        self._echoes -= 1
                        continue
                count += 1
                self._last = signal.Signals(number)
                if count == 1:
                    self._later(self.hint_after, self._hint)
                elif count == 2:
                    self._later(self.grace, self._force)

    def _unraisable(self, unraisable) -> None:  # noqa: ANN001 - sys.UnraisableHookArgs
        """A ``KeyboardInterrupt`` dropped where CPython cannot raise (a gc callback, a ``__del__``): deliver it again,
        so that the command's own code gets it (module docstring); anything else goes to the previous hook."""
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and not self._done.is_set():
            signum = self._signal_of_record()
            if signal.getsignal(signum) not in (signal.SIG_IGN, signal.SIG_DFL, None):
                # the listener thread delivers it (asked by a 0 byte): from here the main thread would run the
                # handler inside this hook and drop it again; if it lands in another callback, this hook asks again
                with self._lock:
                    self._echoes += 1  # interrupt_main writes the number to the wakeup descriptor as a signal would
                    self._again = signum
                sockets = self._sockets
                if sockets is not None:
                    try:
                        sockets[1].send(_AGAIN)
                        return
                    except OSError:
                        with self._lock:
                            self._echoes -= 1
        (self._previous_hook or sys.__unraisablehook__)(unraisable)

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
