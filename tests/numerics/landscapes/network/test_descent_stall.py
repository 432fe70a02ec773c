"""The stall stop of the steepest-descent paths (``descent.flow_single``, status 3): an explicit method under error
control whose step has grown to the stability edge of a stiff mode holds that mode's component at a constant
amplitude and stops descending; the path is then stopped after ``STALL_STEPS`` steps instead of running to
``max_steps``, at the same point to the stiff amplitude, and a path that still descends (a soft valley) is never
stopped by it.

Landscape: ``V(z) = a z_1²/2 + b z_2²/2`` on S², minimum ``z = e_3`` (V = 0); the stiff mode ``a = 10⁴`` has the
explicit Bogacki–Shampine stability edge ``h ≈ 2.5/a``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.network.descent import FLOW_MAX_STEPS, FLOW_STALLED, STALL_STEPS, \
    flow_single

START = np.array([[0.05, 0.3, 1.0]]) / np.linalg.norm([0.05, 0.3, 1.0])


def _flow(a: float, b: float, gtol: float = 1e-3, **kw):
    vg = jax.value_and_grad(lambda z: 0.5 * a * z[0, 0] ** 2 + 0.5 * b * z[0, 1] ** 2)
    out = jax.jit(lambda z: flow_single(vg, z, gtol=gtol, gtol_rel=1e-8, max_steps=30_000, **kw))(jnp.asarray(START))
    z, v, g, steps, status, length, t = (np.asarray(x) for x in out)
    return z, float(v), float(g), int(steps), int(status)


def test_a_stiff_path_stalls_where_it_would_have_oscillated_to_max_steps():
    z_off, v_off, g_off, steps_off, status_off = _flow(1e4, 100.0, stall_steps=0)
    assert status_off == FLOW_MAX_STEPS and steps_off == 30_000
    # the stiff floor: z_1 held at ~5e-8, |grad V| = a·z_1 ~ 5e-4, far above min(gtol, gtol_rel·|grad V(start)|)
    assert 1e-8 < abs(z_off[0, 0]) < 1e-7 and 1e-4 < g_off < 1e-3
    z, v, g, steps, status = _flow(1e4, 100.0)
    assert status == FLOW_STALLED and STALL_STEPS <= steps < 2_000
    assert abs(g - g_off) <= 0.01 * g_off and abs(v - v_off) <= 1e-12
    assert np.max(np.abs(z - z_off)) <= 1e-6 and abs(z[0, 2] - 1.0) <= 1e-12  # at the minimum e_3, to the amplitude


def test_a_path_still_descending_a_soft_valley_is_not_stopped():
    """b = 10⁻²: the soft coordinate relaxes over t ~ 1/b while the stiff edge keeps h ~ 2.5e-4, so the path is still
    descending at max_steps, its gradient below gtol = 10⁻² for most of the way; the stall test leaves it alone
    (the same end as with the test off)."""
    off = _flow(1e4, 1e-2, gtol=1e-2, stall_steps=0)
    on = _flow(1e4, 1e-2, gtol=1e-2)
    assert off[2] < 1e-2
    assert on[4] == off[4] == FLOW_MAX_STEPS and on[3] == off[3] == 30_000
    assert np.array_equal(on[0], off[0]) and on[1] == off[1]
