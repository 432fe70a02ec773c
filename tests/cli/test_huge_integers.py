"""Integers beyond float64 (tester5 #1: `eta_sum=` followed by a 401-digit integer crashed `bound`,
`barrier`, `kramers`, `schedule` and `anneal` with a raw OverflowError and exit code 1, which the README
reserves for "a bound is violated")."""

from __future__ import annotations

import math

import mpmath
import pytest
from typer.testing import CliRunner

from contrastive_bounds.properties.cli.app import app
from contrastive_bounds.theory import registry
from contrastive_bounds.theory.alignment import epsilon_value
from contrastive_bounds.theory.domains import check_real

BIG = 10**400
runner = CliRunner()


def test_check_real_names_the_argument_and_the_range():
    with pytest.raises(ValueError, match=r"^H=1.0e\+400 is beyond the float64 range \(\|x\| <= 1.8e308\)"):
        check_real("H", BIG, 0.0)


def test_a_real_bound_parameter_given_as_a_huge_int_stays_exact():
    frob = registry.get_bound("alignment.frobenius")
    kw = dict(tau=0.5, batch_size=256, num_classes=100, delta=0.05, steps=1000)
    as_int = frob.evaluate(digits=12, eta_sum=BIG, **kw)
    as_float_text = frob.evaluate(digits=12, eta_sum=mpmath.mpf(10) ** 400, **kw)
    assert as_int.log10_exact == as_float_text.log10_exact
    with mpmath.workdps(30):  # growth factor exp(S / (2 tau^2 B)): log10 = 10^400 / (128 ln 10)
        assert abs(mpmath.mpf(as_int.factors_exact["growth"]) / (mpmath.mpf(10) ** 400 / (128 * mpmath.log(10))) - 1) < 1e-11


def test_epsilon_with_huge_steps_is_the_closed_form():
    got = epsilon_value(256, BIG, 0.05)
    assert got == pytest.approx(math.sqrt((400 * math.log(10) + math.log(256 / 0.05)) / 512), rel=1e-14)


@pytest.mark.parametrize("argv, needle", [
    (["schedule", "temperature", f"c={BIG}", "t0=2", "--critical-height", "1.5"], "c=100000000000... (401 digits) is beyond"),
    (["barrier", "barrier-H", f"H={BIG}"], "beyond the float64 range"),
    (["anneal", "double-well", f"c={BIG}", "--schedule", "temperature", "--chains", "4", "--time", "0.1"], "beyond"),
    (["align", "simulate", "--steps", str(BIG)], "is outside its domain: integers in [1, 2147483647]"),
])
def test_commands_exit_2_with_one_line(argv, needle):
    res = runner.invoke(app, argv)
    assert res.exit_code == 2, res.output
    assert needle in res.output and "Traceback" not in res.output


def test_bound_command_accepts_it_exactly():
    res = runner.invoke(app, ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100",
                              "delta=0.05", "steps=1000", f"eta_sum={BIG}", "--digits", "8"])
    assert res.exit_code == 0, res.output
    assert "3.3929256e+397 (beyond float64)" in res.output
