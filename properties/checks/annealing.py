"""Paper A's checks (Chaudhry, arXiv 2603.12552; docs/theorems.md A1-A8), by subject.

Importing this module registers all of them; the checks live in

* :mod:`.annealing_sampling` — the simulator: one step vs its exact law (``A1.one_step``), the
  stationary vMF mean (``A1.vmf``), the anisotropic variant (``A8.5_anisotropic``);
* :mod:`.annealing_schedules` — schedule values (``A2.schedule_values``) and schedule runs from the
  trap (``A4.*``, ``A6.finite_time``, ``A8.1_inverted_condition``);
* :mod:`.annealing_theory` — critical heights, the Eyring-Kramers limit, registry claims
  (``A3``, ``A5``, ``A.claims``, ``A8.2``);
* :mod:`.annealing_seed` — the seed notes' numbers (``A8.3``, ``A8.4``);
* :mod:`.replay` — each driver step against its kernel (``A1.replay_langevin`` and Paper B's);

with the shared pieces in :mod:`.annealing_common` and the independent implementations in
:mod:`.independent_annealing`. The names below are re-exported for existing imports.
"""

from contrastive_bounds.properties.checks.annealing_common import (  # noqa: F401
    CONF, H_DOUBLE_WELL, PAPER_A, band_test, schedule_run, trap_vs_kramers, vmf_exact)
from contrastive_bounds.properties.checks.annealing_sampling import a85_anisotropic, one_step, vmf  # noqa: F401
from contrastive_bounds.properties.checks.annealing_schedules import (  # noqa: F401
    a4_convergence, a4_fast, a4_trapping, a6_finite_time, a81_inverted, schedule_values)
from contrastive_bounds.properties.checks.annealing_seed import a83_table, a84_toy  # noqa: F401
from contrastive_bounds.properties.checks.annealing_theory import (  # noqa: F401
    a5_kramers, a82_finite_time, a_claims, critical_height)
