"""How many devices JAX's CPU backend offers: one per core, so that chains can be split over cores.

JAX's CPU backend exposes ONE device by default however many cores the machine has, and the count
can only be chosen before the backend starts (the first JAX operation of the process). The
simulator splits its chains over the local devices (:func:`.langevin.defaults.default_shards`),
one thread per device, which on CPU is what uses the other cores for its elementwise loops.

:func:`use_host_devices` asks for one CPU device per usable core (the affinity, capped by a container's CPU quota),
unless the user has chosen
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

__all__ = ["usable_cores", "cgroup_cpu_limit", "use_host_devices", "user_chose_host_devices"]

_XLA_FLAG = "xla_force_host_platform_device_count"


def cgroup_cpu_limit(root: str = "/sys/fs/cgroup") -> int | None:
    """The CPU quota of this process's control group, in whole cores rounded up, or None when there is none.

    A container limited to ``k`` cores by a quota (``docker --cpus k``, a CI runner, Kubernetes' CPU limit) still
    shows every core of its host in its CPU affinity; one JAX device (and one busy thread) per visible core would then
    time-slice ``k`` cores among dozens of threads. Read from cgroup v2 (``cpu.max``: ``"<quota> <period>"`` or
    ``"max <period>"``, in the process's own group named by ``/proc/self/cgroup``, else at ``root``) or v1
    (``cpu/cpu.cfs_quota_us`` and ``cpu/cpu.cfs_period_us``; quota ``-1``: none).

    Args:
      root: where the cgroup file system is mounted (tests point it at a folder of their own).
    Returns:
      ``ceil(quota / period)`` ≥ 1, or None (no quota, or nothing readable).
    """
    import math
    from pathlib import Path

    base = Path(root)
    own = ""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                own = line[3:].strip().lstrip("/")
    except OSError:
        pass
    pairs: list[tuple[str, str]] = []
    for folder in dict.fromkeys([base / own, base]):
        try:
            quota, period = (folder / "cpu.max").read_text().split()[:2]
            pairs.append((quota, period))
            break
        except (OSError, ValueError):
            continue
    if not pairs:
        try:
            pairs.append(((base / "cpu" / "cpu.cfs_quota_us").read_text().strip(),
                          (base / "cpu" / "cpu.cfs_period_us").read_text().strip()))
        except OSError:
            return None
    quota, period = pairs[0]
    try:
        q, p = int(quota), int(period)
    except ValueError:  # "max": no quota
        return None
    if q <= 0 or p <= 0:
        return None
    return max(1, math.ceil(q / p))


def usable_cores() -> int:
    """Cores this process may run on, ≥ 1: its CPU affinity where the OS reports it (else ``os.cpu_count()``), capped
    by its control group's CPU quota (:func:`cgroup_cpu_limit`) where one is set."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cores = max(1, os.cpu_count() or 1)
    limit = cgroup_cpu_limit()
    return min(cores, limit) if limit is not None else cores


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
