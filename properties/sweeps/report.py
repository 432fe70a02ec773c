"""The sweep report: ``report.html`` (self-contained) and PNG figures, from ``results.parquet`` alone.

Figures are set by the spec's ``[report]`` table (each entry a table, or a list of tables):

* ``heatmap = { x, y, value, facet? }``: ``value`` (a column: ``ratio_log10`` is the tightness of a
  bound, ``empirical`` a success fraction...) over two axes, the median over the rows sharing a
  cell (seeds and the other axes); one figure per value of ``facet``.
* ``curves = { x, y, lo?, hi?, series?, facet?, logx?, logy? }``: ``y`` against any ``x`` column
  (``c_over_h``, ``H``, ``tau``, later ``dim`` or ``num_points``), one line per value of ``series``
  with the band ``lo``..``hi`` (a confidence interval), one figure per value of ``facet``; rows
  sharing a point are averaged (their intervals too).
* ``medians = { by, columns }``: a table of the medians of ``columns`` for each value of ``by``
  (e.g. the slack budget of Theorem 1 per tau).

Without ``[report]``: a heatmap of ``ratio_log10`` (else ``empirical``) over the first two
parameters that vary, and curves of ``empirical`` against the first. Line figures are drawn by
:func:`contrastive_bounds.properties.report.render_figure`; files are written atomically. Rows with
a p-value are corrected together with Holm (:func:`contrastive_bounds.properties.stats.holm`).
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
import statistics
from pathlib import Path
from typing import Any

from contrastive_bounds.properties.checks.framework import PlotSpec, Series
from contrastive_bounds.properties.report import fmt_value, render_figure
from contrastive_bounds.properties.runner import atomic_write_bytes, atomic_write_text
from contrastive_bounds.properties.stats import DEFAULT_SUITE_ALPHA, holm
from contrastive_bounds.properties.sweeps.store import RESERVED_COLUMNS

__all__ = ["write_sweep_report", "render_heatmap", "varying_parameters", "significant_violations", "check_report_settings",
           "MAX_TABLE_ROWS"]

MAX_TABLE_ROWS = 2000


def _entries(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def varying_parameters(rows: list[dict[str, Any]], columns: list[str]) -> list[str]:
    """Parameter columns (not results columns) whose value is not the same in every row, in order."""
    out = []
    for c in columns:
        if c in RESERVED_COLUMNS or c.endswith("_json"):
            continue
        if len({json.dumps(r.get(c), sort_keys=True) for r in rows}) > 1:
            out.append(c)
    return out


def _key(v: Any) -> tuple:
    return (0, v, "") if isinstance(v, (int, float)) and not isinstance(v, bool) else (1, 0, str(v))


def _groups(rows: list[dict[str, Any]], col: str | None) -> list[tuple[Any, list[dict[str, Any]]]]:
    if col is None:
        return [(None, rows)]
    values = sorted({r.get(col) for r in rows}, key=_key)
    return [(v, [r for r in rows if r.get(col) == v]) for v in values]


def _median(values: list[Any]) -> float | None:
    vals = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    return statistics.median(vals) if vals else None


def render_heatmap(title: str, xlabel: str, ylabel: str, xs: list[Any], ys: list[Any], cells: list[list[float | None]],
                   value_label: str, notes: list[list[str]] | None = None) -> bytes:
    """PNG bytes of a heatmap: ``cells[i][j]`` at (``xs[j]``, ``ys[i]``), values written in the cells,
    axes as categories (matplotlib, Agg). A cell without a value is blank, with ``notes[i][j]`` written
    in it when given (e.g. ``vacuous``: the rows there have no value, and say why)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in row] for row in cells], dtype=float)
    fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(xs) + 2.5), max(3.0, 0.5 * len(ys) + 2.0)), dpi=100)
    try:
        im = ax.imshow(np.ma.masked_invalid(data), aspect="auto", origin="lower", cmap="viridis")
        ax.set_xticks(range(len(xs)), [fmt_value(x) if isinstance(x, float) else str(x) for x in xs], rotation=30, fontsize=8)
        ax.set_yticks(range(len(ys)), [fmt_value(y) if isinstance(y, float) else str(y) for y in ys], fontsize=8)
        finite = data[np.isfinite(data)]
        mid = float(np.median(finite)) if finite.size else 0.0
        for i in range(len(ys)):
            for j in range(len(xs)):
                if np.isfinite(data[i, j]):
                    ax.text(j, i, f"{data[i, j]:.3g}", ha="center", va="center", fontsize=7,
                            color="white" if data[i, j] < mid else "black")
                elif notes is not None and notes[i][j]:
                    ax.text(j, i, notes[i][j], ha="center", va="center", fontsize=7, color="gray")
        fig.colorbar(im, ax=ax, label=value_label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


_FIGURE_KEYS = {"heatmap": ("x", "y", "value", "facet"), "curves": ("x", "y", "lo", "hi", "series", "facet"),
                "medians": ("by",)}
_EXTRA_KEYS = {"heatmap": (), "curves": ("logx", "logy"), "medians": ("columns",)}
_REQUIRED = {"heatmap": ("x", "y"), "curves": ("x",), "medians": ("by",)}


def _check_columns(cfg: dict[str, Any], names: tuple[str, ...], columns: list[str], what: str) -> None:
    for n in names:
        col = cfg.get(n)
        if col is not None and col not in columns:
            raise ValueError(f"report.{what}.{n} = {col!r} is not a column; columns: {', '.join(columns)}")


def check_report_settings(report: dict[str, Any], columns: list[str]) -> None:
    """Validate a spec's ``[report]`` table against the columns its rows will have (before the sweep runs).

    Raises:
      ValueError: an unknown figure or key, a missing required key, or a column that rows will not have.
    """
    for what, value in report.items():
        if what not in _FIGURE_KEYS:
            raise ValueError(f"report.{what}: unknown entry; allowed: {', '.join(_FIGURE_KEYS)}")
        for cfg in _entries(value):
            if not isinstance(cfg, dict):
                raise ValueError(f"report.{what} must be a table (or a list of tables)")
            unknown = set(cfg) - set(_FIGURE_KEYS[what]) - set(_EXTRA_KEYS[what])
            if unknown:
                raise ValueError(f"report.{what}: unknown key(s) {sorted(unknown)}; allowed: "
                                 f"{', '.join(_FIGURE_KEYS[what] + _EXTRA_KEYS[what])}")
            missing = [k for k in _REQUIRED[what] if k not in cfg]
            if missing:
                raise ValueError(f"report.{what}: missing {', '.join(missing)}")
            _check_columns(cfg, _FIGURE_KEYS[what], columns, what)
            for col in cfg.get("columns", []) if what == "medians" else []:
                if col not in columns:
                    raise ValueError(f"report.medians.columns: {col!r} is not a column; columns: {', '.join(columns)}")


def _heatmaps(rows: list[dict[str, Any]], cfg: dict[str, Any], columns: list[str]) -> list[tuple[str, bytes]]:
    _check_columns(cfg, ("x", "y", "value", "facet"), columns, "heatmap")
    x, y, value, facet = cfg["x"], cfg["y"], cfg.get("value", "ratio_log10"), cfg.get("facet")
    out = []
    for fv, group in _groups(rows, facet):
        xs = sorted({r.get(x) for r in group}, key=_key)
        ys = sorted({r.get(y) for r in group}, key=_key)
        cell_rows = [[[r for r in group if r.get(x) == xv and r.get(y) == yv] for xv in xs] for yv in ys]
        cells = [[_median([r.get(value) for r in c]) for c in row] for row in cell_rows]
        notes = [["/".join(sorted({r["verdict"] for r in c})) if c else "" for c in row] for row in cell_rows]
        title = f"{value} (median over the other axes)" + (f", {facet} = {fv}" if facet else "")
        out.append((f"heatmap-{value}-{x}-{y}" + (f"-{facet}-{fv}" if facet else ""),
                    render_heatmap(title, x, y, xs, ys, cells, value, notes)))
    return out


def _curves(rows: list[dict[str, Any]], cfg: dict[str, Any], columns: list[str]) -> list[tuple[str, bytes]]:
    _check_columns(cfg, ("x", "y", "lo", "hi", "series", "facet"), columns, "curves")
    x, y, series, facet = cfg["x"], cfg.get("y", "empirical"), cfg.get("series"), cfg.get("facet")
    lo, hi = cfg.get("lo"), cfg.get("hi")
    out = []
    for fv, group in _groups(rows, facet):
        lines = []
        for sv, srows in _groups(group, series):
            xs = sorted({r.get(x) for r in srows if isinstance(r.get(x), (int, float))}, key=_key)
            pts = [[r for r in srows if r.get(x) == xv] for xv in xs]

            def avg(col: str | None) -> list[float | None] | None:
                if col is None:
                    return None
                vals = [[r.get(col) for r in p if r.get(col) is not None] for p in pts]
                return [sum(v) / len(v) if v else None for v in vals]
            lines.append(Series(f"{series} = {sv}" if series else y, [float(v) for v in xs], avg(y), avg(lo), avg(hi),
                                style="-o"))
        title = f"{y} vs {x}" + (f", {facet} = {fv}" if facet else "") + (f" (band: {lo}..{hi})" if lo and hi else "")
        spec = PlotSpec(title, x, y, lines, logx=bool(cfg.get("logx")), logy=bool(cfg.get("logy")))
        out.append((f"curves-{y}-{x}" + (f"-{facet}-{fv}" if facet else ""), render_figure(spec)))
    return out


def _medians(rows: list[dict[str, Any]], cfg: dict[str, Any], columns: list[str]) -> str:
    _check_columns(cfg, ("by",), columns, "medians")
    cols = [c for c in cfg.get("columns", []) if c in columns]
    by = cfg["by"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in [by, "rows", *cols])
    body = ""
    for v, group in _groups(rows, by):
        cells = [str(v), str(len(group))] + [fmt_value(_median([r.get(c) for r in group])) for c in cols]
        body += "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"
    return f"<h3>Medians by {html.escape(by)}</h3><table><tr>{head}</tr>{body}</table>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", text).strip("-")


