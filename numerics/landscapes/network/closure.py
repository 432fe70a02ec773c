"""Transition-state rounds and network closure: which steps run, in which order, until when (A9).

With ``closure=True`` (the default) every round

1. follows, from every minimum not yet explored, *every* Hessian mode off the symmetry modes in both
   directions (:func:`~.following.follow_modes`, in blocks of about ``SEARCHES_PER_BLOCK`` searches);
2. runs climbing-image bands between the pairs of :func:`~.bands.pending_pairs` (:func:`~.bands.band_batch`,
   ``chunk`` pairs a batch);
3. refines the saddle candidates minimisations stopped on (:func:`~.connect.connect_candidates`);

every saddle found is verified and connected by its descents (:mod:`.connect`), and the rounds recurse on
the minima each round adds. The network is *closed under single-ended exploration* when a round finds
nothing left to do: every minimum followed along every mode, every saddle descended on both sides, every
pair within the distance given to the band. The budget (``max_ts_rounds`` rounds, ``max_minima`` minima,
``max_searches`` single-ended plus band searches) can end the rounds first; the result then says plainly
that closure was not reached and what ran out.

With ``closure=False`` the previous search runs instead: the ``single_ended_modes`` softest modes of each
minimum and bands to its ``neighbours`` nearest, for at most ``max_ts_rounds`` rounds (its result is
never called complete). After every step ``checkpoint`` is called (the search saves and reports progress).

At scale two settings bound the closure and are reported: ``max_explored`` (at most that many minima are
explored, non-global ones first, lowest first: :func:`explore_order`) and ``trap_modes`` (the softest modes of
each explored minimum only). A minimum followed along every one of its ``N·(d−1) − orbit_dim`` modes is
*per-trap closed* (its barrier has the standard of a closed small network's, as far as single-ended
exploration from it goes); fewer is *partial* (:func:`per_trap_text`); either bound keeps the network open. How
each minimum's searches ended (at a verified saddle, joined to it, directions with none) is stated beside it. With
``symmetric_modes`` a symmetric minimum is followed along one start per direction whose stabiliser images span its
modes (:mod:`.symmetric_modes`): eigenvector following is not equivariant inside a degenerate eigenspace (equivalent
starts reach different saddles), so that is a smaller sample than plain following, stated as "sampled modulo
symmetry, not per-trap closed" with the group's evidence (:func:`sampled_traps`), and it keeps the network open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from contrastive_bounds.numerics.landscapes.network.bands import band_batch, pending_pairs
from contrastive_bounds.numerics.landscapes.network.connect import connect_candidates
from contrastive_bounds.numerics.landscapes.network.constants import SEARCHES_PER_BLOCK
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.events import ClosureReached, Followed, PhaseEnded, RoundEnded
from contrastive_bounds.numerics.landscapes.network.following import follow_modes
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec

__all__ = ["run_transition_states", "budget_left", "count_text", "explore_order", "partial_traps", "per_trap_text",
           "sampled_traps", "trap_closed"]

Checkpoint = Callable[[str], None]


def count_text(k: int, one: str, many: str) -> str:
    """``"1 round"``, ``"2 rounds"``."""
    return f"{k} {one if k == 1 else many}"


def budget_left(settings: SearchSettings, store: NetworkStore) -> str:
    """Empty while the budget lasts, else what ran out (in words)."""
    s, c = settings, store.tally.counts
    if len(store.minima) > s.max_minima:
        return f"the budget of {s.max_minima} minima ran out ({len(store.minima)} found)"
    if c["single_ended"] + c["neb_runs"] >= s.max_searches:
        return f"the budget of {s.max_searches} single-ended and band searches ran out"
    return ""


def explore_order(store: NetworkStore, todo: list[int]) -> list[int]:
    """The order minima are explored in under ``max_explored``: non-global minima first (their barriers are H*'s
    candidates), lowest energy first, then the global ones."""
    vmin = float(min(m.energy for m in store.minima))
    scale = max(1.0, abs(vmin))
    return sorted(todo, key=lambda i: (store.minima[i].energy - vmin <= 1e-8 * scale, store.minima[i].energy, i))


def trap_closed(store: NetworkStore, i: int) -> bool:
    """Minimum ``i`` is per-trap closed: followed plainly along all of its modes, both signs — the standard of
    single-ended closure, every mode *attempted*. Searches that did not end at a verified saddle are counted and
    stated (:func:`per_trap_text`), not held against it (a direction can have no saddle at all: on S² a height
    function has none). A minimum followed modulo its stabiliser is never per-trap closed (:func:`sampled_traps`).
    A log before state version 4 (``-1``: every mode of a closure search) is judged by its searches."""
    k, of, dirs = store.tally.followed[i]
    if store.tally.modulo_symmetry.get(i, (0, ""))[0] > 0:
        return False
    if k < 0 or of < 0:
        return bool(store.settings.closure and dirs > 0)
    return k >= of and not _cut(store, i)


def _cut(store: NetworkStore, i: int) -> int:
    """Searches of minimum ``i``'s directions that ``max_searches`` left out (0: none, or not recorded)."""
    return max(0, store.tally.planned.get(i, -1) - store.tally.followed[i][2])


