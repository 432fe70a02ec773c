"""Run scenarios, apply Holm across the stochastic checks, save results atomically, resume.

``results.json`` holds one record per (check id, scenario name). It is rewritten (temp file +
``os.replace``) after every check, so an interrupted run loses at most the check in flight.
``resume=True`` merges: a finished record whose computation is unchanged (same profile, parameters
and seed) is reused, a changed or crashed one is re-run and replaced, and every record of the earlier
run that this run did not select is kept as it was. A resume under another profile is refused
(naming both profiles) rather than mixing profiles in one report. Nothing is ever dropped: a run
without ``resume`` into a folder whose results.json holds records this run does not select (a partial
run over a fuller one) is refused before anything runs (:func:`records_a_fresh_run_would_drop`).
"""

from __future__ import annotations

import json
import math
import platform
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from contrastive_bounds.numerics._filemode import probe_writable_folder, write_atomically

from contrastive_bounds.properties.checks._outcome import FAILING, FAILING_STRICT, Outcome
from contrastive_bounds.properties.checks._framework import CheckResult
from contrastive_bounds.properties.checks._registry import registered_checks
from ._scenarios import Scenario
from ._stats import DEFAULT_SUITE_ALPHA, holm

__all__ = ["run_suite", "SuiteResult", "SuiteInterrupted", "atomic_write_text", "atomic_write_bytes",
           "ensure_writable_folder", "versions", "load_results", "load_suite", "write_results", "record_id",
           "resumable_records", "records_a_fresh_run_would_drop"]


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
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, ``os.replace``), through the
    toolkit's one atomic writer, :func:`contrastive_bounds.numerics.write_atomically`.

    The file gets the mode an ordinary ``open(path, "w")`` would give it (``0o666 & ~umask``), not
    ``mkstemp``'s private 0600: reports must be readable by a CI job or in a shared folder.

    Raises:
      OSError: the folder cannot be created or the file cannot be written (disk full, read-only).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data, prefix=f".{path.name}.", suffix=".tmp", fsync=True)


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


def record_id(r: CheckResult) -> tuple[str, str]:
    """Identity of a record in ``results.json``: ``(check id, scenario name)`` (one record each)."""
    return (r.check, r.scenario)


def _label(r: CheckResult) -> str:
    return r.check if r.scenario == "builtin" else f"{r.check} ({r.scenario})"


@dataclass
class SuiteResult:
    """All records of a results.json (this run's and, after a resume, the earlier run's) and the
    suite-level decision.

    Attributes:
      results: every record, in file order.
      alpha: the suite's family-wise false-alarm probability (Holm).
      profile: ``quick`` or ``thorough``.
      reused: labels of finished records of the earlier run taken over unchanged (``--resume``).
      kept: labels of earlier records this run did not select, kept as they were (``--resume``).
      rerun: labels of earlier records re-run because their parameters or seed changed or they crashed.
      strict: ``uninformative``, ``vacuous`` and ``inconclusive`` count as failures (``check --strict``).
    """

    results: list[CheckResult]
    alpha: float
    profile: str
    reused: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    rerun: list[str] = field(default_factory=list)
    strict: bool = False

    @property
    def failed(self) -> list[CheckResult]:
        """Records that make the run fail: violated or crashed (and, with ``strict``, every verdict but holds)."""
        bad = FAILING_STRICT if self.strict else FAILING
        return [r for r in self.results if r.outcome.verdict in bad or r.error]

    @property
    def violated(self) -> list[CheckResult]:
        """Records whose bound is violated or whose check crashed."""
        return [r for r in self.results if r.outcome.verdict == "violated" or r.error]

    @property
    def exit_code(self) -> int:
        """0 when nothing in :attr:`failed`, 1 otherwise (inconclusive fails only under ``strict``; see
        docs/report.md)."""
        return 1 if self.failed else 0


def load_results(path: Path) -> list[CheckResult]:
    """Read ``results.json`` (raises ValueError naming the file when it is not ours)."""
    return load_suite(path).results


