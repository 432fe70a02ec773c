"""The energies and gradient norms of a block of refined points (``connect._values_gradient_norms``), which decide
whether a refined point is a duplicate of a known saddle or a search stopped below its floor: one vmapped call over
the block padded to a power of two gives each point's own value (the padding never leaks), and the closed-form
global minimum of InfoNCE at N = 4, d = 2, tau = 0.1 (collapsed pairs at antipodes) has its published energy and a
zero gradient."""

from __future__ import annotations

import numpy as np

from contrastive_bounds.numerics.landscapes.hessfree.operators import riemannian_gradient
from contrastive_bounds.numerics.landscapes.network import infonce_spec
from contrastive_bounds.numerics.landscapes.network.connect import _values_gradient_norms
from contrastive_bounds.numerics._sphere import uniform

#: closed-form V* at N = 4, d = 2, tau = 0.1 (collapsed pairs on a 2-vertex simplex), docs/landscape-networks.md
V_STAR_N4_D2 = -19.3068528194


def test_a_padded_block_gives_each_points_own_energy_and_gradient_norm():
    spec = infonce_spec(num_points=4, dim=2, tau=0.1)
    z = np.asarray(uniform(np.random.default_rng(3), (5, 4, 2)), dtype=np.float64)
    minimum = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    z[2] = minimum
    for k in (1, 3, 5):  # padded to 1, 4 and 8
        values, norms = _values_gradient_norms(spec, z[:k])
        assert values.shape == norms.shape == (k,) and values.dtype == np.float64
        for i in range(k):
            v, g = riemannian_gradient(spec.potential, z[i])
            assert abs(values[i] - float(v)) <= 1e-12 * max(1.0, abs(float(v)))
            assert abs(norms[i] - float(np.linalg.norm(np.asarray(g)))) <= 1e-12 * max(1.0, norms[i])
    values, norms = _values_gradient_norms(spec, z[2:3])
    assert abs(values[0] - V_STAR_N4_D2) <= 1e-9 and norms[0] <= 1e-10
    empty = _values_gradient_norms(spec, z[:0])
    assert empty[0].shape == empty[1].shape == (0,)
