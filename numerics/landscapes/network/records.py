"""Records of a landscape network: minima, transition states, and the small objects the steps pass around.

* :class:`NetworkMinimum`, :class:`TransitionState` — the store's records (labels ``m<id>`` and ``ts<id>``:
  :func:`minimum_label`, :func:`ts_label`; :func:`parse_label` also reads the ``t<id>`` of older files);
* :class:`Candidate` — a point to refine to a transition state, with the direction to follow uphill and
  what proposed it; :class:`Walker` — a basin-hopping walker;
* :class:`Effort` — what a search did (a fold over its events, :mod:`.events`);
* :class:`Side` — how one side of a saddle was connected (its descent), :class:`Settled` — a descent
  path's end polished and checked (:func:`~.descent.settle`).

Coordinates are stored as nested lists of floats; Python's ``json`` writes floats with ``repr`` so a
stored configuration reads back bit for bit (a resumed search continues from exactly the same points).
This module imports numpy only (no JAX): a saved search reads without starting JAX.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["NetworkMinimum", "TransitionState", "Candidate", "Walker", "Side", "Settled", "FOUND_BY",
           "minimum_label", "ts_label", "parse_label", "Effort", "COUNTS"]

#: What can find a minimum or a saddle: the search's five sources (a minimum reached by descending from
#: a saddle is credited to what found the saddle, with ``found_detail`` naming the saddle).
FOUND_BY = ("random start", "structured start", "hop", "eigenvector following", "double-ended")


def _f(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


def minimum_label(minimum_id: int) -> str:
    """The label of a minimum, as the ``landscape`` command prints it and ``anneal --start`` takes it: ``m<id>``."""
    return f"m{int(minimum_id)}"


def ts_label(ts_id: int) -> str:
    """The label of a transition state (or rejected candidate): ``ts<id>``."""
    return f"ts{int(ts_id)}"


def parse_label(label: Any, kind: str) -> int | None:
    """The id in a label of ``kind`` ``"minimum"`` (``m3``, ``3``) or ``"transition state"`` (``ts3``, the ``t3``
    of files written before the labels were made consistent, ``3``); None when ``label`` is not one."""
    text = str(label).strip().lower()
    prefixes = ("m",) if kind == "minimum" else ("ts", "t")
    for p in prefixes:
        if text.startswith(p):
            text = text[len(p):]
            break
    return int(text) if text.isdigit() else None


@dataclass
class NetworkMinimum:
    """One local minimum, up to symmetry.

    Attributes:
      id: index in the network. energy: V (float64). z: ``(N, d)`` representative.
      multiplicity: configurations modulo O(d) in its symmetry orbit (:func:`~.symmetry.multiplicity`); None where
        it was not computed (the search's ``multiplicities=False``; JSON ``null``).
      gradient_norm: ``|grad V|_2`` after refinement. eigenvalues: the lowest (up to 6) Hessian
        eigenvalues off the symmetry modes. orbit_dim: symmetry zero modes removed.
      verified: gradient below tolerance, index 0, no extra zero mode. note: why not (degenerate ...).
      found_by: one of :data:`FOUND_BY`; found_detail: e.g. ``"descent from the saddle at V = -8.79"``;
      hits: times a minimisation or descent ended in it. These three are filled in from the search's event
      log (:mod:`.events`), never counted by hand.
    """

    id: int
    energy: float
    z: np.ndarray
    multiplicity: int | None
    gradient_norm: float
    eigenvalues: list[float]
    orbit_dim: int
    verified: bool
    note: str = ""
    found_by: str = "random start"
    hits: int = 1
    found_detail: str = ""

    @property
    def label(self) -> str:
        """``m<id>``."""
        return minimum_label(self.id)

    def to_dict(self, *, coordinates: bool = True) -> dict[str, Any]:
        """JSON-ready dict (coordinates optional), with the ``label``."""
        out = {k: v for k, v in asdict(self).items() if k != "z"}
        out["label"] = self.label
        out["eigenvalues"] = [float(x) for x in self.eigenvalues]
        if coordinates:
            out["z"] = np.asarray(self.z, dtype=np.float64).tolist()
        return out


@dataclass
class TransitionState:
    """A saddle candidate after refinement: verified (index 1, converged, connected) or not, with the reason.

    Attributes:
      id: index. energy: V (not finite only for a rejected candidate, e.g. at coinciding Thomson points; written as
        null). z: ``(N, d)``. multiplicity: as for minima (None for a rejected candidate: not computed).
      gradient_norm: ``|grad V|_2`` (null in JSON where not finite). eigenvalue: the lowest Hessian eigenvalue off the symmetry modes
        (negative for a transition state). index: negative eigenvalues off the symmetry modes.
      minima: ids of the two minima reached by descent along ``±`` the negative eigenvector
        (``[]`` when not connected). verified: accepted (index 1 off the zero band, gradient below
        tolerance, both descents ended at verified minima below it). reason: why not, else "" (for a
        degenerate one: its zero modes). degenerate: extra zero modes beyond the symmetry (a saddle on a
        manifold of critical points: used for H* like any, but no Eyring–Kramers prefactor there).
      found_by: one of :data:`FOUND_BY` (from the event log).
      descents: per side, how it was connected (:meth:`Side.to_dict`).
    """

    id: int
    energy: float
    z: np.ndarray
    multiplicity: int | None
    gradient_norm: float
    eigenvalue: float
    index: int
    minima: list[int]
    verified: bool
    reason: str = ""
    found_by: str = "double-ended"
    descents: list[dict[str, Any]] = field(default_factory=list)
    degenerate: bool = False

    @property
    def label(self) -> str:
        """``ts<id>``."""
        return ts_label(self.id)

    def to_dict(self, *, coordinates: bool = True) -> dict[str, Any]:
        """JSON-ready dict (coordinates optional), with the ``label``."""
        out = {k: v for k, v in asdict(self).items() if k != "z"}
        out["label"] = self.label
        out["eigenvalue"] = _f(self.eigenvalue)
        # a rejected candidate can sit where V is infinite (Thomson points that coincide): null, as JSON has no inf
        out["energy"], out["gradient_norm"] = _f(self.energy), _f(self.gradient_norm)
        if coordinates:
            out["z"] = np.asarray(self.z, dtype=np.float64).tolist()
        return out


@dataclass(frozen=True)
class Candidate:
    """A point to refine to a transition state: ``z`` ``(N, d)``, the direction ``mode`` ``(N, d)`` to follow
    uphill, and ``found_by`` (what proposed it, one of :data:`FOUND_BY`)."""

    z: np.ndarray
    mode: np.ndarray
    found_by: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"z": np.asarray(self.z).tolist(), "mode": np.asarray(self.mode).tolist(), "found_by": self.found_by}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Candidate":
        """Inverse of :meth:`to_dict`."""
        return cls(np.asarray(d["z"], dtype=np.float64), np.asarray(d["mode"], dtype=np.float64),
                   str(d.get("found_by", "random start")))


@dataclass
class Walker:
    """A basin-hopping walker: its configuration ``z`` ``(N, d)``, energy and the minimum it sits in."""

    z: np.ndarray
    energy: float
    minimum: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"z": np.asarray(self.z).tolist(), "energy": self.energy, "minimum": self.minimum}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Walker":
        """Inverse of :meth:`to_dict`."""
        return cls(np.asarray(d["z"], dtype=np.float64), float(d["energy"]), int(d["minimum"]))


@dataclass(frozen=True)
class Settled:
    """The end of a descent path after :func:`~.descent.settle`: ``point`` (the polished point, classified),
    ``reason`` (``""`` when it is a minimum reached without leaving the basin, else why not) and ``end``
    (the path's end point itself, classified: it tells whether the path stalled near a saddle)."""

    point: Any
    reason: str
    end: Any


@dataclass(frozen=True)
class Side:
    """How one side of a saddle was connected.

    Attributes:
      minimum: the polished minimum reached (a classified critical point) or None. reason: why not ("").
      method: ``"path"`` or ``"quasi-newton"``. steps: integrator steps (None for quasi-Newton).
      path_length: summed step lengths (radians; None for quasi-Newton). via: energy of a lower saddle the
        path ran into and was continued from, else None. end: the path's end point, classified (None for
        quasi-Newton). polished: the polished end point, classified (None for quasi-Newton).
    """

    minimum: Any
    reason: str
    method: str
    steps: int | None = None
    path_length: float | None = None
    via: float | None = None
    end: Any = None
    polished: Any = None

    def to_dict(self, minimum_id: int) -> dict[str, Any]:
        """What a transition state's ``descents`` records for this side (``minimum``: the minimum's id)."""
        return {"method": self.method, "steps": self.steps, "path_length": self.path_length, "via": self.via,
                "minimum": minimum_id}


@dataclass
class Effort:
    """What the search did (reported with every result: "barrier-free" means "within this effort").

    Every field but ``seconds`` and ``stop_rule`` is a fold over the search's events (:class:`~.tally.Tally`).

    Attributes:
      starts: random starts minimised. structured_starts: structured starts minimised; structured: what
        they were (:class:`~.structured.StructuredInfo` as a dict).
      hop_rounds / hops: basin-hopping rounds and minimisations.
      rounds_without_new: consecutive hop rounds that found no new minimum (the stopping rule).
      minimisations: every local minimisation (starts, hops, push-offs off saddles, quasi-Newton descents,
        continuations of slow descent paths).
      neb_runs: double-ended band searches. single_ended: eigenvector-following searches from minima.
      descents: steepest-descent paths integrated from saddles (two per candidate, more when a path
        ran into a lower saddle). closure_rounds: rounds of the closure. closed: closure reached.
      closure: the closure reached, in words (or why not: which budget ran out).
      pairs_within_distance: minima pairs within ``pair_distance`` (each given to the band).
      refinements: saddle refinements; unconverged: those that ended without reaching ``gradient_tol``;
        below_floor: of those, the searches stopped on falling below their floor (they left the basin of the
        minimum they started from, ``SearchSettings.basin_margin``).
      verified_ts / unverified_ts: accepted / rejected saddle candidates
        (distinct up to symmetry). duplicate_ts: candidates that refined to a known transition state.
      saddle_stops: minimisations that ended on a saddle. non_finite: evaluations that gave NaN/inf.
      pairs_tried: minima pairs handed to the band. seconds: wall time (summed over resumed runs).
      stop_rule / stopped_by: the stated stopping rule and which condition ended each phase.
    """

    starts: int = 0
    structured_starts: int = 0
    structured: dict[str, Any] = field(default_factory=dict)
    hop_rounds: int = 0
    hops: int = 0
    rounds_without_new: int = 0
    minimisations: int = 0
    neb_runs: int = 0
    single_ended: int = 0
    refinements: int = 0
    unconverged: int = 0
    below_floor: int = 0
    verified_ts: int = 0
    unverified_ts: int = 0
    duplicate_ts: int = 0
    saddle_stops: int = 0
    non_finite: int = 0
    descents: int = 0
    closure_rounds: int = 0
    closed: bool = False
    closure: str = ""
    pairs_within_distance: int = 0
    pairs_tried: list[list[int]] = field(default_factory=list)
    seconds: float = 0.0
    stop_rule: str = ""
    stopped_by: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


#: the counting fields of :class:`Effort` a :class:`Carried` event may hold
COUNTS = ("starts", "structured_starts", "hop_rounds", "hops", "minimisations", "neb_runs", "single_ended",
          "refinements", "unconverged", "below_floor", "verified_ts", "unverified_ts", "duplicate_ts", "saddle_stops", "non_finite",
          "descents", "closure_rounds")
