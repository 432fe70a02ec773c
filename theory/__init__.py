"""The theory face: bounds, claims, schedules and their sources, as cited objects (sympy, mpmath,
python-flint; no JAX). It imports neither :mod:`contrastive_bounds.numerics` nor
:mod:`contrastive_bounds.properties`.

Start with :func:`get_bound` / :func:`get_claim` (the registry of the papers' statements),
:class:`Bound` (``evaluate``, ``solve``), :func:`make_schedule` (every convention of A2) and
:func:`eyring_kramers_log_time` (Kramers, A5).

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._alignment` — Paper B: CL vs NSCL alignment bounds as cited
  :class:`~contrastive_bounds.theory.Bound` objects.
* :mod:`._alignment_claims` — Paper B's qualitative claims (docs/theorems.md B7) as machine-checked sign
  claims.
* :mod:`._alignment_trajectory` — The proof links of Theorem 1 along a recorded trajectory, for any
  step-size sequence (Paper B).
* :mod:`._alignment_values` — Paper B's bounds as plain numpy functions: the second implementation beside
  the sympy bounds.
* :mod:`._annealing` — Annealing theory of Paper A (Chaudhry, arXiv 2603.12552) and the classical results it
  transfers.
* :mod:`._annealing_bounds` — Paper A in the registry: the annealing statements as cited
  :class:`~._bound.Bound` and :class:`~._claim.Claim` objects (docs/theorems.md A2, A4, A5, A6).
* :mod:`._backends` — Compiling sympy expressions to callables: one lambdify per (symbols, expression,
  backend).
* :mod:`._bound` — The :class:`Bound` object: a cited sympy expression with validated parameters.
* :mod:`._bound_arrays` — Vectorised log-space evaluation of a bound over arrays of parameters (numpy or
  JAX).
* :mod:`._bound_point` — Evaluating a :class:`~._bound.Bound` at one point with mpmath, to a stated number
  of correct digits.
* :mod:`._bound_spec` — The parts a :class:`~._bound.Bound` is declared with, and how its parameters are
  described.
* :mod:`._bound_value` — What evaluating a bound returns: :class:`BoundValue` (one point, mpmath) and
  :class:`LogArray` (vectorised, log space), with their JSON and notebook renderings.
* :mod:`._claim` — Claims: checkable statements about bounds, with verdicts.
* :mod:`._domains` — Parameter domains and input validation.
* :mod:`._intervals` — Rigorous interval evaluation of sympy expressions with python-flint's ``arb`` (ball
  arithmetic).
* :mod:`._isolate` — Certified sign structure of a function of one variable with python-flint ``arb`` balls.
* :mod:`._kramers` — Eyring–Kramers escape times, exact 1-D mean first-passage times, trap probabilities
  (docs/theorems.md A5).
* :mod:`._registry` — The registry of bounds and claims, keyed by dotted name (``alignment.frobenius``).
* :mod:`._reliable` — Evaluating a real sympy expression to a stated number of correct digits, or saying it
  cannot.
* :mod:`._schedule_forms` — The schedule forms of docs/theorems.md A2 and their evaluation from a form name
  and its parameters.
* :mod:`._schedule_verdicts` — The asymptotic verdict of an annealing schedule against a critical height
  ``H*`` (docs/theorems.md A2, A4).
* :mod:`._schedules` — Annealing schedules in every convention of docs/theorems.md A2, with validation and
  verdicts.
* :mod:`._solve` — Solving a bound for one parameter: where is it non-vacuous and informative? Certified
  with arb.
* :mod:`._solve_result` — What :func:`._solve.solve` returns: the solution set of one parameter as certified
  intervals.
* :mod:`._source` — Where a bound or claim comes from: paper, arXiv id, theorem/equation, and our reading.
* :mod:`._special` — Special functions that bounds use in stable forms, with one implementation per backend.
* :mod:`._step_sizes` — From a network's learning-rate schedule to Theorem 1's S = Σ eta_t in similarity
  units (Paper B).
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "accepted_params": "_bound_spec",
    "AcceptedParam": "_bound_spec",
    "arb_compile": "_intervals",
    "arb_eval": "_intervals",
    "arb_exact": "_isolate",
    "arb_function": "_special",
    "arb_interval": "_intervals",
    "arb_to_float": "_isolate",
    "arb_to_mpf": "_isolate",
    "ArbCondition": "_isolate",
    "arrhenius_log_time": "_kramers",
    "backend_functions": "_special",
    "BACKENDS": "_backends",
    "ball_of": "_isolate",
    "Bound": "_bound",
    "bounds": "_registry",
    "BoundValue": "_bound_value",
    "catoni_difficulty": "_annealing",
    "CATONI_EXPONENT": "_annealing_bounds",
    "Caveat": "_bound_spec",
    "certain_sign": "_isolate",
    "certified_monotonicity": "_isolate",
    "check_array": "_bound_arrays",
    "check_finite_array": "_domains",
    "check_int": "_domains",
    "check_probability": "_domains",
    "check_real": "_domains",
    "check_seed": "_domains",
    "CKA_LOWER": "_alignment",
    "cka_lower": "_alignment_values",
    "CKA_LOWER_APRIORI": "_alignment",
    "CKA_LOWER_SHARP": "_alignment",
    "cka_lower_sharp": "_alignment_values",
    "Claim": "_claim",
    "claims": "_registry",
    "compiled": "_backends",
    "Constraint": "_bound_spec",
    "ConvergenceVerdict": "_schedule_verdicts",
    "decimal_text": "_isolate",
    "DEFAULT_DIGITS": "_reliable",
    "DELTA_BOUND": "_alignment",
    "delta_log10": "_alignment_values",
    "delta_value": "_alignment_values",
    "Endpoint": "_solve_result",
    "EPSILON": "_alignment",
    "epsilon_value": "_alignment_values",
    "eta_sum_from_learning_rates": "_step_sizes",
    "evaluate_log10": "_bound_arrays",
    "exact_mfpt_interval": "_kramers",
    "exact_point": "_isolate",
    "exact_rational": "_domains",
    "EXPECTED_ESCAPES": "_annealing_bounds",
    "expected_escapes": "_kramers",
    "Exprel": "_special",
    "eyring_kramers_log_time": "_kramers",
    "FAST_FORMS": "_schedule_forms",
    "FINITE_TIME_TAIL": "_annealing_bounds",
    "finite_time_tail_log": "_annealing",
    "FLOAT64_TINY": "_bound_arrays",
    "floor_integer": "_isolate",
    "form_beta": "_schedule_forms",
    "FORM_PARAMETERS": "_schedule_forms",
    "form_temperature": "_schedule_forms",
    "FORMS": "_schedule_forms",
    "free_syms": "_backends",
    "FROBENIUS": "_alignment",
    "frobenius_log10": "_alignment_values",
    "get": "_registry",
    "get_bound": "_registry",
    "get_claim": "_registry",
    "GUARD_DIGITS": "_reliable",
    "HKS_CONDITION": "_annealing",
    "hks_constant_to_form": "_schedules",
    "INCREASING": "_intervals",
    "increasing": "_intervals",
    "INFORMATIVENESS": "_bound_value",
    "input_array": "_bound_arrays",
    "Interval": "_domains",
    "interval_mul": "_intervals",
    "interval_pow": "_intervals",
    "isolate": "_isolate",
    "kramers_circle_log_time": "_kramers",
    "kramers_regime": "_kramers",
    "KRAMERS_TIME": "_annealing_bounds",
    "KRAMERS_TIME_CIRCLE": "_annealing_bounds",
    "lambdify_modules": "_backends",
    "link_chain_log10": "_alignment_trajectory",
    "link_constants": "_alignment_trajectory",
    "LINK_L1": "_alignment",
    "link_l1_bound": "_alignment_values",
    "link_l1_log10": "_alignment_trajectory",
    "LINK_L2": "_alignment",
    "link_l2_interval_log10": "_alignment_trajectory",
    "link_l2_log10": "_alignment_values",
    "LINK_L3": "_alignment",
    "link_l3_log10": "_alignment_values",
    "load_all": "_registry",
    "log_difference": "_solve",
    "LOG_FORMS": "_schedule_forms",
    "log_probability_never_escape": "_kramers",
    "LogArray": "_bound_value",
    "LogExprel": "_special",
    "LOSS_GAP": "_alignment",
    "LOSS_GAP_PAPER": "_source",
    "loss_gap_value": "_alignment_values",
    "make_schedule": "_schedules",
    "MAX_DIGITS": "_reliable",
    "MAX_SEED": "_domains",
    "MFPTResult": "_kramers",
    "min_mfpt_temperature": "_kramers",
    "PAPER_A": "_source",
    "PAPER_B": "_source",
    "Param": "_domains",
    "param_text": "_bound_spec",
    "parameter_lines": "_bound_spec",
    "Piece": "_isolate",
    "refine_root": "_isolate",
    "register": "_registry",
    "reliable_estimate": "_reliable",
    "reliable_sign": "_reliable",
    "reliable_value": "_reliable",
    "Reparametrisation": "_bound_spec",
    "RSA_LOWER": "_alignment",
    "rsa_lower": "_alignment_values",
    "RSA_LOWER_SHARP": "_alignment",
    "rsa_lower_sharp": "_alignment_values",
    "Schedule": "_schedules",
    "SCHEDULE_CONDITIONS": "_annealing_bounds",
    "SEED_FINITE_TIME": "_annealing",
    "seed_finite_time_exponent": "_annealing",
    "SEED_INVERTED_CONDITION": "_annealing",
    "show_end": "_solve_result",
    "sign_claim_check": "_claim",
    "SignCheckSpec": "_claim",
    "Softplus": "_special",
    "SolutionCondition": "_solve_result",
    "solve": "_solve",
    "SolveResult": "_solve_result",
    "Source": "_source",
    "split_point": "_isolate",
    "theorem1_log10": "_alignment_values",
    "THEORY_MODULES": "_registry",
    "to_mpf": "_reliable",
    "TRAP_PROBABILITY": "_annealing_bounds",
    "trivial_frobenius": "_alignment_values",
    "unknown_parameter_message": "_bound_spec",
    "Vacuity": "_bound_spec",
    "Verdict": "_claim",
    "WEIGHT_DIVERGENCE": "_alignment",
    "WINDOW_EXPONENT": "_solve",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ()

__all__ = ["accepted_params", "AcceptedParam", "arb_compile", "arb_eval", "arb_exact", "arb_function", "arb_interval",
           "arb_to_float", "arb_to_mpf", "ArbCondition", "arrhenius_log_time", "backend_functions",
           "BACKENDS", "ball_of", "Bound", "bounds", "BoundValue", "catoni_difficulty", "CATONI_EXPONENT",
           "Caveat", "certain_sign", "certified_monotonicity", "check_array", "check_finite_array",
           "check_int", "check_probability", "check_real", "check_seed", "CKA_LOWER", "cka_lower",
           "CKA_LOWER_APRIORI", "CKA_LOWER_SHARP", "cka_lower_sharp", "Claim", "claims", "compiled",
           "Constraint", "ConvergenceVerdict", "decimal_text", "DEFAULT_DIGITS", "DELTA_BOUND", "delta_log10",
           "delta_value", "Endpoint", "EPSILON", "epsilon_value", "eta_sum_from_learning_rates",
           "evaluate_log10", "exact_mfpt_interval", "exact_point", "exact_rational", "EXPECTED_ESCAPES",
           "expected_escapes", "Exprel", "eyring_kramers_log_time", "FAST_FORMS", "FINITE_TIME_TAIL",
           "finite_time_tail_log", "FLOAT64_TINY", "floor_integer", "form_beta", "FORM_PARAMETERS",
           "form_temperature", "FORMS", "free_syms", "FROBENIUS", "frobenius_log10", "get", "get_bound",
           "get_claim", "GUARD_DIGITS", "HKS_CONDITION", "hks_constant_to_form", "INCREASING", "increasing",
           "INFORMATIVENESS", "input_array", "Interval", "interval_mul", "interval_pow", "isolate",
           "kramers_circle_log_time", "kramers_regime", "KRAMERS_TIME", "KRAMERS_TIME_CIRCLE",
           "lambdify_modules", "link_chain_log10", "link_constants", "LINK_L1", "link_l1_bound",
           "link_l1_log10", "LINK_L2", "link_l2_interval_log10", "link_l2_log10", "LINK_L3", "link_l3_log10",
           "load_all", "log_difference", "LOG_FORMS", "log_probability_never_escape", "LogArray", "LogExprel",
           "LOSS_GAP", "LOSS_GAP_PAPER", "loss_gap_value", "make_schedule", "MAX_DIGITS", "MAX_SEED",
           "MFPTResult", "min_mfpt_temperature", "PAPER_A", "PAPER_B", "Param", "param_text",
           "parameter_lines", "Piece", "refine_root", "register", "reliable_estimate", "reliable_sign",
           "reliable_value", "Reparametrisation", "RSA_LOWER", "rsa_lower", "RSA_LOWER_SHARP",
           "rsa_lower_sharp", "Schedule", "SCHEDULE_CONDITIONS", "SEED_FINITE_TIME",
           "seed_finite_time_exponent", "SEED_INVERTED_CONDITION", "show_end", "sign_claim_check",
           "SignCheckSpec", "Softplus", "SolutionCondition", "solve", "SolveResult", "Source", "split_point",
           "theorem1_log10", "THEORY_MODULES", "to_mpf", "TRAP_PROBABILITY", "trivial_frobenius",
           "unknown_parameter_message", "Vacuity", "Verdict", "WEIGHT_DIVERGENCE", "WINDOW_EXPONENT"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
