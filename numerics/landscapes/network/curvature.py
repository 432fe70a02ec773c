"""Where the search's curvature comes from: the :class:`Curvature` interface and its dense implementation.

Three things of the search need the Hessian: *classification* (index, zero modes and the modes to follow,
which decide whether a point is a verified minimum or transition state), *polishing* minimiser outputs
to ``|grad V| ~ 1e-13`` (Newton), and *refinement* of saddle candidates by eigenvector following. The
steps ask a :class:`Curvature` for them and never build a Hessian themselves, so another provider can
stand beside the dense one:

* :class:`DenseCurvature` (``"dense"``, the default and the small-size reference): the exact Riemannian
  Hessian in reduced coordinates from ``jax.hessian`` (:mod:`.verify`, :mod:`.saddle`), an ``(N·d)²``
  array per configuration — comfortable up to N·d of a few hundred;
* :class:`~.hessfree_curvature.HessianFreeCurvature` (``"hessfree"``): Hessian–vector products, Lanczos for
  the softest modes with residual bounds, Newton–CG polish, hybrid eigenvector following; it implements
  the same four methods with the lowest eigenpairs only; its :class:`~.verify.CriticalPoint` then carries
  those (``complete_spectrum=False``) and the steps follow the softest modes it returns (and say how many of
  all). It reproduces the dense provider's networks wherever both run (tests).

A provider is chosen per search (``landscape_network(..., curvature=...)``; default
:func:`default_curvature`: dense up to ``N·d = HESSFREE_THRESHOLD``, Hessian-free above) and recorded in the
saved store (a search is resumed with the provider it ran with).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Curvature", "DenseCurvature", "DENSE", "curvature_provider", "PROVIDERS"]


@runtime_checkable
class Curvature(Protocol):
    """What the search asks of the Hessian (module docstring). ``spec`` is a
    :class:`~.spec.LandscapeSpec`; configurations are float64 ``(B, N, d)`` numpy arrays. A provider whose
    classifications carry the lowest eigenpairs only may also offer ``softest(spec, z, k) -> (eigenvalues (k',),
    modes (k', N, d))``, the ``k`` softest modes to follow from a minimum (:mod:`.following`; without it the modes
    it classified with are followed, and the exploration says how many of all)."""

    name: str

    def classify(self, spec: Any, z: np.ndarray, *, expect: int | None, gradient_tol: float, eigenvalue_tol: float,
                 chunk: int) -> list[Any]:
        """One :class:`~.verify.CriticalPoint` per configuration (``expect``: 0 minimum, 1 transition state)."""

    def polish(self, spec: Any, z: np.ndarray, *, chunk: int, eigenvalue_tol: float, max_steps: int = 4) -> np.ndarray:
        """Newton-polished configurations (minima: ``|grad V|`` to ~1e-13, never uphill)."""

    def refine(self, spec: Any, z: np.ndarray, modes: np.ndarray, *, index: int, chunk: int,
               max_iter: int, floors: np.ndarray | None = None, below: list[bool] | None = None) -> np.ndarray:
        """Eigenvector-following refinement to an index-``index`` critical point (0 or 1), following
        ``modes`` uphill for index 1. ``floors`` ``(B,)`` (units of ``V``): a provider may end a search once its
        ``V`` falls below its floor (it left the basin of the minimum it started from), and then fills ``below``
        (one flag per search); one that ignores them leaves ``below`` untouched."""

    def stiffest(self, spec: Any, z: np.ndarray) -> float:
        """The largest ``|λ|`` of the Hessian off the symmetry modes at one configuration ``(N, d)``."""


class DenseCurvature:
    """The exact dense Riemannian Hessian (:mod:`.verify`, :mod:`.saddle`); name ``"dense"``."""

    name = "dense"

    def classify(self, spec: Any, z: np.ndarray, *, expect: int | None, gradient_tol: float, eigenvalue_tol: float,
                 chunk: int) -> list[Any]:
        """:func:`~.verify.classify_batch`."""
        from contrastive_bounds.numerics.landscapes.network.verify import classify_batch

        return classify_batch(spec, z, gradient_tol=gradient_tol, eigenvalue_tol=eigenvalue_tol, expect=expect,
                              chunk=chunk)

    def polish(self, spec: Any, z: np.ndarray, *, chunk: int, eigenvalue_tol: float, max_steps: int = 4) -> np.ndarray:
        """:func:`~.verify.newton_polish`."""
        from contrastive_bounds.numerics.landscapes.network.verify import newton_polish

        return newton_polish(spec, z, chunk=chunk, eigenvalue_tol=eigenvalue_tol, max_steps=max_steps)

    def refine(self, spec: Any, z: np.ndarray, modes: np.ndarray, *, index: int, chunk: int,
               max_iter: int, floors: np.ndarray | None = None, below: list[bool] | None = None) -> np.ndarray:
        """:func:`~.saddle.refine_batch` (its refined configurations). ``floors`` and ``below`` are ignored: the
        dense small-size reference keeps its stored networks (every search runs to its end)."""
        from contrastive_bounds.numerics.landscapes.network.saddle import refine_batch

        return refine_batch(spec, z, modes, index=index, chunk=chunk, max_iter=max_iter).z

    def stiffest(self, spec: Any, z: np.ndarray) -> float:
        """``max |λ|`` of :func:`~.verify.classify` at ``z``."""
        from contrastive_bounds.numerics.landscapes.network.verify import classify

        lam = np.asarray(classify(spec, z).eigenvalues, dtype=np.float64)
        return float(np.max(np.abs(lam))) if lam.size else 0.0


#: the dense provider (stateless: one instance serves every search)
DENSE = DenseCurvature()
from contrastive_bounds.numerics.landscapes.network.constants import HESSFREE_THRESHOLD  # noqa: E402
from contrastive_bounds.numerics.landscapes.network.state import default_curvature  # noqa: E402, F401  (docs)
from contrastive_bounds.numerics.landscapes.network.hessfree_curvature import HESSFREE  # noqa: E402

#: providers by name (a saved search names the one it ran with)
PROVIDERS: dict[str, Curvature] = {"dense": DENSE, "hessfree": HESSFREE}


def curvature_provider(curvature: "str | Curvature | None") -> Curvature:
    """The provider named (or given): None -> :data:`DENSE` (a search's automatic choice is :func:`default_curvature`).

    Raises:
      ValueError: an unknown name, or an object that is not a :class:`Curvature` (named ``curvature``).
    """
    if curvature is None:
        return DENSE
    if isinstance(curvature, str):
        if curvature not in PROVIDERS:
            raise ValueError(f"curvature={curvature!r} is not a curvature provider; providers: {sorted(PROVIDERS)}")
        return PROVIDERS[curvature]
    if not isinstance(curvature, Curvature):
        raise ValueError(f"curvature={curvature!r} must be a provider name {sorted(PROVIDERS)} or a Curvature "
                         "(classify, polish, refine, stiffest)")
    return curvature
