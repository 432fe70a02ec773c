"""Annealing theory of Paper A (Chaudhry, arXiv 2603.12552) and the classical results it transfers.

Public face of the annealing layer: schedules in every convention (:mod:`.schedules`, THEOREMS.md
A2), the HKS verdict (A4), the finite-time tail bound and Catoni's exponent (A6), and the claims of
the seed notes (A8.1, A8.2) as :class:`~contrastive_bounds.theory.claim.Claim` objects registered at
import time.
"""

from __future__ import annotations

from .schedules import (
    FAST_FORMS,
    FORMS,
    LOG_FORMS,
    ConvergenceVerdict,
    Schedule,
    hks_constant_to_form,
    make_schedule,
)

__all__ = [
    "FAST_FORMS",
    "FORMS",
    "LOG_FORMS",
    "ConvergenceVerdict",
    "Schedule",
    "hks_constant_to_form",
    "make_schedule",
]
