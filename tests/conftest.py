"""Test-suite set-up: float64 in JAX (our own entry point) and the hypothesis profile from the env."""

from contrastive_bounds.numerics.precision import enable_x64
from contrastive_bounds.properties.profiles import load_from_env

enable_x64()
load_from_env()
