"""Results of a sweep on disk: one Parquet file per finished task, a manifest, a consolidated table.

Layout of the output folder::

    sweep.json            the manifest: normalised spec, its fingerprint, the task count (atomic)
    rows/<task key>.parquet   one row per finished task, written atomically when it finishes
    results.parquet       every row in task order, written atomically at the end (pyarrow)

Every file is written to a temporary name in its folder and renamed (``os.replace``), so a sweep
killed at any moment (kill -9 included) leaves only whole files; temporaries are removed on the next
run. The manifest and the table are also fsynced; row files are not (see :func:`replace_atomically`). A row carries ``row_digest``, sha256 of its other columns: on ``--resume`` a row file
that cannot be read, has the wrong columns or types, names another task, or whose digest does not
match (a partial or corrupted file) is reported and recomputed; ``error`` rows are recomputed too.
A resumed sweep must have the same normalised spec; otherwise the run is refused, naming what differs.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any, Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from contrastive_bounds.properties._jsonsafe import jsonable
from contrastive_bounds.properties._runner import atomic_write_bytes, atomic_write_text, ensure_writable_folder

__all__ = ["RESERVED_COLUMNS", "COMMON_COLUMNS", "row_schema", "row_digest", "ResultsStore", "spec_differences",
           "MANIFEST_FORMAT", "replace_atomically", "to_json_text"]

MANIFEST_FORMAT = 1
_ARROW = {int: pa.int64(), float: pa.float64(), bool: pa.bool_(), str: pa.string(), list: pa.string()}

#: Columns every row has, in order; parameters follow ``seed``, the kind's outputs follow ``summary``.
COMMON_COLUMNS: dict[str, pa.DataType] = {
    "task_key": pa.string(), "task_index": pa.int64(), "kind": pa.string(), "target": pa.string(), "seed": pa.int64(),
    "verdict": pa.string(), "bound": pa.float64(), "bound_log10": pa.float64(), "empirical": pa.float64(),
    "ci_lo": pa.float64(), "ci_hi": pa.float64(), "ratio": pa.float64(), "ratio_log10": pa.float64(),
    "p_value": pa.float64(), "false_alarm": pa.float64(), "samples": pa.int64(), "reason": pa.string(),
    "summary": pa.string(),
}
TRAILING_COLUMNS: dict[str, pa.DataType] = {
    "params_json": pa.string(), "details_json": pa.string(), "wall_time_s": pa.float64(), "versions_json": pa.string(),
    "error": pa.string(), "row_digest": pa.string(),
}
RESERVED_COLUMNS = frozenset(COMMON_COLUMNS) | frozenset(TRAILING_COLUMNS)


def row_schema(kind: Any) -> pa.Schema:
    """The Arrow schema of a row of ``kind`` (a :class:`~.kinds.TaskKind`): common columns, the
    parameters (lists as JSON text), the kind's outputs, then params/details/versions as JSON text,
    wall time, error and digest. Every column is nullable."""
    cols = list(COMMON_COLUMNS.items())[:5] + [(p.name, _ARROW[p.type]) for p in kind.params]
    cols += list(COMMON_COLUMNS.items())[5:] + [(k, _ARROW[t]) for k, t in kind.outputs.items()]
    cols += list(TRAILING_COLUMNS.items())
    return pa.schema([pa.field(k, t, nullable=True) for k, t in cols])


def _canonical(row: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in row.items() if k != "row_digest"}, sort_keys=True, allow_nan=True)


def row_digest(row: dict[str, Any]) -> str:
    """sha256 (hex) of every column of ``row`` but ``row_digest`` (canonical JSON, floats by repr)."""
    import hashlib

    return hashlib.sha256(_canonical(row).encode()).hexdigest()


def replace_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``
    (:func:`contrastive_bounds.numerics.write_atomically`, the toolkit's one atomic writer), with
    the mode ``open(path, "w")`` would give, but without fsync.

    A killed process leaves the old file or the new one, never a mix. Row files skip the fsync
    (5-30 ms per row on a busy disk, paid in the loop that collects results) because a row that an
    operating-system crash left empty or truncated is detected by :meth:`ResultsStore.read_row` and
    recomputed on resume; the manifest and ``results.parquet`` are fsynced
    (:func:`contrastive_bounds.properties.atomic_write_bytes`).

    Raises:
      OSError: the folder cannot be created or written.
    """
    from contrastive_bounds.numerics._filemode import write_atomically

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, data, prefix=f".{path.name}.", suffix=".tmp")


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: obj}


