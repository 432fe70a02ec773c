"""A landscape again from its fingerprint: what a saved search needs to rebuild the potential it searched.

A search saves its landscape's fingerprint (``LandscapeSpec.fingerprint``: ``name``, ``num_points``,
``dim``, ``radius``, ``symmetry``, ``params``, a ``probe`` of the potential's values). :func:`recipe_from_fingerprint`
turns it back into the builder and its checked arguments (:class:`LandscapeRecipe`), :func:`spec_from_fingerprint`
builds the spec and checks it is the same potential (same probe values), and :func:`fingerprint_differences`
says which fields of two fingerprints differ. Importing this module starts no JAX (building does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contrastive_bounds.numerics.landscapes.network.arguments import (
    InfonceArguments,
    ThomsonArguments,
    check_radius,
    infonce_arguments,
    thomson_arguments,
)

__all__ = ["LandscapeRecipe", "recipe_from_fingerprint", "spec_from_fingerprint", "fingerprint_differences",
           "NETWORK_ONLY"]

#: Landscapes that exist only as network specs (no registry object with a known global minimum).
NETWORK_ONLY = ("infonce", "thomson")
_KEYS = ("name", "num_points", "dim", "radius", "symmetry", "params", "probe")


@dataclass(frozen=True)
class LandscapeRecipe:
    """How to build a landscape: ``name`` (``"infonce"``, ``"thomson"`` or a registry landscape) with its
    checked ``arguments`` (InfoNCE, Thomson), or a registry landscape's ``params`` (scalars, settable as
    ``key=value``) and ``extra`` (list-valued parameters, e.g. the ``means`` of vmf-mixture), and the ``radius``."""

    name: str
    arguments: InfonceArguments | ThomsonArguments | None = None
    params: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    radius: float = 1.0

    def fields(self) -> dict[str, Any] | None:
        """The fingerprint the built spec will have, without its ``probe`` (known before anything is built), for
        InfoNCE and Thomson; None for a registry landscape."""
        a = self.arguments
        if isinstance(a, InfonceArguments):
            pairs = [list(p) for p in a.pairs]
            return {"name": "infonce", "num_points": a.num_points, "dim": a.dim, "radius": a.radius,
                    "symmetry": {"orthogonal": True, "permutations": "pairs", "pairs": pairs},
                    "params": {"tau": a.tau, "pairs": pairs, "coupled": a.coupled}}
        if isinstance(a, ThomsonArguments):
            return {"name": "thomson", "num_points": a.num_points, "dim": a.dim, "radius": 1.0,
                    "symmetry": {"orthogonal": True, "permutations": "all", "pairs": []}, "params": {}}
        return None

    def build(self) -> Any:
        """The :class:`~.spec.LandscapeSpec` (compiles and probes the potential: a second or two; needs x64)."""
        from contrastive_bounds.numerics.landscapes.network.spec import infonce_spec, landscape_spec, thomson_spec

        a = self.arguments
        if isinstance(a, InfonceArguments):
            return infonce_spec(a.num_points, a.dim, a.tau, a.pairs, coupled=a.coupled, radius=a.radius)
        if isinstance(a, ThomsonArguments):
            return thomson_spec(a.num_points, a.dim)
        from contrastive_bounds.numerics.landscapes._registry import get_landscape

        return landscape_spec(get_landscape(self.name, **self.params, **self.extra), radius=self.radius)


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def recipe_from_fingerprint(fingerprint: dict[str, Any]) -> LandscapeRecipe:
    """The recipe of a saved fingerprint.

    Raises:
      ValueError: a landscape no recipe rebuilds: a Fourier file (only its file name is saved), a user
        potential, an unknown name (the message says which and what to give instead); arguments out of
        range (named as the builder names them).
    """
    name = str(fingerprint.get("name"))
    params = dict(fingerprint.get("params") or {})
    radius = check_radius(fingerprint.get("radius", 1.0))
    n, d = fingerprint.get("num_points"), fingerprint.get("dim")
    if name == "infonce":
        pairs = [tuple(p) for p in params.get("pairs", [])] or None
        return LandscapeRecipe(name, infonce_arguments(n, d, params.get("tau"), pairs,
                                                       coupled=bool(params.get("coupled", False)), radius=radius),
                               radius=radius)
    if name == "thomson":
        return LandscapeRecipe(name, thomson_arguments(n, d), radius=radius)
    if name.startswith("fourier:"):
        raise ValueError(f"the saved landscape is the Fourier file {name.removeprefix('fourier:')!r}, which the search "
                         "saved by name only: give the file as the LANDSCAPE argument")
    from contrastive_bounds.numerics.landscapes._registry import landscape_parameters, list_landscapes

    if name not in list_landscapes():
        raise ValueError(f"the saved landscape {name!r} is not a built-in (a potential given in Python): it cannot be "
                         "rebuilt from the command line")
    taken = landscape_parameters(name)  # other entries are the landscape's metadata (the probe checks the potential)
    numbers = {k: v for k, v in params.items() if k in taken and not isinstance(v, (list, tuple))}
    extra = {k: _tuples(v) for k, v in params.items() if k in taken and k not in numbers}
    return LandscapeRecipe(name, None, numbers, extra, radius)


def spec_from_fingerprint(fingerprint: dict[str, Any]) -> Any:
    """The :class:`~.spec.LandscapeSpec` of a saved fingerprint, checked to be the same potential.

    Raises:
      ValueError: see :func:`recipe_from_fingerprint`; the rebuilt potential has other values at the probe
        points (another version of the built-in, or another platform's rounding of the probe values).
    """
    spec = recipe_from_fingerprint(fingerprint).build()
    now = spec.fingerprint()
    if now.get("probe") != fingerprint.get("probe"):
        raise ValueError(f"the saved landscape ({spec.description}) rebuilt here has other values at the probe points "
                         f"(probe {now.get('probe')} here, {fingerprint.get('probe')} saved): not the same potential")
    return spec


def fingerprint_differences(saved: dict[str, Any], given: dict[str, Any], *,
                            probe: bool = True) -> list[tuple[str, Any, Any]]:
    """``(field, saved, given)`` for each fingerprint field (``params`` entry by entry, as ``params.<key>``) where
    ``given`` differs from ``saved``; empty when they agree. ``probe=False`` leaves the potential's probe out
    (comparing arguments before anything is built)."""
    out = []
    for key in _KEYS:
        if key == "probe" and not probe:
            continue
        a, b = saved.get(key), given.get(key)
        if key == "params" and isinstance(a, dict) and isinstance(b, dict):
            out += [(f"params.{k}", a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        elif a != b:
            out.append((key, a, b))
    return out
