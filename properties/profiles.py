"""Hypothesis settings profiles of contrastive-bounds, for the package's tests and for yours.

Three profiles are registered when this module is imported, which happens on any import of
:mod:`contrastive_bounds.properties.strategies`, and through Hypothesis's plugin entry point
(``[project.entry-points.hypothesis]`` in ``pyproject.toml``: Hypothesis calls
:func:`.hypothesis_plugin.register` when it is imported in an environment where the package is installed):

- ``contrastive-bounds-ci``: 25 examples, derandomised (the same examples on every run), no
  deadline, ``print_blob=True``: keeps a property suite short and reproducible on 2 cores.
- ``contrastive-bounds-dev``: 50 examples, no deadline; for local runs.
- ``contrastive-bounds-thorough``: 1000 examples, no deadline; for a long run before a release.

All three suppress the ``too_slow`` and ``data_too_large`` health checks (the strategies draw
arrays and JAX compiles once per shape bucket).

The names carry the package's prefix so that they cannot clash with Hypothesis's own profiles
(Hypothesis registers ``default`` and ``ci`` itself, and loads ``ci`` by itself when it detects a
CI machine) nor with profiles of your project. Importing registers; it *loads* a profile only if
you asked for one: when the environment variable ``HYPOTHESIS_PROFILE`` holds one of the three
names above, that profile is loaded at import. Any other value (``ci``, your own profile names,
unset) is left alone, so a project whose conftest reads ``HYPOTHESIS_PROFILE`` for its own profiles
is not overridden.

In your own tests, any of:

- ``HYPOTHESIS_PROFILE=contrastive-bounds-ci pytest`` (loaded when your test module, or your
  ``conftest.py``, imports ``contrastive_bounds.properties.strategies``);
- ``settings.load_profile("contrastive-bounds-thorough")`` after that import;
- ``pytest --hypothesis-profile=contrastive-bounds-ci``: Hypothesis's pytest plugin loads the
  profile before test modules are collected; the entry point has registered it by then (without
  the installed metadata, add ``-p contrastive_bounds.properties.profiles``).

The short names ``ci``, ``dev`` and ``thorough`` are aliases of the same settings, registered only
by :func:`register_aliases` (called by :func:`load_from_env`), which the package's own test suite
uses (``tests/conftest.py``; ``HYPOTHESIS_PROFILE=ci pytest`` in the repository). Registering the
alias ``ci`` replaces Hypothesis's built-in ``ci`` profile in that process, which is why no import
does it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis.errors import InvalidArgument

__all__ = ["PREFIX", "PROFILES", "register_profiles", "register_aliases", "load_from_env"]

PREFIX = "contrastive-bounds-"

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: short name -> settings keyword arguments; registered as ``PREFIX + short name``.
_SETTINGS: dict[str, dict] = {
    "ci": dict(max_examples=25, derandomize=True, print_blob=True, **_COMMON),
    "dev": dict(max_examples=50, **_COMMON),
    "thorough": dict(max_examples=1000, **_COMMON),
}

#: The registered profile names: ``("contrastive-bounds-ci", "contrastive-bounds-dev", "contrastive-bounds-thorough")``.
PROFILES: tuple[str, ...] = tuple(PREFIX + k for k in _SETTINGS)


def _registered(name: str) -> bool:
    try:
        settings.get_profile(name)
    except InvalidArgument:
        return False
    return True


def register_profiles() -> tuple[str, ...]:
    """Register the prefixed profiles (:data:`PROFILES`) if they are not registered yet; return their names.

    Idempotent; it never loads a profile. Called on import of this module.
    """
    for short, kwargs in _SETTINGS.items():
        if not _registered(PREFIX + short):
            settings.register_profile(PREFIX + short, **kwargs)
    return PROFILES


def register_aliases() -> tuple[str, ...]:
    """Also register the short names ``ci``, ``dev``, ``thorough`` (same settings); return them.

    This *replaces* Hypothesis's built-in ``ci`` profile in this process (if ``ci`` is the active
    profile, Hypothesis switches to the new settings at once). The package's own test suite calls it
    through :func:`load_from_env`; a user's suite should use the prefixed names instead.
    """
    register_profiles()
    for short, kwargs in _SETTINGS.items():
        settings.register_profile(short, **kwargs)
    return tuple(_SETTINGS)


def _load_requested() -> str | None:
    """Load the profile named by ``HYPOTHESIS_PROFILE`` if it is one of :data:`PROFILES`; return it."""
    name = os.environ.get("HYPOTHESIS_PROFILE")
    if name in PROFILES:
        settings.load_profile(name)
        return name
    return None


def load_from_env(default: str = "dev") -> str:
    """Register the profiles and their short aliases, load the one named by ``HYPOTHESIS_PROFILE``.

    Used by the package's ``tests/conftest.py``. ``HYPOTHESIS_PROFILE`` (or ``default`` when it is
    unset or empty) may be a short name (``ci``, ``dev``, ``thorough``), a prefixed name
    (:data:`PROFILES`) or any profile registered before the call.

    Returns: the name of the loaded profile.

    Raises:
      hypothesis.errors.InvalidArgument: the name is not a registered profile.
    """
    register_aliases()
    name = os.environ.get("HYPOTHESIS_PROFILE") or default
    settings.load_profile(name)
    return name


register_profiles()
_load_requested()
