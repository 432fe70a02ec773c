"""The connection step: saddle candidates to verified transition states joined to their two minima (A9).

:func:`connect_candidates` refines candidates (band maxima, eigenvector-following end points, stalled
minimisations) to index-1 saddles by eigenvector following (a candidate that converged to an index-2
saddle is kicked along its second mode by ``MODE_KICK`` and refined once more) and hands them to
:func:`connect`, which keeps each saddle once (up to symmetry), records the unverified ones with their
reasons and connects every verified one — and every *degenerate* one (index 1 off the zero band,
converged, with extra zero modes: a saddle on a manifold of critical points; kept and flagged, as
degenerate minima are, since a downhill path through it is still a path of that height) — to the two
minima it joins:

* ``descent="path"`` (default): the steepest-descent path from ``z_TS ± DESCENT_EPSILON·v`` on each side
  (:func:`~.descent.descend_batch`), its end polished by Newton and checked to stay in the basin the path
  reached (:func:`~.descent.settle`); a path still moving after its step budget (a flat valley, where an
  explicit integrator crawls) is continued by L-BFGS with every point's step capped at ``SLOW_STEP`` — a
  ridge would have to be narrower than that to be jumped — and settled again. A path that runs into a
  lower saddle (a descent inside a symmetric subspace can end on a saddle of index 1 or more exactly: its
  unstable directions leave the subspace) is continued from its end along ± the lowest Hessian mode there,
  at most ``LOWER_SADDLE_CONTINUATIONS`` times; the side is then assigned the lower of the two minima
  reached (every point of these paths lies below the first saddle, so the minimax barriers of the network
  are those of true downhill paths), ``via`` records the energy where the path was continued, and a lower
  saddle that refines to a verified transition state is itself connected. A side whose path fails any
  check leaves the saddle unverified, with the reason.
* ``descent="quasi-newton"``: L-BFGS from ``z_TS ± QUASI_NEWTON_STEP·v`` (the previous search; it can jump basins).

Signature as every step: ``(spec, settings, store, rng, *, curvature, ...) -> events``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.hessfree.operators import riemannian_gradient
from contrastive_bounds.numerics.landscapes.network.catalog import (
    match_transition_state,
    record_minimum,
    same_energy,
    transition_state_record,
)
from contrastive_bounds.numerics.landscapes.network.constants import (
    DESCENT_EPSILON,
    LOWER_SADDLE_CONTINUATIONS,
    LOWER_SADDLE_DEPTH,
    MODE_KICK,
    QUASI_NEWTON_STEP,
    REFINE_MAX_ITERATIONS,
    SLOW_MAX_ITERATIONS,
    SLOW_STEP,
    STRICT_ENERGY_RTOL,
)
from contrastive_bounds.numerics.landscapes.network.curvature import DENSE, Curvature
from contrastive_bounds.numerics.landscapes.network.descent import FLOW_CONVERGED, FLOW_NON_FINITE, FLOW_STALLED, descend_batch, settle
from contrastive_bounds.numerics.landscapes.network.events import Descended, DuplicateCandidate, Event, Minimised, Refined
from contrastive_bounds.numerics.landscapes.network.minima import absorb_minimisations, classify_with
from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
from contrastive_bounds.numerics.landscapes.network.records import Candidate, Side
from contrastive_bounds.numerics.landscapes.network.state import SearchRandom, SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.symmetry import equivalent
from contrastive_bounds.numerics._sphere import retract

if TYPE_CHECKING:
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec

__all__ = ["connect_candidates", "connect", "degenerate_saddle"]


def degenerate_saddle(cp: Any, gradient_tol: float) -> bool:
    """Converged, exactly one eigenvalue below the zero band, and extra zero modes: a transition state on a
    manifold of critical points (kept, flagged ``degenerate``, like degenerate minima)."""
    return cp.index == 1 and cp.zero_modes > 0 and cp.gradient_norm <= gradient_tol and np.isfinite(cp.energy)


def connect_candidates(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, rng: SearchRandom,
                       candidates: Sequence[Candidate], *, curvature: Curvature = DENSE,
                       outcomes: list[int | None] | None = None, floors: Sequence[float] | None = None) -> list[Event]:
    """Refine ``candidates`` to index-1 saddles and connect them (module docstring); every candidate of one
    call has the same ``found_by``. ``outcomes``, when given, is filled with one entry per candidate: the id of
    the verified transition state its refinement ended at (new, or a duplicate of a known one), or None (the
    refinement did not converge, or the saddle was rejected) — how each search ended, for the per-trap
    statements of :func:`~.following.follow_modes`. ``floors`` (one per candidate, units of ``V``): a search is
    stopped once its ``V`` falls below its floor (``SearchSettings.basin_margin``; the provider may ignore it)."""
    first = len(store.events)
    if not candidates:
        return []
    found_by = candidates[0].found_by
    z, modes = np.stack([c.z for c in candidates]), np.stack([c.mode for c in candidates])
    fl = None if floors is None else np.asarray(floors, dtype=np.float64)
    below: list[bool] = [False] * len(z)
    zr = curvature.refine(spec, z, modes, index=1, chunk=settings.chunk, max_iter=REFINE_MAX_ITERATIONS, floors=fl,
                          below=below)
    cps = _classify_new(spec, settings, store, curvature, zr, below)
    high_at = [i for i, cp in enumerate(cps)
               if cp.index >= 2 and cp.gradient_norm <= settings.gradient_tol and len(cp.modes) > 1]
    high = [cps[i] for i in high_at]
    if high:
        zk = retract(np.stack([cp.z for cp in high]), MODE_KICK * np.stack([cp.modes[1] for cp in high]))
        zr2 = curvature.refine(spec, zk, np.stack([cp.modes[0] for cp in high]), index=1, chunk=settings.chunk,
                               max_iter=REFINE_MAX_ITERATIONS,
                               floors=None if fl is None else fl[high_at])
        retried = {id(cp): new for cp, new in zip(high, classify_with(curvature, spec, settings, zr2, 1))}
        cps = [retried.get(id(cp), cp) if retried.get(id(cp), cp).index == 1 else cp for cp in cps]
    unconverged = [not cp.gradient_norm <= settings.gradient_tol for cp in cps]
    # a search stopped below its floor left the basin it started from: not a saddle candidate, nothing to record
    left = [b and u for b, u in zip(below, unconverged)]
    store.log(Refined(found_by, len(z) + len(high), sum(unconverged), sum(left)))
    kept = [k for k in range(len(cps)) if not left[k]]
    ended: list[int | None] = [None] * len(cps)
    for k, t in zip(kept, connect(spec, settings, store, [cps[k] for k in kept], found_by, curvature=curvature)):
        ended[k] = t
    if outcomes is not None:
        outcomes[:] = [t if cp.gradient_norm <= settings.gradient_tol else None for cp, t in zip(cps, ended)]
    return store.since(first)


def _classify_new(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, curvature: Curvature,
                  zr: np.ndarray, below: list[bool]) -> list[Any]:
    """The refined points classified, except two kinds that need no certificate of their own: a converged point
    equal up to symmetry to a known *verified* transition state (its record's certificate holds there: the
    spectrum is invariant under the group; :func:`connect` logs it as that record's duplicate, as it would
    after classifying it) and a search stopped below its floor (never recorded). Both get a
    :class:`_Settled` with ``V`` and ``|grad V|`` from one gradient. On the Hessian-free provider the certificate
    (two Lanczos runs to residuals of 1e-10) cost most of a per-trap following, and most refined points are such
    duplicates."""
    values, norms = _values_gradient_norms(spec, zr)
    cps: list[Any] = [None] * len(zr)
    todo = []
    for k in range(len(zr)):
        v, g = float(values[k]), float(norms[k])
        converged = g <= settings.gradient_tol
        known = match_transition_state(store, spec.symmetry, zr[k], v) if converged else None
        if (known is not None and store.transition_states[known].verified) or (below[k] and not converged):
            cps[k] = _Settled(zr[k], v, g, known)
        else:
            todo.append(k)
    for k, cp in zip(todo, classify_with(curvature, spec, settings, zr[todo], 1) if todo else []):
        cps[k] = cp
    return cps


@dataclasses.dataclass(frozen=True)
class _Settled:
    """A refined point that needs no certificate (:func:`_classify_new`): its ``z``, ``energy`` and
    ``gradient_norm``, the ``known`` verified record it duplicates (None for a stopped search, never recorded), and
    index 1 as that record."""

    z: np.ndarray
    energy: float
    gradient_norm: float
    known: int | None = None
    index: int = 1
    verified: bool = True
    modes: tuple = ()
    reason: str = ""


def _values_gradient_norms(spec: LandscapeSpec, zr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V`` and ``|grad V|_2`` of each of the points ``zr`` ``(k, N, d)``: one vmapped call, the batch padded (by
    repeating its first point) to the next power of two so a following's blocks of varying size compile a few
    shapes only."""
    k = len(zr)
    if k == 0:
        return np.zeros(0), np.zeros(0)
    size = 1 << (k - 1).bit_length()
    batch = np.concatenate([zr, np.broadcast_to(zr[:1], (size - k, *zr.shape[1:]))]) if size > k else zr
    value_grad = spec.compiled(("values-gradient-norms",),
                               lambda: jax.jit(jax.vmap(lambda z: _value_gradient_norm(spec, z))))
    values, norms = value_grad(jnp.asarray(batch))
    return np.asarray(values)[:k], np.asarray(norms)[:k]


