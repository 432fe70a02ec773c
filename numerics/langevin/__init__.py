"""Paper A's simulator: annealed overdamped Langevin dynamics on (S^{d-1})^N (docs/theorems.md A1).

Modules, by responsibility:

* :mod:`.kernel` — the BlackJAX-style init/step kernel of one chain (and its batched fast paths);
  :mod:`.specs` — the forms its temperature, potential and anisotropy arguments may take;
  :mod:`.increments` — the Euler–Maruyama increment and noise scale of a step; :mod:`.temperature`
  — the temperature as a compiled program with data (schedules of one form share a compilation);
* :mod:`.driver` — :func:`simulate`: many chains in chunks, progress, checkpoints, resume, Ctrl-C;
* :mod:`.observables` — targets, basins, the scan carry and :class:`SimulationResult`;
* :mod:`.chunk` — the jitted chunk (scan loop, layouts, sharding over devices);
* :mod:`.noise` — which generator draws each step's normals and the fused generator's block logic;
* :mod:`.fused_rng` — the fused Threefry/Box–Muller generator; :mod:`.noise_validation` — the
  distribution tests it passed;
* :mod:`.checkpoint` — fingerprints, atomic checkpoint writes, validated reads;
* :mod:`.arguments` — input checks before the first step; :mod:`.cost` — chunk pacing and run cost;
* :mod:`.defaults` — the fastest validated configuration per dtype; :mod:`.runlog` — which
  configuration runs used, for check results;
* :mod:`.experiments` — reusable annealing experiments on S¹ landscapes.

The public names of the kernel and of the driver are re-exported here.
"""

from contrastive_bounds.numerics.langevin.kernel import (  # noqa: F401
    LangevinKernel,
    LangevinState,
    StepSizeWarning,
    as_temperature_fn,
    euler_maruyama_increment,
    langevin_kernel,
    noise_scale,
)
from contrastive_bounds.numerics.langevin.observables import (  # noqa: F401
    Arc,
    EnergyBelow,
    SimulationResult,
    default_record_every,
)
from contrastive_bounds.numerics.langevin.noise import PRNG_IMPLS  # noqa: F401
from contrastive_bounds.numerics.langevin.cost import RunCost, estimate_run_cost  # noqa: F401
from contrastive_bounds.numerics.langevin.driver import SimulationInterrupted, deferred_interrupts, simulate  # noqa: F401
