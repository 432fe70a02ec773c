"""What differs between two run fingerprints, for the "belongs to a different run" messages of checkpoints.

Used by the Langevin checkpoints (:mod:`.langevin.checkpoint`) and the alignment checkpoints
(:mod:`.alignment.checkpoint`, :mod:`.alignment.batch_scaling`).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["fingerprint_difference"]


def fingerprint_difference(found: str, wanted: str, limit: int = 3, labels: dict[str, str] | None = None) -> str:
    """Which settings differ between a checkpoint's fingerprint and this run's.

    Args:
      found, wanted: JSON objects (the checkpoint's and this run's configuration) as text.
      limit: keys named at most (the rest counted).
      labels: how to name a key to the user (e.g. ``"num_steps"`` -> ``"the number of steps (--time / --step-size)"``);
        keys not in it keep their names. A key ending in ``_sha256`` (a digest) is said to differ, without values.
    Returns:
      e.g. ``"shards: 2 in the checkpoint, 1 now"``; values over 60 characters are shortened around the
      place where the two differ (a long kernel description shows its differing constant); a generic
      phrase when either is not a JSON object. Raises nothing.
    """
    labels = labels or {}
    try:
        a, b = json.loads(found), json.loads(wanted)
    except (ValueError, TypeError):
        return "unreadable fingerprint"
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return "unreadable fingerprint"

    def short(v: Any, start: int = 0) -> str:
        text = json.dumps(v if start == 0 else "..." + v[start:])
        return text if len(text) <= 60 else text[:57] + "..."

    def window(x: Any, y: Any) -> int:
        """Where two long strings start to differ, less some context (0: show from the start)."""
        if not (isinstance(x, str) and isinstance(y, str)):
            return 0
        i = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        return max(0, i - 20) if i > 40 else 0

    keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    at = {k: window(a.get(k), b.get(k)) for k in keys}
    parts = [f"{labels.get(k, k)} differ" if k.endswith("_sha256") else
             f"{labels.get(k, k)}: {short(a.get(k), at[k])} in the checkpoint, {short(b.get(k), at[k])} now"
             for k in keys[:limit]]
    more = f"; and {len(keys) - limit} more" if len(keys) > limit else ""
    return "; ".join(parts) + more if parts else "same settings, different encoding"
