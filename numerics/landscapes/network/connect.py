"""From saddle candidates to network edges: refinement, verification and the two descents (A9).

:func:`refine_and_connect` refines candidates (band maxima, eigenvector-following end points, stalled
minimisations) to index-1 saddles by eigenvector following and hands them to :func:`connect`, which
keeps each saddle once (up to symmetry), records the unverified ones with their reasons and connects
every verified one — and every *degenerate* one (index 1 off the zero band, converged, with extra zero
modes: a saddle on a manifold of critical points; kept and flagged, as degenerate minima are, since a
downhill path through it is still a path of that height) — to the two minima it joins:

* ``descent="path"`` (default): the steepest-descent path from ``z_TS ± ε·v`` on each side
  (:func:`~.descent.descend_batch`), its end polished by Newton and checked to stay in the basin the path
  reached (:func:`~.descent.settle`); a path still moving after its step budget (a flat valley, where an
  explicit integrator crawls) is continued by L-BFGS with every point's step capped at 0.01 rad — a ridge
  would have to be narrower than that to be jumped — and settled again. A path that runs into a lower saddle (a descent inside a
  symmetric subspace can end on a saddle of index 1 or more exactly: its unstable directions leave the
  subspace) is continued from its end along ± the lowest Hessian mode there, at most twice; the side is
  then assigned the lower of the two minima reached (every point of these paths lies below the first
  saddle, so the minimax barriers of the network are those of true downhill paths), ``via`` records
  the energy where the path was continued, and a lower saddle that refines to a verified transition
  state is itself connected. A side whose path fails any check leaves the saddle unverified, with the
  reason.
* ``descent="quasi-newton"``: L-BFGS from ``z_TS ± 0.02·v`` (the previous search; it can jump basins).
"""

from __future__ import annotations

import numpy as np

from contrastive_bounds.numerics.landscapes.network.descent import (
    DESCENT_EPSILON,
    FLOW_CONVERGED,
    FLOW_NON_FINITE,
    descend_batch,
    settle,
)
from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
from contrastive_bounds.numerics.landscapes.network.phases import absorb_minimisations, retract_rows
from contrastive_bounds.numerics.landscapes.network.saddle import refine_batch
from contrastive_bounds.numerics.landscapes.network.state import SearchState
from contrastive_bounds.numerics.landscapes.network.symmetry import equivalent
from contrastive_bounds.numerics.landscapes.network.verify import CriticalPoint, classify_batch

__all__ = ["connect", "refine_and_connect"]

_QN_STEP = 0.02  # the previous search's displacement along ± v before its L-BFGS descent
#: largest move of a point per L-BFGS step when a path still moving after ``max_steps`` is continued
SLOW_STEP = 0.01
_EF_KICK = 0.05  # kick along the second mode of a candidate that refined to an index-2 saddle


def _classify(state: SearchState, z: np.ndarray, expect: int) -> list[CriticalPoint]:
    s = state.settings
    return classify_batch(state.spec, z, gradient_tol=s.gradient_tol, eigenvalue_tol=s.eigenvalue_tol, expect=expect,
                          chunk=s.chunk)


def _fresh(state: SearchState, cps: list[CriticalPoint]) -> list[CriticalPoint]:
    """Candidates not yet in the catalogue and not repeated within the batch."""
    cat, uniq = state.catalog, []
    for cp in cps:
        if cat.match_ts(cp.z, cp.energy) is not None or any(
                abs(u.energy - cp.energy) <= 1e-8 * max(1.0, abs(cp.energy))
                and equivalent(u.z, cp.z, state.spec.symmetry, tol=state.settings.gram_tol) for u in uniq):
            state.effort.duplicate_ts += 1
        else:
            uniq.append(cp)
    return uniq


def degenerate_saddle(cp: CriticalPoint, gradient_tol: float) -> bool:
    """Converged, exactly one eigenvalue below the zero band, and extra zero modes: a transition state on a
    manifold of critical points (kept, flagged ``degenerate``, like degenerate minima)."""
    return cp.index == 1 and cp.zero_modes > 0 and cp.gradient_norm <= gradient_tol and np.isfinite(cp.energy)


