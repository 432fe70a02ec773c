"""Paper B: CL vs NSCL alignment bounds as cited :class:`~contrastive_bounds.theory.Bound` objects.

Source: Luthra, Mishra, Galanti, "On the Alignment Between Supervised and Self-Supervised Contrastive
Learning", arXiv:2510.08852 (ICLR 2026); the loss gap from Luthra et al., arXiv:2506.04411, Thm 1.
Statements as fixed in docs/theorems.md B2, B4, B5, B6 (our readings are recorded in each ``Source``).

Two independent implementations exist on purpose: the sympy :class:`Bound` objects here (evaluated
with mpmath at any precision, or lambdified in log space), and the plain numpy functions of
:mod:`._alignment_values` (``epsilon_value``, ``delta_value``, ``link_l2_log10``, ...) used on every step
of a simulation. The tests check that they agree.

Notation: ``tau`` > 0 InfoNCE temperature; ``batch_size`` B >= 1; ``steps`` T >= 1; ``delta`` in
(0, 1) the failure probability; ``pi_max`` in (0, 1) the largest class prior (balanced classes:
``pi_max = 1/num_classes``); ``eta_sum`` S = sum of step sizes over T steps.
"""

from __future__ import annotations

import math
from typing import Any

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from contrastive_bounds.theory._bound import Bound
from contrastive_bounds.theory._bound_spec import Constraint, Reparametrisation, Vacuity
from ._domains import Interval, Param, check_int, check_probability, check_real
from ._registry import register
from ._source import LOSS_GAP_PAPER, PAPER_B, Source
from ._special import Softplus

__all__ = ["EPSILON", "DELTA_BOUND", "FROBENIUS", "LOSS_GAP", "CKA_LOWER", "CKA_LOWER_APRIORI", "RSA_LOWER", "CKA_LOWER_SHARP",
           "RSA_LOWER_SHARP", "LINK_L1", "LINK_L2", "LINK_L3", "WEIGHT_DIVERGENCE"]  # the sympy symbols stay module-level

INF = math.inf

# ---------------------------------------------------------------------------------- parameters
TAU = Param("tau", Interval(0, INF), description="InfoNCE temperature", units="dimensionless")
BATCH_SIZE = Param("batch_size", Interval(1, INF, lo_closed=True), integer=True, description="batch size B", units="samples")
STEPS = Param("steps", Interval(1, INF, lo_closed=True), integer=True, description="number of steps T", units="steps")
DELTA = Param("delta", Interval(0, 1), description="failure probability of the high-probability event")
PI_MAX = Param("pi_max", Interval(0, 1), description="largest class prior (balanced: 1/num_classes)")
NUM_CLASSES = Param("num_classes", Interval(2, INF, lo_closed=True), integer=True, description="number of classes C (balanced)")
N_MAX = Param("n_max", Interval(1, INF, lo_closed=True), integer=True, description="largest class count in the population")
NUM_SAMPLES = Param("num_samples", Interval(2, INF, lo_closed=True), integer=True, description="population size N")
ETA_SUM = Param("eta_sum", Interval(0, INF), description="S = sum of the similarity-descent step sizes eta_t over the T "
                "steps (a network's learning rates times its first-order response: docs/alignment-theory.md)",
                units="similarity units")
ETA = Param("eta", Interval(0, INF), description="one step size eta_t", units="step-size units")
DISTANCE = Param("distance", Interval(0, INF, lo_closed=True), description="d_t = ||Sigma_CL_t - Sigma_NSCL_t||_F")
RHO = Param("rho", Interval(0, INF, lo_closed=True), description="rho_T = ||K_CL - K_NSCL||_F / ||K_CL||_F")
R = Param("r", Interval(0, INF, lo_closed=True), description="r_T = ||b - a||_2 / (sqrt(M) sigma_a)")
K_NORM = Param("k_norm", Interval(0, INF), description="||K_CL_T||_F = ||H Sigma_CL_T H||_F")
M_ROWS = Param("m", Interval(2, INF, lo_closed=True), integer=True, description="rows of Sigma (2 x reference samples)")
GRAD_NORM = Param("grad_norm", Interval(0, INF), description="gradient-norm constant G (user supplied)")
SMOOTHNESS = Param("smoothness", Interval(0, INF), description="smoothness constant beta_s (user supplied)")

