"""The landscape options shared by ``landscape`` and ``anneal``: parse them, call the library, name the option.

A landscape on the command line is a name and options, as ``contrastive-bounds landscape`` takes them:

* ``infonce`` with ``--points`` (N >= 3, default 8), ``--dim`` (d >= 2, default 3), ``--tau`` (in [1e-4, 1e4],
  default 0.5), ``--pairs i-j,k-l`` (default 0-1,2-3,...; their order does not matter), ``--coupled`` and
  ``--radius`` (R > 0);
* ``thomson`` with ``--points`` (N >= 2, default 12) and ``--dim``;
* any other built-in by name with its ``key=value`` parameters, or an S¹ Fourier file (``.json``/``.toml``),
  with ``--radius``.

Every range and default is the library's (:mod:`contrastive_bounds.numerics.landscapes.network.arguments`):
:meth:`LandscapeOptions.recipe` checks InfoNCE and Thomson options there without starting JAX (a bad option
exits 2 before JAX is imported), :meth:`LandscapeOptions.spec` builds the spec, and :func:`option_error`
renames the library's argument names (``tau=``, ``num_points=``, ...) to the options (``--tau=``,
``--points=``, ...). A saved search's landscape comes back as options by :func:`options_from_fingerprint`
(the library's :func:`~contrastive_bounds.numerics.landscapes.network.rebuild.recipe_from_fingerprint`), so a
message can say which command made it; :func:`option_for_field` names the option behind a fingerprint field.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from contrastive_bounds.numerics.landscapes.network.arguments import InfonceArguments, ThomsonArguments, \
    check_radius, infonce_arguments, thomson_arguments
from contrastive_bounds.numerics.landscapes.network.constants import HESSFREE_THRESHOLD
from contrastive_bounds.numerics.landscapes.network.rebuild import NETWORK_ONLY, LandscapeRecipe, \
    recipe_from_fingerprint
from contrastive_bounds.numerics.landscapes.network.state import default_curvature

from contrastive_bounds.properties.cli._common import CLIError, parse_assignments, parse_number

__all__ = ["LandscapeOptions", "parse_pairs", "parse_basin_margin", "check_basin_margin", "landscape_spec_from_options",
           "options_from_fingerprint", "option_for_field", "option_error"]

#: the library's argument names as the command line spells them
OPTIONS = {"num_points": "--points", "dim": "--dim", "tau": "--tau", "pairs": "--pairs", "radius": "--radius",
           "coupled": "--coupled"}
_NAMES = re.compile(r"(?<![\w-])(num_points|dim|tau|pairs|radius|coupled)(?==)")


def option_error(exc: Exception) -> CLIError:
    """The library's refusal ``exc`` with its argument names as options (``tau=0.0`` -> ``--tau=0.0``, a message
    about the ``pairs`` -> ``--pairs``): the same refusal, in the command line's words."""
    text = _NAMES.sub(lambda m: OPTIONS[m.group(1)], str(exc))
    return CLIError("--" + text if text.startswith("pairs ") else text)


def parse_basin_margin(text: str) -> float | None:
    """``--basin-margin``: ``"none"`` -> None (every search runs to its end), else a number >= 0 (units of V);
    CLIError naming the option and its range otherwise (``SearchSettings.basin_margin``)."""
    if text.strip().lower() == "none":
        return None
    try:
        value = parse_number("--basin-margin", text.strip())
    except CLIError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0):
        raise CLIError(f"--basin-margin={text!r} must be a finite number >= 0 (units of V) or 'none'")
    return float(value)


def check_basin_margin(margin: float | None, curvature: str, num_points: int, dim: int) -> None:
    """A margin given (``margin``: the parsed ``--basin-margin``, None when not given or 'none') to a search that runs
    dense is refused: the dense refiner runs every search to its end.

    Raises:
      CLIError: naming ``--basin-margin``, the size and how to make it apply.
    """
    chosen = default_curvature(num_points, dim) if curvature == "auto" else curvature
    if margin is not None and chosen == "dense":
        raise CLIError(f"--basin-margin={margin:g} applies to Hessian-free searches; this one runs dense (N·d = "
                       f"{num_points * dim}{', the default up to ' + str(HESSFREE_THRESHOLD) if curvature == 'auto' else ''}"
                       "): add --curvature hessfree, or leave --basin-margin out")


def parse_pairs(text: str) -> list[tuple[int, int]]:
    """``"0-1,2-3"`` (or ``0:1``) -> ``[(0, 1), (2, 3)]``; CLIError naming ``--pairs`` otherwise."""
    out = []
    for item in text.split(","):
        item = item.strip()
        parts = item.replace(":", "-").split("-")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise CLIError(f"--pairs={text!r}: entry {item!r} is not of the form i-j (point indices, e.g. 0-1,2-3)")
        out.append((int(parts[0]), int(parts[1])))
    return out


