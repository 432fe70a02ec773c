"""One call from a landscape to its kinetic transition network: :func:`landscape_network` (A9).

``landscape_network(spec)`` searches minima (random starts, structured starts for InfoNCE — pair
states on spherical codes, :mod:`.structured` — and basin hopping), then transition states until the
network is *closed under single-ended exploration* (:mod:`.closure`: eigenvector following along every
Hessian mode off the symmetry from every minimum, both signs, recursively; bands between every pair of
minima within a stated distance; every saddle connected by steepest-descent paths, :mod:`.connect`)
or the budget runs out. It returns a :class:`NetworkResult` with H*, Catoni's D, the global minima,
every minimum with its multiplicity and what found it, every verified transition state, every
rejected saddle candidate with its reason, the closure reached and the effort.

Status: ``"complete"`` only for a closed network in which every non-global minimum is connected to a
lower one; ``"barrier-free within this search"`` only for a closed network with one minimum class;
otherwise ``"open: ..."`` saying why (closure not reached and which budget ran out, closure not
attempted, or minima without a path to a lower one). H* is always the network's value over the minima
found; it is never called complete for less than closure.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contrastive_bounds.numerics.precision import require_x64
from contrastive_bounds.numerics.landscapes.network.catalog import Catalog, flat_path
from contrastive_bounds.numerics.landscapes.network.disconnectivity import draw_disconnectivity
from contrastive_bounds.numerics.landscapes.network.graph import NetworkAnalysis, analyse_network
from contrastive_bounds.numerics.landscapes.network.closure import run_transition_states
from contrastive_bounds.numerics.landscapes.network.phases import clock, run_hops, run_starts, run_structured
from contrastive_bounds.numerics.landscapes.network.records import Effort, NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec
from contrastive_bounds.numerics.landscapes.network.state import ProgressFn, SearchSettings, SearchState
from contrastive_bounds.numerics.landscapes.network.store import (
    STATE_FILE,
    check_resume,
    load_state,
    prepare_folder,
)

__all__ = ["landscape_network", "NetworkResult", "PNG_FILE"]

PNG_FILE = "disconnectivity.png"


@dataclass
class NetworkResult:
    """A landscape's transition network and what it says (JSON via :meth:`to_dict`).

    Attributes:
      landscape: the spec's fingerprint and description. settings: the :class:`SearchSettings` used.
      minima: distinct minima (ids are node ids). transition_states: verified transition states.
      unverified: rejected saddle candidates with their reasons (never used for H*).
      analysis: :class:`~.graph.NetworkAnalysis` (H*, barriers, global minima, D, cross-check).
      effort: :class:`~.records.Effort` (with ``closed`` and ``closure``, the closure in words).
      status: ``"complete"``, ``"barrier-free within this search"`` or ``"open: ..."`` (module
        docstring; a search stopped by Ctrl-C returns no result: it is saved and resumed).
      disconnectivity_png: path of the PNG, or None.
    """

    landscape: dict[str, Any]
    settings: dict[str, Any]
    minima: list[NetworkMinimum]
    transition_states: list[TransitionState]
    unverified: list[TransitionState]
    analysis: NetworkAnalysis
    effort: Effort
    status: str
    disconnectivity_png: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def critical_height(self) -> float:
        """H* of the network (see :attr:`status` for its completeness)."""
        return self.analysis.critical_height

    @property
    def catoni_difficulty(self) -> float:
        """Catoni's D of the network."""
        return self.analysis.catoni_difficulty

    @property
    def closed(self) -> bool:
        """Closed under single-ended exploration (see :attr:`closure`)."""
        return bool(self.effort.closed)

    @property
    def closure(self) -> str:
        """The closure reached, in words (or why it was not)."""
        return self.effort.closure

    @property
    def complete(self) -> bool:
        """Closed, and every non-global minimum connected to a lower one: H* is the closed network's."""
        return self.closed and self.analysis.complete

    def found_by_counts(self) -> dict[str, dict[str, int]]:
        """How many minima and verified transition states each source found."""
        out: dict[str, dict[str, int]] = {"minima": {}, "transition_states": {}}
        for m in self.minima:
            out["minima"][m.found_by] = out["minima"].get(m.found_by, 0) + 1
        for t in self.transition_states:
            out["transition_states"][t.found_by] = out["transition_states"].get(t.found_by, 0) + 1
        return out

    @property
    def global_minima(self) -> list[int]:
        """Ids of the global minima."""
        return self.analysis.global_minima

    def effort_text(self) -> str:
        """The search effort in one line."""
        e = self.effort
        return (f"{e.starts} random and {e.structured_starts} structured starts, {e.hop_rounds} hop rounds ({e.hops} "
                f"hops), {e.single_ended} single-ended and {e.neb_runs} band searches, {e.refinements} refinements, "
                f"{e.descents} descents, {e.closure_rounds} rounds; {e.verified_ts} verified and {e.unverified_ts} "
                f"rejected transition states; {e.seconds:.1f} s")

    def to_dict(self, *, coordinates: bool = False) -> dict[str, Any]:
        """JSON-ready dict (no inf/NaN); coordinates of critical points only if asked."""
        return {
            "landscape": self.landscape, "settings": self.settings, "status": self.status,
            "critical_height": self.critical_height, "critical_height_complete": self.complete,
            "closed": self.closed, "closure": self.closure, "connected": self.analysis.complete,
            "found_by": self.found_by_counts(),
            "catoni_difficulty": self.catoni_difficulty, "v_min": self.analysis.v_min,
            "global_minima": self.global_minima,
            "minima": [m.to_dict(coordinates=coordinates) | {"barrier": self.analysis.barriers.get(m.id, {}).get("barrier"),
                                                            "global": m.id in self.global_minima}
                       for m in self.minima],
            "transition_states": [t.to_dict(coordinates=coordinates) for t in self.transition_states],
            "unverified_saddles": [t.to_dict(coordinates=coordinates) for t in self.unverified],
            "analysis": self.analysis.to_dict(), "effort": self.effort.to_dict(), "effort_text": self.effort_text(),
            "disconnectivity_png": self.disconnectivity_png, "notes": self.notes,
        }


