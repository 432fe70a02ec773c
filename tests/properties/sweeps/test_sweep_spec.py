"""Sweep specs (properties/sweeps/_spec.py): grids, ranges, rows, profiles, and validation before anything runs."""

import math

import pytest

from contrastive_bounds.properties.sweeps._spec import builtin_specs, load_spec, parse_range, parse_spec, task_key
from contrastive_bounds.properties.sweeps._store import spec_differences

ANNEAL = {"kind": "anneal", "params": {"H": 1.0, "t_end": 1.0, "chains": 8, "step_size": 0.01}}


def _spec(**extra):
    data = {**ANNEAL, **extra}
    data["params"] = {**ANNEAL["params"], **extra.get("params", {})}
    return parse_spec(data, label="t")


def test_cartesian_product_times_seeds_in_file_order():
    """Every combination of the grid axes (in file order, seeds innermost) is one task with all defaults filled."""
    s = _spec(grid={"schedule": ["temperature", "fixed"], "c_over_h": [0.5, 1.0, 2.0]}, seeds="0..1")
    assert len(s.tasks) == 2 * 3 * 2
    combos = [(t.params["schedule"], t.params["c_over_h"], t.seed) for t in s.tasks]
    assert combos[:3] == [("temperature", 0.5, 0), ("temperature", 0.5, 1), ("temperature", 1.0, 0)]
    assert all(t.params["start"] == "trap" and t.params["landscape"] == "barrier-H" for t in s.tasks)
    assert [t.index for t in s.tasks] == list(range(12))
    assert len({t.key for t in s.tasks}) == 12


def test_ranges_integer_and_number_tables():
    """'a..b' and 'a..b..step' are inclusive integer ranges; {start, stop, num, scale} gives linspace/geomspace."""
    assert parse_range("seeds", "0..9") == list(range(10))
    assert parse_range("x", "2..10..4") == [2, 6, 10]
    lin = parse_range("x", {"start": 0.0, "stop": 1.0, "num": 5})
    assert lin == [0.0, 0.25, 0.5, 0.75, 1.0]
    log = parse_range("x", {"start": 0.01, "stop": 1.0, "num": 3, "scale": "log"})
    assert log[1] == pytest.approx(0.1, rel=1e-12) and log[0] == pytest.approx(0.01) and log[2] == pytest.approx(1.0)
    assert parse_range("x", [1, 2]) is None and parse_range("x", "fixed") is None
    with pytest.raises(ValueError, match="'5..1' is empty"):
        parse_range("seeds", "5..1")
    with pytest.raises(ValueError, match="a log range needs start > 0"):
        parse_range("tau", {"start": 0.0, "stop": 1.0, "num": 3, "scale": "log"})


def test_rows_are_combined_with_the_grid_and_concatenated():
    """Each [[rows]] entry (its own axes included) is crossed with the grid; rows follow each other."""
    s = parse_spec({"kind": "anneal", "params": {"chains": 8, "step_size": 0.01, "schedule": "fixed"},
                    "grid": {"c_over_h": [0.5, 1.0]},
                    "rows": [{"H": 1.0, "t_end": 1.0}, {"H": [5.0, 10.0], "t_end": 2.0}]}, label="t")
    assert [(t.params["H"], t.params["c_over_h"], t.source) for t in s.tasks] == [
        (1.0, 0.5, 0), (1.0, 1.0, 0), (5.0, 0.5, 1), (5.0, 1.0, 1), (10.0, 0.5, 1), (10.0, 1.0, 1)]


@pytest.mark.parametrize("data, message", [
    ({"kind": "anealing"}, "kind='anealing' is not a task kind"),
    ({**ANNEAL, "grid": {"taus": [1.0]}}, "grid.taus: unknown parameter 'taus' of kind 'anneal'"),
    ({**ANNEAL, "grid": {"c_over_h": []}}, "grid.c_over_h is empty"),
    ({**ANNEAL, "rows": []}, "rows is empty"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"], "c_over_h": [1.0, -2.0]}},
     "task with .*c_over_h=-2.0.*c_over_h=-2.0 is outside its domain"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"]}, "rows": [{"c": 1.0}, {"c": -1.0}]},
     r"rows\[1\] task with .*c=-1.0.*outside its domain"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"]}, "rows": [{"c": 1.0}, {"c": 1.0, "chains": 0}]},
     r"rows\[1\] sets \['chains'\], already set by params"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"], "c": [1.0]}, "seeds": [0, -1]}, "seeds: seed -1 must be an integer"),
    ({**ANNEAL, "bogus": 1}, r"unknown key\(s\) \['bogus'\]"),
    ({"kind": "bound", "bound": "alignment.frobenius", "seeds": [0, 1]}, "kind 'bound' is deterministic"),
    ({"kind": "check"}, "kind 'check' needs the spec key 'check'"),
    ({"kind": "check", "check": "A4.convergense"}, "did you mean A4.convergence"),
    ({"kind": "anneal", "check": "A4.convergence"}, "key 'check' belongs to kind 'check'"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"], "c": [1.0], "c_over_h": [1.0]}}, "give exactly one of c and c_over_h"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"], "c": [1.0, 1.0]}}, "the grid repeats a task"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"], "c": [1.0]}, "report": {"curves": {"x": "tau"}}},
     "report.curves.x = 'tau' is not a column"),
    ({**ANNEAL, "grid": {"schedule": ["fixed"], "c": [1.0]}, "report": {"heatmap": {"x": "c"}}}, "report.heatmap: missing y"),
])
def test_invalid_specs_are_refused_naming_the_key_and_row(data, message):
    """Every mistake is found before anything runs, and the message names the key (and the row of a task)."""
    with pytest.raises(ValueError, match=message):
        parse_spec(data, label="t")


