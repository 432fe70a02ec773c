"""A deterministic failure is a failure whatever the p-values: conditions kept apart from the stochastic test.

The main job (`contrastive-bounds check`) runs four real stochastic checks, each with one deterministic
failure injected through the self-test's hook: a false premise (A4.fast_schedules: the theory says the
fast schedules converge), a registry claim with the wrong verdict (A8.1_inverted_condition), values that
disagree with their reference (B4.batch_event: epsilon off), a NaN measurement (A1.vmf). Each test part
passes with a p-value Holm would not reject, so before the conditions existed Holm turned them into a
green ``inconclusive``; now every one is ``violated`` and the job exits 1.
"""

from __future__ import annotations

import dataclasses
import json
import math

from typer.testing import CliRunner

from contrastive_bounds.properties.checks._framework import CheckResult
from contrastive_bounds.properties.checks._outcome import Condition, Outcome
from contrastive_bounds.properties.checks._verdicts import compare_band, compare_upper
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties._runner import SuiteResult, _apply_holm
from contrastive_bounds.properties.selftest import Substitution, substituted
import pytest

runner = CliRunner()
CB = "contrastive_bounds"


def _claim_says_supported(original):
    from contrastive_bounds.theory._claim import Verdict

    def get_claim(name):
        claim = original(name)
        return dataclasses.replace(claim, check=lambda certify: Verdict("supported", "sampled points all agree"))
    return get_claim


def _nan_mean(original):
    return lambda *a, **k: (math.nan, original(*a, **k)[1])


INJECTED = (
    Substitution(f"{CB}.theory._schedules:Schedule.converges",  # premise: "theory says it traps" becomes false
                 lambda f: (lambda self, h: dataclasses.replace(f(self, h), converges=True))),
    Substitution(f"{CB}.theory._registry:get_claim", _claim_says_supported),  # registry: refuted claim -> supported
    Substitution(f"{CB}.theory._alignment_values:epsilon_value", lambda f: (lambda b, t, d: f(b, t, d / 2))),  # reference
    Substitution(f"{CB}.properties.checks._annealing_common:vmf_mean_z3_simulated", _nan_mean),  # NaN
)
EXPECTED = {"A4.fast_schedules": "premise", "A8.1_inverted_condition": "registry", "B4.batch_event": "reference",
            "A1.vmf": "finite"}


@pytest.mark.slow
def test_each_kind_of_deterministic_failure_makes_the_main_job_exit_1(tmp_path):
    """premise, registry, reference, NaN: each record violated with that failed condition, Holm not applied to it
    (details.holm_applies false), the test's own verdict kept in test_verdict, exit code 1."""
    f = tmp_path / "s.toml"
    f.write_text("".join(f'[[scenario]]\nname = "{c}"\ncheck = "{c}"\n' for c in EXPECTED))
    with substituted(*INJECTED):
        res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o"), "--json"])
    assert res.exit_code == 1, res.output
    records = {r["check"]: r["outcome"] for r in json.loads(res.stdout)["results"]}
    for check, kind in EXPECTED.items():
        o = records[check]
        failed = {c["kind"] for c in o["conditions"] if not c["ok"]}
        assert o["verdict"] == "violated" and kind in failed, (check, o["verdict"], failed)
        assert o["p_value"] is None or o["p_value"] > 1e-3 / 4 or kind == "finite", (check, o["p_value"])
        assert o["details"]["holm_applies"] is False
    assert records["A4.fast_schedules"]["test_verdict"] == "holds"  # the band test alone passed
    assert records["A1.vmf"]["p_value"] is None  # NaN is written as null, never a number Holm could weigh


def _record(outcome: Outcome) -> CheckResult:
    return CheckResult("x", "t", "s", "builtin", {}, 0, outcome, 0.1, {}, "quick")


def test_holm_softens_only_the_stochastic_part():
    """Two records violated at p = 0.3: the one whose violation rests on its test becomes inconclusive; the one
    with a failed deterministic condition stays violated (and keeps doing so when Holm is re-applied)."""
    stochastic = Outcome("violated", "interval outside the band", p_value=0.3, false_alarm=1e-3)
    determ = Outcome("violated", "reference disagrees", p_value=0.3, false_alarm=1e-3,
                     conditions=[Condition("reference", "C02 row", False, "1e-3 off")])
    recs = [_record(stochastic), _record(determ)]
    for _ in range(2):
        _apply_holm(recs, 1e-3)
        assert [r.outcome.verdict for r in recs] == ["inconclusive", "violated"]
    assert SuiteResult(recs, 1e-3, "quick").exit_code == 1


def test_require_keeps_the_tests_verdict_and_survives_a_later_overwrite():
    """A failed condition: violated after assess whatever the check wrote later, the test's verdict in test_verdict,
    the summary names the condition; a CheckResult round-trips its conditions through JSON."""
    from contrastive_bounds.properties.checks._verdicts import assess

    out = compare_band(0.5, (0.45, 0.55), 0.5, (0.48, 0.52), samples=4000, false_alarm=1e-3)
    assert out.require("premise", "the schedule satisfies the premise", False, "beta(1) = 0.2") is False
    out.verdict = "holds"  # a later line of a check cannot undo it
    assess(out)
    assert out.verdict == "violated" and out.test_verdict == "holds"
    assert out.summary.startswith("PREMISE FAILED: the schedule satisfies the premise (beta(1) = 0.2)")
    back = CheckResult.from_dict(json.loads(json.dumps(_record(out).to_dict())))
    assert back.outcome.failed_conditions == [Condition("premise", "the schedule satisfies the premise", False,
                                                        "beta(1) = 0.2")]


def test_non_finite_values_are_never_holds():
    """NaN measurement (with and without an interval), NaN bound, a bound in log10 only, infinite bounds."""
    nan = math.nan
    for out in (compare_upper(1.0, nan), compare_upper(1.0, 0.5, (nan, 0.6)), compare_upper(nan, 0.5),
                compare_upper(None, nan, bound_log10=400.0), compare_upper(None, nan, reason="Delta infinite"),
                compare_band(0.5, (0.4, 0.6), nan, (nan, nan), samples=10, false_alarm=1e-3)):
        assert out.verdict == "violated" and [c.kind for c in out.failed_conditions] == ["finite"], out.summary
    assert compare_upper(None, 1e5, bound_log10=3.0).verdict == "violated"  # compared in log10, not waved through
    assert compare_upper(None, 1e2, bound_log10=3.0).verdict == "holds"
    beyond = compare_upper(None, 1e300, bound_log10=400.0)
    assert beyond.verdict == "uninformative" and "beyond float64" in beyond.summary
    assert compare_upper(None, math.inf, bound_log10=400.0).verdict == "violated"
    assert compare_upper(math.inf, 0.5).verdict == "vacuous"
    hand = Outcome("holds", "hand-built", bound=math.inf, empirical=0.5, kind="upper")
    from contrastive_bounds.properties.checks._verdicts import assess

    assert assess(hand).verdict == "vacuous"
