"""Sweep results on disk (properties/sweeps/_store.py): atomic rows, validation on read, manifest and resume refusal."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from contrastive_bounds.properties.sweeps._engine import execute_task
from contrastive_bounds.properties.sweeps._spec import parse_spec
from contrastive_bounds.properties.sweeps._store import ResultsStore, row_digest, row_schema

SPEC = {"kind": "bound", "bound": "alignment.frobenius",
        "params": {"batch_size": 64, "num_classes": 10, "delta": 0.05, "steps": 100, "eta_sum": 10.0, "m": 200},
        "grid": {"tau": [0.2, 0.5, 1.0]}}


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, label="bounds")


@pytest.fixture(scope="module")
def rows(spec):
    return [execute_task(t) for t in spec.tasks]


def _store(tmp_path, spec, resume=False):
    st = ResultsStore(tmp_path / "out", row_schema(spec.kind))
    st.start(spec, resume=resume)
    return st


def test_rows_round_trip_with_their_digest(tmp_path, spec, rows):
    """A written row reads back equal (same types), its digest checks, and the table lists rows in task order."""
    st = _store(tmp_path, spec)
    for r in reversed(rows):
        st.write_row(r)
    for r in rows:
        back, why = st.read_row(r["task_key"])
        assert why is None
        assert {k: v for k, v in back.items() if k != "row_digest"} == {k: v for k, v in r.items() if k != "row_digest"}
        assert back["row_digest"] == row_digest(back)
    table = st.consolidate([t.key for t in spec.tasks], {"x": "y"})
    assert table.column("tau").to_pylist() == [0.2, 0.5, 1.0]
    assert pq.read_table(st.table).equals(table)
    assert pq.read_schema(st.table).metadata[b"x"] == b"y"
    assert not list(st.rows_dir.glob(".*"))  # no temporary left behind


def test_corrupt_partial_foreign_and_altered_rows_are_detected(tmp_path, spec, rows):
    """A truncated file, garbage, another task's row, an altered value (digest mismatch) and an error row are
    all invalid on scan, each with its reason; stray temporaries of an interrupted write are removed."""
    st = _store(tmp_path, spec)
    for r in rows:
        st.write_row(r)
    k0, k1, k2 = (r["task_key"] for r in rows)
    data = st.row_path(k0).read_bytes()
    st.row_path(k0).write_bytes(data[: len(data) // 2])                       # partial
    st.row_path(k1).write_bytes(st.row_path(k2).read_bytes())                # another task's row
    t = pq.read_table(st.row_path(k2)).to_pylist()
    t[0]["bound"] *= 1.0000001                                                # altered value, old digest
    pq.write_table(pa.Table.from_pylist(t, schema=st.schema), st.row_path(k2))
    (st.rows_dir / ".x.parquet.tmp").write_bytes(b"half")
    valid, invalid = st.scan([k0, k1, k2, "f" * 24])
    assert valid == {}
    assert invalid[k0].startswith("unreadable") and "holds task" in invalid[k1] and "digest" in invalid[k2]
    assert "f" * 24 not in invalid  # missing is not invalid, just to do
    assert not (st.rows_dir / ".x.parquet.tmp").exists()
    err = dict(rows[0], verdict="error", error="boom")
    st.write_row(err)
    assert st.read_row(k0) == (None, "the task raised: recomputed")


def test_manifest_refuses_another_sweep_and_names_what_changed_on_resume(tmp_path, spec):
    """Without --resume an existing sweep folder is refused; with it, a changed spec is refused naming the key."""
    _store(tmp_path, spec)
    with pytest.raises(ValueError, match="already holds a sweep .* add --resume"):
        _store(tmp_path, spec)
    _store(tmp_path, spec, resume=True)  # same spec: fine
    changed = parse_spec({**SPEC, "grid": {"tau": [0.2, 0.5]}}, label="bounds")
    with pytest.raises(ValueError, match=r"grid.tau: \[0.2, 0.5, 1.0\] -> \[0.2, 0.5\]"):
        _store(tmp_path, changed, resume=True)
    manifest = json.loads((tmp_path / "out" / "sweep.json").read_text())
    assert manifest["fingerprint"] == spec.fingerprint and manifest["tasks"] == 3


def test_out_folder_that_is_a_file_is_refused_before_anything_runs(tmp_path, spec):
    """--out naming a file fails at once with the option's name."""
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ValueError, match="--out=.* is not a folder"):
        ResultsStore(f, row_schema(spec.kind))
