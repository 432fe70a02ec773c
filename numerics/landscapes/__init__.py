"""Potentials on (S^{d-1})^N and their critical structure (docs/theorems.md A3, A5, A7).

Modules: :mod:`.registry` (the :class:`Landscape` object and the named landscapes), :mod:`.circle`
(S¹ Fourier potentials and their exact critical points), :mod:`.infonce` (InfoNCE potentials),
:mod:`.barriers` (critical heights by persistence), :mod:`.escape` (Kramers vs exact escape times),
:mod:`.thomson` (the Thomson problem), :mod:`.network` (minima, transition states and H* by kinetic
transition networks, A9).
The registry's public names are re-exported here, imported on first use (so the JAX-free modules of
:mod:`.network` — reading a saved search, checking a landscape's arguments — start no JAX).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Landscape", "fourier_landscape", "get_landscape", "landscape_parameters", "list_landscapes", "load_fourier",
           "resolve_landscape", "scaled"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        value = getattr(importlib.import_module("contrastive_bounds.numerics.landscapes.registry"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
