"""Eyring–Kramers escape data of a landscape network's trap, modulo the potential's symmetry (A5, A9).

A landscape network (:mod:`.network`) gives the minima and verified transition states of a potential
on ``(S^{d−1})^N`` up to its symmetry group ``G = O(d) × Π`` (Π: the permutations the potential allows).
:func:`network_trap` turns it into what Paper A's trap predictions need:

* the *trap*: the non-global minimum whose barrier is ``H*`` (the deepest trap of the network);
* its *escape saddles*: the verified transition states joining it to a strictly lower minimum, each
  with its barrier ``V(s) − V(x)``, its full Hessian spectrum off the symmetry modes and its count
  ``n_s`` per trap configuration;
* whether the Eyring–Kramers prefactor is defined there (the minima are *non-degenerate modulo
  symmetry*), and if so the log-prefactor of each saddle's rate.

Prefactor modulo symmetry. The trap and each saddle are not points but ``O(d)`` orbits (manifolds of
critical points). For orbits of the same dimension whose Hessians are non-degenerate off the orbit
directions, the Eyring–Kramers rate out of one trap orbit is (Bovier, Gayrard & Klein, J. Eur.
Math. Soc. 6 (2004) Thm 3.2, with the Laplace integrals taken over the orbits — their volumes
enter as a ratio; cf. Berglund, Markov Process. Relat. Fields 19 (2013) §4.2 for critical
manifolds)::

    k(T) = Σ_s n_s · |λ₁(s)|/(2π) · sqrt(det′H(x) / |det′H(s)|) · (ω_s/ω_x) · exp(−(V(s) − V(x))/T)

with ``det′`` over the non-zero modes (the eigenvalues the network's verification computes), ``ω``
the orbit's volume density (the product of the non-zero singular values of the generator fields
``(A z_i)``, divided by the order of the discrete stabiliser in ``O(d)``: 2 at rank ``d − 1``, 1 at
rank ``d``) and ``n_s = multiplicity(s)·e_s/multiplicity(x)`` the number of copies (modulo ``O(d)``)
of saddle ``s`` on the boundary of one copy of the trap (``e_s`` ends of ``s`` at the trap's class).
Where any condition fails (a degenerate minimum or saddle, orbit dimensions that differ, a rank below
``d − 1`` with its continuous stabiliser, or an adjacent saddle that leads to a minimum that is not
lower) the prefactor is *not* given: :attr:`NetworkTrap.prefactor_reason` says why and only the
Arrhenius exponent (the barrier) is used (docs/theorems.md A5, A9).

Size switch. Up to ``N·d = HESSIAN_FREE_ABOVE`` the Hessians are the dense reference (:mod:`.network.verify`,
every eigenvalue, exact ``det′`` and trace); above it nothing of size ``(N·d)²`` is formed: each point is certified
by Lanczos with residual bounds (:func:`~.hessfree.verify_point`), its ``log|det′H|`` and ``tr′H`` come from
Lanczos quadrature (:func:`~.hessfree.logdet.log_determinant`: the softest modes — the negative one at a saddle —
from Lanczos, the rest summed exactly over the coordinate vectors up to ``N·d = RADEMACHER_ABOVE``, by
``RADEMACHER_PROBES`` Rademacher probes above, shared by the trap and each saddle so the difference of the two
log-determinants has the spread of the paired differences, :func:`~.hessfree.logdet.paired_difference`; its stated
error goes into :attr:`EscapeSaddle.log_prefactor_error`), the orbit density from the analytic singular values
(:func:`~.hessfree.logdet.log_orbit_volume_density`) and the stiffest eigenvalue from Lanczos at both ends of the
spectrum. ``curvature="dense"`` or ``"hessfree"`` forces a path (the tests compare them).

Also: :func:`random_rotations` (Haar on ``O(d)``) and :func:`trap_starts` (the trap's minimum under
independent random rotations: the chains' initial states).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contrastive_bounds.numerics.landscapes.kramers_curvature import curvature_path, point_curvature
from contrastive_bounds.theory._domains import check_int, check_real, check_seed

__all__ = ["EscapeSaddle", "NetworkTrap", "network_trap", "random_rotations", "trap_starts",
           "euler_step_log_rate_bias"]



@dataclass(frozen=True)
class EscapeSaddle:
    """A verified transition state joining the trap to a strictly lower minimum.

    Attributes:
      ts: its id in the network; energy: V(s); barrier: ``V(s) − V(trap)`` (> 0).
      target: id of the lower minimum it leads to; target_energy: its V.
      eigenvalues: Hessian eigenvalues off the symmetry modes, ascending (exactly one < 0).
      count: ``n_s``, copies per trap configuration (modulo O(d)).
      orbit_density: ``ω_s`` (see the module docstring).
      log_prefactor: natural log of ``n_s·|λ₁|/(2π)·sqrt(det′H(x)/|det′H(s)|)·ω_s/ω_x``, or None when the
        prefactor is not defined (see :attr:`NetworkTrap.prefactor_reason`).
      trace: ``tr′H(s)``. log_abs_det: ``log|det′H(s)|``. log_prefactor_error: stated error of
        ``log_prefactor`` (0 on the dense path; Hessian-free: half the error of the log-determinants' difference),
        and ``eigenvalues`` hold the whole spectrum on the dense path, the lowest few (certified) on the Hessian-free one.
      z: the transition state's coordinates ``(N, d)`` float64 (None where not recorded; not in :meth:`to_dict`).
    """

    ts: int
    energy: float
    barrier: float
    target: int
    target_energy: float
    eigenvalues: tuple[float, ...]
    count: float
    orbit_density: float
    log_prefactor: float | None
    trace: float = math.nan
    log_abs_det: float = math.nan
    log_prefactor_error: float = 0.0
    z: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"ts": self.ts, "energy": self.energy, "barrier": self.barrier, "target": self.target,
                "target_energy": self.target_energy, "eigenvalues": list(self.eigenvalues), "count": self.count,
                "orbit_density": self.orbit_density, "log_prefactor": self.log_prefactor, "trace": self.trace,
                "log_abs_det": self.log_abs_det, "log_prefactor_error": self.log_prefactor_error}


@dataclass(frozen=True)
class NetworkTrap:
    """The deepest trap of a landscape network with its escape saddles (see the module docstring).

    Attributes:
      minimum: the trap's id; energy: V(trap); z: ``(N, d)`` its representative (float64).
      barrier: its barrier in the network (= H* when the network is complete).
      v_min: the network's global minimum energy; global_z: a global minimum ``(N, d)``.
      eigenvalues: the trap's Hessian eigenvalues off the symmetry modes, ascending.
      multiplicity: copies of the trap modulo O(d) (None: not computed); orbit_density: ``ω_x``.
      saddles: the escape saddles (lowest barrier first).
      prefactor_reason: ``""`` when the Eyring–Kramers prefactor is defined (non-degenerate modulo
        symmetry), else why it is not (then only the Arrhenius exponent is used).
      direct_to_global: every escape saddle leads straight to a global minimum.
      stiffest: the largest eigenvalue at the trap (sets the simulator's step size).
      trace: ``tr′H(x)``; log_det: ``log det′H(x)``; log_det_error: its stated error (0 dense).
      curvature: ``"dense"`` (every eigenvalue) or ``"hessfree"`` (eigenvalues: the lowest few, certified).
    """

    minimum: int
    energy: float
    z: np.ndarray = field(repr=False)
    barrier: float
    v_min: float
    global_z: np.ndarray = field(repr=False)
    eigenvalues: tuple[float, ...]
    multiplicity: int | None
    orbit_density: float
    saddles: tuple[EscapeSaddle, ...]
    prefactor_reason: str
    direct_to_global: bool
    stiffest: float
    trace: float = math.nan
    log_det: float = math.nan
    log_det_error: float = 0.0
    curvature: str = "dense"

    @property
    def non_degenerate(self) -> bool:
        """True when the Eyring–Kramers prefactor is defined (no reason against it)."""
        return self.prefactor_reason == ""

    @property
    def log_prefactors(self) -> list[float]:
        """Per escape saddle, ``log`` of its rate prefactor (the ``log_prefactors`` argument of
        :func:`contrastive_bounds.theory.expected_escapes`).

        Raises:
          ValueError: the prefactor is not defined (:attr:`prefactor_reason`).
        """
        if not self.non_degenerate:
            raise ValueError(f"the Eyring-Kramers prefactor is not defined for this trap: {self.prefactor_reason}")
        return [float(s.log_prefactor) for s in self.saddles]

    @property
    def barriers(self) -> list[float]:
        """Per escape saddle, ``V(s) − V(trap)``."""
        return [s.barrier for s in self.saddles]

    def log_escape_time(self, temperature: float) -> float:
        """``log`` of the Eyring–Kramers mean escape time at fixed ``T`` (rates of the saddles add).

        Raises:
          ValueError: T not > 0, or the prefactor is not defined.
        """
        t = check_real("temperature", temperature, 0.0, math.inf)
        terms = [lp - b / t for lp, b in zip(self.log_prefactors, self.barriers)]
        m = max(terms)
        return -(m + math.log(sum(math.exp(x - m) for x in terms)))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (coordinates included)."""
        return {"minimum": self.minimum, "energy": self.energy, "z": np.asarray(self.z).tolist(), "barrier": self.barrier,
                "v_min": self.v_min, "eigenvalues": list(self.eigenvalues), "multiplicity": self.multiplicity,
                "orbit_density": self.orbit_density, "saddles": [s.to_dict() for s in self.saddles],
                "non_degenerate": self.non_degenerate, "prefactor_reason": self.prefactor_reason,
                "direct_to_global": self.direct_to_global, "stiffest": self.stiffest, "trace": self.trace,
                "log_det": self.log_det, "log_det_error": self.log_det_error, "curvature": self.curvature}


def network_trap(result: Any, spec: Any, *, curvature: str | None = None) -> NetworkTrap | None:
    """The deepest trap of a network with its escape saddles and prefactor data (module docstring).

    Args:
      result: a :class:`~.network.NetworkResult` of ``spec`` (complete or not; only connected minima
        have a barrier). spec: the :class:`~.network.LandscapeSpec` searched (its Hessians are
        recomputed at the trap and the saddles, float64, off the symmetry modes). curvature: None (dense up to
        ``N·d = HESSIAN_FREE_ABOVE``, Hessian-free above), ``"dense"`` or ``"hessfree"``.

    Returns:
      :class:`NetworkTrap`, or ``None`` when the network has no non-global minimum with a barrier
      (barrier-free within the search).

    Raises:
      ValueError: ``result`` is not a network of ``spec`` (its landscape fingerprint differs); a bad ``curvature``.
    """
    if result.landscape.get("probe") != spec.fingerprint().get("probe"):
        raise ValueError("result is not a network of spec (landscape fingerprints differ)")
    barriers = result.analysis.barriers
    if not barriers:
        return None
    tid = max(barriers, key=lambda k: (barriers[k]["barrier"], -k))
    by_id = {m.id: m for m in result.minima}
    trap = by_id[tid]
    tie = 1e-10 * max(1.0, abs(trap.energy))
    n, d = np.asarray(trap.z).shape
    path = curvature_path(n, d, curvature)
    cp = point_curvature(spec, trap.z, expect=0, curvature=path, stiffest=True)
    rank_x, odim_x = cp.rank, cp.orbit_dim
    reasons = []
    if not cp.verified or cp.index != 0:
        reasons.append(f"the trap is degenerate modulo symmetry ({cp.reason or 'index ' + str(cp.index)})")
    if rank_x < d - 1:
        reasons.append(f"the trap has rank {rank_x} < d - 1 = {d - 1} (continuous stabiliser O({d - rank_x}))")
    det_x = cp.log_abs_det if cp.verified else math.nan
    saddles, other_exits = [], []
    for ts in result.transition_states:
        if tid not in ts.minima or len(set(ts.minima)) < 2:
            continue
        other = [m for m in ts.minima if m != tid][0]
        if by_id[other].energy >= trap.energy - tie:
            other_exits.append((ts.energy - trap.energy, other))
            continue
        e_s = sum(1 for m in ts.minima if m == tid)
        if not ts.multiplicity or not trap.multiplicity:  # None ("not computed"; 0 in older files)
            reasons.append(f"the multiplicity of {'the trap' if not trap.multiplicity else f'transition state {ts.id}'} "
                           "was not computed: the saddle count n_s is unknown")
            count = math.nan
        else:
            count = ts.multiplicity * e_s / trap.multiplicity
        cs = point_curvature(spec, ts.z, expect=1, curvature=path)
        rank_s, odim_s = cs.rank, cs.orbit_dim
        lp, lp_err = None, 0.0
        if not cs.verified or cs.index != 1:
            reasons.append(f"transition state {ts.id} is degenerate modulo symmetry ({cs.reason or 'index ' + str(cs.index)})")
        elif odim_s != odim_x or rank_s < d - 1:
            reasons.append(f"transition state {ts.id} has orbit dimension {odim_s} (rank {rank_s}) against the trap's "
                           f"{odim_x} (rank {rank_x}): the orbit volumes do not cancel to a ratio")
        elif cp.verified and math.isfinite(count):
            if cp.log_det is not None and cs.log_det is not None:
                from contrastive_bounds.numerics.landscapes.hessfree.logdet import paired_difference

                diff, diff_err = paired_difference(cp.log_det, cs.log_det)
            else:
                diff, diff_err = det_x - cs.log_abs_det, cp.error + cs.error
            lp = (math.log(count) + math.log(abs(float(cs.eigenvalues[0]))) - math.log(2 * math.pi)
                  + 0.5 * diff + (cs.log_omega - cp.log_omega))
            lp_err = 0.5 * diff_err
        saddles.append(EscapeSaddle(ts.id, float(ts.energy), float(ts.energy - trap.energy), other,
                                    float(by_id[other].energy), cs.eigenvalues, float(count),
                                    _exp_or_inf(cs.log_omega), lp, cs.trace, cs.log_abs_det, lp_err,
                                    np.asarray(ts.z, dtype=np.float64)))
    saddles.sort(key=lambda s: s.barrier)
    if not saddles:
        reasons.append("no verified transition state joins the trap to a lower minimum")
    elif other_exits and min(b for b, _ in other_exits) < saddles[0].barrier:
        reasons.append(f"a lower saddle (barrier {min(b for b, _ in other_exits):.6g}) leads to a minimum that is not lower "
                       "than the trap: a one-step Kramers model of the escape does not hold")
    if any(s.log_prefactor is None for s in saddles) and not reasons:
        reasons.append("a saddle's prefactor is undefined")
    glob = result.analysis.global_minima
    gz = np.asarray(by_id[glob[0]].z, dtype=np.float64)
    direct = bool(saddles) and all(s.target in glob for s in saddles)
    return NetworkTrap(tid, float(trap.energy), np.asarray(trap.z, dtype=np.float64), float(barriers[tid]["barrier"]),
                       float(result.analysis.v_min), gz, cp.eigenvalues, trap.multiplicity or None,
                       _exp_or_inf(cp.log_omega), tuple(saddles), "; ".join(dict.fromkeys(reasons)), direct,
                       float(cp.stiffest), cp.trace, det_x, cp.error, path)


def _exp_or_inf(x: float) -> float:
    return math.exp(x) if x < 700 else math.inf


def euler_step_log_rate_bias(trap: NetworkTrap, step_size: float) -> float:
    """First-order log escape-rate bias of the Euler–Maruyama chain, ``(h/2)·(tr′H(x) − tr′H(s))``.

    The Euler–Maruyama chain at fixed T samples, to first order in h, ``exp(−Ṽ/T)`` with
    ``Ṽ = V − (h/4)|∇V|² + (hT/2)ΔV`` (the modified invariant measure of the unadjusted Langevin
    algorithm; exact for quadratic V, where the variance is ``T/(λ(1 − hλ/2))``). At critical points
    the gradient term vanishes, so the barrier changes by ``(hT/2)(ΔV(s) − ΔV(x))`` and the rate by the
    factor ``exp((h/2)(tr H(x) − tr H(s)))``, independent of T (traces over the modes off the symmetry,
    taken at the lowest escape saddle). It moves the Arrhenius intercept, not the slope.

    Raises:
      ValueError: ``step_size`` not > 0; a trap without escape saddles.
    """
    h = check_real("step_size", step_size, 0.0, math.inf)
    if not trap.saddles:
        raise ValueError("the trap has no escape saddle")
    s = trap.saddles[0]
    tr_x = trap.trace if math.isfinite(trap.trace) else float(np.sum(trap.eigenvalues))
    tr_s = s.trace if math.isfinite(s.trace) else float(np.sum(s.eigenvalues))
    return 0.5 * h * (tr_x - tr_s)


def random_rotations(rng: np.random.Generator, count: int, dim: int) -> np.ndarray:
    """``count`` Haar-distributed elements of ``O(dim)``, float64 ``(count, dim, dim)``.

    QR of a Gaussian matrix with the signs of ``diag(R)`` moved into ``Q`` (Mezzadri, Notices AMS 54
    (2007) 592). Raises ValueError for count < 1 or dim < 1.
    """
    count = check_int("count", count, 1, None)
    dim = check_int("dim", dim, 1, None)
    g = rng.normal(size=(count, dim, dim))
    q, r = np.linalg.qr(g)
    s = np.sign(np.diagonal(r, axis1=1, axis2=2))
    s[s == 0] = 1.0
    return q * s[:, None, :]


def trap_starts(z: Any, chains: int, seed: int) -> np.ndarray:
    """Initial states ``(chains, N, d)``: the configuration ``z`` ``(N, d)`` under independent Haar
    rotations of ``O(d)`` (``numpy.random.default_rng(seed)``); every row stays a unit vector.

    Raises:
      ValueError: chains < 1, a bad seed, ``z`` not ``(N, d)`` with unit rows.
    """
    a = np.asarray(z, dtype=np.float64)
    if a.ndim != 2 or not np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-9):
        raise ValueError(f"z must be (N, d) with unit rows, got shape {a.shape}")
    chains = check_int("chains", chains, 1, None)
    rot = random_rotations(np.random.default_rng(check_seed(seed)), chains, a.shape[1])
    return np.einsum("cij,nj->cni", rot, a)
