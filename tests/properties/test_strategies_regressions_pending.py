"""tester4 findings #7 (bound_params box vs domain) and #8 (Hypothesis profiles usable by a user).

The profile tests run in fresh interpreters (``subprocess``) so they do not depend on what this
test session imported or loaded before (tests/conftest.py loads a profile itself).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given

from contrastive_bounds.properties import strategies as cbst
from contrastive_bounds.theory import registry
from contrastive_bounds.theory.domains import Interval, Param

FROB = registry.get_bound("alignment.frobenius")


# ----------------------------------------------------------------------------- #7: bound_params
@given(p=cbst.bound_params(FROB, box={"tau": (-1.0, 1.0), "batch_size": (2.5, math.inf), "delta": (0.5, 1.0),
                                       "pi_max": (0.0, 0.0 + 1e-9)}))
def test_box_is_intersected_with_each_domain(p):
    """tau in (0, 1], batch_size an integer >= 3 (infinite end: no int(inf)), delta in [0.5, 1), pi_max > 0."""
    assert 0.0 < p["tau"] <= 1.0
    assert isinstance(p["batch_size"], int) and p["batch_size"] >= 3
    assert 0.5 <= p["delta"] < 1.0
    assert 0.0 < p["pi_max"] <= 1e-9
    FROB.evaluate(digits=15, **p)  # every point is valid for the bound (raises otherwise)


class _Toy:
    name = "toy"
    params = (Param("h", Interval(0.0, 1.0, lo_closed=False, hi_closed=False)),
              Param("n", Interval(1.0, math.inf, lo_closed=False), integer=True),
              Param("c", Interval(0.0, 1.0, lo_closed=True, hi_closed=True)))


def test_open_ends_are_never_drawn_even_when_the_box_sits_on_them():
    """Box ends equal to open domain ends: the draws are the nearest floats inside, never the end."""
    seen = []
    with pytest.raises(ValueError, match=r"box\['h'\]=\(1.0, 1.001\) does not meet h's domain \(0, 1\)"):
        cbst.bound_params(_Toy(), box={"h": (1.0, 1.0 + 1e-3)})

    @given(cbst.bound_params(_Toy(), box={"h": (0.0, 0.0 + 1e-300), "n": (1.0, 2.0), "c": (1.0, 5.0)}))
    def run2(p):
        seen.append(p)
        assert 0.0 < p["h"] <= 1e-300
        assert p["n"] == 2  # (1, inf) open at 1, box [1, 2]: only 2
        assert p["c"] == 1.0  # [0, 1] closed, box [1, 5]: only 1

    run2()
    assert len(seen) > 0


@pytest.mark.parametrize(
    "box, match",
    [
        ({"tau": (-1.0, 0.0)}, r"box\['tau'\]=\(-1.0, 0.0\) does not meet tau's domain \(0, inf\)"),
        ({"batch_size": (1.2, 1.8)}, r"box\['batch_size'\].*\[1, inf\) \(no integer in it\)"),
        ({"batch_size": (-math.inf, 0.5)}, r"box\['batch_size'\]=\(-inf, 0.5\) does not meet"),
        ({"delta": (1.0, 2.0)}, r"box\['delta'\]=\(1.0, 2.0\) does not meet delta's domain \(0, 1\)"),
        ({"tau": (2.0, 1.0)}, r"box\['tau'\]=\(2.0, 1.0\) must have lo <= hi"),
        ({"tau": (math.nan, 1.0)}, r"neither NaN"),
        ({"tau": "12"}, r"box\['tau'\]='12' must be a pair"),
        ({"tauu": (1.0, 2.0)}, r"box names \['tauu'\], not parameters of 'alignment.frobenius'"),
    ],
)
def test_bad_boxes_raise_when_the_strategy_is_built(box, match):
    with pytest.raises(ValueError, match=match):
        cbst.bound_params(FROB, box=box)


@given(p=cbst.bound_params(FROB, box={"steps": (1, math.inf), "eta_sum": (1e-3, math.inf)}))
def test_infinite_box_ends_draw_finite_valid_values(p):
    assert isinstance(p["steps"], int) and p["steps"] >= 1
    assert math.isfinite(p["eta_sum"]) and p["eta_sum"] >= 1e-3


# ----------------------------------------------------------------------------- #8: profiles
def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HYPOTHESIS_PROFILE", "PYTEST_ADDOPTS")}
    env.update(extra)
    return env


def _python(code: str, **env: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env=_env(**env), timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


PROBE = """
from hypothesis import settings
before = settings.get_current_profile_name()
hyp_ci = settings.get_profile("ci")
import contrastive_bounds.properties.strategies
print(before, settings.get_current_profile_name(), settings.default.max_examples,
      settings.get_profile("ci") is hyp_ci)
