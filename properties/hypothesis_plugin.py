"""Hypothesis plugin hook of contrastive-bounds: registers the package's profiles on ``import hypothesis``.

Named in ``pyproject.toml`` under ``[project.entry-points.hypothesis]``; Hypothesis calls
:func:`register` at the end of its own import (``hypothesis.entry_points.run``), so that
``pytest --hypothesis-profile=contrastive-bounds-ci`` finds the profile without a conftest. This
module imports nothing heavy (no JAX): the hook runs in every process that imports Hypothesis in
an environment where the package is installed.
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["register"]

_PROFILES_MODULE = "contrastive_bounds.properties.profiles"


def register() -> None:
    """Register the profiles of :mod:`contrastive_bounds.properties.profiles` (never loads one).

    When that module is itself being imported (it imports Hypothesis, whose import calls this hook),
    it is left to finish: it registers the profiles at the end of its own import. Never raises: a
    failure here would break ``import hypothesis`` for every project in the environment, so it is
    turned into a warning.
    """
    partial = sys.modules.get(_PROFILES_MODULE)
    if partial is not None and not hasattr(partial, "register_profiles"):
        return
    try:
        from contrastive_bounds.properties.profiles import register_profiles

        register_profiles()
    except Exception as err:  # noqa: BLE001 - see the docstring
        warnings.warn(f"contrastive-bounds could not register its Hypothesis profiles: {err!r}", RuntimeWarning,
                      stacklevel=2)