def _defaults(rows: list[dict[str, Any]], columns: list[str]) -> dict[str, Any]:
    vary = varying_parameters(rows, columns)
    value = "ratio_log10" if any(r.get("ratio_log10") is not None for r in rows) else "empirical"
    cfg: dict[str, Any] = {}
    if len(vary) >= 2:
        cfg["heatmap"] = {"x": vary[0], "y": vary[1], "value": value}
    if vary and isinstance(rows[0].get(vary[0]), (int, float)):
        cfg["curves"] = {"x": vary[0], "y": "empirical", "lo": "ci_lo", "hi": "ci_hi",
                         **({"series": vary[1]} if len(vary) >= 2 else {})}
    return cfg


def write_sweep_report(table: Any, out_dir: str | Path, report: dict[str, Any] | None = None, *, title: str = "sweep",
                       description: str = "", alpha: float = DEFAULT_SUITE_ALPHA) -> dict[str, Path]:
    """Write ``report.html`` and ``figures/*.png`` for a results table; return their paths.

    Args:
      table: a ``pyarrow.Table`` of rows (``results.parquet``); out_dir: the sweep's folder.
      report: the spec's ``[report]`` table (None: defaults); title, description: shown on top.
      alpha: family-wise false-alarm probability of the Holm correction across rows with p-values.

    Raises:
      ValueError: a ``[report]`` entry naming a column the table does not have.
    """
    out = Path(out_dir)
    rows = table.to_pylist()
    columns = table.column_names
    cfg = report if report else _defaults(rows, columns)
    check_report_settings(cfg, columns)
    figures: list[tuple[str, bytes]] = []
    if rows:
        for entry in _entries(cfg.get("heatmap")):
            figures += _heatmaps(rows, entry, columns)
        for entry in _entries(cfg.get("curves")):
            figures += _curves(rows, entry, columns)
    paths = {}
    for name, png in figures:
        path = out / "figures" / f"{_slug(name)}.png"
        atomic_write_bytes(path, png)
        paths[name] = path
    esc = html.escape
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    tested = sum(1 for r in rows if r.get("p_value") is not None)
    surviving = significant_violations(rows, alpha)
    summary = (f"{len(rows)} rows: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
               + (f". Rows with a p-value: {tested}; violated after Holm's correction at family-wise "
                  f"alpha {alpha:g}: {surviving}" if tested else ""))
    vary = varying_parameters(rows, columns)
    shown = [*vary, "seed", "verdict", "bound", "empirical", "ci_lo", "ci_hi", "ratio", "ratio_log10", "wall_time_s", "summary"]
    head = "".join(f"<th>{esc(c)}</th>" for c in shown)
    body = "".join("<tr>" + "".join(f"<td>{esc(_cell(r.get(c)))}</td>" for c in shown) + "</tr>" for r in rows[:MAX_TABLE_ROWS])
    more = f"<p>First {MAX_TABLE_ROWS} of {len(rows)} rows; all are in results.parquet.</p>" if len(rows) > MAX_TABLE_ROWS else ""
    parts = [f"<h1>Sweep {esc(title)}</h1>", f"<p>{esc(description)}</p>" if description else "", f"<p>{esc(summary)}</p>"]
    for entry in _entries(cfg.get("medians")):
        parts.append(_medians(rows, entry, columns))
    for name, png in figures:
        parts.append(f'<figure><img alt="{esc(name)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
                     f"<figcaption>{esc(name)}</figcaption></figure>")
    parts.append(f"<h2>Rows</h2>{more}<table><tr>{head}</tr>{body}</table>")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 5px;font-size:12px}img{max-width:100%}")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>sweep {esc(title)}</title><style>{style}</style>"
            f"</head><body>{''.join(parts)}</body></html>")
    html_path = out / "report.html"
    atomic_write_text(html_path, page)
    return {"html": html_path, **paths}


def significant_violations(rows: list[dict[str, Any]], alpha: float = DEFAULT_SUITE_ALPHA) -> int:
    """Violated rows that stand: deterministic ones (no p-value) and stochastic ones that Holm's
    step-down procedure rejects at family-wise level ``alpha`` across every row with a p-value."""
    tested = [r for r in rows if r.get("p_value") is not None]
    rejected = holm([min(max(r["p_value"], 0.0), 1.0) for r in tested], alpha) if tested else []
    stochastic = sum(1 for r, rej in zip(tested, rejected) if rej and r["verdict"] == "violated")
    return stochastic + sum(1 for r in rows if r.get("p_value") is None and r["verdict"] == "violated")


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return fmt_value(v)
    return str(v)
