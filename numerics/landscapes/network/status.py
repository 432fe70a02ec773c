"""What a network says about H*: the one status rule, for a search just run and for a saved one.

``"complete"`` only for a closed network (closed under single-ended exploration) in which every
non-global minimum is connected to a lower one; ``"barrier-free within this search"`` only for a closed
network with one minimum class, verified; otherwise ``"open: ..."`` saying why (closure not reached and
which budget ran out, closure not attempted, minima without a path to a lower one, a lone unverified
minimum). A search that has not run to its end (stopped by Ctrl-C, or run for its minima only) says so
after its status. H* is always the network's value over the minima found; it is never called complete
for less than closure. JAX-free.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["network_status", "is_known", "COMPLETE", "BARRIER_FREE"]

COMPLETE = "complete"
BARRIER_FREE = "barrier-free within this search"


def _minima(k: int) -> str:
    return f"{k} non-global minimum" if k == 1 else f"{k} non-global minima"


def network_status(analysis: Any, minima: Sequence[Any], *, closed: bool, closure_attempted: bool, stopped: str = "",
                   phase: str = "done") -> str:
    """The status of a network (module docstring).

    Args:
      analysis: its :class:`~.graph.NetworkAnalysis`. minima: its minimum records (``verified``, ``note``).
      closed: the search reached closure. closure_attempted: ``SearchSettings.closure``.
      stopped: why the transition-state phase ended (``Effort.stopped_by["transition_states"]``), for an open one.
      phase: the phase the search is in (``"done"``: it ran to its end).
    """
    unconnected = (f"{_minima(len(analysis.unconnected))} not connected to a lower one" if analysis.unconnected else "")
    if not closed:
        why = ("closure not attempted (closure=False)" if not closure_attempted else
               f"closure not reached ({stopped or 'stopped early'})")
        text = "open: " + why + (f"; {unconnected}" if unconnected else "")
    elif unconnected:
        text = f"open: closed under single-ended exploration, but {unconnected} (their barriers are unknown)"
    elif len(minima) == 1 and not minima[0].verified:  # a flat or degenerate landscape: nothing said of its barriers
        text = f"open: the only minimum found is not verified ({minima[0].note or 'degenerate'})"
    elif len(minima) == 1:
        text = BARRIER_FREE
    else:
        text = COMPLETE
    if phase != "done":
        text += f" (the search stopped in its {phase!r} phase: resume it)"
    return text


def is_known(status: str) -> bool:
    """H* is the closed network's value: the status is :data:`COMPLETE` or :data:`BARRIER_FREE`."""
    return status in (COMPLETE, BARRIER_FREE)
