"""The report of the main job: PNG figures, ``report.md`` and a self-contained ``report.html``.

Figures are drawn (:mod:`._figures`) from the :class:`~.checks.outcome.PlotSpec` data kept in each
record, so a report can be re-made from ``results.json`` alone (``contrastive-bounds check
--report-only``). Both documents carry the same facts per check (verdict, summary, evidence,
false-alarm probability, p-value, power, samples needed, slack budget, parameters, figures) and end
with a glossary of the terms they use. Text from records is escaped (Markdown and HTML). All files
are written atomically; figures of records no longer in the results are removed.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

from contrastive_bounds.properties.checks._outcome import VERDICTS
from contrastive_bounds.properties.checks._framework import CheckResult
from contrastive_bounds.properties.checks._verdicts import could_not_have_failed
from ._figures import render_figure
from ._glossary import GLOSSARY, terms_used
from ._runner import SuiteResult, atomic_write_bytes, atomic_write_text
from ._stats import DEFAULT_SUITE_ALPHA

__all__ = ["write_report", "fmt_value", "md_escape", "verdict_of", "VERDICT_COLOURS", "HEADERS", "table_cell", "headline", "could_not_have_failed_counts"]

#: Colour of each verdict (rich colour names; the HTML report uses the same hues).
VERDICT_COLOURS = {"holds": "green", "uninformative": "dark_orange", "vacuous": "yellow", "inconclusive": "cyan",
                   "violated": "bold red", "error": "red"}
_HTML_COLOURS = {"holds": "#1a7f37", "uninformative": "#b35900", "vacuous": "#9a6700", "inconclusive": "#0969da",
                 "violated": "#cf222e", "error": "#cf222e"}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#|~])")

HEADERS = ["check", "theorem", "scenario", "bound", "empirical [interval]", "ratio", "verdict", "time"]


#: ``<`` that would open an HTML tag (``<tag``, ``</``, ``<!``, ``<?``), and ``&`` that would start an entity.
_MD_TAG = re.compile(r"<(?=[A-Za-z/!?])")
_MD_ENTITY = re.compile(r"&(?=#?\w+;)")


def md_escape(text: str) -> str:
    """Escape ``text`` for Markdown: ``H*`` stays an asterisk, ``a_b`` no italics, ``|`` no cell break.

    Backslash-escapes ``\\ ` * _ { } [ ] # | ~``; writes as entities only a ``<`` that would open an HTML
    tag and an ``&`` that would start an entity, so comparisons (``0.4 <= 0.5``, ``c > H*``) read as
    typed in the Markdown file itself, not as ``&lt;=``.
    """
    t = _MD_SPECIAL.sub(r"\\\1", str(text))
    return _MD_TAG.sub("&lt;", _MD_ENTITY.sub("&amp;", t))


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
    out = ["| " + " | ".join(md_escape(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(md_escape(table_cell(r.get(c))) for c in cols) + " |" for r in rows]
    return out + [""]


def _table_html(rows: list[dict]) -> str:
    if not rows:
        return ""
    esc = html.escape
    cols = _table_columns(rows)
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{esc(table_cell(r.get(c)))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def verdict_of(r: CheckResult) -> str:
    """The verdict shown for a record: its outcome's verdict, or ``error`` when the check crashed."""
    return "error" if r.error else r.outcome.verdict


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")


def _row(r: CheckResult) -> list[str]:
    o = r.outcome
    emp = fmt_value(o.empirical)
    if o.interval is not None and o.interval[0] != o.interval[1]:
        emp += f" [{fmt_value(o.interval[0])}, {fmt_value(o.interval[1])}]"
    bound = fmt_value(o.bound, o.bound_log10)
    if o.band is not None:
        bound += f" (band [{fmt_value(o.band[0])}, {fmt_value(o.band[1])}])"
    if o.trivial_bound is not None:
        bound += f" (trivial {fmt_value(o.trivial_bound)})"
    return [r.check, r.theorem, r.scenario, bound, emp,
            fmt_value(o.ratio) if o.ratio is not None else "-", verdict_of(r), f"{r.seconds:.1f}s"]


def _figures(suite: SuiteResult, out_dir: Path) -> dict[int, list[tuple[str, bytes]]]:
    """Draw every record's figures, then remove PNGs under ``figures/`` that no record names any more."""
    figs: dict[int, list[tuple[str, bytes]]] = {}
    written: set[str] = set()
    for i, r in enumerate(suite.results):
        names = []
        for j, spec in enumerate(r.outcome.plots):
            png = render_figure(spec)
            name = f"figures/{_slug(r.check)}-{_slug(r.scenario)}-{j}.png"
            atomic_write_bytes(out_dir / name, png)
            names.append(name)
            figs.setdefault(i, []).append((name, png))
        r.figures = names
        written.update(names)
    folder = out_dir / "figures"
    if folder.is_dir():
        for png in folder.glob("*.png"):
            if f"figures/{png.name}" not in written:
                png.unlink()
    return figs


def could_not_have_failed_counts(suite: SuiteResult) -> dict[str, int]:
    """How many records could not have turned red in this run, by reason
    (:func:`~.checks.verdicts.could_not_have_failed`: uninformative, vacuous, inconclusive at power < 1/2)."""
    counts: dict[str, int] = {}
    for r in suite.results:
        why = None if r.error else could_not_have_failed(r.outcome)
        if why:
            counts[why] = counts.get(why, 0) + 1
    return counts


def headline(suite: SuiteResult) -> str:
    """The report's first line: how many checks ran, and how many of them could not have failed."""
    counts = could_not_have_failed_counts(suite)
    n = sum(counts.values())
    why = f" ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})" if n else ""
    failed = len(suite.failed)
    total = len(suite.results)
    return (f"{total} check{'s' if total != 1 else ''}, {n} of which could not have failed{why}; {failed} failing; "
            f"exit code {suite.exit_code}")


def _summary_line(suite: SuiteResult) -> str:
    counts: dict[str, int] = {}
    for r in suite.results:
        counts[verdict_of(r)] = counts.get(verdict_of(r), 0) + 1
    order = [*VERDICTS, "error"]
    parts = ", ".join(f"{counts[v]} {v}" for v in sorted(counts, key=lambda v: order.index(v) if v in order else 99))
    strict = "; strict (uninformative, vacuous and inconclusive fail)" if suite.strict else ""
    return (f"{len(suite.results)} checks ({parts}); profile {suite.profile}; suite false-alarm probability "
            f"<= {suite.alpha:g} (Holm across stochastic checks){strict}; exit code {suite.exit_code}")


def _facts(r: CheckResult) -> list[str]:
    """The per-check lines both documents print (plain text, unescaped)."""
    o = r.outcome
    out = []
    if o.reason:
        out.append(f"Reason / evidence: {o.reason}")
    if o.false_alarm:
        line = f"False-alarm probability of this check: {o.false_alarm:g}"
        if o.p_value is not None:
            line += f"; p-value {o.p_value:.3g}"
        if "holm_rejected" in o.details:
            line += f"; Holm at suite alpha {o.details.get('suite_alpha', DEFAULT_SUITE_ALPHA):g} " + (
                "rejects" if o.details["holm_rejected"] else "does not reject")
        out.append(line)
    if o.power is not None and o.detect is not None:
        out.append(f"Power against a deviation of {o.detect:.4g}: {o.power:.3g} (decided when >= 0.5)")
    if o.samples_needed:
        out.append(f"About {o.samples_needed} samples would decide it (now {o.samples}).")
    if o.trivial_bound is not None:
        out.append(f"Trivial bound of the quantity: {fmt_value(o.trivial_bound)}.")
    conds = list(getattr(o, "conditions", None) or [])
    if conds:
        bad = [c for c in conds if not c.ok]
        kinds = sorted({c.kind for c in conds})
        line = (f"Deterministic conditions: {len(conds) - len(bad)} of {len(conds)} hold ({', '.join(kinds)}); a failed "
                "one is a failure whatever the p-value")
        if bad:
            line += ". FAILED: " + "; ".join(f"[{c.kind}] {c.name}" + (f" ({c.detail})" if c.detail else "") for c in bad)
        out.append(line)
    why = None if r.error else could_not_have_failed(o)
    if why:
        out.append(f"This check could not have failed in this run ({why}).")
    return out


def _details_md(r: CheckResult) -> list[str]:
    o = r.outcome
    lines = [f"### {md_escape(r.check)} ({md_escape(r.scenario)})", "",
             f"*{md_escape(r.theorem)}*: {md_escape(r.statement)}", "",
             f"**Verdict: {verdict_of(r)}.** {md_escape(o.summary)}", ""]
    for fact in _facts(r):
        lines += [md_escape(fact), ""]
    lines += _table_md(list(getattr(o, "table", None) or []))
    if o.slack:
        lines += ["| slack budget (link) | log10 factor |", "|---|---|"]
        lines += [f"| {md_escape(k)} | {v:.4g} |" for k, v in o.slack.items()]
        lines += [""]
    lines += [f"Parameters: `{r.params}`; seed {r.seed}; {r.seconds:.1f} s.", ""]
    for name in r.figures:
        lines += [f"![{md_escape(r.check)}]({name})", ""]
    if r.error:
        lines += ["```", str(o.details.get("traceback", r.error)), "```", ""]
    return lines


def _glossary_terms(suite: SuiteResult) -> list[str]:
    text = " ".join(" ".join([r.theorem, r.statement, r.outcome.summary, r.outcome.reason or "", verdict_of(r)])
                    for r in suite.results)
    return terms_used(text + " ratio false alarm p-value Holm slack budget")


def _markdown(suite: SuiteResult) -> str:
    md = [f"# contrastive-bounds check report: {md_escape(headline(suite))}", "", md_escape(_summary_line(suite)), "",
          "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    md += ["| " + " | ".join(md_escape(c) for c in _row(r)) + " |" for r in suite.results]
    md += ["", "Ratio: empirical/bound for upper bounds (<= 1 holds; near 1 is tight), bound/empirical for lower "
               "bounds, empirical/prediction for agreement checks. Verdicts and terms: see the glossary at the end.",
           "", "## Checks", ""]
    for r in suite.results:
        md += _details_md(r)
    md += ["## Glossary", ""]
    md += [f"- **{md_escape(t)}**: {md_escape(GLOSSARY[t])}" for t in _glossary_terms(suite)]
    return "\n".join(md) + "\n"


def _verdict_html(v: str) -> str:
    return f'<span class="v-{html.escape(v)}">{html.escape(v)}</span>'


def _html(suite: SuiteResult, figs: dict[int, list[tuple[str, bytes]]]) -> str:
    esc = html.escape
    rows = "".join("<tr>" + "".join(f"<td>{_verdict_html(c) if k == 6 else esc(c)}</td>" for k, c in enumerate(_row(r)))
                   + "</tr>" for r in suite.results)
    body = [f"<h1>contrastive-bounds check report: {esc(headline(suite))}</h1><p>{esc(_summary_line(suite))}</p>",
            "<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in HEADERS) + f"</tr>{rows}</table>",
            "<p>Ratio: empirical/bound for upper bounds (&lt;= 1 holds; near 1 is tight), bound/empirical for lower "
            "bounds, empirical/prediction for agreement checks. Verdicts and terms: see the "
            "<a href='#glossary'>glossary</a> at the end.</p><h2>Checks</h2>"]
    for i, r in enumerate(suite.results):
        o = r.outcome
        part = [f"<h3>{esc(r.check)} ({esc(r.scenario)})</h3><p><i>{esc(r.theorem)}</i>: {esc(r.statement)}</p>",
                f"<p><b>Verdict: {_verdict_html(verdict_of(r))}.</b> {esc(o.summary)}</p>"]
        part += [f"<p>{esc(fact)}</p>" for fact in _facts(r)]
        part.append(_table_html(list(getattr(o, "table", None) or [])))
        if o.slack:
            part.append("<table><tr><th>slack budget (link)</th><th>log10 factor</th></tr>" +
                        "".join(f"<tr><td>{esc(k)}</td><td>{v:.4g}</td></tr>" for k, v in o.slack.items()) + "</table>")
        part.append(f"<p><small>Parameters: {esc(str(r.params))}; seed {r.seed}; {r.seconds:.1f} s</small></p>")
        for name, png in figs.get(i, []):
            part.append(f'<img alt="{esc(name)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">')
        if r.error:
            part.append(f"<pre>{esc(str(o.details.get('traceback', r.error)))}</pre>")
        body.append("".join(part))
    body.append("<h2 id='glossary'>Glossary</h2><dl>" + "".join(
        f"<dt>{esc(t)}</dt><dd>{esc(GLOSSARY[t])}</dd>" for t in _glossary_terms(suite)) + "</dl>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:3px 6px;font-size:13px}img{max-width:100%}dt{font-weight:bold}"
             + "".join(f".v-{v}{{color:{c};font-weight:bold}}" for v, c in _HTML_COLOURS.items()))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>contrastive-bounds report</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>")


def write_report(suite: SuiteResult, out_dir: Path) -> dict[str, Path]:
    """Write figures, ``report.md`` and ``report.html`` into ``out_dir``; return their paths.

    Also sets each record's ``figures`` to the files drawn for it and removes figure files of
    records no longer in ``suite`` (write ``results.json`` afterwards to keep the names).

    Raises:
      OSError: a file cannot be written.
    """
    figs = _figures(suite, out_dir)
    md_path = out_dir / "report.md"
    atomic_write_text(md_path, _markdown(suite))
    html_path = out_dir / "report.html"
    atomic_write_text(html_path, _html(suite, figs))
    return {"markdown": md_path, "html": html_path}