def load_suite(path: Path) -> SuiteResult:
    """Read ``results.json`` back into a :class:`SuiteResult` (records, profile, suite alpha).

    Raises:
      ValueError: naming the file when it is not a results.json written by contrastive-bounds.
      OSError: the file cannot be read.
    """
    try:
        data = json.loads(Path(path).read_text())
        records = [CheckResult.from_dict(d) for d in data["results"]]
        return SuiteResult(records, float(data.get("suite_alpha", DEFAULT_SUITE_ALPHA)), str(data.get("profile", "quick")))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"{path} is not a results.json written by contrastive-bounds ({exc})") from None


def write_results(path: Path, suite: SuiteResult) -> None:
    """Write ``suite`` to ``path`` (``results.json``) atomically; non-finite floats become null."""
    payload = {"profile": suite.profile, "suite_alpha": suite.alpha, "versions": versions(),
               "results": [_clean(r.to_dict()) for r in suite.results]}
    atomic_write_text(path, json.dumps(payload, indent=1))


def _apply_holm(results: list[CheckResult], alpha: float) -> None:
    """Holm across every stochastic record of the file, from each record's verdict before Holm (so a
    merged file is corrected as one family, and re-applying is idempotent).

    Holm corrects the stochastic part only: a ``violated`` that a deterministic condition caused
    (``Outcome.failed_conditions``: a premise, the registry, a reference, a second implementation,
    finiteness) stays ``violated`` whatever the p-value; only a ``violated`` resting on the stochastic
    test alone becomes ``inconclusive`` when Holm does not reject it. A p-value that is not a number
    counts as 1 in the family (the record is already ``violated`` by its ``finite`` condition)."""
    stochastic = [r for r in results if r.outcome.p_value is not None and not r.error]
    for r in stochastic:
        d = r.outcome.details
        if "verdict_before_holm" in d:
            r.outcome.verdict, r.outcome.summary = d["verdict_before_holm"], d["summary_before_holm"]
        else:
            d["verdict_before_holm"], d["summary_before_holm"] = r.outcome.verdict, r.outcome.summary
    if not stochastic:
        return
    pvals = [r.outcome.p_value for r in stochastic]
    rejected = holm([1.0 if p != p else min(max(p, 0.0), 1.0) for p in pvals], alpha)
    for r, rej in zip(stochastic, rejected):
        r.outcome.details["holm_rejected"] = rej
        r.outcome.details["suite_alpha"] = alpha
        if r.outcome.failed_conditions:
            r.outcome.details["holm_applies"] = False  # deterministic: Holm does not speak to it
            r.outcome.verdict = "violated"
            continue
        if r.outcome.verdict == "violated" and not rej:
            r.outcome.verdict = "inconclusive"
            r.outcome.summary += f" (not significant after Holm correction at suite alpha {alpha:g})"


class SuiteInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_suite`: every finished record is already saved in ``path``.

    Attributes:
      path: the results.json holding the finished records.
      finished: checks of this run finished (run or reused) before the interrupt.
      total: checks this run selected.
    """

    def __init__(self, path: Path, finished: int, total: int) -> None:
        super().__init__(f"interrupted after {finished} of {total} checks; finished records are in {path}")
        self.path, self.finished, self.total = path, finished, total


def resumable_records(path: Path, profile: str) -> list[CheckResult]:
    """Records of an earlier run in ``path`` (results.json) that a ``--resume`` under ``profile`` merges with.

    Returns ``[]`` when there is no such file.

    Raises:
      ValueError: the file is not a results.json of ours, or holds a run under another profile (the
        message names both profiles and what to do).
    """
    if not path.exists():
        return []
    old = load_suite(path)
    if old.results and old.profile != profile:
        raise ValueError(f"--resume: {path} holds a run with --profile {old.profile}, this run asks for --profile "
                         f"{profile}; no record could be reused and one report would mix profiles: resume with "
                         f"--profile {old.profile}, or write to another --out")
    return old.results


def records_a_fresh_run_would_drop(path: Path, scenarios: list[Scenario]) -> list[str]:
    """Labels of the records of ``path`` (an earlier results.json) that a run of ``scenarios`` without
    ``--resume`` would drop: the ones it does not select. ``[]`` when there is no such file.

    Raises:
      ValueError: the file is not a results.json of ours (naming it).
    """
    if not Path(path).exists():
        return []
    selected = {(sc.check, sc.name) for sc in scenarios}
    return [_label(r) for r in load_suite(path).results if record_id(r) not in selected]


def run_suite(scenarios: list[Scenario], *, profile: str, out_dir: Path, resume: bool = False,
              alpha: float = DEFAULT_SUITE_ALPHA, strict: bool = False,
              on_start: Callable[[Scenario, int, int], None] | None = None,
              on_done: Callable[[CheckResult], None] | None = None) -> SuiteResult:
    """Run ``scenarios`` in order and return every record (also written to ``out_dir/results.json``).

    Turns on JAX's float64 mode for the process (checks compare bounds in float64).

    Args:
      scenarios: what to run (see :mod:`._scenarios`).
      profile: 'quick' or 'thorough' (recorded, and part of the resume key).
      out_dir: folder for results.json (created; must be writable).
      resume: merge with an earlier results.json in ``out_dir``: reuse its finished records whose
        profile, parameters and seed match, re-run the others, keep the records this run does not
        select (see the module docstring).
      alpha: the suite's family-wise false-alarm probability for Holm's correction.
      strict: count ``uninformative``, ``vacuous`` and ``inconclusive`` as failures in the exit code.
      on_start, on_done: progress callbacks.

    Raises:
      ValueError: ``out_dir`` is not a folder, cannot be created or is not writable (checked before
        any check runs); an existing results.json is not ours, or was written under another
        profile (with ``resume``), or (without ``resume``) holds records this run does not select.
      SuiteInterrupted: Ctrl-C; the finished records are saved.
      OSError: writing results.json failed during the run (disk full, folder removed).
    """
    from contrastive_bounds.numerics.langevin._runlog import recorded_runs, summarize_runs
    from contrastive_bounds.numerics._precision import enable_x64

    ensure_writable_folder(out_dir, "out_dir")  # fail before the run, not after the work is done
    path = out_dir / "results.json"
    earlier = resumable_records(path, profile) if resume else []
    if not resume:
        dropped = records_a_fresh_run_would_drop(path, scenarios)
        if dropped:
            raise ValueError(f"out_dir={out_dir}: {path} holds {len(dropped)} record(s) this run does not select "
                             f"({', '.join(dropped[:6])}{', ...' if len(dropped) > 6 else ''}); a partial run would "
                             "replace them: pass resume=True to merge, or write to another out_dir")
    enable_x64()  # the main job compares bounds in float64 (docs/design.md, Precision); our entry point
    checks = registered_checks()
    merged: dict[tuple[str, str], CheckResult] = {record_id(r): r for r in earlier}
    suite = SuiteResult([], alpha, profile, strict=strict)
    selected = {(sc.check, sc.name) for sc in scenarios}
    suite.kept = [_label(r) for r in earlier if record_id(r) not in selected]
    vers = versions()
    finished = 0
    try:
        for i, sc in enumerate(scenarios):
            rid = (sc.check, sc.name)
            old = merged.get(rid)
            if old is not None and not old.error and Scenario(old.scenario, old.check, old.params, old.seed).key(
                    old.profile) == sc.key(profile):
                suite.reused.append(_label(old))
                finished += 1
                if on_done:
                    on_done(old)
                continue
            if old is not None:
                suite.rerun.append(_label(old))
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
            merged[rid] = rec  # replaces in place (dict order), or appends
            suite.results = list(merged.values())
            write_results(path, suite)
            finished += 1
            if on_done:
                on_done(rec)
    except KeyboardInterrupt:
        raise SuiteInterrupted(path, finished, len(scenarios)) from None
    suite.results = list(merged.values())
    _apply_holm(suite.results, alpha)
    write_results(path, suite)
    return suite
