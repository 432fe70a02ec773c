"""Records of a landscape network: minima, transition states, search effort (JSON round trip).

Coordinates are stored as nested lists of floats; Python's ``json`` writes floats with ``repr`` so a
stored configuration reads back bit for bit (a resumed search continues from exactly the same
points).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["NetworkMinimum", "TransitionState", "Effort", "FOUND_BY"]

#: What can find a minimum or a saddle: the search's five sources (a minimum reached by descending from
#: a saddle is credited to what found the saddle, with ``found_detail`` naming the saddle).
FOUND_BY = ("random start", "structured start", "hop", "eigenvector following", "double-ended")


def _f(x: float) -> float | None:
    return float(x) if math.isfinite(float(x)) else None


@dataclass
class NetworkMinimum:
    """One local minimum, up to symmetry.

    Attributes:
      id: index in the network. energy: V (float64). z: ``(N, d)`` representative.
      multiplicity: configurations modulo O(d) in its symmetry orbit (:func:`~.symmetry.multiplicity`).
      gradient_norm: ``|grad V|_2`` after refinement. eigenvalues: the lowest (up to 6) Hessian
        eigenvalues off the symmetry modes. orbit_dim: symmetry zero modes removed.
      verified: gradient below tolerance, index 0, no extra zero mode. note: why not (degenerate ...).
      found_by: one of :data:`FOUND_BY`. found_detail: e.g. ``"descent from the saddle at V = -8.79"``.
      hits: times a minimisation or descent ended in it.
    """

    id: int
    energy: float
    z: np.ndarray
    multiplicity: int
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
        """The name the command line prints and ``anneal`` accepts: ``m<id>``."""
        return f"m{self.id}"

    def to_dict(self, *, coordinates: bool = True) -> dict[str, Any]:
        """JSON-ready dict (coordinates optional), with the ``label``."""
        out = {k: v for k, v in asdict(self).items() if k != "z"}
        out["label"] = self.label
        out["eigenvalues"] = [float(x) for x in self.eigenvalues]
        if coordinates:
            out["z"] = np.asarray(self.z, dtype=np.float64).tolist()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "NetworkMinimum":
        """Inverse of :meth:`to_dict` (with coordinates)."""
        d = {k: v for k, v in d.items() if k != "label"}
        return cls(**{**d, "z": np.asarray(d["z"], dtype=np.float64)})


@dataclass
class TransitionState:
    """A saddle candidate after refinement: verified (index 1, converged) or not, with the reason.

    Attributes:
      id: index. energy: V. z: ``(N, d)``. multiplicity: as for minima (0 for a rejected candidate: not computed).
      gradient_norm: ``|grad V|_2``. eigenvalue: the lowest Hessian eigenvalue off the symmetry modes
        (negative for a transition state). index: negative eigenvalues off the symmetry modes.
      minima: ids of the two minima reached by descent along ``±`` the negative eigenvector
        (``[]`` when not connected). verified: accepted (index 1 off the zero band, gradient below
        tolerance, both descents ended at verified minima below it). reason: why not, else "" (for a
        degenerate one: its zero modes). degenerate: extra zero modes beyond the symmetry (a saddle on a
        manifold of critical points: used for H* like any, but no Eyring–Kramers prefactor there).
      found_by: one of :data:`FOUND_BY` (``"random start"`` etc.: a minimisation that stopped on it).
      descents: per side, how it was connected: ``{"method": "path" | "quasi-newton", "minimum",
        "steps", "path_length", "via"}`` (``via``: energy of a lower saddle the path ran into and was
        continued from, else None).
    """

    id: int
    energy: float
    z: np.ndarray
    multiplicity: int
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
        """``t<id>``."""
        return f"t{self.id}"

    def to_dict(self, *, coordinates: bool = True) -> dict[str, Any]:
        """JSON-ready dict (coordinates optional), with the ``label``."""
        out = {k: v for k, v in asdict(self).items() if k != "z"}
        out["label"] = self.label
        out["eigenvalue"] = _f(self.eigenvalue)
        if coordinates:
            out["z"] = np.asarray(self.z, dtype=np.float64).tolist()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TransitionState":
        """Inverse of :meth:`to_dict` (with coordinates)."""
        ev = d.get("eigenvalue")
        d = {k: v for k, v in d.items() if k != "label"}
        return cls(**{**d, "z": np.asarray(d["z"], dtype=np.float64), "eigenvalue": math.nan if ev is None else ev})


@dataclass
class Effort:
    """What the search did (reported with every result: "barrier-free" means "within this effort").

    Attributes:
      starts: random starts minimised. structured_starts: structured starts minimised; structured: what
        they were (:class:`~.structured.StructuredInfo` as a dict).
      hop_rounds / hops: basin-hopping rounds and minimisations.
      rounds_without_new: consecutive hop rounds that found no new minimum (the stopping rule).
      minimisations: every local minimisation (starts, hops, descents from saddles).
      neb_runs: double-ended band searches. single_ended: eigenvector-following searches from minima.
      descents: steepest-descent paths integrated from saddles (two per candidate, more when a path
        ran into a lower saddle). closure_rounds: rounds of the closure. closed: closure reached.
      closure: the closure reached, in words (or why not: which budget ran out).
      pairs_within_distance: minima pairs within ``pair_distance`` (each given to the band).
      refinements: saddle refinements; unconverged: those that ended without reaching ``gradient_tol``.
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
        """JSON-ready dict (``pairs_tried`` as a count and the list)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Effort":
        """Inverse of :meth:`to_dict`."""
        return cls(**d)
