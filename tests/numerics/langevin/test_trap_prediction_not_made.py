"""An Eyring–Kramers prediction that was not made carries no factors: ``logdet_factor`` is None (JSON ``null``) like
``factor``, never the 1.0 of an exact log-determinant, for a trap with no escape saddle and for a degenerate one."""

from __future__ import annotations

import json

import numpy as np

from contrastive_bounds.numerics.landscapes.network_kramers import EscapeSaddle, NetworkTrap
from contrastive_bounds.numerics.langevin.network_anneal import trap_prediction
from contrastive_bounds.theory._schedules import make_schedule


def test_no_prediction_has_a_null_logdet_factor():
    """No saddle, or a degenerate trap: predicted, factor and logdet_factor are all None, and the JSON says null."""
    bare = NetworkTrap(0, -0.5, np.array([[-1.0, 0.0]]), 1.5, -1.5, np.array([[1.0, 0.0]]), (3.5,), 1, 1.0, (),
                       "no saddle", False, 3.5)
    degenerate = NetworkTrap(0, -0.5, np.array([[-1.0, 0.0]]), 1.5, -1.5, np.array([[1.0, 0.0]]), (3.5,), 1, 1.0,
                             (EscapeSaddle(0, 1.0, 1.5, 1, -1.5, (-4.0,), 1.0, 1.0, None),), "degenerate", True, 3.5)
    for trap, why in ((bare, "no verified transition state"), (degenerate, "no Eyring-Kramers prefactor")):
        p = trap_prediction(trap, make_schedule("fixed", c=0.3), t_end=1.0, step_size=1e-3, radius=1.0,
                            error_per_t_over_h=3.0, min_barrier_over_t=2.5)
        assert why in p.reason and p.predicted is None and p.factor is None and p.logdet_factor is None
        assert json.loads(json.dumps(p.to_dict()))["logdet_factor"] is None
