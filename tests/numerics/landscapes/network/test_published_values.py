"""Every published H* comes from one place: docs/data/landscape-values.json, written from the documented runs.

The table on docs/landscape-networks.md, the ablation tables of docs/annealing.md (A8.6–A8.8) and the InfoNCE
paragraph on docs/annealing.md (the README's findings, moved there) must print the values of that file; the file says which commands and versions made
it and nothing of the machine; the two runs must agree where they share a landscape; every landscape's two
search seeds must agree; the A8.6–A8.8 verdicts printed on the annealing page must be what the checks derive
from the stored grid; and fresh searches run now reproduce the table's rows (minima classes, H*, status) and
the A8.6 grid of the main job (H* and the trend verdict).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[4]
VALUES = json.loads((ROOT / "docs" / "data" / "landscape-values.json").read_text())
LANDSCAPES = (ROOT / "docs" / "landscape-networks.md").read_text()
ANNEALING = (ROOT / "docs" / "annealing.md").read_text()


def _number(cell: str) -> float:
    cell = cell.replace("**", "").replace("−", "-").strip()
    return float(re.match(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", cell).group(0))


def _close(printed: str, value: float, digits: int) -> bool:
    """``printed`` is ``value`` rounded to ``digits`` significant digits (a printed 0 only for an exact 0)."""
    p = _number(printed)
    if p == 0.0 or value == 0.0:
        return p == value
    return float(f"{value:.{digits}g}") == pytest.approx(p, rel=1e-12)


def _table_entry(n, d, tau, radius=1.0):
    (e,) = [e for e in VALUES["table"] if (e["num_points"], e["dim"], e["tau"], e["radius"]) == (n, d, tau, radius)]
    return e


def _docs_table_rows():
    section = LANDSCAPES.split("## Which small InfoNCE landscapes have H\\* > 0")[1].split("\n## ")[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and cells[0].isdigit():
            tau_cell = cells[2]
            radius = float(re.search(r"R = ([0-9.]+)", tau_cell).group(1)) if "R =" in tau_cell else 1.0
            yield int(cells[0]), int(cells[1]), float(tau_cell.split(",")[0]), radius, cells[3], cells[-1]


def test_the_values_file_says_how_it_was_made_and_nothing_about_the_machine():
    """Each run names the commands that regenerate it (contrastive-bounds sweep ...) and the file the versions; no
    absolute folder of the machine the runs lived on (the file used to record /work/artifacts/... paths)."""
    text = (ROOT / "docs" / "data" / "landscape-values.json").read_text()
    assert {r["source"] for r in VALUES["runs"]} == {"landscape-table", "ablations"}
    for run in VALUES["runs"]:
        assert run["commands"] and all(c.startswith("contrastive-bounds sweep " + run["source"]) for c in run["commands"])
    assert VALUES["versions"]["contrastive-bounds"] and "make_landscape_values.py" in VALUES["regenerate"]
    assert not re.search(r'"(/|[A-Za-z]:\\\\)[^"]*"', text) and not any(k.endswith("_run") for k in VALUES)


def test_every_landscape_of_the_runs_has_agreeing_seeds_and_a_complete_network():
    """Both search seeds of every stored landscape found the same minima and H*; every network is complete or
    barrier-free (closed under single-ended exploration)."""
    for e in VALUES["table"] + [e for e in VALUES["grid"] if e["measure"] == "network" or e["ablation"] == "dimension"]:
        assert e["complete"], e
    for e in VALUES["table"]:
        assert e["seeds_agree"] and len(e["seeds"]) == 2, (e["num_points"], e["dim"], e["tau"], e["radius"])


def test_the_landscape_page_table_prints_the_stored_values():
    """Each row of the table on docs/landscape-networks.md: H* to its printed digits and the status of both
    seeds; every stored landscape appears once."""
    seen = set()
    for n, d, tau, radius, printed, status in _docs_table_rows():
        e = _table_entry(n, d, tau, radius)
        digits = len(re.sub(r"^0\.0*|\.|e.*$", "", printed.replace("−", ""))) if printed != "0" else 1
        assert _close(printed, e["critical_height"], max(digits, 1)), (n, d, tau, radius, printed, e["critical_height"])
        assert {s["status"] for s in e["seeds"].values()} == {status}
        seen.add((n, d, tau, radius))
    assert seen == {(e["num_points"], e["dim"], e["tau"], e["radius"]) for e in VALUES["table"]}


def _grid(ablation, **match):
    out = [e for e in VALUES["grid"] if e["ablation"] == ablation
           and all(e.get(k) == v for k, v in match.items())]
    return out


def test_the_two_runs_agree_where_they_share_a_landscape():
    """A landscape in both the table run (64 random starts) and the grid run (256): the same H* to 1e-9."""
    shared = 0
    for g in VALUES["grid"]:
        if g["pairs"] is not None:
            continue
        for t in VALUES["table"]:
            if (t["num_points"], t["dim"], t["tau"], t["radius"]) == (g["num_points"], g["dim"], g["tau"], g["radius"]):
                assert g["critical_height"] == pytest.approx(t["critical_height"], abs=1e-9)
                shared += 1
    assert shared >= 8


def test_the_annealing_page_prints_the_stored_grid():
    """A8.6 table: H* per (N, tau, d) to 4 significant digits; A8.7: H* per N for N/2 pairs and for two pairs,
    and the Arrhenius exponents to 3; A8.8: H* and the success fractions per radius."""
    sec = ANNEALING.split("**A8.6,")[1].split("**A8.7,")[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in sec.splitlines() if line.startswith("| ")]
    dims = [int(re.search(r"d = (\d+)", c).group(1)) for c in rows[0] if c.startswith("d = ")]
    checked = 0
    for cells in (c for c in rows[1:] if c[0].isdigit()):
        n, tau = int(cells[0]), float(cells[1])
        for d, cell in zip(dims, cells[2:]):
            (e,) = _grid("dimension", num_points=n, dim=d, tau=tau)
            assert _close(cell.split("(")[0], e["critical_height"], 4), (n, tau, d, cell, e["critical_height"])
            checked += 1
    assert checked == len(_grid("dimension"))
    sec = ANNEALING.split("**A8.7,")[1].split("**A8.8,")[0]
    table = {c[0]: c[1:] for c in ([x.strip() for x in line.strip().strip("|").split("|")]
                                    for line in sec.splitlines() if line.startswith("| "))}
    head = [int(x.split()[0]) for x in next(v for k, v in table.items() if k.startswith("N (negatives"))]
    for label, pairs in (("$H^*$, N/2 pairs", None), ("$H^*$, two pairs + negatives", [[0, 1], [2, 3]])):
        for n, cell in zip(head, table[label]):
            found = [e for e in _grid("negatives", num_points=n) if e["pairs"] == pairs]
            if not cell:
                assert not found
                continue
            (e,) = found
            assert _close(cell, e["critical_height"], 4), (label, n, cell)
    for n, cell in zip(head, table["Arrhenius exponent [99.9 %]"]):
        if cell and cell != "—":
            (e,) = [e for e in _grid("negatives", num_points=n) if e["measure"] == "arrhenius"]
            seed = next(iter(e["seeds"].values()))
            assert _close(cell.split("[")[0], seed["arrhenius_barrier"], 3), (n, cell)
    sec = ANNEALING.split("**A8.8,")[1].split("\n## ")[0]
    table = {c[0]: c[1:] for c in ([x.strip() for x in line.strip().strip("|").split("|")]
                                    for line in sec.splitlines() if line.startswith("| "))}
    radii = [float(x.split()[0]) for x in table["R (curvature 1/R²)"]]
    for r, h_cell, s_cell in zip(radii, table["$H^*$"], table["success [99.9 %]"]):
        (e,) = _grid("curvature", radius=r)
        seed = next(iter(e["seeds"].values()))
        assert _close(h_cell, e["critical_height"], 4), (r, h_cell)
        assert _number(s_cell.split("[")[0]) == pytest.approx(seed["success_count"] / seed["chains"], abs=5e-4)


def _parquet(tmp_path, ablation):
    rows = []
    for e in _grid(ablation):
        for seed, s in e["seeds"].items():
            rows.append({"ablation": ablation, "num_points": e["num_points"], "dim": e["dim"], "tau": e["tau"],
                         "radius": e["radius"], "pairs": None if e["pairs"] is None else json.dumps(e["pairs"]),
                         "measure": e["measure"], "search_seed": int(seed), "seed": 0,
                         "critical_height": s["critical_height"], "status": s["status"], "complete": s["complete"],
                         "barrier_free": s["status"].startswith("barrier-free"), "v_min": min(m["energy"] for m in s["minima"]),
                         "catoni_difficulty": s.get("catoni_difficulty"), "num_minima": len(s["minima"]), "num_ts_verified": 0,
                         "num_ts_rejected": 0, "search_starts": 0, "search_hops": 0, "search_single_ended": 0,
                         "search_bands": 0, "verdict": "measured", "c": 0.2, "t0": 2.0, "t_end": 20.0,
                         **{k: s.get(k) for k in ("arrhenius_barrier", "arrhenius_lo", "arrhenius_hi", "arrhenius_linear",
                                                  "trap_barrier", "success_count", "chains", "reached_count")},
                         "details_json": json.dumps({"minima": s["minima"]})})
    folder = tmp_path / ablation
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(rows), folder / "results.parquet")
    return str(folder)


@pytest.mark.parametrize("check_id, ablation, heading", [("A8.6_dimension", "dimension", "**A8.6,"),
                                                         ("A8.7_negatives", "negatives", "**A8.7,"),
                                                         ("A8.8_curvature", "curvature", "**A8.8,")])
def test_the_printed_verdicts_are_what_the_checks_derive_from_the_stored_grid(tmp_path, check_id, ablation, heading):
    """Each check, run on the stored grid rows, gives the claim verdict the annealing page prints."""
    from contrastive_bounds.properties.checks._registry import registered_checks

    spec = registered_checks()[check_id]
    out = spec.fn({**spec.defaults["quick"], "sweep": _parquet(tmp_path, ablation)}, 0)
    printed = re.search(re.escape(heading) + r"[^*]*: (\w+)", ANNEALING).group(1)
    assert out.details["claim_verdict"] == printed, out.summary


def test_the_findings_paragraph_prints_the_stored_values():
    """The InfoNCE findings paragraph (docs/annealing.md, moved there from the README): H* of N = 10, d = 3, tau = 0.05 and of the N = 4 trap, and the A8.6-A8.8
    numbers it quotes, each as stored."""
    para = ANNEALING.split("On real InfoNCE landscapes")[1].split("\n\n")[0]
    quoted = [(10, 3, 0.05, 4), (4, 2, 0.1, 4), (6, 3, 0.1, 4)]
    for n, d, tau, digits in quoted:
        value = _table_entry(n, d, tau)["critical_height"]
        assert f"{value:.{digits}g}" in para, (n, d, tau, f"{value:.{digits}g}")
    grid = [(_grid("dimension", num_points=10, dim=2, tau=0.05), 3), (_grid("dimension", num_points=10, dim=4, tau=0.05), 4),
            (_grid("dimension", num_points=10, dim=5, tau=0.05), 4), (_grid("dimension", num_points=6, dim=2, tau=0.1), 4)]
    grid += [([e for e in _grid("negatives", num_points=n) if e["pairs"] is None], 4) for n in (8, 10, 12)]
    for (e,), digits in grid:
        assert f"{e['critical_height']:.{digits}g}" in para, (e["ablation"], e["num_points"], e["dim"], e["critical_height"])
    for radius, printed in ((1.5, "0.27 at R = 1.5"), (2.0, "0.02 at R = 2")):
        (e,) = _grid("curvature", radius=radius)
        seed = next(iter(e["seeds"].values()))
        assert printed in para and float(printed.split()[0]) == pytest.approx(seed["success_count"] / seed["chains"], abs=5e-3)


@pytest.mark.slow
@pytest.mark.parametrize("n, d, tau", [(4, 2, 0.1), (6, 2, 0.1), (6, 3, 0.1), (6, 2, 0.05), (8, 3, 0.1),
                                         pytest.param(10, 3, 0.05, marks=pytest.mark.heavy(
                                             reason="46 s; the five smaller rows run always"))])
def test_a_fresh_default_search_reproduces_the_table_rows(n, d, tau, default_search):
    """A default search run now (seed 0) gives the stored minima (energies to 1e-8, multiplicities), H* to 1e-9 and
    the status: rows whose traps random starts find (N = 4, 6 on S¹), whose traps only structured starts find (N = 6,
    8, 10 on S²), and the deepest one (N = 10, d = 3, tau = 0.05: four minima, H* = 1.2594). About 3 minutes alone;
    in a full run the small rows reuse the searches of test_closure.py through the session cache."""
    res = default_search(n, d, tau, 0)
    e = _table_entry(n, d, tau)
    stored = e["seeds"]["0"]
    assert sorted((round(m.energy, 8), m.multiplicity) for m in res.minima) == \
        [(round(m["energy"], 8), m["multiplicity"]) for m in stored["minima"]]
    assert res.critical_height == pytest.approx(e["critical_height"], abs=1e-9)
    assert res.status == stored["status"]


@pytest.mark.slow
def test_fresh_searches_reproduce_the_main_jobs_a86_grid_and_its_verdict():
    """The rows of check A8.6's quick grid (N = 6, tau = 0.1, d = 2, 3, 4), computed now by the library the check
    calls: H* equals the stored thorough grid's for each landscape (1e-9, whatever the number of starts: the
    networks are closed) and the trend verdict over d from the fresh rows is the one from the stored values."""
    from contrastive_bounds.properties.checks._ablation_rows import ablation_rows, trend_verdict

    rows = ablation_rows("dimension", "quick")
    assert [(r["num_points"], r["dim"], r["tau"]) for r in rows] == [(6, 2, 0.1), (6, 3, 0.1), (6, 4, 0.1)]
    stored = [_grid("dimension", num_points=6, dim=r["dim"], tau=0.1)[0] for r in rows]
    for r, e in zip(rows, stored):
        assert r["complete"] or r["barrier_free"], r["status"]
        assert r["critical_height"] == pytest.approx(e["critical_height"], abs=1e-9), (r["dim"], r["critical_height"])
    dims = [r["dim"] for r in rows]
    fresh = trend_verdict(dims, [r["critical_height"] for r in rows], tie=1e-9)[0]
    assert fresh == trend_verdict(dims, [e["critical_height"] for e in stored], tie=1e-9)[0]
