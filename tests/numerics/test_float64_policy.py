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

from contrastive_bounds.numerics._precision import X64DisabledError, request_x64, require_x64

SCRIPT = Path(__file__).with_name("x64_policy_cases.py")


@pytest.mark.slow
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

    import contrastive_bounds.numerics._precision as P

    monkeypatch.setattr(P, "x64_enabled", lambda: False)
    require_x64(np.ones(2, np.float32), 0.5, 3, None, np.float32, what="f")
    for bad in (np.ones(2), np.float64, "float64", np.complex128, (np.ones(1, np.float32), (np.ones(1),))):
        with pytest.raises(X64DisabledError, match=r"^f got float64 input .*enable_x64\(\)"):
            require_x64(bad, what="f")


@pytest.mark.slow
def test_request_x64_does_not_import_jax():
    """The command line asks for float64 without paying for JAX's import; JAX then starts in float64."""
    code = ("import sys\nfrom contrastive_bounds.numerics._precision import request_x64\nrequest_x64()\n"
            "assert 'jax' not in sys.modules\nimport jax, jax.numpy as jnp\nprint(jnp.ones(1).dtype)\n")
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "float64"
    request_x64()  # jax already imported here: enables at once (idempotent)


CIRCLE_SCRIPT = """
import json, os, sys
os.environ.pop("JAX_ENABLE_X64", None)
from contrastive_bounds.numerics.landscapes._barriers import circle_barrier, landscape_barrier
from contrastive_bounds.numerics.landscapes._circle import analyse_circle
from contrastive_bounds.numerics.landscapes._escape import circle_escape_times, min_escape_temperature
from contrastive_bounds.numerics.landscapes._registry import get_landscape
from contrastive_bounds.numerics.langevin._experiments import circle_trap
from contrastive_bounds.numerics._precision import x64_enabled

def values():
    out = {}
    for name in ("double-well", "triple-well"):
        land = get_landscape(name)
        b, lb = circle_barrier(land, resolution=512), landscape_barrier(land, resolution=512)
        crit = analyse_circle(land.fourier)
        trap = circle_trap(land)
        out[name] = {
            "barrier": [b.critical_height, b.grid_critical_height, b.grid_error_bound, b.v_min, b.cross_check],
            "landscape_barrier": [lb.critical_height, lb.grid_critical_height],
            "minima": [float(t) for t in crit.minima], "critical_height": crit.critical_height,
            "trap": [trap.theta, trap.value, trap.depth, *trap.barriers, *trap.log_prefactors],
            "escape": [[r.theta, r.log_kramers, r.log_exact] for r in circle_escape_times(land, 0.4, dps=20, nodes=12)],
            "t_min": min_escape_temperature(land),
        }
    return out

if __name__ == "__main__":
    assert not x64_enabled()
    print(json.dumps(values()))
"""


@pytest.mark.slow
def test_circle_functions_follow_one_policy_fourier_paths_compute_in_float64_with_x64_off(tmp_path):
    """One x64 policy for the circle functions: what needs no JAX (Fourier landscapes: circle_barrier,
    landscape_barrier on S¹, analyse_circle, circle_trap, circle_escape_times, min_escape_temperature)
    computes in float64 whatever x64 says, giving bit-identical values with x64 off and on; what
    evaluates a JAX potential (an S¹ landscape without a Fourier form) raises X64DisabledError (the
    walk above). circle_barrier used to refuse the Fourier case while the others computed."""
    script = tmp_path / "circle_values.py"
    script.write_text(CIRCLE_SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    off = json.loads(proc.stdout.strip().splitlines()[-1])
    sys.path.insert(0, str(tmp_path))
    try:
        import circle_values
    finally:
        sys.path.remove(str(tmp_path))
    on = json.loads(json.dumps(circle_values.values()))  # same JSON round trip as the x64-off values
    assert off == on
    # and the values are the known ones, not merely equal: double-well H* = 49/32 (docs/reference-values.md C13)
    assert on["double-well"]["barrier"][0] == pytest.approx(49 / 32, abs=1e-12)
    assert on["double-well"]["trap"][2] == pytest.approx(49 / 32, abs=1e-12)
    assert len(on["triple-well"]["escape"]) == 2


def test_circle_barrier_of_a_jax_only_circle_landscape_refuses_with_x64_off(monkeypatch):
    """The other half of the policy, in process: a JAX-only S¹ potential with x64 off raises the one
    documented error naming circle_barrier (landscape_barrier likewise), while a Fourier one computes."""
    import contrastive_bounds.numerics._precision as P
    from contrastive_bounds.numerics.landscapes._barriers import circle_barrier, landscape_barrier
    from contrastive_bounds.numerics.landscapes._landscape import Landscape
    from contrastive_bounds.numerics.landscapes._registry import get_landscape

    monkeypatch.setattr(P, "x64_enabled", lambda: False)
    jax_only = Landscape("jax-circle", 1, 2, lambda z: -(z[0, 0] ** 2))
    with pytest.raises(X64DisabledError, match=r"^contrastive_bounds\.numerics\.landscapes\.circle_barrier got float64"):
        circle_barrier(jax_only)
    with pytest.raises(X64DisabledError, match=r"^contrastive_bounds\.numerics\.landscapes\.landscape_barrier got float64"):
        landscape_barrier(jax_only)
    assert circle_barrier(get_landscape("double-well"), resolution=256).critical_height == pytest.approx(49 / 32, abs=1e-12)


def test_every_refusal_names_the_public_path_a_user_imports(resolve_path):
    """Each ``require_x64(..., what="...")`` of the numerics package names a path that imports: the face a user reads
    the function from (``contrastive_bounds.numerics.alignment.info_nce_loss``, not the pre-face module path
    ``alignment.losses.info_nce_loss``); a method is named through its class (``...network.HessianFreeCurvature.classify``)."""
    import re

    root = Path(__file__).resolve().parents[2] / "numerics"
    pattern = re.compile(r'require_x64\((?:[^()]|\([^()]*\))*?what="([^"]+)"', re.S)
    bad, seen = [], 0
    for path in sorted(root.rglob("*.py")):
        for what in pattern.findall(path.read_text()):
            seen += 1
            dotted = what.split(" ")[0]
            if not (dotted.startswith("contrastive_bounds.") and callable(resolve_path(dotted))):
                bad.append(f"{path.relative_to(root)}: {what}")
    assert seen >= 120 and bad == []
