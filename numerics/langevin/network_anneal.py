"""Annealing from the minima of a saved landscape network: starts, the Kramers band of a named minimum, final basins.

What the ``anneal`` command needs beyond :func:`.network_runs.schedule_sample` to run chains on a
:class:`~contrastive_bounds.numerics.landscapes.network.LandscapeSpec` from the minima of a saved search
(:mod:`contrastive_bounds.numerics.landscapes.network.saved`) and to put Paper A's predictions beside them
(docs/theorems.md A4, A5, A9):

* :func:`network_starts` / :func:`uniform_starts` — initial states ``(chains, N, d)``: a minimum under
  independent Haar rotations where the potential is ``O(d)``-invariant (every copy is the same minimum
  modulo symmetry), the minimum itself otherwise; or i.i.d. uniform points;
* the default δ of the global set ``{V < V_min + δ}`` is the one rule
  :func:`~contrastive_bounds.numerics.langevin._global_set.global_set_margin`: half the gap between
  ``V_min`` and the lowest non-global minimum, so the set lies inside the basins of the global minima
  (a point whose gradient flow ends at a minimum ``m`` has ``V >= V(m)``);
* :func:`minimum_trap` — the Eyring–Kramers escape data of any non-global minimum of the network
  (:func:`~contrastive_bounds.numerics.landscapes.network_kramers.network_trap`, which takes the
  deepest trap, applied to the network with only that minimum's barrier kept);
* :func:`trap_prediction` — the Eyring–Kramers probability of never escaping under a schedule,
  ``exp(−∫ dt/τ(T(t)))``, with the band of a stated model error (as check ``A4.infonce_landscape``);
* :func:`final_basins` — which network minimum each final state quenches to (the network's L-BFGS,
  then energy and, where energies tie, symmetry equivalence).

**Radius.** Spec eigenvalues are in the unit-sphere metric; on the radius-R sphere every rate is
``1/R²`` times the unit-sphere one (the clock ``t = R²·s`` of :mod:`.network_runs`), so the log-prefactors
lose ``2·log R`` and the Euler step of the bias is ``h/R²``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax
import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real, check_seed
from contrastive_bounds.theory._kramers import expected_escapes

from contrastive_bounds.numerics.landscapes.network.constants import LOOSE_ENERGY_RTOL, LOOSE_TOL
from contrastive_bounds.numerics.landscapes.network.optimize import CONVERGED, STALLED, minimize_batch
from contrastive_bounds.numerics.landscapes.network.symmetry import equivalent
from contrastive_bounds.numerics.landscapes.network.verify import classify
from contrastive_bounds.numerics.landscapes.kramers_curvature import curvature_path
from contrastive_bounds.numerics.landscapes.network_kramers import (
    NetworkTrap,
    euler_step_log_rate_bias,
    network_trap,
    trap_starts,
)
from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics._sphere import uniform

__all__ = ["network_starts", "uniform_starts", "stiffest_eigenvalue", "minimum_trap",
           "TrapPrediction", "trap_prediction", "final_basins", "UNKNOWN_MINIMUM", "NOT_CONVERGED",
           "KRAMERS_ERROR_PER_T_OVER_H", "MIN_BARRIER_OVER_T", "MAX_HARMONIC_DEPARTURE", "laplace_regime"]

#: Stated relative error of the Eyring-Kramers time at ``T``: ``F_T = 1 + KRAMERS_ERROR_PER_T_OVER_H·T/H`` (the law is
#: exact to ``1 + O(T/ΔV)`` for non-degenerate critical points; measured departures on the N = 4 and N = 6 traps at
#: d = 2, tau = 0.1: 0.8-2.0 x T/H for H/T in [2.5, 5.5], docs/annealing.md); the allowance of check A4.infonce_landscape
#: and of :func:`trap_prediction`'s band.
KRAMERS_ERROR_PER_T_OVER_H = 3.0
#: Smallest H/T at the hottest temperature for which that allowance is used.
MIN_BARRIER_OVER_T = 2.5
#: Largest rate-weighted departure of the potential from its quadratic model (:func:`laplace_regime`) at the hottest
#: temperature for which the allowance is used: 1 (the quadratic off by 100 %). The traps the allowance was measured on
#: (N = 4 and N = 6 at d = 2, tau = 0.1) stay below 0.64 down to H/T = 2.5; the N = 6, d = 3, tau = 0.1 trap reaches 1.55
#: at H/T = 5.6, where the measured escape rate is 2.2x below the law, and 0.91 at H/T = 8, where it is 1.36x below
#: (inside the allowance; docs/annealing.md).
MAX_HARMONIC_DEPARTURE = 1.0
#: :func:`final_basins` label of a final state that quenched to a minimum the network does not hold.
UNKNOWN_MINIMUM = -1
#: :func:`final_basins` label of a final state whose quench did not converge.
NOT_CONVERGED = -2
_QUENCH_GTOL = 1e-5
#: :func:`final_basins` confirms a match by graph isomorphism up to this N; above, by the sorted-Gram invariant
ISOMORPHISM_MAX_POINTS = 24


def _same_class(a: Any, b: Any, spec: Any = None) -> bool:
    """Equal sorted Gram entries (all pairs; within ``LOOSE_TOL``): a necessary condition for equivalence under
    ``O(d)`` × permutations, used where isomorphism tests of the labelled Gram graphs are too slow (the
    loose tolerance merges many Gram entries into one label at large N)."""
    ga, gb = np.asarray(a) @ np.asarray(a).T, np.asarray(b) @ np.asarray(b).T
    iu = np.triu_indices(ga.shape[0], 1)
    return bool(np.max(np.abs(np.sort(ga[iu]) - np.sort(gb[iu]))) <= 4 * LOOSE_TOL)


def network_starts(spec: Any, z: Any, chains: int, seed: int) -> np.ndarray:
    """``chains`` copies of the configuration ``z`` ``(N, d)``, float64 ``(chains, N, d)``: under independent
    Haar rotations (``numpy.random.default_rng(seed)``) when ``spec.symmetry`` contains ``O(d)``, unrotated
    otherwise (a rotated minimum of a potential without that symmetry is not a minimum).

    Raises:
      ValueError: chains < 1, a bad seed, ``z`` not ``(N, d)`` with unit rows.
    """
    chains = check_int("chains", chains, 1, None)
    if getattr(getattr(spec, "symmetry", None), "orthogonal", False):
        return trap_starts(z, chains, seed)
    a = np.asarray(z, dtype=np.float64)
    check_seed(seed)
    if a.ndim != 2 or not np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-9):
        raise ValueError(f"z must be (N, d) with unit rows, got shape {a.shape}")
    return np.broadcast_to(a, (chains,) + a.shape).copy()


def uniform_starts(spec: Any, chains: int, seed: int) -> np.ndarray:
    """I.i.d. uniform states on ``(S^{d−1})^N``, float64 ``(chains, N, d)``, key ``fold_in(key(seed), 1)``
    (independent of the simulation's noise, which uses ``key(seed)``; as the S¹ ``start_positions``).

    Raises:
      ValueError: chains < 1, a bad seed. X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.langevin.network_anneal.uniform_starts")
    chains = check_int("chains", chains, 1, None)
    key = jax.random.fold_in(jax.random.key(check_seed(seed)), 1)
    return np.asarray(uniform(key, (chains, spec.num_points, spec.dim), dtype=np.float64))


def stiffest_eigenvalue(spec: Any, z: Any, curvature: str | None = None) -> float:
    """The largest ``|λ|`` of the Hessian off the symmetry modes at ``z`` ``(N, d)`` float64 (unit-sphere metric,
    units of V): the Euler step's stability number there is ``h·λ`` (must stay well below 2).

    Dense (every eigenvalue, :func:`~contrastive_bounds.numerics.landscapes.network.verify.classify`) up to
    ``N·d = HESSIAN_FREE_ABOVE``, Hessian-free above (Lanczos at both ends of the spectrum plus its residual,
    :func:`~contrastive_bounds.numerics.landscapes.hessfree.logdet.stiffest_eigenvalue_bound`, an upper bound within
    about 1e-6 relative: no ``(N·d)²`` array);
    ``curvature`` ``"dense"``/``"hessfree"`` forces one (:func:`~contrastive_bounds.numerics.landscapes.kramers_curvature.curvature_path`).

    Raises:
      X64DisabledError: JAX's x64 mode is off. ValueError: a bad ``curvature``.
    """
    a = np.asarray(z, dtype=np.float64)
    if curvature_path(a.shape[0], a.shape[1], curvature) == "hessfree":
        from contrastive_bounds.numerics.landscapes.hessfree.logdet import stiffest_eigenvalue_bound

        require_x64(np.float64, what="contrastive_bounds.numerics.langevin.network_anneal.stiffest_eigenvalue")
        return stiffest_eigenvalue_bound(spec.potential, a, orthogonal=bool(getattr(spec.symmetry, "orthogonal", False)))
    lam = np.asarray(classify(spec, a).eigenvalues, dtype=np.float64)
    return float(np.max(np.abs(lam))) if lam.size else 0.0


@dataclass
class _NetworkView:
    """What :func:`network_trap` reads of a network result."""

    landscape: dict[str, Any]
    minima: list[Any]
    transition_states: list[Any]
    analysis: Any


def minimum_trap(saved: Any, spec: Any, minimum_id: int, analysis: Any = None) -> NetworkTrap | None:
    """Eyring–Kramers escape data of the non-global minimum ``minimum_id`` of a saved network.

    Args:
      saved: a :class:`~contrastive_bounds.numerics.landscapes.network.saved.SavedSearch` of ``spec``.
      spec: its :class:`~contrastive_bounds.numerics.landscapes.network.LandscapeSpec` (Hessians are
        recomputed, float64). minimum_id: the minimum. analysis: ``saved.analysis()`` if already computed.

    Returns:
      :class:`~contrastive_bounds.numerics.landscapes.network_kramers.NetworkTrap` of that minimum (its
      ``barrier`` is the minimum's barrier to a lower minimum), or ``None`` for a global minimum or one
      with no path to a lower minimum in the network.

    Raises:
      ValueError: ``saved`` is not a search of ``spec`` (the potentials' probe values differ).
    """
    a = saved.analysis() if analysis is None else analysis
    if minimum_id not in a.barriers:
        return None
    view = _NetworkView(saved.landscape, list(saved.minima), saved.verified_transition_states(),
                        dataclasses.replace(a, barriers={minimum_id: a.barriers[minimum_id]}))
    return network_trap(view, spec)


@dataclass(frozen=True)
class TrapPrediction:
    """The Eyring–Kramers probability that a chain started in a minimum never escapes by ``t_end``.

    Attributes:
      minimum: the minimum's id. predicted: ``exp(−N)``, ``N`` the expected escapes (None: no prediction).
      lo, hi: ``exp(−N·F)`` and ``exp(−N/F)`` (None: no band; see ``reason``).
      log_expected_escapes: ``log N``. factor: ``F = F_T·F_h``; model_factor: ``F_T = 1 + a·T(0)/ΔV``
        (``a`` the stated error per unit T/ΔV, ``ΔV`` the lowest escape barrier); step_factor:
        ``F_h = exp(|b₁|)``, ``b₁`` the first-order Euler log-rate bias.
      hottest_temperature: ``T(0)``; barrier_over_t: ``ΔV/T(0)``. logdet_factor: ``F_q = exp(e)``, ``e`` the largest
        stated error of the escape saddles' log-prefactors (1 where the log-determinants are exact: the dense path;
        Hessian-free: Lanczos quadrature, :func:`~contrastive_bounds.numerics.landscapes.hessfree.logdet.log_determinant`),
        a factor of ``factor``; None where no prediction was made (as ``factor``).
      direct_to_global: every escape saddle leads to a global minimum (then "never escaped" is "never
        reached the global set"); reason: why there is no prediction or no band (``""``: both given).
    """

    minimum: int
    predicted: float | None
    lo: float | None
    hi: float | None
    log_expected_escapes: float | None
    factor: float | None
    model_factor: float | None
    step_factor: float | None
    hottest_temperature: float
    barrier_over_t: float | None
    direct_to_global: bool
    reason: str = ""
    logdet_factor: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dataclasses.asdict(self)


def _exp_neg(log_n: float, scale: float) -> float:
    if log_n == -math.inf:
        return 1.0
    x = math.log(scale) + log_n
    return math.exp(-math.exp(x)) if x < 700 else 0.0


def laplace_regime(spec: Any, trap: NetworkTrap, temperature: float, *,
                   max_departure: float = MAX_HARMONIC_DEPARTURE) -> str:
    """``""`` when the Laplace (harmonic) premise of the Eyring–Kramers prefactor holds for ``trap`` at ``temperature``,
    else why not.

    The premise is measured by :func:`~contrastive_bounds.numerics.landscapes.kramers_curvature.harmonic_departure`
    (the potential two thermal widths out along each stable mode against its quadratic model) at the trap, ``e_x``, and
    at each escape saddle, ``e_s``. The relative error of the summed rate is to first order ``e_x + Σ_s w_s·e_s``, with
    ``w_s`` saddle ``s``'s share of the Eyring–Kramers rate at ``temperature`` (equal shares where the prefactor is not
    defined); above ``max_departure`` the prediction is outside the law's regime whatever ``barrier/T`` is (soft
    transverse modes, another saddle within a few T: the saddles' Gaussian neighbourhoods are not separate).

    Checked on the dense path (``N·d <= HESSIAN_FREE_ABOVE``) where the saddles' coordinates are recorded; above it, or
    without them, ``""`` (not checked: the stated allowance alone).

    Raises:
      ValueError: bad ``temperature`` or ``max_departure``. X64DisabledError: JAX's x64 mode is off.
    """
    from contrastive_bounds.numerics.landscapes.kramers_curvature import HESSIAN_FREE_ABOVE, harmonic_departure

    t = check_real("temperature", temperature, 0.0, math.inf)
    cap = check_real("max_departure", max_departure, 0.0, math.inf)
    n, d = np.asarray(trap.z).shape
    if not trap.saddles or n * d > HESSIAN_FREE_ABOVE or any(s.z is None for s in trap.saddles):
        return ""
    logs = ([lp - b / t for lp, b in zip(trap.log_prefactors, trap.barriers)] if trap.non_degenerate
            else [0.0] * len(trap.saddles))
    top = max(logs)
    weights = np.exp(np.array(logs) - top)
    weights /= weights.sum()
    at_trap = harmonic_departure(spec, trap.z, t).departure
    at_saddles = [harmonic_departure(spec, s.z, t) for s in trap.saddles]
    total = at_trap + float(sum(w * h.departure for w, h in zip(weights, at_saddles)))
    if total <= cap:
        return ""
    parts = [f"the trap {at_trap:.3g}"] + [
        f"transition state {s.ts} (worst mode lambda = {h.eigenvalue:.3g}, thermal width {h.width:.3g} rad) {h.departure:.3g} "
        f"on {w:.0%} of the rate" for s, h, w in zip(trap.saddles, at_saddles, weights)]
    return (f"outside the law's regime: at T = {t:.4g} the departure of the potential from its quadratic model two thermal "
            f"widths out along the stable modes, weighted by the saddles' shares of the rate, is {total:.3g} > {cap:g} ("
            + "; ".join(parts) + "): the Laplace integrals behind the Eyring-Kramers prefactor do not hold there (the "
            "saddles are not isolated at this temperature), whatever barrier/T is")


def _laplace_checked_up_to() -> int:
    """The largest N·d at which :func:`laplace_regime` checks the Laplace premise (the dense path)."""
    from contrastive_bounds.numerics.landscapes.kramers_curvature import HESSIAN_FREE_ABOVE

    return int(HESSIAN_FREE_ABOVE)


def trap_prediction(trap: NetworkTrap, schedule: Any, *, t_end: float, step_size: float, radius: float,
                    error_per_t_over_h: float, min_barrier_over_t: float, integrator: str = "euler",
                    spec: Any = None) -> TrapPrediction:
    """Eyring–Kramers never-escape probability of ``trap`` under ``schedule`` on ``[0, t_end]``, with its band.

    ``N = ∫_0^{t_end} Σ_s k_s(T(t)) dt`` (mpmath quadrature, :func:`~contrastive_bounds.theory.expected_escapes`)
    with the prefactors modulo symmetry of :func:`~contrastive_bounds.numerics.landscapes.network_kramers.network_trap`
    (radius-R clock: ``k/R²``). The band assumes the chain's escape rate within a factor ``F`` of
    Eyring–Kramers: ``F_T = 1 + error_per_t_over_h·T(0)/ΔV`` at the hottest temperature of the run
    (schedules do not increase; the law's error is ``O(T/ΔV)``) times ``F_h = exp(|b₁|)``, the projected
    Euler step's first-order bias (:func:`~contrastive_bounds.numerics.landscapes.network_kramers.euler_step_log_rate_bias`
    at the unit-sphere step ``h/R²``) — the allowance of check ``A4.infonce_landscape`` — times ``F_q``, the stated error of Hessian-free
    log-determinants (1 on the dense path). No band where
    ``ΔV/T(0) < min_barrier_over_t`` (outside the regime the allowance was measured in), nor for another
    integrator than ``"euler"``, nor above ``N·d = HESSIAN_FREE_ABOVE`` with ``spec`` (the Laplace premise is not
    checked there; a per-trap-closed trap at N·d = 2 048 escaped at constants two to three times those predicted), nor
    where the Laplace premise fails at ``T(0)`` (:func:`laplace_regime`, with ``spec``:
    the band's allowance was measured on traps whose saddles are harmonic over a thermal width); no prediction where the
    prefactor is undefined (degenerate modulo symmetry).

    Args:
      trap: from :func:`minimum_trap`. schedule: a ``Schedule``. t_end, step_size: radius-R clock, > 0.
      radius: R > 0. error_per_t_over_h: ``a`` > 0. min_barrier_over_t: > 0.
      spec: the landscape (None: the Laplace premise is not checked).

    Raises:
      ValueError: bad arguments (named), a schedule invalid on ``[0, t_end]`` (C12).

    Source: docs/theorems.md A5 (Eyring–Kramers; Bovier, Gayrard & Klein 2004 Thm 3.2), A9.
    """
    te = check_real("t_end", t_end, 0.0, math.inf)
    h = check_real("step_size", step_size, 0.0, math.inf)
    r2 = check_real("radius", radius, 0.0, math.inf) ** 2
    a = check_real("error_per_t_over_h", error_per_t_over_h, 0.0, math.inf)
    floor = check_real("min_barrier_over_t", min_barrier_over_t, 0.0, math.inf)
    schedule.validate_range(0.0, te)
    t_hot = float(schedule.temperature(0.0))
    none = dict(predicted=None, lo=None, hi=None, log_expected_escapes=None, factor=None, model_factor=None,
                step_factor=None, hottest_temperature=t_hot, direct_to_global=trap.direct_to_global)
    if not trap.saddles:
        return TrapPrediction(trap.minimum, barrier_over_t=None, reason="no verified transition state joins the minimum "
                              "to a lower one", **none)
    barrier = min(trap.barriers)
    if not trap.non_degenerate:
        return TrapPrediction(trap.minimum, barrier_over_t=barrier / t_hot, reason="no Eyring-Kramers prefactor: "
                              + trap.prefactor_reason, **none)
    lps = [lp - math.log(r2) for lp in trap.log_prefactors]
    log_n = expected_escapes(schedule, trap.barriers, lps, 0.0, te)
    f_t = 1.0 + a * t_hot / barrier
    f_h = math.exp(abs(euler_step_log_rate_bias(trap, h / r2)))
    f_q = math.exp(max(s.log_prefactor_error for s in trap.saddles))
    reason = ""
    if barrier / t_hot < floor:
        reason = (f"T(0) = {t_hot:.4g} is hot for the lowest escape barrier {barrier:.4g} (barrier/T(0) = "
                  f"{barrier / t_hot:.3g} < {floor:g}): outside the regime of the stated allowance, no band")
    elif integrator != "euler":
        reason = f"the step factor is calibrated for the euler integrator, not {integrator!r}: no band"
    elif spec is not None and np.asarray(trap.z).size > _laplace_checked_up_to():
        reason = (f"the Laplace premise of the prefactor is not checked above N·d = {_laplace_checked_up_to()} (N·d = "
                  f"{np.asarray(trap.z).size}; its check needs the dense Hessian), and at N·d = 2 048 the predicted escape rate "
                  "was measured e^100 times too high or more (docs/landscape-findings.md): no band")
    elif spec is not None:
        regime = laplace_regime(spec, trap, t_hot)
        reason = f"{regime}; no band" if regime else ""
    f = f_t * f_h * f_q
    lo, hi = (None, None) if reason else (_exp_neg(log_n, f), _exp_neg(log_n, 1.0 / f))
    return TrapPrediction(trap.minimum, _exp_neg(log_n, 1.0), lo, hi, log_n, f, f_t, f_h, t_hot, barrier / t_hot,
                          trap.direct_to_global, reason, f_q)


def final_basins(spec: Any, positions: Any, minima: Sequence[Any], *, block: int = 256,
                 should_stop: Callable[[], bool] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The network minimum each state quenches to: ``(labels (chains,) int64, quenched energies (chains,))``.

    Each state is minimised by the network's batched Riemannian L-BFGS
    (:func:`~contrastive_bounds.numerics.landscapes.network.optimize.minimize_batch`, ``gtol`` 1e-6, vmapped
    over a block of states) and matched as the search's catalogue matches an unrefined minimiser output: a
    minimum of the same energy (within ``1e-6·max(1, |V|)``) that it is equivalent to under
    ``spec.symmetry`` (:func:`~contrastive_bounds.numerics.landscapes.network.symmetry.equivalent` at
    ``LOOSE_TOL``; a graph-isomorphism test per state, about 0.5 ms at N = 4 and 6 ms at N = 16 with all
    permutations; above ``ISOMORPHISM_MAX_POINTS`` = 24 points the sorted Gram entries within ``4·LOOSE_TOL``
    instead, a necessary condition: two minima of equal energy and equal sorted Gram entries that are not
    equivalent would be merged). Labels: the minimum's id, :data:`UNKNOWN_MINIMUM` (a minimum the network does not hold:
    the search missed it), :data:`NOT_CONVERGED`.

    Args:
      spec: the landscape spec. positions: ``(chains, N, d)`` float64 on the spheres. minima: the network's
        :class:`~contrastive_bounds.numerics.landscapes.network.NetworkMinimum` records.
      block: states minimised between two looks at ``should_stop`` (>= 1).
      should_stop: called between blocks; True raises ``KeyboardInterrupt`` (the caller's Ctrl-C flag).

    Raises:
      ValueError: bad ``block``. KeyboardInterrupt: ``should_stop()`` returned True.
      X64DisabledError: JAX's x64 mode is off.
    """
    require_x64(np.float64, what="contrastive_bounds.numerics.langevin.network_anneal.final_basins")
    block = check_int("block", block, 1, None)
    z = np.asarray(positions, dtype=np.float64)
    energies = np.array([m.energy for m in minima], dtype=np.float64)
    labels = np.full(z.shape[0], NOT_CONVERGED, dtype=np.int64)
    quenched = np.full(z.shape[0], np.nan)
    for lo in range(0, z.shape[0], block):
        if should_stop is not None and should_stop():
            raise KeyboardInterrupt
        res = minimize_batch(spec, z[lo:lo + block])
        e = np.asarray(res.energy, dtype=np.float64)
        ok = np.isin(np.asarray(res.status), (CONVERGED, STALLED)) | (np.asarray(res.gradient_norm) <= _QUENCH_GTOL)
        close = np.abs(e[:, None] - energies[None, :]) <= LOOSE_ENERGY_RTOL * np.maximum(
            1.0, np.maximum(np.abs(e)[:, None], np.abs(energies)[None, :]))
        out = np.full(e.shape, UNKNOWN_MINIMUM, dtype=np.int64)
        same = _same_class if spec.num_points > ISOMORPHISM_MAX_POINTS else \
            (lambda a, b: equivalent(a, b, spec.symmetry, tol=LOOSE_TOL))
        for k in np.flatnonzero(ok & close.any(axis=1)):  # same energy: confirm the configuration up to symmetry
            out[k] = next((m.id for m, c in zip(minima, close[k]) if c and same(m.z, res.z[k])), UNKNOWN_MINIMUM)
        labels[lo:lo + block] = np.where(ok, out, NOT_CONVERGED)
        quenched[lo:lo + block] = e
    return labels, quenched
