"""Hypothesis settings profiles registered by the package.

- ``ci``: few examples, no deadline, derandomised: keeps the suite well under 20 minutes on 2 cores.
- ``dev``: the default for local runs.
- ``thorough``: many examples; for a long run before a release.

Select with ``HYPOTHESIS_PROFILE=ci pytest`` (the test suite loads the env var) or
``settings.load_profile("thorough")``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

settings.register_profile("ci", max_examples=25, derandomize=True, print_blob=True, **_COMMON)
settings.register_profile("dev", max_examples=50, **_COMMON)
settings.register_profile("thorough", max_examples=1000, **_COMMON)


def load_from_env(default: str = "dev") -> str:
    """Load the profile named by ``HYPOTHESIS_PROFILE`` (or ``default``); return its name."""
    name = os.environ.get("HYPOTHESIS_PROFILE", default)
    settings.load_profile(name)
    return name
