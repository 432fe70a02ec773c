"""properties.jsonsafe.jsonable: what --json and the sweep store write for numpy values and non-finite floats."""

from __future__ import annotations

import json
import math

import numpy as np

from contrastive_bounds.properties._jsonsafe import jsonable


def test_numpy_values_become_python_numbers_and_non_finite_floats_null():
    """Arrays -> lists, numpy scalars -> int/float, NaN/inf (Python or numpy) -> None, dict keys -> str."""
    obj = {1: np.array([1.5, np.inf]), "x": (np.float64(np.nan), np.int64(3)), "y": [math.inf, -math.inf, 2.0]}
    out = jsonable(obj)
    assert out == {"1": [1.5, None], "x": [None, 3], "y": [None, None, 2.0]}
    assert type(out["x"][1]) is int
    assert json.loads(json.dumps(out, allow_nan=False)) == out  # strict JSON
