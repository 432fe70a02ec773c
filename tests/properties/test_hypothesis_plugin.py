"""The Hypothesis entry-point hook registers the package's profiles in either import order and never
breaks ``import hypothesis``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from contrastive_bounds.properties import hypothesis_plugin


@pytest.mark.parametrize("first", ["hypothesis", "contrastive_bounds.properties.profiles"])
def test_either_import_order_registers_the_profiles(first):
    """The profiles are registered whether hypothesis or the profiles module is imported first."""
    code = (f"import {first}\n"
            "import hypothesis.entry_points, importlib.metadata as md\n"
            "eps = [e.value for e in md.entry_points(group='hypothesis')]\n"
            "assert 'contrastive_bounds.properties.hypothesis_plugin:register' in eps, eps\n"
            "from hypothesis import settings\n"
            "print(settings.get_profile('contrastive-bounds-ci').max_examples)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "25"


def test_a_failing_registration_is_a_warning_not_an_error(monkeypatch):
    """A registration that fails is a RuntimeWarning naming the error, never an exception that would break
    `import hypothesis`."""
    import contrastive_bounds.properties.profiles as profiles

    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(profiles, "register_profiles", broken)
    with pytest.warns(RuntimeWarning, match="could not register its Hypothesis profiles: RuntimeError"):
        hypothesis_plugin.register()
