"""The report of the main job: PNG figures, ``report.md`` and a self-contained ``report.html``.

Figures are drawn from the :class:`~.check.PlotSpec` data kept in each record, so a report can be
re-made from ``results.json`` alone (``contrastive-bounds check --report-only``). All files are
written atomically.
"""

from __future__ import annotations

import base64
import html
import io
import re
import textwrap
from pathlib import Path
from contrastive_bounds.properties.checks.framework import CheckResult, PlotSpec
from .runner import SuiteResult, atomic_write_bytes, atomic_write_text

__all__ = ["write_report", "render_figure", "fmt_value", "table_cell"]

_VERDICT_MARK = {"holds": "holds", "violated": "VIOLATED", "vacuous": "vacuous", "inconclusive": "inconclusive"}


def fmt_value(x: float | None, log10: float | None = None) -> str:
    """Short human form of a number; astronomically large values as 10^k."""
    if x is None:
        return f"10^{log10:.2f}" if log10 is not None else "-"
    if x == 0 or 1e-3 <= abs(x) < 1e5:
        return f"{x:.4g}"
    return f"{x:.3e}"


def table_cell(v: object) -> str:
    """One cell of an evidence table (:attr:`Outcome.table`): numbers to 4-6 significant digits,
    booleans as yes/no, None as "-", lists joined by commas."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return fmt_value(v) if abs(v) >= 1e-3 or v == 0 else f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(table_cell(x) for x in v)
    return str(v)


def _table_columns(rows: list[dict]) -> list[str]:
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def _table_md(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    cols = _table_columns(rows)
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(table_cell(r.get(c)).replace("|", "\\|") for c in cols) + " |" for r in rows]
    return out + [""]


def _table_html(rows: list[dict]) -> str:
    if not rows:
        return ""
    esc = html.escape
    cols = _table_columns(rows)
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{esc(table_cell(r.get(c)))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def render_figure(spec: PlotSpec) -> bytes:
    """Draw one :class:`PlotSpec` as PNG bytes (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=100)
    try:
        if spec.kind == "bars":
            labels = [s.label for s in spec.series]
            vals = [s.y[0] if s.y else 0.0 for s in spec.series]
            ax.bar(range(len(vals)), vals, color="tab:blue")
            ax.set_xticks(range(len(vals)), labels, rotation=30, ha="right", fontsize=8)
        else:
            for s in spec.series:
                xs = [float(v) for v in s.x]
                ys = [float("nan") if v is None else float(v) for v in s.y]
                ax.plot(xs, ys, s.style, label=s.label, lw=1.4, ms=4)
                if s.lo is not None and s.hi is not None:
                    lo = [float("nan") if v is None else float(v) for v in s.lo]
                    hi = [float("nan") if v is None else float(v) for v in s.hi]
                    ax.fill_between(xs, lo, hi, alpha=0.2)
            if spec.logx:
                ax.set_xscale("log")
            if spec.logy:
                ax.set_yscale("log")
            ax.legend(fontsize=8)
        ax.set_title("\n".join(textwrap.wrap(spec.title, 80)) or spec.title, fontsize=9)
        ax.set_xlabel(spec.xlabel)
        ax.set_ylabel(spec.ylabel)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


def _row(r: CheckResult) -> list[str]:
    o = r.outcome
    emp = fmt_value(o.empirical)
    if o.interval is not None and o.interval[0] != o.interval[1]:
        emp += f" [{fmt_value(o.interval[0])}, {fmt_value(o.interval[1])}]"
    verdict = "error" if r.error else _VERDICT_MARK.get(o.verdict, o.verdict)
    bound = fmt_value(o.bound, o.bound_log10)
    if o.band is not None:
        bound += f" (band [{fmt_value(o.band[0])}, {fmt_value(o.band[1])}])"
    return [r.check, r.theorem, r.scenario, bound, emp,
            fmt_value(o.ratio) if o.ratio is not None else "-", verdict, f"{r.seconds:.1f}s"]


HEADERS = ["check", "theorem", "scenario", "bound", "empirical [interval]", "ratio", "verdict", "time"]


