"""The replacement makers of the self-test's faults: ``make(original) -> replacement`` for a
:class:`~._hook.Substitution`, one per kind of one-expression mistake (:mod:`._faults` lists the faults).

Each maker wraps the original (so only the named expression changes) and keeps its signature, so the
code under test calls it exactly as before.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

__all__ = ["kw", "bound_times", "shift_log10", "uncentred_cka", "schedule_shift", "program_shift",
           "exponential_half_rate", "trap_prefactor", "kernel_temperature", "misscaled", "time_index", "mfpt_scaled",
           "drift_scaled", "unrefined_barrier", "network_prefactor_doubled", "u0_positive_as_negative",
           "infonce_tau_scaled", "radius_linear", "follow_one_sign", "index_two_accepted", "saddle_copies_inverted",
           "block_gradients_over_tau", "sgd_learning_rate", "losses_swapped",
           "batch_duplicates",
           "certification_gives_up", "mp_confirms_everything"]

def kw(**changes: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """make(original) -> a wrapper that transforms the named keyword arguments before calling it."""
    def make(original: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for name, f in changes.items():
                if name in kwargs:
                    kwargs[name] = f(kwargs[name])
            return original(*args, **kwargs)
        return wrapper
    return make


def scaled_bound_value(v: Any, factor: float) -> Any:
    """A BoundValue multiplied by ``factor`` (value, log10, exact log10, mpmath value)."""
    import mpmath

    if v.vacuous or v.mp_value is None:
        return v
    l10 = math.log10(factor)
    return dataclasses.replace(
        v, value=None if v.value is None else v.value * factor, log10=None if v.log10 is None else v.log10 + l10,
        mp_value=v.mp_value * factor,
        log10_exact=None if v.log10_exact is None else mpmath.nstr(mpmath.mpf(v.log10_exact) + mpmath.log10(factor), 30))


def bound_times(factor: float) -> Callable[[Any], Any]:
    """make(original) returning the BoundValue of the original times ``factor``."""
    return lambda original: (lambda *a, **k: scaled_bound_value(original(*a, **k), factor))


def shift_log10(delta: Callable[..., Any]) -> Callable[[Any], Any]:
    """make(original) for ``*_log10(etas, **kw)``: add ``delta(etas, **kw)`` to the result."""
    return lambda original: (lambda etas, **kw: original(etas, **kw) + delta(etas, **kw))


def uncentred_cka(original: Any) -> Any:
    def cka(sigma_a: Any, sigma_b: Any) -> float:
        a, b = np.asarray(sigma_a, np.float64), np.asarray(sigma_b, np.float64)
        return float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    return cka


def schedule_shift(original: Any) -> Any:
    from contrastive_bounds.theory._schedule_forms import LOG_FORMS

    def form_beta(form: str, p: Any, t: Any, xp: Any = np) -> Any:
        return original(form, p, t + 1.0, xp) if form in LOG_FORMS else original(form, p, t, xp)
    return form_beta


def program_shift(original: Any) -> Any:
    from contrastive_bounds.theory._schedule_forms import LOG_FORMS

    def call(self: Any, data: Any, t: Any) -> Any:
        return original(self, data, t + 1.0) if self.kind == "schedule" and self.form in LOG_FORMS else original(self, data, t)
    return call


def exponential_half_rate(original: Any) -> Any:
    def temperature(self: Any, t: Any, xp: Any = np) -> Any:
        return original(self, t * 0.5, xp) if self.form == "exponential" else original(self, t, xp)
    return temperature


def trap_prefactor(original: Any) -> Any:
    def circle_trap(landscape: Any) -> Any:
        trap = original(landscape)
        if trap is None:
            return trap
        return dataclasses.replace(trap, log_prefactors=tuple(lp + math.log(2.0) for lp in trap.log_prefactors))
    return circle_trap


def kernel_temperature(rescale: Callable[[Any, float], Any]) -> Callable[[Any], Any]:
    """make(langevin_kernel) -> one that builds its kernel with temperature rescale(temperature, h)."""
    def make(original: Any) -> Any:
        def langevin_kernel(*args: Any, temperature: Any, step_size: float, **kwargs: Any) -> Any:
            return original(*args, temperature=rescale(temperature, step_size), step_size=step_size, **kwargs)
        return langevin_kernel
    return make


def path_step_size(factor: float) -> Callable[[Any], Any]:
    """make(step_path) -> one that binds the kernel's step function with ``factor``·h (the chunk's clock keeps h)."""
    def make(original: Any) -> Any:
        def step_path(kernel: Any, name: str) -> Any:
            return original(dataclasses.replace(kernel, step_size=factor * kernel.step_size), name)
        return step_path
    return make


def misscaled(temperature: Any, h: float) -> Any:
    from contrastive_bounds.numerics.langevin._experiments import misscaled_temperature

    return misscaled_temperature(temperature, math.sqrt(0.9))


def time_index(temperature: Any, h: float) -> Any:
    if isinstance(temperature, (int, float)):
        return temperature
    return lambda t, xp: temperature.temperature(t / h, xp=xp)  # T at the step index k = t/h, not at t = k·h


def mfpt_scaled(original: Any) -> Any:
    def exact_mfpt_interval(*args: Any, **kwargs: Any) -> Any:
        r = original(*args, **kwargs)
        return dataclasses.replace(r, log_time=r.log_time + math.log(1.05), time=r.time * 1.05)
    return exact_mfpt_interval


def drift_scaled(original: Any) -> Any:
    def value_and_derivative_z(self: Any, x: Any, y: Any) -> Any:
        v, dv = original(self, x, y)
        return v, 0.95 * dv
    return value_and_derivative_z


def unrefined_barrier(original: Any) -> Any:
    """circle_barrier reporting the grid persistence value as H* instead of the refined one."""
    def circle_barrier(*args: Any, **kwargs: Any) -> Any:
        res = original(*args, **kwargs)
        return dataclasses.replace(res, critical_height=res.grid_critical_height)
    return circle_barrier


def network_prefactor_doubled(original: Any) -> Any:
    """NetworkTrap.log_prefactors (a property): every saddle's Eyring-Kramers prefactor |λ|/π for |λ|/(2π)."""
    return property(lambda self: [lp + math.log(2.0) for lp in original.fget(self)])


