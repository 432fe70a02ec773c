"""What a search did, as events; the effort and the "what found it" records are folds over them.

Every step of the search (:mod:`.minima`, :mod:`.following`, :mod:`.bands`, :mod:`.connect`) returns the
events it produced, and the store (:class:`~.store.NetworkStore`) logs them. Nothing else is counted:

* what the network holds — :class:`NewMinimum` (a minimum entered the catalogue, and what found it),
  :class:`NewTransitionState` (a verified transition state) with its :class:`Connection` (the two minima
  its descents reached), :class:`RejectedCandidate` (a saddle candidate refused, with the reason),
  :class:`MinimaHit` (minimisations or descents that ended in known minima);
* what was done — :class:`Minimised` (local minimisations, by role), :class:`Refined` (saddle
  refinements and how many did not converge), :class:`Descended` (steepest-descent paths),
  :class:`Followed` (eigenvector-following searches from one minimum), :class:`BandRun` (a band between
  two minima), :class:`HopRound` / :class:`HopJoined` (basin hopping), :class:`SaddleStop` /
  :class:`NonFinite` / :class:`DuplicateCandidate` (outcomes), :class:`StructuredPlan` (the structured
  starts), :class:`RoundEnded` / :class:`PhaseEnded` / :class:`ClosureReached` (how the phases ended);
* :class:`Carried` — the counts of a search saved before the event log existed (state versions 1 and 2).

:class:`Tally` is the fold (``Tally.from_events(events)``, or :meth:`Tally.add` event by event) and
:meth:`Tally.effort` the :class:`~.records.Effort` reported with every result. JAX-free.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Iterable

from contrastive_bounds.numerics.landscapes.network.records import COUNTS, Effort

__all__ = ["Event", "NewMinimum", "MinimaHit", "NewTransitionState", "Connection", "RejectedCandidate",
           "DuplicateCandidate", "Minimised", "Refined", "Descended", "Followed", "BandRun", "HopRound", "HopJoined",
           "SaddleStop", "NonFinite", "StructuredPlan", "RoundEnded", "PhaseEnded", "ClosureReached", "Carried",
           "EVENT_TYPES", "event_from_dict", "Tally", "PHASES"]

#: The phases of a search in order; ``"done"`` follows the last.
PHASES = ("starts", "structured", "hops", "ts", "done")


@dataclass(frozen=True)
class Event:
    """Base of every event; ``kind`` names it in the saved log."""

    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with the ``event`` kind."""
        return {"event": self.kind, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}}


@dataclass(frozen=True)
class NewMinimum(Event):
    """Minimum ``minimum`` entered the catalogue, found by ``found_by`` (``detail``: e.g. the saddle it was
    reached from)."""

    kind: ClassVar[str] = "new minimum"
    minimum: int
    found_by: str
    detail: str = ""


@dataclass(frozen=True)
class MinimaHit(Event):
    """Minimisations or descents by ``source`` ended in the known minima ``minima`` (one entry per ending)."""

    kind: ClassVar[str] = "minima hit"
    source: str
    minima: tuple[int, ...]


@dataclass(frozen=True)
class NewTransitionState(Event):
    """Transition state ``ts`` was verified (``degenerate``: with extra zero modes), found by ``found_by``."""

    kind: ClassVar[str] = "new transition state"
    ts: int
    found_by: str
    degenerate: bool = False


@dataclass(frozen=True)
class Connection(Event):
    """Transition state ``ts`` joins the minima ``minima`` (its two descents, by ``method``)."""

    kind: ClassVar[str] = "connection"
    ts: int
    minima: tuple[int, int]
    method: str


@dataclass(frozen=True)
class RejectedCandidate(Event):
    """Saddle candidate ``ts`` (kept as an unverified record) was refused: ``reason``."""

    kind: ClassVar[str] = "rejected candidate"
    ts: int
    found_by: str
    reason: str


@dataclass(frozen=True)
class DuplicateCandidate(Event):
    """A saddle candidate of ``found_by`` refined to a transition state already known (``ts``; None: repeated
    within its own batch)."""

    kind: ClassVar[str] = "duplicate candidate"
    found_by: str
    ts: int | None = None


@dataclass(frozen=True)
class Minimised(Event):
    """``count`` local minimisations (L-BFGS) of ``role``: ``"random start"``, ``"structured start"``,
    ``"hop"``, ``"push-off"`` (off a saddle a minimisation stopped on), ``"quasi-newton descent"`` or
    ``"path continuation"`` (a descent path still moving after its step budget)."""

    kind: ClassVar[str] = "minimised"
    role: str
    count: int


@dataclass(frozen=True)
class Refined(Event):
    """``count`` eigenvector-following refinements of saddle candidates from ``found_by``; ``unconverged`` of
    the candidates ended above ``gradient_tol``."""

    kind: ClassVar[str] = "refined"
    found_by: str
    count: int
    unconverged: int = 0


@dataclass(frozen=True)
class Descended(Event):
    """``count`` steepest-descent paths integrated from saddles."""

    kind: ClassVar[str] = "descended"
    count: int


