"""Registry claims as a check outcome: every claim's verdict against the one the toolkit asserts."""

from __future__ import annotations

from contrastive_bounds.properties.checks.framework import Outcome
from contrastive_bounds.theory import registry


def claims_outcome(prefixes: tuple[str, ...], certify: bool) -> Outcome:
    """Run every registry claim whose name starts with one of ``prefixes`` and compare its verdict.

    Args:
      prefixes: claim-name prefixes, e.g. ``("alignment.",)``.
      certify: also certify with interval arithmetic (python-flint) where the claim supports it.

    Returns:
      ``holds`` when every claim's verdict (proved / certified / supported / refuted) is the one the
      toolkit asserts for it (``Claim.expected``), ``violated`` naming the claims that disagree.
    """
    rows = []
    for c in registry.claims():
        if not c.name.startswith(prefixes):
            continue
        v = c.run(certify)
        rows.append({"name": c.name, "expected": c.expected, "status": v.status, "agrees": c.agrees(v),
                     "evidence": v.evidence, "counterexample": v.counterexample})
    bad = [r["name"] for r in rows if not r["agrees"]]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    text = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    if bad:
        return Outcome("violated", f"claims disagree with the toolkit: {bad} ({text})", details={"claims": rows})
    return Outcome("holds", f"{len(rows)} claims, every verdict as the toolkit asserts ({text})",
                   empirical=float(len(rows)), details={"claims": rows},
                   reason="; ".join(f"{r['name']}: {r['status']}" for r in rows))
