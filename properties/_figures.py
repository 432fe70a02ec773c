"""Figures of the report: one :class:`~.checks.outcome.PlotSpec` (data kept in results.json) -> PNG."""

from __future__ import annotations

import io
import textwrap
from typing import Any

from contrastive_bounds.properties.checks._outcome import PlotSpec

__all__ = ["render_figure", "draw_figure"]


def _markers_only(style: str) -> bool:
    """Whether a matplotlib format string draws markers without a line (``"o"``, ``"x"``, ``"ks"``)."""
    return not any(part in style for part in ("-", ":", "."))


def render_figure(spec: PlotSpec) -> bytes:
    """Draw one :class:`PlotSpec` as PNG bytes (matplotlib, Agg backend; see :func:`draw_figure`).

    Raises:
      ValueError: a series' ``x`` and ``y`` differ in length (from matplotlib).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=100)
    try:
        draw_figure(ax, spec)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        return buf.getvalue()
    finally:
        plt.close(fig)


def draw_figure(ax: Any, spec: PlotSpec) -> None:
    """Draw ``spec`` on a matplotlib Axes.

    Lines (``kind="lines"``) are drawn with their confidence bands (``lo``..``hi``) as a shaded band; a
    series drawn with markers only (a style without ``-``, ``:`` or ``.`` line parts, e.g. ``"o"``) gets
    its ``lo``..``hi`` as error bars, which are visible at a single point (what a legend promising an
    interval must show). ``None`` values become gaps. When every x of a linear axis is an integer (N, d,
    epochs), the x ticks are integers. A log x axis over few values (batch sizes 16..512) is ticked at
    those values, labelled as plain numbers, with no minor labels (matplotlib's minor labels of an axis
    spanning about a decade ran together); an axis with a single x value spans one unit (a factor of 2
    on a log axis) either side of it, ticked at that value. ``kind="bars"`` draws the first value of each
    series as a bar.
    """
    if spec.kind == "bars":
        labels = [s.label for s in spec.series]
        vals = [s.y[0] if s.y else 0.0 for s in spec.series]
        ax.bar(range(len(vals)), vals, color="tab:blue")
        ax.set_xticks(range(len(vals)), labels, rotation=30, ha="right", fontsize=8)
    else:
        all_x: list[float] = []
        for s in spec.series:
            xs = [float(v) for v in s.x]
            all_x += xs
            ys = [float("nan") if v is None else float(v) for v in s.y]
            if s.lo is not None and s.hi is not None:
                lo = [float("nan") if v is None else float(v) for v in s.lo]
                hi = [float("nan") if v is None else float(v) for v in s.hi]
                if _markers_only(s.style):
                    err = [[max(y - a, 0.0) for y, a in zip(ys, lo)], [max(b - y, 0.0) for y, b in zip(ys, hi)]]
                    ax.errorbar(xs, ys, yerr=err, fmt=s.style, label=s.label, ms=5, capsize=4, lw=1.2)
                    continue
                line = ax.plot(xs, ys, s.style, label=s.label, lw=1.4, ms=4)[0]
                ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color())
            else:
                ax.plot(xs, ys, s.style, label=s.label, lw=1.4, ms=4)
        _x_axis(ax, all_x, spec.logx)
        if spec.logy:
            ax.set_yscale("log")
        ax.legend(fontsize=8)
    ax.set_title("\n".join(textwrap.wrap(spec.title, 80)) or spec.title, fontsize=9)
    ax.set_xlabel(spec.xlabel)
    ax.set_ylabel(spec.ylabel)
    ax.grid(alpha=0.3)


#: A log x axis with at most this many distinct values is ticked at the values themselves.
MAX_VALUE_TICKS = 12


def _x_axis(ax: Any, all_x: list[float], logx: bool) -> None:
    """Scale, limits and ticks of the x axis (see :func:`draw_figure`)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter

    values = sorted({x for x in all_x if x == x and (not logx or x > 0)})
    integers = bool(values) and all(float(x).is_integer() for x in values)
    label = FuncFormatter(lambda v, _pos: f"{v:.0f}" if integers else f"{v:g}")
    if logx:
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        if 0 < len(values) <= MAX_VALUE_TICKS:
            ax.xaxis.set_major_locator(FixedLocator(values))
            ax.xaxis.set_major_formatter(label)
        if len(values) == 1:
            ax.set_xlim(values[0] / 2.0, values[0] * 2.0)
        return
    if len(values) == 1:
        half = 1.0 if integers else max(abs(values[0]) * 0.5, 0.5)
        ax.set_xlim(values[0] - half, values[0] + half)
        ax.xaxis.set_major_locator(FixedLocator(values))
        ax.xaxis.set_major_formatter(label)
    elif integers:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
