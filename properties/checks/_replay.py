"""Replay checks: one step of each driver equals one call of its kernel with the configured parameters.

A driver that passes a rescaled argument to its kernel (a step size, tau, a temperature at the wrong
time) produces a slower or faster but plausible run in which every bound still "holds"; only a
replay sees it. Each check runs the driver for a few steps at a small size and recomputes the same
steps by calling the kernel directly with the parameters the user configured, with the driver's
documented randomness (keys), and requires equality to rounding:

* ``A1.replay_langevin`` — :func:`~contrastive_bounds.numerics.langevin.run_schedule`
  (kernel construction + :func:`~contrastive_bounds.numerics.langevin.simulate`, noise of step k
  ``normal(fold_in(key(seed), k))`` over the driver's layout) against
  :meth:`~contrastive_bounds.numerics.langevin.LangevinKernel.step_with_noise` at ``t = k·h``;
* ``B3.replay_descent`` — :func:`~contrastive_bounds.numerics.alignment.run_similarity_descent`
  (batches ``sample_batch(fold_in(key(seed), t))``, chunked scan) against
  :func:`~contrastive_bounds.numerics.alignment.descent_step`;
* ``B8.replay_training`` — one epoch of :func:`~contrastive_bounds.numerics.alignment.train_alignment`
  against ``batch_loss`` + Adam steps written out here (float32, as trained), and the epoch's reported
  metrics (CKA of z, linear CKA of h, RSA, the loss gap) against a second computation from the
  replayed parameters (:mod:`._independent_metrics`; the losses against mpmath on a subsample).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Mapping

import numpy as np

from contrastive_bounds.properties.checks._agreement import Agreement, agreement, apply_agreements
from contrastive_bounds.properties.checks._outcome import Outcome
from contrastive_bounds.properties.checks._framework import check
import contrastive_bounds.properties.checks._independent_metrics as im

__all__ = ["replay_langevin", "replay_descent", "replay_training", "driver_noise"]


def driver_noise(kernel: Any, key: Any, step: int, chains: int, position_shape: tuple[int, int]) -> np.ndarray:
    """The standard normals the Langevin driver draws at ``step``, one ``noise_shape`` array per chain.

    The driver draws ``normal(fold_in(key, step), shape)`` for all chains at once: shape ``(chains,)``
    on its complex S¹ path, else ``kernel.noise_shape((N, d)) + (chains,)`` (chains last). Returns
    ``(chains,) + kernel.noise_shape((N, d))``.
    """
    import jax

    from contrastive_bounds.numerics.langevin._paths import default_step_path

    k = jax.random.fold_in(key, step)
    if default_step_path(kernel) == "circle":
        return np.asarray(jax.random.normal(k, (chains,), np.float64)).reshape(chains, 1, 1)
    shape = kernel.noise_shape(position_shape) + (chains,)
    return np.moveaxis(np.asarray(jax.random.normal(k, shape, np.float64)), -1, 0)


def _replay_schedule_run(landscape: Any, temperature: Any, chains: int, steps: int, step_size: float, seed: int) -> tuple:
    """(driver energies (steps, chains), replayed energies (steps, chains))."""
    import jax

    from contrastive_bounds.numerics.langevin import langevin_kernel
    from contrastive_bounds.numerics.langevin._experiments import run_schedule, start_positions

    run = run_schedule(landscape, temperature, chains=chains, t_end=steps * step_size, step_size=step_size, seed=seed,
                       start="uniform", record_every=1, delta=0.1)
    kernel = langevin_kernel(landscape, temperature=temperature, step_size=step_size)
    pos = start_positions(landscape, "uniform", chains, seed)
    state = jax.vmap(kernel.init)(pos)
    step = jax.jit(jax.vmap(kernel.step_with_noise, in_axes=(0, 0, None)))
    key = jax.random.key(seed)
    energies = []
    for k in range(steps):
        noise = driver_noise(kernel, key, k, chains, pos.shape[1:])
        state = step(state, noise, np.float64(k * step_size))  # continuous time t = k·h, the configured h
        energies.append(np.asarray(state.potential))
    return np.asarray(run.energy_trace), np.stack(energies)


@check("A1.replay_langevin", theorem="A1 simulator wiring: run_schedule/simulate step = kernel step at t = k·h",
       paper="A",
       statement="run_schedule's energies over the first steps equal a replay of LangevinKernel.step_with_noise with "
                 "the configured step size and schedule at t = k·h and the driver's noise (double-well under "
                 "T = 1/log(t + 10); vMF on S² at fixed T), to 1e-12",
       quick={"chains": 16, "steps": 6, "step_size": 0.02}, thorough={"chains": 64, "steps": 20, "step_size": 0.02})
def replay_langevin(params: Mapping[str, Any], seed: int) -> Outcome:
    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.theory._schedules import make_schedule

    chains, steps, h = int(params["chains"]), int(params["steps"]), float(params["step_size"])
    cases = [("double-well, T = 1/log(t + 10)", get_landscape("double-well"), make_schedule("temperature", c=1.0, t0=10.0)),
             ("vMF kappa = 1 on S², T = 0.5", get_landscape("vmf", kappa=1.0, dim=3), 0.5)]
    rows, worst = [], 0.0
    for name, land, temp in cases:
        drv, rep = _replay_schedule_run(land, temp, chains, steps, h, seed)
        err = float(np.max(np.abs(drv - rep) / (1.0 + np.abs(rep))))
        worst = max(worst, err)
        rows.append({"case": name, "max_error": err, "first_step_error": float(np.max(np.abs(drv[0] - rep[0])))})
    tol = 1e-12
    text = "; ".join(f"{r['case']}: max |driver - kernel replay| {r['max_error']:.1e}" for r in rows)
    return Outcome("holds" if worst <= tol else "violated",
                   f"{steps} steps x {chains} chains replayed: {text} (tolerance {tol:g}, float64)"
                   + ("" if worst <= tol else ": the driver does not call its kernel with the configured parameters"),
                   bound=tol, empirical=worst, interval=(worst, worst), ratio=worst / tol, details={"cases": rows})


@check("B3.replay_descent", theorem="B3 similarity-descent wiring: run_similarity_descent step = descent_step",
       paper="B",
       statement="the driver's Sigma pair after a few (chunked) steps equals a replay of descent_step with the "
                 "configured tau and step size on the driver's batches, to 1e-12 (with and without replacement)",
       quick={"num_samples": 64, "num_classes": 4, "batch_size": 16, "steps": 4, "tau": 0.5, "step_size": 1.0},
       thorough={"num_samples": 128, "num_classes": 8, "batch_size": 32, "steps": 20, "tau": 0.5, "step_size": 1.0})
def replay_descent(params: Mapping[str, Any], seed: int) -> Outcome:
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.alignment._descent import DescentState, descent_step, sample_batch
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig, make_problem
    from contrastive_bounds.numerics.alignment._descent_run import run_similarity_descent

    n, c, b, steps = int(params["num_samples"]), int(params["num_classes"]), int(params["batch_size"]), int(params["steps"])
    tau, eta = float(params["tau"]), float(params["step_size"])
    sigma0, labels = make_problem(n, c, seed=seed)
    rows, worst = [], 0.0
    for replace in (True, False):
        cfg = DescentConfig(batch_size=b, steps=steps, tau=tau, step_size=eta, seed=seed, replace=replace,
                            empty_negatives="exclude", chunk_size=2)
        res = run_similarity_descent(sigma0, labels, cfg)
        state = DescentState(jnp.asarray(sigma0), jnp.asarray(sigma0), jnp.zeros((), jnp.float64))
        key, lab = jax.random.key(seed), jnp.asarray(labels)
        step = jax.jit(functools.partial(descent_step, tau=tau, step_size=eta, unique=not replace))
        dist = []
        for t in range(steps):
            batch = sample_batch(jax.random.fold_in(key, t), lab, b, replace=replace)
            state, rec = step(state, batch, lab)
            dist.append(float(rec.distance))
        err = max(float(np.max(np.abs(np.asarray(state.sigma_cl) - res.sigma_cl))),
                  float(np.max(np.abs(np.asarray(state.sigma_nscl) - res.sigma_nscl))),
                  float(np.max(np.abs(np.asarray(dist) - res.distance[1:]))))
        worst = max(worst, err)
        rows.append({"replace": replace, "max_error": err, "d_T": float(res.distance[-1])})
    tol = 1e-12
    text = "; ".join(f"{'with' if r['replace'] else 'without'} replacement: max |driver - replay| {r['max_error']:.1e} "
                     f"(d_T {r['d_T']:.4g})" for r in rows)
    return Outcome("holds" if worst <= tol else "violated",
                   f"{steps} steps, m = {2 * n}, B = {b}: {text} (tolerance {tol:g})"
                   + ("" if worst <= tol else ": the driver does not call descent_step with the configured tau/step size"),
                   bound=tol, empirical=worst, interval=(worst, worst), ratio=worst / tol, details={"cases": rows})


def _replay_epoch(config: Any) -> tuple[list[Any], list[float], Any, Any]:
    """One epoch written out from the kernel: params per model, mean loss per model, the split, the eval key."""
    import jax
    import jax.numpy as jnp
    import optax

    from contrastive_bounds.numerics.alignment._data import augment, load_digits_subset
    from contrastive_bounds.numerics.alignment._losses import batch_loss
    from contrastive_bounds.numerics.alignment._training import encode, init_params

    split = load_digits_subset(config.num_classes, seed=config.seed, dtype=np.float32)
    k_init, k_train, k_eval = jax.random.split(jax.random.key(config.seed), 3)
    params0 = init_params(k_init, config)
    optimizer = optax.adam(config.learning_rate)
    x, y = jnp.asarray(split.x_train, jnp.float32), jnp.asarray(split.y_train)
    nb = x.shape[0] // config.batch_size

    def loss(p: Any, x1: Any, x2: Any, yb: Any, kind: str) -> Any:
        return batch_loss(encode(p, x1)[1], encode(p, x2)[1], yb, tau=config.tau, kind=kind, coupled=config.coupled)

    @jax.jit
    def step(p: Any, o: Any, x1: Any, x2: Any, yb: Any, kind_is_nscl: bool) -> Any:
        val, g = jax.value_and_grad(loss)(p, x1, x2, yb, "nscl" if kind_is_nscl else "cl")
        upd, o = optimizer.update(g, o, p)
        return optax.apply_updates(p, upd), o, val

    step = jax.jit(step.__wrapped__, static_argnums=5)
    k_perm, k_aug = jax.random.split(jax.random.fold_in(k_train, 0))
    order = jax.random.permutation(k_perm, x.shape[0])[: nb * config.batch_size].reshape(nb, config.batch_size)
    params, opts = [params0 for _ in config.models], [optimizer.init(params0) for _ in config.models]
    losses = [[] for _ in config.models]
    for i in range(nb):
        idx = order[i]
        k1, k2 = jax.random.split(jax.random.fold_in(k_aug, i))
        x1 = augment(k1, x[idx], noise_std=config.noise_std, max_shift=config.max_shift)
        x2 = augment(k2, x[idx], noise_std=config.noise_std, max_shift=config.max_shift)
        for j, name in enumerate(config.models):
            params[j], opts[j], val = step(params[j], opts[j], x1, x2, y[idx], name == "nscl")
            losses[j].append(float(val))
    return params, [float(np.mean(v)) for v in losses], split, k_eval


@check("B8.replay_training", theorem="B8 training wiring and the reported metrics computed two ways", paper="B",
       statement="one epoch of train_alignment (CL and NSCL, float32) equals batch_loss + Adam steps replayed with the "
                 "configured tau and learning rate (mean losses to 1e-5), and the epoch's reported CKA(z), linear "
                 "CKA(h), RSA and loss gap equal a second computation (trace-identity CKA, Gram-form CKA, numpy "
                 "corrcoef, mpmath losses on a subsample)",
       quick={"num_classes": 4, "tau": 0.5, "batch_size": 64, "subsample": 40},
       thorough={"num_classes": 10, "tau": 0.5, "batch_size": 128, "subsample": 80})
def replay_training(params: Mapping[str, Any], seed: int) -> Outcome:
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.alignment._data import augment
    from contrastive_bounds.numerics.alignment._cka import cosine_gram_cka, linear_cka
    from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity
    from contrastive_bounds.numerics.alignment._training import TrainConfig, encode, population_loss_gap, train_alignment

    cfg = TrainConfig(num_classes=int(params["num_classes"]), tau=float(params["tau"]), epochs=1,
                      batch_size=int(params["batch_size"]), seed=seed, models=("cl", "nscl"), probe=False)
    hist = train_alignment(cfg).history[0]
    p_rep, loss_rep, split, k_eval = _replay_epoch(cfg)
    rows: list[Agreement] = [agreement(f"train_alignment epoch-1 mean loss ({m})", f"tau={cfg.tau:g}",
                                       hist["train_loss"][m], loss_rep[j], rtol=1e-5) for j, m in enumerate(cfg.models)]
    # embeddings of the replayed parameters (float64 from here on, as the driver's metrics)
    xte = jnp.asarray(split.x_test, jnp.float32)
    h = {m: np.asarray(encode(p, xte)[0], np.float64) for m, p in zip(cfg.models, p_rep)}
    z = {m: np.asarray(encode(p, xte)[1], np.float64) for m, p in zip(cfg.models, p_rep)}
    unit = {m: v / np.linalg.norm(v, axis=1, keepdims=True) for m, v in z.items()}
    grams = {m: np.clip(u @ u.T, -1.0, 1.0) for m, u in unit.items()}
    tool = {"cka_z": cosine_gram_cka(grams["cl"], grams["nscl"]), "cka_h": linear_cka(h["cl"], h["nscl"], debiased=False),
            "rsa": rsa_from_similarity(grams["cl"], grams["nscl"])}
    second = {"cka_z": im.cka_trace(grams["cl"], grams["nscl"]), "cka_h": im.linear_cka_gram_form(h["cl"], h["nscl"]),
              "rsa": im.rsa_corrcoef(grams["cl"], grams["nscl"])}
    for k in tool:  # through the deficits 1 - value (the values are near 1)
        rows.append(agreement(f"1 - {k} (toolkit vs second computation)", "replayed CL/NSCL, test split", 1.0 - tool[k],
                              1.0 - second[k], rtol=1e-7))
        rows.append(agreement(f"1 - {k} reported by train_alignment (vs replayed parameters)", "epoch 1, cl-nscl",
                              1.0 - hist[k]["cl-nscl"], 1.0 - tool[k], rtol=1e-4))
    # losses: the toolkit's population losses against mpmath on a subsample of the eval views
    xtr = jnp.asarray(split.x_train, jnp.float32)
    k1, k2 = jax.random.split(k_eval)
    v1 = augment(k1, xtr, noise_std=cfg.noise_std, max_shift=cfg.max_shift)
    v2 = augment(k2, xtr, noise_std=cfg.noise_std, max_shift=cfg.max_shift)
    z1, z2 = (np.asarray(encode(p_rep[0], v)[1], np.float64) for v in (v1, v2))
    sub = int(params["subsample"])
    ys = np.asarray(split.y_train)
    l_dcl, l_nscl = population_loss_gap(z1[:sub], z2[:sub], ys[:sub], tau=cfg.tau)
    m_dcl, m_nscl = im.population_losses_mp(z1[:sub], z2[:sub], ys[:sub], cfg.tau)
    rows.append(agreement("population L_DCL (CL model)", f"{sub} anchors, tau={cfg.tau:g}", l_dcl, m_dcl, rtol=1e-10))
    rows.append(agreement("population L_NSCL (CL model)", f"{sub} anchors, tau={cfg.tau:g}", l_nscl, m_nscl, rtol=1e-10))
    full = population_loss_gap(z1, z2, ys, tau=cfg.tau)
    rows.append(agreement("loss gap reported by train_alignment (vs replayed parameters)", "epoch 1, CL model",
                          hist["loss_gap_cl"], full[0] - full[1], rtol=1e-3))
    worst = max(r.rel_error for r in rows[:2])
    out = Outcome("holds", f"epoch 1 of CL/NSCL on {cfg.num_classes} digit classes replayed (largest loss difference "
                           f"{worst:.1e}); CKA(z) {tool['cka_z']:.4f}, CKA(h) {tool['cka_h']:.4f}, RSA {tool['rsa']:.4f}, "
                           f"L_DCL - L_NSCL {hist['loss_gap_cl']:.4g}",
                  bound=1e-5, empirical=worst, interval=(worst, worst), ratio=worst / 1e-5,
                  details={"reported": {k: hist[k]["cl-nscl"] for k in tool}, "replayed": tool, "second": second})
    return apply_agreements(out, rows)
