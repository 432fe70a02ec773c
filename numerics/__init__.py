"""The numerics face: JAX simulations and measurements (may import :mod:`contrastive_bounds.theory`).

Shared helpers live here (precision, the sphere, statistics, atomic files); the subjects are
subpackages: :mod:`.langevin` (Paper A's simulator), :mod:`.landscapes` (potentials, critical heights,
transition networks) and :mod:`.alignment` (Paper B's numerics). Importing this package starts no
JAX: every name is loaded on first use. Float64 is opt-in: :func:`enable_x64`.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._arrayfiles` — Reading user-supplied ``.npy`` / ``.npz`` files safely: never unpickled, every
  failure named.
* :mod:`._devices` — How many devices JAX's CPU backend offers: one per core, so that chains can be split
  over cores.
* :mod:`._fastmath` — Elementwise math that XLA:CPU vectorises, for the simulator's hot loops.
* :mod:`._filemode` — File permissions and writability for the toolkit's atomic writes (temp file +
  ``os.replace``).
* :mod:`._fingerprints` — What differs between two run fingerprints, for the "belongs to a different run"
  messages of checkpoints.
* :mod:`._network_anneal_result` — What a run from a saved landscape network returns:
  :class:`NetworkAnnealResult` and its JSON (``to_dict()``).
* :mod:`._precision` — Float64 policy for JAX (docs/design.md, Policies: Precision).
* :mod:`._sphere` — Geometry of the unit sphere S^{d-1} and of products (S^{d-1})^N, in JAX.
* :mod:`._stats` — Statistics of simulation outcomes: proportions, means, hitting times, Arrhenius barriers.
* :mod:`.alignment` — (subpackage) Paper B's numerics: contrastive losses, CKA/RSA, coupled similarity
  descent, real-data training.
* :mod:`.landscapes` — (subpackage) Potentials on (S^{d-1})^N and their critical structure (docs/theorems.md
  A3, A5, A7).
* :mod:`.langevin` — (subpackage) Paper A's simulator: annealed overdamped Langevin dynamics on (S^{d-1})^N
  (docs/theorems.md A1).
* :mod:`.network_experiment` — (public module) Annealing from a saved landscape network, as library calls:
  plan, run, and a result with ``to_dict()``.
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "arrhenius_fit": "_stats",
    "ArrheniusFit": "_stats",
    "clopper_pearson": "_stats",
    "current_umask": "_filemode",
    "ENABLE_HINT": "_precision",
    "enable_x64": "_precision",
    "ensure_writable_parent": "_filemode",
    "exp_map": "_sphere",
    "exponential_mean_ci": "_stats",
    "fingerprint_difference": "_fingerprints",
    "geodesic_distance": "_sphere",
    "geodesic_interpolate": "_sphere",
    "hitting_time_summary": "_stats",
    "HittingTimeSummary": "_stats",
    "HOW_TO_SAVE": "_arrayfiles",
    "log": "_fastmath",
    "mean_ci": "_stats",
    "MeanCI": "_stats",
    "NetworkAnnealResult": "_network_anneal_result",
    "normalize": "_sphere",
    "NPY_MAGIC": "_arrayfiles",
    "on_sphere_error": "_sphere",
    "probe_writable_folder": "_filemode",
    "product_distance": "_sphere",
    "project_tangent": "_sphere",
    "project_to_sphere": "_sphere",
    "proportion_ci": "_stats",
    "ProportionCI": "_stats",
    "publish_mode": "_filemode",
    "read_array": "_arrayfiles",
    "read_arrays": "_arrayfiles",
    "request_x64": "_precision",
    "require_x64": "_precision",
    "retract": "_sphere",
    "riemannian_hessian": "_sphere",
    "rsqrt": "_fastmath",
    "sphere_angle": "_sphere",
    "tangent_basis": "_sphere",
    "uniform": "_sphere",
    "usable_cores": "_devices", "cgroup_cpu_limit": "_devices",
    "use_host_devices": "_devices",
    "user_chose_host_devices": "_devices",
    "wilson": "_stats",
    "write_atomically": "_filemode",
    "x64_enabled": "_precision",
    "X64DisabledError": "_precision",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ('alignment', 'landscapes', 'langevin', 'network_experiment')

__all__ = ["arrhenius_fit", "ArrheniusFit", "clopper_pearson", "current_umask", "ENABLE_HINT", "enable_x64",
           "ensure_writable_parent", "exp_map", "exponential_mean_ci", "fingerprint_difference", "geodesic_distance",
           "geodesic_interpolate", "hitting_time_summary", "HittingTimeSummary", "HOW_TO_SAVE", "log", "mean_ci",
           "MeanCI", "NetworkAnnealResult", "normalize", "NPY_MAGIC", "on_sphere_error", "probe_writable_folder",
           "product_distance", "project_tangent", "project_to_sphere", "proportion_ci", "ProportionCI", "publish_mode",
           "read_array", "read_arrays", "request_x64", "require_x64", "retract", "riemannian_hessian", "rsqrt",
           "sphere_angle", "tangent_basis", "uniform", "usable_cores", "cgroup_cpu_limit", "use_host_devices", "user_chose_host_devices",
           "wilson", "write_atomically", "x64_enabled", "X64DisabledError", "alignment", "landscapes", "langevin",
           "network_experiment"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
