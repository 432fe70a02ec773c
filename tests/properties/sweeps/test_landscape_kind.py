"""Sweep kind `landscape` and the built-in spec `ablations` (properties.sweeps.kinds.landscape)."""

import json

import pytest

from contrastive_bounds.properties.sweeps import execute_task, load_spec
from contrastive_bounds.properties.sweeps.kinds import get_kind
from contrastive_bounds.properties.sweeps._spec import Task, task_key


def test_ablations_spec_parses_in_every_profile_with_the_three_ablations():
    """quick: 9 tasks (d in {2,3,4}; N in {4,6,8}; R in {0.5,1,2}); thorough = default: the full grids."""
    quick = load_spec("ablations", profile="quick")
    assert len(quick.tasks) == 9
    assert {t.params["ablation"] for t in quick.tasks} == {"dimension", "negatives", "curvature"}
    full = load_spec("ablations", profile="thorough")
    assert len(full.tasks) == len(load_spec("ablations").tasks) == 47
    assert len(load_spec("ablations", profile="medium").tasks) == 18
    two = [t for t in full.tasks if t.params.get("pairs") == [[0, 1], [2, 3]]]
    assert [t.params["num_points"] for t in two] == [4, 5, 6, 7, 8]


@pytest.mark.parametrize("given, match", [
    ({"num_points": 2, "dim": 2, "tau": 0.1}, "num_points"),
    ({"num_points": 4, "dim": 2, "tau": 0.0}, "tau"),
    ({"num_points": 4, "dim": 2, "tau": 0.1, "pairs": [[0, 0]]}, "itself"),
    ({"num_points": 4, "dim": 2, "tau": 0.1, "measure": "schedule"}, "needs c"),
    ({"num_points": 4, "dim": 2, "tau": 0.1, "measure": "arrhenius", "barrier_over_t": [2.0, 3.0]}, "at least 3"),
    ({"num_points": 4, "dim": 2, "tau": 0.1, "radius": -1.0}, "radius"),
])
def test_bad_parameters_are_refused_by_name(given, match):
    """Every bad value names its parameter (validated before anything runs)."""
    with pytest.raises(ValueError, match=match):
        get_kind("landscape").resolve(given)


def _task(**given):
    kind = get_kind("landscape")
    p = kind.resolve({"num_points": 4, "dim": 2, "tau": 0.1, "starts": 128, **given})
    return Task(0, "landscape", "", p, 0, task_key("landscape", "", p, 0))


def test_network_row_is_valid_and_reports_h_star_with_its_effort():
    """N = 4 on S¹, tau = 0.1: H* = 0.28190425 (docs table), complete, the effort in the row; a valid row."""
    row = execute_task(_task())
    assert row["error"] is None, row["error"]
    assert row["critical_height"] == pytest.approx(0.28190425, abs=1e-8)
    assert row["status"] == "complete" and row["complete"] and not row["barrier_free"]
    assert row["search_starts"] == 128 and row["num_ts_verified"] >= 1 and row["non_degenerate"] is True
    details = json.loads(row["details_json"])
    assert sorted(m["energy"] for m in details["minima"])[0] == pytest.approx(row["v_min"])
    assert details["effort"]["seconds"] is None  # rows are pure: no clock


@pytest.mark.slow
def test_schedule_row_measures_success_on_the_radius_clock():
    """measure = 'schedule' at R = 1 from the R = 1 trap: a success fraction with its interval, reached >= success."""
    row = execute_task(_task(measure="schedule", c=0.4, t0=2.0, t_end=1.0, chains=32))
    assert row["error"] is None, row["error"]
    assert 0 <= row["success_count"] <= row["reached_count"] <= 32
    assert row["ci_lo"] <= row["empirical"] <= row["ci_hi"]
    assert row["level"] == pytest.approx(row["v_min"] + 0.5 * (json.loads(row["details_json"])["start_energy"] - row["v_min"]))


@pytest.mark.parametrize("profile", ["quick", "medium", "thorough", "default"])
def test_the_checks_read_the_ablation_grid_as_the_sweep_expands_it(profile):
    """The ablation checks read the built-in spec `ablations` as data (they import nothing of the sweeps): their
    tasks (parameters with the kind's defaults, seeds) are the sweep's own, profile by profile."""
    from contrastive_bounds.properties.checks._ablation_rows import ablation_tasks

    assert ablation_tasks(profile) == [(t.params, t.seed) for t in load_spec("ablations", profile=profile).tasks]


def test_the_row_defaults_are_the_kinds():
    """One source of a row's defaults: every optional parameter of the kind defaults to ROW_DEFAULTS."""
    from contrastive_bounds.properties.checks._landscape_rows import ROW_DEFAULTS

    kind = get_kind("landscape")
    assert {p.name: p.default for p in kind.params if p.name in ROW_DEFAULTS} == ROW_DEFAULTS
