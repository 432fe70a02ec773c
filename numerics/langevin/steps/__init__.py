"""The simulator's step functions: small, pure, one state type each (BlackJAX style).

Every module holds a state (a ``NamedTuple``), an ``init`` that builds it and a pure ``step`` that maps a
state, standard normal noise and the temperature of the step to the next state; all are jit- and
vmap-compatible and are the same Markov kernel (projected Euler–Maruyama on (S^{d−1})^N, docs/theorems.md
A1), equal up to floating-point rounding where they overlap:

* :mod:`.sphere` — one chain, any (N, d): :class:`~.sphere.LangevinState`; the Euler (normalisation
  retraction) and geodesic integrators, isotropic or anisotropic noise (A8.5), one tangent normal per
  S¹ factor. :class:`~contrastive_bounds.numerics.langevin.LangevinKernel` binds it to a
  potential and a schedule as the public ``init(position)`` / ``step(key, state, t)``.
* :mod:`.chains_last` — all chains at once in the chains-last layout (``(N, d, chains)``), for landscapes
  whose value-and-gradient takes trailing batch axes (U0); Euler, isotropic noise.
* :mod:`.circle` — all chains of an S¹ Fourier landscape as complex numbers ``z₀ + i·z₁``; Euler,
  isotropic noise. Its state is the positions alone (one array read and written per step), so its step
  returns V at the new positions beside the state, as BlackJAX steps return ``(state, info)``.

Which one a run uses is the driver's choice (:mod:`.._paths`: the fastest the kernel supports unless
asked otherwise).
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: the step modules are the public API of this package (each has its own ``init`` and ``step``)
__all__ = ["sphere", "chains_last", "circle"]


__getattr__, __dir__ = lazy_face(__name__, {}, __all__, __all__)
