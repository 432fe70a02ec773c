"""How two searches of one landscape agree (two seeds): minima found by both, their barriers, H* (A9).

At sizes where closure is out of reach a network is a sample, and the first thing a reader asks of a sample
is whether another one says the same. :func:`seed_agreement` matches the minima of two results up to the
landscape's symmetry (same energy to ``STRICT_ENERGY_RTOL`` and :func:`~.symmetry.equivalent` Gram matrices)
and compares what both found: the minima common to both and those only one found, the barriers of the common
minima that both connected to a lower one, and H*. JAX-free.
"""

from __future__ import annotations

from typing import Any

from contrastive_bounds.numerics.landscapes.network.catalog import same_energy
from contrastive_bounds.numerics.landscapes.network.constants import DEFAULT_GRAM_TOL, STRICT_ENERGY_RTOL
from contrastive_bounds.numerics.landscapes.network.symmetry import Symmetry, equivalent

__all__ = ["seed_agreement", "BARRIER_RTOL"]

#: two barriers of one minimum agree when they differ by at most this relative to ``max(1, |barrier|)``
BARRIER_RTOL = 1e-9


def seed_agreement(first: Any, second: Any, symmetry: Symmetry, *, gram_tol: float = DEFAULT_GRAM_TOL) -> dict[str, Any]:
    """Compare two :class:`~.result.NetworkResult` of one landscape (module docstring).

    Args:
      first, second: the results (their ``minima``, ``analysis``, ``settings``). symmetry: the landscape's.
      gram_tol: tolerance of Gram entries for equal minima (> 0).

    Returns:
      JSON-ready dict: ``seeds`` (the two seeds), ``common`` (``[id in first, id in second, energy]`` per minimum
      both found), ``only_first`` / ``only_second`` (ids), ``barriers`` (per common non-global minimum connected in
      both: both barriers and whether they agree to :data:`BARRIER_RTOL`), ``critical_height`` (both values),
      ``agree`` (the same minima, agreeing barriers and H* to :data:`BARRIER_RTOL`) and ``text`` (one sentence).

    Raises:
      ValueError: ``gram_tol`` not positive.
    """
    if not gram_tol > 0:
        raise ValueError(f"gram_tol={gram_tol!r} must be > 0")
    pairs, used = [], set()
    for a in first.minima:
        for b in second.minima:
            if b.id in used:
                continue
            if same_energy(a.energy, b.energy, STRICT_ENERGY_RTOL) and equivalent(a.z, b.z, symmetry, tol=gram_tol):
                pairs.append((a.id, b.id, float(a.energy)))
                used.add(b.id)
                break
    only_first = [a.id for a in first.minima if a.id not in {p[0] for p in pairs}]
    only_second = [b.id for b in second.minima if b.id not in used]
    barriers = []
    for i, j, energy in pairs:
        x = first.analysis.barriers.get(i, {}).get("barrier")
        y = second.analysis.barriers.get(j, {}).get("barrier")
        if x is None or y is None:
            continue
        same = abs(x - y) <= BARRIER_RTOL * max(1.0, abs(x))
        barriers.append({"first": i, "second": j, "energy": energy, "barrier_first": float(x),
                         "barrier_second": float(y), "agree": bool(same)})
    h1, h2 = float(first.critical_height), float(second.critical_height)
    h_same = abs(h1 - h2) <= BARRIER_RTOL * max(1.0, abs(h1))
    agree = not only_first and not only_second and all(b["agree"] for b in barriers) and h_same
    seeds = [first.settings.get("seed"), second.settings.get("seed")]
    shared = (f"{sum(b['agree'] for b in barriers)} of {len(barriers)} shared barriers agree" if barriers else
              "no barrier found by both to compare")
    if agree and not barriers:  # the same minima and no barrier: nothing beyond the minima was compared
        verdict = "; the two samples found the same minima, with no barrier to compare"
    else:
        verdict = "; the two samples agree" if agree else "; the two samples differ: the network is a sample"
    text = (f"seeds {seeds[0]} and {seeds[1]}: {len(pairs)} {'minimum' if len(pairs) == 1 else 'minima'} found by "
            f"both, {len(only_first)} only by seed {seeds[0]}, {len(only_second)} only by seed {seeds[1]}; {shared}; "
            f"H* {h1:.10g} and {h2:.10g} " + ("(agree)" if h_same else "(differ)") + verdict)
    return {"seeds": seeds, "common": [list(p) for p in pairs], "only_first": only_first, "only_second": only_second,
            "barriers": barriers, "critical_height": [h1, h2], "agree": bool(agree), "text": text}
