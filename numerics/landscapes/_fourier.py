"""Potentials on the circle S¹ as Fourier series: the series, its derivatives and its file format.

``V(θ) = Σ_k a_k cos(kθ) + b_k sin(kθ)`` (``k >= 0``; ``b_0`` is ignored), evaluated in numpy, JAX (θ form, or
the de Moivre form on the unit circle's coordinates) and mpmath; read from JSON or TOML files. Its exact
critical-point structure (minima, saddles, depths, ``H*``) is :mod:`._circle`.
"""

from __future__ import annotations

import json
import math
import numbers
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Mapping

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real

__all__ = ["FourierSeries", "read_fourier_file", "MAX_COEFFICIENT", "MAX_FREQUENCY"]

TWO_PI = 2.0 * math.pi
MAX_COEFFICIENT = 1.0e6
"""Largest ``|a_k|``, ``|b_k|`` accepted: keeps ``Σ k²(|a_k| + |b_k|)`` and every grid value far from
float64 overflow, so error bounds stay finite and meaningful (scale the potential instead)."""
MAX_FREQUENCY = 2_000
"""Largest frequency ``k`` accepted: the critical-point analysis samples ``V'`` on ``256·k`` points and
refines its ~2k roots (about 10 s at this bound on one core, ~k² beyond it); and the Euler step needs
``h·k²|c_k| << 1``, i.e. ``h`` below ~1e-7 at this bound."""


