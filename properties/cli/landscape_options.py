"""The landscape options shared by ``landscape`` and ``anneal``: building a LandscapeSpec, and naming a saved one.

A landscape on the command line is a name and options, as ``contrastive-bounds landscape`` takes them:

* ``infonce`` with ``--points`` (N >= 3, default 8), ``--dim`` (d >= 2, default 3), ``--tau`` (in [1e-4, 1e4]:
  default 0.5), ``--pairs i-j,k-l`` (default 0-1,2-3,...), ``--coupled`` and ``--radius`` (R > 0);
* ``thomson`` with ``--points`` (N >= 2, default 12) and ``--dim``;
* any other built-in by name with its ``key=value`` parameters, or an S¹ Fourier file (``.json``/``.toml``),
  with ``--radius``.

:func:`landscape_spec_from_options` builds the :class:`~contrastive_bounds.numerics.landscapes.network.LandscapeSpec`
(errors name the option: ``--points``, ``--tau``, ...). For a saved search,
:func:`options_from_fingerprint` turns the landscape's fingerprint back into these options (so a message
can say which command made it), :func:`spec_from_fingerprint` rebuilds the spec and checks it is the
same potential, and :func:`option_for_field` names the option behind a fingerprint field.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from typing import Any

from contrastive_bounds.numerics.landscapes.network import LandscapeSpec, infonce_spec, landscape_spec, thomson_spec
from contrastive_bounds.numerics.landscapes.network.spec import default_pairs
from contrastive_bounds.numerics.landscapes.registry import get_landscape, landscape_parameters, list_landscapes, \
    resolve_landscape
from contrastive_bounds.theory.domains import check_int, check_real

from contrastive_bounds.properties.cli.common import CLIError, parse_assignments, parse_number

__all__ = ["LandscapeOptions", "parse_pairs", "landscape_spec_from_options", "options_from_fingerprint",
           "spec_from_fingerprint", "option_for_field", "NETWORK_ONLY"]

#: Landscapes that exist only as network specs (no registry object with a known global minimum).
NETWORK_ONLY = ("infonce", "thomson")
_DEFAULT_POINTS = {"infonce": 8, "thomson": 12}
_MIN_POINTS = {"infonce": 3, "thomson": 2}
_DEFAULT_DIM = 3
_DEFAULT_TAU = 0.5
#: --tau of InfoNCE networks: float64 refinement keeps every minimum here (InfoNCE's Hessian scales like 1/tau²;
#: measured: the split-pair trap of N = 4 on S¹ is found for tau in [1e-5, 1e-2], missed at 1e-6, while above
#: 1e4 the potential's variation, ~1/tau, nears the gradient tolerance)
TAU_RANGE = (1e-4, 1e4)


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


def landscape_spec_from_options(name: str, params: list[str] | None = None, points: int | None = None,
                                dim: int | None = None, tau: float | None = None, pairs: str | None = None,
                                coupled: bool = False, radius: float = 1.0) -> LandscapeSpec:
    """The landscape spec the ``landscape`` command builds from its options (module docstring).

    Args:
      name: ``infonce``, ``thomson``, a built-in name or a Fourier file path.
      params: ``key=value`` words (built-ins only). points, dim, tau, pairs, coupled: see the module
        docstring (``None``: the default). radius: R > 0.

    Returns:
      The :class:`LandscapeSpec` (its potential compiled and probed: this takes a second or two).

    Raises:
      CLIError / ValueError: a bad value or an option that does not apply to ``name``, naming the option
        (``--points``, ``--dim``, ``--tau``, ``--pairs``, ``--radius``, ``key=value``); an unknown name.
    """
    r = check_real("--radius", radius, 0.0, math.inf)
    kv = parse_assignments(params)
    if name == "infonce":
        if kv:
            raise CLIError(f"infonce takes --points, --dim, --tau, --pairs, --coupled, not key=value ({sorted(kv)})")
        n = check_int("--points", _DEFAULT_POINTS[name] if points is None else points, _MIN_POINTS[name], None)
        d = check_int("--dim", _DEFAULT_DIM if dim is None else dim, 2, None)
        t = check_real("--tau", _DEFAULT_TAU if tau is None else tau, 0.0, math.inf)
        if not TAU_RANGE[0] <= t <= TAU_RANGE[1]:
            raise CLIError(f"--tau={t!r} is outside [{TAU_RANGE[0]:g}, {TAU_RANGE[1]:g}], where a float64 network search "
                           "of InfoNCE keeps its minima (the Hessian scales like 1/tau^2: at tau = 1e-6 the search misses "
                           "the split-pair trap of N = 4)")
        try:
            return infonce_spec(n, d, t, None if pairs is None else parse_pairs(pairs), coupled=coupled, radius=r)
        except ValueError as exc:  # the spec names its argument `pairs`; the user typed --pairs
            msg = str(exc)
            raise CLIError("--" + msg if msg.startswith("pairs ") else msg) from None
    if tau is not None or pairs is not None or coupled:
        raise CLIError(f"--tau, --pairs and --coupled apply to infonce only, not to {name!r}")
    if name == "thomson":
        if kv:
            raise CLIError(f"thomson takes --points and --dim, not key=value ({sorted(kv)})")
        return thomson_spec(check_int("--points", _DEFAULT_POINTS[name] if points is None else points,
                                      _MIN_POINTS[name], None),
                            check_int("--dim", _DEFAULT_DIM if dim is None else dim, 2, None))
    if points is not None or dim is not None:
        raise CLIError(f"--points and --dim apply to infonce and thomson; {name!r} takes key=value parameters")
    land = resolve_landscape(name, **{k: parse_number(k, v) for k, v in kv.items()})
    return landscape_spec(land, radius=r)


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

    def spec(self) -> LandscapeSpec:
        """:func:`landscape_spec_from_options` of these options (with :attr:`extra`, the built-in's parameters
        that are not numbers, passed to the builder as they are)."""
        if not self.extra:
            return landscape_spec_from_options(self.name, list(self.params), self.points, self.dim, self.tau,
                                               self.pairs, self.coupled, self.radius)
        numbers = {k: parse_number(k, v) for k, v in parse_assignments(list(self.params)).items()}
        return landscape_spec(get_landscape(self.name, **numbers, **self.extra), radius=self.radius)


def _tuples(x: Any) -> Any:
    return tuple(_tuples(v) for v in x) if isinstance(x, list) else x


def _word(key: str, value: Any) -> str:
    return f"{key}={value}" if isinstance(value, str) else f"{key}={value!r}"


def options_from_fingerprint(fingerprint: dict[str, Any]) -> LandscapeOptions:
    """The options that build the landscape of a saved fingerprint (``LandscapeSpec.fingerprint``).

    Raises:
      ValueError: a landscape that options cannot rebuild: a Fourier file (only its file name is saved),
        a user potential, or an unknown name (the message says which and what to give instead).
    """
    name = str(fingerprint.get("name"))
    params = dict(fingerprint.get("params") or {})
    radius = float(fingerprint.get("radius", 1.0))
    n, d = fingerprint.get("num_points"), fingerprint.get("dim")
    if name == "infonce":
        prs = [tuple(p) for p in params.get("pairs", [])]
        text = None if prs == list(default_pairs(int(n))) else ",".join(f"{i}-{j}" for i, j in prs)
        return LandscapeOptions(name, (), int(n), int(d), float(params["tau"]), text, bool(params.get("coupled")), radius)
    if name == "thomson":
        return LandscapeOptions(name, (), int(n), int(d), radius=radius)
    if name.startswith("fourier:"):
        raise ValueError(f"the saved landscape is the Fourier file {name.removeprefix('fourier:')!r}, which the search "
                         "saved by name only: give the file as the LANDSCAPE argument")
    if name not in list_landscapes():
        raise ValueError(f"the saved landscape {name!r} is not a built-in (a potential given in Python): it cannot be "
                         "rebuilt from the command line")
    taken = landscape_parameters(name)  # other entries are the landscape's metadata (the probe checks the potential)
    words = tuple(_word(k, v) for k, v in sorted(params.items()) if k in taken and not isinstance(v, (list, tuple)))
    extra = {k: _tuples(v) for k, v in params.items() if k in taken and isinstance(v, (list, tuple))}
    return LandscapeOptions(name, words, radius=radius, extra=extra)


def spec_from_fingerprint(fingerprint: dict[str, Any]) -> tuple[LandscapeSpec, LandscapeOptions]:
    """Rebuild the spec of a saved fingerprint and check it is the same potential (same probe values).

    Raises:
      ValueError: see :func:`options_from_fingerprint`; the rebuilt potential differs from the saved one
        (another version of the built-in, or another platform's rounding of the probe values).
    """
    opts = options_from_fingerprint(fingerprint)
    spec = opts.spec()
    now = spec.fingerprint()
    if now.get("probe") != fingerprint.get("probe"):
        raise ValueError(f"the saved landscape ({opts.command_line()}) rebuilt here has other values at the probe "
                         f"points (probe {now.get('probe')} here, {fingerprint.get('probe')} saved): not the same "
                         "potential")
    return spec, opts


_FIELD_OPTIONS = {"name": "LANDSCAPE", "num_points": "--points", "dim": "--dim", "radius": "--radius",
                  "params.tau": "--tau", "params.pairs": "--pairs", "params.coupled": "--coupled",
                  "symmetry": "the symmetry", "probe": "the potential's values at the probe points"}


def option_for_field(key: str, name: str) -> str:
    """The option behind a fingerprint field (``num_points`` -> ``--points``; a built-in's ``params.H``
    -> ``H=``) of landscape ``name``."""
    if key.startswith("params.") and name not in NETWORK_ONLY:
        return f"{key.removeprefix('params.')}="
    return _FIELD_OPTIONS.get(key, key)
