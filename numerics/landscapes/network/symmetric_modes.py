"""Every Hessian mode of a symmetric minimum, modulo its stabiliser: one Krylov space per orbit representative (A9).

An element ``g = (R, π)`` of the minimum's stabiliser (:mod:`.mode_orbits`) maps a tangent vector ``u`` to
``(g·u)_{π(i)} = R u_i`` and commutes with the deflated Hessian ``H``, so its eigenspaces are invariant and the images
of a few eigenvectors span them. An exactly equivariant search would reach ``g·`` (the saddle reached from ``v``)
from ``g·v``, and one direction per orbit would then stand for the whole orbit. The refiners are not equivariant in
practice at a minimum with degenerate eigenspaces (see "What the reduction does not give" below), so the set built
here is a smaller sample of starts than plain following's, not one exact modulo symmetry.
:func:`symmetric_directions` builds it:

1. localised spanning directions — for a representative ``(i, j)`` of each ordered-pair orbit, ``t`` at point
   ``i`` equal to the projection of ``z_j`` onto ``z_i``'s tangent space (zero at the other points), and, when
   ``span(Z) ≠ R^d``, one per point orbit along a unit vector orthogonal to ``span(Z)``; the ``O(d)`` orbit
   component is removed (:func:`~..hessfree.deflation.deflate`). ``g·t_ij = t_{π(i)π(j)}``, so the images span
   the tangent space off the orbit iff, at every point, the ``P_i z_j`` and the complement span ``T_{z_i}``
   (a rank check per point; otherwise the reduction is refused);
2. eigen-directions — Lanczos with full reorthogonalisation started at each ``t`` (Golub & Van Loan, Matrix
   Computations, 4th ed., Sec. 10.1): its Krylov space has the dimension of the number of distinct eigenvalues in
   ``t``'s spectral support, and once the residual ``β_k`` falls below ``KRYLOV_RTOL`` relative (an invariant
   subspace) the Ritz vectors are exactly ``P_E t / |P_E t|`` for each eigenspace ``E``. Their ``G``-images span
   every ``E`` (``P_E`` commutes with ``G``), so following them both ways covers every mode modulo the stabiliser.
   A Krylov space that reaches ``KRYLOV_CAP`` vectors without invariance refuses the reduction;
3. combinations inside degenerate eigenspaces — the images of one Ritz vector ``y`` span ``E``, but eigenvector
   following is not linear in its start: the saddle reached along a combination is not determined by those reached
   along a spanning set. Plain following adds the pair combinations of its (arbitrary) eigenbasis; here, for up to
   ``COMBINATIONS`` found automorphisms ``g`` that move ``y``, ``(y ± g·y)/|·|`` (:func:`act`) are followed too.
   Without them the N = 8, d = 4, τ = 0.1 cross-polytope trap's lowest escape saddle is missed (its barrier comes
   out 0.02402 instead of the reference 0.02014); with them the saddle classes and the barrier are those of plain
   following on the table's rows tested (tests/numerics/landscapes/network/test_symmetric_modes.py).

What the reduction does not give: the saddle a refiner reaches from a start inside a degenerate eigenspace is not a
function of the start's orbit. At the N = 10, d = 5, τ = 0.05 cross-polytope trap (eigenvalues 5, 11, 40 with
multiplicities 5, 15, 10; escape saddles at V = 22.17908 and 22.22981) the dense refiner takes one Ritz vector ``u``
of the 11-eigenspace to the higher saddle, but only 4 of 24 images ``g·u`` and 1 of 12 random perturbations of ``u``
of relative size 7e-4 (the mode it tracks is picked among nearly degenerate eigenvectors). The Hessian-free refiner
follows the lowest mode at the kicked start, with random Lanczos noise: it reaches that saddle from 6 of the 26
reduced starts, each with probability 0.06–0.19 over 16 PRNG keys, and from none of them for 10 of the 16 keys (the
search then finds it only by a band), where plain following's 180 starts reach it 13–17 times for each of 8 keys.
"Every mode modulo the stabiliser" therefore means: a set of directions whose images span every eigenspace off the
symmetry, plus these combinations, each followed both ways once: fewer starts than plain per-trap closure, not
equivalent to it, and no proof that no other start leads to another saddle.

Hessian–vector products only (:func:`~..hessfree.spectrum.deflated_hessian`): no ``(N·d)²`` array.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.hessfree.spectrum import deflated_hessian
from contrastive_bounds.numerics.landscapes.network.mode_orbits import StabilizerOrbits, stabilizer_orbits
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["SymmetricModes", "symmetric_directions", "spanning_directions", "krylov_ritz", "act", "KRYLOV_CAP", "KRYLOV_RTOL",
           "RITZ_RTOL", "COMBINATIONS", "DUPLICATE_ATOL"]

#: Lanczos vectors at most per representative (a Krylov space still growing then: the reduction is refused)
KRYLOV_CAP = 64
#: ``β_k <= KRYLOV_RTOL · max(|α|, |β|)`` ends a Krylov space as invariant
KRYLOV_RTOL = 1e-8
#: a Ritz pair is accepted as an eigenpair when ``|H y − θ y| <= RITZ_RTOL · max(|α|, |β|)`` (explicit product)
RITZ_RTOL = 1e-6
#: per Ritz vector, the combinations ``(y ± g·y)/|·|`` with this many stabiliser elements ``g`` moving it (inside its
#: eigenspace: directions the images of ``y`` alone do not reach, as plain following adds pairs of basis vectors)
COMBINATIONS = 2
#: two Ritz vectors with ``|⟨y, y'⟩| >= 1 − DUPLICATE_ATOL`` are one direction (followed once, both signs)
DUPLICATE_ATOL = 1e-8


@dataclass
class SymmetricModes:
    """The reduction at one minimum (from :func:`symmetric_directions`).

    Attributes:
      exact: the reduction applies (nontrivial stabiliser, spanning directions, every Krylov space invariant).
      reason: why not, in words ('' when exact).
      directions: ``(k, N, d)`` float64 unit Ritz vectors to follow (both signs), empty when not exact.
      eigenvalues: ``(k,)`` their Ritz values (a combination's: its Ritz vector's). representatives: spanning
      directions started from. krylov: Lanczos vectors used in all. ritz: distinct Ritz vectors among the
      directions (the rest are their combinations ``(y ± g·y)/|·|``); is_ritz: ``(k,)`` bool, which directions are. stabilizer: the orbits' evidence (:class:`~.mode_orbits.StabilizerOrbits`).
    """

    exact: bool
    reason: str
    directions: np.ndarray
    eigenvalues: np.ndarray
    representatives: int = 0
    krylov: int = 0
    ritz: int = 0
    is_ritz: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    stabilizer: StabilizerOrbits | None = field(default=None, repr=False)

    def describe(self) -> str:
        """The evidence in words (for the ``Followed`` event and the exploration), with what it does not give."""
        s = self.stabilizer.describe() if self.stabilizer is not None else "no stabiliser computed"
        return (f"{s}; {self.representatives} orbit representative{'' if self.representatives == 1 else 's'}, {self.ritz} Ritz vectors (Lanczos, {self.krylov} "
                f"vectors, every Krylov space invariant) and {len(self.directions) - self.ritz} combinations y ± g·y, "
                "each followed once per sign (a sample of starts: eigenvector following is not equivariant inside a "
                "degenerate eigenspace, so other starts of the same orbits may reach other saddles)"
                if self.exact else f"{s}; {self.reason}")


def spanning_directions(z: np.ndarray, orbits: StabilizerOrbits, *, rtol: float = 1e-8) -> tuple[np.ndarray, str]:
    """The localised representatives of step 1 (module docstring), before the orbit deflation.

    Args:
      z: float64 ``(N, d)`` unit rows. orbits: its :class:`~.mode_orbits.StabilizerOrbits`. rtol: relative
        singular-value threshold of the rank checks.

    Returns:
      ``(t, reason)``: ``t`` ``(k, N, d)`` float64 (one row per ordered-pair orbit with a nonzero projection, then one
      per point orbit along ``span(Z)^⊥`` when that is not empty) and ``''``; or an empty ``t`` and the reason when
      the images do not span the tangent space at some point (a point named).

    Source: equivariance, ``R P_{z_i} z_j = P_{z_{π(i)}} z_{π(j)}`` for ``R z_k = z_{π(k)}``.
    """
    z = np.asarray(z, dtype=np.float64)
    n, d = z.shape
    _, sv, vt = np.linalg.svd(z, full_matrices=True)
    rank = int(np.sum(sv > rtol * max(1.0, sv[0])))
    complement = vt[rank:]  # (d − r, d) orthonormal, orthogonal to span(Z)
    proj = z[None, :, :] - (z @ z.T)[:, :, None] * z[:, None, :]  # proj[i, j] = P_{z_i} z_j, (N, N, d)
    for i in range(n):
        stack = np.concatenate([np.delete(proj[i], i, axis=0), complement])
        s = np.linalg.svd(stack, compute_uv=False)
        if int(np.sum(s > rtol * max(1.0, s[0]))) < d - 1:
            return np.zeros((0, n, d)), (f"the pair directions at point {i} span {int(np.sum(s > rtol * max(1.0, s[0])))}"
                                         f" of its {d - 1} tangent dimensions")
    out = []
    for orbit in orbits.pair_orbits:
        i, j = orbit[0]
        if np.linalg.norm(proj[i, j]) > rtol:
            t = np.zeros((n, d))
            t[i] = proj[i, j]
            out.append(t)
    if len(complement):
        for orbit in orbits.point_orbits:
            t = np.zeros((n, d))
            t[orbit[0]] = complement[0]
            out.append(t)
    return np.stack(out) if out else np.zeros((0, n, d)), ""


def krylov_ritz(matvec: Any, project: Any, t: np.ndarray, *, cap: int = KRYLOV_CAP,
                rtol: float = KRYLOV_RTOL) -> tuple[np.ndarray, np.ndarray, int, bool, float]:
    """Lanczos from ``t`` with full reorthogonalisation until the Krylov space is invariant (module docstring).

    Args:
      matvec: ``(N, d) -> (N, d)`` symmetric operator on the range of ``project`` (the deflated Hessian).
      project: ``(N, d) -> (N, d)`` orthogonal projector. t: float64 ``(N, d)`` start. cap: vectors at most (>= 1).
      rtol: invariance threshold on ``β_k`` relative to ``max(|α|, |β|)``.

    Returns:
      ``(θ (m,), Y (m, N, d), steps, invariant, scale)``: the Ritz pairs of the last Krylov space (``Y`` orthonormal),
      the vectors used, whether ``β_m`` met the threshold within ``cap``, and the scale ``max(|α|, |β|)``.
      An empty start (``|P t| = 0``) gives no pairs, invariant.

    Raises:
      ValueError: ``cap`` < 1 (named).
      X64DisabledError: JAX's x64 mode is off (``t`` would reach the JAX operator as float32).

    Source: Golub & Van Loan, Matrix Computations (4th ed.), Alg. 10.1.1 with full reorthogonalisation (twice).
    """
    if int(cap) < 1:
        raise ValueError(f"cap={cap!r} must be an integer >= 1")
    require_x64(t, what="contrastive_bounds.numerics.landscapes.network.symmetric_modes.krylov_ritz")
    v = np.asarray(project(jnp.asarray(t)), dtype=np.float64)
    norm = float(np.linalg.norm(v))
    if norm == 0.0:
        return np.zeros(0), np.zeros((0, *t.shape)), 0, True, 0.0
    basis = [v / norm]
    alphas: list[float] = []
    betas: list[float] = []
    scale, invariant = 0.0, False
    while True:
        w = np.asarray(matvec(jnp.asarray(basis[-1])), dtype=np.float64)
        alphas.append(float(np.sum(w * basis[-1])))
        stack = np.stack(basis)
        for _ in range(2):  # classical Gram–Schmidt twice against the whole basis
            w = w - np.tensordot(np.tensordot(stack, w, axes=((1, 2), (0, 1))), stack, axes=(0, 0))
        w = np.asarray(project(jnp.asarray(w)), dtype=np.float64)
        beta = float(np.linalg.norm(w))
        scale = max(scale, abs(alphas[-1]), beta)
        if beta <= rtol * max(scale, 1e-300):
            invariant = True
            break
        if len(basis) >= cap:
            break
        betas.append(beta)
        basis.append(w / beta)
    m = len(alphas)
    tri = np.diag(alphas) + np.diag(betas[:m - 1], 1) + np.diag(betas[:m - 1], -1)
    theta, s = np.linalg.eigh(tri)
    ritz = np.tensordot(s.T, np.stack(basis[:m]), axes=(1, 0))
    return theta, ritz, m, invariant, scale


def act(z: np.ndarray, perm: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The image ``g·u`` of a tangent field ``u`` ``(N, d)`` under the stabiliser element ``g = (R, π)`` of ``z``:
    ``(g·u)_{π(i)} = R u_i`` with ``R`` the orthogonal Procrustes solution of ``R z_i = z_{π(i)}`` (exact on
    ``span(Z)`` for a verified automorphism; on its complement the Procrustes choice). float64 ``(N, d)``.

    Source: Schönemann, Psychometrika 31 (1966) (orthogonal Procrustes)."""
    u_, _, vt = np.linalg.svd(z[perm].T @ z)
    rot = u_ @ vt
    out = np.empty_like(u)
    out[perm] = u @ rot.T
    return out


