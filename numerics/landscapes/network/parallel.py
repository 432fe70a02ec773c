"""Work items of the network search spread over the CPU's devices, one thread per device (A9).

On a CPU the search's while-loop kernels run one start at a time from ``N·d = SERIAL_COORDINATES`` on
(:mod:`.optimize`): one such call keeps one core busy. The command line gives JAX one CPU device per core
(:mod:`contrastive_bounds.numerics._devices`); :func:`on_devices` runs independent calls on all of them at once, one
Python thread per device (JAX releases the GIL while a computation runs; dispatching them from one thread does not
overlap them on the CPU backend). Each call's result depends only on its own inputs — the same compiled program on
every CPU device — so the results are bit for bit those of one device (tested). One device, an accelerator, or fewer
than two items: the calls run in the calling thread, as before. Each kernel compiles once per device it runs on, so
only the large-size paths spread (small sizes are compile-bound). A Ctrl-C waits for the round in progress (one call
per device).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

import jax

__all__ = ["cpu_devices", "on_devices"]

T = TypeVar("T")


def cpu_devices() -> list[Any]:
    """The local CPU devices when JAX runs on the CPU (one per core under the command line), else ``[]``."""
    return list(jax.local_devices()) if jax.default_backend() == "cpu" else []


def on_devices(work: Callable[[int, Any], T], count: int) -> list[T]:
    """``[work(i, device_i) for i in range(count)]``, in rounds of one item per CPU device run concurrently.

    Args:
      work: ``(i, device) -> result``; ``device`` is a JAX device to put the item's inputs on (``jax.device_put``), or
        None (the default device: the calls run in this thread). count: number of items, ``>= 0``.

    Returns:
      the results in item order.
    """
    devices = cpu_devices()
    if len(devices) < 2 or count < 2:
        return [work(i, None) for i in range(count)]
    out: list[T] = []
    with ThreadPoolExecutor(max_workers=len(devices)) as pool:
        for first in range(0, count, len(devices)):
            items = list(range(first, min(count, first + len(devices))))
            out.extend(pool.map(lambda i: work(i, devices[i - first]), items))
    return out
