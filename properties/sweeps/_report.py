"""The sweep report: ``report.html`` (self-contained) and PNG figures, from ``results.parquet`` alone.

Figures are set by the spec's ``[report]`` table (each entry a table, or a list of tables):

* ``heatmap = { x, y, value, facet?, label? }``: ``value`` (a column: ``ratio_log10`` is the
  tightness of a bound, ``empirical`` a success fraction...) over two axes, the median over the rows
  sharing a cell (seeds and the other axes); one figure per value of ``facet``.
* ``curves = { x, y, lo?, hi?, series?, facet?, logx?, logy?, label? }``: ``y`` against any ``x``
  column (``c_over_h``, ``H``, ``tau``, later ``dim`` or ``num_points``), one line per value of
  ``series`` with the band ``lo``..``hi`` (a confidence interval), one figure per value of
  ``facet``; rows sharing a point are averaged (their intervals too).
* ``medians = { by, columns }``: a table of the medians of ``columns`` for each value of ``by``
  (e.g. the slack budget of Theorem 1 per tau).
* ``table = { columns }``: the columns of the rows table (``interval`` for ``[ci_lo, ci_hi]``;
  default and layout: :mod:`._report_table`).

``label`` says what the value (``y``) is, in words (``"success fraction"``); without it a results
column is named with its meaning (``empirical (the measured value)``). Every figure has a caption
that says what it shows: the quantity, the axes, the facet, how many rows each cell or point pools
and what the band is. Titles are wrapped to the figure's width. Without ``[report]``: a heatmap of
``ratio_log10`` (else ``empirical``) over the first two parameters that vary, and curves of
``empirical`` against the first. Line figures are drawn by
:func:`contrastive_bounds.properties.render_figure`; files are written atomically. Rows with
a p-value are corrected together with Holm (:func:`contrastive_bounds.properties.holm`).
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

from contrastive_bounds.properties.checks._outcome import PlotSpec, Series
from contrastive_bounds.properties._report import fmt_value
from contrastive_bounds.properties._figures import render_figure
from contrastive_bounds.properties._runner import atomic_write_bytes, atomic_write_text
from contrastive_bounds.properties._stats import DEFAULT_SUITE_ALPHA, holm
from contrastive_bounds.properties.sweeps._losses import describe_losses, losses_from_metadata
from contrastive_bounds.properties.sweeps._report_table import (INTERVAL, MAX_TABLE_ROWS, TABLE_STYLE, rows_table,
                                                               varying_parameters)

__all__ = ["write_sweep_report", "render_heatmap", "significant_violations", "violations_that_stand", "check_report_settings", "describe_column", "COLUMN_MEANINGS"]

#: What the results columns mean, for axis labels and captions.
COLUMN_MEANINGS = {
    "empirical": "the measured value", "bound": "the theory's bound", "bound_log10": "log10 of the bound",
    "ratio": "measured / bound (or prediction)", "ratio_log10": "log10 of measured / bound (or prediction)",
    "ci_lo": "lower end of the confidence interval", "ci_hi": "upper end of the confidence interval",
    "p_value": "p-value of the comparison", "wall_time_s": "wall time of the task, s",
}


def _entries(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def describe_column(col: str, label: str | None = None) -> str:
    """``label`` when given, else ``col`` with its meaning (:data:`COLUMN_MEANINGS`) when it has one."""
    if label:
        return label
    return f"{col} ({COLUMN_MEANINGS[col]})" if col in COLUMN_MEANINGS else col


def _wrap(text: str, width_inches: float, fontsize: float) -> str:
    """``text`` wrapped to lines that fit ``width_inches`` at ``fontsize`` points (a character is
    about 0.6 em wide)."""
    import textwrap

    chars = max(20, int(width_inches * 72 / (0.6 * fontsize)))
    return "\n".join(textwrap.wrap(text, chars)) or text


def _pooling(unit: str, counts: list[int], axes: str, pooled: str, how: str) -> str:
    """The caption's sentence on how many rows each cell or point holds and what they pool."""
    if not counts or max(counts) == 1:
        return f"Each {unit} is one row (one task per {axes})."
    n = f"{min(counts)}" if min(counts) == max(counts) else f"{min(counts)} to {max(counts)}"
    return f"Each {unit} is the {how} of the {n} rows with that {axes}" + (f", pooled over {pooled}." if pooled else ".")


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
    in it when given (e.g. ``vacuous``: the rows there have no value, and say why). The title and the
    colour-bar label are wrapped to the figure, so no text is cut off."""
    import matplotlib.pyplot as plt

    fig = _heatmap_figure(title, xlabel, ylabel, xs, ys, cells, value_label, notes)
    try:
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


def _heatmap_figure(title: str, xlabel: str, ylabel: str, xs: list[Any], ys: list[Any], cells: list[list[float | None]],
                    value_label: str, notes: list[list[str]] | None = None) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    data = np.array([[np.nan if v is None else v for v in row] for row in cells], dtype=float)
    width, height = max(5.0, 0.9 * len(xs) + 3.2), max(3.6, 0.5 * len(ys) + 2.4)
    fig, ax = plt.subplots(figsize=(width, height), dpi=100)
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
    bar = fig.colorbar(im, ax=ax)
    bar.set_label(_wrap(value_label, 0.8 * height, 9), fontsize=9)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(_wrap(title, 0.85 * width, 9), fontsize=9)
    fig.tight_layout()
    return fig


_FIGURE_KEYS = {"heatmap": ("x", "y", "value", "facet"), "curves": ("x", "y", "lo", "hi", "series", "facet"),
                "medians": ("by",), "table": ()}
_EXTRA_KEYS = {"heatmap": ("label",), "curves": ("logx", "logy", "label"), "medians": ("columns",), "table": ("columns",)}
_REQUIRED = {"heatmap": ("x", "y"), "curves": ("x",), "medians": ("by",), "table": ("columns",)}


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
            if what in ("medians", "table"):
                listed = cfg.get("columns", [])
                if not isinstance(listed, list) or not all(isinstance(c, str) for c in listed):
                    raise ValueError(f"report.{what}.columns must be a list of column names")
                for col in listed:
                    if col not in columns and not (what == "table" and col == INTERVAL):
                        raise ValueError(f"report.{what}.columns: {col!r} is not a column; columns: {', '.join(columns)}")


def _pooled(groups: list[list[dict[str, Any]]], candidates: list[str]) -> str:
    """What differs between rows that share a cell or point: the candidates that vary inside a group."""
    differ = [c for c in candidates if any(len({json.dumps(r.get(c), sort_keys=True) for r in g}) > 1 for g in groups)]
    return ", ".join(differ)


def _heatmaps(rows: list[dict[str, Any]], cfg: dict[str, Any], columns: list[str]) -> list[tuple[str, bytes, str]]:
    _check_columns(cfg, ("x", "y", "value", "facet"), columns, "heatmap")
    x, y, value, facet = cfg["x"], cfg["y"], cfg.get("value", "ratio_log10"), cfg.get("facet")
    what = describe_column(value, cfg.get("label"))
    others = [c for c in [*varying_parameters(rows, columns), "seed"] if c not in (x, y, facet)]
    out = []
    for fv, group in _groups(rows, facet):
        xs = sorted({r.get(x) for r in group}, key=_key)
        ys = sorted({r.get(y) for r in group}, key=_key)
        cell_rows = [[[r for r in group if r.get(x) == xv and r.get(y) == yv] for xv in xs] for yv in ys]
        cells = [[_median([r.get(value) for r in c]) for c in row] for row in cell_rows]
        notes = [["/".join(sorted({r["verdict"] for r in c})) if c else "" for c in row] for row in cell_rows]
        where = f" for {facet} = {_text(fv)}" if facet else ""
        title = f"{what} by {x} and {y}{where}"
        filled = [c for row in cell_rows for c in row if c]
        pooled = _pooled(filled, others)
        caption = (f"Heatmap of {what} over {x} (x) and {y} (y){where}. " + _pooling("cell", [len(c) for c in filled],
                                                                                        f"{x} and {y}", pooled, "median")
                   + " A cell without a value is blank, with the verdict of its rows written in it.")
        out.append((f"heatmap-{value}-{x}-{y}" + (f"-{facet}-{fv}" if facet else ""),
                    render_heatmap(title, x, y, xs, ys, cells, what, notes), caption))
    return out


def _curves(rows: list[dict[str, Any]], cfg: dict[str, Any], columns: list[str]) -> list[tuple[str, bytes, str]]:
    _check_columns(cfg, ("x", "y", "lo", "hi", "series", "facet"), columns, "curves")
    x, y, series, facet = cfg["x"], cfg.get("y", "empirical"), cfg.get("series"), cfg.get("facet")
    lo, hi = cfg.get("lo"), cfg.get("hi")
    what = describe_column(y, cfg.get("label"))
    others = [c for c in [*varying_parameters(rows, columns), "seed"] if c not in (x, series, facet)]
    out = []
    for fv, group in _groups(rows, facet):
        lines, points = [], []
        for sv, srows in _groups(group, series):
            xs = sorted({r.get(x) for r in srows if isinstance(r.get(x), (int, float))}, key=_key)
            pts = [[r for r in srows if r.get(x) == xv] for xv in xs]
            points += pts

            def avg(col: str | None) -> list[float | None] | None:
                if col is None:
                    return None
                vals = [[r.get(col) for r in p if r.get(col) is not None] for p in pts]
                return [sum(v) / len(v) if v else None for v in vals]
            lines.append(Series(f"{series} = {_text(sv)}" if series else y, [float(v) for v in xs], avg(y), avg(lo),
                                avg(hi), style="-o"))
        where = f" for {facet} = {_text(fv)}" if facet else ""
        title = f"{what} against {x}{where}"
        pooled = _pooled(points, others)
        band = ""
        if lo and hi:
            ci = ", the confidence interval" if (lo, hi) == ("ci_lo", "ci_hi") else ""
            band = f" The shaded band runs from {lo} to {hi}{ci} (averaged the same way)."
        axes = x + (f" and {series}" if series else "")
        caption = (f"Curves of {what} against {x}" + (" (log scale)" if cfg.get("logx") else "")
                   + (f", one line per value of {series}" if series else "") + where + ". "
                   + _pooling("point", [len(p) for p in points], axes, pooled, "mean") + band)
        spec = PlotSpec(title, x, what, lines, logx=bool(cfg.get("logx")), logy=bool(cfg.get("logy")))
        out.append((f"curves-{y}-{x}" + (f"-{facet}-{fv}" if facet else ""), render_figure(spec), caption))
    return out


def _text(v: Any) -> str:
    return fmt_value(v) if isinstance(v, float) else str(v)


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
    figures: list[tuple[str, bytes, str]] = []
    if rows:
        for entry in _entries(cfg.get("heatmap")):
            figures += _heatmaps(rows, entry, columns)
        for entry in _entries(cfg.get("curves")):
            figures += _curves(rows, entry, columns)
    paths = {}
    for name, png, _ in figures:
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
    parts = [f"<h1>Sweep {esc(title)}</h1>", f"<p>{esc(description)}</p>" if description else "", f"<p>{esc(summary)}</p>"]
    runs = losses_from_metadata(table.schema.metadata)
    if runs:
        over = "this run" if len(runs) == 1 else f"the {len(runs)} runs of this sweep (it was resumed)"
        parts.append(f"<p>Cluster, over {esc(over)}: {esc(describe_losses(runs, limit=50))}.</p>")
    for entry in _entries(cfg.get("medians")):
        parts.append(_medians(rows, entry, columns))
    for k, (name, png, caption) in enumerate(figures, 1):
        parts.append(f'<figure id="{esc(_slug(name))}"><img alt="{esc(caption)}" '
                     f'src="data:image/png;base64,{base64.b64encode(png).decode()}">'
                     f"<figcaption><b>Figure {k}.</b> {esc(caption)} <small>(figures/{esc(_slug(name))}.png)</small>"
                     "</figcaption></figure>")
    shown = (_entries(cfg.get("table")) or [{}])[0].get("columns")
    parts.append(f"<h2>Rows</h2>{rows_table(rows, columns, shown)}")
    style = ("body{font-family:sans-serif;max-width:1200px;margin:auto;padding:0 1em}img{max-width:100%}"
             "figure{margin:1.5em 0}figcaption{max-width:50em;font-size:14px}" + TABLE_STYLE)
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>sweep {esc(title)}</title><style>{style}</style>"
            f"</head><body>{''.join(parts)}</body></html>")
    html_path = out / "report.html"
    atomic_write_text(html_path, page)
    return {"html": html_path, **paths}


def violations_that_stand(rows: list[dict[str, Any]], alpha: float = DEFAULT_SUITE_ALPHA) -> list[dict[str, Any]]:
    """The violated rows that stand, in table order: deterministic ones (no p-value) and stochastic ones that
    Holm's step-down procedure rejects at family-wise level ``alpha`` across every row with a p-value."""
    tested = [r for r in rows if r.get("p_value") is not None]
    rejected = holm([min(max(r["p_value"], 0.0), 1.0) for r in tested], alpha) if tested else []
    stand = {id(r) for r, rej in zip(tested, rejected) if rej and r["verdict"] == "violated"}
    return [r for r in rows if r["verdict"] == "violated" and (id(r) in stand or r.get("p_value") is None)]


def significant_violations(rows: list[dict[str, Any]], alpha: float = DEFAULT_SUITE_ALPHA) -> int:
    """How many violated rows stand (:func:`violations_that_stand`)."""
    return len(violations_that_stand(rows, alpha))
