"""One trap of a large landscape explored Hessian-free, saved as a landscape network (A5, A9).

At ``N·d`` in the thousands a closed search is out of reach; what annealing needs is one trap with its
lowest escape saddle, each certified. :func:`explore_trap` does that with the Hessian-free tools
(:mod:`.hessfree`), never forming an ``(N·d)²`` array:

1. minima from ``starts`` uniform random starts (the network's batched Riemannian L-BFGS,
   :func:`~.network.optimize.minimize_batch`), polished by Newton–CG on the deflated Hessian
   (:func:`newton_polish`: conjugate gradients on Hessian–vector products; L-BFGS stops at the rounding
   floor of ``V``, about ``1e-7`` in ``|grad V|``), each certified a minimum (:func:`~.hessfree.verify_batch`);
   the closed-form simplex minimum is added where it exists (InfoNCE, ``N/2 <= d + 1``);
2. the trap: the minimum chosen (``trap``: ``"highest"`` non-global minimum found, or an index into the
   distinct minima by energy); from it, its ``modes`` softest modes followed both ways by hybrid eigenvector
   following (:func:`~.hessfree.follow_modes`), every end point certified an index-1 saddle or rejected
   with the reason;
3. each verified saddle connected by two L-BFGS descents from ``z_s ± step·v`` (``v`` its negative mode;
   the network's ``"quasi-newton"`` descent), each end polished and certified — an end that is a saddle is
   pushed off along its negative mode and descended again (up to 3 times); minima met on the way enter
   the network;
4. the records (minima with multiplicities modulo ``O(d)`` from :func:`~.network.symmetry.multiplicity`,
   transition states, rejected candidates) and the events written to a
   :class:`~.network.store.NetworkStore` saved by :func:`~.network.serial.save_store` — so
   ``anneal --search FOLDER`` reads it — with closure *not attempted*: its status is "open", and the
   closure text says it is one trap explored by Hessian-free following, not a closed search.

Run as ``python -m contrastive_bounds.numerics.landscapes.trap_network --points 128 --dim 16 --tau 0.1
--out FOLDER`` (prints the summary as JSON).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.network.events import (
    ClosureReached,
    DuplicateCandidate,
    Followed,
    Minimised,
    PhaseEnded,
    Refined,
)
from contrastive_bounds.numerics.landscapes.network.graph import analyse_network
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.serial import prepare_folder, save_store, state_path
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.trap_tools import (
    EXACT_MULTIPLICITY_MAX_POINTS,
    multiplicity_at_scale,
    newton_polish,
    same_gram,
)
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["TrapExploration", "explore_trap", "CURVATURE_NAME", "EXPLORATION"]

#: the curvature name the saved store records (a Hessian-free exploration)
CURVATURE_NAME = "hessfree"
#: what the saved closure text and the summary say the exploration was
EXPLORATION = ("one trap explored by Hessian-free following (random-start minima, the trap's softest modes followed "
               "both ways, every saddle certified by Lanczos with residual bounds), not a closed search: H* over these "
               "minima only")
_STEP = 0.02  # radians off a saddle along its negative mode before each descent (the network's quasi-Newton descent)


@dataclass
class TrapExploration:
    """What :func:`explore_trap` did (``to_dict()``: JSON)."""

    folder: str
    num_points: int
    dim: int
    tau: float
    trap: int | None
    trap_energy: float | None
    barrier: float | None
    lowest_saddle: str | None
    minima: list[dict[str, Any]]
    transition_states: list[dict[str, Any]]
    searches: int
    verified: int
    rejected: dict[str, int]
    seconds: dict[str, float]
    settings: dict[str, Any]
    exploration: str = EXPLORATION
    notes: list[str] = field(default_factory=list)
    explored: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dict(self.__dict__)


class _Catalogue:
    """Minima by energy and symmetry class (the network's rule: equal energy within 1e-8 relative, then
    :func:`~.network.symmetry.equivalent` up to ``EXACT_MULTIPLICITY_MAX_POINTS`` points, equal sorted Gram entries
    above — a necessary condition, used where the isomorphism test is too slow)."""

    def __init__(self, spec: Any, store: NetworkStore) -> None:
        self.spec, self.store = spec, store

    def find(self, energy: float, z: np.ndarray) -> int | None:
        from contrastive_bounds.numerics.landscapes.network.symmetry import equivalent

        same = (lambda a, b: equivalent(a, b, self.spec.symmetry)) \
            if self.spec.num_points <= EXACT_MULTIPLICITY_MAX_POINTS else same_gram
        for m in self.store.minima:
            if abs(m.energy - energy) <= 1e-8 * max(1.0, abs(energy)) and same(m.z, z):
                return m.id
        return None

    def add(self, cert: Any, z: np.ndarray, found_by: str, detail: str = "") -> int:
        known = self.find(cert.energy, z)
        if known is not None:
            self.store.hit(found_by, [known])
            return known
        rec = NetworkMinimum(0, float(cert.energy), np.asarray(z, dtype=np.float64), multiplicity_at_scale(self.spec, z),
                             float(cert.gradient_norm), [float(x) for x in cert.eigenvalues[:6]], int(cert.orbit_dim),
                             bool(cert.verified), "" if cert.verified else cert.reason)
        return self.store.add_minimum(rec, found_by, detail)


@functools.lru_cache(maxsize=16)
def _verifier(potential: Any, orthogonal: bool) -> Any:
    from contrastive_bounds.numerics.landscapes.hessfree.certify import verifier

    return verifier(potential, orthogonal=orthogonal)


def _certified_minima(spec: Any, z: np.ndarray, seed: int) -> tuple[np.ndarray, list[Any]]:
    from contrastive_bounds.numerics.landscapes.hessfree import verify_batch

    orth = bool(spec.symmetry.orthogonal)
    polished = np.stack([newton_polish(spec.potential, x, orthogonal=orth)[0] for x in z])
    return polished, verify_batch(spec.potential, polished, expect=0, seed=seed, orthogonal=orth,
                                  check=_verifier(spec.potential, orth))


def _explore_one(spec: Any, store: NetworkStore, cat: "_Catalogue", chosen: Any, modes: int, seed: int,
                 rejected: dict[str, int], searches_all: list[Any], seconds: dict[str, float]) -> None:
    """Follow the softest modes of one minimum both ways, certify, connect each saddle by two descents (records and
    events into ``store``)."""
    from contrastive_bounds.numerics.landscapes.hessfree import follow_modes
    from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
    from contrastive_bounds.numerics._sphere import retract

    t1 = time.perf_counter()
    searches = follow_modes(spec.potential, chosen.z[None], modes=modes, seed=seed)
    store.log(Followed(chosen.id, len(searches)),
              Refined("eigenvector following", len(searches), sum(1 for s in searches if s.status != "converged")))
    seconds["following"] += time.perf_counter() - t1
    searches_all.extend(searches)
    t2 = time.perf_counter()
    kept = []
    for s in searches:
        if not s.verified:
            why = s.certificate.reason.split(":")[0] or s.status
            rejected[why] = rejected.get(why, 0) + 1
            store.reject(TransitionState(0, float(s.energy), s.z, 0, float(s.gradient_norm),
                                         float(s.certificate.eigenvalues[0]), int(s.certificate.index), [], False,
                                         s.certificate.reason or s.status), "eigenvector following")
            continue
        if any(abs(k.energy - s.energy) <= 1e-8 * max(1.0, abs(s.energy)) for k in kept):
            store.log(DuplicateCandidate("eigenvector following"))
            continue
        kept.append(s)
    for s in kept:
        v = np.asarray(s.certificate.modes[0])
        sides = np.stack([np.asarray(retract(jnp.asarray(s.z), sgn * _STEP * jnp.asarray(v))) for sgn in (1, -1)])
        ends = minimize_batch(spec, sides, chunk=8)
        store.log(Minimised("quasi-newton descent", 2))
        zs_, cs_ = _certified_minima(spec, ends.z, seed + 1)
        for _ in range(3):  # an L-BFGS descent can stop on a saddle: push off along its negative mode, descend again
            stuck = [k for k, c in enumerate(cs_) if c.index >= 1 and c.modes.shape[0] > 0]
            if not stuck:
                break
            pushed = np.stack([np.asarray(retract(jnp.asarray(zs_[k]), _STEP * jnp.asarray(cs_[k].modes[0])))
                               for k in stuck])
            again = minimize_batch(spec, pushed, chunk=8)
            store.log(Minimised("push-off", len(stuck)))
            zr, cr = _certified_minima(spec, again.z, seed + 2)
            for j, k in enumerate(stuck):
                zs_[k], cs_[k] = zr[j], cr[j]
        ids = []
        for z, c in zip(zs_, cs_):
            if c.verified and c.energy < s.energy:
                ids.append(cat.add(c, z, "eigenvector following", f"descent from the saddle at V = {s.energy:.8g}"))
        ok = len(ids) == 2 and len(set(ids)) == 2
        rec = TransitionState(0, float(s.energy), np.asarray(s.z), multiplicity_at_scale(spec, s.z) if ok else None,
                              float(s.certificate.gradient_norm), float(s.certificate.eigenvalues[0]), 1,
                              ids if ok else [], ok, "" if ok else
                              ("both descents ended in the same minimum" if len(set(ids)) == 1 and len(ids) == 2
                               else "a descent did not end at a verified minimum below the saddle"),
                              descents=[{"method": "quasi-newton", "step": _STEP}] * 2)
        if ok:
            store.add_transition_state(rec, "eigenvector following")
        else:
            rejected[rec.reason] = rejected.get(rec.reason, 0) + 1
            store.reject(rec, "eigenvector following")
    seconds["connect"] += time.perf_counter() - t2


def explore_trap(spec: Any, out: Any, *, starts: int = 16, seed: int = 0, trap: str | int = "highest", modes: int = 4,
                 max_traps: int = 3, require_trap: bool = True, progress: bool = False) -> TrapExploration:
    """Explore one trap of ``spec`` Hessian-free and save it as a network in ``out`` (module docstring).

    Args:
      spec: a :class:`~.network.LandscapeSpec` (e.g. ``infonce_spec(128, 16, 0.1)``). out: folder (created).
      starts: random starts, >= 1. seed: >= 0 (starts, Lanczos). trap: ``"highest"`` (the highest non-global minimum
        found), ``"all"`` (the ``max_traps`` highest non-global minima, each explored) or an integer index into the
        distinct minima sorted by energy (0: the lowest). max_traps: >= 1, for ``"all"``.
        require_trap: refuse a landscape where the starts found one minimum class only (False: save it, explore
        nothing, ``trap`` None). modes: softest modes
        of the trap followed, each both ways, ``1 <= modes <= 29``. progress: print stages to stderr.

    Returns:
      :class:`TrapExploration` (also what the saved store's closure text states).

    Raises:
      ValueError: bad arguments (named); only one minimum class found (no trap to explore: said so).
      X64DisabledError: JAX's x64 mode is off.
    """
    from contrastive_bounds.numerics.landscapes.hessfree import follow_modes, verify_batch
    from contrastive_bounds.numerics.landscapes.network.optimize import minimize_batch
    from contrastive_bounds.numerics._sphere import retract, uniform

    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.trap_network.explore_trap")
    for name, val, lo in (("starts", starts, 1), ("seed", seed, 0), ("modes", modes, 1), ("max_traps", max_traps, 1)):
        if not isinstance(val, int) or isinstance(val, bool) or val < lo:
            raise ValueError(f"{name}={val!r} must be an integer >= {lo}")
    folder = prepare_folder(out)
    n, d = spec.num_points, spec.dim
    settings = SearchSettings(starts=starts, seed=seed, structured_starts=0, max_hop_rounds=0, closure=False,
                              single_ended_modes=modes, max_ts_rounds=1)
    store = NetworkStore(spec.fingerprint() | {"description": spec.description}, settings, curvature=CURVATURE_NAME)
    cat = _Catalogue(spec, store)
    seconds: dict[str, float] = {}
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if progress else (lambda text: None)
    t0 = time.perf_counter()
    z0 = np.asarray(uniform(jax.random.key(seed), (starts, n, d), dtype=np.float64))
    res = minimize_batch(spec, z0, chunk=8)
    store.log(Minimised("random start", starts))
    polished, certs = _certified_minima(spec, res.z, seed)
    for z, c in zip(polished, certs):
        cat.add(c, z, "random start")
    notes = []
    if spec.name == "infonce" and n % 2 == 0 and n // 2 <= d + 1 and not spec.params.get("coupled", False) \
            and [tuple(p) for p in spec.params["pairs"]] == [(2 * k, 2 * k + 1) for k in range(n // 2)] \
            and spec.radius == 1.0:
        from contrastive_bounds.numerics.landscapes.hessfree import infonce_simplex_minimum

        zs, vs = infonce_simplex_minimum(n, d, float(spec.params["tau"]))
        (cs,) = verify_batch(spec.potential, zs[None], expect=0, seed=seed, check=_verifier(spec.potential, True))
        cat.add(cs, zs, "structured start", "the closed-form simplex minimum")
        notes.append(f"the closed-form simplex minimum V* = {vs:.10g} was added and certified ({cs.kind})")
    store.log(PhaseEnded("starts"), PhaseEnded("structured", "no templates: the closed-form minimum only"),
              PhaseEnded("hops", "no basin hopping"))
    seconds["minima"] = time.perf_counter() - t0
    say(f"minima: {[round(m.energy, 8) for m in store.minima]} ({seconds['minima']:.1f} s)")
    ordered = sorted(store.minima, key=lambda m: m.energy)
    if len(ordered) < 2 and require_trap:
        raise ValueError(f"only one minimum class found from {starts} random starts (V = {ordered[0].energy:.10g}): no "
                         "trap to explore; more starts or another landscape")
    if len(ordered) < 2:
        chosen_list = []
    elif trap == "highest":
        chosen_list = [ordered[-1]]
    elif trap == "all":
        chosen_list = ordered[1:][::-1][:max_traps]
    elif isinstance(trap, int) and not isinstance(trap, bool) and 1 <= trap < len(ordered):
        chosen_list = [ordered[trap]]
    else:
        raise ValueError(f"trap={trap!r} must be 'highest', 'all' or an integer in [1, {len(ordered) - 1}] (0 is the "
                         "lowest)")
    seconds["following"] = seconds["connect"] = 0.0
    rejected: dict[str, int] = {}
    searches_all: list[Any] = []
    for chosen in chosen_list:
        _explore_one(spec, store, cat, chosen, modes, seed, rejected, searches_all, seconds)
    searches = searches_all
    closure = (f"{EXPLORATION}: trap(s) {', '.join(f'm{c.id} (V = {c.energy:.10g})' for c in chosen_list) or 'none'}, "
               f"{modes} softest modes of each followed both "
               f"ways ({len(searches)} searches, {sum(s.verified for s in searches)} certified index-1 end points); "
               f"{starts} random starts, seed {seed}")
    store.log(ClosureReached(False, closure), PhaseEnded("ts", "per-trap following only (closure not attempted)"))
    total = sum(seconds.values())
    save_store(state_path(folder), store, total)
    analysis = analyse_network(store.minima, store.transition_states)
    explored = []
    for c in chosen_list:
        escapes = [t for t in store.verified_ts() if c.id in t.minima
                   and min(store.minima[i].energy for i in t.minima) < c.energy]
        low = min(escapes, key=lambda t: t.energy) if escapes else None
        explored.append({"label": c.label, "energy": c.energy, "multiplicity": c.multiplicity,
                         "barrier": None if low is None else float(low.energy - c.energy),
                         "saddle": None if low is None else low.label,
                         "escape_saddles": len(escapes)})
    first = explored[0] if explored else None
    summary = TrapExploration(
        str(folder), n, d, float(spec.params.get("tau", math.nan)), chosen_list[0].id if chosen_list else None,
        float(chosen_list[0].energy) if chosen_list else None, first["barrier"] if first else None,
        first["saddle"] if first else None,
        [{"label": m.label, "energy": m.energy, "multiplicity": m.multiplicity, "verified": m.verified,
          "found_by": m.found_by, "lowest_eigenvalues": m.eigenvalues[:3]} for m in store.minima],
        [{"label": t.label, "energy": t.energy, "minima": list(t.minima), "eigenvalue": t.eigenvalue,
          "verified": t.verified, "reason": t.reason} for t in store.transition_states],
        len(searches), sum(s.verified for s in searches), rejected, seconds, settings.to_dict(),
        notes=notes + [f"network H* over these minima: {float(analysis.critical_height):.6g} (open)"], explored=explored)
    return summary


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec
    from contrastive_bounds.numerics._precision import enable_x64

    p = argparse.ArgumentParser(prog="python -m contrastive_bounds.numerics.landscapes.trap_network",
                                description="Explore one trap of an InfoNCE landscape Hessian-free and save it.")
    p.add_argument("--points", type=int, required=True)
    p.add_argument("--dim", type=int, required=True)
    p.add_argument("--tau", type=float, required=True)
    p.add_argument("--starts", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--modes", type=int, default=4)
    p.add_argument("--trap", default="highest", help="highest, all, or an index into the minima by energy")
    p.add_argument("--max-traps", type=int, default=3)
    p.add_argument("--out", required=True)
    a = p.parse_args(argv)
    enable_x64()
    trap = a.trap if a.trap in ("highest", "all") else int(a.trap)
    try:
        summary = explore_trap(infonce_spec(a.points, a.dim, a.tau), a.out, starts=a.starts, seed=a.seed, trap=trap,
                               modes=a.modes, max_traps=a.max_traps, progress=True)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(json.dumps(summary.to_dict(), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
