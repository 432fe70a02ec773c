"""The float64 policy holds for the whole public numerics API (docs/design.md, Precision).

With JAX's x64 off, every public function that computes with JAX, given float64 input (or asked for
a float64 dtype), raises the one documented ``X64DisabledError`` (a RuntimeError) naming itself and
how to enable x64, instead of computing silently in float32 (the losses used to). The walk runs in a
fresh interpreter, since the test suite itself turns x64 on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contrastive_bounds.numerics.precision import X64DisabledError, request_x64, require_x64

SCRIPT = Path(__file__).with_name("x64_policy_cases.py")


def test_every_public_jax_function_refuses_float64_with_x64_off():
    """Walks every public numerics function; unlisted or silently-float32 functions fail the test."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["unlisted"] == [], (
        f"public numerics functions not covered by the float64 policy walk: {report['unlisted']}; add a float64 call to "
        "CASES (and require_x64 at its entry) or a reason to EXEMPT in tests/numerics/x64_policy_cases.py")
    assert report["stale"] == []
    bad = {k: v for k, v in report["results"].items() if v != "ok"}
    assert bad == {}
    assert len(report["results"]) >= 40


def test_one_exception_type_is_a_runtime_error():
    """Callers catch one documented type; it is a RuntimeError (not a ValueError about bad input)."""
    assert issubclass(X64DisabledError, RuntimeError) and not issubclass(X64DisabledError, ValueError)


def test_require_x64_accepts_float32_and_scalars_and_sees_dtypes(monkeypatch):
    """float32 data and Python scalars pass; float64 arrays, dtypes and nested tuples are refused."""
    import numpy as np

    import contrastive_bounds.numerics.precision as P

    monkeypatch.setattr(P, "x64_enabled", lambda: False)
    require_x64(np.ones(2, np.float32), 0.5, 3, None, np.float32, what="f")
    for bad in (np.ones(2), np.float64, "float64", np.complex128, (np.ones(1, np.float32), (np.ones(1),))):
        with pytest.raises(X64DisabledError, match=r"^f got float64 input .*enable_x64\(\)"):
            require_x64(bad, what="f")


def test_request_x64_does_not_import_jax():
    """The command line asks for float64 without paying for JAX's import; JAX then starts in float64."""
    code = ("import sys\nfrom contrastive_bounds.numerics.precision import request_x64\nrequest_x64()\n"
            "assert 'jax' not in sys.modules\nimport jax, jax.numpy as jnp\nprint(jnp.ones(1).dtype)\n")
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "float64"
    request_x64()  # jax already imported here: enables at once (idempotent)
