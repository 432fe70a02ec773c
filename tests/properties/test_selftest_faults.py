"""The self-test's fault registry and runner (properties/selftest): every fault is real, every registered check
has a witness fault (a new check without one fails here), and the runner and the command line report catches,
misses and unwitnessed checks with the right exit code, with a progress line per run."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.checks._framework import check, defined_checks
from contrastive_bounds.properties.checks._verdicts import compare_upper
from contrastive_bounds.properties.checks._registry import CHECK_MODULES, registered_checks
from contrastive_bounds.properties.cli._app import app
from contrastive_bounds.properties.selftest import (FAULTS, KINDS, Fault, Substitution, get_fault, run_self_test,
                                                    select_faults, substituted, unwitnessed, witnesses_of)
from contrastive_bounds.properties.selftest._hook import resolve_target


@pytest.mark.slow
def test_every_fault_targets_something_that_exists_and_names_registered_checks():
    """A fault whose target moved would silently test nothing: every target resolves and replaces >= 1 binding;
    every witness is among the fault's checks."""
    checks = registered_checks()
    assert len({f.id for f in FAULTS}) == len(FAULTS)
    for f in FAULTS:
        assert f.kind in KINDS and f.checks and all(c in checks for c in f.checks), f.id
        assert f.witnesses and set(f.witnesses) <= set(f.checks), f.id
        for s in f.substitutions:
            resolve_target(s.target)
        with substituted(*f.substitutions) as replaced:
            assert replaced, f.id


def test_every_built_in_check_has_a_witness_fault():
    """The registry enumerated: each built-in check id is a declared witness of at least one fault, so a new check
    nobody has seen fail turns this test red (declare a fault that turns it red in properties/selftest/_faults.py)."""
    builtin = {cid for cid, spec in registered_checks().items()
               if spec.fn.__wrapped__.__module__ in CHECK_MODULES}
    assert len(builtin) >= 36
    assert unwitnessed(sorted(builtin)) == []
    assert witnesses_of("A8.6_dimension") and witnesses_of("B9.theorem1_real")


def test_a_check_without_a_witness_is_reported_unwitnessed():
    """A check defined without a fault is exactly what unwitnessed() returns (the rule above would fail on it)."""

    @check("selftest.no_witness", theorem="t", statement="s", paper="B", quick={})
    def no_witness(params, seed):
        return compare_upper(1.0, 0.5)

    try:
        assert unwitnessed(["selftest.no_witness", "B4.theorem1"]) == ["selftest.no_witness"]
    finally:
        import contrastive_bounds.properties.checks._framework as framework

        framework._CHECKS.pop("selftest.no_witness", None)
    assert "selftest.no_witness" not in defined_checks()


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
    with pytest.raises(ValueError, match="not among its checks"):
        Fault("bad", "values", "x", (), ("A3.critical_height",), ("A2.schedule_values",))


@pytest.mark.slow
def test_a_harmless_fault_is_reported_missed_with_exit_code_1():
    """The runner must not call a fault caught when nothing changes (identity substitution): missed, its declared
    witness stayed green, exit code 1."""
    noop = Fault("noop", "values", "identity", (Substitution("contrastive_bounds.theory._alignment_values:cka_lower", lambda f: f),),
                 ("A3.critical_height",))
    res = run_self_test([noop])
    assert res.baseline_ok and res.missed and res.exit_code == 1
    assert res.faults[0].runs[0].verdict == "holds" and res.faults[0].missed_witnesses == ["A3.critical_height"]


def test_a_full_run_fails_on_checks_no_fault_turned_red():
    """full=True: every registered check must be turned red by some fault; with one fault, the others are listed
    as unwitnessed and the exit code is 1 although that fault was caught (deterministically)."""
    res = run_self_test([get_fault("barrier.unrefined")], full=True)
    assert res.faults[0].caught_by == ["A3.critical_height"] and res.faults[0].runs[0].deterministic
    assert "A3.critical_height" not in res.unwitnessed and "B4.theorem1" in res.unwitnessed
    assert res.exit_code == 1
    assert res.matrix()["A3.critical_height"] == {"barrier.unrefined": "violated*"}


def test_cli_self_test_prints_progress_the_matrix_and_writes_its_files(tmp_path):
    """`check --self-test --only ...`: one progress line per run, exit 0 when every selected fault is caught by its
    witnesses, self-test.md with the check table, the fault table and the matrix, self-test.json with the matrix."""
    out = tmp_path / "st"
    res = CliRunner().invoke(app, ["check", "--self-test", "--only", "schedule.author_constant", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "[  1/2] baseline: A2.schedule_values holds" in res.output
    assert "[  2/2] schedule.author_constant: A2.schedule_values violated (deterministic)" in res.output
    data = json.loads((out / "self-test.json").read_text())
    assert data["exit_code"] == 0 and data["faults"][0]["caught_by"] == ["A2.schedule_values"]
    assert data["matrix"] == {"A2.schedule_values": {"schedule.author_constant": "violated*"}}
    assert data["environment"]["cpus"] >= 1 and "load_start" in data["environment"]
    md = (out / "self-test.md").read_text()
    assert "| `A2.schedule_values` | `schedule.author_constant` |" in md and "## Matrix" in md
    assert "| `A2.schedule_values` | ● |" in md
    bad = CliRunner().invoke(app, ["check", "--self-test", "--only", "nothing-like-this", "--out", str(out)])
    assert bad.exit_code == 2 and "matches no built-in fault" in bad.output


def test_ctrl_c_during_the_self_test_keeps_what_finished_and_exits_130(tmp_path):
    """A KeyboardInterrupt inside a fault's check (Ctrl-C): the substitutions are undone, the baseline and the
    finished runs are written to self-test.md / self-test.json marked interrupted, and the command exits 130."""
    import contrastive_bounds.numerics.landscapes._barriers as barriers

    def interrupt(original):
        def circle_barrier(*a, **k):
            raise KeyboardInterrupt
        return circle_barrier

    stop = Fault("stop", "landscape", "Ctrl-C", (Substitution("contrastive_bounds.numerics.landscapes._barriers:circle_barrier",
                                                               interrupt),), ("A3.critical_height",))
    original = barriers.circle_barrier
    with substituted(Substitution("contrastive_bounds.properties.selftest._faults:select_faults",
                                  lambda f: (lambda only: [get_fault("schedule.author_constant"), stop]))):
        res = CliRunner().invoke(app, ["check", "--self-test", "--only", "x", "--out", str(tmp_path)])
    assert res.exit_code == 130, res.output
    assert "interrupted: 2 of 2 faults started" in res.output
    assert barriers.circle_barrier is original  # restored
    data = json.loads((tmp_path / "self-test.json").read_text())
    assert data["interrupted"] is True and data["exit_code"] == 1
    assert [f["id"] for f in data["faults"]] == ["schedule.author_constant", "stop"]
    assert data["faults"][0]["caught_by"] == ["A2.schedule_values"] and data["faults"][1]["runs"] == []
    assert "INTERRUPTED (partial)" in (tmp_path / "self-test.md").read_text()