def u0_positive_as_negative(original: Any) -> Any:
    """hardest_negative_potential whose hardest negative ranges over every k != i (the positive included)."""
    import jax.numpy as jnp

    def hardest_negative_potential(num_points: int, pairs: Any) -> Callable[[Any], Any]:
        directed = [(int(a), int(b)) for a, b in pairs] + [(int(b), int(a)) for a, b in pairs]

        def potential(z: Any) -> Any:
            s = z @ z.T
            terms = [-s[i, j] + jnp.max(jnp.stack([s[i, k] for k in range(num_points) if k != i])) for i, j in directed]
            return jnp.mean(jnp.stack(terms))
        return potential
    return hardest_negative_potential


def infonce_tau_scaled(original: Any) -> Any:
    """infonce_potential built at 1.05 tau (the spec still says tau)."""
    def infonce_potential(num_points: int, pairs: Any, tau: float, *, coupled: bool = False) -> Any:
        return original(num_points, pairs, tau * 1.05, coupled=coupled)
    return infonce_potential


def radius_linear(original: Any) -> Any:
    """The radius-R potential with similarities R·cos for R²·cos (z scaled by sqrt(R))."""
    def _scaled(potential: Callable, r: float) -> Callable:
        return potential if r == 1.0 else (lambda z: potential(math.sqrt(r) * z))
    return _scaled


def follow_one_sign(original: Any) -> Any:
    """connect_candidates as eigenvector following calls it, given only the ``+v`` start of each direction (the
    loop over the signs ``(1, -1)`` reduced to ``(1,)``): of two starts whose directions are opposite, the second
    is dropped. The following step still logs both signs as searched."""
    def connect_candidates(spec: Any, settings: Any, store: Any, rng: Any, candidates: Any, **kwargs: Any) -> Any:
        kept: list[Any] = []
        for c in candidates:
            if not any(np.allclose(c.mode, -k.mode, rtol=0.0, atol=1e-12) for k in kept):
                kept.append(c)
        return original(spec, settings, store, rng, kept, **kwargs)
    return connect_candidates


