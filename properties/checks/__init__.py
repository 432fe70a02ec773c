"""The main job's checks: :mod:`.framework` (check decorator, outcomes, comparisons),
:mod:`.registry` (the built-in check modules, registered in one place), :mod:`.claims`, and one
module of checks per subject (:mod:`.alignment`, :mod:`.annealing`)."""
