"""Disconnectivity graph of a network as a PNG (matplotlib, object API, no global state).

Drawn from the merge tree of :func:`~.graph.merge_tree` (exact merge energies, not binned levels):
every minimum is a vertical line from its energy up to the transition state at which its basin
merges with another one; merged basins continue from the middle of the horizontal joint at that
energy (Becker & Karplus 1997; Wales, Miller & Walsh, Nature 394, 758 (1998), drawn here in the
dendrogram style). Basins are ordered lowest first within each merge; each component of the network
(minima not connected to the rest) rises to the top of the frame. Leaves are labelled ``m<id>``
with ``×<multiplicity>`` when a minimum stands for several symmetry-related ones, and ``Δ <barrier>``
for non-global minima; a second panel shows every barrier on its own scale, so shallow traps stay
visible however wide the energy range (a 0.28-deep trap beside a 30-unit range, for instance).
"""

from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Sequence

from contrastive_bounds.numerics.landscapes.network.graph import merge_tree
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics._filemode import write_atomically

__all__ = ["draw_disconnectivity", "disconnectivity_figure", "TITLE_FONTSIZE"]


#: font size of the figure title (points) and the widest a character of it can be (em, DejaVu Sans capitals)
TITLE_FONTSIZE = 9
_CHAR_EM = 0.72


def _fit(title: str, width_in: float) -> str:
    """``title`` with every line wrapped to the figure's width (``width_in`` inches, less a margin), so no line is
    cut whatever the landscape's description (a one-minimum network has the narrowest figure)."""
    chars = max(16, int((width_in - 0.3) * 72 / (TITLE_FONTSIZE * _CHAR_EM)))
    return "\n".join(textwrap.fill(line, chars) if line else line for line in title.split("\n"))


def draw_disconnectivity(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState],
                         path: str | Path, *, title: str = "", barriers: dict[int, float] | None = None) -> Path:
    """Write :func:`disconnectivity_figure` to ``path`` (PNG, tight bounding box, atomically) and return it.

    Raises:
      ValueError: no minimum. OSError: the file cannot be written.
    """
    fig = disconnectivity_figure(minima, transition_states, title=title, barriers=barriers)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", pad_inches=0.15)
    out = Path(path)
    write_atomically(out, buf.getvalue())
    return out


def disconnectivity_figure(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState], *,
                           title: str = "", barriers: dict[int, float] | None = None):
    """The disconnectivity graph as a matplotlib ``Figure`` (constrained layout, Agg canvas).

    Left panel: the graph (module docstring), a dot at every minimum, each non-global leaf labelled with
    its barrier. Right panel (when ``barriers`` has entries): the barrier of every non-global minimum as
    a bar on its own axis (logarithmic when the barriers span more than a factor 30), H* (the largest) in
    red — so a trap 0.28 deep stays visible beside a global energy range of 30. Constrained layout keeps titles and labels inside the figure.

    Args:
      minima, transition_states: the network (only verified TSs are drawn).
      title: figure title (newlines kept; each line wrapped to the figure's width).
      barriers: ``{minimum id: barrier}`` of the non-global connected minima (None: no right panel).

    Raises:
      ValueError: no minimum.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not minima:
        raise ValueError("the network has no minimum to draw")
    nodes = merge_tree(minima, transition_states)
    children = {k: n["children"] for k, n in enumerate(nodes)}
    parent = {c: k for k, kids in children.items() for c in kids}
    roots = sorted((k for k, n in enumerate(nodes) if n["root"]), key=lambda k: nodes[k]["low"])
    x: dict[int, float] = {}
    counter = [0.0]

    def place(k: int) -> float:
        kids = children[k]
        if not kids:
            x[k] = counter[0]
            counter[0] += 1.0
        else:
            x[k] = sum(place(c) for c in kids) / len(kids)
        return x[k]

    for r in roots:
        place(r)
        counter[0] += 0.5
    energies = [n["energy"] for n in nodes]
    lo, hi = min(energies), max(energies)
    span = hi - lo if hi > lo else 1.0
    top = hi + 0.12 * span
    by_id = {m.id: m for m in minima}
    bars = {k: v for k, v in (barriers or {}).items() if v is not None}
    many = len(minima) > 12
    width = min(max(4.5, 0.42 * len(minima) + 2.5) + (3.2 if bars else 0.0), 24.0)
    title = _fit(title, width)
    lines = title.count("\n") + 1 if title else 0
    fig = Figure(figsize=(width, 5.2 + 0.18 * lines), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(1, 2 if bars else 1, width_ratios=[3, 1] if bars else [1])
    ax = fig.add_subplot(grid[0, 0])
    h_star = max(bars.values(), default=0.0)
    for k, n in enumerate(nodes):
        upper = nodes[parent[k]]["energy"] if k in parent else top
        ax.plot([x[k], x[k]], [n["energy"], upper], color="black", lw=1.2)
        if k in parent:
            ax.plot([x[k], x[parent[k]]], [upper, upper], color="black", lw=1.2)
        if n["kind"] == "leaf":
            m = by_id[n["id"]]
            deep = m.id in bars and bars[m.id] >= h_star > 0
            ax.plot([x[k]], [n["energy"]], "o", ms=4, color="tab:red" if deep else "black")
            label = f"m{m.id}" + (f" ×{m.multiplicity}" if (m.multiplicity or 0) > 1 else "")
            if m.id in bars:
                label += f"\nΔ {bars[m.id]:.3g}"
            ax.annotate(label, (x[k], n["energy"]), textcoords="offset points", xytext=(0, -6), ha="center",
                        va="top", fontsize=7, rotation=90 if many else 0, color="tab:red" if deep else "black")
    ax.set_ylim(lo - (0.22 if many else 0.16) * span, top)
    ax.set_xlim(-0.8, max(counter[0] - 0.5, 0.8))
    ax.set_xticks([])
    ax.set_ylabel("V")
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title("disconnectivity graph", fontsize=9)
    if bars:
        bx = fig.add_subplot(grid[0, 1])
        ids = sorted(bars, key=lambda i: by_id[i].energy)
        vals = [bars[i] for i in ids]
        bx.bar(range(len(ids)), vals, color=["tab:red" if v >= h_star else "tab:gray" for v in vals])
        bx.set_xticks(range(len(ids)), [f"m{i}" for i in ids], rotation=90 if len(ids) > 6 else 0, fontsize=7)
        bx.set_title(f"barriers\nH* = {h_star:.4g} (red)", fontsize=9)
        positive = [v for v in vals if v > 0]
        if positive and max(positive) > 30 * min(positive):  # a log axis keeps a shallow trap visible beside a deep one
            bx.set_yscale("log")
            bx.set_ylim(min(positive) / 3, 3 * max(positive))
            bx.set_ylabel("barrier to a lower minimum (log scale)")
        else:
            bx.set_ylim(0, 1.15 * max(vals) if max(vals) > 0 else 1.0)
            bx.set_ylabel("barrier to a lower minimum")
        for side in ("top", "right"):
            bx.spines[side].set_visible(False)
    if title:
        fig.suptitle(title, fontsize=TITLE_FONTSIZE)
    return fig
