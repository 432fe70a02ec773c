"""The fold of a search's events (:mod:`.events`): effort counts, what found each record, what each explored
minimum's searches covered and how they ended.

``Tally.from_events(events)`` (or :meth:`Tally.add` event by event) gives the fold; :meth:`Tally.effort` the
:class:`~.records.Effort` reported with every result. JAX-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from contrastive_bounds.numerics.landscapes.network.events import (
    PHASES,
    BandRun,
    Carried,
    ClosureReached,
    Descended,
    DuplicateCandidate,
    Event,
    Followed,
    FollowedPart,
    HopJoined,
    HopRound,
    MinimaHit,
    Minimised,
    NewMinimum,
    NewTransitionState,
    NonFinite,
    PhaseEnded,
    Refined,
    RejectedCandidate,
    RoundEnded,
    SaddleStop,
    StructuredPlan,
)
from contrastive_bounds.numerics.landscapes.network.records import COUNTS, Effort

__all__ = ["Tally"]

_PHASE_KEYS = {"hops": "minima", "ts": "transition_states"}


@dataclass
class Tally:
    """The fold of a search's events: effort counts, what found each record, hits, and the search's progress.

    Attributes (beyond the :data:`COUNTS`, kept in ``counts``):
      found_by / detail: per minimum id, what found it; ts_found_by: per transition-state id.
      hits: per minimum id, minimisations and descents that ended in it.
      explored: minima followed along their modes; followed: per explored minimum ``(modes, of, directions)``
        of its :class:`Followed` event; modulo_symmetry: per minimum covered modulo its stabiliser
        ``(representatives, stabilizer evidence)`` (``representatives = 0``: the reduction was tried and refused,
        with the reason); outcomes: per explored minimum ``(ended, joined, stalled)`` of its :class:`Followed`
        event (``-1``: not recorded); planned: per explored minimum the searches its directions called for
        (``-1``: not recorded); progress: per minimum being followed, ``(searches, ended, joined, stalled)``
        of its :class:`FollowedPart` events so far (cleared by its :class:`Followed` event, whose ``directions``
        include them); tried: pairs given to the band; hop_pairs: pairs joined
        by a hop. rounds_without_new: trailing hop rounds without a new minimum.
      phase: the current phase (:data:`PHASES`); stopped_by, closed, closure, pairs_within_distance,
        structured: as in :class:`Effort`.
    """

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    found_by: dict[int, str] = field(default_factory=dict)
    detail: dict[int, str] = field(default_factory=dict)
    ts_found_by: dict[int, str] = field(default_factory=dict)
    hits: dict[int, int] = field(default_factory=dict)
    explored: set[int] = field(default_factory=set)
    followed: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    modulo_symmetry: dict[int, tuple[int, str]] = field(default_factory=dict)
    outcomes: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    progress: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    planned: dict[int, int] = field(default_factory=dict)
    tried: set[tuple[int, int]] = field(default_factory=set)
    hop_pairs: set[tuple[int, int]] = field(default_factory=set)
    rounds_without_new: int = 0
    phase: str = PHASES[0]
    stopped_by: dict[str, str] = field(default_factory=dict)
    closed: bool = False
    closure: str = ""
    pairs_within_distance: int = 0
    structured: dict[str, Any] = field(default_factory=dict)
    starts_done: int = 0
    structured_done: int = 0

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> "Tally":
        """The fold of ``events`` from an empty search."""
        t = cls()
        for e in events:
            t.add(e)
        return t

    def add(self, e: Event) -> None:  # noqa: C901 - one branch per event kind is the point
        """Fold one event in."""
        c = self.counts
        if isinstance(e, NewMinimum):
            self.found_by[e.minimum], self.detail[e.minimum] = e.found_by, e.detail
            self.hits[e.minimum] = self.hits.get(e.minimum, 0) + 1
        elif isinstance(e, MinimaHit):
            for m in e.minima:
                self.hits[m] = self.hits.get(m, 0) + 1
        elif isinstance(e, NewTransitionState):
            self.ts_found_by[e.ts] = e.found_by
            c["verified_ts"] += 1
        elif isinstance(e, RejectedCandidate):
            self.ts_found_by[e.ts] = e.found_by
            c["unverified_ts"] += 1
        elif isinstance(e, DuplicateCandidate):
            c["duplicate_ts"] += 1
        elif isinstance(e, Minimised):
            c["minimisations"] += e.count
            if e.role == "random start":
                c["starts"] += e.count
                self.starts_done += e.count
            elif e.role == "structured start":
                c["structured_starts"] += e.count
                self.structured_done += e.count
            elif e.role == "hop":
                c["hops"] += e.count
        elif isinstance(e, Refined):
            c["refinements"] += e.count
            c["unconverged"] += e.unconverged
            c["below_floor"] += e.below_floor
        elif isinstance(e, Descended):
            c["descents"] += e.count
        elif isinstance(e, FollowedPart):
            c["single_ended"] += e.searches
            done = self.progress.get(e.minimum, (0, 0, 0, 0))
            self.progress[e.minimum] = (done[0] + e.searches, done[1] + e.ended, done[2] + e.joined,
                                        done[3] + e.stalled)
        elif isinstance(e, Followed):
            c["single_ended"] += e.directions - self.progress.pop(e.minimum, (0, 0, 0, 0))[0]
            self.explored.add(e.minimum)
            self.followed[e.minimum] = (e.modes, e.of, e.directions)
            self.outcomes[e.minimum] = (e.ended, e.joined, e.stalled)
            self.planned[e.minimum] = e.planned
            if e.representatives or e.stabilizer:
                self.modulo_symmetry[e.minimum] = (e.representatives, e.stabilizer)
            else:
                self.modulo_symmetry.pop(e.minimum, None)
        elif isinstance(e, BandRun):
            c["neb_runs"] += 1
            self.tried.add(tuple(e.pair))
        elif isinstance(e, HopRound):
            c["hop_rounds"] += 1
            self.rounds_without_new = 0 if e.found_new else self.rounds_without_new + 1
        elif isinstance(e, HopJoined):
            self.hop_pairs.add(tuple(e.pair))
        elif isinstance(e, SaddleStop):
            c["saddle_stops"] += 1
        elif isinstance(e, NonFinite):
            c["non_finite"] += e.count
        elif isinstance(e, StructuredPlan):
            self.structured = dict(e.info)
        elif isinstance(e, RoundEnded):
            c["closure_rounds"] += 1
        elif isinstance(e, PhaseEnded):
            self.phase = PHASES[PHASES.index(e.phase) + 1]
            if e.phase in _PHASE_KEYS and e.reason:
                self.stopped_by[_PHASE_KEYS[e.phase]] = e.reason
        elif isinstance(e, ClosureReached):
            self.closed, self.closure, self.pairs_within_distance = e.closed, e.text, e.pairs_within_distance
        elif isinstance(e, Carried):
            for k in COUNTS:
                c[k] += int(e.counts.get(k, 0))
            self.starts_done += int(e.counts.get("starts", 0))
            self.structured_done += int(e.counts.get("structured_starts", 0))
            self.rounds_without_new += int(e.counts.get("rounds_without_new", 0))

    def effort(self, *, seconds: float = 0.0, stop_rule: str = "") -> Effort:
        """The :class:`Effort` of the folded events (``seconds`` and ``stop_rule`` given by the caller)."""
        return Effort(**{k: int(v) for k, v in self.counts.items()}, structured=dict(self.structured),
                      rounds_without_new=self.rounds_without_new, closed=self.closed, closure=self.closure,
                      pairs_within_distance=self.pairs_within_distance,
                      pairs_tried=sorted(list(p) for p in self.tried), seconds=float(seconds), stop_rule=stop_rule,
                      stopped_by=dict(self.stopped_by))

    def found_by_counts(self, minima: Iterable[int], transition_states: Iterable[int]) -> dict[str, dict[str, int]]:
        """How many of the given minima and transition states each source found."""
        out: dict[str, dict[str, int]] = {"minima": {}, "transition_states": {}}
        for key, ids, src in (("minima", minima, self.found_by), ("transition_states", transition_states,
                                                                   self.ts_found_by)):
            for i in ids:
                out[key][src[i]] = out[key].get(src[i], 0) + 1
        return out
