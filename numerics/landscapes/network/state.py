"""The mutable state of one search, its settings, and its JSON form (for saving and resuming)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from contrastive_bounds.numerics.landscapes.network.catalog import Catalog
from contrastive_bounds.numerics.landscapes.network.records import Effort, NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.verify import EIGENVALUE_TOL, GRADIENT_TOL
from contrastive_bounds.numerics.landscapes.network.store import save_state
from contrastive_bounds.numerics.landscapes.network.symmetry import DEFAULT_GRAM_TOL
from contrastive_bounds.theory.domains import check_int, check_real

__all__ = ["SearchSettings", "SearchState", "ProgressFn"]

ProgressFn = Callable[[str, int, "int | None", str], None]


@dataclass(frozen=True)
class SearchSettings:
    """How hard and how the network is searched (all recorded with the result).

    Attributes:
      starts: random starts (uniform on the product of spheres), integer >= 1.
      seed: integer >= 0; every random draw is a function of (seed, phase, batch index).
      hop_batch: walkers (parallel basin-hopping chains) per round, >= 1.
      max_hop_rounds: basin-hopping rounds at most (>= 0). patience: stop hopping after this many
        consecutive rounds without a new minimum (>= 1) — the stated stopping rule.
      hop_step: typical RMS size (radians) of the random tangent kick of every point per hop, > 0;
        walker k kicks with ``hop_step·2^((k mod 4) − 1)`` (½, 1, 2 and 4 times hop_step in turn).
      hop_temperature: Metropolis temperature of the walkers (units of V), > 0.
      neighbours: nearest minima (after alignment) each minimum is paired with for the band, >= 0.
      single_ended_modes: softest Hessian modes followed uphill (both signs) from each minimum, >= 0.
      max_ts_rounds: transition-state rounds at most (>= 1).
      images: band images (>= 5). neb_iterations: band iterations (>= 100).
      gradient_tol: acceptance bound on ``|grad V|_2`` for minima and transition states, > 0.
      eigenvalue_tol: relative zero band of Hessian eigenvalues, > 0.
      gram_tol: tolerance of Gram entries (coordinates without O(d)) for equal critical points, > 0.
      chunk: largest vmapped batch, >= 8.
    """

    starts: int = 64
    seed: int = 0
    hop_batch: int = 16
    max_hop_rounds: int = 30
    patience: int = 4
    hop_step: float = 0.5
    hop_temperature: float = 1.0
    neighbours: int = 3
    single_ended_modes: int = 3
    max_ts_rounds: int = 6
    images: int = 16
    neb_iterations: int = 1500
    gradient_tol: float = GRADIENT_TOL
    eigenvalue_tol: float = EIGENVALUE_TOL
    gram_tol: float = DEFAULT_GRAM_TOL
    chunk: int = 64

    def __post_init__(self) -> None:
        ints = {"starts": 1, "seed": 0, "hop_batch": 1, "max_hop_rounds": 0, "patience": 1, "neighbours": 0,
                "single_ended_modes": 0, "max_ts_rounds": 1, "images": 5, "neb_iterations": 100, "chunk": 8}
        for name, lo in ints.items():
            check_int(name, getattr(self, name), lo, None)
        for name in ("hop_step", "hop_temperature", "gradient_tol", "eigenvalue_tol", "gram_tol"):
            check_real(name, getattr(self, name), 0.0, math.inf)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    def stop_rule(self) -> str:
        """The stopping rule in words."""
        return (f"minima: {self.starts} random starts, then basin hopping ({self.hop_batch} walkers per round) until "
                f"{self.patience} consecutive rounds find no new minimum or {self.max_hop_rounds} rounds; transition "
                f"states: single-ended searches along the {self.single_ended_modes} softest modes (both signs) of every "
                f"minimum and bands to its {self.neighbours} nearest minima, repeated for new minima and for minima "
                f"not yet connected to a lower one, until nothing is pending or {self.max_ts_rounds} rounds")


@dataclass
class SearchState:
    """Everything a search has done so far (saved after every batch)."""

    fingerprint: dict[str, Any]
    settings: SearchSettings
    catalog: Catalog
    effort: Effort = field(default_factory=Effort)
    starts_done: int = 0
    walkers: list[dict[str, Any]] = field(default_factory=list)
    explored: set[int] = field(default_factory=set)
    tried_pairs: set[tuple[int, int]] = field(default_factory=set)
    hop_pairs: set[tuple[int, int]] = field(default_factory=set)
    saddle_seeds: list[dict[str, Any]] = field(default_factory=list)
    phase: str = "starts"
    ts_rounds: int = 0
    path: Path | None = None
    spec: Any = None
    progress: ProgressFn | None = None
    started: float = 0.0
    seconds_before: float = 0.0

    def report(self, phase: str, done: int, total: int | None, info: str = "") -> None:
        """Forward to the progress callback, if any."""
        if self.progress is not None:
            self.progress(phase, done, total, info)

    def to_dict(self, seconds: float) -> dict[str, Any]:
        """The JSON form (see :mod:`.store`)."""
        eff = self.effort.to_dict()
        eff["seconds"] = self.seconds_before + seconds
        return {
            "landscape": self.fingerprint, "settings": self.settings.to_dict(), "phase": self.phase,
            "starts_done": self.starts_done, "ts_rounds": self.ts_rounds,
            "minima": [m.to_dict() for m in self.catalog.minima],
            "transition_states": [t.to_dict() for t in self.catalog.transition_states],
            "walkers": [{"z": np.asarray(w["z"]).tolist(), "energy": w["energy"], "minimum": w["minimum"]}
                        for w in self.walkers],
            "explored": sorted(self.explored), "tried_pairs": sorted(list(p) for p in self.tried_pairs),
            "hop_pairs": sorted(list(p) for p in self.hop_pairs),
            "saddle_seeds": [{"z": np.asarray(s["z"]).tolist(), "mode": np.asarray(s["mode"]).tolist()}
                             for s in self.saddle_seeds],
            "effort": eff,
        }

    def save(self, seconds: float) -> None:
        """Write the state atomically if an output path was given."""
        if self.path is not None:
            save_state(self.path, self.to_dict(seconds))

    @classmethod
    def from_dict(cls, data: dict[str, Any], settings: SearchSettings, catalog: Catalog) -> "SearchState":
        """Rebuild a state saved by :meth:`to_dict` (after :func:`~.store.check_resume`)."""
        catalog.minima = [NetworkMinimum.from_dict(m) for m in data["minima"]]
        catalog.transition_states = [TransitionState.from_dict(t) for t in data["transition_states"]]
        eff = Effort.from_dict(data["effort"])
        st = cls(data["landscape"], settings, catalog, eff, int(data["starts_done"]),
                 [{"z": np.asarray(w["z"], dtype=np.float64), "energy": w["energy"], "minimum": w["minimum"]}
                  for w in data["walkers"]],
                 set(data["explored"]), {tuple(p) for p in data["tried_pairs"]}, {tuple(p) for p in data["hop_pairs"]},
                 [{"z": np.asarray(s["z"], dtype=np.float64), "mode": np.asarray(s["mode"], dtype=np.float64)}
                  for s in data["saddle_seeds"]],
                 data["phase"], int(data["ts_rounds"]))
        st.seconds_before = float(eff.seconds)
        return st
