"""The built-in checks of the main job, registered in one place.

Each module listed in :data:`CHECK_MODULES` defines its checks with the
:func:`~contrastive_bounds.properties.checks.check` decorator; importing it registers them.
The framework never imports the check modules (no import cycle); everything that needs the full set
(the runner, scenarios, the command line) calls :func:`registered_checks`.
"""

from __future__ import annotations

import importlib

from contrastive_bounds.properties.checks._framework import CheckSpec, defined_checks

__all__ = ["CHECK_MODULES", "registered_checks"]

#: Modules whose import registers the built-in checks, in report order of papers.
CHECK_MODULES: tuple[str, ...] = (
    "contrastive_bounds.properties.checks._alignment_bounds",
    "contrastive_bounds.properties.checks._alignment_descent",
    "contrastive_bounds.properties.checks._alignment_digits",
    "contrastive_bounds.properties.checks._alignment_training",
    "contrastive_bounds.properties.checks._annealing_sampling",
    "contrastive_bounds.properties.checks._annealing_schedules",
    "contrastive_bounds.properties.checks._annealing_theory",
    "contrastive_bounds.properties.checks._annealing_seed",
    "contrastive_bounds.properties.checks._landscape_schedule",
    "contrastive_bounds.properties.checks._landscape_ablations",
    "contrastive_bounds.properties.checks._landscape_trap_network",
    "contrastive_bounds.properties.checks._replay",
)


def registered_checks() -> dict[str, CheckSpec]:
    """Every check: the built-in ones (importing :data:`CHECK_MODULES`) and any a user file defined.

    Returns:
      ``{check id: CheckSpec}`` sorted by id.
    """
    for name in CHECK_MODULES:
        importlib.import_module(name)
    return defined_checks()
