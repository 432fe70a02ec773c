"""Paper B's numerics: contrastive losses, CKA/RSA, coupled similarity descent, real-data training.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._batch_scaling` — Batch size and learning-rate scaling on digits (paper Fig. 5; docs/theorems.md
  B10): the grid runs.
* :mod:`._batch_scaling_report` — Verdicts of the batch-size grid (docs/theorems.md B10): measured trends
  beside the bound's and the paper's.
* :mod:`._checkpoint` — Atomic ``.npz`` checkpoints of long alignment runs (temp file + ``os.replace``),
  tied to their run.
* :mod:`._cka` — Centred kernel alignment: linear CKA (biased and debiased HSIC), cosine-Gram CKA, rho
  (docs/theorems.md B5).
* :mod:`._compare` — Compare two users' embeddings of the same n inputs (CL vs NSCL): CKA, RSA, rho, r and
  Paper B's corollaries.
* :mod:`._data` — scikit-learn's digits as the real-data stand-in of docs/theorems.md B8, with JAX
  augmentations.
* :mod:`._descent` — Coupled CL / NSCL similarity descent (docs/theorems.md B3): the pure O(B^2) step and
  its gradient.
* :mod:`._descent_gradients` — The closed-form gradient of the coupled CL / NSCL similarity descent on a
  batch block (docs/theorems.md B3).
* :mod:`._descent_problem` — The inputs of a coupled similarity-descent run (docs/theorems.md B3-B5): its
  parameters (:class:`DescentConfig`), a synthetic problem (:func:`make_problem`: a shared Sigma_0 and
  balanced labels), and the validation of Sigma_0, labels and config together (:func:`check_run_inputs`,
  :func:`prepare_run_inputs`) that :func:`._descent_run.run_similarity_descent` does before it runs.
* :mod:`._descent_result` — The outcome of a coupled similarity-descent run and the bounds of the proof of
  Theorem 1 on it (docs/theorems.md B3-B5).
* :mod:`._descent_run` — Driver of the coupled similarity descent: chunked ``lax.scan``, records,
  checkpoints.
* :mod:`._eta_eff` — The effective step size eta_eff that maps plain SGD onto similarity descent
  (docs/theorems.md B9).
* :mod:`._loss_core` — The per-anchor form shared by every contrastive loss of Paper B, on a similarity
  matrix (docs/theorems.md B1)::
* :mod:`._losses` — Contrastive batch losses of Paper B from two views: decoupled/coupled InfoNCE (CL),
  NSCL, SupCon (L_out).
* :mod:`._proxy` — Does similarity descent track plain SGD? The coupled run (docs/theorems.md B9).
* :mod:`._proxy_result` — The outcome of a proxy-vs-SGD run (docs/theorems.md B9): fidelity, where tracking
  stops, Theorem 1 on real training.
* :mod:`._realarrays` — Real float64 arrays for CKA and RSA: validation and exact power-of-two rescaling.
* :mod:`._rsa` — Representational similarity analysis: RDMs and RSA (Kriegeskorte et al. 2008;
  docs/theorems.md B5).
* :mod:`._sgd` — Plain SGD of CL and NSCL under shared randomness, with Sigma on a fixed reference set
  (docs/theorems.md B9).
* :mod:`._step_schedule` — Step-size schedules eta_t for similarity descent (docs/theorems.md B3, B4:
  Theorem 1 holds for any sequence).
* :mod:`._theorem1_log` — A training log for Theorem 1 (docs/theorems.md B3, B4): its file format, safe
  reading and validation.
* :mod:`._theorem1_log_io` — Validation of a Theorem-1 log's arrays, and logs written by the toolkit's own
  similarity descent.
* :mod:`._theorem1_trajectory` — Theorem 1 and its proof links along a recorded trajectory (a user's
  training log; docs/theorems.md B4).
* :mod:`._training` — Real-data training of CL, NSCL, SupCon and CE under shared randomness
  (docs/theorems.md B8).
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "all_finite": "_sgd",
    "anchor_loss_terms": "_loss_core",
    "anchor_losses": "_loss_core",
    "AnchorLosses": "_loss_core",
    "Anchors": "_descent_gradients",
    "applied_gradients": "_descent",
    "augment": "_data",
    "available_memory_bytes": "_sgd",
    "batch_for_step": "_sgd",
    "batch_loss": "_losses",
    "batch_loss_on_sigma": "_descent_gradients",
    "batch_rows": "_eta_eff",
    "block_gradients": "_descent_gradients",
    "block_structure": "_descent_gradients",
    "bounded_mean_ci": "_batch_scaling_report",
    "BUDGETS": "_batch_scaling",
    "canonical_zeros": "_rsa",
    "centred_cka": "_proxy",
    "check_proxy_inputs": "_proxy",
    "check_reference_memory": "_sgd",
    "check_run_inputs": "_descent_problem",
    "check_scaling_inputs": "_batch_scaling",
    "check_tau": "_loss_core",
    "check_train_config": "_training",
    "chunk_batches": "_descent_run",
    "cka_rho": "_cka",
    "claim_for": "_batch_scaling_report",
    "compare_embeddings": "_compare",
    "constant_schedule": "_step_schedule",
    "constant_to_rounding": "_realarrays",
    "cosine_gram": "_cka",
    "cosine_gram_cka": "_cka",
    "cosine_similarity_matrix": "_loss_core",
    "descent_step": "_descent",
    "DescentConfig": "_descent_problem",
    "DescentResult": "_descent_result",
    "DescentState": "_descent",
    "DigitsSplit": "_data",
    "divergence_message": "_sgd",
    "embed_rows": "_sgd",
    "EmptyPolicy": "_loss_core",
    "encode": "_training",
    "EPS": "_realarrays",
    "estimate_eta_eff": "_eta_eff",
    "ESTIMATORS": "_eta_eff",
    "EtaEstimate": "_eta_eff",
    "evaluate_theorem1_log": "_theorem1_trajectory",
    "feature_matrix": "_realarrays",
    "feature_pair_stats": "_compare",
    "feature_rho": "_compare",
    "fingerprint": "_checkpoint",
    "first_order_terms": "_eta_eff",
    "flatten_tree": "_checkpoint",
    "full_gradient": "_descent_gradients",
    "hsic_gram": "_cka",
    "info_nce_loss": "_losses",
    "init_model": "_sgd",
    "init_params": "_training",
    "learning_rate_for": "_batch_scaling",
    "linear_cka": "_cka",
    "linear_cka_gram": "_cka",
    "link_bounds_log10": "_descent_result",
    "LINKS": "_descent_result",
    "load_array_file": "_theorem1_log",
    "load_digits_subset": "_data",
    "load_embeddings": "_compare",
    "load_labels": "_compare",
    "load_npz_checked": "_checkpoint",
    "load_reference_set": "_sgd",
    "LOG_ARRAYS": "_theorem1_log",
    "loss_from_similarity": "_loss_core",
    "make_problem": "_descent_problem",
    "masked_logsumexp": "_loss_core",
    "matrix_pair": "_realarrays",
    "MAX_SPEARMAN_PAIRS": "_compare",
    "MAX_SPEARMAN_SAMPLE": "_compare",
    "merge_option": "_theorem1_log",
    "METRIC_RANGE": "_batch_scaling_report",
    "min_tau": "_loss_core",
    "MODELS": "_training",
    "normalize": "_loss_core",
    "nscl_loss": "_losses",
    "open_log_arrays": "_theorem1_log",
    "orthonormal_fit_expansion": "_eta_eff",
    "pair_losses": "_sgd",
    "PAPER_TREND": "_batch_scaling_report",
    "population_loss_gap": "_training",
    "pow2_scale": "_realarrays",
    "prepare_run_inputs": "_descent_problem",
    "ProxyConfig": "_proxy",
    "ProxyResult": "_proxy_result",
    "rank_with_ties": "_rsa",
    "rdm": "_rsa",
    "RDM_NOISE_ULPS": "_rsa",
    "read_checkpoint_arrays": "_descent_run",
    "read_theorem1_log": "_theorem1_log_io",
    "real_array": "_realarrays",
    "REAL_LINKS": "_proxy_result",
    "RECORD_FIELDS": "_proxy_result",
    "reference_memory_bytes": "_sgd",
    "reference_sigma": "_sgd",
    "ReferenceSet": "_sgd",
    "rows_gradient": "_descent_gradients",
    "rsa": "_rsa",
    "rsa_from_similarity": "_rsa",
    "rsa_r": "_rsa",
    "run_batch_scaling": "_batch_scaling",
    "run_descent_chunk": "_descent_run",
    "run_keys": "_sgd",
    "run_proxy_comparison": "_proxy",
    "run_similarity_descent": "_descent_run",
    "same_class_fractions": "_descent",
    "sample_batch": "_descent",
    "save_npz_atomic": "_checkpoint",
    "scalar": "_theorem1_log",
    "ScalingConfig": "_batch_scaling",
    "ScalingResult": "_batch_scaling_report",
    "SCHEDULE_FORMS": "_step_schedule",
    "SCHEDULE_PARAMETERS": "_step_schedule",
    "sgd_pair_step": "_sgd",
    "SGDConfig": "_sgd",
    "SIGMA_COPIES": "_sgd",
    "sigma_defect": "_sgd",
    "SIGMA_TOLERANCE": "_sgd",
    "sigma_tolerance": "_sgd",
    "SIGMA_TOLERANCE_FLOAT32": "_sgd",
    "square_pair": "_realarrays",
    "stable_mean": "_loss_core",
    "StepRecord": "_descent",
    "steps_for": "_batch_scaling",
    "StepSizeSchedule": "_step_schedule",
    "supcon_loss": "_losses",
    "symmetric_block_gradients": "_eta_eff",
    "theorem1_log_arrays": "_theorem1_log_io",
    "Theorem1Log": "_theorem1_log",
    "Theorem1Trajectory": "_theorem1_trajectory",
    "TOLERANCE_ULPS": "_theorem1_log",
    "train_alignment": "_training",
    "TrainConfig": "_training",
    "TrainingDivergedError": "_sgd",
    "TrainResult": "_training",
    "ULPS": "_realarrays",
    "unflatten_tree": "_checkpoint",
    "upper_triangle": "_rsa",
    "validate_log_arrays": "_theorem1_log_io",
    "view_masks": "_losses",
    "write_theorem1_log": "_theorem1_log_io",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ()

__all__ = ["all_finite", "anchor_loss_terms", "anchor_losses", "AnchorLosses", "Anchors", "applied_gradients", "augment",
           "available_memory_bytes", "batch_for_step", "batch_loss", "batch_loss_on_sigma", "batch_rows",
           "block_gradients", "block_structure", "bounded_mean_ci", "BUDGETS", "canonical_zeros",
           "centred_cka", "check_proxy_inputs", "check_reference_memory", "check_run_inputs",
           "check_scaling_inputs", "check_tau", "check_train_config", "chunk_batches", "cka_rho", "claim_for",
           "compare_embeddings", "constant_schedule", "constant_to_rounding", "cosine_gram",
           "cosine_gram_cka", "cosine_similarity_matrix", "descent_step", "DescentConfig", "DescentResult",
           "DescentState", "DigitsSplit", "divergence_message", "embed_rows", "EmptyPolicy", "encode", "EPS",
           "estimate_eta_eff", "ESTIMATORS", "EtaEstimate", "evaluate_theorem1_log", "feature_matrix",
           "feature_pair_stats", "feature_rho", "fingerprint", "first_order_terms", "flatten_tree",
           "full_gradient", "hsic_gram", "info_nce_loss", "init_model", "init_params", "learning_rate_for",
           "linear_cka", "linear_cka_gram", "link_bounds_log10", "LINKS", "load_array_file",
           "load_digits_subset", "load_embeddings", "load_labels", "load_npz_checked", "load_reference_set",
           "LOG_ARRAYS", "loss_from_similarity", "make_problem", "masked_logsumexp", "matrix_pair",
           "MAX_SPEARMAN_PAIRS", "MAX_SPEARMAN_SAMPLE", "merge_option", "METRIC_RANGE", "min_tau", "MODELS",
           "normalize", "nscl_loss", "open_log_arrays", "orthonormal_fit_expansion", "pair_losses",
           "PAPER_TREND", "population_loss_gap", "pow2_scale", "prepare_run_inputs", "ProxyConfig",
           "ProxyResult", "rank_with_ties", "rdm", "RDM_NOISE_ULPS", "read_checkpoint_arrays",
           "read_theorem1_log", "real_array", "REAL_LINKS", "RECORD_FIELDS", "reference_memory_bytes",
           "reference_sigma", "ReferenceSet", "rows_gradient", "rsa", "rsa_from_similarity", "rsa_r",
           "run_batch_scaling", "run_descent_chunk", "run_keys", "run_proxy_comparison",
           "run_similarity_descent", "same_class_fractions", "sample_batch", "save_npz_atomic", "scalar",
           "ScalingConfig", "ScalingResult", "SCHEDULE_FORMS", "SCHEDULE_PARAMETERS", "sgd_pair_step",
           "SGDConfig", "SIGMA_COPIES", "sigma_defect", "SIGMA_TOLERANCE", "sigma_tolerance",
           "SIGMA_TOLERANCE_FLOAT32", "square_pair", "stable_mean", "StepRecord", "steps_for",
           "StepSizeSchedule", "supcon_loss", "symmetric_block_gradients", "theorem1_log_arrays",
           "Theorem1Log", "Theorem1Trajectory", "TOLERANCE_ULPS", "train_alignment", "TrainConfig",
           "TrainingDivergedError", "TrainResult", "ULPS", "unflatten_tree", "upper_triangle",
           "validate_log_arrays", "view_masks", "write_theorem1_log"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
