"""Griffe extension: document hypothesis ``@st.composite`` strategies as users call them.

``@st.composite def sphere_points(draw, n=None, dim=None)`` is called as ``sphere_points(n=..., dim=...)``:
hypothesis supplies ``draw``. The extension removes that first parameter from the documented
signature (and from the parameter table).
"""

from __future__ import annotations

from typing import Any

import griffe


class CompositeStrategies(griffe.Extension):
    """Drop the ``draw`` parameter of functions decorated with ``composite`` (``st.composite``)."""

    def on_function_instance(self, *, func: griffe.Function, **kwargs: Any) -> None:  # noqa: D102
        composite = any(str(d.value).split(".")[-1] == "composite" for d in func.decorators)
        if composite and len(func.parameters) and func.parameters[0].name == "draw":
            del func.parameters["draw"]