def partial_traps(store: NetworkStore) -> list[int]:
    """Explored minima followed along fewer than all of their modes (per-trap closure not reached)."""
    return sorted(i for i, (k, of, _) in store.tally.followed.items() if k >= 0 and of >= 0 and
                  (k < of or _cut(store, i)))


def sampled_traps(store: NetworkStore) -> list[int]:
    """Explored minima followed modulo their stabiliser (``symmetric_modes``): one start per direction whose
    stabiliser images span the modes. The refiners are not equivariant inside a degenerate eigenspace (equivalent
    starts reach different saddles: :mod:`.symmetric_modes`), so that is a smaller sample of starts than plain
    following, not per-trap closure, and it keeps the network open."""
    return sorted(i for i, (reps, _) in store.tally.modulo_symmetry.items() if reps > 0)


def _ended_text(store: NetworkStore, i: int, dirs: int, modes: int | None = None) -> str:
    """``"26 searches: 14 ended at a verified saddle, 12 joined to m3, 2 of 13 directions with none"``; where the
    directions outnumber the ``modes`` followed, what the others are (pair combinations inside degenerate
    eigenspaces: ``"36 searches along 18 directions (the 9 modes and 9 pair combinations inside their degenerate
    eigenspaces): …"``)."""
    ended, joined, stalled = store.tally.outcomes.get(i, (-1, -1, -1))
    text = count_text(dirs, "search", "searches")
    if modes is not None and 0 < modes < dirs // 2:
        text += (f" along {dirs // 2} directions (the {count_text(modes, 'mode', 'modes')} and {dirs // 2 - modes} "
                 "pair combinations inside their degenerate eigenspaces)")
    if ended < 0:
        return text
    text += f": {ended} ended at a verified saddle, {joined} joined to m{i}"
    if stalled:
        text += f", {stalled} of {count_text(dirs // 2, 'direction', 'directions')} with none"
    return text


def per_trap_text(store: NetworkStore) -> str:
    """Which minima were explored and how far, in words: ``m3 along all 9 modes, both signs (18 searches: 12 ended
    at a verified saddle, 12 joined to m3, 2 of 9 directions with none; per-trap closed)``, ``m5 along its 8 softest
    of 1488``; a minimum followed modulo its stabiliser is "sampled modulo symmetry, not per-trap closed (<the
    group's evidence>)" (:func:`sampled_traps`)."""
    parts, sym = [], store.tally.modulo_symmetry
    for i in sorted(store.tally.followed):
        k, of, dirs = store.tally.followed[i]
        plain = not (i in sym and sym[i][0] > 0) and k >= 0 and of >= 0
        searches = _ended_text(store, i, dirs, min(k, of) if plain else None)
        if (k < 0 or of < 0) and not (store.settings.closure and dirs > 0):
            parts.append(f"m{i} not followed along its modes ({searches})")
        elif k < 0 or of < 0:  # a log before state version 4: a closure search followed every mode
            parts.append(f"m{i} along every mode ({searches})")
        elif i in sym and sym[i][0] > 0:
            parts.append(f"m{i} along directions whose stabiliser images span its {of} modes, both signs ({searches}; "
                         f"sampled modulo symmetry, not per-trap closed ({sym[i][1]}))")
        elif k >= of and _cut(store, i):
            parts.append(f"m{i} along all {of} modes, both signs, but not their combinations inside degenerate "
                         f"eigenspaces ({searches}; its directions call for {store.tally.planned[i]}: "
                         "max_searches ran out; per-trap closure partial)")
        elif k >= of:
            parts.append(f"m{i} along all {of} modes, both signs ({searches}; per-trap closed)")
        else:
            parts.append(f"m{i} along its {k} softest of {of} modes, both signs ({searches}; "
                         "per-trap closure partial" + (f"; {sym[i][1]}" if i in sym else "") + ")")
    return "; ".join(parts) if parts else "no minimum explored"