def _status(analysis: NetworkAnalysis, minima: list[NetworkMinimum], effort: Effort, settings: SearchSettings) -> str:
    unconnected = (f"{len(analysis.unconnected)} non-global minimum/minima not connected to a lower one"
                   if analysis.unconnected else "")
    if not effort.closed:
        why = ("closure not attempted (closure=False)" if not settings.closure else
               f"closure not reached ({effort.stopped_by.get('transition_states', 'stopped early')})")
        return "open: " + why + (f"; {unconnected}" if unconnected else "")
    if unconnected:
        return f"open: closed under single-ended exploration, but {unconnected} (their barriers are unknown)"
    if len(minima) == 1:
        if not minima[0].verified:  # a flat or numerically degenerate landscape: nothing can be said of its barriers
            return f"open: the only minimum found is not verified ({minima[0].note or 'degenerate'})"
        return "barrier-free within this search"
    return "complete"


def landscape_network(spec: LandscapeSpec, settings: SearchSettings | None = None, *, out: str | Path | None = None,
                      resume: bool = False, progress: ProgressFn | None = None, draw: bool = True,
                      transition_states: bool = True, **overrides: Any) -> NetworkResult:
    """Search the minima and transition states of ``spec`` and analyse the network (docs/theorems.md A9).

    Args:
      spec: a :class:`~.spec.LandscapeSpec` (:func:`~.spec.infonce_spec`, :func:`~.spec.thomson_spec`,
        :func:`~.spec.landscape_spec`, :func:`~.spec.user_spec`).
      settings: :class:`SearchSettings` (default: the defaults); ``overrides`` replace single fields,
        e.g. ``starts=128, seed=3``.
      out: folder for ``network.json`` (saved atomically after every batch) and the PNG; None keeps
        everything in memory (no PNG).
      resume: continue the search saved in ``out`` (same landscape and settings, else ValueError).
      progress: callback ``(phase, done, total, info)``. draw: write the disconnectivity PNG.
      transition_states: False stops after the minima search (status ``"minima only"``; no H*).

    Returns:
      :class:`NetworkResult`.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
      ValueError: bad settings (named); ``resume`` without ``out`` or with a saved search for another
        landscape/settings; an unwritable ``out``. Without ``resume`` a fresh search replaces whatever
        search ``out`` holds.
      FileNotFoundError: ``resume`` with nothing saved in ``out``.
      KeyboardInterrupt: re-raised after the state is saved (resume continues from it).
    """
    require_x64("float64", what="landscapes.network.search.landscape_network")
    if not isinstance(spec, LandscapeSpec):
        raise ValueError(f"spec={spec!r} must be a LandscapeSpec (infonce_spec, thomson_spec, landscape_spec, user_spec)")
    base = settings or SearchSettings()
    if overrides:
        unknown = sorted(set(overrides) - set(base.to_dict()))
        if unknown:
            raise ValueError(f"unknown search setting(s) {unknown}; settings are {sorted(base.to_dict())}")
        base = SearchSettings(**{**base.to_dict(), **overrides})
    path = None
    if out is not None:
        path = prepare_folder(out) / STATE_FILE
    elif resume:
        raise ValueError("resume=True needs out=FOLDER (the folder of the saved search)")
    fingerprint = spec.fingerprint()
    catalog = Catalog(spec.symmetry, gram_tol=base.gram_tol, flat=lambda a, b, e: flat_path(spec, a, b, e))
    if resume:
        saved = load_state(path)
        check_resume(saved, fingerprint, base.to_dict())
        state = SearchState.from_dict(saved, base, catalog)
    else:  # a fresh search: its first save replaces any search saved in ``out``
        state = SearchState(fingerprint, base, catalog)
        state.effort.stop_rule = base.stop_rule()
    state.path, state.spec, state.progress = path, spec, progress
    elapsed = clock()
    try:
        if state.phase == "starts":
            run_starts(state, elapsed)
        if state.phase == "structured":
            run_structured(state, elapsed)
        if state.phase == "hops":
            run_hops(state, elapsed)
        if state.phase == "ts" and transition_states:
            run_transition_states(state, elapsed)
    except KeyboardInterrupt:
        state.save(elapsed())
        raise
    state.effort.seconds = state.seconds_before + elapsed()
    return _result(spec, state, out, draw, transition_states)