tau, B, T, delta, pi, S = (p.symbol for p in (TAU, BATCH_SIZE, STEPS, DELTA, PI_MAX, ETA_SUM))
eta, d, rho, r, k_norm, m = (p.symbol for p in (ETA, DISTANCE, RHO, R, K_NORM, M_ROWS))
G, beta_s = GRAD_NORM.symbol, SMOOTHNESS.symbol

EPSILON_EXPR = sp.sqrt(sp.log(T * B / delta) / (2 * B))
TEMPERATURE_EXPR = 2 * sp.exp(2 / tau)
CLASS_TERM_EXPR = (pi + EPSILON_EXPR) / (1 - pi - EPSILON_EXPR)
DELTA_EXPR = TEMPERATURE_EXPR * CLASS_TERM_EXPR
FROBENIUS_EXPR = sp.exp(S / (2 * tau**2 * B)) * S / (tau * sp.sqrt(B)) * DELTA_EXPR

_EPS_PARAMS = (BATCH_SIZE, STEPS, DELTA)
_DELTA_PARAMS = (TAU, PI_MAX, BATCH_SIZE, STEPS, DELTA)
_TB_CONSTRAINT = Constraint(T * B / delta - 1, "epsilon needs steps*batch_size/delta >= 1 (else log < 0)")
_VACUOUS_DELTA = Vacuity(1 - pi - EPSILON_EXPR, "1 - pi_max - epsilon <= 0: Delta is infinite (too few samples per batch for the class-collision event)")
_BALANCED = Reparametrisation((NUM_CLASSES,), {"pi_max": lambda C: sp.Integer(1) / C}, "num_classes: pi_max = 1/num_classes (balanced classes)")

_READING_T1 = ("pi_max form of Delta (balanced classes give the paper's Delta_{C,delta}); updates clipped to [-1, 1] "
               "(1-Lipschitz, not stated in the paper); eps from Hoeffding + a union bound over T steps x B anchors")
_SRC_T1 = Source(PAPER_B, "2510.08852", "Theorem 1", _READING_T1)

# ---------------------------------------------------------------------------------- bounds
EPSILON = register(Bound(
    "alignment.epsilon", "Hoeffding slack eps_{B,delta} of the batch-composition event",
    _EPS_PARAMS, {"epsilon": EPSILON_EXPR},
    Source(PAPER_B, "2510.08852", "Theorem 1 (definition of eps_{B,delta})",
           "Hoeffding + union bound over T steps x B anchors: eps = sqrt(log(T B / delta) / (2B))"),
    quantity=r"\epsilon_{B,\delta}", constraints=(_TB_CONSTRAINT,),
))

DELTA_BOUND = register(Bound(
    "alignment.delta", "Delta_{pi,delta}(B; tau): per-anchor gradient-mismatch constant",
    _DELTA_PARAMS, {"temperature": TEMPERATURE_EXPR, "class_term": CLASS_TERM_EXPR}, _SRC_T1,
    quantity=r"\Delta_{\pi,\delta}(B;\tau)", vacuity=(_VACUOUS_DELTA,), constraints=(_TB_CONSTRAINT,),
    reparametrisations=(_BALANCED,),
))

FROBENIUS = register(Bound(
    "alignment.frobenius", "Theorem 1: ||Sigma_CL_T - Sigma_NSCL_T||_F with probability >= 1 - delta",
    _DELTA_PARAMS + (ETA_SUM,),
    {"growth": sp.exp(S / (2 * tau**2 * B)), "drift": S / (tau * sp.sqrt(B)),
     "temperature": TEMPERATURE_EXPR, "class_term": CLASS_TERM_EXPR},
    _SRC_T1, quantity=r"\|\Sigma^{CL}_T - \Sigma^{NSCL}_T\|_F", vacuity=(_VACUOUS_DELTA,),
    constraints=(_TB_CONSTRAINT,), reparametrisations=(_BALANCED,),
    trivial=(2 * sp.sqrt(m * (m - 1)), (M_ROWS,), "2*sqrt(m(m-1)) (entries in [-1, 1], zero diagonal difference)"),
))


