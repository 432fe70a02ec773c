"""Paper B's numerics: contrastive losses, CKA/RSA, coupled similarity descent, real-data training.

Modules: :mod:`.losses` (CL, NSCL, SupCon), :mod:`.similarity` (CKA, RSA), :mod:`.descent` (the
O(B²) similarity-descent step), :mod:`.descent_run` (its chunked driver with proof-link records),
:mod:`.data` (scikit-learn's digits and augmentations), :mod:`.training` (CL/NSCL training under
shared randomness), :mod:`.sgd` (plain-SGD CL/NSCL runs with Sigma on a reference set), :mod:`.eta_eff`
(the effective step of the proxy), :mod:`.proxy` and :mod:`.proxy_result` (similarity descent vs SGD),
:mod:`.batch_scaling` and :mod:`.batch_scaling_report` (the batch-size x learning-rate grid),
:mod:`.compare` (two users' embeddings in feature form), :mod:`.checkpoint` (atomic run checkpoints),
:mod:`.step_schedule` (step-size sequences eta_t of similarity descent), :mod:`.theorem1_log_io`,
:mod:`.theorem1_log` and :mod:`.theorem1_trajectory` (a user's training log read safely and Theorem 1
with its proof links evaluated along it; command ``align theorem1``).
"""
