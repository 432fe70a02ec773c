"""Commands barrier, schedule, kramers (issue 3 'done when')."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

runner = CliRunner()


def _json(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_barrier_double_well_json():
    """barrier --json gives the double well's H* = 1.53125 within its stated error bound, by exact critical
    points and by the grid, and the cross-check agrees with the grid."""
    out = _json(["barrier", "double-well", "--json"])
    assert abs(out["critical_height"] - 1.53125) <= out["error_bound"]
    assert abs(out["grid_critical_height"] - 1.53125) <= out["grid_error_bound"]
    assert out["cross_check"] == out["grid_critical_height"]


def test_barrier_triple_well_and_param_and_file(tmp_path):
    """barrier takes built-ins with parameters (barrier-H H=5 gives 5) and Fourier files (the double well as a
    file gives 1.53125); the triple well gives 1.5215."""
    assert _json(["barrier", "triple-well", "--json"])["critical_height"] == pytest.approx(1.5215, abs=5e-5)
    assert _json(["barrier", "barrier-H", "H=5", "--json"])["critical_height"] == pytest.approx(5.0, rel=1e-13)
    p = tmp_path / "dw.json"
    p.write_text('{"cos": {"1": -0.5, "2": -1.0}}')
    assert _json(["barrier", str(p), "--json", "--resolution", "512"])["critical_height"] == pytest.approx(1.53125, abs=1e-12)


def test_schedule_consistent_across_conventions():
    """One schedule written in each convention gives the same HKS constant and verdict in every convention,
    and started at t = 0 where T is infinite it exits 2 instead of being clamped (C12)."""
    for args in (["author", "c=0.5"], ["temperature", "c=2", "t0=1"], ["noise", "c=4", "t0=1"], ["generator", "c=2"]):
        out = _json(["schedule", *args, "--critical-height", "1.53125", "--t-start", "1", "--json"])
        assert out["hks_constant"] == pytest.approx(2.0) and out["converges"] is True
        assert {row["converges"] for row in out["conventions"]} == {True}
        assert out["valid_on"] == [1.0, 1.0]
        # C12: the same schedule from t = 0 is invalid (T infinite there) -> exit 2, never clamped
        res = runner.invoke(app, ["schedule", *args, "--critical-height", "1.53125"])
        assert res.exit_code == 2 and "never clamped" in res.output
    out = _json(["schedule", "exponential", "c=1", "gamma=0.9", "--critical-height", "1", "--json"])
    assert out["converges"] is False and out["regime"] == "too-fast"


def test_schedule_log_constant_below_critical_height():
    """A log schedule with c < H* is reported as such, not as "too-fast": regime "log-below-critical" in --json for
    every convention, and the text verdict says it in words: "no convergence guarantee — logarithmic, c_T below
    H*", never a Python literal."""
    out = _json(["schedule", "author", "c=1", "--critical-height", "1.53125", "--t-start", "1", "--json"])
    assert out["hks_constant"] == 1.0 and out["converges"] is False and out["regime"] == "log-below-critical"
    assert {row["regime"] for row in out["conventions"]} == {"log-below-critical"}
    res = runner.invoke(app, ["schedule", "temperature", "c=1", "--critical-height", "1.53125"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "verdict: no convergence guarantee — logarithmic, c_T below H* HKS constant c = 1 < H* = 1.53125" in text
    assert "too-fast" not in text and "False" not in text


def test_schedule_text_at_the_boundary_and_the_range_it_checked():
    """At c_T = H* every cell and the verdict say "borderline" (docs/theorems.md A4 states c > H* and c < H* only),
    never None; the last line states what was checked: T(0) = c/log t0 at the default one-point range, and the
    whole interval when --t-end is given."""
    res = runner.invoke(app, ["schedule", "temperature", "c=1.53125", "t0=2", "--critical-height", "1.53125"])
    assert res.exit_code == 0, res.output
    lines = [line.strip() for line in res.output.splitlines()]
    assert "verdict: borderline (c_T = H*): the theorem decides neither way" in lines
    rows = [line for line in lines if line.startswith("│")]
    assert len(rows) == 5 and all("borderline (c_T = H*)" in row for row in rows)
    assert "None" not in res.output and "True" not in res.output and "False" not in res.output
    assert lines[-1] == f"T(0) = {1.53125 / math.log(2):.10g} (finite and > 0; check a range with --t-end)"
    assert lines[-1].startswith("T(0) = 2.209126781")
    res = runner.invoke(app, ["schedule", "temperature", "c=2", "t0=2", "--critical-height", "1", "--t-start", "1",
                              "--t-end", "100"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[-1] == "T(t) finite and > 0 for every t in [1, 100]"


def test_kramers_double_well():
    """kramers at T = 0.1 gives the double well's exact mean first-passage time to 10 digits and an
    exact/Kramers ratio within 5 % of 1."""
    out = _json(["kramers", "double-well", "--temperature", "0.1", "--json"])
    (rec,) = out["minima"]
    assert abs(rec["ratio"] - 1) < 0.05 and rec["barrier"] == 1.53125
    assert rec["exact_time"] == pytest.approx(3901113.73576, rel=1e-10)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["kramers", "double-well", "--temperature", "-1"], "temperature"),
        (["barrier", "nope"], "landscape='nope'"),
        (["schedule", "author", "c=1", "--critical-height", "1", "--t-start", "0", "--t-end", "5"], "t0=1.0"),
        (["schedule", "temperature", "c=x", "--critical-height", "1"], "c='x'"),
        (["barrier", "barrier-H", "H=-2"], "H=-2"),
    ],
)
def test_bad_input_exits_2(args, needle):
    """Out-of-domain temperatures, unknown landscapes, schedules invalid on the range, non-numeric and
    negative parameters exit 2 naming the argument."""
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert needle in res.output


def test_human_output():
    """kramers without --json prints the exact/Kramers comparison."""
    res = runner.invoke(app, ["kramers", "double-well", "--temperature", "0.2"])
    assert res.exit_code == 0 and "exact/Kramers" in res.output


# ------------------------------------------------------------- bad input: one line, exit 2
def _bad(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1, res.output
    return res.output


def test_barrier_folder_or_missing_file_exits_2_with_builtins(tmp_path):
    """A folder or a missing file as LANDSCAPE exits 2 saying which and listing the built-in landscapes."""
    out = _bad(["barrier", str(tmp_path)])
    assert "is a folder" in out and "built-in landscapes: barrier-H, double-well" in out
    assert "no such built-in landscape or file" in _bad(["barrier", "nothere.json"])


def test_barrier_resolution_zero_is_rejected():
    """--resolution 0, negative or below the minimum is refused with its domain, never taken as a sentinel."""
    for bad in ("0", "-5", "3"):
        assert f"--resolution={bad} is outside its domain" in _bad(["barrier", "double-well", "--resolution", bad])


def test_barrier_huge_height_is_rejected_with_range_and_json_is_finite():
    """H = 1e308 is refused with its range (0, 1e6], and the JSON and text of an ordinary run hold no inf or
    NaN (the global minimum's depth is null)."""
    assert "H=1e+308 is outside its domain (0, 1e+06]" in _bad(["barrier", "barrier-H", "H=1e308"])
    res = runner.invoke(app, ["barrier", "double-well", "--json"])
    assert res.exit_code == 0 and "Infinity" not in res.stdout and "NaN" not in res.stdout
    out = json.loads(res.stdout)
    assert [m["global"] for m in out["minima"]] == [True, False] and out["minima"][0]["depth"] is None
    assert out["warnings"] == []
    human = runner.invoke(app, ["barrier", "double-well"]).output
    assert "global" in human and " inf " not in human


@pytest.mark.parametrize(
    "text,needle",
    [
        ('{"cos": {"1": "abc"}}', "cos[1]='abc' is not a number"),
        ('{"sin": [1,2]}', "sin must be a table {k: coefficient}"),
        ("", "is empty; a Fourier file is JSON or TOML text"),
        ("  \n", "is empty; a Fourier file is JSON or TOML text"),
        (b"\x93NUMPY\x80\x00binary", "is not a text file (not UTF-8)"),
    ],
)
def test_malformed_fourier_file_exits_2_naming_file_and_key(tmp_path, text, needle):
    """A malformed Fourier file exits 2 naming the file and the offending key."""
    p = tmp_path / "x.json"
    p.write_bytes(text) if isinstance(text, bytes) else p.write_text(text)
    out = _bad(["barrier", str(p)])
    assert needle in out and "x.json" in out
    assert needle in _bad(["kramers", str(p), "--temperature", "0.5"])


def test_wrong_landscape_parameter_lists_the_parameters():
    """An unknown landscape parameter is refused listing the parameters the landscape takes (or none), without
    internal function names, in barrier and anneal alike."""
    out = _bad(["barrier", "double-well", "H=-1"])
    assert "takes no parameters" in out and "_double_well" not in out
    assert "takes H in (0, 1e+06]" in _bad(["barrier", "barrier-H", "foo=1"])
    assert "takes no parameters" in _bad(["anneal", "double-well", "c=1", "--schedule", "fixed", "--param", "H=3",
                                          "--chains", "2"])


def test_schedule_invalid_on_range_exits_2_like_anneal():
    """A schedule whose T is infinite or negative on the range exits 2 with one line suggesting t0 > 1, like
    anneal; on a valid range the generator row says why it cannot be expressed."""
    for args in (["temperature", "c=2", "t0=0"], ["temperature", "c=2", "t0=1"], ["author", "c=2", "t0=0"],
                 ["author", "c=2", "t0=1"]):
        out = _bad(["schedule", *args, "--critical-height", "1.53125"])
        assert out.startswith("error: t0=") and "use t0 > 1.0" in out
    out = _json(["schedule", "temperature", "c=2", "t0=0", "--critical-height", "1.53125", "--t-start", "2", "--json"])
    assert out["converges"] is True
    (gen,) = [row for row in out["conventions"] if row["form"] == "generator"]
    assert gen["describe"] is None and "generator convention fixes t0 = 1" in gen["note"]
    human = runner.invoke(app, ["schedule", "temperature", "c=2", "t0=0", "--critical-height", "1.53125",
                                "--t-start", "2"]).output
    assert "t0=0.0:" not in human and "not expressible" in human


def test_kramers_temperature_range_and_regime_flag():
    """kramers refuses temperatures below the exact quadrature's range naming the range, and flags
    temperatures outside the Kramers regime with a warning."""
    assert "temperature must be in [0.00262, inf)" in _bad(["kramers", "double-well", "--temperature", "1e-6"])
    out = _json(["kramers", "double-well", "--temperature", "1e6", "--json"])
    assert out["minima"][0]["regime"] == "outside" and "outside the Kramers regime" in out["warnings"][0]
    assert _json(["kramers", "double-well", "--temperature", "0.1", "--json"])["warnings"] == []
    human = runner.invoke(app, ["kramers", "double-well", "--temperature", "1e6"]).output
    assert "warning:" in human and "outside" in human
