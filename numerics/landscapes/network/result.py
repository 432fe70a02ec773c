"""The result of a search: :class:`NetworkResult` (H*, status, records, effort; JSON via ``to_dict``).

:func:`network_result` builds it from a store (:class:`~.store.NetworkStore`) — a search just run
(:func:`~.search.landscape_network`) or one read back (:meth:`~.saved.SavedSearch.result`) — with the
one status rule (:func:`~.status.network_status`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contrastive_bounds.numerics.landscapes.network.closure import count_text
from contrastive_bounds.numerics.landscapes.network.graph import NetworkAnalysis, analyse_network
from contrastive_bounds.numerics.landscapes.network.records import Effort, NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.status import network_status
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

__all__ = ["NetworkResult", "network_result", "MINIMA_ONLY"]

#: status of a search run with ``transition_states=False``
MINIMA_ONLY = "minima only (no transition-state search)"


@dataclass
class NetworkResult:
    """A landscape's transition network and what it says (JSON via :meth:`to_dict`).

    Attributes:
      landscape: the spec's fingerprint and description. settings: the :class:`~.state.SearchSettings` used.
      minima: distinct minima (ids are node ids). transition_states: verified transition states.
      unverified: rejected saddle candidates with their reasons (never used for H*).
      analysis: :class:`~.graph.NetworkAnalysis` (H*, barriers, global minima, D, cross-check).
      effort: :class:`~.records.Effort` (with ``closed`` and ``closure``, the closure in words).
      status: ``"complete"``, ``"barrier-free within this search"`` or ``"open: ..."`` (:mod:`.status`; a
        search stopped by Ctrl-C returns no result: it is saved and resumed).
      disconnectivity_png: path of the PNG, or None. notes: degeneracies, the radius, analysis warnings.
      found_by: how many minima and verified transition states each source found (from the event log).
      curvature: the curvature provider the search ran with (:mod:`.curvature`).
      exploration: which minima were explored and how far (:func:`exploration_summary`): per explored minimum the
        modes followed of those off the symmetry and whether it is per-trap closed; the minima not explored; what
        H* is a value over. closed_form: the closed-form global minimum where one is known
        (:func:`~.families.closed_form_minimum`) and how the search's minima compare with it, else None.
      agreement: filled by :func:`~.agreement.seed_agreement` when two seeds are compared (else None).
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
    found_by: dict[str, dict[str, int]] = field(default_factory=dict)
    curvature: str = "dense"
    exploration: dict[str, Any] = field(default_factory=dict)
    closed_form: dict[str, Any] | None = None
    agreement: dict[str, Any] | None = None

    @property
    def critical_height(self) -> float:
        """H* of the network (see :attr:`status` for its completeness)."""
        return self.analysis.critical_height

    @property
    def critical_height_note(self) -> str:
        """Why H* was not computed ("" when it was: over at least one connected non-global minimum, or with none)."""
        nonglobal = [m.id for m in self.minima if m.id not in self.global_minima]
        if nonglobal and all(i in self.analysis.unconnected for i in nonglobal):
            return (f"not computed: none of the {len(nonglobal)} non-global minima found has a verified path to a "
                    "lower one" if len(nonglobal) > 1 else
                    "not computed: the non-global minimum found has no verified path to a lower one")
        return ""

    @property
    def critical_height_known(self) -> float | None:
        """H* where the network computes it, None where it does not (:attr:`critical_height_note`): the JSON value.
        :attr:`critical_height` keeps the network's fold (0.0 over an empty set of connected minima)."""
        return None if self.critical_height_note else self.critical_height

    @property
    def catoni_difficulty(self) -> float | None:
        """Catoni's D of the network (None where it is undefined: ``analysis.catoni_note`` says why)."""
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
        return {k: dict(v) for k, v in self.found_by.items()}

    @property
    def global_minima(self) -> list[int]:
        """Ids of the global minima."""
        return self.analysis.global_minima

    def effort_text(self) -> str:
        """The search effort in one line."""
        e = self.effort
        return (f"{e.starts} random and {e.structured_starts} structured starts, "
                f"{count_text(e.hop_rounds, 'hop round', 'hop rounds')} ({count_text(e.hops, 'hop', 'hops')}), "
                f"{e.single_ended} single-ended and {count_text(e.neb_runs, 'band search', 'band searches')}, "
                f"{count_text(e.refinements, 'refinement', 'refinements')}"
                + (f" ({e.below_floor} stopped on leaving the basin they started from)" if e.below_floor else "")
                + f", {count_text(e.descents, 'descent', 'descents')}, "
                f"{count_text(e.closure_rounds, 'round', 'rounds')}; transition states: {e.verified_ts} verified, "
                f"{e.unverified_ts} rejected; "
                f"{e.seconds:.1f} s")

    def to_dict(self, *, coordinates: bool = False) -> dict[str, Any]:
        """JSON-ready dict (no inf/NaN); coordinates of critical points only if asked."""
        return {
            "landscape": self.landscape, "settings": self.settings, "status": self.status,
            "critical_height": self.critical_height_known, "critical_height_complete": self.complete,
            "critical_height_note": self.critical_height_note,
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
            "disconnectivity_png": self.disconnectivity_png, "notes": self.notes, "curvature": self.curvature,
            "exploration": self.exploration, "closed_form": self.closed_form, "agreement": self.agreement,
        }


