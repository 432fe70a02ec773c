"""Kinetic transition networks of potentials on ``(S^{d−1})^N``: minima, transition states, H* (A9).

One call: :func:`landscape_network` (``spec -> NetworkResult`` with H*, Catoni's D, minima with
multiplicities, verified transition states, rejected candidates, search effort; JSON via ``to_dict``).
Specs: :func:`infonce_spec`, :func:`thomson_spec`, :func:`landscape_spec` (registry landscapes),
:func:`user_spec` (any JAX potential with a declared :class:`Symmetry`). A saved search:
:func:`load_saved_search` (read, rebuild the landscape, re-verify, status, resume); a search once per
process: :func:`network_for`.

Modules (the package imports them on first use, so reading a saved search starts no JAX):

* what is searched — :mod:`.spec` (specs and their probes), :mod:`.arguments` (the builders' ranges and
  defaults, JAX-free), :mod:`.rebuild` (a landscape again from its fingerprint), :mod:`.symmetry`
  (equivalence, multiplicity), :mod:`.symmetry_alignment` (alignment modulo it), :mod:`.refinement` (the
  isomorphisms equivalence verifies), :mod:`.automorphisms` (stabiliser orders by bliss, for multiplicities), :mod:`.orbits` (the O(d) orbit directions);
* the one store — :mod:`.store` (:class:`NetworkStore`: records and the event log), :mod:`.events` (what the
  steps return), :mod:`.tally` (their fold: the effort and what each trap's searches covered), :mod:`.records` (minima, transition states, candidates),
  :mod:`.serial` (the one versioned serialiser and reader of ``network.json``), :mod:`.catalog`
  (identification up to symmetry), :mod:`.state` (settings), :mod:`.constants` (the search's constants);
* the steps, each ``(spec, settings, store, rng) -> events`` — :mod:`.minima` (random starts, structured
  starts, basin hopping), :mod:`.following` (eigenvector following), :mod:`.bands` (double-ended bands),
  :mod:`.connect` (refinement, verification, descents: the connection), :mod:`.closure` (rounds to
  closure), :mod:`.search` (the phases, saving, resuming);
* the numerics under the steps — :mod:`.curvature` (where Hessians come from: the interface, the dense
  provider) and :mod:`.hessfree_curvature` (the Hessian-free provider, the default above N·d = 192), :mod:`.optimize` (batched Riemannian L-BFGS), :mod:`.parallel` (one-at-a-time work spread over the CPU's devices), :mod:`.saddle`
  (eigenvector-following refinement), :mod:`.verify` (classification, Newton polish), :mod:`.descent`
  (steepest-descent paths), :mod:`.neb` (climbing-image bands), :mod:`.structured` and :mod:`.codes`
  (InfoNCE structured starts on spherical codes), :mod:`.families` (template families at scale, the closed-form
  minimum), :mod:`.mode_orbits` (a minimum's stabiliser orbits, proven by VF2 automorphisms) and
  :mod:`.symmetric_modes` (every mode modulo that stabiliser: one invariant Krylov space per orbit representative);
* what a network says — :mod:`.graph` (H*, D, merge tree), :mod:`.status` (the one status rule),
  :mod:`.result` (:class:`NetworkResult`), :mod:`.saved` (a saved search), :mod:`.cache` (a search once
  per process), :mod:`.disconnectivity` (PNG), :mod:`.agreement` (two seeds compared).

The sphere geometry (tangent bases, the Riemannian Hessian, retractions, great circles) is
:mod:`contrastive_bounds.numerics._sphere`.
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

__all__ = ["landscape_network", "NetworkResult", "SearchSettings", "LandscapeSpec", "Symmetry", "infonce_spec",
           "thomson_spec", "landscape_spec", "user_spec", "NetworkAnalysis", "analyse_network", "NetworkMinimum",
           "TransitionState", "Effort", "NetworkStore", "load_saved_search", "SavedSearch", "network_status",
           "network_for", "spec_from_fingerprint", "infonce_arguments", "TAU_RANGE", "Curvature", "DenseCurvature",
           "HessianFreeCurvature", "seed_agreement"]

_HOME = {
    "landscape_network": "search", "NetworkResult": "result", "SearchSettings": "state", "LandscapeSpec": "spec",
    "Symmetry": "symmetry", "infonce_spec": "spec", "thomson_spec": "spec", "landscape_spec": "spec",
    "user_spec": "spec", "NetworkAnalysis": "graph", "analyse_network": "graph", "NetworkMinimum": "records",
    "TransitionState": "records", "Effort": "records", "NetworkStore": "store", "load_saved_search": "saved",
    "SavedSearch": "saved", "network_status": "status", "network_for": "cache", "spec_from_fingerprint": "rebuild",
    "infonce_arguments": "arguments", "TAU_RANGE": "arguments", "Curvature": "curvature",
    "DenseCurvature": "curvature", "HessianFreeCurvature": "hessfree_curvature", "seed_agreement": "agreement",
}


__getattr__, __dir__ = lazy_face(__name__, _HOME, (), __all__)
