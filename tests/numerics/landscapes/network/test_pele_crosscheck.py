"""Cross-check with pele (Wales group's energy-landscape explorer) on a coupled torus potential (A9).

pele works in flat coordinates, so the potential is given to it in angles (θ1, θ2) with a periodic
distance; ours runs on (S¹)² in z-coordinates. The minima of both networks and H* must agree.
Skipped when pele is not installed (``pip install pele``; listed in the ``test`` extra).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes.network import (
    NetworkMinimum,
    TransitionState,
    analyse_network,
    landscape_network,
    user_spec,
)

pele_potentials = pytest.importorskip("pele.potentials")
pele_systems = pytest.importorskip("pele.systems")
pele_optimize = pytest.importorskip("pele.optimize")


def _angles_energy(t):
    a, b = t
    return (-0.5 * math.cos(a) - math.cos(2 * a) - 0.5 * math.cos(b) - math.cos(2 * b) + 0.3 * math.cos(a - b)
            + 0.2 * math.sin(b))


def _angles_gradient(t):
    a, b = t
    return np.array([0.5 * math.sin(a) + 2 * math.sin(2 * a) - 0.3 * math.sin(a - b),
                     0.5 * math.sin(b) + 2 * math.sin(2 * b) + 0.3 * math.sin(a - b) + 0.2 * math.cos(b)])


def _z_energy(z):
    """The same potential in z-coordinates: cos kθ + i sin kθ = (z0 + i z1)^k."""
    ca, sa, cb, sb = z[0, 0], z[0, 1], z[1, 0], z[1, 1]
    return (-0.5 * ca - (ca * ca - sa * sa) - 0.5 * cb - (cb * cb - sb * sb) + 0.3 * (ca * cb + sa * sb) + 0.2 * sb)


def _wrap(x):
    return (np.asarray(x) + np.pi) % (2 * np.pi) - np.pi


class _Potential(pele_potentials.BasePotential):
    def getEnergy(self, x):
        return _angles_energy(x)

    def getEnergyGradient(self, x):
        return _angles_energy(x), _angles_gradient(x)


class _PeriodicDistance:
    def __call__(self, x1, x2):
        x1 = _wrap(x1)
        d = _wrap(np.asarray(x2) - x1)
        return float(np.linalg.norm(d)), x1, x1 + d


class _TorusSystem(pele_systems.BaseSystem):
    def get_potential(self):
        return _Potential()

    def get_mindist(self):
        return _PeriodicDistance()

    def get_random_configuration(self):
        return np.random.uniform(-np.pi, np.pi, 2)

    def get_compare_exact(self, **kwargs):
        return lambda x1, x2: np.linalg.norm(_wrap(np.asarray(x1) - np.asarray(x2))) < 1e-4

    def get_orthogonalize_to_zero_eigenvectors(self):
        return None

    def get_metric_tensor(self, coords):
        return None

    def get_nzero_modes(self):
        return 0


def _pele_network():
    np.random.seed(0)
    system = _TorusSystem()
    db = system.create_database()
    for a in np.linspace(-3.0, 3.0, 7):
        for b in np.linspace(-3.0, 3.0, 7):
            r = pele_optimize.lbfgs_py(np.array([a, b]), _Potential(), tol=1e-10)
            db.addMinimum(r.energy, _wrap(r.coords))
    mins = db.minima()
    for i in range(len(mins)):
        for j in range(i + 1, len(mins)):
            system.get_double_ended_connect(mins[i], mins[j], db, verbosity=-1).connect()
    index = {m._id: k for k, m in enumerate(db.minima())}
    pm = [NetworkMinimum(k, m.energy, np.zeros((2, 2)), 1, 0.0, [1.0], 0, True) for k, m in enumerate(db.minima())]
    pt = [TransitionState(k, t.energy, np.zeros((2, 2)), 1, 0.0, -1.0, 1,
                          [index[t.minimum1._id], index[t.minimum2._id]], True)
          for k, t in enumerate(db.transition_states())]
    return pm, pt


@pytest.mark.slow
def test_pele_and_the_network_agree_on_minima_and_critical_height():
    """Minima energies agree to 1e-10 and H* to 1e-8 relative between pele's network (its own
    minimiser, double-ended connect and saddle refinement) and ours."""
    pm, pt = _pele_network()
    ours = landscape_network(user_spec(_z_energy, 2, 2, name="coupled-torus"), starts=16, hop_batch=8,
                             max_hop_rounds=3, patience=2, chunk=8, max_ts_rounds=3)
    assert sorted(m.energy for m in ours.minima) == pytest.approx(sorted(m.energy for m in pm), abs=1e-10)
    theirs = analyse_network(pm, pt)
    assert ours.status == "complete" and theirs.complete
    assert ours.critical_height == pytest.approx(theirs.critical_height, rel=1e-8)
    assert ours.critical_height > 1.0
