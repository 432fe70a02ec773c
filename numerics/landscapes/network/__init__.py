"""Kinetic transition networks of potentials on ``(S^{d−1})^N``: minima, transition states, H* (A9).

One call: :func:`landscape_network` (``spec -> NetworkResult`` with H*, Catoni's D, minima with
multiplicities, verified transition states, rejected candidates, search effort; JSON via
``to_dict``). Specs: :func:`infonce_spec`, :func:`thomson_spec`, :func:`landscape_spec` (registry
landscapes), :func:`user_spec` (any JAX potential with a declared :class:`Symmetry`).

Modules by responsibility: :mod:`.manifold` (tangent spaces, Riemannian Hessian, orbit modes),
:mod:`.optimize` (batched Riemannian L-BFGS), :mod:`.saddle` (refinement and verification),
:mod:`.neb` (climbing-image bands), :mod:`.descent` (steepest-descent paths from saddles),
:mod:`.symmetry` (equivalence, multiplicity, alignment), :mod:`.codes` (spherical codes),
:mod:`.structured` (InfoNCE structured starts), :mod:`.catalog` (deduplication), :mod:`.graph` (H*, D,
merge tree), :mod:`.disconnectivity` (PNG), :mod:`.records`, :mod:`.state`, :mod:`.store` (saving and
resuming), :mod:`.phases` (minima phases), :mod:`.connect` (saddles to edges), :mod:`.closure`
(transition-state rounds to closure), :mod:`.search` (the entry point).
"""

from contrastive_bounds.numerics.landscapes.network.graph import NetworkAnalysis, analyse_network  # noqa: F401
from contrastive_bounds.numerics.landscapes.network.records import Effort, NetworkMinimum, TransitionState  # noqa: F401
from contrastive_bounds.numerics.landscapes.network.search import NetworkResult, landscape_network  # noqa: F401
from contrastive_bounds.numerics.landscapes.network.spec import (  # noqa: F401
    LandscapeSpec,
    infonce_spec,
    landscape_spec,
    thomson_spec,
    user_spec,
)
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings  # noqa: F401
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry  # noqa: F401

__all__ = ["landscape_network", "NetworkResult", "SearchSettings", "LandscapeSpec", "Symmetry", "infonce_spec",
           "thomson_spec", "landscape_spec", "user_spec", "NetworkAnalysis", "analyse_network", "NetworkMinimum",
           "TransitionState", "Effort"]
