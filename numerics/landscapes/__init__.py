"""Potentials on (S^{d-1})^N and their critical structure (docs/theorems.md A3, A5, A7).

Named landscapes (:func:`get_landscape`, :class:`Landscape`), exact S¹ critical points, critical
heights by persistence (:func:`landscape_barrier`), Kramers against exact escape times; the kinetic
transition networks of A9 are the subpackage :mod:`.network` (Hessian-free tools: :mod:`.hessfree`).
Names are loaded on first use, so the JAX-free modules of :mod:`.network` start no JAX.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._barriers` — Critical heights ``H*`` of landscapes on grids and meshes, with their evidence
  (docs/theorems.md A3).
* :mod:`._builtin` — The built-in named landscapes (docs/theorems.md A1, A3, A7), looked up by
  :func:`._registry.get_landscape`.
* :mod:`._circle` — The exact critical-point structure of potentials on the circle S¹ given as Fourier series.
* :mod:`._fourier` — Potentials on the circle S¹ as Fourier series: the series, its derivatives and its
  file format.
* :mod:`._escape` — Escape times from the minima of S¹ landscapes: Kramers prediction vs exact MFPT
  (docs/theorems.md A5).
* :mod:`._infonce` — InfoNCE potentials on ``(S^{d−1})^N`` as pure JAX functions (docs/theorems.md A7).
* :mod:`._landscape` — The :class:`Landscape` object: a potential ``V`` on ``(S^{d−1})^N`` as a pure JAX
  function with its metadata (docs/theorems.md A1, A3, A7), and the constructors that build one from a
  Fourier series (:func:`fourier_landscape`, :func:`load_fourier`) or from another landscape
  (:func:`scaled`).
* :mod:`._persistence` — 0-dimensional sublevel-set persistence of sampled landscapes (docs/theorems.md A3):
  the graph machinery behind :mod:`._barriers`.
* :mod:`._registry` — Named landscapes by name: :func:`get_landscape`, :func:`list_landscapes`,
  :func:`landscape_parameters`, and :func:`resolve_landscape` (a name or an S¹ Fourier file)
  (docs/theorems.md A1, A3, A7).
* :mod:`._string_method` — Barrier *estimates* where no grid method applies (docs/theorems.md A3): local
  minima from many random starts (:func:`sampled_minima`) and the minimum-energy path between two states by
  the simplified string method (:func:`string_method_barrier`; E, Ren & Vanden-Eijnden 2007). Both run
  projected gradient descent on ``(S^{d−1})^N`` with the normalisation retraction, vmapped, in ``lax.scan``.
* :mod:`._thomson` — The Thomson problem: Coulomb energy of N unit vectors on S² (a landscape with a
  published table).
* :mod:`.hessfree` — (subpackage) Hessian-free critical-point tools on ``(S^{d−1})^N`` for large ``N·d``
  (docs/theorems.md A9).
* :mod:`.network` — (subpackage) Kinetic transition networks of potentials on ``(S^{d−1})^N``: minima,
  transition states, H* (A9).
* :mod:`.kramers_curvature` — (public module) What the Eyring–Kramers prefactor needs at one critical point,
  dense or Hessian-free by size (A5, A9).
* :mod:`.network_kramers` — (public module) Eyring–Kramers escape data of a landscape network's trap, modulo
  the potential's symmetry (A5, A9).
* :mod:`.trap_network` — (public module) One trap of a large landscape explored Hessian-free, saved as a
  landscape network (A5, A9).
* :mod:`.trap_tools` — (public module) Newton–CG polish, multiplicities and class tests without isomorphisms at
  large N (A9).
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "analyse_circle": "_circle",
    "BarrierResult": "_barriers",
    "BUILDERS": "_builtin",
    "circle_barrier": "_barriers",
    "circle_escape_times": "_escape",
    "CircleCriticalPoints": "_circle",
    "critical_height_from_pairs": "_persistence",
    "cycle_edges": "_persistence",
    "DOUBLE_WELL_H": "_builtin",
    "EscapeRecord": "_escape",
    "fibonacci_sphere": "_persistence",
    "fourier_landscape": "_landscape",
    "FourierSeries": "_fourier",
    "get_landscape": "_registry",
    "gudhi_persistence": "_persistence",
    "hardest_negative_potential": "_infonce",
    "hardest_negative_value_and_grad": "_infonce",
    "infonce_potential": "_infonce",
    "Landscape": "_landscape",
    "landscape_barrier": "_barriers",
    "landscape_parameters": "_registry",
    "list_landscapes": "_registry",
    "load_fourier": "_landscape",
    "MAX_COEFFICIENT": "_fourier",
    "MAX_FREQUENCY": "_fourier",
    "MAX_SPHERE_VERTICES": "_barriers",
    "min_escape_temperature": "_escape",
    "MinimumDepth": "_circle",
    "MinimumRecord": "_persistence",
    "PARAMETER_RANGES": "_builtin",
    "read_fourier_file": "_fourier",
    "resolve_landscape": "_registry",
    "sampled_minima": "_string_method",
    "scaled": "_landscape",
    "soft_hardest_negative_potential": "_infonce",
    "sphere_barrier": "_barriers",
    "string_method_barrier": "_string_method",
    "THOMSON_GLOBAL_MINIMA": "_thomson",
    "thomson_potential": "_thomson",
    "THOMSON_SOURCE": "_thomson",
    "tie_tolerance": "_persistence",
    "torus_barrier": "_barriers",
    "torus_edges": "_persistence",
    "union_find_depths": "_persistence",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ('hessfree', 'kramers_curvature', 'network', 'network_kramers', 'trap_network', 'trap_tools')

__all__ = ["analyse_circle", "BarrierResult", "BUILDERS", "circle_barrier", "circle_escape_times",
           "CircleCriticalPoints", "critical_height_from_pairs", "cycle_edges", "DOUBLE_WELL_H",
           "EscapeRecord", "fibonacci_sphere", "fourier_landscape", "FourierSeries", "get_landscape",
           "gudhi_persistence", "hardest_negative_potential", "hardest_negative_value_and_grad",
           "infonce_potential", "Landscape", "landscape_barrier", "landscape_parameters", "list_landscapes",
           "load_fourier", "MAX_COEFFICIENT", "MAX_FREQUENCY", "MAX_SPHERE_VERTICES",
           "min_escape_temperature", "MinimumDepth", "MinimumRecord", "PARAMETER_RANGES", "read_fourier_file",
           "resolve_landscape", "sampled_minima", "scaled", "soft_hardest_negative_potential",
           "sphere_barrier", "string_method_barrier", "THOMSON_GLOBAL_MINIMA", "thomson_potential",
           "THOMSON_SOURCE", "tie_tolerance", "torus_barrier", "torus_edges", "union_find_depths", "hessfree",
           "kramers_curvature", "network", "network_kramers", "trap_network", "trap_tools"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
