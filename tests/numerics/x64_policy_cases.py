"""Script run by test_float64_policy.py in a FRESH interpreter with JAX's x64 off.

Walks every public function of ``contrastive_bounds.numerics`` (each module's ``__all__``, functions
defined there). Each must be in :data:`CASES` (a call with float64 input that must raise
``X64DisabledError`` naming the function) or in :data:`EXEMPT` (with the reason it never computes
with JAX on float input). Prints one JSON object: ``{"unlisted": [...], "stale": [...], "results": {...}}``;
``stale`` lists the CASES and EXEMPT entries that name no public function any more.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import pkgutil
import sys
from typing import Any, Callable

os.environ.pop("JAX_ENABLE_X64", None)

import numpy as np  # noqa: E402

import contrastive_bounds.numerics as N  # noqa: E402

F64 = np.float64
Z = np.eye(3)[:2]  # (2, 3) float64 unit rows
LAB = np.array([0, 1])
SIG = np.eye(4)  # float64 (m, m)


def _landscape(name: str = "double-well") -> Any:
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    return get_landscape(name)


def _jax_circle() -> Any:
    """An S¹ landscape given only by a JAX potential (no Fourier form): the circle functions that
    evaluate it need x64 for float64."""
    from contrastive_bounds.numerics.landscapes._landscape import Landscape

    return Landscape("jax-circle", 1, 2, lambda z: -(z[0, 0] ** 2) + 0.3 * z[0, 1])


def _fixed_schedule() -> Any:
    from contrastive_bounds.theory._schedules import make_schedule

    return make_schedule("fixed", c=0.5)


def _kernel() -> Any:
    from contrastive_bounds.numerics.langevin._kernel import langevin_kernel

    land = _landscape()
    return langevin_kernel(land, temperature=0.5, step_size=0.01)


def _descent_config() -> Any:
    from contrastive_bounds.numerics.alignment._descent_problem import DescentConfig

    return DescentConfig(batch_size=2, steps=1, tau=0.5, step_size=1.0)


def _sgd_config(**kw: Any) -> Any:
    from contrastive_bounds.numerics.alignment._sgd import SGDConfig

    return SGDConfig(**{"model": "free", "reference_size": 4, "batch_size": 2, "steps": 1, "projection_dim": 3, **kw})


def _reference() -> Any:
    """A float64 reference set of n = 2 samples (m = 4 rows) and free float64 embeddings."""
    from contrastive_bounds.numerics.alignment._sgd import ReferenceSet

    return ReferenceSet(np.ones((2, 64)), np.array([0, 1], np.int32), np.ones((4, 64)))


FREE = {"z": np.eye(4)[:, :3]}  # float64 free embeddings (m = 4, d = 3)
Z3 = np.eye(3)  # (3, 3) float64 unit rows: N = 3 points on S²


def _spec() -> Any:
    """The Thomson problem on (S²)³ as a spec built without the float64 probe (which refuses x64 off)."""
    from contrastive_bounds.numerics.landscapes.network.spec import LandscapeSpec
    from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry
    from contrastive_bounds.numerics.landscapes._thomson import thomson_potential

    return LandscapeSpec("thomson", 3, 3, thomson_potential(3), Symmetry.all_points())


def _m(module: str, name: str) -> Callable[..., Any]:
    return getattr(importlib.import_module(f"contrastive_bounds.numerics.{module}"), name)


def _key() -> Any:
    import jax

    return jax.random.key(0)


#: "module.function" -> call with float64 input (x64 off): must raise X64DisabledError naming the function.
CASES: dict[str, Callable[[], Any]] = {
    "alignment._loss_core.masked_logsumexp": lambda: _m("alignment._loss_core", "masked_logsumexp")(np.zeros((2, 3)), np.ones((2, 3), bool)),
    "alignment._loss_core.normalize": lambda: _m("alignment._loss_core", "normalize")(Z),
    "alignment._loss_core.cosine_similarity_matrix": lambda: _m("alignment._loss_core", "cosine_similarity_matrix")(Z, Z),
    "alignment._loss_core.anchor_losses": lambda: _m("alignment._loss_core", "anchor_losses")(
        np.eye(2), np.eye(2), ~np.eye(2, dtype=bool), tau=0.5),
    "alignment._loss_core.loss_from_similarity": lambda: _m("alignment._loss_core", "loss_from_similarity")(
        np.eye(2), np.eye(2), ~np.eye(2, dtype=bool), tau=0.5),
    "alignment._losses.batch_loss": lambda: _m("alignment._losses", "batch_loss")(Z, Z, LAB, tau=0.5, kind="cl"),
    "alignment._losses.info_nce_loss": lambda: _m("alignment._losses", "info_nce_loss")(Z, Z, tau=0.5),
    "alignment._losses.nscl_loss": lambda: _m("alignment._losses", "nscl_loss")(Z, Z, LAB, tau=0.5),
    "alignment._losses.supcon_loss": lambda: _m("alignment._losses", "supcon_loss")(Z, Z, LAB, tau=0.5),
    "alignment._descent_gradients.block_gradients": lambda: _m("alignment._descent_gradients", "block_gradients")(
        SIG, SIG, np.array([0, 1]), LAB, tau=0.5),
    "alignment._descent.descent_step": lambda: _m("alignment._descent", "descent_step")(
        (SIG, SIG, np.float64(0.0)), np.array([0, 1]), LAB, tau=0.5, step_size=1.0),
    "alignment._descent_gradients.batch_loss_on_sigma": lambda: _m("alignment._descent_gradients", "batch_loss_on_sigma")(
        SIG, np.array([0, 1]), LAB, tau=0.5, kind="cl"),
    "alignment._descent_gradients.full_gradient": lambda: _m("alignment._descent_gradients", "full_gradient")(
        SIG, np.array([0, 1]), LAB, tau=0.5, kind="cl"),
    "alignment._descent_run.run_similarity_descent": lambda: _m("alignment._descent_run", "run_similarity_descent")(
        SIG, LAB, _descent_config()),
    "alignment._training.encode": lambda: _m("alignment._training", "encode")({}, np.ones((2, 64))),
    "alignment._training.population_loss_gap": lambda: _m("alignment._training", "population_loss_gap")(Z, Z, LAB, tau=0.5),
    "alignment._sgd.load_reference_set": lambda: _m("alignment._sgd", "load_reference_set")(
        _m("alignment._sgd", "SGDConfig")(dtype="float64")),
    "alignment._data.augment": lambda: _m("alignment._data", "augment")(_key(), np.ones((2, 64))),
    "_sphere.project_tangent": lambda: _m("_sphere", "project_tangent")(Z, Z),
    "_sphere.normalize": lambda: _m("_sphere", "normalize")(Z),
    "_sphere.project_to_sphere": lambda: _m("_sphere", "project_to_sphere")(Z),
    "_sphere.retract": lambda: _m("_sphere", "retract")(Z, Z),
    "_sphere.exp_map": lambda: _m("_sphere", "exp_map")(Z, Z),
    "_sphere.geodesic_distance": lambda: _m("_sphere", "geodesic_distance")(Z, Z),
    "_sphere.product_distance": lambda: _m("_sphere", "product_distance")(Z[None], Z[None]),
    "_sphere.uniform": lambda: _m("_sphere", "uniform")(_key(), (2, 3), F64),
    "_sphere.sphere_angle": lambda: _m("_sphere", "sphere_angle")(np.array([[1.0, 0.0]])),
    "_sphere.on_sphere_error": lambda: _m("_sphere", "on_sphere_error")(Z),
    "_fastmath.rsqrt": lambda: _m("_fastmath", "rsqrt")(np.ones(3)),
    "_fastmath.log": lambda: _m("_fastmath", "log")(np.ones(3)),
    "langevin._increments.noise_scale": lambda: _m("langevin._increments", "noise_scale")(np.ones(2), 0.01),
    "langevin._increments.euler_maruyama_increment": lambda: _m("langevin._increments", "euler_maruyama_increment")(
        Z, Z, np.ones((2, 1)), 0.01),
    "langevin._fused_rng.fused_normal_pairs": lambda: _m("langevin._fused_rng", "fused_normal_pairs")(
        np.zeros(2, np.uint32), np.arange(2), (2,), F64),
    "langevin._fused_rng.fused_normals": lambda: _m("langevin._fused_rng", "fused_normals")(
        np.zeros(2, np.uint32), np.int32(0), (2,), F64),
    "langevin._experiments.start_positions": lambda: _m("langevin._experiments", "start_positions")(
        _landscape(), "global", 2, 0, None),
    "langevin._experiments.run_schedule": lambda: _m("langevin._experiments", "run_schedule")(
        _landscape(), 0.5, chains=2, t_end=0.1, step_size=0.01, seed=0),
    "langevin.steps.sphere.init": lambda: _m("langevin.steps.sphere", "init")(
        np.array([[1.0, 0.0]]), lambda z: (z[0, 0], z)),
    "langevin._annealing.anneal": lambda: _m("langevin._annealing", "anneal")(
        _landscape(), _m("langevin._annealing", "AnnealConfig")(_fixed_schedule(), chains=2, t_end=0.1, start="uniform")),
    "langevin._driver.simulate": lambda: _m("langevin._driver", "simulate")(
        _kernel(), np.tile([[[1.0, 0.0]]], (2, 1, 1)), _m("langevin._config", "SimulationConfig")(num_steps=1, seed=0)),
    "landscapes._barriers.circle_barrier": lambda: _m("landscapes._barriers", "circle_barrier")(_jax_circle()),
    "landscapes._barriers.torus_barrier": lambda: _m("landscapes._barriers", "torus_barrier")(_landscape()),
    "landscapes._barriers.sphere_barrier": lambda: _m("landscapes._barriers", "sphere_barrier")(_landscape("vmf")),
    "landscapes._barriers.landscape_barrier": lambda: _m("landscapes._barriers", "landscape_barrier")(_jax_circle()),
    "landscapes._string_method.sampled_minima": lambda: _m("landscapes._string_method", "sampled_minima")(_landscape(), _key()),
    "landscapes._string_method.string_method_barrier": lambda: _m("landscapes._string_method", "string_method_barrier")(
        _landscape(), np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])),
    "alignment._loss_core.anchor_loss_terms": lambda: _m("alignment._loss_core", "anchor_loss_terms")(
        np.eye(2), np.eye(2), ~np.eye(2, dtype=bool), 0.5),
    "alignment._loss_core.stable_mean": lambda: _m("alignment._loss_core", "stable_mean")(np.ones(3), 3),
    "alignment._descent_gradients.rows_gradient": lambda: _m("alignment._descent_gradients", "rows_gradient")(
        np.eye(2), np.ones((2, 2), bool), np.eye(2), 0.5, 0.5),
    "alignment._theorem1_trajectory.evaluate_theorem1_log": lambda: _m("alignment._theorem1_trajectory",
                                                                      "evaluate_theorem1_log")(
        _m("alignment._theorem1_log_io", "read_theorem1_log")({
            "sigma_cl": np.stack([SIG, SIG]), "sigma_nscl": np.stack([SIG, SIG]), "step_sizes": np.ones(1),
            "batch_size": np.array(2), "pi_max": np.array(0.5), "tau": np.array(0.5)})),
    "alignment._descent.applied_gradients": lambda: _m("alignment._descent", "applied_gradients")(
        np.eye(4), np.eye(4), np.array([0, 1]), LAB, tau=0.5),
    "alignment._descent_run.run_descent_chunk": lambda: _m("alignment._descent_run", "run_descent_chunk")(
        _m("alignment._descent", "DescentState")(SIG, SIG, np.float64(0.0)), np.array([[0, 1]]), LAB, 0.5, 1.0),
    "alignment._sgd.init_model": lambda: _m("alignment._sgd", "init_model")(_sgd_config(), _key()),
    "alignment._sgd.embed_rows": lambda: _m("alignment._sgd", "embed_rows")(FREE, np.arange(4), _reference()),
    "alignment._sgd.reference_sigma": lambda: _m("alignment._sgd", "reference_sigma")(FREE, _reference()),
    "alignment._sgd.sigma_defect": lambda: _m("alignment._sgd", "sigma_defect")(SIG),
    "alignment._sgd.pair_losses": lambda: _m("alignment._sgd", "pair_losses")(
        FREE, np.array([0, 1]), _reference(), _sgd_config(), 0.5, "cl"),
    "alignment._sgd.all_finite": lambda: _m("alignment._sgd", "all_finite")(FREE),
    "alignment._sgd.sgd_pair_step": lambda: _m("alignment._sgd", "sgd_pair_step")(
        FREE, FREE, np.array([0, 1]), _reference(), _sgd_config(), 0.5, 0.1),
    "alignment._eta_eff.symmetric_block_gradients": lambda: _m("alignment._eta_eff", "symmetric_block_gradients")(
        SIG, SIG, np.array([0, 1]), LAB, 0.5),
    "alignment._eta_eff.first_order_terms": lambda: _m("alignment._eta_eff", "first_order_terms")(
        FREE, FREE, _reference(), _sgd_config(), 1),
    "alignment._eta_eff.estimate_eta_eff": lambda: _m("alignment._eta_eff", "estimate_eta_eff")(
        _sgd_config(), _reference(), FREE, fit_steps=1),
    "alignment._proxy.centred_cka": lambda: _m("alignment._proxy", "centred_cka")(SIG, SIG),
    "alignment._proxy.run_proxy_comparison": lambda: _m("alignment._proxy", "run_proxy_comparison")(
        _m("alignment._proxy", "ProxyConfig")(sgd=_sgd_config(), record_every=1, fit_steps=1)),
    "alignment._batch_scaling.run_batch_scaling": lambda: _m("alignment._batch_scaling", "run_batch_scaling")(
        _m("alignment._batch_scaling", "ScalingConfig")(sgd=_sgd_config(), batch_sizes=(2, 4), exponents=(1.0, 0.0), seeds=2,
                                                         epochs=1, reference_batch=2)),
    "_sphere.tangent_basis": lambda: _m("_sphere", "tangent_basis")(Z3),
    "_sphere.riemannian_hessian": lambda: _m("_sphere", "riemannian_hessian")(np.eye(9), Z3, Z3, np.ones((9, 6))),
    "_sphere.geodesic_interpolate": lambda: _m("_sphere", "geodesic_interpolate")(Z3, Z3, np.array([0.5])),
    "landscapes.network.orbits.orbit_generators": lambda: _m("landscapes.network.orbits", "orbit_generators")(Z3),
    "landscapes.network.orbits.orbit_projector": lambda: _m("landscapes.network.orbits", "orbit_projector")(
        Z3, np.ones((9, 6)), True),
    "landscapes.network.orbits.remove_orbit": lambda: _m("landscapes.network.orbits", "remove_orbit")(Z3, Z3),
    "landscapes.network.optimize.lbfgs_single": lambda: _m("landscapes.network.optimize", "lbfgs_single")(
        _spec().value_and_grad, Z3),
    "landscapes.network.optimize.minimizer": lambda: _m("landscapes.network.optimize", "minimizer")(_spec(), 8),
    "landscapes.network.optimize.minimize_batch": lambda: _m("landscapes.network.optimize", "minimize_batch")(
        _spec(), Z3[None]),
    "landscapes.network.neb.neb_single": lambda: _m("landscapes.network.neb", "neb_single")(_spec().value_and_grad, Z3, Z3),
    "landscapes.network.neb.neb_runner": lambda: _m("landscapes.network.neb", "neb_runner")(_spec(), 8),
    "landscapes.network.neb.run_neb": lambda: _m("landscapes.network.neb", "run_neb")(_spec(), Z3[None], Z3[None]),
    "landscapes.network.saddle.critical_data": lambda: _m("landscapes.network.saddle", "critical_data")(
        _spec().potential, Z3, True),
    "landscapes.network.saddle.refiner": lambda: _m("landscapes.network.saddle", "refiner")(_spec(), 8, index=1),
    "landscapes.network.saddle.refine_batch": lambda: _m("landscapes.network.saddle", "refine_batch")(
        _spec(), Z3[None], index=1),
    "landscapes.network.descent.flow_single": lambda: _m("landscapes.network.descent", "flow_single")(
        _spec().value_and_grad, Z3),
    "landscapes.network.descent.flow_kernel": lambda: _m("landscapes.network.descent", "flow_kernel")(_spec(), 1),
    "landscapes.network.descent.descend_batch": lambda: _m("landscapes.network.descent", "descend_batch")(
        _spec(), Z3[None]),
    "landscapes.network.descent.settle": lambda: _m("landscapes.network.descent", "settle")(
        _spec(), Z3[None], eigenvalue_tol=1e-6, gradient_tol=1e-8),
    "landscapes.network.verify.newton_polish": lambda: _m("landscapes.network.verify", "newton_polish")(_spec(), Z3[None]),
    "landscapes.network.verify.classify": lambda: _m("landscapes.network.verify", "classify")(_spec(), Z3),
    "landscapes.network.verify.classify_batch": lambda: _m("landscapes.network.verify", "classify_batch")(
        _spec(), Z3[None]),
    "landscapes.network.search.landscape_network": lambda: _m("landscapes.network.search", "landscape_network")(_spec()),
    "landscapes.network.cache.network_for": lambda: _m("landscapes.network.cache", "network_for")(_spec()),
    "langevin.network_anneal.uniform_starts": lambda: _m("langevin.network_anneal", "uniform_starts")(_spec(), 2, 0),
    "langevin.network_anneal.final_basins": lambda: _m("langevin.network_anneal", "final_basins")(_spec(), Z3[None], []),
    "landscapes.network.spec.validate_potential": lambda: _m("landscapes.network.spec", "validate_potential")(
        _spec().potential, 3, 3, _spec().symmetry),
    "landscapes.network.spec.infonce_spec": lambda: _m("landscapes.network.spec", "infonce_spec")(4, 3, 0.5),
    "landscapes.network.spec.thomson_spec": lambda: _m("landscapes.network.spec", "thomson_spec")(3),
    "landscapes.network.spec.landscape_spec": lambda: _m("landscapes.network.spec", "landscape_spec")(_landscape()),
    "landscapes.network.spec.user_spec": lambda: _m("landscapes.network.spec", "user_spec")(lambda z: (z * z).sum(), 2, 3),
    "landscapes.hessfree.operators.riemannian_gradient": lambda: _m("landscapes.hessfree.operators", "riemannian_gradient")(
        _spec().potential, Z3),
    "landscapes.hessfree.operators.hessian_vector_product": lambda: _m(
        "landscapes.hessfree.operators", "hessian_vector_product")(_spec().potential, Z3, Z3),
    "landscapes.hessfree.operators.linearized_hessian": lambda: _m("landscapes.hessfree.operators", "linearized_hessian")(
        _spec().potential, Z3),
    "landscapes.hessfree.operators.tangent_inner": lambda: _m("landscapes.hessfree.operators", "tangent_inner")(Z3, Z3),
    "landscapes.hessfree.deflation.orbit_frame": lambda: _m("landscapes.hessfree.deflation", "orbit_frame")(Z3),
    "landscapes.hessfree.deflation.orbit_component": lambda: _m("landscapes.hessfree.deflation", "orbit_component")(
        (np.eye(3), np.zeros((3, 3))), Z3, Z3),
    "landscapes.hessfree.deflation.deflate": lambda: _m("landscapes.hessfree.deflation", "deflate")(
        (np.eye(3), np.zeros((3, 3))), Z3, Z3),
    "landscapes.hessfree.deflation.orbit_dimension": lambda: _m("landscapes.hessfree.deflation", "orbit_dimension")(
        _m("landscapes.hessfree.deflation", "OrbitFrame")(np.eye(3), np.zeros((3, 3)))),
    "landscapes.hessfree.deflation.orbit_modes": lambda: _m("landscapes.hessfree.deflation", "orbit_modes")(
        (np.eye(3), np.zeros((3, 3))), Z3, np.array([[0, 1]])),
    "landscapes.hessfree.lanczos.lanczos_lowest": lambda: _m("landscapes.hessfree.lanczos", "lanczos_lowest")(
        lambda v: v, lambda v: v, Z3, _key(), k=1, krylov_dim=4),
    "landscapes.hessfree.spectrum.deflated_hessian": lambda: _m("landscapes.hessfree.spectrum", "deflated_hessian")(
        _spec().potential, Z3),
    "landscapes.hessfree.spectrum.softest_modes": lambda: _m("landscapes.hessfree.spectrum", "softest_modes")(
        _spec().potential, Z3, _key(), k=1, krylov_dim=4),
    "landscapes.hessfree.certify.verifier": lambda: _m("landscapes.hessfree.certify", "verifier")(_spec().potential),
    "landscapes.hessfree.certify.verify_batch": lambda: _m("landscapes.hessfree.certify", "verify_batch")(
        _spec().potential, Z3[None]),
    "landscapes.hessfree.certify.verify_point": lambda: _m("landscapes.hessfree.certify", "verify_point")(
        _spec().potential, Z3),
    "landscapes.hessfree.complement.empty_memory": lambda: _m("landscapes.hessfree.complement", "empty_memory")(
        2, (3, 3), F64),
    "landscapes.hessfree.complement.complement_minimize": lambda: _m("landscapes.hessfree.complement",
                                                                     "complement_minimize")(
        None, Z3, 0.0, Z3, Z3, None, steps=1, gtol=1e-9, max_step=0.1),
    "landscapes.hessfree.eigenvector_following.hef_single": lambda: _m(
        "landscapes.hessfree.eigenvector_following", "hef_single")(_spec().potential, Z3, Z3, _key()),
    "landscapes.hessfree.eigenvector_following.hef_searcher": lambda: _m(
        "landscapes.hessfree.eigenvector_following", "hef_searcher")(_spec().potential),
    "landscapes.hessfree.eigenvector_following.hef_init": lambda: _m(
        "landscapes.hessfree.eigenvector_following", "hef_init")(_spec().potential, Z3, Z3, _key()),
    "landscapes.hessfree.eigenvector_following.hef_step": lambda: _m(
        "landscapes.hessfree.eigenvector_following", "hef_step")(_spec().potential, _m(
            "landscapes.hessfree.eigenvector_following", "HEFState")(*([Z3] * 14))),
    "landscapes.hessfree.eigenvector_following.hef_result": lambda: _m(
        "landscapes.hessfree.eigenvector_following", "hef_result")(_m(
            "landscapes.hessfree.eigenvector_following", "HEFState")(*([Z3] * 14))),
    "landscapes.hessfree.batched.queue_searcher": lambda: _m("landscapes.hessfree.batched", "queue_searcher")(
        _spec().potential, slots=2),
    "landscapes.hessfree.transition_states.search_transition_states": lambda: _m(
        "landscapes.hessfree.transition_states", "search_transition_states")(_spec().potential, Z3[None], Z3[None]),
    "landscapes.hessfree.transition_states.follow_modes": lambda: _m(
        "landscapes.hessfree.transition_states", "follow_modes")(_spec().potential, Z3),
    "landscapes.hessfree.logdet.lanczos_quadrature": lambda: _m("landscapes.hessfree.logdet", "lanczos_quadrature")(
        lambda v: v, lambda v: v, Z3, 4),
    "landscapes.hessfree.logdet.log_determinant": lambda: _m("landscapes.hessfree.logdet", "log_determinant")(
        _spec().potential, Z3),
    "landscapes.hessfree.logdet.stiffest_eigenvalue_bound": lambda: _m(
        "landscapes.hessfree.logdet", "stiffest_eigenvalue_bound")(_spec().potential, Z3),
    "landscapes.kramers_curvature.harmonic_departure": lambda: _m("landscapes.kramers_curvature", "harmonic_departure")(
        _spec(), Z3, 0.1),
    "landscapes.kramers_curvature.point_curvature": lambda: _m("landscapes.kramers_curvature", "point_curvature")(
        _spec(), Z3, expect=0),
    "landscapes.trap_tools.newton_polish": lambda: _m("landscapes.trap_tools", "newton_polish")(_spec().potential, Z3),
    "landscapes.trap_network.explore_trap": lambda: _m("landscapes.trap_network", "explore_trap")(_spec(), "/nonexistent"),
    "langevin.network_runs.escape_sample": lambda: _m("langevin.network_runs", "escape_sample")(
        _spec(), Z3[None], 0.5, t_end=0.1, step_size=0.01, seed=0, level=0.0),
    "langevin.network_runs.schedule_sample": lambda: _m("langevin.network_runs", "schedule_sample")(
        _spec(), Z3[None], 0.5, t_end=0.1, step_size=0.01, seed=0, level=0.0),
    "landscapes.hessfree.spectrum.locked_operator": lambda: _m("landscapes.hessfree.spectrum", "locked_operator")(
        None, np.zeros((1, 3, 3))),
    "landscapes.network.families.family_starts": lambda: _m("landscapes.network.families", "family_starts")(
        _spec(), budget=4, max_excess=1, copies=1, noise=0.1, seed=0),
    "landscapes.network.hessfree_curvature.newton_cg_polisher": lambda: _m(
        "landscapes.network.hessfree_curvature", "newton_cg_polisher")(_spec().potential, True, 2, 1e-8),
    "landscapes.network.symmetric_modes.krylov_ritz": lambda: _m("landscapes.network.symmetric_modes", "krylov_ritz")(
        lambda u: u, lambda u: u, Z3),
    "landscapes.network.symmetric_modes.symmetric_directions": lambda: _m(
        "landscapes.network.symmetric_modes", "symmetric_directions")(_spec(), Z3, tol=1e-8),
}

#: "module.function" -> why it needs no x64 guard (it never computes with JAX on float input).
EXEMPT: dict[str, str] = {
    "landscapes.network.agreement.seed_agreement": "compares two saved results in numpy float64 (no JAX)",
    "landscapes.network.families.closed_form_minimum": "numpy bookkeeping around infonce_simplex_minimum (walked)",
    "landscapes.network.families.partitions": "integer partitions (no arithmetic on floats)",
    "landscapes.network.hessfree_curvature.modes_off_symmetry": "integer count of modes",
    "landscapes.network.mode_orbits.stabilizer_orbits": "Gram matrices and VF2 automorphisms in numpy/networkx (no JAX)",
    "landscapes.network.symmetric_modes.act": "a permutation and an orthogonal map applied in numpy (no JAX)",
    "landscapes.network.symmetric_modes.spanning_directions": "tangent projections and ranks in numpy (no JAX)",
    "landscapes.network.state.at_scale": "builds search settings (no arithmetic)",
    "landscapes.network.state.default_curvature": "chooses a provider name by size (no arithmetic)",
    "landscapes.network.structured.pair_units": "integer bookkeeping of pairs",
    "langevin._global_set.global_set_level": "scalar arithmetic on given energies (Python floats)",
    "langevin._global_set.global_set_margin": "scalar arithmetic on given energies (Python floats)",
    "langevin._global_set.global_tie_tolerance": "scalar arithmetic (Python floats)",
    "landscapes.hessfree.lanczos.lanczos_matvecs": "integer arithmetic",
    "landscapes.hessfree.transition_states.default_slots": "integer choice from the backend's name",
    "landscapes.hessfree.certify.certify_spectrum": "numpy float64 bounds on given Ritz values (no JAX)",
    "landscapes.hessfree.simplex.simplex_vertices": "numpy float64 (no JAX)",
    "landscapes.hessfree.simplex.infonce_simplex_energy": "scalar arithmetic (math)",
    "landscapes.hessfree.simplex.infonce_simplex_minimum": "numpy float64 (no JAX)",
    "landscapes.network.codes.polygon": "a spherical code in numpy float64 (no JAX)",
    "landscapes.network.codes.simplex": "a spherical code in numpy float64 (no JAX)",
    "landscapes.network.codes.cross_polytope": "a spherical code in numpy float64 (no JAX)",
    "landscapes.network.codes.cube": "a spherical code in numpy float64 (no JAX)",
    "landscapes.network.codes.icosahedron": "a spherical code in numpy float64 (no JAX)",
    "landscapes.network.structured.supports_structured": "a test on the symmetry (no arithmetic)",
    "landscapes.network.structured.placements": "integer placements of pairs on code sites (no JAX)",
    "landscapes.network.structured.infonce_templates": "start templates in numpy float64 (no JAX)",
    "landscapes.network.structured.structured_starts": "perturbed templates in numpy float64 (no JAX); they are "
                                                       "minimised by landscape_network, which requires x64",
    "landscapes.network.minima.*": "steps of landscape_network on its store (x64 required at its entry)",
    "landscapes.network.following.*": "a step of landscape_network on its store (x64 required at its entry)",
    "landscapes.network.connect.*": "steps of landscape_network on its store (x64 required at its entry)",
    "landscapes.network.closure.*": "the rounds of landscape_network on its store (x64 required at its entry); "
                                    "text and budget bookkeeping",
    "landscapes.network.bands.*": "a step of landscape_network (x64 required at its entry) and numpy distances of "
                                  "aligned representatives and Gram spectra (no JAX)",
    "landscapes.network.search.run_search": "the phases of landscape_network on its store (x64 required at its entry)",
    "landscapes.network.catalog.*": "identification up to symmetry in numpy; flat_path's JAX part is "
                                    "_sphere.geodesic_interpolate, which refuses float64 with x64 off (a case above)",
    "landscapes.network.events.*": "events of a search (no arithmetic)",
    "landscapes.network.records.*": "records and labels (text, numpy)",
    "landscapes.network.serial.*": "reads and writes JSON state files (python floats)",
    "landscapes.network.status.*": "the status rule (text)",
    "landscapes.network.arguments.*": "argument validation (python numbers)",
    "landscapes.network.rebuild.*": "fingerprint bookkeeping; building goes through the spec builders (cases above)",
    "landscapes.network.saved.*": "reads a JSON state file (python floats); rebuilding and re-verifying go through "
                                  "the spec builders (cases above)",
    "landscapes.network.result.*": "a result of a finished store (numpy bookkeeping)",
    "landscapes.network.curvature.*": "picks a provider (no arithmetic)",
    "landscapes.network.cache.clear_network_cache": "empties a cache (no arithmetic)",
    "network_experiment.*": "planning in numpy around the spec builders and classify, runs through schedule_sample "
                            "and final_basins (cases above)",
    "alignment._losses.view_masks": "boolean masks from integer labels (numpy)",
    "alignment._descent.sample_batch": "integer indices from a PRNG key",
    "alignment._descent_run.read_checkpoint_arrays": "reads a .npz file with numpy (no JAX)",
    "alignment._data.load_digits_subset": "numpy arrays of the requested dtype (no JAX)",
    "alignment._training.init_params": "float32 parameters by design (training is a float32 throughput run and says so)",
    "alignment._training.check_train_config": "validation only",
    "alignment._training.train_alignment": "float32 training by design (reported as float_dtype_training); metrics in "
                                          "float64 numpy",
    "langevin._kernel.langevin_kernel": "factory: the kernel's states come from simulate, which is guarded",
    "langevin._fused_rng.threefry2x32": "uint32 arithmetic only",
    "langevin._experiments.circle_trap": "numpy float64 critical points of a Fourier series (no JAX; the same "
                                        "values with x64 off, test_float64_policy.py)",
    "langevin._experiments.kramers_trap_band": "numpy/mpmath",
    "langevin._experiments.misscaled_temperature": "scalar arithmetic",
    "langevin._experiments.default_delta": "scalar arithmetic",
    "langevin._experiments.step_factor": "scalar arithmetic",
    "langevin.network_runs.radius_clock_temperature": "factory: returns a temperature function, computes nothing",
    "langevin.network_runs.censored_mean": "numpy float64 on finished escape times",
    "langevin.network_runs.arrhenius_exponent": "numpy least squares and bootstrap on finished escape samples",
    "landscapes.network_kramers.network_trap": "numpy bookkeeping of a finished network around classify, which refuses "
                                               "float64 with x64 off",
    "landscapes.kramers_curvature.orbit_volume_density": "numpy singular values (float64)",
    "landscapes.kramers_curvature.curvature_path": "chooses a path by size (no arithmetic)",
    "landscapes.hessfree.logdet.quadrature_bound": "scalar arithmetic",
    "landscapes.hessfree.logdet.paired_difference": "numpy arithmetic on finished estimates",
    "landscapes.trap_tools.multiplicity_at_scale": "numpy Gram labels and bliss automorphism groups (float64)",
    "landscapes.trap_tools.same_gram": "numpy sorted Gram entries (float64)",
    "landscapes.hessfree.logdet.orbit_volume_density": "numpy eigenvalues of a d x d Gram matrix (float64)",
    "landscapes.hessfree.logdet.log_orbit_volume_density": "numpy eigenvalues of a d x d Gram matrix (float64)",
    "langevin.network_anneal.network_starts": "numpy Haar rotations of a saved minimum (float64)",
    "langevin.network_anneal.stiffest_eigenvalue": "numpy bookkeeping around classify, which refuses float64 with x64 off",
    "langevin.network_anneal.minimum_trap": "numpy bookkeeping of a saved network around network_trap (classify refuses)",
    "langevin.network_anneal.trap_prediction": "mpmath quadrature of escape rates of a finished trap",
    "langevin.network_anneal.laplace_regime": "bookkeeping around harmonic_departure, which refuses float64 with x64 off",
    "langevin.network_runs.run_description": "a text description of a run (no computation)",
    "landscapes.network_kramers.euler_step_log_rate_bias": "scalar arithmetic on a finished trap",
    "landscapes.network_kramers.random_rotations": "numpy Haar rotations (float64)",
    "landscapes.network_kramers.trap_starts": "numpy rotations of the trap's minimum (float64)",
    "langevin._config.*": "configuration objects and their validation (no JAX)",
    "langevin._paths.*": "chooses and binds the step functions (no arithmetic; run inside simulate, which is guarded)",
    "langevin.steps.chains_last.*": "steps of simulate's compiled loop (guarded at simulate's entry)",
    "langevin.steps.circle.*": "steps of simulate's compiled loop (guarded at simulate's entry)",
    "langevin.steps.sphere.noise_shape": "shape arithmetic",
    "langevin.steps.sphere.tangent_increment": "delegates to sphere.project_tangent, which refuses float64 with x64 off",
    "langevin.steps.sphere.step": "delegates to sphere.project_tangent and retract/exp_map, which refuse float64 with x64 "
                                  "off (its states come from init, a case above)",
    "langevin._temperature.kernel_temperature": "factory: a temperature function and its program (no arithmetic)",
    "langevin._observables.basin_label": "step of simulate's compiled loop (its input is guarded at simulate's entry)",
    "langevin._observables.final_labels": "step of simulate's compiled loop (guarded at simulate's entry)",
    "langevin._observables.initial_carry": "state of simulate's loop (guarded at simulate's entry)",
    "langevin._noise.noise_key": "PRNG key plumbing",
    "langevin._noise.steps_loop": "simulate's compiled loop (guarded at simulate's entry)",
    "langevin._chunk.*": "simulate's chunk plumbing (compiler options, device placement; guarded at simulate's entry)",
    "langevin._arguments.*": "argument validation (numpy)",
    "langevin._checkpoint.*": "checkpoint files (numpy)",
    "langevin._cost.*": "integer cost arithmetic",
    "langevin._defaults.*": "configuration choices",
    "langevin._runlog.*": "records which generator ran",
    "langevin._specs.as_temperature_fn": "factory: returns a schedule function, computes nothing",
    "langevin._specs.resolve_potential": "factory: resolves a landscape's potential",
    "langevin._specs.sqrt_spd": "numpy float64",
    "langevin._noise_validation.fused_sample": "delegates to fused_normal_pairs, which refuses float64 with x64 off",
    "langevin._noise_validation.*": "scipy/numpy statistics of the generator's output",
    "_devices.*": "JAX device configuration (environment)",
    "alignment._compare.*": "numpy float64 comparison of saved embeddings",
    "alignment._batch_scaling_report.*": "report of a finished grid (Python/numpy)",
    "alignment._checkpoint.*": "checkpoint files (numpy)",
    "alignment._loss_core.min_tau": "numpy finfo of the dtype asked for (float64's floor whatever x64 says)",
    "alignment._loss_core.check_tau": "validation only (a float against the dtype's floor)",
    "alignment._descent_gradients.block_structure": "boolean index sets from integer batch and labels",
    "alignment._descent_problem.check_run_inputs": "validation only (numpy)",
    "alignment._descent_problem.prepare_run_inputs": "validation (numpy); refuses float64 with x64 off on behalf of "
                                                    "run_similarity_descent",
    "alignment._descent_problem.make_problem": "numpy problem generator (no JAX)",
    "alignment._descent_result.link_bounds_log10": "numpy log-space arithmetic on a finished run",
    "alignment._descent.same_class_fractions": "fractions of integer counts from integer batch and labels",
    "alignment._step_schedule.*": "numpy float64 step-size sequences (data of the compiled scan)",
    "alignment._theorem1_log.*": "reading and checking log files (numpy)",
    "alignment._theorem1_log_io.*": "validation of a log's arrays (numpy; the sampler draws integer indices) and "
                                   "writing it",
    "alignment._sgd.sigma_tolerance": "a constant per dtype name",
    "alignment._sgd.divergence_message": "text",
    "alignment._sgd.reference_memory_bytes": "integer arithmetic",
    "alignment._sgd.available_memory_bytes": "reads /proc/meminfo",
    "alignment._sgd.check_reference_memory": "integer arithmetic and validation",
    "alignment._sgd.run_keys": "PRNG key plumbing",
    "alignment._sgd.batch_for_step": "integer indices from a PRNG key",
    "alignment._eta_eff.batch_rows": "integer indices",
    "alignment._eta_eff.orthonormal_fit_expansion": "numpy float64",
    "alignment._proxy.check_proxy_inputs": "validation only",
    "alignment._batch_scaling.check_scaling_inputs": "validation only",
    "alignment._batch_scaling.steps_for": "integer arithmetic",
    "alignment._batch_scaling.learning_rate_for": "scalar arithmetic",
    "landscapes._persistence.*": "numpy union-find and gudhi persistence (float64 in numpy and C++), integer graphs",
    "landscapes._fourier.read_fourier_file": "file parsing",
    "landscapes._circle.analyse_circle": "numpy roots of a trigonometric polynomial",
    "landscapes._escape.min_escape_temperature": "numpy",
    "landscapes._escape.circle_escape_times": "numpy critical points and mpmath quadrature (no JAX; the same values "
                                             "with x64 off, test_float64_policy.py)",
    "landscapes._infonce.hardest_negative_potential": "factory: returns the potential (guarded where simulated)",
    "landscapes._infonce.hardest_negative_value_and_grad": "factory",
    "landscapes._infonce.soft_hardest_negative_potential": "factory",
    "landscapes._infonce.infonce_potential": "factory",
    "landscapes._thomson.thomson_potential": "factory that returns a potential whose evaluation is guarded (simulate, "
                                            "the barrier estimates, the network search)",
    "landscapes._landscape.fourier_landscape": "factory",
    "landscapes._landscape.load_fourier": "factory (file parsing)",
    "landscapes._landscape.scaled": "factory",
    "landscapes._registry.list_landscapes": "names only",
    "landscapes._registry.landscape_parameters": "names only",
    "landscapes._registry.get_landscape": "factory",
    "landscapes._registry.resolve_landscape": "factory",
    "landscapes.network.graph.*": "networkx/numpy analysis of a finished network",
    "landscapes.network.disconnectivity.*": "matplotlib drawing of a finished network",
    "landscapes.network.symmetry.*": "numpy group elements and orbit comparisons (float64)",
    "landscapes.network.refinement.*": "numpy integer labels and colours (no JAX, no floating point)",
    "landscapes.network.automorphisms.*": "integer labels, bliss and Schreier–Sims (no JAX, no floating point)",
    "landscapes.network.parallel.*": "schedules callers' work on devices (computes nothing; the work it runs checks x64)",
    "landscapes.network.symmetry_alignment.*": "numpy Kabsch rotations and Hungarian assignments (float64)",
    "landscapes.network.neb.band_maxima": "numpy on a finished band",
    "landscapes.network.optimize.padded_size": "integer arithmetic",
    "landscapes.network.optimize.batch_size": "integer arithmetic on N·d and the backend's name",
    "landscapes.network.optimize.run_in_padded_chunks": "chunking around a compiled function (its callers "
                                                        "minimize_batch, run_neb and refine_batch refuse float64 "
                                                        "with x64 off)",
    "landscapes.network.verify.orbit_dimension_formula": "numpy rank of a float64 configuration",
    "langevin._temperature.temperature_program": "factory: splits a temperature argument into a program and its "
                                                "values (no arithmetic); evaluated inside simulate, which is guarded",
    "_precision.enable_x64": "the policy itself",
    "_precision.request_x64": "the policy itself",
    "_precision.x64_enabled": "the policy itself",
    "_precision.require_x64": "the policy itself",
    "_stats.*": "numpy/scipy statistics",
    "_filemode.*": "file modes and atomic writes",
    "_arrayfiles.*": "reading .npy/.npz files (numpy)",
    "_fingerprints.*": "text comparison of JSON fingerprints",
    "alignment._cka.*": "numpy float64",
    "alignment._rsa.*": "numpy float64",
    "alignment._realarrays.*": "numpy float64 validation and exact rescaling",
}



def public_functions() -> list[str]:
    """Every public function of every numerics module, as "module.function" (module without the prefix)."""
    out = []
    prefix = "contrastive_bounds.numerics."
    for info in pkgutil.walk_packages(N.__path__, prefix):
        mod = importlib.import_module(info.name)
        names = getattr(mod, "__all__", [n for n in vars(mod) if not n.startswith("_")])
        for n in names:
            obj = getattr(mod, n, None)
            if inspect.isfunction(obj) and obj.__module__ == info.name:
                out.append(f"{info.name.removeprefix(prefix)}.{n}")
    return sorted(out)


def _exempt(name: str) -> bool:
    module_glob = f"{name.rsplit('.', 1)[0]}.*"
    return name in EXEMPT or module_glob in EXEMPT


def main() -> None:
    from contrastive_bounds.numerics._precision import X64DisabledError, x64_enabled

    assert not x64_enabled()
    functions = public_functions()
    unlisted = [f for f in functions if f not in CASES and not _exempt(f)]
    stale = [c for c in CASES if c not in functions]
    results = {}
    for name, call in CASES.items():
        if name in stale:
            continue
        try:
            value = call()
        except X64DisabledError as exc:
            fn = name.rsplit(".", 1)[1]
            results[name] = "ok" if (fn in str(exc) and "enable_x64()" in str(exc)) else f"message: {exc}"
            continue
        except Exception as exc:  # noqa: BLE001 - report which type instead
            results[name] = f"raised {type(exc).__name__}: {str(exc)[:200]}"
            continue
        dtype = getattr(value, "dtype", None)
        results[name] = f"returned {dtype} without raising"
    stale_exempt = [e for e in EXEMPT if not any(f == e or (e.endswith(".*") and f.rsplit(".", 1)[0] == e[:-2])
                                                for f in functions)]
    print(json.dumps({"unlisted": unlisted, "stale": stale + stale_exempt, "results": results}))


if __name__ == "__main__":
    sys.exit(main())
