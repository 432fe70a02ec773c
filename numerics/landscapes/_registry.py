"""Named landscapes by name: :func:`get_landscape`, :func:`list_landscapes`, :func:`landscape_parameters`,
and :func:`resolve_landscape` (a name or an S¹ Fourier file) (docs/theorems.md A1, A3, A7).

The names and their parameters are listed in :mod:`._builtin` (``double-well``, ``triple-well``,
``barrier-H``, ``fourier``, ``vmf``, ``vmf-mixture``, ``infonce-toy``, ``infonce-toy-soft``,
``infonce``, ``thomson``). A :class:`Landscape` (:mod:`._landscape`, with its
constructors) takes ``z`` of shape ``(N, d)`` (N unit vectors in R^d) and returns a scalar; it is
jit/vmap/grad-able and keeps the input dtype. The β-scaled model of A7 (v0 multiplies the drift by
β) is :func:`scaled` applied to a landscape.
"""

from __future__ import annotations

import inspect
from collections import OrderedDict
from pathlib import Path
from typing import Any

from contrastive_bounds.numerics.landscapes._builtin import BUILDERS, DOUBLE_WELL_H, PARAMETER_RANGES
from contrastive_bounds.numerics.landscapes._landscape import Landscape, fourier_landscape, load_fourier, scaled

__all__ = ["get_landscape", "list_landscapes", "landscape_parameters", "resolve_landscape"]


def list_landscapes() -> list[str]:
    """Names accepted by :func:`get_landscape`, sorted."""
    return sorted(BUILDERS)


def landscape_parameters(name: str) -> dict[str, str]:
    """The parameters a named landscape takes: ``{parameter: "allowed range (default D)"}``.

    Read from the builder's signature, so it cannot drift from what :func:`get_landscape` accepts.

    Raises:
      ValueError: unknown name.
    """
    if name not in BUILDERS:
        raise ValueError(f"landscape={name!r} is unknown; choose one of {', '.join(list_landscapes())} or a Fourier file")
    ranges = PARAMETER_RANGES.get(name, {})
    out = {}
    for pname, par in inspect.signature(BUILDERS[name]).parameters.items():
        default = "" if par.default is None or par.default is inspect.Parameter.empty else f", default {par.default!r}"
        out[pname] = f"{ranges.get(pname, 'any')}{default}"
    return out


def _describe_parameters(name: str) -> str:
    taken = landscape_parameters(name)
    if not taken:
        return f"landscape {name!r} takes no parameters"
    return f"landscape {name!r} takes " + "; ".join(f"{k} {v}" for k, v in taken.items())


def get_landscape(name: str, **params: Any) -> Landscape:
    """Build a named landscape (see :mod:`._builtin` for names and parameters).

    The same name with the same plain parameters (numbers, strings, booleans, ``None`` and tuples of
    them, equal in value and type) gives the same immutable object, so that simulations of it share
    their compiled programs (:func:`contrastive_bounds.numerics.langevin.chunk_fn` caches by
    landscape) and its critical points are analysed once; the :data:`MEMO_SIZE` most recent are kept.

    Raises:
      ValueError: unknown name; a parameter the landscape does not take (the message lists the ones
        it takes, with their ranges); or a parameter outside its domain (named, with its range).

    Examples:
      >>> land = get_landscape("double-well")        # V(θ) on S¹, global minimum at θ = 0, trap at θ = π
      >>> land.name, land.num_points, land.dim, land.v_min, land.critical_height
      ('double-well', 1, 2, -1.5, 1.53125)
    """
    taken = landscape_parameters(name)
    unknown = sorted(set(params) - set(taken))
    if unknown:
        given = ", ".join(f"{k}={params[k]!r}" for k in unknown)
        raise ValueError(f"parameter {given} is not accepted: {_describe_parameters(name)}")
    key = _memo_key(name, params)
    if key is not None and key in _BUILT:
        _BUILT.move_to_end(key)
        return _BUILT[key]
    try:
        land = BUILDERS[name](**params)
    except TypeError as exc:  # a value of the wrong type deep inside a builder
        raise ValueError(f"bad parameter value for landscape {name!r} ({exc}); {_describe_parameters(name)}") from None
    if key is not None:
        _BUILT[key] = land
        if len(_BUILT) > MEMO_SIZE:
            _BUILT.popitem(last=False)
    return land


#: How many landscapes :func:`get_landscape` keeps for reuse.
MEMO_SIZE = 32
_BUILT: "OrderedDict[tuple, Landscape]" = OrderedDict()


def _plain(value: Any) -> Any:
    """A hashable, type-exact image of a plain parameter value; TypeError for anything else."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value), value)
    if isinstance(value, tuple):
        return (tuple, tuple(_plain(v) for v in value))
    raise TypeError(type(value).__name__)


def _memo_key(name: str, params: dict[str, Any]) -> tuple | None:
    try:
        return (name, tuple(sorted((k, _plain(v)) for k, v in params.items())))
    except TypeError:
        return None


def resolve_landscape(spec: str, **params: Any) -> Landscape:
    """A built-in landscape by name (with ``params``) or an S¹ landscape from a Fourier file path.

    Args:
      spec: a name of :func:`list_landscapes` or the path of a ``.json``/``.toml`` Fourier file.
      **params: parameters of a built-in landscape (none allowed for a file).

    Raises:
      ValueError: ``spec`` neither a built-in name nor an existing file (the message lists the
        built-ins), a folder, a malformed file (see :func:`~._fourier.read_fourier_file`), parameters
        given for a file, or bad parameters (see :func:`get_landscape`).
    """
    if spec in BUILDERS:
        return get_landscape(spec, **params)
    builtins = ", ".join(list_landscapes())
    path = Path(spec)
    if not path.exists():
        raise ValueError(f"landscape={spec!r}: no such built-in landscape or file; built-in landscapes: {builtins}")
    if not path.is_file():
        raise ValueError(f"landscape={spec!r} is a folder, not a Fourier file (.json/.toml); built-in landscapes: {builtins}")
    if params:
        raise ValueError(f"parameters {sorted(params)} are not accepted for a Fourier file (landscape={spec!r})")
    return load_fourier(path)


def _memo_info() -> tuple[int, int]:
    """``(landscapes held, capacity)``."""
    return len(_BUILT), MEMO_SIZE


# The lru_cache protocol, so that code which empties the package's caches (the self-test's substitution
# hook) also drops landscapes whose analysis ran before a substitution.
get_landscape.cache_clear = _BUILT.clear  # type: ignore[attr-defined]
get_landscape.cache_info = _memo_info  # type: ignore[attr-defined]