def network_result(store: NetworkStore, landscape: dict[str, Any], *, seconds: float = 0.0, radius: float = 1.0,
                   with_ts: bool = True, png: str | None = None) -> NetworkResult:
    """The :class:`NetworkResult` of ``store`` (``landscape``: the spec's ``to_dict()``; ``seconds``: this run's
    wall time, added to the earlier runs'; ``png``: the disconnectivity graph's path, if drawn)."""
    analysis = analyse_network(store.minima, store.transition_states)
    effort = store.effort(seconds)
    effort.seconds = round(effort.seconds, 3)
    notes = []
    degenerate = [m.id for m in store.minima if not m.verified]
    if degenerate:
        notes.append(f"minima {degenerate} have zero modes beyond the symmetry (degenerate); kept in the network")
    flat = [t.label for t in store.verified_ts() if t.degenerate]
    if flat:
        notes.append(f"transition states {flat} have zero modes beyond the symmetry (degenerate saddles on a manifold "
                     "of critical points); used for H* like the others, no Eyring-Kramers prefactor there")
    if radius != 1.0:
        notes.append(f"sphere radius {radius:g}: energies are those of the radius-R landscape; Hessian eigenvalues "
                     f"are in the unit-sphere metric (divide by R² = {radius ** 2:g} for the radius-R metric)")
    if not store.settings.multiplicities:
        notes.append("multiplicity not computed (multiplicities=False); recorded as null")
    exploration = exploration_summary(store, analysis)
    closed_form = closed_form_check(landscape, store)
    if closed_form is not None:
        notes.append(closed_form["text"])
    status = MINIMA_ONLY if not with_ts else network_status(
        analysis, store.minima, closed=effort.closed, closure_attempted=store.settings.closure,
        stopped=effort.stopped_by.get("transition_states", ""), phase=store.phase)
    return NetworkResult(dict(landscape), store.settings.to_dict(), list(store.minima), store.verified_ts(),
                         store.unverified_ts(), analysis, effort, status, png, notes + analysis.warnings,
                         store.found_by_counts(), store.curvature, exploration, closed_form)


def exploration_summary(store: NetworkStore, analysis: NetworkAnalysis) -> dict[str, Any]:
    """What the transition-state search covered (JSON-ready): ``explored`` — per explored minimum its id, the modes
    followed (``-1``: every mode, not recorded), the modes off the symmetry, the searches, how they ended
    (``ended_at_verified_saddle``, ``joined`` to this minimum, ``stalled_directions`` none of whose searches ended at
    a verified saddle; None: not recorded by an older search), ``per_trap_closed`` (:func:`~.closure.trap_closed`) and
    its barrier (None: global, or no path to a lower minimum), and, where the symmetry reduction was tried,
    ``modulo_symmetry`` (``representatives``: orbit representatives, 0 when refused; ``directions`` followed;
    ``stabilizer``: the group's evidence or the refusal's reason); ``unexplored`` — ids never followed; ``per_trap``
    — the same in words; ``critical_height_over`` — what H* is a maximum over."""
    from contrastive_bounds.numerics.landscapes.network.closure import per_trap_text, trap_closed

    rows = []
    for i in sorted(store.tally.followed):
        k, of, dirs = store.tally.followed[i]
        ended, joined, stalled = (None if v < 0 else int(v) for v in store.tally.outcomes.get(i, (-1, -1, -1)))
        row = {"minimum": int(i), "modes": int(k), "of": int(of), "searches": int(dirs),
               "ended_at_verified_saddle": ended, "joined": joined, "stalled_directions": stalled,
               "per_trap_closed": trap_closed(store, i), "barrier": analysis.barriers.get(i, {}).get("barrier")}
        reps, evidence = store.tally.modulo_symmetry.get(i, (0, ""))
        if evidence:  # covered modulo the stabiliser (representatives > 0), or the reduction's refusal
            row["modulo_symmetry"] = {"representatives": int(reps), "directions": int(dirs) // 2, "stabilizer": evidence}
        rows.append(row)
    unexplored = [m.id for m in store.minima if m.id not in store.tally.followed]
    connected = [m.id for m in store.minima if m.id not in analysis.global_minima and m.id not in analysis.unconnected]
    over = (f"H* is the largest barrier over the {count_text(len(connected), 'non-global minimum', 'non-global minima')} "
            f"with a verified path to a lower one (of {count_text(len(store.minima), 'minimum', 'minima')} found, "
            f"{len(rows)} explored)")
    return {"explored": rows, "unexplored": unexplored, "per_trap": per_trap_text(store), "critical_height_over": over}


def closed_form_check(landscape: dict[str, Any], store: NetworkStore) -> dict[str, Any] | None:
    """The closed-form global minimum (:func:`~.families.closed_form_minimum`) against the minima found: ``energy``,
    ``rule``, ``found`` (a minimum within ``1e-9·max(1, |V*|)`` of it: its id, else None), ``below`` (ids of minima
    below it by more than that: a contradiction of the proof, reported), ``text``. None where no closed form is known."""
    from contrastive_bounds.numerics.landscapes.network.families import closed_form_minimum

    cf = closed_form_minimum(landscape)
    if cf is None:
        return None
    tol = 1e-9 * max(1.0, abs(cf["energy"]))
    found = next((m.id for m in store.minima if abs(m.energy - cf["energy"]) <= tol), None)
    below = [m.id for m in store.minima if m.energy < cf["energy"] - tol]
    if below:
        text = (f"closed-form global minimum V* = {cf['energy']:.12g} ({cf['rule']}): minima {below} lie below it, "
                "which the closed form's proof excludes (a numerical or modelling fault)")
    elif found is not None:
        text = (f"closed-form global minimum V* = {cf['energy']:.12g} ({cf['rule']}) found as m{found} "
                f"(|V - V*| = {abs(store.minima[found].energy - cf['energy']):.1e})")
    else:
        text = f"closed-form global minimum V* = {cf['energy']:.12g} ({cf['rule']}) not among the minima found"
    return {**cf, "found": found, "below": below, "text": text}
