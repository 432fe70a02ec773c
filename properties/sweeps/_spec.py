"""Sweep specs: a TOML file naming a task kind and a grid, validated whole before anything runs.

Format (every key but ``kind`` optional)::

    name = "theorem1-grid"                 # shown in the report
    description = "..."
    kind = "align-simulate"                # a task kind (`contrastive-bounds sweep --kinds`)
    # check = "A4.convergence"             # kind "check": the check id; kind "bound": bound = "<name>"
    seeds = "0..4"                         # a list, an inclusive range "a..b" or "a..b..step", or one integer

    [params]                               # values shared by every task
    steps = 200

    [grid]                                 # axes: every combination (cartesian product) is a task
    tau = [0.1, 0.5, 1.0]                  # a list,
    batch_size = "16..64..16"              # an integer range (inclusive),
    eta = { start = 0.01, stop = 1.0, num = 5, scale = "log" }   # or numbers (scale "linear" or "log")

    [[rows]]                               # optional explicit rows: each row's values (scalars or axes)
    num_classes = 2                        # are combined with the [grid] axes; rows are concatenated
    [[rows]]
    num_classes = 10

    [profiles.quick]                       # `--profile quick`: replaces seeds/rows and updates params/grid
    seeds = [0]

    [report]                               # figures of the sweep report (see report.py)
    heatmap = { x = "tau", y = "batch_size", value = "ratio_log10" }
    curves = { x = "eta", y = "empirical", series = "tau" }

Tasks are ordered rows x grid axes (in file order) x seeds; each has a key (a hash of kind, target,
parameters and seed) that names its result row. A parameter of list type (some checks take lists)
is one value in ``[params]`` and ``[[rows]]``; on a ``[grid]`` axis it is a list of lists.

Every error is a ValueError whose message names the spec, the key and, for a task, its row and values.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from contrastive_bounds.theory._domains import MAX_SEED

from contrastive_bounds.properties.sweeps.kinds import KIND_ALIASES, TaskKind, get_kind, list_kinds

__all__ = ["Task", "SweepSpec", "load_spec", "parse_spec", "builtin_specs", "FORMAT_VERSION", "task_key",
           "parse_range"]

#: Part of every task key: bump when a kind's row for the same parameters changes meaning.
FORMAT_VERSION = 1
_TOP_KEYS = {"name", "description", "kind", "check", "bound", "seeds", "params", "grid", "rows", "profiles", "report"}
_PROFILE_KEYS = {"seeds", "params", "grid", "rows", "description"}


@dataclass(frozen=True)
class Task:
    """One task: a pure function of (kind, target, params, seed).

    Attributes:
      index: position in the sweep (0-based); source: which ``[[rows]]`` entry it came from (or -1).
      kind, target: the task kind and its check id / bound name ("" when none).
      params: every parameter, defaults filled in (JSON-able); seed: in [0, 2**32 - 1].
      key: 24 hex digits of sha256 over (format, kind, target, params, seed); names the result row.
    """

    index: int
    kind: str
    target: str
    params: dict[str, Any]
    seed: int
    key: str
    source: int = -1


@dataclass
class SweepSpec:
    """A validated spec: its tasks, the kind, the normalised form (for resume) and report settings."""

    name: str
    description: str
    kind: TaskKind
    tasks: list[Task]
    normalised: dict[str, Any]
    report: dict[str, Any] = field(default_factory=dict)
    profile: str = "default"
    path: str = ""

    @property
    def fingerprint(self) -> str:
        """sha256 of the normalised spec (kind, target, params, grid, rows, seeds): equal -> same tasks."""
        return hashlib.sha256(json.dumps(self.normalised, sort_keys=True).encode()).hexdigest()

    def cost_seconds(self) -> float:
        """Estimated seconds on one core for every task (the kind's cost model)."""
        return float(sum(self.kind.cost(t.params) for t in self.tasks))


def task_key(kind: str, target: str, params: dict[str, Any], seed: int) -> str:
    """The key of a task (see :class:`Task`)."""
    blob = json.dumps({"format": FORMAT_VERSION, "kind": kind, "target": target, "params": params, "seed": seed},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def parse_range(where: str, value: Any) -> list[Any] | None:
    """The values of a range: ``"a..b"`` / ``"a..b..step"`` (integers, inclusive) or a table
    ``{start, stop, num, scale}`` (numbers; ``scale`` "linear" (default) or "log"); None if ``value`` is
    neither.

    Raises:
      ValueError: a malformed range (naming ``where``), an empty one, or more than 10**6 values.
    """
    if isinstance(value, str) and ".." in value:
        parts = value.split("..")
        try:
            nums = [int(p.strip()) for p in parts]
        except ValueError:
            raise ValueError(f"{where} = {value!r}: a range is 'a..b' or 'a..b..step' with integers") from None
        if len(nums) not in (2, 3) or (len(nums) == 3 and nums[2] <= 0):
            raise ValueError(f"{where} = {value!r}: a range is 'a..b' or 'a..b..step' with step > 0")
        out = list(range(nums[0], nums[1] + 1, nums[2] if len(nums) == 3 else 1))
    elif isinstance(value, dict):
        if set(value) - {"start", "stop", "num", "scale"} or not {"start", "stop", "num"} <= set(value):
            raise ValueError(f"{where}: a number range is a table {{start, stop, num, scale}}; got keys {sorted(value)}")
        start, stop, num, scale = value["start"], value["stop"], value["num"], value.get("scale", "linear")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (start, stop)):
            raise ValueError(f"{where}: start and stop must be finite numbers")
        if not isinstance(num, int) or isinstance(num, bool) or num < 1:
            raise ValueError(f"{where}: num={num!r} must be an integer >= 1")
        if scale not in ("linear", "log"):
            raise ValueError(f"{where}: scale={scale!r} must be 'linear' or 'log'")
        if scale == "log" and (start <= 0 or stop <= 0):
            raise ValueError(f"{where}: a log range needs start > 0 and stop > 0")
        arr = np.geomspace(start, stop, num) if scale == "log" else np.linspace(start, stop, num)
        out = [float(x) for x in arr]
    else:
        return None
    if not out:
        raise ValueError(f"{where} = {value!r} is empty")
    if len(out) > 1_000_000:
        raise ValueError(f"{where} = {value!r} has {len(out)} values (at most 10**6)")
    return out


def _axis(where: str, name: str, value: Any, kind: TaskKind, single_list_ok: bool) -> list[Any]:
    """The values a ``[grid]`` / ``[[rows]]`` entry stands for (one value -> a one-element list)."""
    try:
        ptype = kind.param(name).type
    except KeyError:
        names = ", ".join(p.name for p in kind.params) or "(none)"
        raise ValueError(f"{where}: unknown parameter {name!r} of kind {kind.name!r}; parameters: {names}") from None
    rng = parse_range(where, value)
    if rng is not None:
        return rng
    if ptype is list:
        if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            return value
        if single_list_ok and isinstance(value, list):
            return [value]
        raise ValueError(f"{where}: {name!r} takes a list, so its axis is a list of lists")
    if isinstance(value, list):
        if not value:
            raise ValueError(f"{where} is empty")
        return value
    return [value]


def _seeds(where: str, value: Any, kind: TaskKind) -> list[int]:
    vals = parse_range(where, value)
    if vals is None:
        vals = value if isinstance(value, list) else [value]
    if not vals:
        raise ValueError(f"{where} is empty")
    for s in vals:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SEED:
            raise ValueError(f"{where}: seed {s!r} must be an integer in [0, {MAX_SEED}]")
    if len(set(vals)) != len(vals):
        raise ValueError(f"{where}: repeated seeds")
    if not kind.uses_seed and vals != [0]:
        raise ValueError(f"{where}: kind {kind.name!r} is deterministic; give no seeds")
    return list(vals)


def _apply_profile(data: dict[str, Any], profile: str, label: str) -> dict[str, Any]:
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ValueError(f"spec {label}: profiles must be a table of tables")
    if profile == "default":
        return data
    if profile not in profiles:
        raise ValueError(f"--profile={profile!r}: spec {label} has profiles {', '.join(['default', *profiles])}")
    prof = profiles[profile]
    unknown = set(prof) - _PROFILE_KEYS
    if unknown:
        raise ValueError(f"spec {label}: profiles.{profile}: unknown key(s) {sorted(unknown)}; allowed: {sorted(_PROFILE_KEYS)}")
    out = dict(data)
    for key in ("params", "grid"):
        if key in prof:
            out[key] = {**data.get(key, {}), **prof[key]}
    for key in ("seeds", "rows", "description"):
        if key in prof:
            out[key] = prof[key]
    return out


def _describe(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def parse_spec(data: dict[str, Any], *, profile: str = "default", label: str = "<spec>", max_tasks: int = 1_000_000) -> SweepSpec:
    """Validate a spec given as a dict (parsed TOML) and expand its tasks.

    Args:
      data: the spec; profile: ``"default"`` or a name under ``[profiles]``; label: the spec's name
        in messages; max_tasks: refuse larger grids.

    Raises:
      ValueError: an unknown key, kind, target or parameter; an empty grid, axis or rows; a value of
        the wrong type or out of its domain (naming the key and, for a task, its row and values);
        more than ``max_tasks`` tasks.
    """
    if not isinstance(data, dict):
        raise ValueError(f"spec {label}: must be a TOML table")
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ValueError(f"spec {label}: unknown key(s) {sorted(unknown)}; allowed: {', '.join(sorted(_TOP_KEYS))}")
    data = _apply_profile(data, profile, label)
    if "kind" not in data:
        raise ValueError(f"spec {label}: missing 'kind' (a task kind: anneal, align-simulate, align-train, bound, check)")
    name = KIND_ALIASES.get(str(data["kind"]), str(data["kind"]))
    generic = list_kinds().get(name)
    target_key = generic.target_key if generic is not None else None
    wrong = [k for k in ("check", "bound") if k in data and k != target_key]
    if wrong:
        raise ValueError(f"spec {label}: key {wrong[0]!r} belongs to kind {wrong[0]!r}, not to kind {name!r}")
    try:
        kind = get_kind(name, data.get(target_key) if target_key else None)
    except ValueError as exc:
        raise ValueError(f"spec {label}: {exc}") from None
    params = data.get("params", {})
    grid = data.get("grid", {})
    rows = data.get("rows", [{}])
    for key, val, typ in (("params", params, dict), ("grid", grid, dict), ("rows", rows, list)):
        if not isinstance(val, typ):
            raise ValueError(f"spec {label}: {key} must be a {'table' if typ is dict else 'list of tables ([[rows]])'}")
    if not rows:
        raise ValueError(f"spec {label}: rows is empty")
    for name, value in params.items():
        _axis(f"params.{name}", name, value, kind, True)  # names the unknown parameter
        if name in grid:
            raise ValueError(f"spec {label}: {name!r} is both in params and in grid")
    axes = {name: _axis(f"grid.{name}", name, value, kind, False) for name, value in grid.items()}
    seeds = _seeds("seeds", data.get("seeds", [0]), kind)
    tasks: list[Task] = []
    for r, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"spec {label}: rows[{r}] must be a table")
        clash = (set(row) & set(grid)) | (set(row) & set(params))
        if clash:
            raise ValueError(f"spec {label}: rows[{r}] sets {sorted(clash)}, already set by params or grid")
        row_axes = {name: _axis(f"rows[{r}].{name}", name, value, kind, True) for name, value in row.items()}
        all_axes = {**row_axes, **axes}
        count = math.prod(len(v) for v in all_axes.values()) * len(seeds)
        if len(tasks) + count > max_tasks:
            raise ValueError(f"spec {label}: more than {max_tasks} tasks")
        for combo in itertools.product(*all_axes.values()):
            values = {**params, **dict(zip(all_axes, combo))}
            try:
                resolved = kind.resolve(values)
            except ValueError as exc:
                where = f"rows[{r}] " if len(rows) > 1 or row else ""
                raise ValueError(f"spec {label}: {where}task with {_describe(values)}: {exc}") from None
            for s in seeds:
                tasks.append(Task(len(tasks), kind.name, kind.target, resolved, s,
                                  task_key(kind.name, kind.target, resolved, s), r if row else -1))
    keys = [t.key for t in tasks]
    if len(set(keys)) != len(keys):
        raise ValueError(f"spec {label}: the grid repeats a task (two rows or axes give the same parameters)")
    normalised = {"kind": kind.name, "target": kind.target, "params": params, "grid": grid,
                  "rows": rows, "seeds": seeds}
    report = data.get("report", {})
    if not isinstance(report, dict):
        raise ValueError(f"spec {label}: report must be a table")
    from contrastive_bounds.properties.sweeps._report import check_report_settings
    from contrastive_bounds.properties.sweeps._store import row_schema

    try:
        check_report_settings(report, row_schema(kind).names)
    except ValueError as exc:
        raise ValueError(f"spec {label}: {exc}") from None
    return SweepSpec(str(data.get("name", label)), str(data.get("description", "")), kind, tasks,
                     json.loads(json.dumps(normalised)), report, profile)


def load_spec(path: str | Path, *, profile: str = "default") -> SweepSpec:
    """Read a spec file (or a built-in spec by name, see :func:`builtin_specs`) and validate it.

    Raises:
      FileNotFoundError: neither a file nor a built-in name.
      ValueError: invalid TOML, or as :func:`parse_spec`.
    """
    p = Path(path)
    builtins = builtin_specs()
    if not p.is_file() and str(path) in builtins:
        text, label = builtins[str(path)], str(path)
    elif p.is_file():
        text, label = p.read_text(), str(p)
    else:
        raise FileNotFoundError(f"SPEC={str(path)!r} is neither a file nor a built-in spec ({', '.join(builtins)})")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"spec {label}: invalid TOML: {exc}") from None
    spec = parse_spec(data, profile=profile, label=label)
    spec.path = label
    return spec


def builtin_specs() -> dict[str, str]:
    """Built-in specs shipped with the package: name -> TOML text (``contrastive-bounds sweep --list``)."""
    folder = resources.files("contrastive_bounds.properties.sweeps") / "builtin"
    return {f.name[:-5]: f.read_text() for f in sorted(folder.iterdir(), key=lambda f: f.name) if f.name.endswith(".toml")}