@dataclass(frozen=True)
class Followed(Event):
    """Minimum ``minimum`` was explored: ``directions`` eigenvector-following searches started from it, along
    ``modes`` Hessian eigenvectors of the ``of`` off the symmetry (both signs, plus combinations inside degenerate
    eigenspaces); ``modes = of`` is the per-trap closure. ``-1``: not recorded (logs before state version 4,
    whose searches followed every mode, or none for ``directions = 0``). ``representatives > 0``: the modes were
    covered modulo the minimum's stabiliser (:mod:`.symmetric_modes`): ``directions`` searches along the Ritz
    vectors of that many orbit representatives, ``stabilizer`` the group's evidence in words (with
    ``representatives = 0``: why the reduction did not apply, plain following ran); the two fields are left out
    of the saved form when unused (logs of plain following read and write as before)."""

    kind: ClassVar[str] = "followed"
    minimum: int
    directions: int
    modes: int = -1
    of: int = -1
    representatives: int = 0
    stabilizer: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; the symmetry fields only when the modes were covered modulo symmetry."""
        d = super().to_dict()
        if not self.representatives and not self.stabilizer:
            d.pop("representatives")
            d.pop("stabilizer")
        return d


@dataclass(frozen=True)
class BandRun(Event):
    """A double-ended (band) search between minima ``pair``."""

    kind: ClassVar[str] = "band"
    pair: tuple[int, int]


@dataclass(frozen=True)
class HopRound(Event):
    """A basin-hopping round of ``walkers`` hops; ``found_new``: it added a minimum."""

    kind: ClassVar[str] = "hop round"
    walkers: int
    found_new: bool


@dataclass(frozen=True)
class HopJoined(Event):
    """A hop moved a walker between the minima ``pair`` (a pair later given to the band)."""

    kind: ClassVar[str] = "hop joined"
    pair: tuple[int, int]


@dataclass(frozen=True)
class SaddleStop(Event):
    """A minimisation of ``source`` ended on a saddle of index ``index`` (pushed off, and an index-1 one
    kept as a candidate)."""

    kind: ClassVar[str] = "saddle stop"
    source: str
    index: int


@dataclass(frozen=True)
class NonFinite(Event):
    """``count`` minimisations of ``source`` met a non-finite value."""

    kind: ClassVar[str] = "non-finite"
    source: str
    count: int


@dataclass(frozen=True)
class StructuredPlan(Event):
    """The structured starts of the search (:class:`~.structured.StructuredInfo` as a dict)."""

    kind: ClassVar[str] = "structured plan"
    info: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RoundEnded(Event):
    """Transition-state round ``round`` (1-based) ended."""

    kind: ClassVar[str] = "round ended"
    round: int


@dataclass(frozen=True)
class PhaseEnded(Event):
    """Phase ``phase`` (one of :data:`PHASES`) ended; ``reason``: which condition ended it (or "")."""

    kind: ClassVar[str] = "phase ended"
    phase: str
    reason: str = ""


@dataclass(frozen=True)
class ClosureReached(Event):
    """How the transition-state phase ended: ``closed`` (nothing left to explore) and ``text`` (the closure,
    or why not, in words); ``pairs_within_distance``: minima pairs within ``pair_distance``."""

    kind: ClassVar[str] = "closure"
    closed: bool
    text: str
    pairs_within_distance: int = 0


@dataclass(frozen=True)
class Carried(Event):
    """Counts of :class:`Effort` fields done before the event log existed (a search saved by state version 1
    or 2 and resumed): added to what the log's events give."""

    kind: ClassVar[str] = "carried"
    counts: dict = field(default_factory=dict)


EVENT_TYPES: dict[str, type[Event]] = {c.kind: c for c in (
    NewMinimum, MinimaHit, NewTransitionState, Connection, RejectedCandidate, DuplicateCandidate, Minimised, Refined,
    Descended, Followed, BandRun, HopRound, HopJoined, SaddleStop, NonFinite, StructuredPlan, RoundEnded, PhaseEnded,
    ClosureReached, Carried)}


def event_from_dict(d: dict[str, Any]) -> Event:
    """Inverse of :meth:`Event.to_dict`.

    Raises:
      ValueError: an unknown event kind or fields (named).
    """
    kind = d.get("event")
    if kind not in EVENT_TYPES:
        raise ValueError(f"unknown event {kind!r}; events are {sorted(EVENT_TYPES)}")
    cls = EVENT_TYPES[kind]
    names = {f.name for f in fields(cls)}
    args = {k: (tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v)
            for k, v in d.items() if k != "event"}
    if set(args) - names:
        raise ValueError(f"event {kind!r} has unknown fields {sorted(set(args) - names)}")
    return cls(**args)


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
        with the reason); tried: pairs given to the band; hop_pairs: pairs joined
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
        elif isinstance(e, Descended):
            c["descents"] += e.count
        elif isinstance(e, Followed):
            c["single_ended"] += e.directions
            self.explored.add(e.minimum)
            self.followed[e.minimum] = (e.modes, e.of, e.directions)
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
