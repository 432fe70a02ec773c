"""Float64 policy for JAX (DESIGN.md, Policies: Precision).

Importing the package never flips ``jax_enable_x64``. Our own entry points (the command line, the
test suite, :func:`enable_x64`) do. Library functions that are handed float64 data while x64 is off
call :func:`require_x64`, which raises instead of silently computing in float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def enable_x64() -> None:
    """Turn on float64 in JAX for this process (``jax_enable_x64 = True``). Idempotent."""
    import jax

    jax.config.update("jax_enable_x64", True)


def x64_enabled() -> bool:
    """Return whether JAX currently computes in float64."""
    import jax

    return bool(jax.config.jax_enable_x64)


def require_x64(*arrays: Any, what: str = "this computation") -> None:
    """Raise ValueError if any input is float64 while JAX's x64 mode is off.

    Args:
      *arrays: numpy or JAX arrays (any shape) or Python floats.
      what: the name of the caller, used in the message.

    Raises:
      ValueError: float64 input given while ``jax_enable_x64`` is False (JAX would silently
        downcast to float32). Call :func:`enable_x64` first, or pass float32 data on purpose.
    """
    if x64_enabled():
        return
    for a in arrays:
        dtype = getattr(a, "dtype", None)
        if dtype is not None and np.dtype(dtype) == np.float64:
            raise ValueError(
                f"{what} got float64 input but jax_enable_x64 is off; JAX would compute in float32. "
                "Call contrastive_bounds.numerics.precision.enable_x64() first, or pass float32 data."
            )
