"""The arguments of the landscape builders: their ranges and defaults, checked without building anything.

The builders of :mod:`.spec` (:func:`~.spec.infonce_spec`, :func:`~.spec.thomson_spec`) check their
arguments here first, and so does every caller that wants the same refusal before paying for JAX (the
``landscape`` and ``anneal`` commands, the ``landscape`` sweep kind): one rule, one message. Messages
name the argument as ``name=value`` (``num_points``, ``dim``, ``tau``, ``pairs``, ``radius``) and its
allowed range. This module imports neither JAX nor numpy.

InfoNCE's ``tau`` is limited to :data:`TAU_RANGE` = [1e-4, 1e4]: the loss's Hessian scales like 1/τ², and
float64 refinement keeps every minimum there (measured: the split-pair trap of N = 4 on S¹ is found for τ in
[1e-5, 1e-2] and missed at 1e-6), while above 1e4 the potential's variation, about 1/τ, nears the
gradient tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from contrastive_bounds.theory._domains import check_int, check_real

__all__ = ["TAU_RANGE", "INFONCE_DEFAULTS", "THOMSON_DEFAULTS", "MAX_POINTS", "MAX_DIM", "InfonceArguments", "ThomsonArguments",
           "infonce_arguments", "thomson_arguments", "check_pairs", "default_pairs", "canonical_pairs", "check_radius",
           "check_tau"]

#: the τ of InfoNCE networks (see the module docstring)
TAU_RANGE = (1e-4, 1e4)
#: defaults of :func:`infonce_arguments` (and of ``contrastive-bounds landscape infonce``)
INFONCE_DEFAULTS = {"num_points": 8, "dim": 3, "tau": 0.5}
#: defaults of :func:`thomson_arguments`
THOMSON_DEFAULTS = {"num_points": 12, "dim": 3}
_MIN_POINTS = {"infonce": 3, "thomson": 2}
#: the largest N a landscape is built for (its pairs are listed before any cost estimate; the command's cost guard
#: refuses far smaller searches unless told --yes)
MAX_POINTS = 1_000_000
#: the largest d: the search's structured starts and rotations hold (d, d) float64 arrays (2 GiB at d = 16 384)
MAX_DIM = 16_384


def check_tau(tau: Any) -> float:
    """``tau`` as a float in :data:`TAU_RANGE`.

    Raises:
      ValueError: ``tau=<value>`` not a finite number, or outside [1e-4, 1e4] (the message says why the range).
    """
    lo, hi = TAU_RANGE
    if isinstance(tau, float) and math.isnan(tau):
        raise ValueError(f"tau=nan is not allowed (NaN); tau takes numbers in [{lo:g}, {hi:g}]")
    t = check_real("tau", tau, -math.inf, math.inf, allow_inf=True)  # inf too is refused below, naming the range
    if not lo <= t <= hi:
        raise ValueError(f"tau={t!r} is outside [{lo:g}, {hi:g}], where a float64 network search of InfoNCE keeps its "
                         "minima (the Hessian scales like 1/tau^2: at tau = 1e-6 the search misses the split-pair trap "
                         "of N = 4)")
    return t


def check_radius(radius: Any) -> float:
    """``radius`` > 0 as a float (ValueError naming ``radius`` otherwise)."""
    return check_real("radius", radius, 0.0, math.inf)


def default_pairs(num_points: int) -> tuple[tuple[int, int], ...]:
    """``(0, 1), (2, 3), …``: floor(N/2) disjoint pairs (an odd last point is a negative only)."""
    return tuple((2 * k, 2 * k + 1) for k in range(num_points // 2))


def check_pairs(pairs: Any, num_points: int) -> tuple[tuple[int, int], ...]:
    """Validated positive pairs: 2-tuples of point indices in ``[0, num_points − 1]``, ``i != j``, no
    pair listed twice (in either order), at least one. Order as given.

    Raises:
      ValueError: naming ``pairs`` and the offending entry.
    """
    try:
        raw = [tuple(p) for p in pairs]
    except TypeError:
        raise ValueError(f"pairs={pairs!r} must be a list of (i, j) index pairs") from None
    if not raw:
        raise ValueError("pairs must contain at least one positive pair (i, j)")
    out, seen = [], set()
    for p in raw:
        if len(p) != 2:
            raise ValueError(f"pairs entry {p!r} must have two point indices (i, j)")
        i, j = (check_int("pairs index", x, 0, num_points - 1) for x in p)
        if i == j:
            raise ValueError(f"pairs entry ({i}, {j}) pairs point {i} with itself; a positive pair needs two points")
        key = (min(i, j), max(i, j))
        if key in seen:
            raise ValueError(f"pairs entry ({i}, {j}) is listed twice")
        seen.add(key)
        out.append((i, j))
    return tuple(out)


def canonical_pairs(pairs: Any, num_points: int) -> tuple[tuple[int, int], ...]:
    """:func:`check_pairs`, each pair ``(i, j)`` with ``i < j`` and the list sorted: InfoNCE over directed pairs
    is the same landscape whatever order its pairs are listed in (``0-1,2-3`` and ``2-3,1-0`` are one)."""
    return tuple(sorted((min(i, j), max(i, j)) for i, j in check_pairs(pairs, num_points)))


@dataclass(frozen=True)
class InfonceArguments:
    """Checked arguments of :func:`~.spec.infonce_spec`: ``pairs`` canonical (:func:`canonical_pairs`)."""

    num_points: int
    dim: int
    tau: float
    pairs: tuple[tuple[int, int], ...]
    coupled: bool
    radius: float

    @property
    def default_pairs(self) -> bool:
        """The pairs are :func:`default_pairs` (an odd last point is then a negative only)."""
        return self.pairs == default_pairs(self.num_points)


def infonce_arguments(num_points: Any = None, dim: Any = None, tau: Any = None, pairs: Any = None, *,
                      coupled: bool = False, radius: Any = 1.0) -> InfonceArguments:
    """The checked arguments of an InfoNCE landscape (None: the default of :data:`INFONCE_DEFAULTS`; pairs:
    :func:`default_pairs`).

    Raises:
      ValueError: ``num_points`` not an integer in [3, MAX_POINTS] (every anchor needs a negative), ``dim`` not in
        [2, MAX_DIM], ``tau``
        outside :data:`TAU_RANGE`, bad ``pairs`` (:func:`check_pairs`), ``radius`` <= 0 — each named.
    """
    n = check_int("num_points", INFONCE_DEFAULTS["num_points"] if num_points is None else num_points,
                  _MIN_POINTS["infonce"], MAX_POINTS)
    d = check_int("dim", INFONCE_DEFAULTS["dim"] if dim is None else dim, 2, MAX_DIM)
    t = check_tau(INFONCE_DEFAULTS["tau"] if tau is None else tau)
    prs = default_pairs(n) if pairs is None else canonical_pairs(pairs, n)
    if not isinstance(coupled, bool):
        raise ValueError(f"coupled={coupled!r} must be True or False")
    return InfonceArguments(n, d, t, prs, coupled, check_radius(radius))


@dataclass(frozen=True)
class ThomsonArguments:
    """Checked arguments of :func:`~.spec.thomson_spec`."""

    num_points: int
    dim: int


def thomson_arguments(num_points: Any = None, dim: Any = None) -> ThomsonArguments:
    """The checked arguments of a Thomson landscape (None: the default of :data:`THOMSON_DEFAULTS`).

    Raises:
      ValueError: ``num_points`` not in [2, MAX_POINTS] or ``dim`` not in [2, MAX_DIM] (named).
    """
    return ThomsonArguments(check_int("num_points", THOMSON_DEFAULTS["num_points"] if num_points is None else num_points,
                                      _MIN_POINTS["thomson"], MAX_POINTS),
                            check_int("dim", THOMSON_DEFAULTS["dim"] if dim is None else dim, 2, MAX_DIM))
