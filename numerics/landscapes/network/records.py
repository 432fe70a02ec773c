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

__all__ = ["NetworkMinimum", "TransitionState", "Effort"]


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
      found_by: ``"start"``, ``"hop"`` or ``"descent"`` (from a transition state). hits: times found.
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
    found_by: str = "start"
    hits: int = 1

    def to_dict(self, *, coordinates: bool = True) -> dict[str, Any]:
        """JSON-ready dict (coordinates optional)."""
        out = {k: v for k, v in asdict(self).items() if k != "z"}
        out["eigenvalues"] = [float(x) for x in self.eigenvalues]
        if coordinates:
            out["z"] = np.asarray(self.z, dtype=np.float64).tolist()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "NetworkMinimum":
        """Inverse of :meth:`to_dict` (with coordinates)."""
        return cls(**{**d, "z": np.asarray(d["z"], dtype=np.float64)})


@dataclass
class TransitionState:
    """A saddle candidate after refinement: verified (index 1, converged) or not, with the reason.

    Attributes:
      id: index. energy: V. z: ``(N, d)``. multiplicity: as for minima.
      gradient_norm: ``|grad V|_2``. eigenvalue: the lowest Hessian eigenvalue off the symmetry modes
        (negative for a transition state). index: negative eigenvalues off the symmetry modes.
      minima: ids of the two minima reached by descent along ``±`` the negative eigenvector
        (``[]`` when not connected). verified: accepted (index 1, gradient below tolerance, no extra
        zero mode, both descents ended at verified minima below it). reason: why not, else "".
      found_by: ``"neb"``, ``"single-ended"`` or ``"start"`` (a minimisation that stopped on it).
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
    found_by: str = "neb"

    def to_dict(self, *, coordinates: bool = True) -> dict[str, Any]:
        """JSON-ready dict (coordinates optional)."""
        out = {k: v for k, v in asdict(self).items() if k != "z"}
        out["eigenvalue"] = _f(self.eigenvalue)
        if coordinates:
            out["z"] = np.asarray(self.z, dtype=np.float64).tolist()
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TransitionState":
        """Inverse of :meth:`to_dict` (with coordinates)."""
        ev = d.get("eigenvalue")
        return cls(**{**d, "z": np.asarray(d["z"], dtype=np.float64), "eigenvalue": math.nan if ev is None else ev})


@dataclass
class Effort:
    """What the search did (reported with every result: "barrier-free" means "within this effort").

    Attributes:
      starts: random starts minimised. hop_rounds / hops: basin-hopping rounds and minimisations.
      rounds_without_new: consecutive hop rounds that found no new minimum (the stopping rule).
      minimisations: every local minimisation (starts, hops, descents from saddles).
      neb_runs: double-ended band searches. single_ended: eigenvector-following searches from minima.
      refinements: saddle refinements. verified_ts / unverified_ts: accepted / rejected saddle candidates
        (distinct up to symmetry). duplicate_ts: candidates that refined to a known transition state.
      saddle_stops: minimisations that ended on a saddle. non_finite: evaluations that gave NaN/inf.
      pairs_tried: minima pairs handed to the band. seconds: wall time (summed over resumed runs).
      stop_rule / stopped_by: the stated stopping rule and which condition ended each phase.
    """

    starts: int = 0
    hop_rounds: int = 0
    hops: int = 0
    rounds_without_new: int = 0
    minimisations: int = 0
    neb_runs: int = 0
    single_ended: int = 0
    refinements: int = 0
    verified_ts: int = 0
    unverified_ts: int = 0
    duplicate_ts: int = 0
    saddle_stops: int = 0
    non_finite: int = 0
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
