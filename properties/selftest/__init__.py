"""Self-test of the main job: built-in faults injected through a documented hook, and who catches them.

Every registered check is the witness of some fault (:func:`unwitnessed` is empty);
:func:`run_self_test` runs the baseline, then every fault's checks under the fault.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._faults` — The self-test's built-in faults: realistic one-expression mistakes, each a set of
  substitutions.
* :mod:`._hook` — The substitution hook: replace a function, method or bound for the duration of a ``with``
  block.
* :mod:`._makers` — The replacement makers of the self-test's faults: ``make(original) -> replacement`` for
  a :class:`~._hook.Substitution`, one per kind of one-expression mistake (:mod:`._faults` lists the
  faults).
* :mod:`._report` — What a self-test says: the Markdown report (the check × fault matrix), the summary and
  failure lines.
* :mod:`._runner` — Runner of ``contrastive-bounds check --self-test``: the main job's checks under each
  built-in fault.
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "batch_duplicates": "_makers",
    "block_gradients_over_tau": "_makers",
    "bound_times": "_makers",
    "caught_text": "_report",
    "certification_gives_up": "_makers",
    "CheckRun": "_runner",
    "clear_caches": "_hook",
    "drift_scaled": "_makers",
    "environment": "_report",
    "EXIT_INTERRUPTED": "_report",
    "exponential_half_rate": "_makers",
    "failure_line": "_report",
    "Fault": "_faults",
    "FaultResult": "_runner",
    "FAULTS": "_faults",
    "follow_one_sign": "_makers",
    "get_fault": "_faults",
    "index_two_accepted": "_makers",
    "infonce_tau_scaled": "_makers",
    "kernel_temperature": "_makers",
    "KINDS": "_faults",
    "kw": "_makers",
    "losses_swapped": "_makers",
    "mfpt_scaled": "_makers",
    "misscaled": "_makers",
    "mp_confirms_everything": "_makers",
    "network_prefactor_doubled": "_makers",
    "PACKAGE": "_hook",
    "program_shift": "_makers",
    "radius_linear": "_makers",
    "render_markdown": "_report",
    "resolve_target": "_hook",
    "run_check": "_runner",
    "run_self_test": "_runner",
    "saddle_copies_inverted": "_makers",
    "schedule_shift": "_makers",
    "select_faults": "_faults",
    "SelfTestInterrupted": "_runner",
    "SelfTestResult": "_runner",
    "sgd_learning_rate": "_makers",
    "shift_log10": "_makers",
    "substituted": "_hook",
    "Substitution": "_hook",
    "summary_line": "_report",
    "time_index": "_makers",
    "trap_prefactor": "_makers",
    "u0_positive_as_negative": "_makers",
    "uncentred_cka": "_makers",
    "unrefined_barrier": "_makers",
    "unwitnessed": "_faults",
    "witnesses_of": "_faults",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ()

__all__ = ["batch_duplicates", "block_gradients_over_tau", "bound_times", "caught_text", "certification_gives_up",
           "CheckRun", "clear_caches", "drift_scaled", "environment", "EXIT_INTERRUPTED",
           "exponential_half_rate", "failure_line", "Fault", "FaultResult", "FAULTS", "follow_one_sign",
           "get_fault", "index_two_accepted", "infonce_tau_scaled", "kernel_temperature", "KINDS", "kw",
           "losses_swapped", "mfpt_scaled", "misscaled", "mp_confirms_everything",
           "network_prefactor_doubled", "PACKAGE", "program_shift", "radius_linear", "render_markdown",
           "resolve_target", "run_check", "run_self_test", "saddle_copies_inverted", "schedule_shift",
           "select_faults", "SelfTestInterrupted", "SelfTestResult", "sgd_learning_rate", "shift_log10",
           "substituted", "Substitution", "summary_line", "time_index", "trap_prefactor",
           "u0_positive_as_negative", "uncentred_cka", "unrefined_barrier", "unwitnessed", "witnesses_of"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