def test_profiles_update_params_and_grid_and_replace_rows_and_seeds():
    """A profile replaces seeds/rows and updates params/grid key by key; an unknown profile is refused."""
    data = {**ANNEAL, "grid": {"schedule": ["fixed"], "c": [1.0, 2.0]}, "seeds": "0..3",
            "profiles": {"quick": {"seeds": [0], "grid": {"c": [1.0]}, "params": {"chains": 4}}}}
    full, quick = parse_spec(data, label="t"), parse_spec(data, label="t", profile="quick")
    assert len(full.tasks) == 8 and len(quick.tasks) == 1
    assert quick.tasks[0].params["chains"] == 4 and quick.tasks[0].params["H"] == 1.0
    assert full.fingerprint != quick.fingerprint
    with pytest.raises(ValueError, match="--profile='slow'"):
        parse_spec(data, label="t", profile="slow")


def test_task_key_depends_on_every_parameter_and_the_seed():
    """The key is a hash of (kind, target, params, seed): equal inputs give equal keys, any change another key."""
    p = {"a": 1.0, "b": "x"}
    k = task_key("anneal", "", p, 0)
    assert k == task_key("anneal", "", dict(reversed(list(p.items()))), 0)
    assert len({k, task_key("anneal", "", p, 1), task_key("anneal", "", {**p, "a": 1.5}, 0),
                task_key("bound", "", p, 0)}) == 4


def test_spec_differences_name_each_changed_key():
    """A changed spec is described key by key (what --resume prints when it refuses)."""
    a = {"grid": {"tau": [0.1, 0.5]}, "params": {"steps": 10}, "seeds": [0]}
    b = {"grid": {"tau": [0.1]}, "params": {"steps": 10, "delta": 0.1}, "seeds": [0]}
    diff = spec_differences(a, b)
    assert diff == ["grid.tau: [0.1, 0.5] -> [0.1]", "params.delta: '<absent>' -> 0.1"]
    assert spec_differences(a, a) == []


def test_builtin_specs_parse_in_every_profile_with_the_stated_design():
    """seed-table: H* in {1, 5, 10}, four schedule families, enough chains for a Clopper-Pearson half-width <= 2 % at
    95 % at the widest point (p = 1/2, scipy's beta quantiles), horizons
    1e3/1e5/1e8 steps; its quick profile is small; theorem1-grid crosses C x B x tau x eta x seeds."""
    import tomllib

    from scipy import stats

    specs = builtin_specs()
    assert {"seed-table", "theorem1-grid"} <= set(specs)
    for name, text in specs.items():
        for prof in ["default", *tomllib.loads(text).get("profiles", {})]:
            assert load_spec(name, profile=prof).tasks
    seed = load_spec("seed-table")
    assert {t.params["H"] for t in seed.tasks} == {1.0, 5.0, 10.0}
    assert {t.params["schedule"] for t in seed.tasks} == {"temperature", "linear", "exponential", "fixed"}
    n = seed.tasks[0].params["chains"]
    k = n // 2
    lo, hi = stats.beta.ppf(0.025, k, n - k + 1), stats.beta.ppf(0.975, k + 1, n - k)  # Clopper-Pearson at k/n ~ 1/2
    assert (hi - lo) / 2 <= 0.02
    steps = {t.params["H"]: round(t.params["t_end"] / t.params["step_size"]) for t in seed.tasks}
    assert steps == {1.0: 10**3, 5.0: 10**5, 10.0: 10**8}
    assert len(load_spec("seed-table", profile="quick").tasks) <= 36
    grid = load_spec("theorem1-grid")
    assert len(grid.tasks) == 2 * 2 * 3 * 2 * 3 and grid.kind.name == "align-simulate"
    assert math.isfinite(grid.cost_seconds())