def connect(state: SearchState, cps: list[CriticalPoint], found_by: str, *, depth: int = 0) -> None:
    """Record each new candidate; connect the verified ones by their two descents (module docstring)."""
    uniq = _fresh(state, cps)
    tol = state.settings.gradient_tol
    for cp in uniq:
        if not cp.verified and not degenerate_saddle(cp, tol):
            state.catalog.add_ts(cp, [], False, cp.reason, found_by)
            state.effort.unverified_ts += 1
    good = [cp for cp in uniq if cp.verified or degenerate_saddle(cp, tol)]
    if not good:
        return
    if state.settings.descent == "quasi-newton":
        _connect_quasi_newton(state, good, found_by)
    else:
        _connect_paths(state, good, found_by, depth)


def _descend(state: SearchState, z: np.ndarray, modes: np.ndarray) -> list[tuple[CriticalPoint | None, str, dict]]:
    """Paths from ``z_k ± ε·mode_k``: per start ``(polished point or None, reason, info)``; starts are
    ordered all ``+`` sides first, then all ``−`` sides."""
    s = state.settings
    starts = np.concatenate([retract_rows(z, sgn * DESCENT_EPSILON * modes) for sgn in (1.0, -1.0)])
    zf, vf, gf, steps, status, length, _ = descend_batch(state.spec, starts, chunk=s.chunk)
    state.effort.descents += len(starts)
    settled = settle(state.spec, zf, eigenvalue_tol=s.eigenvalue_tol, gradient_tol=s.gradient_tol, chunk=s.chunk)
    slow = [k for k, (_, reason, _) in enumerate(settled) if reason and int(status[k]) != FLOW_CONVERGED
            and int(status[k]) != FLOW_NON_FINITE]
    if slow:  # still moving after max_steps (a flat valley): continue by short-step L-BFGS, then settle again
        more = minimize_batch(state.spec, zf[slow], chunk=s.chunk, max_step=SLOW_STEP, max_iter=20_000)
        for k, new in zip(slow, settle(state.spec, more.z, eigenvalue_tol=s.eigenvalue_tol,
                                       gradient_tol=s.gradient_tol, chunk=s.chunk)):
            if not new[1]:
                settled[k], status[k] = new, FLOW_CONVERGED
    out = []
    for k, (cp, reason, end) in enumerate(settled):
        info = {"method": "path", "steps": int(steps[k]), "path_length": float(length[k]), "via": None}
        if int(status[k]) == FLOW_NON_FINITE:
            reason = "the steepest-descent path met a non-finite value"
        elif int(status[k]) != FLOW_CONVERGED and reason:  # out of steps: accepted only if already inside a basin
            reason = (f"the steepest-descent path did not settle (|grad V| = {float(gf[k]):.2g} after {int(steps[k])} "
                      f"steps); {reason}")
        out.append((cp if not reason else None, reason, info | {"end": end, "polished": cp}))
    return out


def _near_saddle(end: CriticalPoint, eigenvalue_tol: float) -> bool:
    band = eigenvalue_tol * max(1.0, float(np.max(np.abs(end.eigenvalues), initial=0.0)))
    return bool(end.eigenvalues.size) and float(end.eigenvalues[0]) < -band


def _connect_paths(state: SearchState, good: list[CriticalPoint], found_by: str, depth: int) -> None:
    s = state.settings
    sides = _descend(state, np.stack([cp.z for cp in good]), np.stack([cp.mode for cp in good]))
    for _ in range(2):  # sides that ran into a lower saddle: continue from the end along ± its lowest mode
        stuck = [k for k, (m, _, info) in enumerate(sides)
                 if m is None and _near_saddle(info["end"], s.eigenvalue_tol)
                 and info["end"].energy < good[k % len(good)].energy]
        if not stuck:
            break
        ends = [sides[k][2]["end"] for k in stuck]
        lower = [sides[k][2]["polished"] for k in stuck]
        more = _descend(state, np.stack([e.z for e in ends]), np.stack([e.mode for e in ends]))
        for r, k in enumerate(stuck):
            a, b = more[r], more[r + len(stuck)]
            first = sides[k][2]
            if a[0] is not None and b[0] is not None:
                low = a if a[0].energy <= b[0].energy else b
                sides[k] = (low[0], "", {**low[2], "via": float(ends[r].energy), "steps": first["steps"] + low[2]["steps"],
                                         "path_length": first["path_length"] + low[2]["path_length"]})
            else:
                nxt = a if a[0] is None else b
                sides[k] = (None, nxt[1], {**nxt[2], "via": float(ends[r].energy), "steps": first["steps"] + nxt[2]["steps"],
                                           "path_length": first["path_length"] + nxt[2]["path_length"]})
        lower_ts = [p for p in lower if p is not None and p.index == 1 and p.gradient_norm <= s.gradient_tol]
        if lower_ts and depth < 2:
            connect(state, lower_ts, found_by, depth=depth + 1)
    n = len(good)
    cat = state.catalog
    for k, cp in enumerate(good):
        (ma, ra, ia), (mb, rb, ib) = sides[k], sides[k + n]
        if ma is None or mb is None:
            why = "; ".join(f"{side} side: {r}" for side, r in (("+v", ra), ("-v", rb)) if r)
            cat.add_ts(cp, [], False, why or "a descent did not end at a minimum", found_by)
            state.effort.unverified_ts += 1
            continue
        detail = f"descent from the saddle at V = {cp.energy:.10g}"
        a, _ = cat.add_minimum(ma, found_by, detail)
        b, _ = cat.add_minimum(mb, found_by, detail)
        infos = [{k2: v for k2, v in i.items() if k2 not in ("end", "polished")} | {"minimum": m} for i, m in ((ia, a), (ib, b))]
        _record(state, cp, a, b, found_by, infos)


