"""Runner of ``contrastive-bounds check --self-test``: the main job's checks under each built-in fault.

For each fault of :mod:`._faults` (or a selection), the checks it names are run with their quick (or
thorough) defaults inside :func:`~._hook.substituted`. A check turns *red* under a fault when it reports
``violated`` because a deterministic condition failed (a premise, the registry, a reference value, a
second implementation, finiteness: no p-value can excuse it), or ``violated`` with a p-value that
survives the main job's Holm correction (at most ``alpha / m``, m the number of registered checks:
the first Holm step, so a catch here is a catch in the main job whatever the other checks say), or
when it fails with an error. A fault is *caught* when one of its checks turns red; a check is
*witnessed* when some fault turned it red.

Before any fault, every check a selected fault names runs once without faults (the *baseline*): a
self-test whose baseline is not green proves nothing, and says so. The result is the check × fault
matrix (:meth:`SelfTestResult.matrix`); the self-test passes (exit 0) when the baseline is green, every
fault is caught, every declared witness turned red, and (a full run) every registered check was turned
red by some fault.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from contrastive_bounds.properties.selftest._faults import Fault
from contrastive_bounds.properties.selftest._hook import substituted

__all__ = ["CheckRun", "FaultResult", "SelfTestResult", "SelfTestInterrupted", "run_self_test", "run_check"]


@dataclass
class CheckRun:
    """One check's run (under a fault, or in the baseline).

    Attributes:
      caught: the run is red (see the module docstring); deterministic: it is red by a failed
        deterministic condition (Holm cannot touch it).
    """

    check: str
    verdict: str
    p_value: float | None
    seconds: float
    summary: str
    error: str | None = None
    caught: bool = False
    deterministic: bool = False


@dataclass
class FaultResult:
    """A fault, the bindings it replaced, its declared witnesses and every check run under it."""

    id: str
    kind: str
    description: str
    replaced: list[str]
    witnesses: list[str] = field(default_factory=list)
    runs: list[CheckRun] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def caught_by(self) -> list[str]:
        """Ids of the checks that caught the fault."""
        return [r.check for r in self.runs if r.caught]

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)

    @property
    def missed_witnesses(self) -> list[str]:
        """Declared witnesses that did not turn red under this fault."""
        red = set(self.caught_by)
        return [c for c in self.witnesses if c not in red and any(r.check == c for r in self.runs)]


@dataclass
class SelfTestResult:
    """The whole self-test: baseline runs, one :class:`FaultResult` per fault, timing and threshold.

    Attributes:
      checks: every registered check id (the rows of the matrix).
      full: every built-in fault ran (then an unwitnessed check fails the self-test).
      interrupted: Ctrl-C stopped the run (the result holds what finished).
    """

    profile: str
    seed: int
    alpha_per_check: float
    baseline: list[CheckRun]
    faults: list[FaultResult]
    seconds: float
    checks: list[str] = field(default_factory=list)
    full: bool = False
    interrupted: bool = False

    @property
    def baseline_ok(self) -> bool:
        """Whether every check was green (not violated, no error) without faults."""
        return all(r.verdict != "violated" and r.error is None for r in self.baseline)

    @property
    def missed(self) -> list[FaultResult]:
        return [f for f in self.faults if not f.caught]

    @property
    def witnessed(self) -> dict[str, list[str]]:
        """check id -> the faults that turned it red (every check of :attr:`checks`, possibly ``[]``)."""
        out: dict[str, list[str]] = {c: [] for c in self.checks}
        for f in self.faults:
            for c in f.caught_by:
                out.setdefault(c, []).append(f.id)
        return out

    @property
    def unwitnessed(self) -> list[str]:
        """Checks no fault turned red (a failure of a full run: nothing showed that they can fail)."""
        return [c for c, fs in self.witnessed.items() if not fs]

    def matrix(self) -> dict[str, dict[str, str]]:
        """check -> fault -> verdict of the check under the fault (``"violated*"`` when red; absent: not run)."""
        out: dict[str, dict[str, str]] = {c: {} for c in self.checks}
        for f in self.faults:
            for r in f.runs:
                out.setdefault(r.check, {})[f.id] = r.verdict + ("*" if r.caught else "")
        return out

    @property
    def exit_code(self) -> int:
        """0 when the baseline is green, every fault caught, every declared witness red and (full run) every
        check witnessed; else 1."""
        ok = self.baseline_ok and not self.missed and not any(f.missed_witnesses for f in self.faults)
        if self.full:
            ok = ok and not self.unwitnessed
        return 0 if ok and not self.interrupted else 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (with the matrix and the witnesses of every check)."""
        return {"profile": self.profile, "seed": self.seed, "alpha_per_check": self.alpha_per_check,
                "seconds": self.seconds, "baseline_ok": self.baseline_ok, "exit_code": self.exit_code,
                "full": self.full, "interrupted": self.interrupted, "unwitnessed": self.unwitnessed,
                "witnessed": self.witnessed, "matrix": self.matrix(),
                "baseline": [asdict(r) for r in self.baseline],
                "faults": [{**asdict(f), "caught": f.caught, "caught_by": f.caught_by,
                            "missed_witnesses": f.missed_witnesses} for f in self.faults]}


class SelfTestInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_self_test`; ``result`` holds every run that finished."""

    def __init__(self, result: SelfTestResult) -> None:
        super().__init__(f"self-test interrupted after {len(result.faults)} faults")
        self.result = result


def run_check(check_id: str, profile: str, seed: int, alpha_per_check: float) -> CheckRun:
    """Run one registered check with its built-in parameters; never raises (an error is recorded)."""
    from contrastive_bounds.properties.checks._registry import registered_checks

    spec = registered_checks()[check_id]
    t0 = time.perf_counter()
    try:
        out = spec.fn(dict(spec.defaults[profile]), seed)
    except Exception as exc:  # a crash makes the main job exit 1: it counts as caught
        return CheckRun(check_id, "error", None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}",
                        error=traceback.format_exc(limit=4), caught=True)
    deterministic = bool(out.failed_conditions)
    significant = deterministic or out.p_value is None or out.p_value <= alpha_per_check
    return CheckRun(check_id, out.verdict, out.p_value, time.perf_counter() - t0, out.summary,
                    caught=out.verdict == "violated" and significant, deterministic=deterministic)


def run_self_test(faults: Sequence[Fault], *, profile: str = "quick", seed: int = 0, full: bool = False,
                  on_progress: Callable[[str], None] | None = None,
                  on_run: Callable[[str, CheckRun, int, int], None] | None = None) -> SelfTestResult:
    """Run the baseline and every fault of ``faults``.

    Args:
      faults: the faults (see :func:`._faults.select_faults`).
      profile: ``"quick"`` or ``"thorough"`` (the checks' built-in parameters).
      seed: the checks' seed.
      full: ``faults`` is every built-in fault: a registered check that no fault turns red fails the run.
      on_progress: called with a one-line message before each run.
      on_run: called after each run with ``(phase, run, index, total)``; ``phase`` is ``"baseline"`` or
        the fault id.

    Returns:
      :class:`SelfTestResult` (see its ``exit_code``).

    Raises:
      ValueError: an unknown profile, or a fault naming a check that is not registered.
      SelfTestInterrupted: Ctrl-C; its ``result`` holds what finished (substitutions are undone).
    """
    from contrastive_bounds.numerics._precision import enable_x64
    from contrastive_bounds.properties.checks._registry import registered_checks
    from contrastive_bounds.properties._stats import DEFAULT_SUITE_ALPHA

    if profile not in ("quick", "thorough"):
        raise ValueError(f"--profile={profile!r} must be 'quick' or 'thorough'")
    enable_x64()
    checks = registered_checks()
    needed: list[str] = []
    for f in faults:
        for c in f.checks:
            if c not in checks:
                raise ValueError(f"fault {f.id!r} names check {c!r}, which is not registered")
            if c not in needed:
                needed.append(c)
    # the first step of Holm over the suite's stochastic checks (every registered check may be one)
    alpha = DEFAULT_SUITE_ALPHA / max(1, len(checks))
    start = time.perf_counter()
    total = len(needed) + sum(len(f.checks) for f in faults)
    done = 0
    result = SelfTestResult(profile, seed, alpha, [], [], 0.0, checks=sorted(checks) if full else needed, full=full)
    try:
        for c in needed:
            if on_progress:
                on_progress(f"baseline: {c}")
            run = run_check(c, profile, seed, alpha)
            result.baseline.append(run)
            done += 1
            if on_run:
                on_run("baseline", run, done, total)
        for f in faults:
            t0 = time.perf_counter()
            with substituted(*f.substitutions) as replaced:
                fr = FaultResult(f.id, f.kind, f.description, list(replaced), list(f.witnesses or ()))
                result.faults.append(fr)
                for c in f.checks:
                    if on_progress:
                        on_progress(f"{f.id}: {c}")
                    run = run_check(c, profile, seed, alpha)
                    fr.runs.append(run)
                    done += 1
                    if on_run:
                        on_run(f.id, run, done, total)
            fr.seconds = time.perf_counter() - t0
    except KeyboardInterrupt:
        result.interrupted = True
        result.seconds = time.perf_counter() - start
        raise SelfTestInterrupted(result) from None
    result.seconds = time.perf_counter() - start
    return result
