"""Hypothesis profiles for users (properties.profiles): ``contrastive-bounds-ci``, ``-dev`` and ``-thorough``
are registered on import of the strategies and through the Hypothesis entry point, one is loaded only when
HYPOTHESIS_PROFILE names it, Hypothesis's own ``ci`` is never replaced, and a user's pytest run can select
them without a conftest. The tests run in fresh interpreters (``subprocess``) so they do not depend on what
this test session imported or loaded before (tests/conftest.py loads a profile itself)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


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
    """Importing the strategies registers the prefixed profiles (1000 / 25 / 50 examples) but loads none and
    leaves Hypothesis's own 'ci' profile untouched."""
    first, second = _python(PROBE).splitlines()
    before, after, n, same_ci = first.split()
    assert after == before and same_ci == "True"  # Hypothesis's own "ci" is untouched
    assert second.split() == ["1000", "25", "50"]


def test_hypothesis_profile_env_loads_a_prefixed_profile_on_import():
    """HYPOTHESIS_PROFILE=contrastive-bounds-ci loads that profile on import."""
    first, _ = _python(PROBE, HYPOTHESIS_PROFILE="contrastive-bounds-ci").splitlines()
    _, after, n, same_ci = first.split()
    assert (after, n, same_ci) == ("contrastive-bounds-ci", "25", "True")


@pytest.mark.parametrize("value", ["ci", "my-own-profile"])
def test_other_hypothesis_profile_values_are_left_alone(value):
    """Other HYPOTHESIS_PROFILE values ('ci', a user's own profile) are left to Hypothesis: nothing is loaded."""
    first, _ = _python(PROBE, HYPOTHESIS_PROFILE=value).splitlines()
    before, after, _, same_ci = first.split()
    assert after == before and same_ci == "True"


def test_the_package_suite_short_names_still_work():
    """The package's own suite still loads its short names (ci: 25 examples, derandomised) through
    load_from_env."""
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
@pytest.mark.slow
def test_a_users_pytest_run_uses_the_profile(tmp_path: Path, how: str):
    """A user's pytest run gets contrastive-bounds-ci (25 examples) through HYPOTHESIS_PROFILE, through -p
    ...profiles --hypothesis-profile, or through the installed entry point alone, as the tutorial
    documents."""
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

