"""One call from a landscape to its kinetic transition network: :func:`landscape_network` (A9).

``landscape_network(spec)`` runs the steps of the search on one store (:class:`~.store.NetworkStore`), a
phase after the other, saving the store after every step:

1. ``"starts"`` — :func:`~.minima.random_start_batch` until ``starts`` random starts are minimised;
2. ``"structured"`` — :func:`~.minima.structured_start_block` over the structured starts (InfoNCE pair
   states on spherical codes, :mod:`.structured`), then :func:`~.minima.start_walkers`;
3. ``"hops"`` — :func:`~.minima.hop_round` until ``patience`` rounds in a row find nothing new (or
   ``max_hop_rounds``);
4. ``"ts"`` — the closure rounds (:func:`~.closure.run_transition_states`): :func:`~.following.follow_modes`,
   :func:`~.bands.band_batch` and :func:`~.connect.connect_candidates`, until the network is *closed under
   single-ended exploration* or the budget runs out.

Each step returns the events it logged (:mod:`.events`); the effort and what found each record are folds
of the log. The result (:class:`~.result.NetworkResult`) gives H*, Catoni's D, the minima with their
multiplicities and sources, every verified transition state, every rejected candidate with its reason,
the closure reached, the effort and the status (:mod:`.status`).
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path
from typing import Any, Callable

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.landscapes.network.closure import run_transition_states
from contrastive_bounds.numerics.landscapes.network.curvature import Curvature, curvature_provider
from contrastive_bounds.numerics.landscapes.network.state import default_curvature
from contrastive_bounds.numerics.landscapes.network.events import PhaseEnded, StructuredPlan
from contrastive_bounds.numerics.landscapes.network.minima import (
    hop_round,
    random_start_batch,
    start_walkers,
    structured_plan,
    structured_start_block,
)
from contrastive_bounds.numerics.landscapes.network.result import NetworkResult, network_result
from contrastive_bounds.numerics.landscapes.network.serial import (
    STATE_FILE,
    check_resume,
    prepare_folder,
    EmptySavedSearch,
    read_state,
    save_store,
)
from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec
from contrastive_bounds.numerics.landscapes.network.state import ProgressFn, SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

__all__ = ["landscape_network", "run_search", "PNG_FILE"]

PNG_FILE = "disconnectivity.png"


def _hops_ended(without_new: int, patience: int, max_rounds: int) -> str:
    """Why basin hopping stopped, in words: ``"1 round without a new minimum (patience 1)"``, ``"3 consecutive
    rounds without ..."``, ``"the round limit max_hop_rounds = 2 was reached"``, or ``"no basin hopping
    (max_hop_rounds = 0)"``."""
    if max_rounds == 0:
        return "no basin hopping (max_hop_rounds = 0)"
    if without_new >= patience:
        rounds = "1 round" if without_new == 1 else f"{without_new} consecutive rounds"
        return f"{rounds} without a new minimum (patience {patience})"
    return f"the round limit max_hop_rounds = {max_rounds} was reached"


def _settings(settings: SearchSettings | None, overrides: dict[str, Any]) -> SearchSettings:
    base = settings or SearchSettings()
    if not isinstance(base, SearchSettings):
        raise ValueError(f"settings={settings!r} must be a SearchSettings")
    return base.updated(**overrides)


def run_search(spec: LandscapeSpec, store: NetworkStore, *, curvature: Curvature, transition_states: bool = True,
               save: Callable[[], None] = lambda: None,
               report: Callable[[str, int, "int | None", str], None] = lambda *a: None) -> None:
    """Run the phases of the search on ``store`` from the phase it is in (module docstring), calling ``save``
    after every step and ``report(phase, done, total, info)`` after each batch."""
    s, rng, t = store.settings, SearchRandom(store.settings.seed), store.tally
    while store.phase == "starts":
        if t.starts_done < s.starts:
            random_start_batch(spec, s, store, rng, curvature=curvature)
            report("starts", t.starts_done, s.starts, f"{len(store.minima)} minima")
        else:
            store.log(PhaseEnded("starts"))
        save()
    if store.phase == "structured":
        starts, info = structured_plan(spec, s)
        if t.structured != info:
            store.log(StructuredPlan(info))
        while t.structured_done < len(starts):
            structured_start_block(spec, s, store, rng, curvature=curvature)
            report("structured starts", t.structured_done, len(starts), f"{len(store.minima)} minima")
            save()
        start_walkers(s, store)
        store.log(PhaseEnded("structured"))
        save()
    if store.phase == "hops":
        c = t.counts
        while c["hop_rounds"] < s.max_hop_rounds and t.rounds_without_new < s.patience and store.walkers:
            hop_round(spec, s, store, rng, curvature=curvature)
            report("hops", c["hop_rounds"], s.max_hop_rounds, f"{len(store.minima)} minima")
            save()
        store.log(PhaseEnded("hops", _hops_ended(t.rounds_without_new, s.patience, s.max_hop_rounds)))
        save()
    if store.phase == "ts" and transition_states:
        def checkpoint(info: str | None) -> None:
            if info is not None:
                report("transition states", store.ts_rounds + 1, s.max_ts_rounds, info)
            save()

        run_transition_states(spec, s, store, rng, curvature=curvature, checkpoint=checkpoint)