settings.load_profile("contrastive-bounds-thorough")
print(settings.default.max_examples, settings.get_profile("contrastive-bounds-ci").max_examples,
      settings.get_profile("contrastive-bounds-dev").max_examples)
"""


def test_importing_strategies_registers_but_loads_nothing_unasked():
    first, second = _python(PROBE).splitlines()
    before, after, n, same_ci = first.split()
    assert after == before and same_ci == "True"  # Hypothesis's own "ci" is untouched
    assert second.split() == ["1000", "25", "50"]


def test_hypothesis_profile_env_loads_a_prefixed_profile_on_import():
    first, _ = _python(PROBE, HYPOTHESIS_PROFILE="contrastive-bounds-ci").splitlines()
    _, after, n, same_ci = first.split()
    assert (after, n, same_ci) == ("contrastive-bounds-ci", "25", "True")


@pytest.mark.parametrize("value", ["ci", "my-own-profile"])
def test_other_hypothesis_profile_values_are_left_alone(value):
    first, _ = _python(PROBE, HYPOTHESIS_PROFILE=value).splitlines()
    before, after, _, same_ci = first.split()
    assert after == before and same_ci == "True"


def test_the_package_suite_short_names_still_work():
    out = _python("""
        from hypothesis import settings
        from contrastive_bounds.properties.profiles import load_from_env
        print(load_from_env(), settings.default.max_examples, settings.default.derandomize)
    """, HYPOTHESIS_PROFILE="ci")
    assert out.split() == ["ci", "25", "True"]


USER_TEST = """
from hypothesis import given, settings
from contrastive_bounds.properties import strategies as cbst

@given(cbst.labels(n=8, num_classes=2))
def test_count(y):
    test_count.calls = getattr(test_count, "calls", 0) + 1

def test_report():
    test_count()
    print("PROFILE", settings.get_current_profile_name(), settings.default.max_examples, test_count.calls)
"""


@pytest.mark.parametrize("how", ["env", "plugin-option", "entry-point"])
def test_a_users_pytest_run_uses_the_profile(tmp_path: Path, how: str):
    """As the tutorial documents: HYPOTHESIS_PROFILE, or -p ...profiles --hypothesis-profile (no conftest)."""
    (tmp_path / "test_user.py").write_text(USER_TEST)
    args = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "test_user.py::test_report"]
    env = _env()
    if how == "env":
        env["HYPOTHESIS_PROFILE"] = "contrastive-bounds-ci"
    elif how == "plugin-option":
        args[4:4] = ["-p", "contrastive_bounds.properties.profiles", "--hypothesis-profile=contrastive-bounds-ci"]
    else:  # the installed package's hypothesis entry point registers the profiles: no -p, no conftest
        args[4:4] = ["--hypothesis-profile=contrastive-bounds-ci"]
    out = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    line = next(ln for ln in out.stdout.splitlines() if "PROFILE" in ln)
    # 25 examples; a derandomised run may stop early only if the space is exhausted (it is not here)
    assert line.split()[-3:] == ["contrastive-bounds-ci", "25", "25"]
