"""Transition-state searches from minima along their softest modes, each certified (A9).

:func:`search_transition_states` runs batched hybrid eigenvector following (the refilled lanes of
:func:`~.batched.queue_searcher`) from given starts and directions and certifies every end
point as an index-1 saddle or not (:func:`~.certify.verify_batch`, ``expect=1``).
:func:`follow_modes` is the single-ended step of a landscape network at scale: from each minimum, its
``modes`` softest Hessian modes off the symmetry (:func:`~.spectrum.softest_modes`), both signs, a kick
of ``kick`` radians along the mode (the network's ``EF_KICK``), then the searches above. The results
say which searches converged, which end points are verified transition states, and why the others
are not; nothing is dropped.

Compiled functions are cached per (potential, symmetry flag, settings, lanes); the searches compile once per
number of starts (the escape rounds reuse it, padded) and, on CPU, the certificates once per (N, d).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.hessfree.certify import (
    EIGENVALUE_TOL,
    GRADIENT_TOL,
    Certificate,
    verifier,
    verify_batch,
)
from contrastive_bounds.numerics.landscapes.hessfree.batched import queue_searcher
from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import CONVERGED, STATUS_TEXT, HEFSettings
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import softest_modes
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import retract

__all__ = ["TransitionStateSearch", "search_transition_states", "follow_modes", "default_slots", "KICK"]

#: displacement along a mode at the start of a search (radians; the network's EF_KICK)
KICK = 0.05


@dataclass(frozen=True)
class TransitionStateSearch:
    """One eigenvector-following search and the certificate of its end point.

    Fields (one line may name several):
      start: index of the start (or of the minimum it left). mode: index of the softest mode followed
      (0 = softest; −1 for a given direction). sign: +1 or −1 along it. z: ``(N, d)`` end point.
      energy: ``V(z)``. gradient_norm: ``|grad V|_2``. iterations: outer iterations. status: in words
      (:data:`~.eigenvector_following.STATUS_TEXT`). gradient_evaluations, hessian_products: work.
      certificate: :class:`~.certify.Certificate` with ``expect=1``. escapes: restarts from saddles of
        index >= 2 before this end point (work and iterations include them).
    """

    start: int
    mode: int
    sign: int
    z: np.ndarray
    energy: float
    gradient_norm: float
    iterations: int
    status: str
    gradient_evaluations: int
    hessian_products: int
    certificate: Certificate
    escapes: int = 0

    @property
    def verified(self) -> bool:
        """The end point is a certified transition state."""
        return self.certificate.verified


@functools.lru_cache(maxsize=16)
def _searcher(potential: Callable, orthogonal: bool, settings: HEFSettings, slots: int) -> Callable:
    return queue_searcher(potential, slots=slots, orthogonal=orthogonal, settings=settings)


def default_slots(searches: int) -> int:
    """Lanes for ``searches`` searches: 1 on CPU, i.e. the searches one after another inside one compiled loop
    (measured in ``benchmarks/hessfree.py``: the iterations are compute-bound there, two vmapped lanes cost
    twice one lane, so per search 2 lanes took 53 ms against 45 ms one by one at N·d = 512 and 272 ms
    against 146 ms at 2 048); all of them (at most 256) on an accelerator (not measured here)."""
    if jax.default_backend() == "cpu":
        return 1
    return max(1, min(256, searches))


@functools.lru_cache(maxsize=16)
def _verifier(potential: Callable, orthogonal: bool) -> Callable:
    return verifier(potential, orthogonal=orthogonal)


@functools.lru_cache(maxsize=16)
def _modes_fn(potential: Callable, orthogonal: bool, k: int) -> Callable:
    return jax.jit(lambda z, key: softest_modes(potential, z, key, k=k, orthogonal=orthogonal))


def search_transition_states(potential: Callable[[jax.Array], jax.Array], starts: Any, directions: Any, *,
                             orthogonal: bool = True, settings: HEFSettings = HEFSettings(), seed: int = 0,
                             slots: int | None = None, gradient_tol: float = GRADIENT_TOL,
                             eigenvalue_tol: float = EIGENVALUE_TOL, labels: Sequence[tuple[int, int, int]] | None = None,
                             escapes: int = 2, escape_step: float = KICK) -> list[TransitionStateSearch]:
    """Hybrid eigenvector following from each start along its direction, then certification.

    Args:
      potential: pure JAX ``V``, ``(N, d) -> ()``. starts: ``(B, N, d)`` float64 unit rows.
      directions: ``(B, N, d)`` initial modes. orthogonal: ``V`` is ``O(d)``-invariant.
      settings: :class:`~.eigenvector_following.HEFSettings`. seed: PRNG seed (Lanczos starts).
      slots: vmapped lanes of the compiled queue (:mod:`.batched`; default :func:`default_slots`).
      gradient_tol, eigenvalue_tol: the certificate's tolerances. labels: ``(start, mode, sign)`` per search (default ``(b, −1, 1)``).
      escapes: times a search that converged to a saddle of index >= 2 is restarted from it, kicked by
        ``escape_step`` radians downhill along its second mode (pele's additional-mode screen does the same).

    Returns:
      one :class:`TransitionStateSearch` per start, in order.

    Raises:
      X64DisabledError: JAX's x64 mode is off.
      ValueError: shapes that differ or are not ``(B, N, d)``; ``slots < 1`` (named).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.hessfree.search_transition_states")
    z0 = np.array(starts, dtype=np.float64)
    m0 = np.array(directions, dtype=np.float64)
    if z0.ndim != 3 or z0.shape != m0.shape:
        raise ValueError(f"starts {z0.shape} and directions {m0.shape} must both have shape (B, N, d)")
    b = z0.shape[0]
    lanes = default_slots(b) if slots is None else int(slots)
    if lanes < 1:
        raise ValueError(f"slots={slots!r} must be an integer >= 1")
    if b == 0:
        return []
    fn = _searcher(potential, bool(orthogonal), settings, lanes)
    check = _verifier(potential, bool(orthogonal))
    labels = list(labels) if labels is not None else [(i, -1, 1) for i in range(b)]
    results: list[TransitionStateSearch | None] = [None] * b
    work = {"gradient_evaluations": np.zeros(b, np.int64), "hessian_products": np.zeros(b, np.int64),
            "iterations": np.zeros(b, np.int64)}
    pending = np.arange(b)
    for attempt in range(int(escapes) + 1):
        if pending.size == 0:
            break
        res = _run(fn, z0, m0, pending, seed + 7919 * attempt)
        certs = verify_batch(potential, res["z"], expect=1, orthogonal=orthogonal, seed=seed + 1 + attempt,
                             gradient_tol=gradient_tol, eigenvalue_tol=eigenvalue_tol, check=check)
        retry = []
        for j, i in enumerate(pending):
            for key in work:
                work[key][i] += int(res[key][j])
            cert = certs[j]
            results[i] = TransitionStateSearch(int(labels[i][0]), int(labels[i][1]), int(labels[i][2]), res["z"][j],
                                               float(res["value"][j]), float(res["gradient_norm"][j]),
                                               int(work["iterations"][i]), STATUS_TEXT[int(res["status"][j])],
                                               int(work["gradient_evaluations"][i]), int(work["hessian_products"][i]),
                                               cert, attempt)
            if int(res["status"][j]) == CONVERGED and cert.kind.startswith("saddle of index") and cert.modes.shape[0] > 1:
                # a saddle of index >= 2: leave it downhill along the second mode, still following the first
                z0[i] = np.asarray(retract(jnp.asarray(res["z"][j]), escape_step * jnp.asarray(cert.modes[1])))
                m0[i] = cert.modes[0]
                retry.append(i)
        pending = np.asarray(retry, dtype=np.int64)
    return [r for r in results if r is not None]


def _run(fn: Callable, z0: np.ndarray, m0: np.ndarray, pending: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """The queue on all ``B`` rows (one compiled length), the ``pending`` ones active, their results in order."""
    b = z0.shape[0]
    keys = jax.random.split(jax.random.key(seed), b)
    active = np.zeros(b, bool)
    active[pending] = True
    order = np.concatenate([pending, np.setdiff1d(np.arange(b), pending)])
    out = fn(jnp.asarray(z0[order]), jnp.asarray(m0[order]), keys[jnp.asarray(order)], jnp.asarray(active[order]))
    return {name: np.asarray(value)[: pending.size] for name, value in out._asdict().items()}


def follow_modes(potential: Callable[[jax.Array], jax.Array], minima: Any, *, modes: int = 2,
                 signs: Sequence[int] = (1, -1), kick: float = KICK, orthogonal: bool = True,
                 settings: HEFSettings = HEFSettings(), seed: int = 0, slots: int | None = None,
                 gradient_tol: float = GRADIENT_TOL, eigenvalue_tol: float = EIGENVALUE_TOL
                 ) -> list[TransitionStateSearch]:
    """From each minimum, its ``modes`` softest modes, each sign: kick, follow, certify (module docstring).

    Args:
      potential: pure JAX ``V``. minima: ``(M, N, d)`` float64 (or one ``(N, d)``). modes: softest modes per
        minimum, ``1 <= modes <= 29``. signs: subset of (1, −1). kick: radians > 0. Others as
        :func:`search_transition_states`.

    Returns:
      ``M·modes·len(signs)`` :class:`TransitionStateSearch` (``start`` = the minimum's index).

    Raises:
      X64DisabledError: JAX's x64 mode is off.
      ValueError: ``modes``, ``signs`` or ``kick`` out of range (named).
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.hessfree.follow_modes")
    mins = np.asarray(minima, dtype=np.float64)
    mins = mins[None] if mins.ndim == 2 else mins
    if not 1 <= int(modes) <= 29:
        raise ValueError(f"modes={modes!r} must be an integer in [1, 29]")
    if not signs or any(s not in (1, -1) for s in signs):
        raise ValueError(f"signs={signs!r} must be a non-empty subset of (1, -1)")
    if not kick > 0:
        raise ValueError(f"kick={kick!r} must be > 0 (radians)")
    keys = jax.random.split(jax.random.key(seed + 2), mins.shape[0])
    fn = _modes_fn(potential, bool(orthogonal), int(modes))
    spectra = [fn(jnp.asarray(mins[i]), keys[i]) for i in range(mins.shape[0])]  # one compiled size for any M
    vecs = np.stack([np.asarray(sp.modes) for sp in spectra])
    valid = np.stack([np.asarray(sp.valid) for sp in spectra])
    starts, dirs, labels = [], [], []
    for i in range(mins.shape[0]):
        for k in range(int(modes)):
            if not valid[i, k]:
                continue
            for s in signs:
                m = s * vecs[i, k]
                starts.append(np.asarray(retract(jnp.asarray(mins[i]), kick * jnp.asarray(m))))
                dirs.append(m)
                labels.append((i, k, s))
    if not starts:
        return []
    return search_transition_states(potential, np.stack(starts), np.stack(dirs), orthogonal=orthogonal,
                                    settings=settings, seed=seed, slots=slots, gradient_tol=gradient_tol,
                                    eigenvalue_tol=eigenvalue_tol, labels=labels)
