"""The self-test's fault registry and runner (properties/selftest): every fault is real, the runner and
the command line report catches and misses with the right exit code."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.checks.registry import registered_checks
from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.properties.selftest import FAULTS, KINDS, Fault, Substitution, run_self_test, select_faults, substituted
from contrastive_bounds.properties.selftest.hook import resolve_target


def test_every_fault_targets_something_that_exists_and_names_registered_checks():
    """A fault whose target moved would silently test nothing: every target resolves and replaces >= 1 binding."""
    checks = registered_checks()
    assert len({f.id for f in FAULTS}) == len(FAULTS)
    for f in FAULTS:
        assert f.kind in KINDS and f.checks and all(c in checks for c in f.checks), f.id
        for s in f.substitutions:
            resolve_target(s.target)
        with substituted(*f.substitutions) as replaced:
            assert replaced, f.id


def test_every_blind_spot_kind_has_faults():
    """The self-test covers each kind of blind spot with at least two faults."""
    for kind in KINDS:
        assert sum(f.kind == kind for f in FAULTS) >= 2, kind


def test_select_faults_by_id_glob_and_kind():
    assert [f.id for f in select_faults("rsa.spearman")] == ["rsa.spearman"]
    assert {f.kind for f in select_faults("driver-wiring")} == {"driver-wiring"}
    assert len(select_faults("schedule.*")) >= 3
    with pytest.raises(ValueError, match="matches no built-in fault"):
        select_faults("no-such-fault")


def test_a_harmless_fault_is_reported_missed_with_exit_code_1():
    """The runner must not call a fault caught when nothing changes (identity substitution)."""
    noop = Fault("noop", "values", "identity", (Substitution("contrastive_bounds.theory.alignment:cka_lower", lambda f: f),),
                 ("A8.2_finite_time_exponent",))
    res = run_self_test([noop])
    assert res.baseline_ok and res.missed and res.exit_code == 1
    assert res.faults[0].runs[0].verdict == "holds"


def test_cli_self_test_prints_the_table_and_writes_its_files(tmp_path):
    """`check --self-test --only ...` runs the baseline and the fault, exits 0 when caught, writes md and json."""
    out = tmp_path / "st"
    res = CliRunner().invoke(app, ["check", "--self-test", "--only", "seed_exponent.formula", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "seed_exponent.formula" in res.output and "A8.2_finite_time_exponent" in res.output
    data = json.loads((out / "self-test.json").read_text())
    assert data["exit_code"] == 0 and data["faults"][0]["caught_by"] == ["A8.2_finite_time_exponent"]
    assert "| `seed_exponent.formula` |" in (out / "self-test.md").read_text()
    bad = CliRunner().invoke(app, ["check", "--self-test", "--only", "nothing-like-this", "--out", str(out)])
    assert bad.exit_code == 2 and "matches no built-in fault" in bad.output
