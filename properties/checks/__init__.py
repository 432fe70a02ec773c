"""The main job's checks: each joins a theorem (bound or claim) with a measurement.

A check is ``fn(params, seed) -> Outcome`` registered with :func:`check`; :func:`registered_checks`
imports the built-in ones. The checks import neither the command line, the sweeps nor the self-test.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._ablation_rows` — Evidence for the ablation checks (A8.6–A8.8): rows of the ``ablations`` grid and
  trend verdicts.
* :mod:`._agreement` — Agreement of a toolkit value with an independent implementation or a reference value.
* :mod:`._alignment_bounds` — Checks of Paper B's deterministic bounds (docs/theorems.md B2, B4, B5, B7):
  searched inequalities and values.
* :mod:`._alignment_descent` — Checks of Paper B along coupled similarity descent (docs/theorems.md B3-B6):
  the runs and their bounds.
* :mod:`._alignment_digits` — Paper B on real data (docs/theorems.md B8): CL, NSCL, SupCon and CE trained on
  scikit-learn's digits.
* :mod:`._alignment_training` — Checks of Paper B against real SGD (docs/theorems.md B9, B10): the proxy's
  fidelity, Theorem 1 on real training, and the batch-size x learning-rate trends of the paper's Fig. 5.
* :mod:`._annealing_common` — Shared pieces of Paper A's checks: intervals, cached schedule runs, the
  Kramers band comparison.
* :mod:`._annealing_sampling` — Checks of Paper A's simulator (docs/theorems.md A1, A8.5): what one step
  does, and what the chain samples.
* :mod:`._annealing_schedules` — Checks of Paper A's schedules (docs/theorems.md A2, A4, A6, A8.1): values,
  and what they do to a trapped chain.
* :mod:`._annealing_seed` — Checks that adjudicate the seed notes' numbers (docs/theorems.md A8.3, A8.4) on
  simulated landscapes.
* :mod:`._annealing_theory` — Deterministic and asymptotic checks of Paper A's theory (docs/theorems.md A3,
  A5, A8.2) and its claims.
* :mod:`._claims` — Registry claims as a check outcome: every claim's verdict against the one the toolkit
  asserts.
* :mod:`._findings` — Decision rules for the findings of the checks, fixed before the data, with their
  false-alarm rates.
* :mod:`._framework` — The unit of the main job: a check joins a theorem (bound or claim) with a
  measurement.
* :mod:`._independent_alignment` — Second implementations of Paper B's bounds, and their reference values,
  for the checks.
* :mod:`._independent_annealing` — Second implementations of Paper A's theory objects, and their reference
  values, for the checks.
* :mod:`._independent_landscapes` — Second implementations for the landscape checks (docs/theorems.md A7,
  A9): InfoNCE and U0 in numpy, and the critical height read back from a network's table of minima.
* :mod:`._independent_metrics` — Second computations of the metrics the report shows (docs/theorems.md B1,
  B5), for the checks.
* :mod:`._independent_networks` — Second implementations for the network checks (docs/theorems.md A5, A9):
  spectra, multiplicities, orbit volumes and the Eyring–Kramers prefactor modulo symmetry, written from the
  statements.
* :mod:`._landscape_ablations` — Checks of the seed notes' ablation claims on InfoNCE landscape networks
  (docs/theorems.md A8.6–A8.8, A9).
* :mod:`._landscape_rows` — One measurement on an InfoNCE landscape network, as a row: the evidence of
  checks A8.6–A8.8 (A9).
* :mod:`._landscape_schedule` — Paper A's condition c > H* on a real InfoNCE landscape with H* > 0
  (docs/theorems.md A4, A5, A9).
* :mod:`._landscape_trap_network` — The main job's reach into the network search: one S² InfoNCE network
  against its reference values (docs/theorems.md A9, A5).
* :mod:`._outcome` — What a check returns: :class:`Outcome` (verdict, numbers, figures) and the figure data.
* :mod:`._registry` — The built-in checks of the main job, registered in one place.
* :mod:`._replay` — Replay checks: one step of each driver equals one call of its kernel with the configured
  parameters.
* :mod:`._verdicts` — Verdict logic: compare a measurement with a bound or a band, and say what the
  comparison means.
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "a4_convergence": "_annealing_schedules",
    "a4_fast": "_annealing_schedules",
    "a4_infonce_landscape": "_landscape_schedule",
    "a4_trapping": "_annealing_schedules",
    "a5_kramers": "_annealing_theory",
    "a6_finite_time": "_annealing_schedules",
    "a81_inverted": "_annealing_schedules",
    "a82_finite_time": "_annealing_theory",
    "a83_table": "_annealing_seed",
    "a84_toy": "_annealing_seed",
    "a85_anisotropic": "_annealing_sampling",
    "a86_dimension": "_landscape_ablations",
    "a87_negatives": "_landscape_ablations",
    "a88_curvature": "_landscape_ablations",
    "a_claims": "_annealing_theory",
    "ablation_rows": "_ablation_rows",
    "ablation_tasks": "_ablation_rows",
    "ABLATIONS": "_landscape_rows",
    "accepted_statuses": "_claims",
    "Agreement": "_agreement",
    "agreement": "_agreement",
    "apply_agreements": "_agreement",
    "arrhenius_p_value": "_landscape_ablations",
    "asserted_behaviour": "_annealing_schedules",
    "assess": "_verdicts",
    "ASYMPTOTIC_T": "_annealing_theory",
    "b7_claims": "_alignment_bounds",
    "band_test": "_annealing_common",
    "batch_event": "_alignment_bounds",
    "batch_scaling": "_alignment_training",
    "C02": "_independent_alignment",
    "C03": "_independent_alignment",
    "centring_matrix": "_independent_metrics",
    "check": "_framework",
    "CHECK_MODULES": "_registry",
    "CheckResult": "_framework",
    "CheckSpec": "_framework",
    "choose_t0": "_landscape_schedule",
    "cka_rsa_along_descent": "_alignment_descent",
    "cka_trace": "_independent_metrics",
    "claims_outcome": "_claims",
    "combine_verdicts": "_ablation_rows",
    "compare_band": "_verdicts",
    "compare_direction": "_findings",
    "compare_lower": "_verdicts",
    "compare_upper": "_verdicts",
    "Condition": "_outcome",
    "CONDITION_KINDS": "_outcome",
    "CONF": "_annealing_common",
    "corollaries_any_pair": "_alignment_bounds",
    "corollary_mp": "_independent_alignment",
    "could_not_have_failed": "_verdicts",
    "critical_height": "_annealing_theory",
    "critical_spectrum": "_independent_networks",
    "CriticalSpectrum": "_independent_networks",
    "default_detect": "_verdicts",
    "default_pairs": "_independent_landscapes",
    "DEFAULT_RELATIVE_EFFECT": "_verdicts",
    "DEFAULT_RTOL": "_agreement",
    "defined_checks": "_framework",
    "delta_mp": "_independent_alignment",
    "descent_from": "_alignment_descent",
    "descent_run": "_alignment_descent",
    "digits": "_alignment_digits",
    "double_well_potential": "_independent_annealing",
    "double_well_trap": "_independent_annealing",
    "driver_noise": "_replay",
    "effort_columns": "_ablation_rows",
    "EIGENVALUE_RTOL": "_landscape_trap_network",
    "ENERGY_ATOL": "_landscape_trap_network",
    "ENERGY_RTOL": "_landscape_ablations",
    "epsilon_mp": "_independent_alignment",
    "expected_escapes_mp": "_independent_annealing",
    "eyring_kramers_log_prefactor": "_independent_networks",
    "FAILING": "_outcome",
    "FAILING_STRICT": "_outcome",
    "FAR_ABOVE_MARGIN": "_annealing_theory",
    "fit_slope": "_annealing_common",
    "FLOAT64_MAX_LOG10": "_verdicts",
    "following_directions": "_independent_networks",
    "frobenius_log10_mp": "_independent_alignment",
    "FULL_GRID_COMMAND": "_landscape_ablations",
    "gradient_identity": "_alignment_descent",
    "GRADIENT_TOL": "_landscape_trap_network",
    "grid_text": "_landscape_ablations",
    "H_DOUBLE_WELL": "_annealing_common",
    "hardest_negative_u0": "_independent_landscapes",
    "hks_constant_reference": "_independent_annealing",
    "hypothesis_search": "_alignment_bounds",
    "infonce_energy": "_independent_landscapes",
    "kramers_curve": "_annealing_common",
    "kramers_rate": "_independent_annealing",
    "KRAMERS_RATE_CONSTANT": "_annealing_theory",
    "LANDSCAPE": "_landscape_trap_network",
    "landscape_row": "_landscape_rows",
    "landscape_scale": "_annealing_common",
    "linear_cka_gram_form": "_independent_metrics",
    "links_log10_mp": "_independent_alignment",
    "loss_gap": "_alignment_bounds",
    "loss_gap_mp": "_independent_alignment",
    "MEASURES": "_landscape_rows",
    "metric_agreements": "_alignment_descent",
    "mfpt_grid": "_independent_annealing",
    "minima_agreement": "_landscape_ablations",
    "miss_slope": "_annealing_common",
    "multiplicity_by_gram": "_independent_networks",
    "network_columns": "_landscape_rows",
    "network_of": "_landscape_trap_network",
    "network_ok": "_ablation_rows",
    "note_entry": "_findings",
    "one_step": "_annealing_sampling",
    "one_step_exact_circle": "_annealing_sampling",
    "one_step_exact_sphere": "_annealing_sampling",
    "orbit_volume": "_independent_networks",
    "Outcome": "_outcome",
    "OUTPUTS": "_landscape_rows",
    "pair_permutations": "_independent_networks",
    "PAPER_A": "_annealing_common",
    "PAPER_B": "_alignment_bounds",
    "PlotSpec": "_outcome",
    "population_losses_mp": "_independent_metrics",
    "power_against": "_verdicts",
    "POWER_TARGET": "_verdicts",
    "PREFACTOR_ATOL": "_landscape_trap_network",
    "proxy_fidelity": "_alignment_training",
    "proxy_known_case": "_alignment_training",
    "r_direct": "_independent_metrics",
    "radius_equivalence": "_landscape_ablations",
    "REFERENCE": "_landscape_trap_network",
    "reference_values": "_alignment_bounds",
    "registered_checks": "_registry",
    "relative_error": "_agreement",
    "replay_descent": "_replay",
    "replay_langevin": "_replay",
    "replay_training": "_replay",
    "rho_direct": "_independent_metrics",
    "ROUNDING": "_verdicts",
    "ROW_DEFAULTS": "_landscape_rows",
    "row_network": "_landscape_rows",
    "rsa_corrcoef": "_independent_metrics",
    "s2_trap_network": "_landscape_trap_network",
    "samples_for_power": "_verdicts",
    "SCHEDULE_CASES": "_annealing_schedules",
    "SCHEDULE_REFS": "_independent_annealing",
    "schedule_run": "_annealing_common",
    "schedule_temperature_mp": "_independent_annealing",
    "schedule_values": "_annealing_schedules",
    "SEARCH_KEYS": "_landscape_rows",
    "Series": "_outcome",
    "sharp_mp": "_independent_alignment",
    "SPEC_NAME": "_ablation_rows",
    "state_truthfully": "_framework",
    "table_consistency": "_independent_landscapes",
    "tangent_bases": "_independent_networks",
    "tangent_derivatives": "_independent_networks",
    "tangent_gradient_norm": "_independent_landscapes",
    "theorem1": "_alignment_descent",
    "theorem1_real": "_alignment_training",
    "trap_vs_kramers": "_annealing_common",
    "trapped_plot": "_annealing_common",
    "TREND_FAMILY_ALPHA": "_findings",
    "trend_finding": "_findings",
    "trend_verdict": "_ablation_rows",
    "validate_descent": "_alignment_descent",
    "Verdict": "_outcome",
    "VERDICTS": "_outcome",
    "verify_band": "_annealing_common",
    "verify_corollaries": "_independent_alignment",
    "verify_epsilon": "_independent_alignment",
    "verify_links": "_independent_alignment",
    "verify_loss_gap": "_independent_alignment",
    "verify_schedule": "_independent_annealing",
    "verify_theorem1": "_independent_alignment",
    "verify_trap": "_independent_annealing",
    "verify_weight_divergence": "_independent_alignment",
    "vmf": "_annealing_sampling",
    "vmf_exact": "_annealing_common",
    "vmf_mean_z3": "_independent_annealing",
    "vmf_mean_z3_simulated": "_annealing_common",
    "weight_divergence": "_alignment_descent",
    "weight_divergence_log10_mp": "_independent_alignment",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ()

__all__ = ["a4_convergence", "a4_fast", "a4_infonce_landscape", "a4_trapping", "a5_kramers", "a6_finite_time",
           "a81_inverted", "a82_finite_time", "a83_table", "a84_toy", "a85_anisotropic", "a86_dimension",
           "a87_negatives", "a88_curvature", "a_claims", "ablation_rows", "ablation_tasks", "ABLATIONS",
           "accepted_statuses", "Agreement", "agreement", "apply_agreements", "arrhenius_p_value",
           "asserted_behaviour", "assess", "ASYMPTOTIC_T", "b7_claims", "band_test", "batch_event",
           "batch_scaling", "C02", "C03", "centring_matrix", "check", "CHECK_MODULES", "CheckResult",
           "CheckSpec", "choose_t0", "cka_rsa_along_descent", "cka_trace", "claims_outcome",
           "combine_verdicts", "compare_band", "compare_direction", "compare_lower", "compare_upper",
           "Condition", "CONDITION_KINDS", "CONF", "corollaries_any_pair", "corollary_mp",
           "could_not_have_failed", "critical_height", "critical_spectrum", "CriticalSpectrum",
           "default_detect", "default_pairs", "DEFAULT_RELATIVE_EFFECT", "DEFAULT_RTOL", "defined_checks",
           "delta_mp", "descent_from", "descent_run", "digits", "double_well_potential", "double_well_trap",
           "driver_noise", "effort_columns", "EIGENVALUE_RTOL", "ENERGY_ATOL", "ENERGY_RTOL", "epsilon_mp",
           "expected_escapes_mp", "eyring_kramers_log_prefactor", "FAILING", "FAILING_STRICT",
           "FAR_ABOVE_MARGIN", "fit_slope", "FLOAT64_MAX_LOG10", "following_directions", "frobenius_log10_mp",
           "FULL_GRID_COMMAND", "gradient_identity", "GRADIENT_TOL", "grid_text", "H_DOUBLE_WELL",
           "hardest_negative_u0", "hks_constant_reference", "hypothesis_search", "infonce_energy",
           "kramers_curve", "kramers_rate", "KRAMERS_RATE_CONSTANT", "LANDSCAPE", "landscape_row",
           "landscape_scale", "linear_cka_gram_form", "links_log10_mp", "loss_gap", "loss_gap_mp", "MEASURES",
           "metric_agreements", "mfpt_grid", "minima_agreement", "miss_slope", "multiplicity_by_gram",
           "network_columns", "network_of", "network_ok", "note_entry", "one_step", "one_step_exact_circle",
           "one_step_exact_sphere", "orbit_volume", "Outcome", "OUTPUTS", "pair_permutations", "PAPER_A",
           "PAPER_B", "PlotSpec", "population_losses_mp", "power_against", "POWER_TARGET", "PREFACTOR_ATOL",
           "proxy_fidelity", "proxy_known_case", "r_direct", "radius_equivalence", "REFERENCE",
           "reference_values", "registered_checks", "relative_error", "replay_descent", "replay_langevin",
           "replay_training", "rho_direct", "ROUNDING", "ROW_DEFAULTS", "row_network", "rsa_corrcoef",
           "s2_trap_network", "samples_for_power", "SCHEDULE_CASES", "SCHEDULE_REFS", "schedule_run",
           "schedule_temperature_mp", "schedule_values", "SEARCH_KEYS", "Series", "sharp_mp", "SPEC_NAME",
           "state_truthfully", "table_consistency", "tangent_bases", "tangent_derivatives",
           "tangent_gradient_norm", "theorem1", "theorem1_real", "trap_vs_kramers", "trapped_plot",
           "TREND_FAMILY_ALPHA", "trend_finding", "trend_verdict", "validate_descent", "Verdict", "VERDICTS",
           "verify_band", "verify_corollaries", "verify_epsilon", "verify_links", "verify_loss_gap",
           "verify_schedule", "verify_theorem1", "verify_trap", "verify_weight_divergence", "vmf",
           "vmf_exact", "vmf_mean_z3", "vmf_mean_z3_simulated", "weight_divergence",
           "weight_divergence_log10_mp"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