def _value_gradient_norm(spec: LandscapeSpec, z: Any) -> tuple[Any, Any]:
    """``(V(z), |grad V(z)|_2)`` with the Riemannian gradient over all ``N·d`` coordinates (what the classifiers
    report)."""
    value, grad = riemannian_gradient(spec.potential, z)
    return value, jnp.linalg.norm(grad)


def _fresh(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, cps: list[Any],
           found_by: str) -> tuple[list[Any], list[tuple[str, int | None]]]:
    """Candidates not yet in the store and not repeated within the batch (duplicates are logged), and where each
    candidate went: ``("known", id)`` (a record of the store), ``("batch", j)`` (the ``j``-th of those returned)."""
    uniq: list[Any] = []
    where: list[tuple[str, int | None]] = []
    for cp in cps:
        # a point settled as a known record's duplicate was matched already (the store has not changed since)
        known = cp.known if isinstance(cp, _Settled) else match_transition_state(store, spec.symmetry, cp.z, cp.energy)
        same = None if known is not None else next(
            (j for j, u in enumerate(uniq) if same_energy(u.energy, cp.energy, STRICT_ENERGY_RTOL)
             and equivalent(u.z, cp.z, spec.symmetry, tol=settings.gram_tol)), None)
        if known is not None or same is not None:
            store.log(DuplicateCandidate(found_by, known))
            where.append(("known", known) if known is not None else ("batch", same))
        else:
            where.append(("batch", len(uniq)))
            uniq.append(cp)
    return uniq, where


