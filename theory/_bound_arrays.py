"""Vectorised log-space evaluation of a bound over arrays of parameters (numpy or JAX).

:func:`evaluate_log10` is :meth:`Bound.evaluate_log10 <contrastive_bounds.theory._bound.Bound.evaluate_log10>`:
inputs are validated entry by entry (:func:`input_array`, :func:`check_array`), reparametrised,
constraint-checked, then the bound's natural-log expression is compiled once per backend
(:mod:`._backends`) and evaluated elementwise. Inputs that do not fit float64 (``steps=10**400``)
send the whole call to a point-by-point mpmath evaluation.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import sympy as sp

from ._backends import compiled
from ._bound_value import LogArray
from ._bound_spec import unknown_parameter_message
from ._domains import Param

__all__ = ["input_array", "check_array", "evaluate_log10", "FLOAT64_TINY"]

FLOAT64_TINY = 2.2250738585072014e-308
"""Smallest normal float64: a nonzero input below it would lose digits (a subnormal) or become 0."""


def _shown(raw: Any) -> str:
    text = repr(raw)
    return text if len(text) <= 60 else text[:57] + "..."


def input_array(p: Param, raw: Any) -> tuple[np.ndarray, Any]:
    """One evaluate_log10 input, validated: (float64 array, object array of the exact values where
    some entry does not fit float64, else None).

    Raises:
      ValueError: bools, complex numbers, strings or other non-numbers; NaN, inf or an entry outside
        ``p``'s domain (naming ``p``, the value and the domain).
    """
    try:
        a = np.asarray(raw)
    except (ValueError, TypeError) as err:
        if "Tracer" in type(err).__name__:  # jax.errors.TracerArrayConversionError: called under jit/vmap
            raise ValueError(f"{p.name} is a traced JAX value: evaluate_log10 validates concrete values, so it cannot "
                             "run under jax.jit/vmap/grad; inside them use bound.lambdify('jax') (natural log of "
                             "the bound, no validation)") from None
        raise ValueError(f"{p.name}={_shown(raw)} is not an array of real numbers ({err}); domain {p.domain_text()}") from None
    kind = a.dtype.kind
    if kind == "b":
        raise ValueError(f"{p.name}={_shown(raw)} must be numbers, not bools; domain {p.domain_text()}")
    if kind == "c":
        raise ValueError(f"{p.name}={_shown(raw)} is not real (complex); domain {p.domain_text()}")
    if kind in "iuf":
        return check_array(p, a.astype(float)), None
    if kind != "O":
        raise ValueError(f"{p.name}={_shown(raw)} is not a real number (dtype {a.dtype}); domain {p.domain_text()}")
    flat = a.reshape(-1)
    exact = np.empty(flat.shape, dtype=object)
    floats = np.empty(flat.shape)
    beyond = False
    for i, x in enumerate(flat):
        if isinstance(x, (bool, np.bool_)):
            raise ValueError(f"{p.name}={x!r} must be a number, not a bool; domain {p.domain_text()}")
        v = p.validate(x)  # raises naming p for complex, strings, NaN, inf, out of domain
        try:
            fv = float(v)
        except OverflowError:
            fv = math.inf
        if not math.isfinite(fv) or (abs(fv) < FLOAT64_TINY and v != 0):
            beyond = True  # 10**400, mpf('1e-400'): float64 would round it to inf / 0 / a subnormal
        exact[i], floats[i] = v, fv
    return floats.reshape(a.shape), (exact.reshape(a.shape) if beyond else None)


def check_array(p: Param, a: np.ndarray) -> np.ndarray:
    """Domain check of a float64 array; raises through ``p.validate`` on the first bad entry."""
    flat = a.reshape(-1)
    bad = ~np.isfinite(flat)
    if not bad.any():
        lo, hi, d = p.domain.lo, p.domain.hi, p.domain
        bad = (flat < lo) | (flat > hi) | ((flat == lo) & (not d.lo_closed)) | ((flat == hi) & (not d.hi_closed))
        if p.integer:
            bad |= flat != np.floor(flat)
    if bad.any():
        p.validate(flat[np.argmax(bad)].item())  # raises with the standard message
    return a


def _accepted(bound: Any) -> dict[str, Param]:
    out = {p.name: p for p in bound.params}
    for rp in bound.reparametrisations:
        out.update({p.name: p for p in rp.inputs})
    if bound.trivial is not None:
        out.update({p.name: p for p in bound.trivial[1]})
    return out


def convert_arrays(bound: Any, arrays: Mapping[str, Any]) -> tuple[dict[str, tuple[np.ndarray, Any]], tuple[int, ...], bool]:
    """Validate each input array: name -> (float64 array, object array of exact values or None),
    the broadcast shape, and whether some entry does not fit float64."""
    known = _accepted(bound)
    for key in arrays:
        if key not in known:
            raise ValueError(unknown_parameter_message(bound, key))
    conv = {k: input_array(known[k], v) for k, v in arrays.items()}
    try:
        shape = np.broadcast_shapes(*[f.shape for f, _ in conv.values()])
    except ValueError:
        shown = ", ".join(f"{k} {f.shape}" for k, (f, _) in conv.items())
        raise ValueError(f"{bound.name}: the parameters' shapes do not broadcast together: {shown}") from None
    return conv, shape, any(e is not None for _, e in conv.values())


def _trivial_given(bound: Any, names: Any) -> bool | None:
    """True: every trivial-bound parameter given (or it has none); False: none given; raises if some."""
    if bound.trivial is None:
        return None
    given = [p.name for p in bound.trivial[1] if p.name in names]
    if given and len(given) != len(bound.trivial[1]):
        missing = [p.name for p in bound.trivial[1] if p.name not in names]
        raise ValueError(f"{bound.name}: the trivial bound needs also {', '.join(missing)}")
    return len(given) == len(bound.trivial[1])


def resolve_arrays(bound: Any, arrays: Mapping[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """Float arrays (validated) -> (parameter name -> array, trivial-bound params or None when not judged)."""
    arrays = dict(arrays)
    out: dict[str, np.ndarray] = {}
    for rp in bound.reparametrisations:
        given = [p.name for p in rp.inputs if p.name in arrays]
        if not given:
            continue
        if len(given) != len(rp.inputs):
            raise ValueError(f"{bound.name}: {', '.join(given)} needs all of {[p.name for p in rp.inputs]}")
        ins = [arrays.pop(p.name) for p in rp.inputs]
        for target, fn in rp.outputs.items():
            if target in arrays:
                raise ValueError(f"{bound.name}: give either {target} or {', '.join(given)}, not both")
            out[target] = check_array(bound.param(target), np.asarray(fn(*ins), dtype=float))
    for p in bound.params:
        if p.name in arrays:
            out[p.name] = arrays.pop(p.name)
        elif p.name not in out:
            alts = [rp.description for rp in bound.reparametrisations if p.name in rp.outputs]
            hint = f" (or {'; '.join(alts)})" if alts else ""
            raise ValueError(f"{bound.name}: missing parameter {p.name}, domain {p.domain_text()}{hint}")
    optional = None
    if _trivial_given(bound, arrays):
        optional = {p.name: arrays.pop(p.name) for p in bound.trivial[1]}
    syms = tuple(p.symbol for p in bound.params)
    for c in bound.constraints:
        with np.errstate(all="ignore"):
            g = np.asarray(compiled(syms, c.expr, "numpy")(*[out[p.name] for p in bound.params]))
        if np.any(g < 0):
            idx = tuple(int(i) for i in np.argwhere(np.broadcast_to(g < 0, np.broadcast(*out.values(), g).shape))[0])
            raise ValueError(f"{bound.name}: {c.message} (first at index {idx})")
    return out, optional


def _log10_pointwise(bound: Any, conv: Mapping[str, tuple[np.ndarray, Any]], shape: tuple[int, ...],
                     backend: str) -> LogArray:
    """evaluate_log10 with ``bound.evaluate`` at every point (inputs beyond float64)."""
    cols = {k: np.broadcast_to(e if e is not None else f.astype(object), shape) for k, (f, e) in conv.items()}
    log10 = np.empty(shape)
    vac = np.zeros(shape, dtype=bool)
    judged = _trivial_given(bound, conv)
    unin = np.zeros(shape, dtype=bool) if judged else None
    for idx in np.ndindex(*shape):
        res = bound.evaluate(digits=17, **{k: c[idx] for k, c in cols.items()})
        if res.vacuous:
            vac[idx], log10[idx] = True, (math.inf if bound.kind == "upper" else -math.inf)
            continue
        if res.log10 is None:
            raise ValueError(f"{bound.name}: log10 of the bound is beyond float64 (or unknown) at index {idx}: "
                             f"{res.reason}; use evaluate()")
        log10[idx] = res.log10
        if unin is not None:
            unin[idx] = bool(res.uninformative)
    needs = tuple(p.name for p in bound.trivial[1]) if judged is False else ()
    if backend == "jax":
        import jax.numpy as jnp

        return LogArray(jnp.asarray(log10), jnp.asarray(vac), None if unin is None else jnp.asarray(unin), needs)
    return LogArray(log10, vac, unin, needs)


def evaluate_log10(bound: Any, backend: str, arrays: Mapping[str, Any]) -> LogArray:
    """:meth:`Bound.evaluate_log10 <contrastive_bounds.theory._bound.Bound.evaluate_log10>` (see there)."""
    if backend not in ("numpy", "jax"):
        raise ValueError(f"backend={backend!r} must be one of 'numpy', 'jax'")
    conv, shape, exact = convert_arrays(bound, arrays)
    if exact:
        return _log10_pointwise(bound, conv, shape, backend)
    vals, optional = resolve_arrays(bound, {k: f for k, (f, _) in conv.items()})
    xp: Any = np
    if backend == "jax":
        import jax.numpy as jnp

        xp = jnp
    syms = tuple(p.symbol for p in bound.params)
    args = [xp.asarray(vals[p.name]) for p in bound.params]
    with np.errstate(all="ignore"):
        ln = bound.lambdify(backend, log=True)(*args)
        vac = xp.zeros(shape, dtype=bool)
        for v in bound.vacuity:
            vac = vac | (xp.asarray(compiled(syms, v.expr, backend)(*args)) <= 0)
        ln = xp.broadcast_to(xp.asarray(ln, dtype=float), shape)
        fill = xp.inf if bound.kind == "upper" else -xp.inf
        log10 = xp.where(vac, fill, ln / math.log(10.0))
        unin = None
        if optional is not None:
            opt = bound.trivial[1]
            tsyms = syms + tuple(p.symbol for p in opt)
            triv = compiled(tsyms, sp.expand_log(sp.log(bound.trivial[0]), force=True), backend)(
                *args, *[xp.asarray(optional[p.name]) for p in opt])
            triv = xp.broadcast_to(xp.asarray(triv, dtype=float), shape)
            unin = ~vac & ((ln >= triv) if bound.kind == "upper" else (ln <= triv))
    bad = ~np.isfinite(np.asarray(log10)) & ~np.asarray(vac)
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        hint = ""
        dtype = np.asarray(log10).dtype
        if backend == "jax" and dtype != np.float64:
            hint = " (JAX x64 is off; the numpy backend works in float64)"
        raise ValueError(f"{bound.name}: log10 of the bound is beyond {dtype} (or lost) at index {idx}"
                         f"{hint}; use evaluate(), which keeps it exactly with mpmath")
    needs = tuple(p.name for p in bound.trivial[1]) if bound.trivial is not None and optional is None else ()
    return LogArray(log10, vac, unin, needs)