@dataclass(frozen=True)
class LandscapeOptions:
    """A landscape as command-line options (what :func:`landscape_spec_from_options` takes).

    Attributes:
      name: the landscape argument. params: ``key=value`` words. points, dim, tau, pairs, coupled,
      radius: the options (``None``: not given). extra: parameters of a built-in that are not numbers
      (not settable on the command line; kept from a saved fingerprint, e.g. ``means`` of vmf-mixture).
    """

    name: str
    params: tuple[str, ...] = ()
    points: int | None = None
    dim: int | None = None
    tau: float | None = None
    pairs: str | None = None
    coupled: bool = False
    radius: float = 1.0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def command_line(self) -> str:
        """The landscape part of a command line, e.g. ``infonce --points 4 --dim 2 --tau 0.1``."""
        words = [self.name, *self.params]
        for opt, value in (("--points", self.points), ("--dim", self.dim), ("--tau", self.tau), ("--pairs", self.pairs)):
            if value is not None:
                words += [opt, f"{value:g}" if isinstance(value, float) else str(value)]
        if self.coupled:
            words.append("--coupled")
        if self.radius != 1.0:
            words += ["--radius", f"{self.radius:g}"]
        return shlex.join(words)

    def recipe(self) -> LandscapeRecipe:
        """The library's recipe of these options; InfoNCE and Thomson options are checked here without JAX.

        Raises:
          CLIError: a bad value or an option that does not apply to the landscape, naming the option.
        """
        kv = parse_assignments(list(self.params))
        try:
            r = check_radius(self.radius)
            if self.name == "infonce":
                if kv:
                    raise CLIError(f"infonce takes --points, --dim, --tau, --pairs, --coupled, not key=value ({sorted(kv)})")
                pairs = None if self.pairs is None else parse_pairs(self.pairs)
                return LandscapeRecipe("infonce", infonce_arguments(self.points, self.dim, self.tau, pairs,
                                                                     coupled=bool(self.coupled), radius=r), radius=r)
            if self.tau is not None or self.pairs is not None or self.coupled:
                raise CLIError(f"--tau, --pairs and --coupled apply to infonce only, not to {self.name!r}")
            if self.name == "thomson":
                if kv:
                    raise CLIError(f"thomson takes --points and --dim, not key=value ({sorted(kv)})")
                return LandscapeRecipe("thomson", thomson_arguments(self.points, self.dim), radius=r)
        except CLIError:
            raise
        except ValueError as exc:
            raise option_error(exc) from None
        if self.points is not None or self.dim is not None:
            raise CLIError(f"--points and --dim apply to infonce and thomson; {self.name!r} takes key=value parameters")
        return LandscapeRecipe(self.name, None, {k: parse_number(k, v) for k, v in kv.items()}, dict(self.extra), r)

    def spec(self) -> Any:
        """The :class:`~contrastive_bounds.numerics.landscapes.network.LandscapeSpec` of these options (compiles and
        probes the potential: a second or two).

        Raises:
          CLIError / ValueError: as :meth:`recipe`; an unknown landscape name or a failed probe.
        """
        recipe = self.recipe()
        if recipe.arguments is not None:
            return recipe.build()
        from contrastive_bounds.numerics.landscapes.network import landscape_spec
        from contrastive_bounds.numerics.landscapes._registry import get_landscape, resolve_landscape

        if self.extra:
            return landscape_spec(get_landscape(self.name, **recipe.params, **self.extra), radius=recipe.radius)
        return landscape_spec(resolve_landscape(self.name, **recipe.params), radius=recipe.radius)

    @classmethod
    def from_recipe(cls, recipe: LandscapeRecipe) -> LandscapeOptions:
        """The options that give ``recipe`` (InfoNCE pairs omitted when they are the default ones)."""
        a = recipe.arguments
        if isinstance(a, InfonceArguments):
            text = None if a.default_pairs else ",".join(f"{i}-{j}" for i, j in a.pairs)
            return cls("infonce", (), a.num_points, a.dim, a.tau, text, a.coupled, a.radius)
        if isinstance(a, ThomsonArguments):
            return cls("thomson", (), a.num_points, a.dim, radius=recipe.radius)
        words = tuple(f"{k}={v}" if isinstance(v, str) else f"{k}={v!r}" for k, v in sorted(recipe.params.items()))
        return cls(recipe.name, words, radius=recipe.radius, extra=dict(recipe.extra))


def landscape_spec_from_options(name: str, params: list[str] | None = None, points: int | None = None,
                                dim: int | None = None, tau: float | None = None, pairs: str | None = None,
                                coupled: bool = False, radius: float = 1.0) -> Any:
    """The landscape spec the ``landscape`` command builds from its options (module docstring).

    Raises:
      CLIError / ValueError: a bad value or an option that does not apply to ``name``, naming the option
        (``--points``, ``--dim``, ``--tau``, ``--pairs``, ``--radius``, ``key=value``); an unknown name.
    """
    return LandscapeOptions(name, tuple(params or ()), points, dim, tau, pairs, coupled, radius).spec()


def options_from_fingerprint(fingerprint: dict[str, Any]) -> LandscapeOptions:
    """The options that build the landscape of a saved fingerprint (``LandscapeSpec.fingerprint``).

    Raises:
      ValueError: a landscape that options cannot rebuild: a Fourier file (only its file name is saved),
        a user potential, or an unknown name (the message says which and what to give instead).
    """
    return LandscapeOptions.from_recipe(recipe_from_fingerprint(fingerprint))


_FIELD_OPTIONS = {"name": "LANDSCAPE", "num_points": "--points", "dim": "--dim", "radius": "--radius",
                  "params.tau": "--tau", "params.pairs": "--pairs", "params.coupled": "--coupled",
                  "symmetry": "the symmetry", "probe": "the potential's values at the probe points"}


def option_for_field(key: str, name: str) -> str:
    """The option behind a fingerprint field (``num_points`` -> ``--points``; a built-in's ``params.H``
    -> ``H=``) of landscape ``name``."""
    if key.startswith("params.") and name not in NETWORK_ONLY:
        return f"{key.removeprefix('params.')}="
    return _FIELD_OPTIONS.get(key, key)