_LOSS_GAP_EXPR = sp.log(1 + sp.exp(2 / tau) * pi / (1 - pi))
LOSS_GAP = register(Bound(
    "alignment.loss_gap", "Loss gap: L_DCL - L_NSCL <= log(1 + e^{2/tau} n_max/(N - n_max))",
    (TAU, PI_MAX), {"gap": _LOSS_GAP_EXPR},
    Source(LOSS_GAP_PAPER, "2506.04411", "Theorem 1",
           "tau-extension derived (tau = 1 gives the published e^2); pi_max = n_max/N so n_max/(N - n_max) = "
           "pi_max/(1 - pi_max); holds for decoupled and coupled forms"),
    quantity=r"\mathcal{L}^{DCL} - \mathcal{L}^{NSCL}",
    reparametrisations=(
        _BALANCED,
        Reparametrisation((N_MAX, NUM_SAMPLES), {"pi_max": lambda n, N: sp.Integer(n) / N if isinstance(n, (int, sp.Integer)) else n / N},
                          "n_max and num_samples: pi_max = n_max/num_samples"),
    ),
    log_factors={"gap": sp.log(Softplus(2 / tau + sp.log(pi) - sp.log(1 - pi)))},
))

_SRC_CKA = Source(PAPER_B, "2510.08852", "Corollary (CKA)",
                  "linear CKA on centred cosine Grams (biased HSIC); deterministic in rho for any pair K, K'")
CKA_LOWER = register(Bound(
    "alignment.cka_lower", "CKA_T >= (1 - rho_T)/(1 + rho_T)", (RHO,), {"lower": (1 - rho) / (1 + rho)}, _SRC_CKA,
    kind="lower", quantity=r"\mathrm{CKA}_T",
    vacuity=(Vacuity(1 - rho, "rho >= 1: the lower bound is <= 0, below CKA's range [0, 1]"),),
))

_RHO_BAR = FROBENIUS_EXPR / k_norm
CKA_LOWER_APRIORI = register(Bound(
    "alignment.cka_lower_apriori", "CKA_T >= (1 - rho_bar)/(1 + rho_bar), rho_bar = Theorem-1 bound / ||K_CL_T||_F",
    _DELTA_PARAMS + (ETA_SUM, K_NORM), {"lower": (1 - _RHO_BAR) / (1 + _RHO_BAR)},
    Source(PAPER_B, "2510.08852", "Corollary (CKA) with Theorem 1", "uses ||H X H||_F <= ||X||_F"),
    kind="lower", quantity=r"\mathrm{CKA}_T",
    vacuity=(_VACUOUS_DELTA, Vacuity(1 - _RHO_BAR, "Theorem-1 bound >= ||K_CL_T||_F: rho_bar >= 1, no CKA guarantee")),
    constraints=(_TB_CONSTRAINT,), reparametrisations=(_BALANCED,),
))

RSA_LOWER = register(Bound(
    "alignment.rsa_lower", "RSA_T >= (1 - r_T)/(1 + r_T)", (R,), {"lower": (1 - r) / (1 + r)},
    Source(PAPER_B, "2510.08852", "Corollary (RSA)",
           "RSA = Pearson of the strict upper triangles of RDM = 1 - Sigma, range [-1, 1]; sigma with ddof 0"),
    kind="lower", quantity=r"\mathrm{RSA}_T",
    vacuity=(Vacuity(1 - r, "r >= 1: the lower bound is <= 0 and guarantees no positive alignment"),),
))

_SRC_SHARP = Source("contrastive-bounds (derived; law of cosines)", None, "sharpening of the CKA/RSA corollaries",
                    "CKA and Pearson RSA are cosines of the angle between K, K' (centred a, b); ||K' - K|| <= rho ||K|| "
                    "forces cos >= sqrt(1 - rho^2) for rho < 1, which is >= (1 - rho)/(1 + rho)")
CKA_LOWER_SHARP = register(Bound(
    "alignment.cka_lower_sharp", "CKA_T >= sqrt(1 - rho_T^2) (sharp for rho < 1; the paper's (1-rho)/(1+rho) is weaker)",
    (RHO,), {"lower": sp.sqrt(1 - rho**2)}, _SRC_SHARP, kind="lower", quantity=r"\mathrm{CKA}_T",
    vacuity=(Vacuity(1 - rho, "rho >= 1: no positive lower bound (CKA of PSD Grams is >= 0 anyway)"),),
))
RSA_LOWER_SHARP = register(Bound(
    "alignment.rsa_lower_sharp", "RSA_T >= sqrt(1 - r_T^2) (sharp for r < 1; the paper's (1-r)/(1+r) is weaker)",
    (R,), {"lower": sp.sqrt(1 - r**2)}, _SRC_SHARP, kind="lower", quantity=r"\mathrm{RSA}_T",
    vacuity=(Vacuity(1 - r, "r >= 1: no lower bound above -1 (Pearson can reach -1)"),),
))

