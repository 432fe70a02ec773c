"""A ``holds`` means an informative bound held by a check that could have failed.

A bound no better than the trivial bound is ``uninformative``; a stochastic check whose interval at
its sample size cannot reach a deviation it must detect is ``inconclusive`` with the samples that
would decide; ``check --strict`` makes uninformative and vacuous fail; every verdict has its colour.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.checks._outcome import FAILING, FAILING_STRICT, VERDICTS, Outcome
from contrastive_bounds.properties.checks._verdicts import compare_band, compare_lower, compare_upper
from contrastive_bounds.properties.checks._registry import registered_checks
from contrastive_bounds.properties.checks._verdicts import POWER_TARGET, power_against, samples_for_power
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties._report import VERDICT_COLOURS

runner = CliRunner()


def _run(check_id: str, **overrides):
    spec = registered_checks()[check_id]
    return spec.fn({**spec.defaults["quick"], **overrides}, 0)


def test_bound_above_its_trivial_value_is_uninformative_not_holds():
    """Upper bounds at or above the trivial bound (as a value or beyond float64), lower bounds at or below."""
    assert compare_upper(6.9e7, 0.2, trivial=4000.0).verdict == "uninformative"
    assert compare_upper(None, 0.2, bound_log10=400.0, trivial=4000.0).verdict == "uninformative"
    assert compare_upper(10.0, 0.2, trivial=4000.0).verdict == "holds"
    assert compare_upper(10.0, 20.0, trivial=4.0).verdict == "violated"  # a violation is never hidden
    assert compare_lower(-0.5, 0.3, trivial=0.0).verdict == "uninformative"  # CKA >= -0.5 says nothing
    assert compare_lower(0.2, 0.3, trivial=0.0).verdict == "holds"
    out = compare_upper(6.9e7, 0.2, trivial=4000.0)
    assert "trivial bound 4000" in out.summary and out.trivial_bound == 4000.0


@pytest.mark.slow
def test_theorem1_in_the_quick_profile_is_uninformative():
    """The reported case: Theorem 1 at 6.9e7 against a trivial bound of ~4000 was a green `holds`."""
    out = _run("B4.theorem1")
    m = 2 * registered_checks()["B4.theorem1"].defaults["quick"]["num_samples"]  # two views of each sample
    assert out.verdict == "uninformative"
    assert out.trivial_bound == pytest.approx(2 * math.sqrt(m * (m - 1)), rel=1e-12)
    assert out.bound > out.trivial_bound
    labels = [s.label for s in out.plots[0].series]
    assert any("trivial bound" in lab for lab in labels)  # the figure shows it


@pytest.mark.slow
def test_trapped_fraction_band_below_the_resolution_of_1024_chains_is_inconclusive():
    """A4.convergence at T = 2/log(t + 2) (its former parameters): Kramers band [0, 1e-4] cannot be resolved by
    1 024 chains (interval [0, 0.007]): inconclusive with the samples that would decide. At its parameters now,
    T = 2/log(t + 500), the band at the horizon is about [0.14, 0.24] and the same 1 024 chains decide it."""
    out = _run("A4.convergence", t0=2.0)
    assert out.verdict == "inconclusive"
    assert out.power < POWER_TARGET and out.samples_needed > 1024 * 100
    assert "could not have failed at 1024 samples" in out.summary
    now = _run("A4.convergence")
    assert now.verdict == "holds" and now.power >= POWER_TARGET and now.band[1] - now.band[0] > 0.05


@pytest.mark.slow
def test_vmf_at_16_chains_and_large_step_is_inconclusive_while_the_default_holds():
    """A1.vmf at 16 chains and h = 0.5 (a +0.10 O(h) bias) cannot see a 20% error: inconclusive."""
    small = _run("A1.vmf", chains=16, step_size=0.5)
    assert small.verdict == "inconclusive" and small.samples_needed > 16
    assert small.details["bias_h"] > 0.05
    assert _run("A1.vmf").verdict == "holds"  # 512 chains: decided


def test_power_formula_matches_a_simulated_test():
    """power_against is the rejection rate of the interval test when the truth sits `detect` beyond the edge."""
    rng = np.random.default_rng(0)
    alpha, se, d = 1e-3, 0.01, 0.045
    z = 3.2905267314918945  # Phi^-1(1 - alpha/2)
    est = 1.0 + d + se * rng.standard_normal(400_000)
    simulated = float(np.mean(est - z * se > 1.0))
    assert power_against(z * se, d, alpha) == pytest.approx(simulated, abs=4 * math.sqrt(0.25 / 400_000))
    n = samples_for_power(100, z * se, d, alpha, target=0.9)
    assert power_against(z * se * math.sqrt(100 / n), d, alpha) >= 0.9 > power_against(
        z * se * math.sqrt(100 / (n - 2)), d, alpha)


def test_band_comparison_and_hand_built_outcomes_get_the_same_rules():
    """compare_band decides holds / violated / inconclusive; a registered check's hand-built Outcome is
    assessed the same way (the runner never sees an unpowered holds)."""
    assert compare_band(0.5, (0.45, 0.55), 0.5, (0.48, 0.52), samples=4000, false_alarm=1e-3).verdict == "holds"
    assert compare_band(0.5, (0.45, 0.55), 0.7, (0.68, 0.72), samples=4000, false_alarm=1e-3).verdict == "violated"
    weak = compare_band(0.5, (0.45, 0.55), 0.5, (0.2, 0.8), samples=30, false_alarm=1e-3)
    assert weak.verdict == "inconclusive" and weak.samples_needed > 30
    from contrastive_bounds.properties.checks._framework import check

    @check("verdicts.handbuilt", theorem="t", statement="s", paper="A", quick={})
    def handbuilt(params, seed):
        return Outcome("holds", "tiny band", bound=3e-6, band=(1e-6, 1e-5), empirical=0.0, interval=(0.0, 0.0074),
                       false_alarm=1e-3, samples=1024)

    assert registered_checks()["verdicts.handbuilt"].fn({}, 0).verdict == "inconclusive"


CHECKS = '''
from contrastive_bounds.properties.checks._framework import check, compare_upper

@check("strict.loose", theorem="t", statement="x <= huge", paper="B", quick={"bound": 1e9})
def loose(params, seed):
    return compare_upper(float(params["bound"]), 0.5, trivial=2.0)
'''


def test_strict_makes_uninformative_fail_and_the_report_says_so(tmp_path: Path):
    """Exit 0 by default (it held), 1 under --strict; the JSON, the table and the report show the verdict."""
    (tmp_path / "c.py").write_text(CHECKS)
    f = tmp_path / "s.toml"
    f.write_text('imports = ["c.py"]\n[[scenario]]\nname = "loose"\ncheck = "strict.loose"\n')
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o"), "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["results"][0]["outcome"]["verdict"] == "uninformative"
    res = runner.invoke(app, ["check", "--scenarios", str(f), "--out", str(tmp_path / "o"), "--strict"])
    assert res.exit_code == 1 and "uninformative" in res.output
    md = (tmp_path / "o" / "report.md").read_text()
    assert "1 uninformative" in md and "strict (uninformative, vacuous and inconclusive fail)" in md
    assert md.splitlines()[0] == ("# contrastive-bounds check report: 1 check, 1 of which could not have failed "
                                  "(uninformative 1); 1 failing; exit code 1")


def test_every_verdict_has_its_own_colour_and_exit_policy():
    """Distinct colours for distinct verdicts; only violated fails by default, strict fails every verdict but holds."""
    assert set(VERDICTS) == {"holds", "uninformative", "vacuous", "inconclusive", "violated"}
    colours = [VERDICT_COLOURS[v] for v in (*VERDICTS, "error")]
    assert len(set(colours[:-1])) == len(VERDICTS)
    assert FAILING == {"violated"} and FAILING_STRICT == set(VERDICTS) - {"holds"}