@dataclass(frozen=True)
class FourierSeries:
    """A real trigonometric polynomial on S¹.

    Attributes:
      ks: int array (K,), the distinct frequencies ``k >= 0``, increasing.
      cos: float64 array (K,), ``a_k``; sin: float64 array (K,), ``b_k`` (``b_0`` must be 0).
    """

    ks: np.ndarray
    cos: np.ndarray
    sin: np.ndarray

    @staticmethod
    def from_dicts(cos: Mapping[Any, float] | None = None, sin: Mapping[Any, float] | None = None) -> FourierSeries:
        """Build from ``{k: a_k}`` and ``{k: b_k}`` (keys int or str of an int >= 0; sin keys >= 1).

        Raises:
          ValueError: ``cos``/``sin`` not a mapping, a key that is not an integer in
            ``[0, MAX_FREQUENCY]`` (``2 000``), a
            ``sin`` key 0, a coefficient that is not a real number (strings and bools included), or
            outside ``[−MAX_COEFFICIENT, MAX_COEFFICIENT]`` (``1e6``; NaN/inf included), or no
            coefficient at all.
        """
        for name, table in (("cos", cos), ("sin", sin)):
            if table is not None and not isinstance(table, Mapping):
                raise ValueError(
                    f"{name} must be a table {{k: coefficient}} (k an integer >= {0 if name == 'cos' else 1}), "
                    f"got {type(table).__name__} {table!r}"
                )
        cos = dict(cos or {})
        sin = dict(sin or {})
        if not cos and not sin:
            raise ValueError("a Fourier landscape needs at least one coefficient in 'cos' or 'sin'")
        a: dict[int, float] = {}
        b: dict[int, float] = {}
        for name, src, dst, lo in (("cos", cos, a, 0), ("sin", sin, b, 1)):
            for key, val in src.items():
                k = check_int(f"{name} frequency", key, lo, MAX_FREQUENCY)
                if isinstance(val, bool) or not isinstance(val, numbers.Real):
                    raise ValueError(f"{name}[{k}]={val!r} is not a number; a coefficient is a real number in "
                                     f"[-{MAX_COEFFICIENT:g}, {MAX_COEFFICIENT:g}]")
                v = check_real(f"{name}[{k}]", val, -MAX_COEFFICIENT, MAX_COEFFICIENT, lo_closed=True, hi_closed=True)
                dst[k] = dst.get(k, 0.0) + v
        ks = np.array(sorted(set(a) | set(b)), dtype=np.int64)
        return FourierSeries(
            ks=ks,
            cos=np.array([a.get(int(k), 0.0) for k in ks], dtype=np.float64),
            sin=np.array([b.get(int(k), 0.0) for k in ks], dtype=np.float64),
        )

    def scaled(self, factor: float) -> FourierSeries:
        """``factor · V`` (a new series)."""
        return FourierSeries(self.ks, self.cos * factor, self.sin * factor)

    @property
    def max_frequency(self) -> int:
        return int(self.ks.max()) if self.ks.size else 0

    def derivative_bound(self, order: int) -> float:
        """``Σ k^order (|a_k| + |b_k|)``: an upper bound of ``sup |V^(order)|``."""
        return float(np.sum(self.ks.astype(float) ** order * (np.abs(self.cos) + np.abs(self.sin))))

    def oscillation_bound(self) -> float:
        """``Σ_{k≥1} (|a_k| + |b_k|)``: an upper bound of ``sup |V − a_0|`` (0 for a constant series).

        The scale of every height on the landscape (depths, H*): tolerances are relative to it, so
        that ``c·V + const`` gives ``c`` times the heights of ``V`` for any ``c > 0``."""
        return float(np.sum((self.ks > 0) * (np.abs(self.cos) + np.abs(self.sin))))

    def height_tolerance(self, rel: float = 1e-12) -> float:
        """``rel·oscillation_bound() + 16·eps·(|a_0| + oscillation_bound())``: values of V closer than
        this are ties (the relative part), and the second term covers the rounding of the float64
        Fourier sum (its constant term included)."""
        osc = self.oscillation_bound()
        a0 = float(np.sum(np.abs(self.cos[self.ks == 0])))
        return rel * osc + 16.0 * np.finfo(np.float64).eps * (a0 + osc)

    def value(self, theta: Any, xp: ModuleType = np, order: int = 0) -> Any:
        """``V^(order)(θ)`` for ``order`` in 0..3, elementwise over ``theta`` (any shape, radians).

        ``xp`` is ``numpy`` or ``jax.numpy`` (pure elementwise, jit/grad-safe).
        """
        theta = xp.asarray(theta)
        kt = theta[..., None] * self.ks.astype(np.float64)
        c, s = xp.cos(kt), xp.sin(kt)
        kpow = self.ks.astype(np.float64) ** order
        # d^n/dθ^n of (a cos kθ + b sin kθ): cycles through (c, s) -> (-k s, k c) -> (-k² c, -k² s) ...
        if order % 4 == 0:
            terms = self.cos * c + self.sin * s
        elif order % 4 == 1:
            terms = -self.cos * s + self.sin * c
        elif order % 4 == 2:
            terms = -self.cos * c - self.sin * s
        else:
            terms = self.cos * s - self.sin * c
        return xp.sum(kpow * terms, axis=-1)

    def value_and_derivative_z(self, x: Any, y: Any) -> tuple[Any, Any]:
        """``(V(θ), V'(θ))`` at the point ``(x, y) = (cos θ, sin θ)`` of S¹, without transcendental functions.

        With ``w = x + i·y = e^{iθ}``, ``cos kθ + i·sin kθ = w^k`` is built by the complex-multiplication
        recursion ``w^{k+1} = w^k·w`` (de Moivre), so ``V = Σ a_k Re w^k + b_k Im w^k`` and
        ``V' = Σ k(−a_k Im w^k + b_k Re w^k)``. Only ``+`` and ``×`` on the inputs: works elementwise for
        numpy and JAX arrays of any shape (``x``, ``y`` broadcastable), keeps their dtype (the
        coefficients enter as Python floats), jit/vmap/grad-safe. Terms with a zero coefficient are
        skipped. Rounding: the recursion adds about ``k·eps`` relative error to ``w^k``; against the
        θ form (:meth:`value`) the values agree to a few ulps of ``Σ k(|a_k| + |b_k|)`` (tested).

        Args:
          x, y: coordinates of points on the unit circle (``x² + y² = 1``; off the circle this is the
            polynomial extension, NOT ``V(atan2(y, x))``).
        Returns:
          ``(value, derivative)`` with the broadcast shape of ``x`` and ``y``.
        """
        kmax = self.max_frequency
        coef = {int(k): (float(a), float(b)) for k, a, b in zip(self.ks, self.cos, self.sin)}
        value: Any = 0.0
        deriv: Any = 0.0
        a0 = coef.get(0, (0.0, 0.0))[0]
        if a0:
            value = value + a0
        re, im = x, y  # w^1
        for k in range(1, kmax + 1):
            if k > 1:
                re, im = re * x - im * y, im * x + re * y
            a, b = coef.get(k, (0.0, 0.0))
            if a:
                value = value + a * re
                deriv = deriv - (k * a) * im
            if b:
                value = value + b * im
                deriv = deriv + (k * b) * re
        zero = 0.0 * x  # only for a constant series (or no derivative terms): keeps the array shape
        if isinstance(value, float):
            value = value + zero
        if isinstance(deriv, float):
            deriv = deriv + zero
        return value, deriv

    def value_mp(self, theta: Any, order: int = 0) -> Any:
        """``V^(order)(θ)`` in mpmath at the current ``mp.dps`` (scalar ``theta``)."""
        import mpmath as mp

        th = mp.mpf(theta)
        total = mp.mpf(0)
        for k, a, b in zip(self.ks, self.cos, self.sin):
            k = int(k)
            c, s = mp.cos(k * th), mp.sin(k * th)
            kp = mp.mpf(k) ** order
            if order % 4 == 0:
                total += kp * (a * c + b * s)
            elif order % 4 == 1:
                total += kp * (-a * s + b * c)
            elif order % 4 == 2:
                total += kp * (-a * c - b * s)
            else:
                total += kp * (a * s - b * c)
        return total

    def to_dict(self) -> dict[str, dict[str, float]]:
        """The file format: ``{"cos": {"k": a_k}, "sin": {"k": b_k}}`` (zero terms omitted)."""
        return {
            "cos": {str(int(k)): float(a) for k, a in zip(self.ks, self.cos) if a != 0.0},
            "sin": {str(int(k)): float(b) for k, b in zip(self.ks, self.sin) if b != 0.0 and k > 0},
        }


