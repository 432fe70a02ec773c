"""Every comparison sign the toolkit prints between two numbers is true of the numbers it prints
(properties/_statements.py and its users): the shared helper computes signs, the scanner finds false ones, every
registered check's outcome and every sweep row is scanned when it is made, no f-string in the package writes a fixed
sign between two formatted values, and the summaries of the built-in sweep kinds over their built-in grids and of the
verdict builders over adversarial numbers contain no inequality their numbers contradict.

Once seen: a seed-table row printed ``success 0.4766 [0.4140, 0.5397] <= Kramers escape 0.4638`` (the template wrote
``<=`` whatever the numbers were)."""

import ast
import math
import os
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from contrastive_bounds.properties._statements import chain_text, compare_text, contradictions, relation

ROOT = Path(__file__).resolve().parents[2]
#: CONTRASTIVE_BOUNDS_SCAN_ALL=1 also runs the landscape sweep grids (minutes each) and every check of the main job
SCAN_ALL = os.environ.get("CONTRASTIVE_BOUNDS_SCAN_ALL") == "1"


@pytest.mark.parametrize("text, false", [
    ("success 0.4766 [0.4140, 0.5397] <= Kramers escape 0.4638; trapped 0.5 [0.4, 0.6] vs Kramers 0.53", ["0.4766"]),
    ("success 0.4366 [0.4140, 0.5397] <= Kramers escape 0.4638", []),
    ("RSA_T 0.3 >= (1-r)/(1+r) = 0.4; prior", ["0.3"]),
    ("RSA_T 0.5 >= (1-r)/(1+r) = 0.4; prior", []),
    ("log10 bounds: L2 -3.0000 <= Theorem-2 form -2.5 <= Theorem 1 -2.7", ["-2.5"]),
    ("value 1.2 <= bound 10^-3.2000 (ratio 10^4.2)", ["1.2"]),
    ("value 1e-4 <= bound 10^-3.2000 (ratio 10^-0.8)", []),
    ("c > H* (here c = 0.5 > H* = 1: converges)", ["0.5"]),
    ("value 0.5 EXCEEDS bound 0.6", ["0.5"]),
    ("x 0.3 is BELOW bound 0.2", ["0.3"]),
    ("gap 3e-3 <= 2e-3, ok", ["3e-3"]),
    ("x 2 <= y 3 (z = 0)", []),
])
def test_the_scanner_finds_exactly_the_false_inequalities(text, false):
    assert [c.left for c in contradictions(text)] == false


@pytest.mark.parametrize("text", [
    "p <= 0.05 (Holm)", "c > H* (the rule)", "batch event (same-class fraction <= pi_max + epsilon at every step): True",
    "success P(V(Z_t) < 0.1) at t = 10: 0.3 [0.2, 0.4] (needs > 1/2)", "S² with N=4 < 5 minima",
    "(rule: far above when >= 2)", "L_NSCL <= L_DCL everywhere", "|ratio - 1| <= 0.5·T for T <= 0.2",
])
def test_signs_without_a_number_on_each_side_claim_nothing(text):
    assert contradictions(text) == []


_FLOATS = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.floats(1e-12, 1e-3), st.sampled_from([0.0, 1.0, -1.0]))


@given(_FLOATS, _FLOATS, st.sampled_from([".4g", ".2e", ".4f", ".6g", ".3g"]), st.booleans())
def test_the_helper_prints_the_sign_the_printed_numbers_show(a, b, spec, weak):
    """Near-equal values are printed with more digits until they differ, so a strict sign never joins equal texts."""
    ta, sign, tb = relation(a, b, spec, weak=weak)
    assert contradictions(f"x {ta} {sign} y {tb}") == []
    assert sign.rstrip("=") in ("<", ">", "") and (sign == "=") == (a == b and not weak)
    if a != b:
        assert ta != tb and (float(ta) < float(tb)) == (a < b)
    assert contradictions(compare_text("left", a, "right", b, spec, weak=weak)) == []


