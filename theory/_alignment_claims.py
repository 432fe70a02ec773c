"""Paper B's qualitative claims (docs/theorems.md B7) as machine-checked sign claims.

Each claim is "the sign of d log(bound)/d x on a stated box". Integer parameters (C, B, T) are
treated as reals on the box, a stronger statement than needed. The boxes are stated in each claim;
outside them a claim may fail, and where it does in a way that matters the toolkit says so with a
claim of its own (``alignment.lr_scaling_a1_rises_large_C`` below).

Learning-rate scaling (paper Fig. 5): eta = c * B^a. At FIXED step count T, S = T c B^a. At FIXED
epochs, T = n/B (n samples per epoch), so S = n c B^(a-1) and log(T B/delta) = log(n/delta).
"""

from __future__ import annotations

import sympy as sp

from ._alignment import FROBENIUS_EXPR, B, S, T, delta, pi, tau
from ._claim import Claim, SignCheckSpec, sign_claim_check
from ._registry import register
from ._source import PAPER_B, Source

__all__: list[str] = []

_LOG_BOUND = sp.expand_log(sp.log(FROBENIUS_EXPR), force=True)
C, c_lr, n = sp.symbols("num_classes c_lr n", positive=True)

_SRC = Source(PAPER_B, "2510.08852", "Section 4 / Figs. 3-5 (qualitative dependence of Theorem 1)",
              "sign of the partial derivative of log(bound) on a stated box; integers treated as reals")
_FIXED_T_BOX = {"tau": (0.1, 1.0), "batch_size": (64.0, 4096.0), "steps": (100.0, 1e5), "delta": (0.01, 0.1),
                "eta_sum": (0.01, 1000.0)}


def _sign_claim(name: str, statement: str, expr: sp.Expr, box: dict, sign: int, *, expected: str = "holds",
                source: Source = _SRC, tags: tuple[str, ...] = ("B7",), max_boxes: int = 20000) -> Claim:
    spec = SignCheckSpec(expr=expr, box=box, sign=sign, max_boxes=max_boxes)
    return register(Claim(name, statement, source, sign_claim_check(spec), expected, tags))


def _box_text(box: dict) -> str:
    return ", ".join(f"{k} in [{lo:g}, {hi:g}]" for k, (lo, hi) in box.items())


_BOX_C = {**_FIXED_T_BOX, "num_classes": (10.0, 1000.0)}
_sign_claim("alignment.frobenius_decreasing_in_num_classes",
            f"Theorem-1 bound (pi_max = 1/C) decreases in C on {_box_text(_BOX_C)}",
            sp.diff(_LOG_BOUND.subs(pi, 1 / C), C), _BOX_C, -1)

_BOX_P = {**_FIXED_T_BOX, "pi_max": (0.001, 0.1)}
_sign_claim("alignment.frobenius_decreasing_in_tau",
            f"Theorem-1 bound decreases in tau on {_box_text(_BOX_P)}", sp.diff(_LOG_BOUND, tau), _BOX_P, -1)
_sign_claim("alignment.frobenius_decreasing_in_batch_size",
            f"Theorem-1 bound decreases in B at fixed S = sum eta_t on {_box_text(_BOX_P)}",
            sp.diff(_LOG_BOUND, B), _BOX_P, -1)
_sign_claim("alignment.frobenius_increasing_in_eta_sum",
            f"Theorem-1 bound increases in S = sum eta_t on {_box_text(_BOX_P)}", sp.diff(_LOG_BOUND, S), _BOX_P, +1)

# ---- learning-rate scaling eta = c B^a at fixed T (S = T c B^a)
_LR_BOX = {"tau": (0.2, 1.0), "batch_size": (256.0, 4096.0), "steps": (100.0, 10000.0), "delta": (0.01, 0.1),
           "c_lr": (1e-4, 1e-2)}
for a, sign, word in ((sp.Integer(0), -1, "falls"), (sp.Rational(1, 4), -1, "falls"), (sp.Rational(1, 2), -1, "falls")):
    box = {**_LR_BOX, "pi_max": (0.01, 0.2)}
    tag = str(a).replace("/", "_")
    _sign_claim(f"alignment.lr_scaling_fixed_steps_a{tag}",
                f"At fixed T with eta = c*B^{a}, the Theorem-1 bound {word} with B on {_box_text(box)}",
                sp.diff(_LOG_BOUND.subs(S, T * c_lr * B**a), B), box, sign)

_A1 = sp.diff(_LOG_BOUND.subs(S, T * c_lr * B), B)
_BOX_A1 = {**_LR_BOX, "pi_max": (0.1, 0.25)}
_sign_claim("alignment.lr_scaling_fixed_steps_a1",
            f"At fixed T with eta = c*B (linear scaling), the Theorem-1 bound rises with B on {_box_text(_BOX_A1)}",
            _A1, _BOX_A1, +1)
_BOX_A1_LARGE_C = {**_LR_BOX, "pi_max": (0.001, 0.01)}
_sign_claim("alignment.lr_scaling_a1_rises_large_C",
            "At fixed T with eta = c*B, the Theorem-1 bound rises with B also for many classes "
            f"({_box_text(_BOX_A1_LARGE_C)}). Toolkit finding: FALSE there; the batch-composition slack "
            "eps_{B,delta} shrinks with B faster than sqrt(B) grows once pi_max << eps",
            _A1, _BOX_A1_LARGE_C, +1, expected="refuted")

# ---- fixed epochs: T = n/B, a = 1 -> S = n c (constant), log(T B / delta) = log(n/delta)
_EPOCH = _LOG_BOUND.subs({S: n * c_lr}).subs(T, n / B)
_BOX_EPOCH = {"tau": (0.2, 1.0), "batch_size": (64.0, 4096.0), "n": (1e4, 1e6), "delta": (0.01, 0.1),
              "c_lr": (1e-4, 1e-2), "pi_max": (0.001, 0.2)}
_sign_claim("alignment.lr_scaling_fixed_epochs_a1",
            "At FIXED EPOCHS (T = n/B) with eta = c*B, the Theorem-1 bound FALLS with B "
            f"(opposite of the paper's observed trend for O(B) scaling) on {_box_text(_BOX_EPOCH)}",
            sp.diff(_EPOCH, B), _BOX_EPOCH, -1,
            source=Source(PAPER_B, "2510.08852", "Fig. 5 (batch-size scaling)",
                          "the paper's runs use fixed epochs; at fixed epochs S = n*c is constant, so the "
                          "bound cannot explain the observed drop of alignment with B under O(B) scaling"))


# ---- the corollaries' form vs the sharp form (law of cosines)
_rho = sp.Symbol("rho", positive=True)
register(Claim(
    "alignment.corollary_weaker_than_sharp",
    "For 0 < rho < 1: (1 - rho)/(1 + rho) <= sqrt(1 - rho^2), i.e. the paper's CKA/RSA corollaries are implied by "
    "the sharp law-of-cosines bound (equality only at rho = 0)",
    Source("contrastive-bounds (derived)", None, "sharpening of Paper B's corollaries",
           "(1-rho)^2 <= (1-rho^2)(1+rho)^2 <=> 1 - rho <= (1 + rho)^3"),
    sign_claim_check(SignCheckSpec(expr=sp.sqrt(1 - _rho**2) - (1 - _rho) / (1 + _rho),
                                   box={"rho": (1e-6, 1 - 1e-6)}, sign=1)),
    "holds", ("B5",)))
