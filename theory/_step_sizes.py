"""From a network's learning-rate schedule to Theorem 1's S = Σ eta_t in similarity units (Paper B).

Theorem 1 (docs/theorems.md B4) is stated for similarity descent, the paper's proxy dynamics (B3); a
trained network has learning rates instead. :func:`eta_sum_from_learning_rates` is the bridge, with
its assumption (an isotropic first-order response of the network's Gram) stated in its docstring
and in docs/alignment-theory.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._domains import check_real

__all__ = ["eta_sum_from_learning_rates"]


def eta_sum_from_learning_rates(learning_rates: Any, *, response: float) -> float:
    """S = Σ_t eta_t in similarity units from a network's learning-rate schedule: ``response · Σ_t lr_t``.

    Theorem 1 is stated for similarity descent, ``Σ ← Σ − eta_t G_t`` with ``G_t`` the gradient of
    the batch-mean loss with respect to the similarity matrix. A network trained by SGD with
    learning rate ``lr_t`` moves its reference-set Gram by ``ΔΣ = −lr_t J_t(G_t) + O(lr_t²)``,
    ``J_t`` the Gram's tangent kernel (its first-order response). Assumption: ``J_t`` acts on
    ``G_t`` as a scalar ``κ`` (an isotropic response), so the proxy's step is ``eta_t = κ lr_t``
    and ``S = κ Σ_t lr_t``. ``κ`` is not known a priori; it is measured on a training run (the
    effective step of the proxy, docs/alignment-numerics.md); free embeddings started orthonormal
    give ``κ = 4`` for the symmetrised proxy (``∂ℓ/∂Z = (G + Gᵀ)Z``, so ``ΔΣ = −4 lr G`` at ``Σ = I``). With a summed instead of a
    batch-mean loss, multiply ``response`` by the batch size.

    Args:
      learning_rates: the network's learning rates ``lr_t`` over the T steps, shape (T,), finite
        and >= 0 (any warm-up/decay schedule, as an array).
      response: ``κ = eta_eff/lr`` > 0 (dimensionless: similarity units per unit learning rate).

    Returns:
      ``S`` as a float, summed with ``math.fsum`` (exact rounding of the sum).

    Raises:
      ValueError: an empty or non-1-D schedule, a negative/NaN/inf rate, or ``response`` outside (0, inf).

    Source: Paper B (arXiv:2510.08852), Theorem 1's proxy; docs/theorems.md B3.
    """
    k = check_real("response", response, 0, math.inf)
    lr = np.asarray(learning_rates, dtype=np.float64)
    if lr.ndim != 1 or lr.size == 0:
        raise ValueError(f"learning_rates must be a non-empty 1-D array of the T step sizes, got shape {lr.shape}")
    if not np.all(np.isfinite(lr)) or np.any(lr < 0):
        raise ValueError("learning_rates must be finite and >= 0")
    return k * math.fsum(lr.tolist())