def connect(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, cps: list[Any], found_by: str, *,
            curvature: Curvature = DENSE, depth: int = 0) -> list[int | None]:
    """Record each new classified candidate; connect the verified ones by their two descents (module docstring).

    Returns, per candidate of ``cps``, the id of the verified transition state it is (recorded now, or the known
    record it duplicates up to symmetry), or None (rejected, or a duplicate of an unverified record)."""
    uniq, where = _fresh(spec, settings, store, cps, found_by)
    tol = settings.gradient_tol
    ids: list[int | None] = [None] * len(uniq)
    for cp in uniq:
        if not cp.verified and not degenerate_saddle(cp, tol):
            store.reject(transition_state_record(store, spec, cp, [], False, cp.reason), found_by)
    good = [j for j, cp in enumerate(uniq) if cp.verified or degenerate_saddle(cp, tol)]
    if good:
        run = _connect_quasi_newton if settings.descent == "quasi-newton" else _connect_paths
        for j, t in zip(good, run(spec, settings, store, [uniq[j] for j in good], found_by, curvature, depth)):
            ids[j] = t
    return [(t if t is not None and store.transition_states[t].verified else None) if kind == "known" else ids[t]
            for kind, t in where]


def _descend(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, z: np.ndarray, modes: np.ndarray,
             curvature: Curvature) -> list[Side]:
    """Paths from ``z_k ± DESCENT_EPSILON·mode_k``: one :class:`~.records.Side` per start, all ``+`` sides
    first, then all ``−`` sides."""
    s = settings
    starts = np.concatenate([retract(z, sgn * DESCENT_EPSILON * modes) for sgn in (1.0, -1.0)])
    flow = descend_batch(spec, starts, chunk=s.chunk)
    status = np.array(flow.status)
    store.log(Descended(len(starts)))
    kw = dict(eigenvalue_tol=s.eigenvalue_tol, gradient_tol=s.gradient_tol, chunk=s.chunk, curvature=curvature)
    settled = settle(spec, flow.z, **kw)
    slow = [k for k, st in enumerate(settled) if st.reason and int(status[k]) not in (FLOW_CONVERGED, FLOW_NON_FINITE)]
    if slow:  # still moving after max_steps (a flat valley): continue by short-step L-BFGS, then settle again
        more = minimize_batch(spec, flow.z[slow], chunk=s.chunk, max_step=SLOW_STEP, max_iter=SLOW_MAX_ITERATIONS)
        store.log(Minimised("path continuation", len(slow)))
        for k, new in zip(slow, settle(spec, more.z, **kw)):
            if not new.reason:
                settled[k], status[k] = new, FLOW_CONVERGED
    out = []
    for k, st in enumerate(settled):
        reason = st.reason
        if int(status[k]) == FLOW_NON_FINITE:
            reason = "the steepest-descent path met a non-finite value"
        elif int(status[k]) != FLOW_CONVERGED and reason:  # out of steps: accepted only if already inside a basin
            how = "stalled" if int(status[k]) == FLOW_STALLED else "did not settle"
            reason = (f"the steepest-descent path {how} (|grad V| = {float(flow.gradient_norm[k]):.2g} after "
                      f"{int(flow.steps[k])} steps); {reason}")
        out.append(Side(st.point if not reason else None, reason, "path", int(flow.steps[k]),
                        float(flow.path_length[k]), None, st.end, st.point))
    return out


