"""Figures of the report: one :class:`~.checks.outcome.PlotSpec` (data kept in results.json) -> PNG."""

from __future__ import annotations

import io
import textwrap

from contrastive_bounds.properties.checks.outcome import PlotSpec

__all__ = ["render_figure"]


def render_figure(spec: PlotSpec) -> bytes:
    """Draw one :class:`PlotSpec` as PNG bytes (matplotlib, Agg backend).

    Lines (``kind="lines"``) are drawn with their confidence bands (``lo``..``hi``); ``None`` values
    become gaps. ``kind="bars"`` draws the first value of each series as a bar.

    Raises:
      ValueError: a series' ``x`` and ``y`` differ in length (from matplotlib).
    """
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
