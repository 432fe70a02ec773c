"""`list`, `bound NAME --help`, `bound` and `bound --solve` on the command line: every parameter a bound
accepts is shown with domain and meaning, informativeness that could not be judged is said (never
`uninformative: false`), Paper A bounds are listed and evaluated like Paper B's, `--solve` certifies."""

from __future__ import annotations

import json

import mpmath
from typer.testing import CliRunner

from contrastive_bounds.properties.cli._app import app

RUNNER = CliRunner()
IMAGENET = ["tau=0.1", "batch_size=256", "num_classes=1000", "delta=0.05", "steps=500000", "eta_sum=50000"]


def run(*args: str):
    return RUNNER.invoke(app, list(args))


def test_list_shows_every_parameter_with_domain_and_paper_a():
    """`list` names the optional m (with its domain) and the Paper A bounds; --json carries each role."""
    res = run("list")
    assert res.exit_code == 0, res.output
    for text in ("(optional) m in integers in [2, inf)", "annealing.finite_time_tail", "annealing.kramers_time",
                 "annealing.trap_probability", "annealing.schedule_condition.author", "log_constant"):
        assert text in res.output, text
    data = json.loads(run("list", "--json").output)
    frob = next(b for b in data["bounds"] if b["name"] == "alignment.frobenius")
    assert {"name": "m", "role": "optional"}.items() <= next(a for a in frob["accepts"] if a["name"] == "m").items()


def test_bound_name_help_lists_its_parameters():
    """`bound alignment.frobenius --help` ends with every accepted parameter, domain and meaning."""
    res = run("bound", "alignment.frobenius", "--help")
    assert res.exit_code == 0, res.output
    assert "(optional) m in integers in [2, inf): rows of Sigma" in res.output
    assert "(alternative) num_classes" in res.output and "eta_sum in (0, inf)" in res.output
    assert "--solve accepts any of:" in res.output
    plain = run("bound", "--help")
    assert plain.exit_code == 0 and "--solve" in plain.output and "(optional) m" not in plain.output


def test_unknown_parameter_is_one_line_with_every_parameter():
    """A wrong key exits 2 with one line listing tau, num_classes and m with their domains."""
    res = run("bound", "alignment.frobenius", "tau=0.5", "x=3")
    assert res.exit_code == 2
    line = res.output.strip()
    assert "\n" not in line and "'x'" in line and "(optional) m in integers in [2, inf)" in line


def test_imagenet_frobenius_without_m_is_not_judged():
    """The ImageNet-sized bound (log10 ~ 4254) without m: text says 'informativeness not judged ... give m=', JSON has null, not false."""
    res = run("bound", "alignment.frobenius", *IMAGENET)
    assert res.exit_code == 0, res.output
    assert "informativeness not judged" in res.output and "m=<value>" in res.output.replace("\n", "")
    data = json.loads(run("bound", "alignment.frobenius", *IMAGENET, "--json").output)
    assert data["uninformative"] is None and data["informativeness"] == "not judged"
    assert data["informativeness_needs"] == ["m"] and data["log10"] > 100
    judged = json.loads(run("bound", "alignment.frobenius", *IMAGENET, "m=100000", "--json").output)
    assert judged["uninformative"] is True and judged["informativeness"] == "uninformative"


def test_kramers_time_never_overflows_on_the_command_line():
    """temperature=1e-400: exit 0, log10 as an exact decimal, the value shown as a power of ten."""
    args = ["bound", "annealing.kramers_time", "barrier=1", "temperature=1e-400", "unstable_eigenvalue=1",
            "det_hessian_minimum=1", "det_hessian_saddle=1"]
    res = run(*args)
    assert res.exit_code == 0, res.output
    assert "beyond float64" in res.output and "inf" not in res.output.split("source:")[0].replace("informat", "")
    data = json.loads(run(*args, "--json").output)
    assert data["value"] is None and mpmath.mpf(data["log10_exact"]) > mpmath.mpf("4e399")


def test_solve_eta_sum_text_and_json():
    """--solve eta_sum: the certified largest S, its enclosure, the limiting condition; JSON for machines."""
    base = ["bound", "alignment.frobenius", "tau=0.5", "batch_size=256", "num_classes=100", "delta=0.05",
            "steps=1000", "m=512", "--solve", "eta_sum"]
    res = run(*base, "--digits", "15")
    assert res.exit_code == 0, res.output
    assert "non-vacuous and informative for eta_sum in" in res.output and "125.21269991696" in res.output
    assert "certified" in res.output
    data = json.loads(run(*base, "--json").output)
    assert data["status"] == "intervals" and data["intervals"][0][1]["kind"] == "root"
    with mpmath.workdps(50):  # independent of the global mpmath precision other modules may use
        lo, hi = (mpmath.mpf(v) for v in data["intervals"][0][1]["enclosure"])
        assert 0 <= hi - lo < mpmath.mpf("1e-12")
        assert abs((lo + hi) / 2 - mpmath.mpf("125.21269991696837")) < mpmath.mpf("1e-13")


def test_solve_bad_input_exits_2():
    """Solving for an unknown parameter, or giving the solved one a value: exit 2, one line."""
    res = run("bound", "alignment.frobenius", "tau=0.5", "--solve", "nope")
    assert res.exit_code == 2 and "cannot solve for 'nope'" in res.output
    res = run("bound", "alignment.cka_lower", "rho=0.5", "--solve", "rho")
    assert res.exit_code == 2 and "rho is the parameter solved for" in res.output


def test_solve_paper_a_bound():
    """Paper A is solved like Paper B: the largest Γ for which the A6 tail is below 1 (non-vacuous: Γ > H*)."""
    res = run("bound", "annealing.finite_time_tail", "t=1000", "delta=0.5", "critical_height=1.53125",
              "codimension=1", "log_constant=0.3", "--solve", "gamma", "--json")
    data = json.loads(res.output)
    (lo, hi), = data["intervals"]
    assert lo["kind"] == "root" and "vacuous" in lo["condition"]
    assert mpmath.mpf(lo["enclosure"][0]) <= mpmath.mpf("1.53125") <= mpmath.mpf(lo["enclosure"][1])
    assert hi["kind"] == "root" and "informative" in hi["condition"]
