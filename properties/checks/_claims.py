"""Registry claims as a check outcome: every claim's verdict against the one the toolkit asserts.

The rule, fixed before any claim runs: a claim the toolkit asserts (``Claim.expected == "holds"``) must
come back ``proved`` or ``certified`` when certification was asked (``certify=True``), and ``proved``,
``certified`` or ``supported`` otherwise; a claim the toolkit refutes must come back ``refuted``. With
``certify=True`` a ``supported`` is a failed certification (the interval arithmetic gave up: budget
exhausted, or a sub-box it could not decide): it is not counted as agreement. Every claim is one
deterministic ``registry`` condition of the outcome (no randomness: the sampled points are seeded).
"""

from __future__ import annotations

from contrastive_bounds.properties.checks._outcome import Outcome
import contrastive_bounds.theory._registry as registry

__all__ = ["claims_outcome", "accepted_statuses"]


def accepted_statuses(expected: str, certify: bool) -> tuple[str, ...]:
    """The claim statuses that count as agreeing with ``expected`` (``"holds"`` or ``"refuted"``).

    Raises:
      ValueError: ``expected`` is neither.
    """
    if expected == "refuted":
        return ("refuted",)
    if expected != "holds":
        raise ValueError(f"expected={expected!r} must be 'holds' or 'refuted'")
    return ("proved", "certified") if certify else ("proved", "certified", "supported")


def claims_outcome(prefixes: tuple[str, ...], certify: bool) -> Outcome:
    """Run every registry claim whose name starts with one of ``prefixes`` and compare its verdict.

    Args:
      prefixes: claim-name prefixes, e.g. ``("alignment.",)``.
      certify: also certify with interval arithmetic (python-flint) where the claim supports it; then a
        claim the toolkit asserts must be proved or certified (a ``supported`` is a failed certification).

    Returns:
      ``holds`` when every claim's status is one :func:`accepted_statuses` accepts, else ``violated``
      (each claim a ``registry`` condition, the disagreeing ones named in the summary).
    """
    rows = []
    for c in registry.claims():
        if not c.name.startswith(prefixes):
            continue
        v = c.run(certify)
        ok = v.status in accepted_statuses(c.expected, certify)
        rows.append({"name": c.name, "expected": c.expected, "status": v.status, "agrees": ok,
                     "accepted": list(accepted_statuses(c.expected, certify)), "evidence": v.evidence,
                     "counterexample": v.counterexample})
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    text = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    bad = [r for r in rows if not r["agrees"]]
    rule = "proved or certified" if certify else "proved, certified or supported"
    out = Outcome("holds", f"{len(rows)} claims, every verdict as the toolkit asserts ({text}; a claim it asserts must be "
                           f"{rule}, one it refutes refuted)", empirical=float(len(rows) - len(bad)),
                  details={"claims": rows, "certify": certify},
                  reason="; ".join(f"{r['name']}: {r['status']}" for r in rows))
    if not rows:
        out.require("registry", f"the registry holds claims named {', '.join(prefixes)}*", False, "none found")
    for r in rows:
        out.require("registry", f"{r['name']} is {' or '.join(r['accepted'])}", r["agrees"],
                    f"{r['status']}: {r['evidence'][:160]}")
    if bad:
        out.summary = (f"claims disagree with the toolkit: {[r['name'] for r in bad]} "
                       f"({', '.join(r['status'] for r in bad)}; {text}); " + out.summary)
    return out
