"""Potentials on (S^{d-1})^N and their critical structure (docs/theorems.md A3, A5, A7).

Modules: :mod:`.registry` (the :class:`Landscape` object and the named landscapes), :mod:`.circle`
(S¹ Fourier potentials and their exact critical points), :mod:`.infonce` (InfoNCE potentials),
:mod:`.barriers` (critical heights by persistence), :mod:`.escape` (Kramers vs exact escape times),
:mod:`.thomson` (the Thomson problem), :mod:`.network` (minima, transition states and H* by kinetic
transition networks, A9).
The registry's public names are re-exported here.
"""

from contrastive_bounds.numerics.landscapes.registry import (  # noqa: F401
    Landscape,
    fourier_landscape,
    get_landscape,
    landscape_parameters,
    list_landscapes,
    load_fourier,
    resolve_landscape,
    scaled,
)
