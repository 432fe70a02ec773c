"""The effective step size eta_eff that maps plain SGD onto similarity descent (docs/theorems.md B9).

Setting. Sigma(theta) is the cosine Gram of the reference views (symmetric, unit diagonal); the batch
loss of step t is ``l_t(theta) = L_t(Sigma(theta))`` with L_t the B1 loss written on the *ordered*
pairs (one variable per ordered pair, B3). Its gradient in Sigma is G_t (row-wise, B3); for a
symmetric perturbation E, <G_t, E> = <Gs_t, E> with Gs_t = (G_t + G_t^T)/2, so Gs_t is the gradient
of l_t along symmetric matrices and the proxy that can be compared with a symmetric Sigma is the
symmetrised similarity descent ``Sigma <- clip(Sigma - eta_eff Gs_t)``.

One SGD step moves theta by -eta J^T Gs_t (J = dSigma/dtheta, J^T its adjoint), so to first order
``dSigma_t = -eta J J^T Gs_t``. Two estimators of the scalar eta_eff with dSigma_t ~ -eta_eff Gs_t:

* ``fit`` (default): least squares over the first K steps of the real run, both models pooled:
  ``eta_fit = -sum_t <dSigma_t, Gs_t> / sum_t ||Gs_t||_F^2``. It sees the whole step (all orders in
  eta, fresh views, clipping-free normalisation); ``cos2 = (sum <dSigma, Gs>)^2 / (sum ||Gs||^2 sum
  ||dSigma||^2)`` is the share of the motion along the proxy's direction (1 for a perfect proxy).
* ``ntk``: the same projection of the first-order (neural-tangent) response, ``eta_ntk = eta *
  sum_t ||J^T Gs_t||^2 / sum_t ||Gs_t||^2`` (one vector-Jacobian product per step; with fixed views
  J^T Gs_t is exactly the SGD gradient). ``eta_fit -> eta_ntk`` as eta -> 0 (tested).

Known case (derived here, tested): free embeddings Z (m x d, d >= m) with orthonormal rows, Sigma_0 = I.
With unit rows the gradient of <Gs, Sigma(Z)> in row i is 2 sum_j Gs_ij (z_j - Sigma_ij z_i), which at
Sigma = I (Gs_ii = 0) is 2 (Gs Z)_i; so Z' = (I - 2 eta Gs) Z and Z'Z'^T = I - 4 eta Gs + 4 eta^2 Gs^2.
Normalising rows changes the diagonal (1 + 4 eta^2 (Gs^2)_ii -> 1) and the off-diagonal only at
O(eta^3), so ``dSigma = -4 eta Gs + 4 eta^2 offdiag(Gs^2) + O(eta^3)``: the symmetrised proxy has
eta_eff = 4 eta (the issue's "-2 eta (G + G^T)" with G + G^T = 2 Gs), and the least-squares fit of one
step is ``eta_fit = 4 eta - 4 eta^2 tr(Gs^3)/||Gs||_F^2 + O(eta^3)`` (:func:`orthonormal_fit_expansion`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_int

from contrastive_bounds.numerics._precision import require_x64
from contrastive_bounds.numerics.alignment._descent_gradients import block_gradients
from contrastive_bounds.numerics.alignment._sgd import (
    ReferenceSet, SGDConfig, TrainingDivergedError, batch_for_step, embed_rows, reference_sigma,
    run_keys, sgd_pair_step, sigma_defect, sigma_tolerance)

__all__ = ["EtaEstimate", "symmetric_block_gradients", "batch_rows", "first_order_terms", "estimate_eta_eff",
           "orthonormal_fit_expansion", "ESTIMATORS"]

ESTIMATORS = ("fit", "ntk")


def batch_rows(batch: jax.Array, n: int) -> jax.Array:
    """Rows of Sigma touched by a batch: ``[batch, n + batch]`` (int (2B,))."""
    return jnp.concatenate([batch, batch + n])


def symmetric_block_gradients(s_cl: jax.Array, s_nscl: jax.Array, batch: jax.Array, labels: jax.Array, tau):
    """``(Gs_cl, Gs_nscl)``: the B3 gradients on the (2B, 2B) block, symmetrised ((G + G^T)/2).

    ``s_cl``, ``s_nscl`` are the blocks ``Sigma[R][:, R]`` with R = :func:`batch_rows`; the batch has
    distinct samples. Zero outside the block, so these are the full gradients restricted to it.

    Raises:
      X64DisabledError: float64 blocks while JAX's x64 mode is off.
    """
    require_x64(s_cl, s_nscl, what="contrastive_bounds.numerics.alignment.symmetric_block_gradients")
    g_cl, g_nscl = block_gradients(s_cl, s_nscl, batch, labels, tau=tau)
    return 0.5 * (g_cl + g_cl.T), 0.5 * (g_nscl + g_nscl.T)


def _block_sigma(params, rows, ref: ReferenceSet) -> jax.Array:
    z = embed_rows(params, rows, ref)
    u = z / jnp.linalg.norm(z, axis=1, keepdims=True)
    return u @ u.T


def _sq_norm(tree: Any) -> jax.Array:
    return sum(jnp.sum(a * a) for a in jax.tree_util.tree_leaves(tree))


@partial(jax.jit, static_argnames=("config", "steps"))
def _first_order_scan(params_cl, params_nscl, ref: ReferenceSet, keys, tau, learning_rate, *, config: SGDConfig,
                      steps: int):
    n = ref.labels.shape[0]
    fresh = config.views == "fresh"

    def body(carry, t):
        pc, pn = carry
        batch = batch_for_step(keys["batches"], ref.labels, config.batch_size, t)
        rows = batch_rows(batch, n)
        sig = (reference_sigma(pc, ref), reference_sigma(pn, ref))
        gs = symmetric_block_gradients(sig[0][rows][:, rows], sig[1][rows][:, rows], batch, ref.labels, tau)
        key = jax.random.fold_in(keys["augment"], t) if fresh else None
        new_c, new_n, _, ok = sgd_pair_step(pc, pn, batch, ref, config, tau, learning_rate, key)
        out, defect = [], []
        for p, p_new, s, g in ((pc, new_c, sig[0], gs[0]), (pn, new_n, sig[1], gs[1])):
            s_new = reference_sigma(p_new, ref)
            defect.append(sigma_defect(s_new))
            ds = s_new - s
            j_t_g = jax.grad(lambda q: jnp.sum(g * _block_sigma(q, rows, ref)))(p)
            blk = ds[rows][:, rows]
            out.append(jnp.stack([jnp.sum(blk * g), jnp.sum(g * g), jnp.sum(ds * ds), _sq_norm(j_t_g),
                                  jnp.sum(blk * blk)]))
        return (new_c, new_n), (jnp.stack(out), ok & (jnp.stack(defect) <= sigma_tolerance(config.dtype)))

    _, (terms, ok) = jax.lax.scan(body, (params_cl, params_nscl), jnp.arange(steps))
    return terms, ok


def first_order_terms(params_cl, params_nscl, ref: ReferenceSet, config: SGDConfig, steps: int) -> np.ndarray:
    """Per step t < ``steps`` and model (CL, NSCL): ``[<dSigma_t, Gs_t>, ||Gs_t||^2, ||dSigma_t||^2, ||J^T Gs_t||^2,
    ||dSigma_t on the batch block||^2]``.

    Runs the real coupled SGD from the given parameters (steps 0..steps-1 of ``config``'s batch
    sequence), with Sigma on all m reference rows before and after every step.

    Returns: float64 array (steps, 2, 5).
    Raises:
      TrainingDivergedError: on a non-finite loss or parameter, or a Sigma that is no longer a cosine Gram.
      X64DisabledError: float64 parameters or ``config.dtype`` while JAX's x64 mode is off.
    """
    require_x64(config.dtype, params_cl, params_nscl, what="contrastive_bounds.numerics.alignment.first_order_terms")
    steps = check_int("steps", steps, 1)
    dt = config.jnp_dtype
    terms, ok = _first_order_scan(params_cl, params_nscl, ref, run_keys(config.seed), jnp.asarray(config.tau, dt),
                                  jnp.asarray(config.learning_rate, dt), config=config.static_part(), steps=steps)
    ok = np.asarray(ok)
    terms = np.asarray(terms, np.float64)
    bad = ~ok | ~np.all(np.isfinite(terms), axis=2)
    if np.any(bad):
        t, k = map(int, np.argwhere(bad)[0])
        raise TrainingDivergedError(("cl", "nscl")[k], t + 1, config.learning_rate, config.batch_size,
                                    "non-finite loss or parameters, or a reference Sigma that is no longer a cosine "
                                    "Gram (entries outside [-1, 1] or a diagonal entry != 1: an embedding norm "
                                    "overflowed or vanished), while estimating eta_eff")
    return terms


@dataclass(frozen=True)
class EtaEstimate:
    """eta_eff of a run and how it was obtained (see the module docstring).

    Attributes: ``learning_rate`` (eta of SGD), ``fit_steps`` (K), ``eta_fit``, ``eta_ntk``, their gains
    ``gain_fit = eta_fit/eta`` and ``gain_ntk``, ``cos2`` (pooled share of ||dSigma||^2 along -Gs, in [0, 1]),
    ``cos2_block`` (the same on the batch block only: how well the proxy's direction fits where it acts),
    ``block_share`` (share of ||dSigma||^2 on the batch block; the proxy moves nothing outside it),
    ``per_model`` ({"cl": {...}, "nscl": {...}} the same per model), ``estimator`` ("fit", "ntk" or
    "given") and ``eta_eff`` (the one used).
    """

    learning_rate: float
    fit_steps: int
    eta_fit: float
    eta_ntk: float
    cos2: float
    cos2_block: float
    block_share: float
    per_model: dict[str, dict[str, float]]
    estimator: str
    eta_eff: float

    @property
    def gain_fit(self) -> float:
        return self.eta_fit / self.learning_rate

    @property
    def gain_ntk(self) -> float:
        return self.eta_ntk / self.learning_rate

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "gain_fit": self.gain_fit, "gain_ntk": self.gain_ntk}


def _pooled(terms: np.ndarray, lr: float) -> dict[str, float]:
    inner, g2, ds2, ntk2, blk2 = (float(np.sum(terms[..., i])) for i in range(5))
    if g2 <= 0:
        raise ValueError("every Gs of the fit steps is zero (no loss gradient in Sigma): eta_eff is undefined")
    cos2 = inner * inner / (g2 * ds2) if ds2 > 0 else 0.0
    cos2_block = inner * inner / (g2 * blk2) if blk2 > 0 else 0.0
    return {"eta_fit": -inner / g2, "eta_ntk": lr * ntk2 / g2, "cos2": min(cos2, 1.0),
            "cos2_block": min(cos2_block, 1.0), "block_share": blk2 / ds2 if ds2 > 0 else 0.0}


def estimate_eta_eff(config: SGDConfig, ref: ReferenceSet, params0: Any, *, fit_steps: int = 10,
                     estimator: Literal["fit", "ntk"] = "fit", eta_eff: float | None = None) -> EtaEstimate:
    """Estimate eta_eff from the first ``fit_steps`` steps of the coupled SGD run of ``config``.

    Args:
      config: the run (its seed fixes the batches of the fit steps: the same as the run's first steps).
      ref: :func:`~._sgd.load_reference_set` of ``config``; ``params0``: the shared initial parameters.
      fit_steps: K >= 1 steps to pool (both models).
      estimator: ``"fit"`` or ``"ntk"`` (module docstring); ignored when ``eta_eff`` is given.
      eta_eff: a value to use instead (estimator ``"given"``); both estimates are still reported.

    Returns: :class:`EtaEstimate`.
    Raises:
      ValueError: for a bad estimator, a non-positive chosen
        eta_eff, a zero gradient; :class:`~._sgd.TrainingDivergedError` if SGD diverges in the fit steps.
      X64DisabledError: ``config.dtype == "float64"`` (or float64 parameters) while JAX's x64 mode is off.
    """
    require_x64(config.dtype, params0, what="contrastive_bounds.numerics.alignment.estimate_eta_eff")
    if estimator not in ESTIMATORS:
        raise ValueError(f"eta_estimator={estimator!r} must be one of {ESTIMATORS}")
    k = check_int("fit_steps", fit_steps, 1, config.steps)
    terms = first_order_terms(params0, params0, ref, config, k)
    lr = float(config.learning_rate)
    pooled = _pooled(terms, lr)
    per = {name: _pooled(terms[:, i:i + 1], lr) for i, name in enumerate(("cl", "nscl"))}
    if eta_eff is not None:
        chosen, how = float(eta_eff), "given"
    else:
        chosen, how = pooled[f"eta_{estimator}"], estimator
    if not (np.isfinite(chosen) and chosen > 0):
        raise ValueError(f"eta_eff={chosen!r} ({how}) must be finite and > 0: SGD did not move Sigma along -Gs "
                         f"in the first {k} steps (cos2 = {pooled['cos2']:.3g}); raise learning_rate or fit_steps")
    return EtaEstimate(lr, k, pooled["eta_fit"], pooled["eta_ntk"], pooled["cos2"], pooled["cos2_block"],
                       pooled["block_share"], per, how, chosen)


def orthonormal_fit_expansion(gs: np.ndarray) -> tuple[float, float]:
    """``(c1, c2)`` with eta_fit = c1 eta + c2 eta^2 + O(eta^3) for one SGD step of free orthonormal embeddings.

    Args: ``gs`` float (m, m) the symmetrised gradient Gs at Sigma = I (zero diagonal).
    Returns: ``(4, -4 tr(Gs^3)/||Gs||_F^2)`` (derivation in the module docstring).
    Raises:
      ValueError: for a non-square, asymmetric or zero ``gs``.
    """
    g = np.asarray(gs, np.float64)
    if g.ndim != 2 or g.shape[0] != g.shape[1] or not np.allclose(g, g.T, rtol=0, atol=1e-15 * np.abs(g).max()):
        raise ValueError(f"gs must be a symmetric square matrix; got shape {g.shape}")
    g2 = float(np.sum(g * g))
    if g2 == 0:
        raise ValueError("gs is zero: eta_fit is undefined")
    return 4.0, -4.0 * float(np.trace(g @ g @ g)) / g2
