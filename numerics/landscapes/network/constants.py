"""The constants of the landscape search, in one block (docs/theorems.md A9; docs/landscape-networks.md).

Distances are in radians (Frobenius norm of a tangent displacement of the whole configuration unless
said per point), energies relative to ``max(1, |V|)``. Each constant is used by the steps named beside
it; none is defined anywhere else.
"""

from __future__ import annotations

__all__ = ["GRADIENT_TOL", "EIGENVALUE_TOL", "MODE_KICK", "DESCENT_EPSILON", "QUASI_NEWTON_STEP", "SLOW_STEP",
           "SLOW_MAX_ITERATIONS", "DEFAULT_GRAM_TOL", "STRICT_ENERGY_RTOL", "LOOSE_ENERGY_RTOL", "LOOSE_TOL", "FLAT_PATH_SAMPLES",
           "DEGENERATE_EIGENSPACE_RTOL", "REFINE_MAX_ITERATIONS", "SADDLE_PUSH_OFF_RETRIES",
           "LOWER_SADDLE_CONTINUATIONS", "LOWER_SADDLE_DEPTH", "BAND_CANDIDATES", "SEARCHES_PER_BLOCK",
           "STRUCTURED_BLOCK_CHUNKS", "HESSFREE_THRESHOLD", "BASIN_MARGIN"]

# ------------------------------------------------------------------ verification (steps: every classification)
#: acceptance bound on ``|grad V|_2`` of a minimum or transition state (absolute, in units of V); the default
#: of :attr:`~.state.SearchSettings.gradient_tol`
GRADIENT_TOL = 1e-8
#: relative zero band ``|λ| <= EIGENVALUE_TOL·max(1, max|λ|)`` of Hessian eigenvalues; the default of
#: :attr:`~.state.SearchSettings.eigenvalue_tol`
EIGENVALUE_TOL = 1e-8

# ------------------------------------------------------------------ kicks along a Hessian mode
#: the kick along a mode (Frobenius norm of the displacement) that starts a search off a critical point:
#: eigenvector following from a minimum along each mode (:mod:`.following`), pushing a minimisation that
#: stopped on a saddle off along its lowest mode (:mod:`.minima`), kicking a candidate that refined to an
#: index-2 saddle along its second mode before refining it again (:mod:`.connect`)
MODE_KICK = 0.05
#: displacement along ± the negative eigenvector where each steepest-descent path from a saddle starts
DESCENT_EPSILON = 1e-3
#: displacement along ± the negative eigenvector of the previous search's L-BFGS descents (``descent="quasi-newton"``)
QUASI_NEWTON_STEP = 0.02
#: largest move of a point per L-BFGS step when a descent path still moving after its step budget is continued
SLOW_STEP = 0.01
#: L-BFGS iterations of that continuation
SLOW_MAX_ITERATIONS = 20_000

# ------------------------------------------------------------------ identification (:mod:`.catalog`)
#: tolerance on Gram entries (or coordinates, without O(d)) for two refined critical points to be the same;
#: the default of :attr:`~.state.SearchSettings.gram_tol`
DEFAULT_GRAM_TOL = 1e-6
#: energies of two refined critical points that are the same point agree to this (relative)
STRICT_ENERGY_RTOL = 1e-8
#: an unrefined minimiser output (|grad V| ~ 1e-6) matches a known minimum within this energy (relative) ...
LOOSE_ENERGY_RTOL = 1e-6
#: ... and this Gram/coordinate tolerance
LOOSE_TOL = 1e-4
#: points on the great-circle path between two degenerate minima tested by :func:`~.catalog.flat_path`
FLAT_PATH_SAMPLES = 17

# ------------------------------------------------------------------ eigenvector following and refinement
#: eigenvalues equal to this (relative) span a degenerate eigenspace, whose combinations are followed too
DEGENERATE_EIGENSPACE_RTOL = 1e-6
#: iterations of the eigenvector-following refinement of a transition-state candidate
REFINE_MAX_ITERATIONS = 300
#: a minimisation that stopped on a saddle is pushed off along its lowest mode at most this many times
SADDLE_PUSH_OFF_RETRIES = 2
#: a descent path that runs into a lower saddle is continued from it at most this many times ...
LOWER_SADDLE_CONTINUATIONS = 2
#: ... and a lower saddle met that way is itself connected down to this depth
LOWER_SADDLE_DEPTH = 2
#: highest interior maxima of one band refined as candidates
BAND_CANDIDATES = 3

# ------------------------------------------------------------------ batching (how often the search saves)
#: eigenvector-following searches between two saves
SEARCHES_PER_BLOCK = 256
#: structured starts minimised between two saves, in chunks of ``SearchSettings.chunk``
STRUCTURED_BLOCK_CHUNKS = 8

# ------------------------------------------------------------------ providers (:mod:`.curvature`)
#: ``N·d`` above which a search uses the Hessian-free provider by default: the measured cross-over of polishing
#: and classifying one InfoNCE minimum (τ = 0.1, 2 shared CPU cores, compiled): dense 0.012 s against Hessian-free
#: 0.10 s at N·d = 128, 0.087 s against 0.042 s at 256, 0.23 s against 0.071 s at 512 (the dense Hessian's
#: ``(N·d)²`` memory and ``(N·d)³`` ``eigh`` grow from there; ``benchmarks/landscape_scale.py``)
HESSFREE_THRESHOLD = 192

#: ``SearchSettings.at_scale()``'s ``basin_margin`` (units of V): a Hessian-free search from a minimum stops once
#: ``V`` falls 1 below the minimum's energy. Measured from the N = 32, d = 16 and N = 64, d = 32 cross-polytope traps
#: at τ = 0.01 (``benchmarks/landscape_scale.py``): searches that end at a saddle of the trap never went below the
#: trap's energy (their lowest V along the way stayed ≥ 0.006 above it); the others fell below it within 17–30
#: iterations and on by about 200 (to the simplex's basin) without coming back, where they ran to the iteration
#: limit or to saddles far below the trap — most of the following's time.
BASIN_MARGIN = 1.0
