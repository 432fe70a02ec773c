"""The configuration a run gets when the caller does not choose: the fastest one that is validated.

* Noise generator (:func:`default_prng_impl`): ``"fused-threefry"`` (:mod:`._fused_rng`) for the
  dtypes whose law it passed the distribution tests at scale for (:data:`FUSED_VALIDATED_DTYPES`;
  the tests and their results: ``benchmarks/validate_fused_rng.py`` and docs/simulator.md);
  ``"threefry2x32"`` (``jax.random.normal``) otherwise. The fused generator's uniforms have 23 bits
  (tails cut at |ξ| ≈ 5.65), which is below float32 resolution but not float64's: float64 runs,
  the ones whose results are compared with bounds, keep ``jax.random.normal``.
* Devices (:func:`default_shards`): the chains are split over the local devices when there are
  several and each gets at least :data:`MIN_CHAINS_PER_SHARD` chains (below that the per-step
  synchronisation costs more than the second core gives). On CPU the device count is fixed when
  JAX starts: :func:`contrastive_bounds.numerics.use_host_devices`.

The generator and the device count are part of the run's fingerprint and result
(``SimulationResult.config``), so a run states how it was made and resumes only on the same setup.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FUSED_VALIDATED_DTYPES", "MIN_CHAINS_PER_SHARD", "default_prng_impl", "default_shards"]

FUSED_VALIDATED_DTYPES = ("float32",)
"""Dtypes for which ``"fused-threefry"`` is the default (its law validated at scale in that dtype)."""

MIN_CHAINS_PER_SHARD = 1024
"""Fewest chains per device for an automatic split (measured: benchmarks/README.md)."""


def default_prng_impl(dtype) -> str:
    """``"fused-threefry"`` for a dtype in :data:`FUSED_VALIDATED_DTYPES`, else ``"threefry2x32"``."""
    return "fused-threefry" if np.dtype(dtype).name in FUSED_VALIDATED_DTYPES else "threefry2x32"


def default_shards(chains: int, devices: int) -> int:
    """Devices to split ``chains`` over: the largest d ≤ ``devices`` dividing ``chains`` with
    ``chains / d ≥ MIN_CHAINS_PER_SHARD`` (1 when there is none)."""
    for d in range(max(1, devices), 1, -1):
        if chains % d == 0 and chains // d >= MIN_CHAINS_PER_SHARD:
            return d
    return 1
