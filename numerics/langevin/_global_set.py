"""The set a run must reach: the global set ``{V < V_min + δ}`` and the one rule for its margin δ.

Every annealing or escape run of the toolkit (circle landscapes, InfoNCE transition networks, the sweeps'
rows and the command line) counts a chain as having "reached the global set" when ``V(Z_t) < V_min + δ``.
The margin is always the same rule, :func:`global_set_margin`: half the gap between ``V_min`` and the lowest
energy that must stay outside the set — the start (a trap) and, where they are known, the other non-global
minima. So the set never holds the start nor any non-global minimum given, and lies inside the basins of the
global minima (gradient flow does not increase V). :func:`global_set_level` is ``V_min + δ``.

Pure Python (no JAX): the command line's checks of ``--delta`` import it before any simulation starts.
"""

from __future__ import annotations

import math
from typing import Iterable

from contrastive_bounds.theory._domains import check_real

__all__ = ["DEFAULT_MARGIN", "global_set_margin", "global_set_level", "global_tie_tolerance"]

#: δ when no energy must stay outside the set (every minimum given is global): units of V.
DEFAULT_MARGIN = 0.1


def global_tie_tolerance(v_min: float) -> float:
    """``1e-10·max(1, |v_min|)`` (units of V): an energy within this of ``v_min`` is a global minimum, not a wall of
    the global set (the transition networks' tie rule for refined energies, which carry ~1e-14 relative error).

    Not :func:`contrastive_bounds.numerics.landscapes.tie_tolerance`, the persistence sweep's tolerance for equal
    values on a grid (relative to the landscape's range). Named ``tie_tolerance`` in ``numerics.langevin`` before
    (a deprecated alias, removed in the next minor release, 0.2.0).
    """
    return 1e-10 * max(1.0, abs(float(v_min)))


def global_set_margin(v_min: float, outside: Iterable[float], *, fallback: float = DEFAULT_MARGIN) -> float:
    """δ of the global set ``{V < v_min + δ}``: half the gap between ``v_min`` and the lowest energy of
    ``outside`` above it (ties within :func:`global_tie_tolerance` count as global and are ignored); ``fallback``
    when none is above.

    Args:
      v_min: the global minimum energy V_min (finite, units of V).
      outside: energies that must lie outside the set: the start minimum (a trap), the other minima found.
      fallback: δ > 0 when no energy of ``outside`` is above ``v_min`` (default :data:`DEFAULT_MARGIN`).
    Returns:
      δ > 0 (float).
    Raises:
      ValueError: naming ``v_min``, ``outside`` or ``fallback`` when not finite (``fallback`` also when <= 0).
    Source: the success event ``V(Z_t) < V_min + δ`` of Paper A (docs/theorems.md, A4); the half-gap choice
    keeps the start and every given non-global minimum outside.

    Examples:
      >>> global_set_margin(-1.0, [-0.5, 0.2])
      0.25
      >>> global_set_margin(-1.0, [-1.0])   # only global minima: the fallback
      0.1
      >>> global_set_level(2.0, [3.0])
      2.5
    """
    vm = check_real("v_min", v_min)
    fb = check_real("fallback", fallback, 0.0, math.inf)
    values = [float(e) for e in outside]
    if not all(math.isfinite(e) for e in values):
        raise ValueError(f"outside={values!r} must hold finite energies")
    tie = global_tie_tolerance(vm)
    above = [e for e in values if e > vm + tie]
    return 0.5 * (min(above) - vm) if above else fb


def global_set_level(v_min: float, outside: Iterable[float], *, fallback: float = DEFAULT_MARGIN) -> float:
    """``v_min + δ`` with δ = :func:`global_set_margin` (same arguments, same errors): the target level a run
    must get below to have "reached the global set"."""
    return float(v_min) + global_set_margin(v_min, outside, fallback=fallback)
