"""Float64 policy for JAX (docs/design.md, Policies: Precision).

Importing the package never flips ``jax_enable_x64``. Our own entry points (the command line, the
test suite, :func:`enable_x64`) do. Every public function of ``contrastive_bounds.numerics`` that
computes with JAX either computes in float64 when given float64 or, while x64 is off, raises
:class:`X64DisabledError` naming itself and how to enable x64 (it calls :func:`require_x64` at
entry); it never silently computes in float32. Functions (or paths of them) that compute
without JAX (numpy, mpmath: the S¹ Fourier paths of the circle functions) compute in float64 whatever
x64 says and do not raise.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["X64DisabledError", "enable_x64", "request_x64", "x64_enabled", "require_x64", "ENABLE_HINT"]

#: How to turn float64 on, quoted by every refusal.
ENABLE_HINT = ("call contrastive_bounds.numerics.enable_x64() (or set JAX_ENABLE_X64=1 before JAX is "
               "imported) for float64, or pass float32 data on purpose")


class X64DisabledError(RuntimeError):
    """float64 input (or a float64 dtype) reached a JAX computation while ``jax_enable_x64`` is off.

    JAX would silently compute in float32. The message names the function and how to enable x64
    (:data:`ENABLE_HINT`). The one exception type of the float64 policy, raised by every public
    numerics function that computes with JAX.
    """


def enable_x64() -> None:
    """Turn on float64 in JAX for this process (``jax_enable_x64 = True``). Idempotent; imports JAX."""
    import jax

    jax.config.update("jax_enable_x64", True)


def request_x64() -> None:
    """Ask for float64 in JAX without importing it: enabled now if JAX is already imported, else at
    its import (``JAX_ENABLE_X64=1`` in this process's environment). Idempotent.

    The command line calls this at start, so commands that never import JAX start fast.
    """
    if "jax" in sys.modules:
        enable_x64()
    else:
        os.environ["JAX_ENABLE_X64"] = "1"


def x64_enabled() -> bool:
    """Return whether JAX currently computes in float64 (imports JAX)."""
    import jax

    return bool(jax.config.jax_enable_x64)


def _is_float64(a: Any) -> bool:
    import numpy as np

    if isinstance(a, (type, np.dtype, str)):  # a dtype given on purpose (dtype=np.float64, "float64")
        candidate = a
    else:
        candidate = getattr(a, "dtype", None)
        if candidate is None:
            return False
    try:
        return np.dtype(candidate) in (np.float64, np.complex128)
    except TypeError:
        return False


def require_x64(*arrays: Any, what: str = "this computation") -> None:
    """Raise :class:`X64DisabledError` if any input is float64 while JAX's x64 mode is off.

    Args:
      *arrays: numpy or JAX arrays (any shape), dtypes (``np.float64``, ``"float64"``), lists, tuples
        and dicts of them (pytrees of parameters: the values are checked), or ``None``. Python scalars
        (hyperparameters such as ``tau``) are not checked.
      what: the name of the caller, used in the message.

    Raises:
      X64DisabledError: float64 (or complex128) input or dtype given while ``jax_enable_x64`` is
        False: JAX would silently compute in float32. The message names ``what`` and
        :data:`ENABLE_HINT`.
    """
    if x64_enabled():
        return
    for a in arrays:
        if a is None or isinstance(a, (int, float, bool)):
            continue
        if isinstance(a, (list, tuple)):
            require_x64(*a, what=what)
            continue
        if isinstance(a, dict):
            require_x64(*a.values(), what=what)
            continue
        if _is_float64(a):
            raise X64DisabledError(f"{what} got float64 input but jax_enable_x64 is off; JAX would compute in "
                                   f"float32: {ENABLE_HINT}")