def _near_saddle(end: Any, eigenvalue_tol: float) -> bool:
    band = eigenvalue_tol * max(1.0, float(np.max(np.abs(end.eigenvalues), initial=0.0)))
    return bool(end.eigenvalues.size) and float(end.eigenvalues[0]) < -band


def _continued(first: Side, nxt: Side, via: float) -> Side:
    """``nxt`` continued from the lower saddle at energy ``via`` where ``first`` stopped (steps and lengths summed)."""
    return dataclasses.replace(nxt, via=via, steps=first.steps + nxt.steps, path_length=first.path_length + nxt.path_length)


def _connect_paths(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, good: list[Any], found_by: str,
                   curvature: Curvature, depth: int) -> list[int | None]:
    s = settings
    sides = _descend(spec, s, store, np.stack([cp.z for cp in good]), np.stack([cp.mode for cp in good]), curvature)
    for _ in range(LOWER_SADDLE_CONTINUATIONS):  # sides that ran into a lower saddle: continue along ± its lowest mode
        stuck = [k for k, side in enumerate(sides) if side.minimum is None and _near_saddle(side.end, s.eigenvalue_tol)
                 and side.end.energy < good[k % len(good)].energy]
        if not stuck:
            break
        ends = [sides[k].end for k in stuck]
        lower = [sides[k].polished for k in stuck]
        more = _descend(spec, s, store, np.stack([e.z for e in ends]), np.stack([e.mode for e in ends]), curvature)
        for r, k in enumerate(stuck):
            a, b = more[r], more[r + len(stuck)]
            via = float(ends[r].energy)
            if a.minimum is not None and b.minimum is not None:
                sides[k] = _continued(sides[k], a if a.minimum.energy <= b.minimum.energy else b, via)
            else:
                sides[k] = _continued(sides[k], a if a.minimum is None else b, via)
        lower_ts = [p for p in lower if p is not None and p.index == 1 and p.gradient_norm <= s.gradient_tol]
        if lower_ts and depth < LOWER_SADDLE_DEPTH:
            connect(spec, s, store, lower_ts, found_by, curvature=curvature, depth=depth + 1)
    n = len(good)
    ids: list[int | None] = []
    for k, cp in enumerate(good):
        plus, minus = sides[k], sides[k + n]
        if plus.minimum is None or minus.minimum is None:
            why = "; ".join(f"{name} side: {side.reason}" for name, side in (("+v", plus), ("-v", minus)) if side.reason)
            store.reject(transition_state_record(store, spec, cp, [], False, why or "a descent did not end at a minimum"),
                         found_by)
            ids.append(None)
            continue
        detail = f"descent from the saddle at V = {cp.energy:.10g}"
        a, _ = record_minimum(store, spec, plus.minimum, found_by, detail)
        b, _ = record_minimum(store, spec, minus.minimum, found_by, detail)
        ids.append(_record(spec, store, cp, a, b, found_by, [plus.to_dict(a), minus.to_dict(b)]))
    return ids