def _result(spec: LandscapeSpec, state: SearchState, out: str | Path | None, draw: bool, with_ts: bool) -> NetworkResult:
    cat = state.catalog
    analysis = analyse_network(cat.minima, cat.transition_states)
    png = None
    notes = []
    if draw and out is not None:
        head = textwrap.shorten(spec.description, width=90, placeholder=" ...")
        closed = "closed under single-ended exploration" if state.effort.closed else "NOT closed"
        title = "\n".join(textwrap.wrap(head, 80)) + f"\nH* = {analysis.critical_height:.6g} ({closed}" + (
            "" if analysis.complete else "; minima without a path to a lower one") + ")"
        bars = {i: b["barrier"] for i, b in analysis.barriers.items()}
        png = str(draw_disconnectivity(cat.minima, cat.verified_ts(), Path(out) / PNG_FILE, title=title, barriers=bars))
    degenerate = [m.id for m in cat.minima if not m.verified]
    if degenerate:
        notes.append(f"minima {degenerate} have zero modes beyond the symmetry (degenerate); kept in the network")
    flat = [t.label for t in cat.verified_ts() if t.degenerate]
    if flat:
        notes.append(f"transition states {flat} have zero modes beyond the symmetry (degenerate saddles on a manifold "
                     "of critical points); used for H* like the others, no Eyring-Kramers prefactor there")
    if spec.radius != 1.0:
        notes.append(f"sphere radius {spec.radius:g}: energies are those of the radius-R landscape; Hessian eigenvalues "
                     f"are in the unit-sphere metric (divide by R² = {spec.radius ** 2:g} for the radius-R metric)")
    state.effort.seconds = round(state.effort.seconds, 3)
    status = _status(analysis, cat.minima, state.effort, state.settings) if with_ts else \
        "minima only (no transition-state search)"
    return NetworkResult(spec.to_dict(), state.settings.to_dict(), list(cat.minima), cat.verified_ts(),
                         cat.unverified_ts(), analysis, state.effort, status, png, notes + analysis.warnings)

