"""Verdicts of the ablation checks A8.6-A8.8 from sweep rows (properties.checks.landscape_ablations).

The rows are written by hand into a results.parquet, as `contrastive-bounds sweep ablations` writes them,
so every verdict path is exercised without a search. Each row's minima are real critical points of the
toolkit's InfoNCE (every point at ±e1: the Riemannian gradient vanishes) with the toolkit's energies, as a
search stores them: a falling H* (supported), a rising one (refuted), both (mixed); an Arrhenius interval
that excludes the network barrier (violated); an incomplete network (inconclusive); success against the
radius; and the rows that must turn A8.6 red: an H* its own table contradicts, a stored energy or a stored
"minimum" the separately written InfoNCE disagrees with, a NaN.
"""

import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from contrastive_bounds.numerics._precision import enable_x64
from contrastive_bounds.properties.checks._ablation_rows import ablation_rows, combine_verdicts, trend_verdict
from contrastive_bounds.properties.checks._registry import registered_checks


def test_trend_verdict_reads_falls_rises_ties_and_intervals():
    """Falls only: supported; rises only or no change: refuted; both: mixed; overlapping intervals are ties."""
    assert trend_verdict([2, 3, 4], [0.3, 0.0, 0.0])[0] == "supported"
    assert trend_verdict([2, 3, 4], [0.0, 0.1, 0.1])[0] == "refuted"
    assert trend_verdict([2, 3], [0.1, 0.1 + 1e-12], tie=1e-9)[0] == "refuted"
    assert trend_verdict([4, 6, 8, 10], [0.28, 0.19, 0.02, 0.08])[0] == "mixed"
    assert trend_verdict([3, 1, 2], [0.0, 0.3, 0.1])[0] == "supported"  # sorted by x first
    v, _, steps = trend_verdict([1, 2, 3], [1.0, 0.9, 0.1], lo=[0.95, 0.8, 0.0], hi=[1.0, 1.0, 0.2])
    assert (v, steps) == ("supported", [0, -1])
    assert combine_verdicts(["supported", "supported"]) == "supported"
    assert combine_verdicts(["supported", "refuted"]) == "mixed"
    with pytest.raises(ValueError):
        trend_verdict([1], [1.0])