@example([0.0, -2.9148163834853127e-220], False)  # "0.0000 > -0.0000": texts that differ only by a sign read equal
@given(st.lists(_FLOATS, min_size=2, max_size=4), st.booleans())
def test_chained_comparisons_are_true_pair_by_pair(values, weak):
    text = chain_text([(f"v{i}", v) for i, v in enumerate(values)], ".4f", weak=weak)
    assert contradictions(text) == [], text


@given(st.floats(1e-9, 1e9), st.floats(1e-9, 1e9), st.floats(0, 0.5), st.booleans())
def test_the_verdict_builders_print_true_comparisons(bound, empirical, width, exact):
    """compare_upper / compare_lower (plain and log10 bounds) and compare_band, over values on both sides of the bound,
    near it and far from it, with and without an interval."""
    from contrastive_bounds.properties.checks._verdicts import compare_band, compare_lower, compare_upper

    interval = None if exact else (empirical * (1 - width), empirical * (1 + width))
    outs = [compare_upper(bound, empirical, interval, samples=100), compare_lower(bound, empirical, interval, samples=100),
            compare_upper(None, empirical, interval, bound_log10=math.log10(bound), samples=100),
            compare_upper(bound * (1 + 1e-12), empirical),
            compare_band(bound, (bound * 0.9, bound * 1.1), empirical, interval or (empirical, empirical), samples=100,
                         false_alarm=1e-3)]
    for o in outs:
        assert contradictions(o.summary) == [], o.summary


def test_a_check_that_prints_a_false_inequality_is_violated_by_a_statement_condition():
    """The framework scans every registered check's summary and conditions: a printed inequality the printed numbers
    contradict is a failed deterministic condition (verdict violated), whatever the check's own test said."""
    from contrastive_bounds.properties.checks._outcome import Outcome
    from contrastive_bounds.properties.checks._framework import check

    @check("T.false_statement", theorem="t", statement="s", paper="A", quick={})
    def false_statement(params, seed):
        return Outcome("holds", "success 0.4766 [0.4140, 0.5397] <= Kramers escape 0.4638", bound=1.0, empirical=0.5)

    @check("T.false_condition", theorem="t", statement="s", paper="A", quick={})
    def false_condition(params, seed):
        o = Outcome("holds", "fine", bound=1.0, empirical=0.5)
        o.require("premise", "c > H* (here c = 0.5 > H* = 1)", True)
        return o

    @check("T.true_statement", theorem="t", statement="s", paper="A", quick={})
    def true_statement(params, seed):
        return Outcome("holds", "success 0.4366 [0.4140, 0.4597] <= Kramers escape 0.4638", bound=1.0, empirical=0.5)

    for fn in (false_statement, false_condition):
        o = fn({}, 0)
        assert o.verdict == "violated" and o.test_verdict == "holds"
        assert [c.kind for c in o.failed_conditions] == ["statement"] and "is false" in o.failed_conditions[0].detail
    assert true_statement({}, 0).verdict == "holds"


@pytest.mark.slow  # imports dask
def test_a_sweep_row_whose_summary_is_false_is_refused():
    from contrastive_bounds.properties.sweeps._engine import validate_row

    row = {"verdict": "holds", "ci_lo": None, "ci_hi": None, "empirical": None, "p_value": None, "false_alarm": None,
           "summary": "loss gap 0.3 <= bound 0.2"}
    with pytest.raises(ValueError, match="false inequality"):
        validate_row(row, None)
    validate_row({**row, "summary": "loss gap 0.1 <= bound 0.2"}, None)


# ------------------------------------------------------------------------------------------ static scan
_SIGN_WORDS = ("<=", ">=", "≤", "≥", " < ", " > ", "EXCEEDS", "is BELOW")


