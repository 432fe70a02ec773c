"""What differs between two run fingerprints, for the "belongs to a different run" messages of checkpoints.

Used by the Langevin checkpoints (:mod:`.langevin.checkpoint`) and the alignment checkpoints
(:mod:`.alignment.checkpoint`, :mod:`.alignment.batch_scaling`).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["fingerprint_difference"]

#: clause separators of a long description (a kernel's: "temperature=...; HKS constant ..., anisotropy=...")
_SEPARATORS = ("; ", ", ")


def fingerprint_difference(found: str, wanted: str, limit: int = 3, labels: dict[str, str] | None = None) -> str:
    """Which settings differ between a checkpoint's fingerprint and this run's.

    Args:
      found, wanted: JSON objects (the checkpoint's and this run's configuration) as text.
      limit: keys named at most (the rest counted).
      labels: how to name a key to the user (e.g. ``"num_steps"`` -> ``"the number of steps (--time / --step-size)"``);
        keys not in it keep their names. A key ending in ``_sha256`` (a digest) is said to differ, without values.
    Returns:
      e.g. ``"shards: 2 in the checkpoint, 1 now"``; two long strings (a kernel description) are shown by the
      clauses where they differ (``"...temperature=T(t) = 0.5 / log(t + 2)..."``), other values over 60 characters
      are cut; a generic phrase when either is not a JSON object. Raises nothing.
    """
    labels = labels or {}
    try:
        a, b = json.loads(found), json.loads(wanted)
    except (ValueError, TypeError):
        return "unreadable fingerprint"
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return "unreadable fingerprint"

    def short(v: Any) -> str:
        text = json.dumps(v, ensure_ascii=False)
        return text if len(text) <= 60 else text[:57] + "..."

    def pair(x: Any, y: Any) -> tuple[str, str]:
        """Both values as shown: two long strings (a kernel description) by the part where they differ, widened to
        the clauses around it (between "; " or ", " separators), so that a changed constant shows with its name."""
        if not (isinstance(x, str) and isinstance(y, str)) or max(len(x), len(y)) <= 60:
            return short(x), short(y)
        i = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        j = 0  # common suffix, not reaching into the common prefix
        while j < min(len(x), len(y)) - i and x[-1 - j] == y[-1 - j]:
            j += 1

        def clause(v: str, end: int) -> str:
            start = max(v.rfind(sep, 0, i) + len(sep) if v.rfind(sep, 0, i) >= 0 else 0 for sep in _SEPARATORS)
            stop = min((v.find(sep, end) for sep in _SEPARATORS if v.find(sep, end) >= 0), default=len(v))
            text = v[start:stop]
            text = text if len(text) <= 100 else text[:97] + "..."
            return json.dumps(("..." if start else "") + text + ("..." if stop < len(v) else ""), ensure_ascii=False)

        return clause(x, len(x) - j), clause(y, len(y) - j)

    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    parts = []
    for k in keys[:limit]:
        if k.endswith("_sha256"):
            parts.append(f"{labels.get(k, k)} differ")
        else:
            then, now = pair(a.get(k), b.get(k))
            parts.append(f"{labels.get(k, k)}: {then} in the checkpoint, {now} now")
    more = f"; and {len(keys) - limit} more" if len(keys) > limit else ""
    return "; ".join(parts) + more if parts else "same settings, different encoding"
