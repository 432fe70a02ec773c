"""Real float64 arrays for CKA and RSA: validation and exact power-of-two rescaling.

Shared by :mod:`._cka` and :mod:`._rsa` (docs/theorems.md B5). Every quantity there is invariant to
rescaling each input, so inputs are rescaled by powers of two (exact) before any product.
"""

from __future__ import annotations

import math

import numpy as np

from contrastive_bounds.theory._domains import check_finite_array

__all__ = ["real_array", "pow2_scale", "constant_to_rounding", "feature_matrix", "square_pair", "matrix_pair",
           "ULPS", "EPS"]

EPS = float(np.finfo(np.float64).eps)
#: An input is constant when its centred part is rounding noise *of its own scale*: a few hundred ulps
#: relative to the same input's uncentred norm (no absolute or joint tolerance anywhere: one would turn
#: small or large inputs "constant").
ULPS = 256 * EPS


def real_array(name: str, x) -> np.ndarray:
    """``x`` as a float64 array; complex or non-numeric input raises (never drops an imaginary part)."""
    a = np.asarray(x)
    if a.dtype.kind == "c":
        raise ValueError(f"{name} has complex dtype {a.dtype}: CKA and RSA are defined for real arrays only "
                         f"(pass {name}.real explicitly if the real part is meant)")
    if a.dtype.kind not in "biuf":
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a real numeric array; got dtype {a.dtype}") from None
    return check_finite_array(name, a.astype(np.float64, copy=False))


def pow2_scale(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``a`` divided by the power of two just above ``max|a|`` (exact: no rounding); 0 stays 0.

    Every quantity here is invariant to rescaling each input, so this changes no value but keeps all
    products and sums of squares away from float64 overflow and underflow at any input scale.
    """
    m = float(np.max(np.abs(a), initial=0.0))
    if m == 0.0:
        return a  # ``out`` is only ever ``a`` itself (in-place rescaling)
    return np.ldexp(a, -math.frexp(m)[1], out=out)


def constant_to_rounding(centred_norm, norm):
    """True where a centred norm is at the rounding level of the uncentred one (all-zero: True)."""
    return centred_norm <= ULPS * norm


def feature_matrix(name: str, x) -> np.ndarray:
    a = real_array(name, x)
    if a.ndim == 1:
        a = a[:, None]
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape (n, d); got {a.shape}")
    if a.shape[1] == 0:
        raise ValueError(f"{name} has no features (shape {a.shape}): CKA needs at least one feature column")
    return a


def square_pair(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if a.ndim != 2 or a.shape != b.shape or a.shape[0] != a.shape[1]:
        raise ValueError(f"{name_a} and {name_b} must be square of the same size; got {a.shape} and {b.shape}")


def matrix_pair(name_a: str, a, name_b: str, b) -> tuple[np.ndarray, np.ndarray]:
    a = real_array(name_a, a)
    b = real_array(name_b, b)
    square_pair(name_a, a, name_b, b)
    if a.shape[0] < 2:
        raise ValueError(f"m={a.shape[0]}: need at least 2 rows")
    return a, b
