"""Runner of ``contrastive-bounds check --self-test``: the main job's checks under each built-in fault.

For each fault of :mod:`.faults` (or a selection), the checks it names are run with their quick
(or thorough) defaults inside :func:`~.hook.substituted`; the fault is *caught* when one of them
reports ``violated`` with a p-value that survives the main job's Holm correction (at most
``alpha / m``, m the number of stochastic checks of the suite: the first Holm step, so a catch here
is a catch in the main job whatever the other checks say) or fails with an error. Before any fault,
the same checks run once without faults (the *baseline*): a self-test whose baseline is not green
proves nothing, and says so.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

from contrastive_bounds.properties.selftest.faults import Fault
from contrastive_bounds.properties.selftest.hook import substituted

__all__ = ["CheckRun", "FaultResult", "SelfTestResult", "run_self_test", "run_check"]


@dataclass
class CheckRun:
    """One check's run (under a fault, or in the baseline)."""

    check: str
    verdict: str
    p_value: float | None
    seconds: float
    summary: str
    error: str | None = None
    caught: bool = False


@dataclass
class FaultResult:
    """A fault, the bindings it replaced, and every check run under it."""

    id: str
    kind: str
    description: str
    replaced: list[str]
    runs: list[CheckRun] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def caught_by(self) -> list[str]:
        """Ids of the checks that caught the fault."""
        return [r.check for r in self.runs if r.caught]

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


@dataclass
class SelfTestResult:
    """The whole self-test: baseline runs, one :class:`FaultResult` per fault, timing and threshold."""

    profile: str
    seed: int
    alpha_per_check: float
    baseline: list[CheckRun]
    faults: list[FaultResult]
    seconds: float

    @property
    def baseline_ok(self) -> bool:
        """Whether every check was green (not violated, no error) without faults."""
        return all(r.verdict != "violated" and r.error is None for r in self.baseline)

    @property
    def missed(self) -> list[FaultResult]:
        return [f for f in self.faults if not f.caught]

    @property
    def exit_code(self) -> int:
        """0 when the baseline is green and every fault is caught, else 1."""
        return 0 if self.baseline_ok and not self.missed else 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"profile": self.profile, "seed": self.seed, "alpha_per_check": self.alpha_per_check,
                "seconds": self.seconds, "baseline_ok": self.baseline_ok, "exit_code": self.exit_code,
                "baseline": [asdict(r) for r in self.baseline],
                "faults": [{**asdict(f), "caught": f.caught, "caught_by": f.caught_by} for f in self.faults]}


def run_check(check_id: str, profile: str, seed: int, alpha_per_check: float) -> CheckRun:
    """Run one registered check with its built-in parameters; never raises (an error is recorded)."""
    from contrastive_bounds.properties.checks.registry import registered_checks

    spec = registered_checks()[check_id]
    t0 = time.perf_counter()
    try:
        out = spec.fn(dict(spec.defaults[profile]), seed)
    except Exception as exc:  # a crash makes the main job exit 1: it counts as caught
        return CheckRun(check_id, "error", None, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}",
                        error=traceback.format_exc(limit=4), caught=True)
    significant = out.p_value is None or out.p_value <= alpha_per_check
    return CheckRun(check_id, out.verdict, out.p_value, time.perf_counter() - t0, out.summary,
                    caught=out.verdict == "violated" and significant)


def run_self_test(faults: Sequence[Fault], *, profile: str = "quick", seed: int = 0,
                  on_progress: Callable[[str], None] | None = None) -> SelfTestResult:
    """Run the baseline and every fault of ``faults``.

    Args:
      faults: the faults (see :func:`.faults.select_faults`).
      profile: ``"quick"`` or ``"thorough"`` (the checks' built-in parameters).
      seed: the checks' seed.
      on_progress: called with a one-line message before each run.

    Returns:
      :class:`SelfTestResult` (``exit_code`` 0 when the baseline is green and every fault is caught).

    Raises:
      ValueError: an unknown profile, or a fault naming a check that is not registered.
    """
    from contrastive_bounds.numerics.precision import enable_x64
    from contrastive_bounds.properties.checks.registry import registered_checks
    from contrastive_bounds.properties.stats import DEFAULT_SUITE_ALPHA

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
    baseline = []
    for c in needed:
        if on_progress:
            on_progress(f"baseline: {c}")
        baseline.append(run_check(c, profile, seed, alpha))
    results = []
    for f in faults:
        t0 = time.perf_counter()
        with substituted(*f.substitutions) as replaced:
            fr = FaultResult(f.id, f.kind, f.description, list(replaced))
            for c in f.checks:
                if on_progress:
                    on_progress(f"{f.id}: {c}")
                fr.runs.append(run_check(c, profile, seed, alpha))
        fr.seconds = time.perf_counter() - t0
        results.append(fr)
    return SelfTestResult(profile, seed, alpha, baseline, results, time.perf_counter() - start)
