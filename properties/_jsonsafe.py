"""JSON-ready copies of results: numpy scalars and arrays as Python numbers and lists, non-finite floats as null.

Shared by the command line's ``--json`` output and the sweep store's metadata, so both write the same
JSON for the same object.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["jsonable"]


def jsonable(obj: Any) -> Any:
    """A copy of ``obj`` that :func:`json.dumps` accepts and that is valid JSON.

    Args:
      obj: nested dicts (keys become strings), lists and tuples (become lists), numpy arrays and
        scalars (anything with ``tolist``/``item``), floats, ints, strings, ``None``.
    Returns:
      the same structure with NaN and ±inf as ``None`` (JSON has no non-finite numbers); other
      objects are returned unchanged (``json.dumps(..., default=str)`` writes them as text).
    """
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "tolist"):
        return jsonable(obj.tolist())
    if hasattr(obj, "item") and callable(obj.item):
        return jsonable(obj.item())
    return obj
