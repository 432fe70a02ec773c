"""Write docs/data/landscape-values.json from the two documented runs of the landscape search.

Usage: python docs/data/make_landscape_values.py --table TABLE_RUN --grid GRID_RUN [--table-command "..."]
[--grid-command "..."] [--note "how they were run"]

TABLE_RUN: a finished `contrastive-bounds sweep landscape-table --out TABLE_RUN` (the table on
docs/landscape-networks.md); GRID_RUN: a finished `contrastive-bounds sweep ablations --profile thorough --out
GRID_RUN` (docs/annealing.md, A8.6-A8.8). The file records how to regenerate it — the commands (as given, with
the folders named TABLE_RUN and GRID_RUN) and the versions every row ran with (the rows' ``versions_json``) —
and nothing about the machine or its folders.
One entry per landscape and run: H*, status and minima (energy, multiplicity, hits, what found it) of each
search seed, whether the seeds agree (same minima classes to 1e-8 and H* to 1e-9), and for grid rows the
Arrhenius or schedule measurements; grid minima keep their coordinates ``z`` (the A8.6-A8.8 checks re-verify every
stored minimum against a separate InfoNCE, so the test re-deriving their verdicts needs them). The docs' tables, annealing.md and the README are checked against this
file by tests/numerics/landscapes/network/test_published_values.py.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pyarrow.parquet as pq

MEASURED = ("catoni_difficulty", "arrhenius_barrier", "arrhenius_lo", "arrhenius_hi", "arrhenius_linear", "trap_barrier", "success_count",
            "chains", "reached_count")


def _finite(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _entries(folder: str, source: str, with_z: bool = False) -> list[dict]:
    rows = pq.read_table(Path(folder) / "results.parquet").to_pylist()
    out: dict[tuple, dict] = {}
    for r in rows:
        pairs = r.get("pairs")
        pairs = json.loads(pairs) if isinstance(pairs, str) else pairs
        key = (r.get("ablation") or "none", int(r["num_points"]), int(r["dim"]), float(r["tau"]), float(r["radius"]),
               json.dumps(pairs), r.get("measure"))
        d = json.loads(r["details_json"] or "{}")
        minima = sorted(({"energy": m["energy"], "multiplicity": m["multiplicity"], "hits": m["hits"],
                          "found_by": m.get("found_by"), "barrier": m.get("barrier"),
                          "global": bool(m.get("global")),
                          **({"z": m["z"]} if with_z and "z" in m else {})} for m in d.get("minima", [])),
                        key=lambda m: m["energy"])
        entry = out.setdefault(key, {"source": source, "ablation": key[0], "num_points": key[1], "dim": key[2],
                                     "tau": key[3], "radius": key[4], "pairs": pairs, "measure": key[6], "seeds": {}})
        seed = r.get("search_seed")
        seed = int(seed) if _finite(seed) is not None else int(r.get("seed", 0))
        entry["seeds"][str(seed)] = {
            "critical_height": r["critical_height"], "status": r["status"], "complete": bool(r["complete"]),
            "closure": d.get("closure"), "effort": r.get("effort_text"), "minima": minima,
            **{k: _finite(r.get(k)) for k in MEASURED if k in r}}
    for entry in out.values():
        seeds = list(entry["seeds"].values())
        classes = [[(round(m["energy"], 8), m["multiplicity"]) for m in s["minima"]] for s in seeds]
        entry["seeds_agree"] = all(c == classes[0] for c in classes) and all(
            abs(s["critical_height"] - seeds[0]["critical_height"]) <= 1e-9 for s in seeds)
        entry["critical_height"] = max(s["critical_height"] for s in seeds)
        entry["complete"] = all(s["complete"] or s["status"].startswith("barrier-free") for s in seeds)
    return sorted(out.values(), key=lambda e: (e["ablation"], e["dim"] > 2, e["num_points"], e["dim"], e["tau"],
                                               e["radius"], json.dumps(e["pairs"])))


def _versions(folder: str) -> list[dict]:
    """The distinct versions the rows of a sweep ran with."""
    seen = {r.get("versions_json") for r in pq.read_table(Path(folder) / "results.parquet").to_pylist()}
    return [json.loads(v) for v in sorted(v for v in seen if v)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", required=True)
    parser.add_argument("--grid", required=True)
    parser.add_argument("--table-command", default="contrastive-bounds sweep landscape-table --workers 2 --out TABLE_RUN")
    parser.add_argument("--grid-command",
                        default="contrastive-bounds sweep ablations --profile thorough --workers 2 --out GRID_RUN")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    runs = [{"name": "table", "source": "landscape-table", "commands": [args.table_command],
             "versions": _versions(args.table)},
            {"name": "grid", "source": "ablations", "commands": [args.grid_command], "versions": _versions(args.grid)}]
    doc = {"runs": runs, "regenerate": "python docs/data/make_landscape_values.py --table TABLE_RUN --grid GRID_RUN",
           "note": args.note, "table": _entries(args.table, "landscape-table"),
           "grid": _entries(args.grid, "ablations", with_z=True)}
    target = Path(__file__).with_name("landscape-values.json")
    target.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {target} ({len(doc['table'])} table landscapes, {len(doc['grid'])} grid rows)")


if __name__ == "__main__":
    main()
