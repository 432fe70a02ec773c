"""Hessian-free critical-point tools on ``(S^{d−1})^N`` for large ``N·d`` (docs/theorems.md A9).

A potential ``V`` (pure JAX, ``(N, d) -> ()``) in, results out; no ``(N·d)²`` array anywhere. The dense
algebra of :mod:`..network` is the small-size reference these functions reproduce.

Modules by responsibility: :mod:`.operators` (Riemannian gradient and Hessian–vector products by
forward-over-reverse differentiation), :mod:`.deflation` (the ``O(d)`` rotation modes, projected out
analytically), :mod:`.lanczos` (thick-restart Lanczos with full reorthogonalisation),
:mod:`.spectrum` (the deflated Hessian as an operator; its softest modes), :mod:`.certify`
(minimum / transition-state certificates from the lowest eigenvalues with residual bounds),
:mod:`.complement` (L-BFGS in the complement of a mode), :mod:`.eigenvector_following` (hybrid
eigenvector following: init/step kernels, one search, vmapped searches), :mod:`.batched` (many searches in
refilled vmapped lanes), :mod:`.transition_states` (searches from minima along their softest modes,
certified), :mod:`.simplex` (the closed-form InfoNCE global minimum), :mod:`.logdet` (log-determinants, traces
and the stiffest eigenvalue by Lanczos quadrature, for Eyring–Kramers prefactors).

Example (decoupled InfoNCE, N = 6 on S², τ = 0.1; its global minimum is the collapsed simplex):

>>> from contrastive_bounds.numerics import enable_x64; enable_x64()
>>> from contrastive_bounds.numerics.landscapes import infonce_potential
>>> from contrastive_bounds.numerics.landscapes.hessfree import infonce_simplex_minimum, verify_point
>>> z, energy = infonce_simplex_minimum(6, 3, 0.1)
>>> cert = verify_point(infonce_potential(6, [(0, 1), (2, 3), (4, 5)], 0.1), z, expect=0)
>>> cert.verified, cert.kind, round(cert.energy - energy, 12)
(True, 'minimum', 0.0)
"""

from contrastive_bounds._faces import lazy_face

#: public name -> the public module of this package that defines it (loaded on first use)
_HOME = {
    "Certificate": "certify",
    "certify_spectrum": "certify",
    "follow_modes": "transition_states",
    "hef_searcher": "eigenvector_following",
    "HEFSettings": "eigenvector_following",
    "hessian_vector_product": "operators",
    "infonce_simplex_energy": "simplex",
    "infonce_simplex_minimum": "simplex",
    "log_determinant": "logdet",
    "LogDeterminant": "logdet",
    "queue_searcher": "batched",
    "riemannian_gradient": "operators",
    "search_transition_states": "transition_states",
    "softest_modes": "spectrum",
    "Spectrum": "spectrum",
    "TransitionStateSearch": "transition_states",
    "verify_batch": "certify",
    "verify_point": "certify",
}

__all__ = ["hessian_vector_product", "riemannian_gradient", "softest_modes", "Spectrum", "Certificate",
           "certify_spectrum", "verify_point", "verify_batch", "HEFSettings", "hef_searcher", "queue_searcher",
           "search_transition_states", "follow_modes", "TransitionStateSearch", "infonce_simplex_energy", "infonce_simplex_minimum",
           "LogDeterminant", "log_determinant"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, (), __all__)
