"""A landscape's network searched once per process: :func:`network_for`.

The checks and the sweep kind ask for the networks of the same few landscapes many times (a grid that
repeats a landscape, a check that starts at the trap of another radius); :func:`network_for` runs
:func:`~.search.landscape_network` once per (spec, settings) and returns the same
:class:`~.result.NetworkResult` afterwards. Specs built by :func:`~.spec.infonce_spec` and
:func:`~.spec.thomson_spec` are themselves cached per argument set, so equal arguments hit the cache.
"""

from __future__ import annotations

import functools
from typing import Any

from contrastive_bounds.numerics.landscapes.network.state import SearchSettings

__all__ = ["network_for", "clear_network_cache"]


@functools.lru_cache(maxsize=64)
def _search(spec: Any, settings: SearchSettings) -> Any:
    from contrastive_bounds.numerics.landscapes.network.search import landscape_network

    return landscape_network(spec, settings, draw=False)


def network_for(spec: Any, settings: SearchSettings | None = None, **overrides: Any) -> Any:
    """The :class:`~.result.NetworkResult` of ``spec`` under ``settings`` (``overrides`` replace single fields),
    searched at most once per process (in memory, nothing saved). The result is shared: do not mutate it.

    Raises:
      ValueError: bad settings (named), ``spec`` not a LandscapeSpec. X64DisabledError: x64 is off.
    """
    from contrastive_bounds.numerics._precision import require_x64

    require_x64("float64", what="contrastive_bounds.numerics.landscapes.network.network_for")
    return _search(spec, (settings or SearchSettings()).updated(**overrides))


def clear_network_cache() -> None:
    """Forget every cached network (tests, or to free memory)."""
    _search.cache_clear()
