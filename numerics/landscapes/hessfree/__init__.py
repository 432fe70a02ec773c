"""Hessian-free critical-point tools on ``(S^{d−1})^N`` for large ``N·d`` (docs/theorems.md A9).

A potential ``V`` (pure JAX, ``(N, d) -> ()``) in, results out; no ``(N·d)²`` array anywhere. The dense
algebra of :mod:`..network` is the small-size reference these functions reproduce.

Modules by responsibility: :mod:`.operators` (Riemannian gradient and Hessian–vector products by
forward-over-reverse differentiation), :mod:`.deflation` (the ``O(d)`` rotation modes, projected out
analytically), :mod:`.lanczos` (thick-restart Lanczos with full reorthogonalisation),
:mod:`.spectrum` (the deflated Hessian as an operator; its softest modes), :mod:`.certify`
(minimum / transition-state certificates from the lowest eigenvalues with residual bounds),
:mod:`.complement` (L-BFGS in the complement of a mode), :mod:`.eigenvector_following` (hybrid
eigenvector following, batched), :mod:`.transition_states` (searches from minima along their softest
modes, certified), :mod:`.simplex` (the closed-form InfoNCE global minimum).
"""

from contrastive_bounds.numerics.landscapes.hessfree.operators import (  # noqa: F401
    hessian_vector_product,
    riemannian_gradient,
)
from contrastive_bounds.numerics.landscapes.hessfree.spectrum import Spectrum, softest_modes  # noqa: F401

__all__ = ["hessian_vector_product", "riemannian_gradient", "softest_modes", "Spectrum"]
