"""The one store of a search: its minima, transition states and event log (as pele's ``Database``).

A :class:`NetworkStore` holds what a search knows — the landscape's fingerprint, the typed
:class:`~.state.SearchSettings`, the minima and transition-state records, the event log
(:mod:`.events`) — and the little state basin hopping and the closure carry between batches (the
walkers, the saddle candidates waiting for refinement, the aligned distances already computed). Every
step reads it and records into it; :mod:`.serial` saves and reads it (one versioned serialiser);
:func:`~.search.landscape_network` runs the steps on it; a saved search (:mod:`.saved`) is one read back.

Records enter only through :meth:`NetworkStore.add_minimum`, :meth:`NetworkStore.add_transition_state`
and :meth:`NetworkStore.reject`, each logging its event; everything counted — the effort, what found
each record, hits, which minima were explored and which pairs tried, the phase — is the fold of the
log (:class:`~.tally.Tally`), never a separate counter. The store holds no spec, callback or path: what
a run needs besides it is passed to the steps. JAX-free (numpy only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from contrastive_bounds.numerics.landscapes.network.events import (
    Connection,
    Event,
    MinimaHit,
    NewMinimum,
    NewTransitionState,
    RejectedCandidate,
)
from contrastive_bounds.numerics.landscapes.network.tally import Tally
from contrastive_bounds.numerics.landscapes.network.records import (
    Candidate,
    Effort,
    NetworkMinimum,
    TransitionState,
    Walker,
)
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings

__all__ = ["NetworkStore"]


@dataclass
class NetworkStore:
    """Minima, transition states and the event log of one search (mutable; module docstring).

    Attributes:
      fingerprint: the landscape's fingerprint (``LandscapeSpec.fingerprint``). settings: the settings.
      minima, transition_states: the records (ids are list positions; transition states verified or not).
      events: the log. walkers: basin-hopping walkers. pending: saddle candidates not yet refined (minimisations
        that stopped on an index-1 saddle). distances: aligned distances of minima pairs computed so far.
      seconds_before: wall time of earlier runs of this search (resumed searches add theirs).
      curvature: the name of the curvature provider the search runs with (:mod:`.curvature`).
    """

    fingerprint: dict[str, Any]
    settings: SearchSettings
    minima: list[NetworkMinimum] = field(default_factory=list)
    transition_states: list[TransitionState] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    walkers: list[Walker] = field(default_factory=list)
    pending: list[Candidate] = field(default_factory=list)
    distances: dict[tuple[int, int], float] = field(default_factory=dict)
    seconds_before: float = 0.0
    curvature: str = "dense"
    tally: Tally = field(default_factory=Tally, repr=False)

    # ----------------------------------------------------------------------------------- the log
    def log(self, *events: Event) -> list[Event]:
        """Append events to the log (and the fold); returns them."""
        for e in events:
            self.events.append(e)
            self.tally.add(e)
            self._apply(e)
        return list(events)

    def _apply(self, e: Event) -> None:
        """What an event changes in the records (hits and sources are folds, mirrored onto the records)."""
        if isinstance(e, NewMinimum):
            m = self.minima[e.minimum]
            m.found_by, m.found_detail, m.hits = e.found_by, e.detail, self.tally.hits[e.minimum]
        elif isinstance(e, MinimaHit):
            for i in set(e.minima):
                self.minima[i].hits = self.tally.hits[i]
        elif isinstance(e, (NewTransitionState, RejectedCandidate)):
            self.transition_states[e.ts].found_by = e.found_by

    def replay(self) -> None:
        """Rebuild the fold from the log (after reading a saved store)."""
        self.tally = Tally()
        for e in self.events:
            self.tally.add(e)
            self._apply(e)

    def since(self, start: int) -> list[Event]:
        """The events logged after the first ``start`` (what a step returned)."""
        return self.events[start:]

    # ----------------------------------------------------------------------------------- records
    def add_minimum(self, record: NetworkMinimum, found_by: str, detail: str = "") -> int:
        """Append a new minimum (its ``id`` is set to its position) and log :class:`~.events.NewMinimum`."""
        record.id = len(self.minima)
        self.minima.append(record)
        self.log(NewMinimum(record.id, found_by, detail))
        return record.id

    def hit(self, source: str, ids: Sequence[int]) -> None:
        """Log that minimisations of ``source`` ended in the known minima ``ids`` (one entry per ending)."""
        if ids:
            self.log(MinimaHit(source, tuple(int(i) for i in ids)))

    def add_transition_state(self, record: TransitionState, found_by: str) -> int:
        """Append a verified transition state joined to ``record.minima`` and log it with its connection."""
        record.id = len(self.transition_states)
        self.transition_states.append(record)
        method = record.descents[0]["method"] if record.descents else "path"
        self.log(NewTransitionState(record.id, found_by, bool(record.degenerate)),
                 Connection(record.id, (int(record.minima[0]), int(record.minima[1])), method))
        return record.id

    def reject(self, record: TransitionState, found_by: str) -> int:
        """Append a refused saddle candidate (``record.verified`` False, ``record.reason`` why) and log it."""
        record.id = len(self.transition_states)
        self.transition_states.append(record)
        self.log(RejectedCandidate(record.id, found_by, record.reason))
        return record.id

    # ----------------------------------------------------------------------------------- views
    @property
    def phase(self) -> str:
        """The phase the search is in (``"starts"`` … ``"done"``, :data:`~.events.PHASES`)."""
        return self.tally.phase

    @property
    def finished(self) -> bool:
        """The search ran to its end."""
        return self.tally.phase == "done"

    @property
    def explored(self) -> set[int]:
        """Minima already followed along their modes."""
        return self.tally.explored

    @property
    def tried_pairs(self) -> set[tuple[int, int]]:
        """Pairs of minima already given to the band."""
        return self.tally.tried

    @property
    def hop_pairs(self) -> set[tuple[int, int]]:
        """Pairs of minima a hop moved a walker between."""
        return self.tally.hop_pairs

    @property
    def ts_rounds(self) -> int:
        """Transition-state rounds done."""
        return self.tally.counts["closure_rounds"]

    def effort(self, seconds: float = 0.0) -> Effort:
        """The effort so far (``seconds``: this run's wall time, added to the earlier runs')."""
        return self.tally.effort(seconds=self.seconds_before + seconds, stop_rule=self.settings.stop_rule())

    def verified_ts(self) -> list[TransitionState]:
        """The accepted transition states."""
        return [t for t in self.transition_states if t.verified]

    def unverified_ts(self) -> list[TransitionState]:
        """The rejected saddle candidates (never used for H*), with their reasons."""
        return [t for t in self.transition_states if not t.verified]

    def energies(self) -> np.ndarray:
        """Energies of the minima, in id order."""
        return np.array([m.energy for m in self.minima], dtype=np.float64)

    def found_by_counts(self) -> dict[str, dict[str, int]]:
        """How many minima and verified transition states each source found."""
        return self.tally.found_by_counts([m.id for m in self.minima], [t.id for t in self.verified_ts()])
