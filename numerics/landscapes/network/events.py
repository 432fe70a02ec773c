"""What a search did, as events; the effort and the "what found it" records are folds over them.

Every step of the search (:mod:`.minima`, :mod:`.following`, :mod:`.bands`, :mod:`.connect`) returns the
events it produced, and the store (:class:`~.store.NetworkStore`) logs them. Nothing else is counted:

* what the network holds — :class:`NewMinimum` (a minimum entered the catalogue, and what found it),
  :class:`NewTransitionState` (a verified transition state) with its :class:`Connection` (the two minima
  its descents reached), :class:`RejectedCandidate` (a saddle candidate refused, with the reason),
  :class:`MinimaHit` (minimisations or descents that ended in known minima);
* what was done — :class:`Minimised` (local minimisations, by role), :class:`Refined` (saddle
  refinements and how many did not converge), :class:`Descended` (steepest-descent paths),
  :class:`Followed` (eigenvector-following searches from one minimum; :class:`FollowedPart`: a block of them
  before it), :class:`BandRun` (a band between
  two minima), :class:`HopRound` / :class:`HopJoined` (basin hopping), :class:`SaddleStop` /
  :class:`NonFinite` / :class:`DuplicateCandidate` (outcomes), :class:`StructuredPlan` (the structured
  starts), :class:`RoundEnded` / :class:`PhaseEnded` / :class:`ClosureReached` (how the phases ended);
* :class:`Carried` — the counts of a search saved before the event log existed (state versions 1 and 2).

Their fold, :class:`~.tally.Tally`, gives the :class:`~.records.Effort` reported with every result. JAX-free.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar


__all__ = ["Event", "NewMinimum", "MinimaHit", "NewTransitionState", "Connection", "RejectedCandidate",
           "DuplicateCandidate", "Minimised", "Refined", "Descended", "Followed", "FollowedPart", "BandRun", "HopRound", "HopJoined",
           "SaddleStop", "NonFinite", "StructuredPlan", "RoundEnded", "PhaseEnded", "ClosureReached", "Carried",
           "EVENT_TYPES", "event_from_dict", "PHASES"]

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
    the candidates ended above ``gradient_tol``, ``below_floor`` of those because the search fell below its floor
    (it left the basin of the minimum it started from: ``SearchSettings.basin_margin``)."""

    kind: ClassVar[str] = "refined"
    found_by: str
    count: int
    unconverged: int = 0
    below_floor: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; ``below_floor`` only when some search stopped there (a search without a floor writes
        what it wrote before floors existed)."""
        d = super().to_dict()
        if not self.below_floor:
            d.pop("below_floor")
        return d


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
    of the saved form when unused (logs of plain following read and write as before). How the searches ended:
    ``ended`` of them at a verified transition state, ``joined`` of those at one joined to this minimum, and
    ``stalled`` followed directions (a mode or combination, both signs) none of whose searches ended at one
    (``-1``: not recorded, logs before state version 6; left out of the saved form then); ``planned``: the searches
    its directions called for (more than ``directions`` when ``max_searches`` ran out inside them)."""

    kind: ClassVar[str] = "followed"
    minimum: int
    directions: int
    modes: int = -1
    of: int = -1
    representatives: int = 0
    stabilizer: str = ""
    ended: int = -1
    joined: int = -1
    stalled: int = -1
    planned: int = -1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict; the symmetry fields only when the modes were covered modulo symmetry, the outcome
        fields only when recorded."""
        d = super().to_dict()
        if not self.representatives and not self.stabilizer:
            d.pop("representatives")
            d.pop("stabilizer")
        for k in ("ended", "joined", "stalled", "planned"):
            if d[k] < 0:
                d.pop(k)
        return d


@dataclass(frozen=True)
class FollowedPart(Event):
    """A block of ``searches`` eigenvector-following searches from minimum ``minimum`` ended (``ended`` at a verified
    transition state, ``joined`` of those to this minimum, ``stalled`` directions none of whose searches did) before
    the minimum's :class:`Followed` event: a search stopped there resumes after them."""

    kind: ClassVar[str] = "followed part"
    minimum: int
    searches: int
    ended: int
    joined: int
    stalled: int


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
    Descended, Followed, FollowedPart, BandRun, HopRound, HopJoined, SaddleStop, NonFinite, StructuredPlan, RoundEnded, PhaseEnded,
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
