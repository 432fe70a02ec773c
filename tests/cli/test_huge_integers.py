"""Integers beyond float64 on the command line: a 401-digit integer had crashed `bound`, `barrier`,
`kramers`, `schedule` and `anneal` with a raw OverflowError and exit code 1, which the README reserves for
"a bound is violated"; now other commands exit 2 with one line naming the float64 range, and `bound` keeps
the integer exact. (The library side: tests/theory/test_domains.py, test_bound_exact_input.py.)"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

BIG = 10**400
runner = CliRunner()


@pytest.mark.parametrize("argv, needle", [
    (["schedule", "temperature", f"c={BIG}", "t0=2", "--critical-height", "1.5"], "c=100000000000... (401 digits) is beyond"),
    (["barrier", "barrier-H", f"H={BIG}"], "beyond the float64 range"),
    (["anneal", "double-well", f"c={BIG}", "--schedule", "temperature", "--chains", "4", "--time", "0.1"], "beyond"),
    (["align", "simulate", "--steps", str(BIG)], "is outside its domain: integers in [1, 2147483647]"),
])
def test_commands_exit_2_with_one_line(argv, needle):
    """schedule, barrier, anneal and align simulate given a 401-digit integer exit 2 with a line naming the
    range, no traceback."""
    res = runner.invoke(app, argv)
    assert res.exit_code == 2, res.output
    assert needle in res.output and "Traceback" not in res.output


def test_bound_command_accepts_it_exactly():
    """bound keeps a 401-digit eta_sum exact and prints the value beyond float64."""
    res = runner.invoke(app, ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100",
                              "delta=0.05", "steps=1000", f"eta_sum={BIG}", "--digits", "8"])
    assert res.exit_code == 0, res.output
    assert "3.3929256e+397 (beyond float64)" in res.output


@pytest.mark.parametrize("value, needle", [
    ("1e999999", "eta_sum=1e999999: |eta_sum| is about 10^999999"),
    ("1e-5000", "|eta_sum| is about 10^-5000"),
    ("7" * 5000, "eta_sum=777777777777...(5000 characters): |eta_sum| is about 10^4999"),
    ("0." + "1" * 2000, "2000 significant digits"),
    ("1" + "0" * 1500 + "/3", "|eta_sum| is about 10^1500"),
])
def test_bound_refuses_magnitudes_beyond_1e1000_at_once(value, needle):
    """Beyond 10^1000 (or 1000 digits) an exact input took minutes (eta_sum=1e5000) or died on Python's
    int-to-text limit (a 5000-digit integer, tau=1e10000); now one line naming the parameter and the range,
    read without expanding the exponent."""
    res = runner.invoke(app, ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100",
                              "delta=0.05", "steps=1000", f"eta_sum={value}", "--digits", "8"])
    assert res.exit_code == 2, res.output
    assert needle in res.output and "10^-1000 <= |x| <= 10^1000" in res.output and len(res.output) < 400
