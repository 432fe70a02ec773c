"""A command that exits 1 ends with one line saying what failed: which row or task (sweep), which fault or check
(check --self-test); `align theorem1`, `claims` and `check` are tested beside their commands. Once, `align theorem1`
on a hand-made log exited 1 with only a `False` in a table row."""

from types import SimpleNamespace

from contrastive_bounds.properties.cli._sweep import _failure_line
from contrastive_bounds.properties.selftest._report import failure_line


def _row(i, verdict, summary):
    return {"task_index": i, "task_key": f"{i:024x}", "verdict": verdict, "summary": summary}


def test_a_failed_sweep_names_its_violated_rows_and_failed_tasks():
    violated = [_row(3, "violated", "trapped 0.9 [0.8, 0.95] is OUTSIDE the Kramers band [0.1, 0.2] of 0.15")]
    errors = [_row(k, "error", f"RuntimeError: refused x={k}") for k in (0, 5, 6, 7)]
    line = _failure_line(violated, errors)
    assert line.startswith("sweep failed: 1 row(s) violated after Holm's correction: task 3 (")
    assert "OUTSIDE the Kramers band" in line and " | 4 task(s) failed: task 0 (" in line
    assert "task 6 (" in line and "task 7 (" not in line and line.endswith("; and 1 more")
    assert "\n" not in line


def test_a_failed_self_test_says_which_faults_and_checks():
    fault = SimpleNamespace(id="kramers.prefactor_inverted", missed_witnesses=["A5.kramers"])
    result = SimpleNamespace(baseline_ok=False, baseline=[SimpleNamespace(check="B4.theorem1", verdict="violated",
                                                                          error=None),
                                                          SimpleNamespace(check="A3.critical_height", verdict="holds",
                                                                          error="ValueError: x")],
                             missed=[SimpleNamespace(id="descent.l2_dropped")], faults=[fault], full=True,
                             unwitnessed=["B9.proxy_known_case"])
    line = failure_line(result)
    assert line == ("self-test failed: the baseline (no fault) is not green: B4.theorem1 (violated), "
                    "A3.critical_height (crashed); faults no check caught: descent.l2_dropped; declared witnesses "
                    "that stayed green: A5.kramers under kramers.prefactor_inverted; checks no fault turned red: "
                    "B9.proxy_known_case")
