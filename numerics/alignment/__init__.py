"""Paper B's numerics: contrastive losses, CKA/RSA, coupled similarity descent, real-data training.

Modules: :mod:`.losses` (CL, NSCL, SupCon), :mod:`.similarity` (CKA, RSA), :mod:`.descent` (the
O(B²) similarity-descent step), :mod:`.descent_run` (its chunked driver with proof-link records),
:mod:`.data` (scikit-learn's digits and augmentations), :mod:`.training` (CL/NSCL training under
shared randomness).
"""
