"""The built-in named landscapes (docs/theorems.md A1, A3, A7), looked up by :func:`._registry.get_landscape`.

* ``double-well`` — S¹, ``V = −0.5 cos θ − cos 2θ``: minima 0 (−1.5) and π (−0.5), saddles at
  ``cos θ = −1/8`` (V = 33/32), ``H* = 1.53125`` exactly (case C13).
* ``triple-well`` — S¹, ``V = cos 3θ + 0.5 cos θ``: ``H* ≈ 1.5215`` (two equal non-global minima).
* ``barrier-H`` (param ``H`` in ``(0, 1e6]``) — S¹, ``V = (H / 1.53125)·(−0.5 cos θ − cos 2θ)``: the double
  well scaled so that ``H* = H`` exactly (used for the seed note's table, A8.3).
* ``fourier`` (params ``cos``, ``sin``: dicts ``{k: coefficient}``) — any S¹ trigonometric polynomial;
  files via :func:`._landscape.load_fourier`.
* ``vmf`` (params ``kappa > 0``, ``dim >= 2``, default 3) — ``V = −kappa·z_d`` on S^{dim−1}; Gibbs law
  von Mises–Fisher (A1 validation: ``E[z_3] = coth(kappa/T) − T/kappa`` on S²).
* ``vmf-mixture`` (params ``means`` (K,3), ``kappas`` (K,), ``weights`` (K,)) — S²,
  ``V = −log Σ_i w_i exp(kappa_i (mu_i·z − 1))``; default: two components with a non-global minimum.
* ``infonce-toy`` — the author's hardest-negative potential U0 on N = 4 points of S², positive pairs
  (0,1), (2,3); ``infonce-toy-soft`` (param ``beta0``) its soft-max surrogate; ``infonce``
  (params ``tau``, ``num_points``, ``dim``, ``pairs``, ``coupled``) finite-τ InfoNCE
  (see :mod:`._infonce`).
* ``thomson`` (params ``num_points >= 2``, ``dim >= 2``, default 3) — Coulomb energy
  ``Σ_{i<j} 1/|z_i − z_j|`` on ``(S^{dim−1})^N`` (see :mod:`._thomson`; published minima for N = 2..12 on S²).

:data:`BUILDERS` maps each name to its builder (keyword parameters, validated there) and
:data:`PARAMETER_RANGES` gives the allowed range of each parameter, as text.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_finite_array, check_int, check_real

from contrastive_bounds.numerics.landscapes._fourier import MAX_COEFFICIENT, FourierSeries
from contrastive_bounds.numerics.landscapes._infonce import (
    hardest_negative_potential,
    hardest_negative_value_and_grad,
    infonce_potential,
    soft_hardest_negative_potential,
)
from contrastive_bounds.numerics.landscapes._landscape import Landscape, fourier_landscape
from contrastive_bounds.numerics.landscapes._thomson import THOMSON_SOURCE, thomson_potential

__all__ = ["BUILDERS", "PARAMETER_RANGES", "DOUBLE_WELL_H"]

DOUBLE_WELL_H = 1.53125  # H* of −0.5 cos θ − cos 2θ (C13), exact in binary

def _double_well() -> Landscape:
    s = FourierSeries.from_dicts({1: -0.5, 2: -1.0})
    return fourier_landscape(
        s, name="double-well", critical_height=DOUBLE_WELL_H,
        description="V(θ) = −0.5 cos θ − cos 2θ: minima θ=0 (−1.5), θ=π (−0.5); saddles cos θ = −1/8 "
                    "(V = 33/32); H* = 1.53125 exactly",
        source="docs/theorems.md A3 / docs/reference-values.md C13 (our reference)",
    )


def _triple_well() -> Landscape:
    s = FourierSeries.from_dicts({3: 1.0, 1: 0.5})
    return fourier_landscape(
        s, name="triple-well",
        description="V(θ) = cos 3θ + 0.5 cos θ: global minimum θ=π (−1.5), two equal non-global minima; H* ≈ 1.5215",
        source="docs/theorems.md A3 / docs/reference-values.md C13 (our reference)",
    )


def _barrier_h(H: float = 1.0) -> Landscape:
    # upper end: the coefficients H/1.53125·(0.5, 1) stay within MAX_COEFFICIENT
    h = check_real("H", H, 0.0, MAX_COEFFICIENT, hi_closed=True)
    f = h / DOUBLE_WELL_H
    s = FourierSeries.from_dicts({1: -0.5 * f, 2: -1.0 * f})
    return fourier_landscape(
        s, name="barrier-H", critical_height=h, params={"H": h},
        description=f"V(θ) = (H/1.53125)(−0.5 cos θ − cos 2θ) with H = {h:g}: the double well scaled so H* = H exactly",
        source="docs/theorems.md A8.3 (test family for the seed note's table)",
    )


def _fourier(cos: dict | None = None, sin: dict | None = None) -> Landscape:
    return fourier_landscape(FourierSeries.from_dicts(cos, sin), params={"cos": cos, "sin": sin})


def _vmf(kappa: float = 1.0, dim: int = 3) -> Landscape:
    k = check_real("kappa", kappa, 0.0, math.inf)
    d = check_int("dim", dim, 2, None)

    def potential(z: jax.Array) -> jax.Array:
        return -k * z[0, d - 1]

    e = np.zeros((1, d))
    e[0, -1] = 1.0
    return Landscape(
        name="vmf", num_points=1, dim=d, potential_fn=potential, v_min=-k, critical_height=0.0, minima=(e,),
        description=f"V(z) = −{k:g}·z_{d} on S^{d - 1}; Gibbs law at T is von Mises–Fisher(κ/T); "
                    "on S²: E[z_3] = coth(κ/T) − T/κ",
        source="docs/theorems.md A1 (validation target)", params={"kappa": k, "dim": d},
    )


_DEFAULT_MIX = dict(
    means=[[0.0, 0.0, 1.0], [0.0, 0.0, -1.0]],
    kappas=[4.0, 4.0],
    weights=[0.7, 0.3],
)


def _vmf_mixture(means: Any = None, kappas: Any = None, weights: Any = None) -> Landscape:
    mu = check_finite_array("means", _DEFAULT_MIX["means"] if means is None else means, ndim=2).astype(np.float64)
    ka = check_finite_array("kappas", _DEFAULT_MIX["kappas"] if kappas is None else kappas, ndim=1).astype(np.float64)
    w = check_finite_array("weights", _DEFAULT_MIX["weights"] if weights is None else weights, ndim=1).astype(np.float64)
    if mu.shape[1] != 3 or not (mu.shape[0] == ka.size == w.size):
        raise ValueError(f"means must be (K, 3) with K = len(kappas) = len(weights); got {mu.shape}, {ka.size}, {w.size}")
    norms = np.linalg.norm(mu, axis=1)
    if np.any(np.abs(norms - 1.0) > 1e-9):
        raise ValueError(f"means must be unit vectors; norms {norms.tolist()}")
    if np.any(ka <= 0) or np.any(w <= 0):
        raise ValueError("kappas and weights must be > 0")
    logw = np.log(w / w.sum())

    def potential(z: jax.Array) -> jax.Array:
        x = z[0]
        dt = x.dtype
        return -jax.scipy.special.logsumexp(jnp.asarray(logw, dt) + jnp.asarray(ka, dt) * (jnp.asarray(mu, dt) @ x - 1.0))

    return Landscape(
        name="vmf-mixture", num_points=1, dim=3, potential_fn=potential,
        description="V(z) = −log Σ_i w_i exp(κ_i(μ_i·z − 1)) on S² (a mixture of von Mises–Fisher wells); "
                    "H* by barriers.sphere_persistence",
        source="toolkit test landscape (docs/theorems.md A3: S² meshes)",
        params={"means": mu.tolist(), "kappas": ka.tolist(), "weights": w.tolist()},
    )


def _toy_minimum() -> np.ndarray:
    z = np.zeros((4, 3))
    z[:2, 0] = 1.0
    z[2:, 0] = -1.0
    return z


_TOY_PAIRS = ((0, 1), (2, 3))


def _infonce_toy() -> Landscape:
    return Landscape(
        name="infonce-toy", num_points=4, dim=3,
        potential_fn=hardest_negative_potential(4, _TOY_PAIRS),
        v_min=-2.0, critical_height=None, minima=(_toy_minimum(),),
        description="The author's hardest-negative potential U0 = mean over pairs (both directions) of "
                    "(−s_ij + max_{k∉{i,j}} s_ik) on N = 4 points of S², pairs (0,1),(2,3); global minimum −2 "
                    "on the O(3) orbit of z0 = z1 = −z2 = −z3 (one representative listed); non-smooth; "
                    "appears barrier-free (A8.4), H* not known",
        source="Chaudhry (arXiv 2603.12552), repository notebook; docs/theorems.md A7",
        params={"pairs": _TOY_PAIRS}, value_and_grad_fn=hardest_negative_value_and_grad(4, _TOY_PAIRS),
        trailing_batch=True,
    )


def _infonce_toy_soft(beta0: float = 10.0) -> Landscape:
    b = check_real("beta0", beta0, 0.0, math.inf)
    return Landscape(
        name="infonce-toy-soft", num_points=4, dim=3,
        potential_fn=soft_hardest_negative_potential(4, _TOY_PAIRS, b),
        v_min=-2.0 + math.log(2.0) / b, critical_height=None, minima=(_toy_minimum(),),
        description=f"Soft-max surrogate of U0 at beta0 = {b:g}: max_k s_ik replaced by (1/beta0)·logsumexp(beta0·s_ik); "
                    "global minimum −2 + log(2)/beta0 on the same orbit as U0",
        source="docs/theorems.md A7 (surrogate of the author's U0)", params={"beta0": b, "pairs": _TOY_PAIRS},
    )


def _infonce(tau: float = 0.5, num_points: int = 4, dim: int = 3, pairs: Any = _TOY_PAIRS, coupled: bool = False) -> Landscape:
    t = check_real("tau", tau, 0.0, math.inf)
    n = check_int("num_points", num_points, 3, None)
    d = check_int("dim", dim, 2, None)
    prs = tuple((check_int("pair index", i, 0, n - 1), check_int("pair index", j, 0, n - 1)) for i, j in pairs)
    return Landscape(
        name="infonce", num_points=n, dim=d,
        potential_fn=infonce_potential(n, prs, t, coupled=bool(coupled)),
        description=f"finite-τ InfoNCE (τ = {t:g}, {'coupled' if coupled else 'decoupled'} denominator) over positive "
                    f"pairs {list(prs)} on N = {n} points of S^{d - 1}; V = mean loss over directed pairs; "
                    "τ·V → U0 as τ → 0",
        source="docs/theorems.md A7", params={"tau": t, "num_points": n, "dim": d, "pairs": prs, "coupled": bool(coupled)},
    )


def _thomson(num_points: int = 12, dim: int = 3) -> Landscape:
    n = check_int("num_points", num_points, 2, None)
    d = check_int("dim", dim, 2, None)
    return Landscape(
        name="thomson", num_points=n, dim=d, potential_fn=thomson_potential(n),
        description=f"Thomson problem: Coulomb energy Σ 1/|z_i − z_j| of N = {n} unit vectors on S^{d - 1}; "
                    "invariant under O(d) × all permutations; published global minima (9 decimals) for N = 2..12 on S² "
                    "in thomson.THOMSON_GLOBAL_MINIMA (v_min is left None: not known exactly)",
        source=THOMSON_SOURCE, params={"num_points": n, "dim": d},
    )


BUILDERS: dict[str, Callable[..., Landscape]] = {
    "double-well": _double_well,
    "triple-well": _triple_well,
    "barrier-H": _barrier_h,
    "fourier": _fourier,
    "vmf": _vmf,
    "vmf-mixture": _vmf_mixture,
    "infonce-toy": _infonce_toy,
    "infonce-toy-soft": _infonce_toy_soft,
    "infonce": _infonce,
    "thomson": _thomson,
}



PARAMETER_RANGES: dict[str, dict[str, str]] = {
    "barrier-H": {"H": f"in (0, {MAX_COEFFICIENT:g}]"},
    "fourier": {"cos": "table {k: a_k}", "sin": "table {k: b_k}"},
    "vmf": {"kappa": "> 0", "dim": "integer >= 2"},
    "vmf-mixture": {"means": "(K, 3) unit rows", "kappas": "(K,) > 0", "weights": "(K,) > 0"},
    "infonce-toy-soft": {"beta0": "> 0"},
    "infonce": {"tau": "> 0", "num_points": "integer >= 3", "dim": "integer >= 2", "pairs": "index pairs",
                "coupled": "bool"},
    "thomson": {"num_points": "integer >= 2", "dim": "integer >= 2"},
}


