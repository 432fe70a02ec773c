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

>>> from contrastive_bounds.numerics._precision import enable_x64; enable_x64()
>>> from contrastive_bounds.numerics.landscapes import infonce_potential
>>> from contrastive_bounds.numerics.landscapes.hessfree import infonce_simplex_minimum, verify_point
>>> z, energy = infonce_simplex_minimum(6, 3, 0.1)
>>> cert = verify_point(infonce_potential(6, [(0, 1), (2, 3), (4, 5)], 0.1), z, expect=0)
>>> cert.verified, cert.kind, round(cert.energy - energy, 12)
(True, 'minimum', 0.0)
"""

from contrastive_bounds.numerics.landscapes.hessfree.batched import queue_searcher  # noqa: F401
from contrastive_bounds.numerics.landscapes.hessfree.certify import (  # noqa: F401
    Certificate,
    certify_spectrum,
    verify_batch,
    verify_point,
)
from contrastive_bounds.numerics.landscapes.hessfree.eigenvector_following import (  # noqa: F401
    HEFSettings,
    hef_searcher,
)
from contrastive_bounds.numerics.landscapes.hessfree.logdet import LogDeterminant, log_determinant  # noqa: F401
from contrastive_bounds.numerics.landscapes.hessfree.operators import (  # noqa: F401
    hessian_vector_product,
    riemannian_gradient,
)
from contrastive_bounds.numerics.landscapes.hessfree.simplex import (  # noqa: F401
    infonce_simplex_energy,
    infonce_simplex_minimum,
)
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import Spectrum, softest_modes  # noqa: F401
from contrastive_bounds.numerics.landscapes.hessfree.transition_states import (  # noqa: F401
    TransitionStateSearch,
    follow_modes,
    search_transition_states,
)

__all__ = ["hessian_vector_product", "riemannian_gradient", "softest_modes", "Spectrum", "Certificate",
           "certify_spectrum", "verify_point", "verify_batch", "HEFSettings", "hef_searcher", "queue_searcher",
           "search_transition_states", "follow_modes", "TransitionStateSearch", "infonce_simplex_energy", "infonce_simplex_minimum"]