_SRC_LINKS = Source(PAPER_B, "2510.08852", "proof of Theorem 1", _READING_T1)
_C_EXPR = DELTA_EXPR / (tau * sp.sqrt(B))
LINK_L1 = register(Bound(
    "alignment.link_l1", "L1: ||G_CL_t - G_NSCL_t||_F <= Delta/(tau sqrt B) + d_t/(2 tau^2 B)",
    _DELTA_PARAMS + (DISTANCE,), {"mismatch": _C_EXPR + d / (2 * tau**2 * B)}, _SRC_LINKS,
    quantity=r"\|G^{CL}_t - G^{NSCL}_t\|_F", vacuity=(_VACUOUS_DELTA,), constraints=(_TB_CONSTRAINT,),
    reparametrisations=(_BALANCED,),
    log_factors={"mismatch": sp.expand_log(sp.log(_C_EXPR), force=True) + log1p(d / (2 * tau * sp.sqrt(B) * DELTA_EXPR))},
))

LINK_L2 = register(Bound(
    "alignment.link_l2", "L2: d_{t+1} <= (1 + eta_t/(2 tau^2 B)) d_t + eta_t Delta/(tau sqrt B)",
    _DELTA_PARAMS + (ETA, DISTANCE), {"next_distance": (1 + eta / (2 * tau**2 * B)) * d + eta * _C_EXPR}, _SRC_LINKS,
    quantity=r"d_{t+1}", vacuity=(_VACUOUS_DELTA,), constraints=(_TB_CONSTRAINT,), reparametrisations=(_BALANCED,),
    log_factors={"next_distance": sp.log(eta) + sp.expand_log(sp.log(_C_EXPR), force=True)
                 + log1p((1 + eta / (2 * tau**2 * B)) * d / (eta * _C_EXPR))},
))

LINK_L3 = register(Bound(
    "alignment.link_l3", "L3 (constant eta): d_T <= (1 + eta/(2 tau^2 B))^T * T eta * Delta/(tau sqrt B)",
    _DELTA_PARAMS + (ETA,),
    {"product": (1 + eta / (2 * tau**2 * B)) ** T, "drift": T * eta / (tau * sp.sqrt(B)),
     "temperature": TEMPERATURE_EXPR, "class_term": CLASS_TERM_EXPR},
    _SRC_LINKS, quantity=r"d_T", vacuity=(_VACUOUS_DELTA,), constraints=(_TB_CONSTRAINT,), reparametrisations=(_BALANCED,),
    log_factors={"product": T * log1p(eta / (2 * tau**2 * B))},
))

_X = beta_s * S
WEIGHT_DIVERGENCE = register(Bound(
    "alignment.weight_divergence", "Theorem 2: ||w_CL_T - w_NSCL_T|| <~ (G/(beta_s tau)) Delta (exp(beta_s S) - 1)",
    _DELTA_PARAMS + (ETA_SUM, GRAD_NORM, SMOOTHNESS),
    {"prefactor": G / (beta_s * tau), "temperature": TEMPERATURE_EXPR, "class_term": CLASS_TERM_EXPR,
     "growth": sp.exp(_X) - 1},
    Source(PAPER_B, "2510.08852", "Theorem 2",
           "'<~' read with constant 1; an UPPER bound that may be exponential in beta_s*S (no 1/B in the exponent): "
           "it does not show that weights must diverge"),
    quantity=r"\|w^{CL}_T - w^{NSCL}_T\|", vacuity=(_VACUOUS_DELTA,), constraints=(_TB_CONSTRAINT,),
    reparametrisations=(_BALANCED,),
    # log(e^x - 1): log(expm1(x)) is accurate for small x, x + log1p(-e^-x) avoids overflow for large x
    log_factors={"growth": sp.Piecewise((sp.log(expm1(_X)), _X < 30), (_X + log1p(-sp.exp(-_X)), True))},
))
