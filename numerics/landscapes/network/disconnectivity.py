"""Disconnectivity graph of a network as a PNG (matplotlib, object API, no global state).

Drawn from the merge tree of :func:`~.graph.merge_tree` (exact merge energies, not binned levels):
every minimum is a vertical line from its energy up to the transition state at which its basin
merges with another one; merged basins continue from the middle of the horizontal joint at that
energy (Becker & Karplus 1997; Wales, Miller & Walsh, Nature 394, 758 (1998), drawn here in the
dendrogram style). Basins are ordered lowest first within each merge; each component of the network
(minima not connected to the rest) rises to the top of the frame. Leaves are labelled ``m<id>``
with ``×<multiplicity>`` when a minimum stands for several symmetry-related ones.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Sequence

from contrastive_bounds.numerics.landscapes.network.graph import merge_tree
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.store import atomic_write_bytes

__all__ = ["draw_disconnectivity"]


def draw_disconnectivity(minima: Sequence[NetworkMinimum], transition_states: Sequence[TransitionState],
                         path: str | Path, *, title: str = "") -> Path:
    """Write the disconnectivity graph of the network to ``path`` (PNG, atomically) and return it.

    Args:
      minima, transition_states: the network (only verified TSs are drawn).
      path: output file. title: figure title.

    Raises:
      ValueError: no minimum. OSError: the file cannot be written.
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
    fig = Figure(figsize=(max(4.0, 0.45 * len(minima) + 2.0), 5.0), dpi=120)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for k, n in enumerate(nodes):
        upper = nodes[parent[k]]["energy"] if k in parent else top
        ax.plot([x[k], x[k]], [n["energy"], upper], color="black", lw=1.2)
        if k in parent:
            ax.plot([x[k], x[parent[k]]], [upper, upper], color="black", lw=1.2)
        if n["kind"] == "leaf":
            m = by_id[n["id"]]
            label = f"m{m.id}" + (f" ×{m.multiplicity}" if m.multiplicity > 1 else "")
            ax.annotate(label, (x[k], n["energy"]), textcoords="offset points", xytext=(0, -10), ha="center",
                        va="top", fontsize=7, rotation=90 if len(minima) > 12 else 0)
    ax.set_ylim(lo - 0.15 * span, top)
    ax.set_xticks([])
    ax.set_ylabel("V")
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or "disconnectivity graph", fontsize=9)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    out = Path(path)
    atomic_write_bytes(out, buf.getvalue())
    return out
