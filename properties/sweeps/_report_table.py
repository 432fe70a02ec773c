"""The rows of a sweep report as HTML a person can read: chosen columns, wrapped text, pages.

The table shows, by default, the parameters that vary (the others are listed once above it), the
seed when it varies, the verdict, the result columns that hold a value in some row (``bound``,
``empirical``, the interval ``[ci_lo, ci_hi]`` as one column, ``ratio_log10`` or ``ratio``,
``p_value``), the wall time and the summary sentence (wrapped). A spec chooses other columns with
``[report] table = { columns = [...] }``. Rows come in pages of :data:`PAGE_ROWS` (the first one
open), at most :data:`MAX_TABLE_ROWS` in all (every row is in ``results.parquet``); a table wider
than the page scrolls inside its own box, never the page.
"""

from __future__ import annotations

import html
import json
from typing import Any

from contrastive_bounds.properties._report import fmt_value
from contrastive_bounds.properties.sweeps._store import RESERVED_COLUMNS

__all__ = ["rows_table", "parameter_names", "varying_parameters", "default_columns", "MAX_TABLE_ROWS", "PAGE_ROWS",
           "TABLE_STYLE", "INTERVAL"]

MAX_TABLE_ROWS = 2000
PAGE_ROWS = 100
#: The synthetic column that shows ``ci_lo`` and ``ci_hi`` together.
INTERVAL = "interval"
_RESULTS = ("bound", "empirical", INTERVAL, "ratio_log10", "p_value")
_TEXT = ("summary", "reason", "error")

TABLE_STYLE = (".rows{overflow-x:auto;max-width:100%}table{border-collapse:collapse}"
               "td,th{border:1px solid #ccc;padding:2px 5px;font-size:12px;vertical-align:top}"
               "th{background:#f3f3f3;position:sticky;top:0}td.num{text-align:right;white-space:nowrap}"
               "td.text{min-width:18em;max-width:42em;overflow-wrap:anywhere}summary{cursor:pointer;margin:4px 0}")


def parameter_names(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """The parameter columns, in column order: the keys of the rows' ``params_json`` when the table
    has it (a kind's output columns are not parameters), else every column that is not a results
    column."""
    if "params_json" in columns:
        names: set[str] = set()
        for r in rows:
            try:
                names |= set(json.loads(r.get("params_json") or "{}"))
            except ValueError:
                pass
        if names:
            return [c for c in columns if c in names]
    return [c for c in columns if c not in RESERVED_COLUMNS and not c.endswith("_json")]


def varying_parameters(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """Parameter columns (:func:`parameter_names`) whose value is not the same in every row, in order."""
    return [c for c in parameter_names(rows, columns)
            if len({json.dumps(r.get(c), sort_keys=True) for r in rows}) > 1]


def _varies(rows: list[dict[str, Any]], col: str) -> bool:
    return len({json.dumps(r.get(col), sort_keys=True) for r in rows}) > 1


def default_columns(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """The columns the table shows without ``[report] table`` (see the module docstring)."""
    def filled(c: str) -> bool:
        if c == INTERVAL:
            return any(r.get("ci_lo") is not None for r in rows)
        return c in columns and any(r.get(c) is not None for r in rows)

    shown = varying_parameters(rows, columns) + (["seed"] if "seed" in columns and _varies(rows, "seed") else [])
    shown += ["verdict"] + [c for c in _RESULTS if filled(c)]
    if not filled("ratio_log10") and filled("ratio"):
        shown.append("ratio")
    return shown + [c for c in ("wall_time_s", "summary") if filled(c)]


def _cell(row: dict[str, Any], col: str) -> tuple[str, str]:
    """(text, css class) of one cell."""
    if col == INTERVAL:
        lo, hi = row.get("ci_lo"), row.get("ci_hi")
        return ("-" if lo is None or hi is None else f"[{fmt_value(lo)}, {fmt_value(hi)}]"), "num"
    v = row.get(col)
    if v is None:
        return "-", "num"
    if isinstance(v, bool):
        return ("yes" if v else "no"), ""
    if isinstance(v, float):
        return fmt_value(v), "num"
    if isinstance(v, int):
        return str(v), "num"
    text = str(v)
    return text, "text" if col in _TEXT or len(text) > 40 else ""


def rows_table(rows: list[dict[str, Any]], columns: list[str], shown: list[str] | None = None) -> str:
    """HTML of the rows: the constant parameters in one line, then the table in pages.

    Args:
      rows: the table's rows (``results.parquet`` as dicts); columns: its column names.
      shown: the columns to show (``[report] table.columns``; ``interval`` for ``[ci_lo, ci_hi]``);
        None: :func:`default_columns`.
    """
    esc = html.escape
    shown = shown or default_columns(rows, columns)
    vary = set(varying_parameters(rows, columns))
    constant = [c for c in parameter_names(rows, columns) if c not in vary and rows and rows[0].get(c) is not None]
    parts = []
    if constant:
        same = ", ".join(f"{c} = {_cell(rows[0], c)[0]}" for c in constant)
        parts.append(f"<p>Same in every row: {esc(same)}.</p>")
    head = "<tr>" + "".join(f"<th>{esc('interval [ci_lo, ci_hi]' if c == INTERVAL else c)}</th>" for c in shown) + "</tr>"
    listed = rows[:MAX_TABLE_ROWS]
    if len(rows) > MAX_TABLE_ROWS:
        parts.append(f"<p>The first {MAX_TABLE_ROWS} of {len(rows)} rows; all are in results.parquet.</p>")
    for start in range(0, len(listed), PAGE_ROWS):
        page = listed[start:start + PAGE_ROWS]
        body = ""
        for r in page:
            cells = [_cell(r, c) for c in shown]
            body += "<tr>" + "".join(f'<td class="{k}">{esc(t)}</td>' if k else f"<td>{esc(t)}</td>"
                                     for t, k in cells) + "</tr>"
        table = f'<div class="rows"><table>{head}{body}</table></div>'
        if len(listed) <= PAGE_ROWS:
            parts.append(table)
        else:
            label = f"rows {start + 1}-{start + len(page)} of {len(listed)}"
            parts.append(f"<details{' open' if start == 0 else ''}><summary>{esc(label)}</summary>{table}</details>")
    if not rows:
        parts.append("<p>No rows.</p>")
    return "".join(parts)
