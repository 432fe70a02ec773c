"""How many devices JAX's CPU backend offers: one per core, so that chains can be split over cores.

JAX's CPU backend exposes ONE device by default however many cores the machine has, and the count
can only be chosen before the backend starts (the first JAX operation of the process). The
simulator splits its chains over the local devices (:func:`.langevin.defaults.default_shards`),
one thread per device, which on CPU is what uses the other cores for its elementwise loops.

:func:`use_host_devices` asks for one CPU device per usable core, unless the user has chosen
already (``XLA_FLAGS=--xla_force_host_platform_device_count=N`` or ``JAX_NUM_CPU_DEVICES=N`` in the
environment) or the backend has started. The command line calls it first thing; Python users call
it before their first JAX operation, or set one of those variables before starting Python::

    from contrastive_bounds.numerics._devices import use_host_devices
    use_host_devices()            # before anything runs in JAX
    import jax; jax.devices()     # [CpuDevice(id=0), CpuDevice(id=1), ...]

This module imports nothing from JAX unless JAX is already imported (the CLI's start-up stays fast).
"""

from __future__ import annotations

import os
import sys

__all__ = ["usable_cores", "use_host_devices", "user_chose_host_devices"]

_XLA_FLAG = "xla_force_host_platform_device_count"


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports it, else ``os.cpu_count()``), ≥ 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def user_chose_host_devices() -> bool:
    """Whether the environment already fixes the CPU device count (``XLA_FLAGS`` with
    ``--xla_force_host_platform_device_count`` or ``JAX_NUM_CPU_DEVICES``)."""
    return _XLA_FLAG in os.environ.get("XLA_FLAGS", "") or bool(os.environ.get("JAX_NUM_CPU_DEVICES", "").strip())


def use_host_devices(count: int | None = None) -> int | None:
    """Give JAX's CPU backend ``count`` devices (default :func:`usable_cores`) if still possible.

    Args:
      count: devices wanted, ≥ 1 (default: one per usable core).
    Returns:
      The count set, or ``None`` when nothing was changed: the user chose already (environment,
      see :func:`user_chose_host_devices`, or ``jax.config.jax_num_cpu_devices`` set), or the JAX
      backend has started (the count is then fixed for the life of the process).
    Raises:
      ValueError: ``count`` not an integer ≥ 1.
    """
    if count is None:
        count = usable_cores()
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count={count!r} must be an integer >= 1")
    if user_chose_host_devices():
        return None
    if "jax" not in sys.modules:
        os.environ["JAX_NUM_CPU_DEVICES"] = str(count)  # read by JAX's config when it is imported
        return count
    import jax

    if int(getattr(jax.config, "jax_num_cpu_devices", -1)) not in (-1, count):
        return None
    try:
        jax.config.update("jax_num_cpu_devices", count)
    except RuntimeError:  # the backend has started: too late for this process
        return None
    return count