def index_two_accepted(original: Any) -> Any:
    """_classify_one verifying a transition state of index 1 or 2 (``index != expect`` written as
    ``index not in (expect, expect + 1)``): an index-2 saddle with no other defect is accepted."""
    def _classify_one(spec: Any, z: Any, v: Any, g_t: Any, h_t: Any, w: Any, q: Any, gtol: float, etol: float,
                      expect: int | None) -> Any:
        cp = original(spec, z, v, g_t, h_t, w, q, gtol, etol, expect)
        if expect == 1 and cp.index == 2 and not original(spec, z, v, g_t, h_t, w, q, gtol, etol, None).reason:
            cp = dataclasses.replace(cp, verified=True, reason="")
        return cp
    return _classify_one


def saddle_copies_inverted(original: Any) -> Any:
    """network_trap counting the copies of an escape saddle per trap configuration as mult(x)/(mult(s) e_s) for
    mult(s) e_s/mult(x) (the count and the log prefactor it enters)."""
    def network_trap(result: Any, spec: Any) -> Any:
        trap = original(result, spec)
        if trap is None:
            return trap
        saddles = tuple(dataclasses.replace(s, count=1.0 / s.count, log_prefactor=None if s.log_prefactor is None
                                            else s.log_prefactor - 2.0 * math.log(s.count)) for s in trap.saddles)
        return dataclasses.replace(trap, saddles=saddles)
    return network_trap


def block_gradients_over_tau(original: Any) -> Any:
    """The closed-form similarity gradient with 1/tau applied twice."""
    def block_gradients(*args: Any, tau: Any, **kwargs: Any) -> Any:
        return tuple(g / tau for g in original(*args, tau=tau, **kwargs))
    return block_gradients


def sgd_learning_rate(factor: float) -> Callable[[Any], Any]:
    """sgd_pair_step applying ``factor`` times the learning rate it was given."""
    def make(original: Any) -> Any:
        def sgd_pair_step(params_cl: Any, params_nscl: Any, batch: Any, ref: Any, config: Any, tau: Any,
                          learning_rate: Any, fresh_key: Any = None) -> Any:
            return original(params_cl, params_nscl, batch, ref, config, tau, learning_rate * factor, fresh_key)
        return sgd_pair_step
    return make


def batch_duplicates(original: Any) -> Any:
    """sample_batch with replacement drawing B/2 indices and returning each twice (batches not i.i.d.)."""
    def sample_batch(key: Any, labels: Any, batch_size: int, *, replace: bool = False, stratified: bool = False,
                     num_classes: int | None = None) -> Any:
        import jax.numpy as jnp

        if not replace:
            return original(key, labels, batch_size, replace=replace, stratified=stratified, num_classes=num_classes)
        half = original(key, labels, (batch_size + 1) // 2, replace=True)
        return jnp.concatenate([half, half])[:batch_size]
    return sample_batch


def losses_swapped(original: Any) -> Any:
    """population_loss_gap returning (L_NSCL, L_DCL) for (L_DCL, L_NSCL)."""
    def population_loss_gap(*args: Any, **kwargs: Any) -> Any:
        l_dcl, l_nscl = original(*args, **kwargs)
        return l_nscl, l_dcl
    return population_loss_gap


def certification_gives_up(original: Any) -> Any:
    """The arb bisection of a claim's certification exhausting its budget at once (every box undecided)."""
    def _arb_bisect(expr: Any, syms: Any, box: Any, budget: int, strict: bool = True) -> tuple[str, int, Any]:
        return "undecided", 0, 1
    return _arb_bisect


def mp_confirms_everything(original: Any) -> Any:
    """The 40-digit re-evaluation of a sampled counterexample always returning +1 (no refutation confirmed)."""
    def _mp_value(expr: Any, syms: Any, point: Any) -> Any:
        import mpmath

        return mpmath.mpf(1)
    return _mp_value
