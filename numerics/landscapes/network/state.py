"""How hard and how a landscape network is searched: :class:`SearchSettings` (recorded with every result).

JAX-free: the settings are validated (and a saved search's read back) without starting JAX. The store the
search fills is :mod:`.store`; its saved form :mod:`.serial`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable

from contrastive_bounds.numerics.landscapes.network.constants import BASIN_MARGIN, DEFAULT_GRAM_TOL, EIGENVALUE_TOL, \
    GRADIENT_TOL, HESSFREE_THRESHOLD
from contrastive_bounds.theory._domains import check_int, check_real

__all__ = ["SearchSettings", "SearchRandom", "ProgressFn", "DESCENTS", "STRUCTURED_RULES", "PREVIOUS_SINGLE_ENDED_MODES",
           "SCALE_DEFAULTS", "default_curvature", "at_scale"]

#: progress callback of a search: ``(phase, done, total or None, info)``
ProgressFn = Callable[[str, int, "int | None", str], None]


DESCENTS = ("path", "quasi-newton")
STRUCTURED_RULES = ("codes", "families")
#: softest modes followed per minimum by the search without closure when none is given
PREVIOUS_SINGLE_ENDED_MODES = 3


@dataclass(frozen=True)
class SearchSettings:
    """How hard and how the network is searched (all recorded with the result).

    Minima:
      starts: random starts (uniform on the product of spheres), integer >= 1.
      seed: integer >= 0; every random draw is a function of (seed, phase, batch index).
      structured_starts: budget of structured templates (InfoNCE pair states on spherical codes,
        :mod:`.structured`), >= 0 (0: none; ignored for landscapes without positive pairs).
      structured_excess: highest excess level of the templates (sites holding two or more ends), >= 0.
      structured_copies: perturbed starts per distinct template, >= 1 (copy c perturbed 3^c times farther).
      structured_noise: RMS size (radians) of each point's random tangent perturbation of the first copy, > 0.
      hop_batch: walkers (parallel basin-hopping chains) per round, >= 1.
      max_hop_rounds: basin-hopping rounds at most (>= 0). patience: stop hopping after this many
        consecutive rounds without a new minimum (>= 1).
      hop_step: typical RMS size (radians) of the random tangent kick of every point per hop, > 0;
        walker k kicks with ``hop_step·2^((k mod 4) − 1)`` (½, 1, 2 and 4 times hop_step in turn).
      hop_temperature: Metropolis temperature of the walkers (units of V), > 0.

    Transition states and closure:
      closure: True (default): eigenvector following from every minimum along *every* Hessian mode
        off the symmetry modes (both signs), recursively on every new minimum, until a round adds
        nothing ("closed under single-ended exploration"); False: the previous search (the
        ``single_ended_modes`` softest modes, ``max_ts_rounds`` rounds; never "complete").
      pair_distance: double-ended (band) searches between every pair of minima whose aligned RMS
        distance per point (chord, after the best symmetry element found) is at most this, >= 0.
      neighbours: each minimum is also paired with its nearest minima for the band, >= 0; a non-global
        minimum not connected to a lower one is paired with its max(1, neighbours) nearest lower ones.
      single_ended_modes: softest modes followed per minimum when ``closure`` is False, >= 0 (None: the previous
        search's 3). Under ``closure`` (which follows every mode) it is not used and is recorded as None (JSON
        ``null``) whatever was given, so a result never suggests it limited the search.
      max_ts_rounds: transition-state rounds at most (>= 1): a closure that needs more is reported
        as not reached.
      max_minima: budget: exploration stops (closure not reached) once more minima than this are known.
      max_searches: budget: single-ended plus band searches at most.
      descent: how a saddle is connected: ``"path"`` (steepest-descent path by an error-controlled
        integrator, then Newton, :mod:`.descent`) or ``"quasi-newton"`` (L-BFGS from ``z_TS ± 0.02 v``,
        the previous search's way: it can jump basins).
      images: band images (>= 5). neb_iterations: band iterations (>= 100).
      gradient_tol: acceptance bound on ``|grad V|_2`` for minima and transition states, > 0.
      eigenvalue_tol: relative zero band of Hessian eigenvalues, > 0.
      gram_tol: tolerance of Gram entries (coordinates without O(d)) for equal critical points, > 0.
      chunk: largest vmapped batch, >= 8 (8 is fastest on CPU; larger on accelerators).

    At scale (:meth:`at_scale`; chosen by the command line above ``N·d = HESSFREE_THRESHOLD``):
      structured_rule: ``"codes"`` (the cluster templates on spherical codes, enumerated or sampled per cell,
        :mod:`.structured`) or ``"families"`` (template families on one base code — the regular simplex or the
        cross-polytope — enumerated up to symmetry per level and placed by a seeded draw, with the closed-form
        global minimum where one is known, :mod:`.families`).
      trap_modes: 0 (default): every Hessian mode of an explored minimum is followed (the closure); k >= 1:
        the k softest modes only (both signs), and the per-trap closure is reported as partial where k is below the
        minimum's modes (a k that cuts none follows every mode and the pairs, as 0).
      max_explored: 0 (default): every minimum is explored; k >= 1: at most k minima (non-global ones first,
        lowest energy first), and closure is reported as not reached while any is left.
      symmetric_modes: follow the modes of a minimum with a nontrivial stabiliser modulo that stabiliser
        (:mod:`.symmetric_modes`: the Ritz vectors of one invariant Krylov space per orbit representative, exact up
        to symmetry by equivariance) whenever that needs fewer searches than every mode; the per-trap closure is
        then stated "modulo symmetry" with the group's evidence. False (default; the dense small-size reference
        and its stored networks): plain following. A reduction that does not apply falls back to plain following.
      basin_margin: None (default: every eigenvector-following search runs to its end) or a margin >= 0 in units of
        ``V``: a Hessian-free search from a minimum ``m`` stops once ``V`` falls below ``V(m) − basin_margin``. It has
        then left the basin of ``m`` (every point of the basin lies at or above ``V(m)``) and could end at a
        transition state of ``m`` only by climbing back; such searches ran to ``max_iter`` or to saddles far below
        ``m`` and cost most of a trap's following (docs/landscape-networks.md, "Searches at scale"). Counted in
        the effort (``below_floor``); the dense refiner ignores it.
      multiplicities: compute each critical point's multiplicity (exact group orders from bliss's automorphism
        generators, :mod:`.automorphisms`: milliseconds, ~0.2 s at N = 64); False records None (JSON ``null``) and
        the result says "multiplicity not computed".
    """

    starts: int = 64
    seed: int = 0
    structured_starts: int = 4000
    structured_excess: int = 2
    structured_copies: int = 3
    structured_noise: float = 0.005
    hop_batch: int = 16
    max_hop_rounds: int = 30
    patience: int = 4
    hop_step: float = 0.5
    hop_temperature: float = 1.0
    closure: bool = True
    pair_distance: float = 0.75
    neighbours: int = 1
    single_ended_modes: int | None = None
    max_ts_rounds: int = 60
    max_minima: int = 400
    max_searches: int = 40000
    descent: str = "path"
    images: int = 16
    neb_iterations: int = 1500
    gradient_tol: float = GRADIENT_TOL
    eigenvalue_tol: float = EIGENVALUE_TOL
    gram_tol: float = DEFAULT_GRAM_TOL
    chunk: int = 8
    structured_rule: str = "codes"
    trap_modes: int = 0
    max_explored: int = 0
    multiplicities: bool = True
    symmetric_modes: bool = False
    basin_margin: float | None = None

    def __post_init__(self) -> None:
        ints = {"starts": 1, "seed": 0, "structured_starts": 0, "structured_excess": 0, "structured_copies": 1,
                "hop_batch": 1, "max_hop_rounds": 0, "patience": 1, "neighbours": 0,
                "max_ts_rounds": 1, "max_minima": 1, "max_searches": 0, "images": 5, "neb_iterations": 100, "chunk": 8,
                "trap_modes": 0, "max_explored": 0}
        for name, lo in ints.items():
            check_int(name, getattr(self, name), lo, None)
        if self.single_ended_modes is not None:
            check_int("single_ended_modes", self.single_ended_modes, 0, None)
        for name in ("hop_step", "hop_temperature", "gradient_tol", "eigenvalue_tol", "gram_tol", "structured_noise"):
            check_real(name, getattr(self, name), 0.0, math.inf)
        check_real("pair_distance", self.pair_distance, 0.0, 2.0, lo_closed=True, hi_closed=True)
        if self.basin_margin is not None:
            check_real("basin_margin", self.basin_margin, 0.0, math.inf, lo_closed=True)
        for name in ("closure", "multiplicities", "symmetric_modes"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r} must be True or False")
        if self.structured_rule not in STRUCTURED_RULES:
            raise ValueError(f"structured_rule={self.structured_rule!r} must be one of {STRUCTURED_RULES}")
        if self.descent not in DESCENTS:
            raise ValueError(f"descent={self.descent!r} must be one of {DESCENTS}")
        # closure follows every mode: the softest-mode count is not used, and recorded as such (None)
        modes = None if self.closure else (PREVIOUS_SINGLE_ENDED_MODES if self.single_ended_modes is None
                                           else self.single_ended_modes)
        object.__setattr__(self, "single_ended_modes", modes)

    @classmethod
    def previous(cls, **overrides: Any) -> "SearchSettings":
        """The search before closure (random starts, hops, 3 softest modes, 6 rounds, L-BFGS descents,
        chunk 64): kept to compare against (benchmarks/landscape.py) and to show what it missed."""
        base = dict(structured_starts=0, closure=False, descent="quasi-newton", max_ts_rounds=6, neighbours=3,
                    pair_distance=0.0, chunk=64)
        return cls(**{**base, **overrides})

    @classmethod
    def at_scale(cls, **overrides: Any) -> "SearchSettings":
        """The budgeted search for ``N·d`` in the thousands (:data:`SCALE_DEFAULTS`; docs/landscape-networks.md,
        "Searches at scale"): a few random starts, the template families with the closed-form minimum, two
        hop rounds, then the ``trap_modes`` softest modes of at most ``max_explored`` minima (non-global first),
        no bands; the result says what this covered and never calls it closed."""
        return cls(**{**SCALE_DEFAULTS, **overrides})

    @classmethod
    def for_size(cls, num_points: int, dim: int, **overrides: Any) -> "SearchSettings":
        """The default settings for ``N`` points on ``S^{d−1}``: :meth:`at_scale` when ``N·d > HESSFREE_THRESHOLD``
        (:func:`at_scale`), else the defaults; ``overrides`` replace single fields."""
        return cls.at_scale(**overrides) if at_scale(num_points, dim) else cls(**overrides)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    def updated(self, **overrides: Any) -> "SearchSettings":
        """These settings with single fields replaced.

        Raises:
          ValueError: an unknown setting (the message lists the settings), or a value out of range (named).
        """
        unknown = sorted(set(overrides) - set(self.to_dict()))
        if unknown:
            raise ValueError(f"unknown search setting(s) {unknown}; settings are {sorted(self.to_dict())}")
        return SearchSettings(**{**self.to_dict(), **overrides}) if overrides else self

    def stop_rule(self) -> str:
        """The stopping rule in words."""
        minima = (f"minima: {self.starts} random starts"
                  + ((f", up to {self.structured_starts} structured templates (pair states on spherical codes, excess "
                      f"<= {self.structured_excess}) x {self.structured_copies}" if self.structured_rule == "codes" else
                      f", the closed-form minimum where known and up to {self.structured_starts} templates of the "
                      f"families (merged and split pairs on one base code, levels <= {self.structured_excess}, seeded "
                      f"placements) x {self.structured_copies}") if self.structured_starts else "")
                  + (", no basin hopping (max_hop_rounds = 0)" if self.max_hop_rounds == 0 else
                     f", then basin hopping ({self.hop_batch} walkers per round) until "
                     + ("a round finds" if self.patience == 1 else f"{self.patience} consecutive rounds find")
                     + f" no new minimum or {_count(self.max_hop_rounds, 'round', 'rounds')}"))
        if self.closure and (self.trap_modes or self.max_explored):
            ts = ("transition states (per-trap exploration): eigenvector following from "
                  + (f"at most {_count(self.max_explored, 'minimum', 'minima')} (non-global ones first, lowest first)"
                     if self.max_explored
                     else "every minimum")
                  + " along " + ((f"its {self.trap_modes} softest Hessian modes" if self.max_explored == 1 else
                                  f"each one's {self.trap_modes} softest Hessian modes") if self.trap_modes
                                 else "every Hessian mode")
                  + (" (every mode modulo the minimum's stabiliser where that takes fewer searches)"
                     if self.symmetric_modes else "")
                  + f" off the symmetry (both signs); saddles connected by {self.descent} descents; budget "
                  f"{_count(self.max_ts_rounds, 'round', 'rounds')}, {_count(self.max_minima, 'minimum', 'minima')}, "
                  f"{_count(self.max_searches, 'search', 'searches')}")
        elif self.closure:
            ts = (f"transition states: eigenvector following from every minimum along every Hessian mode off the "
                  f"symmetry (both signs{'; modulo the stabiliser of a symmetric minimum where that takes fewer searches' if self.symmetric_modes else ''}), repeated on every new minimum until a round adds nothing, and bands between "
                  f"every pair of minima within aligned distance {self.pair_distance:g} (and each minimum's "
                  f"{self.neighbours} nearest); saddles connected by {self.descent} descents; budget {self.max_ts_rounds} "
                  f"rounds, {self.max_minima} minima, {self.max_searches} searches")
        else:
            ts = (f"transition states (no closure): single-ended searches along the {self.single_ended_modes} softest "
                  f"modes (both signs) of every minimum and bands to its {self.neighbours} nearest minima, for "
                  f"{self.max_ts_rounds} rounds at most; {self.descent} descents")
        floor = ("" if self.basin_margin is None else f"; a Hessian-free search from a minimum stops once V falls "
                 f"{self.basin_margin:g} below it (basin_margin: it left that minimum's basin)")
        return minima + "; " + ts + floor


#: the settings :meth:`SearchSettings.at_scale` changes (the rest are the defaults)
SCALE_DEFAULTS: dict[str, Any] = dict(starts=8, structured_starts=24, structured_rule="families", structured_copies=2,
                                      hop_batch=8, max_hop_rounds=2, patience=1, pair_distance=0.0, neighbours=0,
                                      max_ts_rounds=1, trap_modes=8, max_explored=2, basin_margin=BASIN_MARGIN)


def at_scale(num_points: int, dim: int) -> bool:
    """``N·d > HESSFREE_THRESHOLD``: the search runs Hessian-free with the budgeted settings by default."""
    return int(num_points) * int(dim) > HESSFREE_THRESHOLD


def default_curvature(num_points: int, dim: int) -> str:
    """The provider a search of ``N = num_points`` points on ``S^{dim−1}`` uses by default: ``"dense"`` for
    ``N·d <= HESSFREE_THRESHOLD`` (the small-size reference), else ``"hessfree"``."""
    return "hessfree" if at_scale(num_points, dim) else "dense"


def _count(k: int, one: str, many: str) -> str:
    return f"{k} {one if k == 1 else many}"


@dataclass(frozen=True)
class SearchRandom:
    """The search's random draws: every one is a function of ``(seed, stream, index)`` — stream 0 random
    starts (index: the batch), 1 basin hopping (index: the round); the structured starts draw from
    ``(seed, 2)`` and ``(seed, 3, copy)`` (:mod:`.structured`), the band's alignment from ``seed`` — so a resumed
    search draws exactly what an uninterrupted one does."""

    seed: int

    def generator(self, stream: int, index: int) -> Any:
        """``numpy.random.default_rng([seed, stream, index])``."""
        import numpy as np

        return np.random.default_rng([self.seed, stream, index])
