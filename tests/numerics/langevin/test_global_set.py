"""numerics.langevin.global_set: the one rule for "the set a run must reach" ({V < V_min + δ}).

Guards the rule's values (half the gap to the lowest energy that must stay outside, ties with V_min ignored,
the fallback), its errors, and that the circle experiments and the landscape checks use it (they computed
the level by hand before)."""

import inspect
import math
import re

import pytest

from contrastive_bounds.numerics.langevin._global_set import (
    DEFAULT_MARGIN,
    global_set_level,
    global_set_margin,
    global_tie_tolerance,
)


def test_margin_is_half_the_gap_to_the_lowest_energy_outside():
    """δ = (min above − V_min)/2, whatever the order of the energies; the set holds none of them."""
    energies = [0.3, -0.2, 1.7, -0.2]
    d = global_set_margin(-1.0, energies)
    assert d == 0.5 * (-0.2 - -1.0) == 0.4
    assert all(e >= -1.0 + d for e in energies)
    assert global_set_level(-1.0, energies) == pytest.approx(-0.6, abs=1e-15)


def test_ties_with_v_min_count_as_global():
    """An energy within 1e-10·max(1, |V_min|) of V_min is a global minimum, not a wall of the set."""
    v = -250.0
    assert global_tie_tolerance(v) == pytest.approx(2.5e-8, rel=1e-15)
    assert global_tie_tolerance(0.5) == 1e-10  # max(1, |V_min|): never below 1e-10
    assert global_set_margin(v, [v + 1e-8, v + 2.0]) == 1.0       # 1e-8 < 2.5e-8: a tie
    assert global_set_margin(v, [v + 1e-7]) == pytest.approx(0.5e-7, rel=1e-6)  # above the tie tolerance


def test_fallback_when_every_energy_is_global():
    assert global_set_margin(0.0, []) == DEFAULT_MARGIN == 0.1
    assert global_set_margin(0.0, [0.0, 1e-12], fallback=0.25) == 0.25


@pytest.mark.parametrize("args, kwargs, name", [((math.nan, [1.0]), {}, "v_min"), ((0.0, [math.inf]), {}, "outside"),
                                                ((0.0, []), {"fallback": 0.0}, "fallback"),
                                                ((0.0, [1.0]), {"fallback": -1.0}, "fallback")])
def test_bad_input_names_the_argument(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        global_set_margin(*args, **kwargs)


def test_circle_experiments_default_delta_is_the_rule():
    """experiments.default_delta on the double well: δ = (V(trap) − V_min)/2 from the landscape's own values."""
    from contrastive_bounds.numerics.landscapes._registry import get_landscape
    from contrastive_bounds.numerics.langevin._experiments import circle_trap, default_delta

    land = get_landscape("double-well")
    trap = circle_trap(land)
    assert default_delta(land, trap) == pytest.approx(0.5 * (trap.value - land.v_min), rel=1e-15)
    assert default_delta(land, None) == DEFAULT_MARGIN


@pytest.mark.parametrize("module", ["contrastive_bounds.properties.checks._landscape_rows",
                                    "contrastive_bounds.properties.checks._landscape_schedule",
                                    "contrastive_bounds.numerics.langevin._experiments"])
def test_callers_use_the_rule_not_a_formula_of_their_own(module):
    """No caller outside the rule's module writes the half-gap formula by hand."""
    import importlib

    src = inspect.getsource(importlib.import_module(module))
    assert "global_set_" in src
    assert not re.search(r"0\.5 \* \([^)]*-\s*[\w.]*v_min\)", src)  # the hand-written half gap is gone


def test_the_former_name_warns_and_is_not_the_persistence_tolerance():
    """numerics.langevin.tie_tolerance, the former name of global_tie_tolerance, still answers with a
    DeprecationWarning; numerics.landscapes.tie_tolerance is another rule (a grid's values, relative to their
    range): on the same energies they differ."""
    import numpy as np

    import contrastive_bounds.numerics.langevin as langevin
    from contrastive_bounds.numerics.landscapes import tie_tolerance as persistence_tie_tolerance

    with pytest.warns(DeprecationWarning, match="global_tie_tolerance"):
        old = langevin.tie_tolerance
    assert old is global_tie_tolerance is langevin.global_tie_tolerance
    assert old(-250.0) == pytest.approx(2.5e-8, rel=1e-15)
    values = np.array([-250.0, -249.0, 10.0])
    eps = float(np.finfo(np.float64).eps)
    assert persistence_tie_tolerance(values) == pytest.approx(1e-12 * 260.0 + 16 * eps * 250.0, rel=1e-12)
    assert persistence_tie_tolerance(values) < 1e-9 < global_tie_tolerance(-250.0)
    with pytest.raises(AttributeError):
        langevin.no_such_name  # noqa: B018



def test_importing_the_former_name_warns_once_at_the_import_line_and_names_the_removal():
    """``from contrastive_bounds.numerics.langevin import tie_tolerance`` gives one DeprecationWarning, not two
    (importlib asks the package twice), attributed to the importing line, saying the release that removes the name
    (CHANGELOG "Deprecated")."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile("from contrastive_bounds.numerics.langevin import tie_tolerance", "user_script.py", "exec"), {})
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1
    assert deprecations[0].filename == "user_script.py"
    assert "will be removed in the next minor release (0.2.0): use global_tie_tolerance" in str(deprecations[0].message)