def read_fourier_file(path: str | Path) -> FourierSeries:
    """Read a Fourier landscape file: JSON or TOML ``{"cos": {k: a_k}, "sin": {k: b_k}}``.

    TOML example::

        [cos]
        1 = -0.5
        2 = -1.0

    Raises:
      FileNotFoundError: no such file (message ``fourier file PATH: no such file``).
      ValueError: a folder or an unreadable file, unparsable, unknown top-level keys,
      a table that is not ``{k: coefficient}``, bad keys or values (see
      :meth:`FourierSeries.from_dicts`). Every message starts ``fourier file PATH:``.
    """
    p = Path(path)
    where = f"fourier file {str(p)!r}"
    if not p.exists():
        raise FileNotFoundError(f"{where}: no such file")
    if not p.is_file():
        raise ValueError(f"{where}: is a folder, not a file (a Fourier file is .json or .toml)")
    form = 'a Fourier file is JSON or TOML text, {"cos": {k: a_k}, "sin": {k: b_k}}'
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{where}: is not a text file (not UTF-8); {form}") from None
    except OSError as exc:
        raise ValueError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    if not text.strip():
        raise ValueError(f"{where}: is empty; {form}")
    if p.suffix.lower() == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{where}: not valid TOML ({exc})") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or set(data) - {"cos", "sin"}:
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{where}: a Fourier file has only the tables 'cos' and 'sin', got {got}")
    try:
        return FourierSeries.from_dicts(data.get("cos"), data.get("sin"))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
