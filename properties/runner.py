"""Run scenarios, apply Holm across the stochastic checks, save results atomically, resume.

``results.json`` is rewritten (temp file + ``os.replace``) after every check, so an interrupted run
loses at most the check in flight; ``resume=True`` skips records whose scenario key matches.
"""

from __future__ import annotations

import json
import math
import os
import platform
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from contrastive_bounds.numerics.filemode import probe_writable_folder, publish_mode

from contrastive_bounds.properties.checks.framework import CheckResult, Outcome
from contrastive_bounds.properties.checks.registry import registered_checks
from .scenarios import Scenario
from .stats import DEFAULT_SUITE_ALPHA, holm

__all__ = ["run_suite", "SuiteResult", "atomic_write_text", "atomic_write_bytes", "ensure_writable_folder", "versions",
           "load_results"]


def ensure_writable_folder(path: Path, name: str) -> Path:
    """Create the folder ``path`` if missing and prove it is writable (create and remove a temp file).

    Called before any check runs, so a bad output folder fails in a second, not after the run.

    Raises:
      ValueError: naming ``name`` (e.g. ``--out``) when ``path`` is not a folder, cannot be created,
        or a file cannot be written in it.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{name}={path} exists and is not a folder")
    why = probe_writable_folder(path)
    if why is not None:
        raise ValueError(f"{name}={path} {why}")
    return path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, ``os.replace``).

    The file gets the mode an ordinary ``open(path, "w")`` would give it (``0o666 & ~umask``), not
    ``mkstemp``'s private 0600: reports must be readable by a CI job or in a shared folder.

    Raises:
      OSError: the folder cannot be created or the file cannot be written (disk full, read-only).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            publish_mode(tmp)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))


def _clean(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and callable(obj.item):
        return _clean(obj.item())
    return obj


def versions() -> dict[str, str]:
    """Versions of the toolkit and the libraries that decide its numbers, and the platform."""
    import jax
    import mpmath
    import numpy
    import sympy

    import contrastive_bounds

    return {"contrastive_bounds": contrastive_bounds.__version__, "python": platform.python_version(),
            "jax": jax.__version__, "numpy": numpy.__version__, "sympy": sympy.__version__,
            "mpmath": mpmath.__version__, "platform": platform.platform(),
            "jax_x64": str(bool(jax.config.jax_enable_x64))}


@dataclass
class SuiteResult:
    """All records of a run and the suite-level decision."""

    results: list[CheckResult]
    alpha: float
    profile: str

    @property
    def violated(self) -> list[CheckResult]:
        return [r for r in self.results if r.outcome.verdict == "violated" or r.error]

    @property
    def exit_code(self) -> int:
        """0 when every asserted statement holds (or is vacuous/inconclusive), 1 otherwise."""
        return 1 if self.violated else 0


def load_results(path: Path) -> list[CheckResult]:
    """Read ``results.json`` (raises ValueError naming the file when it is not ours)."""
    try:
        data = json.loads(path.read_text())
        return [CheckResult.from_dict(d) for d in data["results"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path} is not a results.json written by contrastive-bounds ({exc})") from None


def _write(path: Path, results: list[CheckResult], alpha: float, profile: str) -> None:
    payload = {"profile": profile, "suite_alpha": alpha, "versions": versions(),
               "results": [_clean(r.to_dict()) for r in results]}
    atomic_write_text(path, json.dumps(payload, indent=1))


def _apply_holm(results: list[CheckResult], alpha: float) -> None:
    stochastic = [r for r in results if r.outcome.p_value is not None and not r.error]
    if not stochastic:
        return
    rejected = holm([min(max(r.outcome.p_value, 0.0), 1.0) for r in stochastic], alpha)
    for r, rej in zip(stochastic, rejected):
        r.outcome.details["holm_rejected"] = rej
        r.outcome.details["suite_alpha"] = alpha
        if r.outcome.verdict == "violated" and not rej:
            r.outcome.verdict = "inconclusive"
            r.outcome.summary += f" (not significant after Holm correction at suite alpha {alpha:g})"


def run_suite(scenarios: list[Scenario], *, profile: str, out_dir: Path, resume: bool = False,
              alpha: float = DEFAULT_SUITE_ALPHA,
              on_start: Callable[[Scenario, int, int], None] | None = None,
              on_done: Callable[[CheckResult], None] | None = None) -> SuiteResult:
    """Run ``scenarios`` in order and return every record (also written to ``out_dir/results.json``).

    Turns on JAX's float64 mode for the process (checks compare bounds in float64).

    Args:
      scenarios: what to run (see :mod:`.scenarios`).
      profile: 'quick' or 'thorough' (recorded, and part of the resume key).
      out_dir: folder for results.json (created; must be writable).
      resume: keep finished records of an earlier run with the same keys instead of re-running them.
      alpha: the suite's family-wise false-alarm probability for Holm's correction.
      on_start, on_done: progress callbacks.

    Raises:
      ValueError: ``out_dir`` is not a folder, cannot be created or is not writable (checked before
        any check runs); an existing results.json is not ours (with ``resume``).
      OSError: writing results.json failed during the run (disk full, folder removed).
    """
    from contrastive_bounds.numerics.langevin.runlog import recorded_runs, summarize_runs
    from contrastive_bounds.numerics.precision import enable_x64

    ensure_writable_folder(out_dir, "out_dir")  # fail before the run, not after the work is done
    enable_x64()  # the main job compares bounds in float64 (DESIGN.md, Precision); our entry point
    checks = registered_checks()
    path = out_dir / "results.json"
    done: dict[str, CheckResult] = {}
    if resume and path.exists():
        for r in load_results(path):
            if not r.error:
                done[Scenario(r.scenario, r.check, r.params, r.seed).key(r.profile)] = r
    results: list[CheckResult] = []
    vers = versions()
    for i, sc in enumerate(scenarios):
        key = sc.key(profile)
        if key in done:
            results.append(done[key])
            if on_done:
                on_done(done[key])
            continue
        spec = checks[sc.check]
        if on_start:
            on_start(sc, i, len(scenarios))
        t0 = time.perf_counter()
        error = None
        with recorded_runs() as runs:  # which noise generator / devices the check's simulations used
            try:
                outcome = spec.fn(dict(sc.params), sc.seed)
            except Exception as exc:  # a crashing check is reported, never swallowed
                error = f"{type(exc).__name__}: {exc}"
                outcome = Outcome("inconclusive", f"check raised {error}",
                                  details={"traceback": traceback.format_exc(limit=8)})
        if runs:
            outcome.details.setdefault("simulator", summarize_runs(runs))
        rec = CheckResult(sc.check, spec.theorem, spec.statement, sc.name, dict(sc.params), sc.seed, outcome,
                          time.perf_counter() - t0, vers, profile, error=error)
        results.append(rec)
        _write(path, results, alpha, profile)
        if on_done:
            on_done(rec)
    _apply_holm(results, alpha)
    _write(path, results, alpha, profile)
    return SuiteResult(results, alpha, profile)