def landscape_network(spec: LandscapeSpec, settings: SearchSettings | None = None, *, out: str | Path | None = None,
                      resume: bool = False, progress: ProgressFn | None = None, draw: bool = True,
                      transition_states: bool = True, curvature: "str | Curvature | None" = None,
                      **overrides: Any) -> NetworkResult:
    """Search the minima and transition states of ``spec`` and analyse the network (docs/theorems.md A9).

    Args:
      spec: a :class:`~.spec.LandscapeSpec` (:func:`~.spec.infonce_spec`, :func:`~.spec.thomson_spec`,
        :func:`~.spec.landscape_spec`, :func:`~.spec.user_spec`).
      settings: :class:`~.state.SearchSettings` (default: the defaults); ``overrides`` replace single fields,
        e.g. ``starts=128, seed=3``.
      out: folder for ``network.json`` (saved atomically after every step) and the PNG, created with its missing
        parents; None keeps everything in memory (no PNG). A folder that already holds a saved search is never
        replaced or reused silently: without ``resume`` it is refused (as ``landscape --out`` without ``--resume``).
      resume: continue the search saved in ``out`` (same landscape, settings and curvature, else ValueError);
        a search saved before its first batch finished holds nothing and is started afresh.
      progress: callback ``(phase, done, total, info)``. draw: write the disconnectivity PNG.
      transition_states: False stops after the minima search (status ``"minima only"``; no H*).
      curvature: the curvature provider (:mod:`.curvature`): ``"dense"``, ``"hessfree"`` or a
        :class:`~.curvature.Curvature`; default (None): a resumed search's own, else
        :func:`~.curvature.default_curvature` (dense up to ``N·d = HESSFREE_THRESHOLD``, Hessian-free above).

    Returns:
      :class:`~.result.NetworkResult`.

    Raises:
      X64DisabledError: JAX's x64 mode is off (float64 input, or a computation that is float64 by design).
      ValueError: bad settings (named); ``resume`` without ``out`` or with a saved search for another
        landscape/settings; an unwritable ``out``; an ``out`` that holds a saved search without ``resume``
        (naming ``out`` and ``resume``).
      FileNotFoundError: ``resume`` with nothing saved in ``out``.
      KeyboardInterrupt: re-raised after the store is saved (resume continues from it).
    """
    require_x64("float64", what="contrastive_bounds.numerics.landscapes.network.landscape_network")
    if not isinstance(spec, LandscapeSpec):
        raise ValueError(f"spec={spec!r} must be a LandscapeSpec (infonce_spec, thomson_spec, landscape_spec, user_spec)")
    base = _settings(settings, overrides)
    path = None
    if out is not None:
        path = prepare_folder(out) / STATE_FILE
        if not resume and path.exists():
            raise ValueError(f"out={str(out)!r} already holds a saved search ({STATE_FILE}); pass resume=True to continue "
                             f"it, or give another out (delete {str(path)!r} to start afresh)")
    elif resume:
        raise ValueError("resume=True needs out=FOLDER (the folder of the saved search)")
    landscape = spec.to_dict()
    store = None
    if resume:
        if not path.is_file():
            raise FileNotFoundError(f"no saved search at {str(path)!r} (nothing to resume)")
        try:
            store, _ = read_state(path)
        except EmptySavedSearch:  # stopped before its first batch: nothing found, nothing to lose; start afresh
            store = None
    if curvature is None:  # automatic: the saved search's provider, else by size
        curvature = store.curvature if store is not None else default_curvature(spec.num_points, spec.dim)
    hess = curvature_provider(curvature)
    if store is not None:
        check_resume(store, landscape, base, hess.name)
    else:  # a fresh search (``out`` holds none) or one stopped before its first batch
        store = NetworkStore(landscape, base, curvature=hess.name)
    started = time.perf_counter()

    def elapsed() -> float:
        return time.perf_counter() - started

    def save() -> None:
        if path is not None:
            save_store(path, store, elapsed())

    def report(phase: str, done: int, total: int | None, info: str) -> None:
        if progress is not None:
            progress(phase, done, total, info)

    try:
        run_search(spec, store, curvature=hess, transition_states=transition_states, save=save, report=report)
    except KeyboardInterrupt:
        save()
        raise
    res = network_result(store, landscape, seconds=elapsed(), radius=spec.radius, with_ts=transition_states)
    if draw and out is not None:
        res.disconnectivity_png = _draw(spec, store, res, Path(out))
    return res


def _draw(spec: LandscapeSpec, store: NetworkStore, res: NetworkResult, folder: Path) -> str:
    from contrastive_bounds.numerics.landscapes.network.disconnectivity import draw_disconnectivity

    a = res.analysis
    closed = "closed under single-ended exploration" if res.closed else "NOT closed"
    title = (textwrap.shorten(spec.description, width=200, placeholder=" ...") + f"\nH* = {a.critical_height:.6g} ({closed}"
             + ("" if a.complete else "; minima without a path to a lower one") + ")")
    bars = {i: b["barrier"] for i, b in a.barriers.items()}
    return str(draw_disconnectivity(store.minima, store.verified_ts(), folder / PNG_FILE, title=title, barriers=bars))