def _explore(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, todo: list[int],
             limit: int | None, curvature: Curvature, checkpoint: Checkpoint) -> None:
    k = 0
    while k < len(todo):
        if budget_left(settings, store):
            return
        block, count = [], 0
        while k < len(todo) and (not block or count < SEARCHES_PER_BLOCK):
            block.append(todo[k])
            k += 1
            count += 2 * (settings.trap_modes or max(1, spec.num_points * (spec.dim - 1)))
        used = store.tally.counts["single_ended"] + store.tally.counts["neb_runs"]
        follow_modes(spec, settings, store, rng, block, limit=limit, curvature=curvature,
                     budget=settings.max_searches - used,
                     after_block=lambda: checkpoint(f"{len(store.minima)} minima, {len(store.explored)} explored, "
                                                    f"{store.tally.counts['single_ended']} searches, "
                                                    f"{store.tally.counts['verified_ts']} verified TSs"))
        checkpoint(f"{len(store.minima)} minima, {len(store.explored)} explored, "
                   f"{store.tally.counts['verified_ts']} verified TSs")


def _bands(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, pairs: list[tuple[int, int]],
           curvature: Curvature, checkpoint: Checkpoint) -> None:
    for lo in range(0, len(pairs), settings.chunk):
        if budget_left(settings, store):
            return
        band_batch(spec, settings, store, rng, pairs[lo:lo + settings.chunk], curvature=curvature)
        checkpoint(f"{len(store.minima)} minima, {store.tally.counts['verified_ts']} verified TSs")


def _pending(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, curvature: Curvature,
             checkpoint: Checkpoint) -> None:
    """Refine the candidates minimisations stopped on, grouped by what found them."""
    cands, store.pending = store.pending, []
    for label in sorted({c.found_by for c in cands}):
        connect_candidates(spec, settings, store, rng, [c for c in cands if c.found_by == label], curvature=curvature)
    checkpoint(f"{len(store.minima)} minima, {store.tally.counts['verified_ts']} verified TSs")


