"""Representation similarity (docs/theorems.md B5): CKA in :mod:`.cka`, RSA in :mod:`.rsa`, re-exported here.

``from contrastive_bounds.numerics.alignment.similarity import linear_cka, rsa`` keeps working;
:mod:`.realarrays` holds the validation and exact rescaling both share.
"""

from __future__ import annotations

from contrastive_bounds.numerics.alignment.cka import (cka_rho, cosine_gram, cosine_gram_cka, hsic_gram,  # noqa: F401
                                                        linear_cka, linear_cka_gram)
from contrastive_bounds.numerics.alignment.rsa import (RDM_NOISE_ULPS, canonical_zeros, rank_with_ties,  # noqa: F401
                                                        rdm, rsa, rsa_from_similarity, rsa_r, upper_triangle)

__all__ = [
    "linear_cka",
    "linear_cka_gram",
    "hsic_gram",
    "cosine_gram",
    "cosine_gram_cka",
    "cka_rho",
    "rdm",
    "upper_triangle",
    "rsa",
    "rsa_r",
    "rsa_from_similarity",
    "canonical_zeros",
    "rank_with_ties",
    "RDM_NOISE_ULPS",
]
