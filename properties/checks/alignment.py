"""Paper B's checks (Luthra, Mishra, Galanti, arXiv:2510.08852; docs/theorems.md B2-B8), by subject.

Importing this module registers all of them; the checks live in

* :mod:`.alignment_bounds` — searched inequalities and reference values (``B2``, ``B5.corollaries_any_pair``,
  ``B4.reference_values``, ``B4.batch_event``, ``B7.claims``);
* :mod:`.alignment_descent` — coupled similarity descent (``B3.gradient``, ``B4.theorem1``,
  ``B5.cka_rsa_along_descent``, ``B6.weight_divergence``);
* :mod:`.alignment_digits` — real data (``B8.digits``);
* :mod:`.replay` — each driver step against its kernel (``B3.replay_descent``, ``B8.replay_training``);

with the independent implementations in :mod:`.independent_alignment` and :mod:`.independent_metrics`.
The names below are re-exported for existing imports.
"""

from contrastive_bounds.properties.checks.alignment_bounds import (  # noqa: F401
    PAPER_B, b7_claims, batch_event, corollaries_any_pair, hypothesis_search, loss_gap, reference_values)
from contrastive_bounds.properties.checks.alignment_descent import (  # noqa: F401
    cka_rsa_along_descent, descent_from, descent_run, gradient_identity, theorem1, validate_descent, weight_divergence)
from contrastive_bounds.properties.checks.alignment_digits import digits  # noqa: F401