def _record(state: SearchState, cp: CriticalPoint, a: int, b: int, found_by: str, infos: list[dict]) -> None:
    """Add the saddle joined to minima ``a`` and ``b``: verified only when both lie below it."""
    cat = state.catalog
    if max(cat.minima[a].energy, cat.minima[b].energy) >= cp.energy:
        cat.add_ts(cp, [a, b], False, "a descent ended at a minimum not below the saddle", found_by, infos)
        state.effort.unverified_ts += 1
        return
    cat.add_ts(cp, sorted([a, b]), True, cp.reason if cp.zero_modes else "", found_by, infos,
               degenerate=bool(cp.zero_modes))
    state.effort.verified_ts += 1


def _connect_quasi_newton(state: SearchState, good: list[CriticalPoint], found_by: str) -> None:
    cat = state.catalog
    starts = np.concatenate([np.stack([retract_rows(cp.z, sgn * _QN_STEP * cp.mode) for cp in good]) for sgn in (1, -1)])
    res = minimize_batch(state.spec, starts, chunk=state.settings.chunk)
    state.effort.minimisations += len(starts)
    ids = absorb_minimisations(state, res.z, res.energy, res.status, found_by)
    for k, cp in enumerate(good):
        a, b = ids[k], ids[k + len(good)]
        if a is None or b is None:
            cat.add_ts(cp, [], False, "a descent along ± the negative eigenvector did not end at a minimum", found_by)
            state.effort.unverified_ts += 1
            continue
        infos = [{"method": "quasi-newton", "minimum": m, "steps": None, "path_length": None, "via": None} for m in (a, b)]
        _record(state, cp, a, b, found_by, infos)


def refine_and_connect(state: SearchState, z: np.ndarray, modes: np.ndarray, found_by: str) -> None:
    """Refine candidates to index-1 saddles and connect them; a candidate that converged to a saddle of
    higher index is kicked once along its second-lowest mode and refined again (following its lowest)."""
    if len(z) == 0:
        return
    s = state.settings
    zr, *_ = refine_batch(state.spec, z, modes, index=1, chunk=s.chunk, max_iter=300)
    state.effort.refinements += len(z)
    cps = _classify(state, zr, 1)
    high = [cp for cp in cps if cp.index >= 2 and cp.gradient_norm <= s.gradient_tol and len(cp.modes) > 1]
    if high:
        zk = np.stack([retract_rows(cp.z, _EF_KICK * cp.modes[1]) for cp in high])
        zr2, *_ = refine_batch(state.spec, zk, np.stack([cp.modes[0] for cp in high]), index=1, chunk=s.chunk,
                               max_iter=300)
        state.effort.refinements += len(high)
        retried = {id(cp): new for cp, new in zip(high, _classify(state, zr2, 1))}
        cps = [retried.get(id(cp), cp) if retried.get(id(cp), cp).index == 1 else cp for cp in cps]
    state.effort.unconverged += sum(1 for cp in cps if not cp.gradient_norm <= s.gradient_tol)
    connect(state, cps, found_by)
