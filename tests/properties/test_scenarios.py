"""properties.scenarios: TOML scenario files are loaded with the check's quick defaults merged under the
scenario's parameters and seed 0 unless given."""

from __future__ import annotations

from pathlib import Path

from contrastive_bounds.properties._scenarios import load_scenarios

USER_CHECKS = '''
from contrastive_bounds.properties.checks._framework import check, compare_upper, Outcome, PlotSpec, Series

@check("user.square", theorem="x^2 <= bound", statement="x^2 <= bound for the given x", paper="B",
       quick={"x": 0.5, "bound": 1.0})
def square(params, seed):
    out = compare_upper(float(params["bound"]), float(params["x"]) ** 2, what="x^2")
    out.plots = [PlotSpec("x^2", "x", "y", [Series("x^2", [0.0, 1.0], [0.0, 1.0])])]
    return out
'''


def _write_scenarios(tmp_path: Path, body: str) -> Path:
    (tmp_path / "user_checks.py").write_text(USER_CHECKS)
    f = tmp_path / "scenarios.toml"
    f.write_text('imports = ["user_checks.py"]\n' + body)
    return f


def test_load_scenarios_merges_defaults(tmp_path):
    """A scenario's parameters are merged over the check's quick defaults and its seed defaults to 0."""
    f = _write_scenarios(tmp_path, '[[scenario]]\nname = "a"\ncheck = "user.square"\nparams = {x = 0.25}\n')
    (sc,) = load_scenarios(f)
    assert sc.params == {"x": 0.25, "bound": 1.0} and sc.seed == 0

