"""contrastive-bounds: theorems of contrastive-learning theory as executable, cited objects.

Subpackages (one direction of dependence, no cycles)::

    contrastive_bounds.theory      symbolic bounds, claims, sources   (sympy, mpmath, python-flint)
    contrastive_bounds.numerics    JAX simulations and measurements   (may import theory)
    contrastive_bounds.properties  checks, strategies, report, CLI    (imports both)

Importing the package never changes global JAX settings; see
:func:`contrastive_bounds.numerics.enable_x64` to opt in to float64.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
