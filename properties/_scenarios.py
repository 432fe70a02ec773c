"""Scenarios: which checks run with which parameters and seed.

Built-in scenarios come from each check's defaults for the profile (``quick`` or ``thorough``).
User scenarios come from a TOML file::

    imports = ["my_checks.py"]          # optional: Python files that register extra checks

    [[scenario]]
    name = "small-batch"                # unique within the file
    check = "B4.theorem1"               # a check id (see `contrastive-bounds check --list`)
    seed = 3                            # optional, default 0
    [scenario.params]                   # optional: overrides of the check's default parameters
    batch_size = 32

Parameters are validated against the check's defaults (known keys, compatible types) before
anything runs; the checks validate ranges themselves.
"""

from __future__ import annotations

import difflib
import fnmatch
import importlib.util
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contrastive_bounds.theory._domains import MAX_SEED

from contrastive_bounds.properties.checks._framework import CheckSpec
from contrastive_bounds.properties.checks._registry import registered_checks

__all__ = ["Scenario", "builtin_scenarios", "load_scenarios", "select"]


@dataclass(frozen=True)
class Scenario:
    """One run of one check: ``check`` id, scenario ``name``, ``params`` and ``seed``."""

    name: str
    check: str
    params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    def key(self, profile: str) -> str:
        """Identity used by ``--resume``: same key -> same computation."""
        items = ",".join(f"{k}={self.params[k]!r}" for k in sorted(self.params))
        return f"{profile}|{self.check}|{self.name}|{self.seed}|{items}"


def builtin_scenarios(profile: str) -> list[Scenario]:
    """The built-in scenario of every registered check for ``profile`` ('quick' or 'thorough').

    Raises:
      ValueError: unknown profile.
    """
    if profile not in ("quick", "thorough"):
        raise ValueError(f"--profile={profile!r} must be 'quick' or 'thorough'")
    return [Scenario("builtin", cid, dict(spec.defaults[profile]), 0) for cid, spec in registered_checks().items()]


def _import_file(path: Path) -> None:
    if not path.is_file():
        raise FileNotFoundError(f"imports: no such file {path}")
    name = f"contrastive_bounds_user_{path.stem}_{abs(hash(str(path.resolve())))}"
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"imports: cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def _compatible(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, (int, float)):
        return isinstance(value, (int, float))
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple))
    return isinstance(value, type(default))


def _validate(s: dict[str, Any], i: int, checks: dict[str, CheckSpec], profile: str) -> Scenario:
    where = f"scenario[{i}]"
    unknown = set(s) - {"name", "check", "seed", "params"}
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}; allowed: name, check, seed, params")
    if "check" not in s:
        raise ValueError(f"{where}: missing 'check' (a check id)")
    cid = s["check"]
    if cid not in checks:
        close = difflib.get_close_matches(str(cid), list(checks), n=3)
        raise ValueError(f"{where}: unknown check {cid!r}" + (f"; did you mean {', '.join(close)}?" if close else ""))
    name = s.get("name", f"scenario-{i}")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}: name must be a non-empty string")
    seed = s.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"{where}: seed={seed!r} must be an integer in [0, {MAX_SEED}]")
    params = s.get("params", {})
    if not isinstance(params, dict):
        raise ValueError(f"{where}: params must be a table")
    defaults = checks[cid].defaults[profile]
    for k, v in params.items():
        if k not in defaults:
            raise ValueError(f"{where} ({cid}): unknown parameter {k!r}; parameters: {', '.join(sorted(defaults))}")
        if not _compatible(defaults[k], v):
            raise ValueError(f"{where} ({cid}): {k}={v!r} has the wrong type (expected {type(defaults[k]).__name__})")
    merged = {**defaults, **params}
    if checks[cid].validate is not None:
        try:
            checks[cid].validate(merged)
        except ValueError as exc:
            raise ValueError(f"{where} ({cid}): {exc}") from None
    return Scenario(name, cid, merged, seed)


def load_scenarios(path: str | Path, profile: str = "quick") -> list[Scenario]:
    """Read and validate a TOML scenario file (format in the module docstring).

    Raises:
      FileNotFoundError: no such file (or an imported file is missing).
      ValueError: TOML syntax error, unknown check or parameter, wrong types, duplicate names.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"--scenarios: no such file {p}")
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"--scenarios {p}: invalid TOML: {exc}") from None
    unknown = set(data) - {"imports", "scenario"}
    if unknown:
        raise ValueError(f"--scenarios {p}: unknown top-level key(s) {sorted(unknown)}; allowed: imports, scenario")
    for imp in data.get("imports", []):
        _import_file((p.parent / imp).resolve())
    raw = data.get("scenario", [])
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"--scenarios {p}: no [[scenario]] tables")
    checks = registered_checks()
    out = [_validate(s, i, checks, profile) for i, s in enumerate(raw)]
    names = [(s.check, s.name) for s in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"--scenarios {p}: duplicate scenario name(s) {sorted(dup)}")
    return out


def select(scenarios: list[Scenario], pattern: str | None) -> list[Scenario]:
    """Scenarios whose check id matches ``pattern`` (glob, or substring when no wildcard).

    Raises:
      ValueError: the pattern matches nothing (the message lists the ids).
    """
    if not pattern:
        return scenarios
    glob = any(ch in pattern for ch in "*?[")
    chosen = [s for s in scenarios if (fnmatch.fnmatch(s.check, pattern) if glob else pattern in s.check)]
    if not chosen:
        ids = ", ".join(sorted({s.check for s in scenarios}))
        raise ValueError(f"--only={pattern!r} matches no check; checks: {ids}")
    return chosen
