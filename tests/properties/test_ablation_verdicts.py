"""Verdicts of the ablation checks A8.6-A8.8 from sweep rows (properties.checks.landscape_ablations).

The rows are written by hand into a results.parquet, as `contrastive-bounds sweep ablations` writes them,
so every verdict path is exercised without a search: a falling H* (supported), a rising one
(refuted), both (mixed); an Arrhenius interval that excludes the network barrier (violated); an
incomplete network (inconclusive); success against the radius.
"""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from contrastive_bounds.properties.checks.ablation_rows import ablation_rows, combine_verdicts, trend_verdict
from contrastive_bounds.properties.checks.registry import registered_checks


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


def _row(ablation, n, d, h, **kw):
    minima = kw.pop("minima", [{"energy": -1.0, "multiplicity": 1, "hits": 100, "verified": True, "barrier": None,
                                "global": True}])
    base = {"ablation": ablation, "num_points": n, "dim": d, "tau": 0.1, "radius": 1.0, "pairs": None, "seed": 0,
            "critical_height": h, "catoni_difficulty": 0.0, "status": "complete" if h > 0 else "barrier-free within this search",
            "complete": True, "barrier_free": h == 0, "num_minima": 2 if h > 0 else 1, "num_ts_verified": 3,
            "num_ts_rejected": 0, "v_min": -10.0, "search_starts": 256, "search_hops": 64, "search_single_ended": 12,
            "search_bands": 1, "search_refinements": 13, "trap_barrier": h if h > 0 else None, "arrhenius_barrier": None,
            "arrhenius_lo": None, "arrhenius_hi": None, "arrhenius_linear": None, "success_count": None, "chains": 256,
            "c": None, "t0": 2.0, "t_end": 10.0, "empirical": h, "ci_lo": h, "ci_hi": h, "verdict": "measured",
            "details_json": json.dumps({"minima": minima})}
    base.update(kw)
    return base


def _folder(tmp_path, rows):
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "results.parquet")
    return str(tmp_path)


def _run(check_id, folder):
    spec = registered_checks()[check_id]
    return spec.fn({**spec.defaults["quick"], "sweep": folder}, 0)


def test_dimension_check_supported_and_refuted_with_effort_table(tmp_path):
    """H* 0.19 -> 0 -> 0 over d: supported, holds, one table row per landscape with its search effort;
    H* rising with d in a second series makes the claim mixed."""
    rows = [_row("dimension", 6, d, h) for d, h in ((2, 0.19), (3, 0.0), (4, 0.0))]
    out = _run("A8.6_dimension", _folder(tmp_path, rows))
    assert out.verdict == "holds" and out.details["claim_verdict"] == "supported"
    assert len(out.table) == 3 and {"H*", "starts", "hops", "TS verified", "status", "rarest hits"} <= set(out.table[0])
    assert out.plots and out.summary.startswith("claim 'higher d lowers barriers': SUPPORTED")
    rows += [_row("dimension", 10, d, h) for d, h in ((3, 0.0), (4, 0.05))]
    (tmp_path / "b").mkdir()
    out = _run("A8.6_dimension", _folder(tmp_path / "b", rows))
    assert out.details["claim_verdict"] == "mixed"


def test_negatives_check_violated_when_arrhenius_excludes_the_barrier(tmp_path):
    """An Arrhenius interval that excludes the network's barrier of the trap turns the check red; one
    that contains it holds; an incomplete network makes it inconclusive."""
    good = [_row("negatives", 4, 2, 0.28, arrhenius_barrier=0.27, arrhenius_lo=0.2, arrhenius_hi=0.35),
            _row("negatives", 6, 2, 0.19), _row("negatives", 8, 2, 0.02)]
    out = _run("A8.7_negatives", _folder(tmp_path, good))
    assert out.verdict == "holds" and out.details["claim_verdict"] == "supported"
    assert out.table[0]["barrier inside"] is True
    bad = [dict(good[0], arrhenius_barrier=0.15, arrhenius_lo=0.1, arrhenius_hi=0.2)] + good[1:]
    (tmp_path / "b").mkdir()
    out = _run("A8.7_negatives", _folder(tmp_path / "b", bad))
    assert out.verdict == "violated" and "excludes the network barrier" in out.summary
    incomplete = good[:2] + [dict(good[2], complete=False, status="incomplete: 1 non-global minimum")]
    (tmp_path / "c").mkdir()
    out = _run("A8.7_negatives", _folder(tmp_path / "c", incomplete))
    assert out.verdict == "inconclusive"


def test_curvature_check_reads_success_against_radius_and_checks_tau_over_r2(tmp_path):
    """Success 1.0, 1.0, 0.02 at R = 0.5, 1, 2 (Clopper-Pearson at 99.9 %): supported, and the radius-R potential
    equals the tau/R² one at random configurations and at the stored minima."""
    z = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]
    rows = [_row("curvature", 4, 2, h, radius=r, success_count=s, chains=256, c=0.2, measure="schedule",
                 minima=[{"energy": 0.0, "multiplicity": 1, "hits": 1, "verified": True, "barrier": None, "global": True, "z": z}])
            for r, h, s in ((0.5, 0.0, 256), (1.0, 0.28, 255), (2.0, 1.4, 5))]
    out = _run("A8.8_curvature", _folder(tmp_path, rows))
    assert out.verdict == "holds" and out.details["claim_verdict"] == "supported"
    assert out.details["radius_tau_equivalence_max_rel"] < 1e-12
    assert out.details["radius_tau_equivalence_points"] == 3 * 5
    assert "tau/R²" in out.summary


def test_ablation_rows_refuses_a_folder_without_the_ablation(tmp_path):
    """A sweep folder without results, or without rows of the asked ablation, is refused by name."""
    with pytest.raises(ValueError, match="no results.parquet"):
        ablation_rows("dimension", "quick", str(tmp_path))
    _folder(tmp_path, [_row("negatives", 4, 2, 0.28)])
    with pytest.raises(ValueError, match="ablation='dimension'"):
        ablation_rows("dimension", "quick", str(tmp_path))
    with pytest.raises(ValueError, match="ablation="):
        ablation_rows("width", "quick")