def _operator(spec: Any) -> Any:
    orth = bool(spec.symmetry.orthogonal)
    return spec.compiled(("symmetric-modes-operator",), lambda: (
        jax.jit(lambda z, u: deflated_hessian(spec.potential, z, orth).matvec(u)),
        jax.jit(lambda z, u: deflated_hessian(spec.potential, z, orth).project(u))))


def symmetric_directions(spec: Any, z: np.ndarray, *, tol: float, plain: int | None = None) -> SymmetricModes:
    """The directions that follow every Hessian mode of the minimum ``z`` modulo its stabiliser (module docstring).

    Args:
      spec: a :class:`~.spec.LandscapeSpec` (its ``potential``, ``symmetry``). z: float64 ``(N, d)`` unit rows, a
        minimum. tol: Gram tolerance of the stabiliser (``SearchSettings.gram_tol``). plain: the number of
        directions plain following would take (the modes off the symmetry); the reduction is refused unless it
        needs fewer.

    Returns:
      :class:`SymmetricModes`: ``exact`` with the Ritz vectors, or not with the reason (a trivial stabiliser, a
      spanning check failed, a Krylov space that did not close within ``KRYLOV_CAP``, a Ritz residual too large,
      no saving). Every direction's residual ``|H w − θ w|`` (Ritz vectors and combinations) is recomputed by an
      explicit product and must be at most ``RITZ_RTOL`` relative.

    Raises:
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.landscapes.network.symmetric_modes.symmetric_directions")
    z = np.asarray(z, dtype=np.float64)
    n, d = z.shape
    empty = np.zeros((0, n, d))

    def refuse(reason: str, **kw: Any) -> SymmetricModes:
        return SymmetricModes(False, reason, empty, np.zeros(0), **kw)

    orbits = stabilizer_orbits(z, spec.symmetry, tol=tol)
    if orbits.trivial:
        return refuse("the stabiliser is trivial (no automorphism found)", stabilizer=orbits)
    reps, why = spanning_directions(z, orbits)
    if why:
        return refuse(why, stabilizer=orbits)
    matvec, project = _operator(spec)
    zj = jnp.asarray(z)
    thetas, vecs, used, flags = [], [], 0, []
    for t in reps:
        theta, pairs, steps, invariant, scale = krylov_ritz(lambda u: matvec(zj, u), lambda u: project(zj, u), t)
        used += steps
        if not invariant:
            return refuse(f"a Krylov space reached {KRYLOV_CAP} vectors without becoming invariant (the minimum is "
                          "not symmetric to the precision needed)", stabilizer=orbits, representatives=len(reps),
                          krylov=used)
        for th, y in zip(theta, pairs):
            extra = []
            for perm in orbits.automorphisms:  # inside a degenerate eigenspace: y ± g·y, as plain following's pairs
                gy = act(z, perm, y)
                if abs(float(np.sum(y * gy))) < 1.0 - DUPLICATE_ATOL:
                    extra += [(y + gy) / np.linalg.norm(y + gy), (y - gy) / np.linalg.norm(y - gy)]
                if len(extra) >= 2 * COMBINATIONS:
                    break
            for w in [y, *extra]:  # every direction an eigenvector of θ, by an explicit product
                res = float(np.linalg.norm(np.asarray(matvec(zj, jnp.asarray(w))) - th * w))
                if res > RITZ_RTOL * max(scale, 1e-300):
                    return refuse(f"a {'Ritz' if w is y else 'combination'} residual {res:.1e} exceeds {RITZ_RTOL:g} "
                                  "relative", stabilizer=orbits, representatives=len(reps), krylov=used)
            for w in [y, *extra]:
                if not any(abs(float(np.sum(w * v))) >= 1.0 - DUPLICATE_ATOL for v in vecs):
                    thetas.append(float(th))
                    vecs.append(w)
                    flags.append(w is y)
    if plain is not None and len(vecs) >= plain:
        return refuse(f"no saving ({len(vecs)} directions for {plain} modes; plain following takes one per mode "
                      "and pairs inside degenerate eigenspaces)", stabilizer=orbits,
                      representatives=len(reps), krylov=used)
    order = np.argsort(thetas, kind="stable")
    return SymmetricModes(True, "", np.stack(vecs)[order] if vecs else empty, np.asarray(thetas)[order], len(reps),
                          used, int(sum(flags)), np.asarray(flags, dtype=bool)[order], orbits)