def _record(spec: LandscapeSpec, store: NetworkStore, cp: Any, a: int, b: int, found_by: str,
            descents: list[dict]) -> int | None:
    """Add the saddle joined to minima ``a`` and ``b``: verified only when both lie below it (its id; None when
    rejected)."""
    if max(store.minima[a].energy, store.minima[b].energy) >= cp.energy:
        store.reject(transition_state_record(store, spec, cp, [a, b], False,
                                             "a descent ended at a minimum not below the saddle", descents), found_by)
        return None
    return store.add_transition_state(transition_state_record(store, spec, cp, sorted([a, b]), True,
                                                              cp.reason if cp.zero_modes else "", descents,
                                                              degenerate=bool(cp.zero_modes)), found_by)


def _connect_quasi_newton(spec: LandscapeSpec, settings: SearchSettings, store: NetworkStore, good: list[Any], found_by: str,
                          curvature: Curvature, depth: int = 0) -> list[int | None]:
    z, modes = np.stack([cp.z for cp in good]), np.stack([cp.mode for cp in good])
    starts = np.concatenate([retract(z, sgn * QUASI_NEWTON_STEP * modes) for sgn in (1, -1)])
    res = minimize_batch(spec, starts, chunk=settings.chunk)
    store.log(Minimised("quasi-newton descent", len(starts)))
    ids = absorb_minimisations(spec, settings, store, res.z, res.energy, res.status, found_by, curvature=curvature)
    out: list[int | None] = []
    for k, cp in enumerate(good):
        a, b = ids[k], ids[k + len(good)]
        if a is None or b is None:
            store.reject(transition_state_record(store, spec, cp, [], False, "a descent along ± the negative "
                                                 "eigenvector did not end at a minimum"), found_by)
            out.append(None)
            continue
        sides = [Side(None, "", "quasi-newton").to_dict(m) for m in (a, b)]
        out.append(_record(spec, store, cp, a, b, found_by, sides))
    return out