def _fixed_signs_between_values(tree: ast.AST, lines: list[str]) -> list[tuple[int, str]]:
    """f-strings writing a fixed comparison sign between two formatted values: ``f"{a} <= bound {b}"``. A line of
    the f-string marked ``# sign-ok: <why>`` is exempt (a rule such as ``for T <= {t}``, a range, or a sign that
    the verdict fixes and the numbers are printed by the helper)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        if any("# sign-ok:" in lines[k - 1] for k in range(node.lineno, (node.end_lineno or node.lineno) + 1)):
            continue
        parts = node.values
        for i, part in enumerate(parts):
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                continue
            text = part.value
            if not any(w in text for w in _SIGN_WORDS):
                continue
            before = i > 0 and isinstance(parts[i - 1], ast.FormattedValue)
            after = i + 1 < len(parts) and isinstance(parts[i + 1], ast.FormattedValue)
            # the sign must sit between the two values: no clause break around it
            if before and after and not any(b in text for b in (";", ". ", "(", ")", ":")):
                found.append((node.lineno, text))
    return found


#: Fixed signs allowed between formatted values: none (every one goes through properties._statements).
_ELSEWHERE: set[tuple[str, str]] = set()


def test_no_f_string_writes_a_fixed_sign_between_two_formatted_values():
    """The house rule: an f-string that prints a comparison sign between two numbers computes the sign from them
    (properties/_statements.py). Numbers and their signs go through compare_text/relation/chain_text."""
    offenders = set()
    for path in sorted((ROOT / "properties").rglob("*.py")):
        source = path.read_text()
        for line, text in _fixed_signs_between_values(ast.parse(source, str(path)), source.splitlines()):
            offenders.add((str(path.relative_to(ROOT)), text))
    assert offenders - _ELSEWHERE == set(), sorted(offenders - _ELSEWHERE)


# ------------------------------------------------------------------------------------------ dynamic scan
def _builtin_tasks(kinds):
    from contrastive_bounds.properties.sweeps._spec import builtin_specs, load_spec

    for name in builtin_specs():
        spec = load_spec(name, profile="quick")
        if spec.kind.name in kinds:
            yield name, spec


@pytest.mark.slow
def test_every_sweep_kinds_summaries_over_the_builtin_quick_grids_are_true():
    """Each task of the built-in sweeps' quick profiles (seed-table: 24 anneal rows, among them the exponential
    c/H* = 2, H* = 1 row once printed false; theorem1-grid: 16 align-simulate rows) is run in this process; no row is
    an error (a false summary is one: make_row refuses it) and no summary contradicts its numbers. The landscape
    sweeps (minutes a row) join with CONTRASTIVE_BOUNDS_SCAN_ALL=1."""
    from contrastive_bounds.properties.sweeps._engine import execute_task

    kinds = {"anneal", "align-simulate", "align-train", "bound", "check"} | ({"landscape"} if SCAN_ALL else set())
    scanned = {}
    for name, spec in _builtin_tasks(kinds):
        for task in spec.tasks:
            row = execute_task(task)
            assert row["verdict"] != "error", (name, task.params, row["summary"])
            assert contradictions(row["summary"]) == [], (name, task.params, row["summary"])
        scanned[name] = len(spec.tasks)
    assert {"seed-table", "theorem1-grid"} <= set(scanned), scanned


@pytest.mark.slow
@pytest.mark.skipif(not SCAN_ALL, reason="opt-in (the main job's quick profile, about 5 minutes on 2 cores): set "
                                         "CONTRASTIVE_BOUNDS_SCAN_ALL=1")
def test_every_builtin_checks_quick_summary_is_true():
    """Every built-in check at its quick parameters: no 'statement' condition fails (the framework scans each
    summary and condition), and the summary itself contains no contradicted inequality."""
    from contrastive_bounds.properties.checks._registry import registered_checks

    bad = {}
    for cid, spec in registered_checks().items():
        o = spec.fn(dict(spec.defaults["quick"]), 0)
        false = [str(c) for c in contradictions(o.summary)] + [c.detail for c in o.failed_conditions
                                                                 if c.kind == "statement"]
        if false:
            bad[cid] = false
    assert bad == {}, bad