def _figures(suite: SuiteResult, out_dir: Path) -> dict[int, list[tuple[str, bytes]]]:
    figs: dict[int, list[tuple[str, bytes]]] = {}
    for i, r in enumerate(suite.results):
        for j, spec in enumerate(r.outcome.plots):
            png = render_figure(spec)
            name = f"figures/{_slug(r.check)}-{_slug(r.scenario)}-{j}.png"
            atomic_write_bytes(out_dir / name, png)
            if name not in r.figures:
                r.figures.append(name)
            figs.setdefault(i, []).append((name, png))
    return figs


def _summary_line(suite: SuiteResult) -> str:
    counts: dict[str, int] = {}
    for r in suite.results:
        v = "error" if r.error else r.outcome.verdict
        counts[v] = counts.get(v, 0) + 1
    parts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    return (f"{len(suite.results)} checks ({parts}); profile {suite.profile}; suite false-alarm probability "
            f"<= {suite.alpha:g} (Holm across stochastic checks); exit code {suite.exit_code}")


def _details_md(r: CheckResult) -> list[str]:
    o = r.outcome
    lines = [f"### {r.check} ({r.scenario})", "", f"*{r.theorem}*: {r.statement}", "",
             f"**Verdict: {('error' if r.error else o.verdict)}.** {o.summary}", ""]
    if o.reason:
        lines += [f"Reason / evidence: {o.reason}", ""]
    lines += _table_md(list(getattr(o, "table", None) or []))
    if o.false_alarm:
        lines += [f"False-alarm probability of this check: {o.false_alarm:g}" +
                  (f"; p-value {o.p_value:.3g}" if o.p_value is not None else ""), ""]
    if o.samples_needed:
        lines += [f"About {o.samples_needed} samples would decide it.", ""]
    if o.slack:
        lines += ["| slack budget (link) | log10 factor |", "|---|---|"]
        lines += [f"| {k} | {v:.4g} |" for k, v in o.slack.items()]
        lines += [""]
    lines += [f"Parameters: `{r.params}`; seed {r.seed}; {r.seconds:.1f} s.", ""]
    for name in r.figures:
        lines += [f"![{r.check}]({name})", ""]
    if r.error:
        lines += ["```", str(o.details.get("traceback", r.error)), "```", ""]
    return lines


def write_report(suite: SuiteResult, out_dir: Path) -> dict[str, Path]:
    """Write figures, ``report.md`` and ``report.html`` into ``out_dir``; return their paths."""
    figs = _figures(suite, out_dir)
    md = ["# contrastive-bounds check report", "", _summary_line(suite), "",
          "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    md += ["| " + " | ".join(c.replace("|", "\\|") for c in _row(r)) + " |" for r in suite.results]
    md += ["", "Ratio: empirical/bound for upper bounds (<= 1 holds; near 1 is tight), bound/empirical for lower bounds.",
           "", "## Checks", ""]
    for r in suite.results:
        md += _details_md(r)
    md_path = out_dir / "report.md"
    atomic_write_text(md_path, "\n".join(md) + "\n")

    esc = html.escape
    rows = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in _row(r)) + "</tr>" for r in suite.results)
    body = [f"<h1>contrastive-bounds check report</h1><p>{esc(_summary_line(suite))}</p>",
            "<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in HEADERS) + f"</tr>{rows}</table>"]
    for i, r in enumerate(suite.results):
        o = r.outcome
        part = [f"<h3>{esc(r.check)} ({esc(r.scenario)})</h3><p><i>{esc(r.theorem)}</i>: {esc(r.statement)}</p>",
                f"<p><b>Verdict: {esc('error' if r.error else o.verdict)}.</b> {esc(o.summary)}</p>"]
        if o.reason:
            part.append(f"<p>Reason / evidence: {esc(o.reason)}</p>")
        part.append(_table_html(list(getattr(o, "table", None) or [])))
        if o.slack:
            part.append("<table><tr><th>slack budget (link)</th><th>log10 factor</th></tr>" +
                        "".join(f"<tr><td>{esc(k)}</td><td>{v:.4g}</td></tr>" for k, v in o.slack.items()) + "</table>")
        part.append(f"<p><small>Parameters: {esc(str(r.params))}; seed {r.seed}; {r.seconds:.1f} s</small></p>")
        for name, png in figs.get(i, []):
            part.append(f'<img alt="{esc(name)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">')
        body.append("".join(part))
    style = ("body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px}img{max-width:100%}")
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>contrastive-bounds report</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>")
    html_path = out_dir / "report.html"
    atomic_write_text(html_path, page)
    return {"markdown": md_path, "html": html_path}