def _ended_total(store: NetworkStore) -> str:
    """``", 31 ended at a verified saddle, 22 of 50 directions with none"`` over the minima whose outcomes were
    recorded ("" if none were)."""
    rows = [(store.tally.outcomes[i], store.tally.followed[i][2]) for i in store.tally.followed
            if store.tally.outcomes.get(i, (-1, -1, -1))[0] >= 0]
    if not rows:
        return ""
    ended, stalled, dirs = (sum(o[0] for o, _ in rows), sum(o[2] for o, _ in rows), sum(d // 2 for _, d in rows))
    return f", {ended} ended at a verified saddle, {stalled} of {count_text(dirs, 'direction', 'directions')} with none"


def _closure_text(settings: SearchSettings, store: NetworkStore) -> tuple[str, int]:
    s, c, m = settings, store.tally.counts, len(store.minima)
    within = sum(1 for d in store.distances.values() if d <= s.pair_distance)
    each = "the only minimum" if m == 1 else f"each of the {m} minima"
    return (f"closed under single-ended exploration after {count_text(store.ts_rounds, 'round', 'rounds')}: {each} "
            f"followed along every Hessian mode off the symmetry, both signs "
            f"({count_text(c['single_ended'], 'eigenvector-following search', 'eigenvector-following searches')}"
            f"{_ended_total(store)}; "
            f"{c['unconverged']} of the {count_text(c['refinements'], 'refinement', 'refinements')} did not converge"
            f"{_below_text(c)}; "
            f"{count_text(c['unverified_ts'], 'rejected candidate', 'rejected candidates')} kept, each once up to "
            f"symmetry), every saddle found descended "
            f"on both sides ({count_text(c['descents'], 'descent', 'descents')}), and "
            f"{count_text(c['neb_runs'], 'band search', 'band searches')} ({_band_kinds(s, within)}); nothing was "
            "left to explore"), within


def _below_text(c: Any) -> str:
    """The searches stopped below their basin floor, in words (empty when none)."""
    k = c.get("below_floor", 0)
    return f" ({k} of them stopped on leaving the basin of the minimum they started from)" if k else ""


def _band_kinds(s: SearchSettings, within: int) -> str:
    """Which pairs the bands were given (:func:`~.bands.pending_pairs`), in words, naming only the kinds in use."""
    kinds = [f"every pair of minima within aligned distance {s.pair_distance:g}: {count_text(within, 'pair', 'pairs')}"
             if s.pair_distance > 0 else "no distance rule (pair_distance = 0)"]
    if s.neighbours > 0:
        kinds.append(f"each minimum's {count_text(s.neighbours, 'nearest neighbour', 'nearest neighbours')}")
    kinds.append("pairs joined by a basin hop")
    kinds.append("each minimum without a path to a lower one and its nearest lower one")
    return "; ".join(kinds)


def run_transition_states(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom, *,
                          curvature: Curvature = DENSE, checkpoint: Checkpoint = lambda info: None) -> None:
    """Transition-state rounds until closure, the budget, or (``closure=False``) the previous search's end
    (module docstring); logs the outcome (:class:`~.events.ClosureReached`, :class:`~.events.PhaseEnded`)."""
    s = settings
    if store.pending:
        _pending(spec, s, store, rng, curvature, checkpoint)
    while True:
        todo = [m.id for m in store.minima if m.id not in store.explored]
        if not s.closure and s.single_ended_modes == 0:
            store.log(*(Followed(i, 0) for i in todo))
            todo = []
        capped = ""
        if s.max_explored and todo:
            todo = explore_order(store, todo)
            room = max(0, s.max_explored - len(store.explored))
            if room < len(todo):
                capped = (f"the budget of max_explored = {s.max_explored} explored minima was used "
                          f"({len(todo) - room} of {count_text(len(store.minima), 'minimum', 'minima')} left unexplored)")
            todo = todo[:room]
        pairs = pending_pairs(spec, s, store, within=s.closure)
        if s.max_explored:  # a budgeted search: bands only from the minima it explores
            keep = set(store.explored) | set(todo)
            pairs = [p for p in pairs if p[0] in keep or p[1] in keep]
        if not todo and not pairs:
            why = capped
            break
        if store.ts_rounds >= s.max_ts_rounds:
            why = f"the round limit max_ts_rounds = {s.max_ts_rounds} was reached"
            break
        why = budget_left(s, store) if s.closure else ""
        if why:
            break
        _explore(spec, s, store, rng, todo, None if s.closure else s.single_ended_modes, curvature, checkpoint)
        if s.max_explored:  # a budgeted search: bands only for what the exploration left unconnected
            keep = set(store.explored)
            pairs = [p for p in pending_pairs(spec, s, store, within=s.closure) if p[0] in keep or p[1] in keep]
        _bands(spec, s, store, rng, pairs, curvature, checkpoint)
        if store.pending:
            _pending(spec, s, store, rng, curvature, checkpoint)
        store.log(RoundEnded(store.ts_rounds + 1))
        checkpoint(f"round {store.ts_rounds} done")
    rounds = count_text(store.ts_rounds, "round", "rounds")
    unexplored = sum(1 for m in store.minima if m.id not in store.explored)
    if not s.closure:
        text = (f"not attempted (closure=False: the previous search, {s.single_ended_modes} softest modes per minimum, "
                f"{rounds}" + (f"; stopped: {why}" if why else "; nothing pending") + ")")
        store.log(ClosureReached(False, text),
                  PhaseEnded("ts", why or "nothing pending (every minimum explored, every pair tried)"))
    elif why or partial_traps(store) or sampled_traps(store):
        sampled = sampled_traps(store)
        names = ", ".join(f"m{i}" for i in sampled)
        why = why or ("only the softest modes of the explored minima were followed (trap_modes)" if partial_traps(store)
                      else f"{names} followed modulo {'its' if len(sampled) == 1 else 'their'} stabiliser only "
                      "(symmetric_modes: a sample of starts, not every mode)")
        left = (f"{unexplored} of {count_text(len(store.minima), 'minimum', 'minima')} not yet followed along "
                f"{'its' if unexplored == 1 else 'their'} modes" if unexplored else
                ("the only minimum" if len(store.minima) == 1 else f"each of the {len(store.minima)} minima")
                + " followed")
        text = f"not closed: {why} after {rounds}; {left}; per-trap exploration: {per_trap_text(store)}"
        store.log(ClosureReached(False, text), PhaseEnded("ts", text))
    else:
        text, within = _closure_text(s, store)
        store.log(ClosureReached(True, text, within), PhaseEnded("ts", "closed: nothing left to explore"))
    checkpoint("done")