def _configs(n, d):
    """Two critical points of InfoNCE on (S^{d-1})^n: pairs alternating at +e1/-e1 (the lower), all at +e1."""
    e1 = np.zeros(d)
    e1[0] = 1.0
    alt = np.array([e1 if (i // 2) % 2 == 0 else -e1 for i in range(n)])
    return alt, np.tile(e1, (n, 1))


def _row(ablation, n, d, h, radius=1.0, **kw):
    """A sweep row whose table is consistent: a global minimum and, for h > 0, a trap with barrier h."""
    from contrastive_bounds.numerics.landscapes.network import infonce_spec

    enable_x64()
    spec = infonce_spec(n, d, 0.1, None, radius=radius)
    alt, col = _configs(n, d)
    e_glob, e_trap = float(spec.energy(alt)), float(spec.energy(col))
    assert e_trap > e_glob
    minima = [{"energy": e_glob, "multiplicity": 1, "hits": 100, "verified": True, "barrier": None, "global": True,
               "z": alt.tolist()}]
    if h > 0:
        minima.append({"energy": e_trap, "multiplicity": 1, "hits": 40, "verified": True, "barrier": h, "global": False,
                       "z": col.tolist()})
    minima = kw.pop("minima", minima)
    base = {"ablation": ablation, "num_points": n, "dim": d, "tau": 0.1, "radius": radius, "pairs": None, "seed": 0,
            "critical_height": h, "catoni_difficulty": h / (e_trap - e_glob) if h > 0 else 0.0,
            "status": "complete" if h > 0 else "barrier-free within this search", "complete": True,
            "barrier_free": h == 0, "num_minima": len(minima), "num_ts_verified": 3, "num_ts_rejected": 0,
            "v_min": e_glob, "search_starts": 256, "search_hops": 64, "search_single_ended": 12, "search_bands": 1,
            "search_refinements": 13, "trap_barrier": h if h > 0 else None, "arrhenius_barrier": None,
            "arrhenius_lo": None, "arrhenius_hi": None, "arrhenius_linear": None, "success_count": None, "chains": 256,
            "c": None, "t0": 2.0, "t_end": 10.0, "empirical": h, "ci_lo": h, "ci_hi": h, "verdict": "measured",
            "details_json": json.dumps({"minima": minima})}
    base.update(kw)
    return base


def _folder(tmp_path, rows, name="f"):
    folder = tmp_path / name
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), folder / "results.parquet")
    return str(folder)


def _run(check_id, folder):
    spec = registered_checks()[check_id]
    return spec.fn({**spec.defaults["quick"], "sweep": folder}, 0)


@pytest.mark.slow
def test_dimension_check_supported_and_refuted_with_effort_table(tmp_path):
    """H* 0.19 -> 0 -> 0 over d: supported, holds (both network conditions hold), one table row per landscape
    with its search effort; H* rising with d in a second series makes the claim mixed."""
    rows = [_row("dimension", 6, d, h) for d, h in ((2, 0.19), (3, 0.0), (4, 0.0))]
    out = _run("A8.6_dimension", _folder(tmp_path, rows))
    assert out.verdict == "holds" and out.details["claim_verdict"] == "supported"
    assert [(c.kind, c.ok) for c in out.conditions] == [("exact", True), ("independent", True)]
    assert out.conditions[1].detail == "4 minima"  # every stored minimum was re-evaluated
    assert len(out.table) == 3 and {"H*", "starts", "hops", "TS verified", "status", "rarest hits"} <= set(out.table[0])
    assert out.plots and out.summary.startswith("claim 'higher d lowers barriers': SUPPORTED")
    rows += [_row("dimension", 10, d, h) for d, h in ((3, 0.0), (4, 0.05))]
    out = _run("A8.6_dimension", _folder(tmp_path, rows, "b"))
    assert out.details["claim_verdict"] == "mixed" and out.verdict == "holds"


def test_dimension_check_fails_on_data_that_contradict_the_code(tmp_path):
    """A8.6 turns red (violated, a deterministic condition named) when a row's H* is not what its own table of
    minima gives, when a stored energy is not the InfoNCE energy at the stored coordinates, when a stored
    'minimum' is not a critical point, and when H* is NaN; the claim's verdict does not rescue it."""
    good = [_row("dimension", 6, d, h) for d, h in ((2, 0.19), (3, 0.0), (4, 0.0))]

    def case(rows, name):
        out = _run("A8.6_dimension", _folder(tmp_path, rows, name))
        assert out.verdict == "violated", out.summary
        return {c.kind for c in out.failed_conditions}, out

    wrong_h = [dict(good[0], critical_height=0.25)] + good[1:]  # table: the trap's barrier is 0.19
    kinds, out = case(wrong_h, "h")
    assert kinds == {"exact"} and "largest barrier of a non-global minimum is 0.19" in out.summary
    minima = json.loads(good[0]["details_json"])["minima"]
    shifted = [dict(minima[0], energy=minima[0]["energy"] + 1e-6)] + minima[1:]
    kinds, _ = case([dict(good[0], details_json=json.dumps({"minima": shifted}), v_min=shifted[0]["energy"],
                          catoni_difficulty=0.19 / (minima[1]["energy"] - shifted[0]["energy"]))] + good[1:], "energy")
    assert kinds == {"independent"}
    z = np.asarray(minima[1]["z"])
    tilted = z.copy()
    tilted[0] = [math.cos(0.3), math.sin(0.3)]  # off the critical point; the energy stored is the true one there
    from contrastive_bounds.numerics.landscapes.network import infonce_spec

    e = float(infonce_spec(6, 2, 0.1).energy(tilted))
    not_critical = [minima[0], dict(minima[1], z=tilted.tolist(), energy=e)]
    kinds, out = case([dict(good[0], details_json=json.dumps({"minima": not_critical}),
                            catoni_difficulty=0.19 / (e - minima[0]["energy"]))] + good[1:], "grad")
    assert kinds == {"independent"} and "not a critical point" in out.summary
    kinds, _ = case([dict(good[0], critical_height=float("nan"))] + good[1:], "nan")
    assert "exact" in kinds


def test_negatives_check_violated_when_arrhenius_excludes_the_barrier(tmp_path):
    """An Arrhenius interval that excludes the network's barrier of the trap turns the check red with a small
    p-value (a stochastic test, Bonferroni over the rows); one that contains it holds with p near 1; an
    incomplete network makes it inconclusive."""
    good = [_row("negatives", 4, 2, 0.28, arrhenius_barrier=0.27, arrhenius_lo=0.2, arrhenius_hi=0.35),
            _row("negatives", 6, 2, 0.19), _row("negatives", 8, 2, 0.02)]
    out = _run("A8.7_negatives", _folder(tmp_path, good))
    assert out.verdict == "holds" and out.details["claim_verdict"] == "supported"
    assert out.table[0]["barrier inside"] is True and out.p_value > 0.5 and out.false_alarm == pytest.approx(1e-3)
    bad = [dict(good[0], arrhenius_barrier=0.15, arrhenius_lo=0.1, arrhenius_hi=0.2)] + good[1:]
    out = _run("A8.7_negatives", _folder(tmp_path, bad, "b"))
    assert out.verdict == "violated" and "excludes the network barrier" in out.summary
    assert out.p_value < 1e-6 and not out.failed_conditions  # stochastic: Holm weighs it
    incomplete = good[:2] + [dict(good[2], complete=False, status="incomplete: 1 non-global minimum")]
    out = _run("A8.7_negatives", _folder(tmp_path, incomplete, "c"))
    assert out.verdict == "inconclusive"


@pytest.mark.slow
def test_curvature_check_reads_success_against_radius_and_checks_tau_over_r2(tmp_path):
    """Success 1.0, 1.0, 0.02 at R = 0.5, 1, 2 (Clopper-Pearson at 99.9 %): supported, and the radius-R potential
    equals the tau/R² one at random configurations and at the stored minima (an exact condition)."""
    rows = [_row("curvature", 4, 2, h, radius=r, success_count=s, chains=256, c=0.2, measure="schedule")
            for r, h, s in ((0.5, 0.0, 256), (1.0, 0.28, 255), (2.0, 1.4, 5))]
    out = _run("A8.8_curvature", _folder(tmp_path, rows))
    assert out.verdict == "holds" and out.details["claim_verdict"] == "supported"
    assert out.details["radius_tau_equivalence_max_rel"] < 1e-12
    assert out.details["radius_tau_equivalence_points"] == 3 * 4 + 5  # 4 random per row + the 5 stored minima
    assert "tau/R²" in out.summary and len(out.conditions) == 3 and all(c.ok for c in out.conditions)


def test_ablation_rows_refuses_a_folder_without_the_ablation(tmp_path):
    """A sweep folder without results, or without rows of the asked ablation, is refused by name."""
    with pytest.raises(ValueError, match="no results.parquet"):
        ablation_rows("dimension", "quick", str(tmp_path))
    folder = _folder(tmp_path, [_row("negatives", 4, 2, 0.28)])
    with pytest.raises(ValueError, match="ablation='dimension'"):
        ablation_rows("dimension", "quick", folder)
    with pytest.raises(ValueError, match="ablation="):
        ablation_rows("width", "quick")


def test_quick_ablation_verdicts_name_their_grid_and_point_to_the_full_one():
    """The quick A8.6-A8.8 read 'SUPPORTED on this grid' while the full grid reads mixed: a verdict now names the
    grid it is from, and a reduced grid's points to the full grid and to docs/annealing.md."""
    from contrastive_bounds.properties.checks._landscape_ablations import FULL_GRID_COMMAND, _outcome, grid_text

    grid, caveat = grid_text({"profile": "quick", "sweep": ""})
    assert grid == "the 'quick' grid of sweep spec 'ablations' (a reduced grid)"
    assert FULL_GRID_COMMAND in caveat and "docs/annealing.md" in caveat
    assert grid_text({"profile": "thorough", "sweep": ""}) == ("the 'thorough' grid of sweep spec 'ablations' "
                                                               "(the full grid)", "")
    assert grid_text({"profile": "quick", "sweep": "abl"}) == ("the grid of the sweep in 'abl'", "")
    o = _outcome("c", [], {"s": ("supported", "falls")}, [], [], [], "", {}, params={"profile": "quick", "sweep": ""})
    assert o.summary.startswith(f"claim 'c': SUPPORTED on {grid}, 0 landscapes{caveat}. s: supported (falls)")
    assert o.details["grid"] == grid
