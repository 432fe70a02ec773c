"""The Thomson problem: Coulomb energy of N unit vectors on S² (a landscape with a published table).

``E(z) = Σ_{i<j} 1/|z_i − z_j|`` on ``(S²)^N`` (generalised here to ``S^{d−1}``), invariant under one
global rotation/reflection in ``O(d)`` and every permutation of the points. Its global minima are a
classical benchmark of global optimisation; :data:`THOMSON_GLOBAL_MINIMA` lists the published
energies for N = 2..12 on S² (J. J. Thomson 1904; table of D. J. Wales & S. Ulker, "Structure and
dynamics of spherical crystals characterized for the Thomson problem", Phys. Rev. B 74, 212101
(2006), and the Cambridge Cluster Database, https://www-wales.ch.cam.ac.uk/CCD.html). Known shapes:
N = 2 antipodal pair, 3 equilateral triangle on a great circle, 4 tetrahedron, 5 triangular
bipyramid, 6 octahedron, 7 pentagonal bipyramid, 8 square antiprism, 12 icosahedron.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["thomson_potential", "THOMSON_GLOBAL_MINIMA", "THOMSON_SOURCE"]

#: Published global-minimum energies on S² (9 decimals), N -> E.
THOMSON_GLOBAL_MINIMA: dict[int, float] = {
    2: 0.500000000,
    3: 1.732050808,
    4: 3.674234614,
    5: 6.474691495,
    6: 9.985281374,
    7: 14.452977414,
    8: 19.675287861,
    9: 25.759986531,
    10: 32.716949460,
    11: 40.596450510,
    12: 49.165253058,
}

THOMSON_SOURCE = ("D. J. Wales and S. Ulker, Phys. Rev. B 74, 212101 (2006); Cambridge Cluster Database "
                  "(https://www-wales.ch.cam.ac.uk/CCD.html); J. J. Thomson, Phil. Mag. 7, 237 (1904)")


def thomson_potential(num_points: int) -> Callable[[jax.Array], jax.Array]:
    """``z -> Σ_{i<j} 1/|z_i − z_j|`` for ``z`` of shape ``(num_points, d)``; a scalar of z's dtype.

    Coincident points give ``+inf`` energy (not NaN); the gradient there is finite (the diagonal
    and coincident pairs are masked before the square root). Pure JAX (jit/vmap/grad-able).

    Raises:
      ValueError: ``num_points < 2``.
    """
    n = int(num_points)
    if n < 2:
        raise ValueError(f"num_points={num_points} must be >= 2 for the Thomson problem")
    iu = np.triu_indices(n, 1)

    def potential(z: jax.Array) -> jax.Array:
        diff = z[iu[0]] - z[iu[1]]
        sq = jnp.sum(diff * diff, axis=-1)
        safe = jnp.where(sq > 0, sq, 1.0)
        return jnp.sum(jnp.where(sq > 0, jax.lax.rsqrt(safe), jnp.inf))

    return potential