def spec_differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What differs between two normalised specs, as ``"key: old -> new"`` lines (dotted keys)."""
    a, b = _flatten(old), _flatten(new)
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k, "<absent>") != b.get(k, "<absent>"):
            out.append(f"{k}: {a.get(k, '<absent>')!r} -> {b.get(k, '<absent>')!r}")
    return out


def to_json_text(obj: Any) -> str:
    """Compact JSON of ``obj`` (numpy scalars/arrays as lists, non-finite floats as null)."""
    return json.dumps(jsonable(obj), sort_keys=True, default=str)


class ResultsStore:
    """The output folder of one sweep (layout in the module docstring).

    Args:
      out_dir: the folder (created; must be writable: checked before anything runs).
      schema: :func:`row_schema` of the sweep's kind.
    """

    def __init__(self, out_dir: str | Path, schema: pa.Schema):
        self.out = ensure_writable_folder(Path(out_dir), "--out")
        self.rows_dir = self.out / "rows"
        self.schema = schema
        self.manifest = self.out / "sweep.json"
        self.table = self.out / "results.parquet"

    # ------------------------------------------------------------------ manifest
    def check(self, spec: Any, *, resume: bool) -> bool:
        """Whether the folder may take ``spec`` (a :class:`~._spec.SweepSpec`), writing nothing: True
        when it holds this sweep already (``resume``), False when it holds none.

        Raises:
          ValueError: the folder holds another sweep's manifest and ``resume`` is False ("use
            --resume or another --out"); on resume, a spec that differs (naming each difference)
            or a manifest that is not ours.
        """
        if not self.manifest.exists():
            return False
        try:
            old = json.loads(self.manifest.read_text())
            old_spec = old["spec"]
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"--out={self.out}: {self.manifest.name} is not a sweep manifest") from None
        if not resume:
            raise ValueError(f"--out={self.out} already holds a sweep ({old_spec.get('name')!r}); "
                             "add --resume to continue it, or choose another --out")
        diff = spec_differences({k: v for k, v in old_spec.items() if k != "name"}, spec.normalised)
        if diff:
            raise ValueError(f"--resume: the spec differs from the one in {self.manifest} ({'; '.join(diff)}); "
                             "run it with another --out")
        return True

    def start(self, spec: Any, *, resume: bool) -> None:
        """Write the manifest of ``spec`` (a :class:`~._spec.SweepSpec`), or check it on resume.

        Raises:
          ValueError: as :meth:`check`.
        """
        if self.check(spec, resume=resume):
            return
        self.rows_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.manifest, json.dumps({"format": MANIFEST_FORMAT, "fingerprint": spec.fingerprint,
                                                     "profile": spec.profile, "tasks": len(spec.tasks),
                                                     "spec": {"name": spec.name, **spec.normalised},
                                                     "report": spec.report}, indent=1))

    # ------------------------------------------------------------------ rows
    def row_path(self, key: str) -> Path:
        """Path of the row file of task ``key``."""
        return self.rows_dir / f"{key}.parquet"

    def write_row(self, row: dict[str, Any]) -> Path:
        """Write one row atomically (its digest is computed here). Returns its path.

        Raises:
          pyarrow.ArrowInvalid / ArrowTypeError: a value that does not fit the schema (a bug of a kind).
          OSError: the folder is not writable (disk full, removed).
        """
        row = dict(row, row_digest=None)
        norm = pa.Table.from_pylist([row], schema=self.schema).to_pylist()[0]  # as it will read back
        norm["row_digest"] = row_digest(norm)
        table = pa.Table.from_pylist([norm], schema=self.schema)
        buf = io.BytesIO()
        pq.write_table(table, buf)
        path = self.row_path(row["task_key"])
        replace_atomically(path, buf.getvalue())
        return path

    def read_row(self, key: str) -> tuple[dict[str, Any] | None, str | None]:
        """``(row, None)`` for a valid row file of task ``key``, else ``(None, why)`` (missing,
        unreadable, wrong schema, another task's row, digest mismatch, an error row)."""
        path = self.row_path(key)
        if not path.exists():
            return None, "missing"
        try:
            table = pq.read_table(path)
        except Exception as exc:  # a truncated or overwritten file: any reader error means invalid
            return None, f"unreadable ({type(exc).__name__})"
        if not table.schema.equals(self.schema, check_metadata=False):
            return None, "columns or types differ from this sweep's"
        if table.num_rows != 1:
            return None, f"{table.num_rows} rows instead of 1"
        row = table.to_pylist()[0]
        if row["task_key"] != key:
            return None, f"holds task {row['task_key']!r}"
        if row["row_digest"] != row_digest(row):
            return None, "digest mismatch (the file was altered)"
        if row["verdict"] == "error":
            return None, "the task raised: recomputed"
        return row, None

    def scan(self, keys: Iterable[str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
        """Valid rows of ``keys`` and the reasons of invalid existing files (key -> why); removes
        leftover temporaries (``.*.tmp``) of an interrupted write."""
        if self.rows_dir.exists():
            for tmp in self.rows_dir.glob(".*.tmp"):
                tmp.unlink(missing_ok=True)
        valid, invalid = {}, {}
        for key in keys:
            row, why = self.read_row(key)
            if row is not None:
                valid[key] = row
            elif why != "missing":
                invalid[key] = why
        return valid, invalid

    def consolidate(self, keys: list[str], metadata: dict[str, str] | None = None) -> pa.Table:
        """Write ``results.parquet`` atomically with the valid rows of ``keys`` in that order; return it."""
        rows = []
        for key in keys:
            row, _ = self.read_row(key)
            if row is None:
                row = self._error_row(key)
            if row is not None:
                rows.append(row)
        table = pa.Table.from_pylist(rows, schema=self.schema)
        if metadata:
            table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
        buf = io.BytesIO()
        pq.write_table(table, buf)
        atomic_write_bytes(self.table, buf.getvalue())
        return table

    def _error_row(self, key: str) -> dict[str, Any] | None:
        """An error row of ``key`` (kept in the table so the failure shows), else None."""
        path = self.row_path(key)
        try:
            row = pq.read_table(path).to_pylist()[0] if path.exists() else None
        except Exception:
            return None
        if row is not None and row.get("verdict") == "error" and row.get("row_digest") == row_digest(row):
            return row
        return None
