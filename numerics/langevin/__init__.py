"""Paper A's simulator: annealed overdamped Langevin dynamics on (S^{d-1})^N (THEOREMS.md A1).

Modules: :mod:`.kernel` (the BlackJAX-style init/step kernel), :mod:`.driver` (many chains in
chunks: observables, checkpoints, resume), :mod:`.fused_rng` (the fused noise generator),
:mod:`.experiments` (reusable annealing experiments on S¹ landscapes). The public names of the
kernel and of the driver are re-exported here.
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
from contrastive_bounds.numerics.langevin.driver import (  # noqa: F401
    Arc,
    EnergyBelow,
    SimulationResult,
    default_record_every,
    simulate,
)
