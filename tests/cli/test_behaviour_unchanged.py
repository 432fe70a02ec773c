"""Behaviour unchanged: the command line's outputs and the main job's verdicts equal golden files recorded from
the code before the package's faces were reorganised (tests/cli/golden/).

What is compared:

* the JSON of ``bound`` (Paper B's Theorem 1, the CKA and RSA corollaries, a certified ``--solve``), ``list``,
  ``schedule`` and ``barrier``, value for value (floats to 1e-12 relative: the values are deterministic);
* the text of ``bound`` and ``schedule`` (the formats a user reads), line for line;
* the format of ``landscape infonce`` on a tiny run (N = 4 on S¹): the JSON's keys at every level, its
  deterministic values (H*, minima energies and multiplicities, status) and the rows of the text table;
* the published values (docs/data/landscape-values.json) byte for byte, by digest;
* the main job's verdict per check id (``contrastive-bounds check --profile quick --json``): the fast checks
  in every run of the suite, all of them with ``CB_GOLDEN_FULL=1`` (the whole quick profile takes minutes).

Re-record (only when a change of output is intended, and say so in CHANGELOG.md):
``python tests/cli/test_behaviour_unchanged.py --record`` with the package to record from importable.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
ROOT = Path(__file__).resolve().parents[2]
SOLVE = ["alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100", "delta=0.05", "steps=1000"]
JSON_CASES = {
    "bound-frobenius": ["bound", *SOLVE, "eta_sum=10", "--json"],
    "bound-cka": ["bound", "alignment.cka_lower", "rho=0.1", "--json"],
    "bound-rsa": ["bound", "alignment.rsa_lower", "r=0.1", "--json"],
    "bound-solve": ["bound", *SOLVE, "m=512", "--solve", "eta_sum", "--json"],
    "list": ["list", "--json"],
    "schedule": ["schedule", "temperature", "c=2.0", "t0=2", "--critical-height", "1.53125", "--json"],
    "barrier": ["barrier", "double-well", "--json"],
}
TEXT_CASES = {
    "bound-frobenius-text": ["bound", *SOLVE, "eta_sum=10"],
    "schedule-text": ["schedule", "temperature", "c=2.0", "t0=2", "--critical-height", "1.53125"],
}
LANDSCAPE = ["landscape", "infonce", "--points", "4", "--dim", "2", "--tau", "0.1", "--starts", "8"]
#: keys whose values depend on the machine, the clock or the folder, compared by presence only
VOLATILE = re.compile(r"time|seconds|wall|elapsed|date|path|folder|out$|versions|effort|cpu|devices|platform")
#: the checks of the quick profile fast enough (about 2 s or less each, measured under load) to rerun in every
#: run of the suite; each decides a verdict of its own (schedules, H*, trapping, Kramers, claims' premises, B4/B5)
FAST_CHECKS = ("A2.schedule_values", "A3.critical_height", "A4.trapping", "A5.kramers", "A6.finite_time",
               "A8.1_inverted_condition", "A8.2_finite_time_exponent", "B4.reference_values", "B5.corollaries_any_pair")


def _invoke(args: list[str], tmp: Path | None = None) -> tuple[int, str]:
    from typer.testing import CliRunner

    from contrastive_bounds.properties.cli._app import app

    env = {"COLUMNS": "120", "NO_COLOR": "1", "TERM": "dumb"}
    res = CliRunner().invoke(app, args, env=env)
    return res.exit_code, res.stdout


def _shape(x, key: str = ""):
    """The JSON with volatile values replaced by their type, so machines and clocks do not matter."""
    if isinstance(x, dict):
        return {k: (type(v).__name__ if VOLATILE.search(k) else _shape(v, k)) for k, v in sorted(x.items())}
    if isinstance(x, list):
        return [_shape(v, key) for v in x]
    return x


def _same(a, b, where: str = "$") -> list[str]:
    """Differences between two JSON values (floats equal to 1e-12 relative, 1e-300 absolute)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}: keys {sorted(set(a) ^ set(b))}"] if set(a) != set(b) else []
        return out + [d for k in sorted(set(a) & set(b)) for d in _same(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items, golden {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _same(x, y, f"{where}[{i}]")]
    if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
        ok = (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300)
        return [] if ok else [f"{where}: {a!r}, golden {b!r}"]
    return [] if a == b else [f"{where}: {a!r}, golden {b!r}"]


def _landscape_record(tmp: Path) -> dict:
    code, text = _invoke([*LANDSCAPE, "--out", str(tmp / "n4")])
    code_j, out = _invoke([*LANDSCAPE, "--out", str(tmp / "n4"), "--resume", "--json"])  # the saved, closed search
    data = json.loads(out)
    rows = [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│") and line.count("│") >= 3]

    def keys(x, prefix=""):
        if isinstance(x, dict):
            return sorted({f"{prefix}.{k}" for k in x} | {k2 for k, v in x.items() for k2 in keys(v, f"{prefix}.{k}")})
        if isinstance(x, list) and x and isinstance(x[0], dict):
            return keys(x[0], prefix + "[]")
        return []

    minima = sorted((round(m["energy"], 8), m["multiplicity"]) for m in data["minima"])
    return {"exit_codes": [code, code_j], "json_keys": keys(data), "critical_height": round(data["critical_height"], 10),
            "status": data["status"], "minima": [list(m) for m in minima], "table_rows": [r for r in rows if r]}


def _verdicts(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text())
    return {r["check"] + " " + r["scenario"]: r["outcome"]["verdict"] for r in data["results"]}


# ---- the tests --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(JSON_CASES))
def test_json_outputs_are_the_recorded_ones(name):
    code, out = _invoke(JSON_CASES[name])
    golden = json.loads((GOLDEN / f"{name}.json").read_text())
    assert code == golden["exit_code"]
    assert _same(_shape(json.loads(out)), golden["output"]) == []


@pytest.mark.parametrize("name", sorted(TEXT_CASES))
def test_text_outputs_are_the_recorded_ones(name):
    code, out = _invoke(TEXT_CASES[name])
    golden = (GOLDEN / f"{name}.txt").read_text()
    assert [line.rstrip() for line in out.splitlines()] == [line.rstrip() for line in golden.splitlines()]
    assert code == 0


@pytest.mark.slow
def test_landscape_formats_are_the_recorded_ones(tmp_path):
    """A tiny search (N = 4 on S¹, 8 random starts): its table rows, its JSON keys and its deterministic values."""
    got = _landscape_record(tmp_path)
    golden = json.loads((GOLDEN / "landscape-n4.json").read_text())
    assert _same(got, golden) == []


def test_published_values_are_the_recorded_ones():
    digest = hashlib.sha256((ROOT / "docs/data/landscape-values.json").read_bytes()).hexdigest()
    assert digest == (GOLDEN / "landscape-values.sha256").read_text().split()[0]


@pytest.mark.slow
def test_the_main_jobs_fast_verdicts_are_the_recorded_ones(tmp_path):
    """The quick profile's fast checks (:data:`FAST_CHECKS`), run now by the main job's runner, give the recorded
    verdicts."""
    from contrastive_bounds.properties._runner import run_suite
    from contrastive_bounds.properties._scenarios import builtin_scenarios

    golden = json.loads((GOLDEN / "check-quick-verdicts.json").read_text())
    scenarios = [s for s in builtin_scenarios("quick") if s.check in FAST_CHECKS]
    assert sorted(s.check for s in scenarios) == sorted(FAST_CHECKS)
    run_suite(scenarios, profile="quick", out_dir=tmp_path)
    assert _verdicts(tmp_path / "results.json") == {k: v for k, v in golden.items() if k.split()[0] in FAST_CHECKS}


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CB_GOLDEN_FULL") != "1", reason="the whole quick profile takes minutes: CB_GOLDEN_FULL=1")
def test_the_main_jobs_verdicts_are_the_recorded_ones(tmp_path):
    golden = json.loads((GOLDEN / "check-quick-verdicts.json").read_text())
    _invoke(["check", "--profile", "quick", "--out", str(tmp_path)])
    assert _verdicts(tmp_path / "results.json") == golden


def record(check_results: str | None = None) -> None:
    """Write the golden files from the importable package (and from a ``check --profile quick`` results.json)."""
    import tempfile

    from contrastive_bounds.numerics._precision import enable_x64

    enable_x64()
    GOLDEN.mkdir(exist_ok=True)
    for name, args in JSON_CASES.items():
        code, out = _invoke(args)
        (GOLDEN / f"{name}.json").write_text(json.dumps({"args": args, "exit_code": code,
                                                         "output": _shape(json.loads(out))}, indent=1) + "\n")
    for name, args in TEXT_CASES.items():
        code, out = _invoke(args)
        assert code == 0, out
        (GOLDEN / f"{name}.txt").write_text(out)
    with tempfile.TemporaryDirectory() as tmp:
        (GOLDEN / "landscape-n4.json").write_text(json.dumps(_landscape_record(Path(tmp)), indent=1) + "\n")
    digest = hashlib.sha256((ROOT / "docs/data/landscape-values.json").read_bytes()).hexdigest()
    (GOLDEN / "landscape-values.sha256").write_text(f"{digest}  docs/data/landscape-values.json\n")
    if check_results:
        verdicts = _verdicts(Path(check_results))
        (GOLDEN / "check-quick-verdicts.json").write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if "--record" not in sys.argv:
        sys.exit("usage: python tests/cli/test_behaviour_unchanged.py --record [RESULTS_JSON of check --profile quick]")
    rest = [a for a in sys.argv[1:] if a != "--record"]
    record(rest[0] if rest else None)
