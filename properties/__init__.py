"""The properties face: checks joining theory and numerics, and the applications built on them.

Rooms, one direction of dependence: the checks (:mod:`.checks`, with the statistics, strategies,
scenarios, the runner and the report of this package) never import the applications; the
applications — the command line (:mod:`.cli`), the sweeps (:mod:`.sweeps`) and the self-test
(:mod:`.selftest`) — import the checks. Names are loaded on first use.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._figures` — Figures of the report: one :class:`~.checks.outcome.PlotSpec` (data kept in
  results.json) -> PNG.
* :mod:`._glossary` — Terms used by the report and the command line, defined once.
* :mod:`._jsonsafe` — JSON-ready copies of results: numpy scalars and arrays as Python numbers and lists,
  non-finite floats as null.
* :mod:`._report` — The report of the main job: PNG figures, ``report.md`` and a self-contained
  ``report.html``.
* :mod:`._runner` — Run scenarios, apply Holm across the stochastic checks, save results atomically, resume.
* :mod:`._scenarios` — Scenarios: which checks run with which parameters and seed.
* :mod:`._statements` — Printed comparisons that are true: one helper writes "a <sign> b", one scanner finds
  false ones.
* :mod:`._stats` — Suite-level statistics (intervals themselves are in
  :mod:`contrastive_bounds.numerics._stats`): Holm's step-down correction across a suite, and "how many more
  samples would decide".
* :mod:`.checks` — (subpackage) The main job's checks: each joins a theorem (bound or claim) with a
  measurement.
* :mod:`.cli` — (subpackage) The ``contrastive-bounds`` command line: :func:`main` (the console script) and
  :data:`app`.
* :mod:`.hypothesis_plugin` — (public module) Hypothesis plugin hook of contrastive-bounds: registers the
  package's profiles on ``import hypothesis``.
* :mod:`.profiles` — (public module) Hypothesis settings profiles of contrastive-bounds, for the package's
  tests and for yours.
* :mod:`.selftest` — (subpackage) Self-test of the main job: built-in faults injected through a documented
  hook, and who catches them.
* :mod:`.strategies` — (public module) Hypothesis strategies for contrastive-learning theory (public API,
  ``st.``-style).
* :mod:`.sweeps` — (subpackage) Sweeps: grids of checks and simulations on dask.distributed, one atomic
  Parquet row per task.
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "atomic_write_bytes": "_runner",
    "atomic_write_text": "_runner",
    "binomial_upper_p": "_stats",
    "builtin_scenarios": "_scenarios",
    "chain_text": "_statements",
    "compare_text": "_statements",
    "Contradiction": "_statements",
    "contradictions": "_statements",
    "could_not_have_failed_counts": "_report",
    "DEFAULT_SUITE_ALPHA": "_stats",
    "draw_figure": "_figures",
    "ensure_writable_folder": "_runner",
    "fmt_number": "_statements",
    "fmt_value": "_report",
    "GLOSSARY": "_glossary",
    "HEADERS": "_report",
    "headline": "_report",
    "holm": "_stats",
    "jsonable": "_jsonsafe",
    "load_results": "_runner",
    "load_scenarios": "_scenarios",
    "load_suite": "_runner",
    "md_escape": "_report",
    "record_id": "_runner",
    "records_a_fresh_run_would_drop": "_runner",
    "relation": "_statements",
    "relation_log10": "_statements",
    "render_figure": "_figures",
    "resumable_records": "_runner",
    "run_suite": "_runner",
    "samples_to_decide_proportion": "_stats",
    "Scenario": "_scenarios",
    "select": "_scenarios",
    "SuiteInterrupted": "_runner",
    "SuiteResult": "_runner",
    "table_cell": "_report",
    "terms_used": "_glossary",
    "VERDICT_COLOURS": "_report",
    "verdict_of": "_report",
    "versions": "_runner",
    "write_report": "_report",
    "write_results": "_runner",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ('checks', 'cli', 'hypothesis_plugin', 'profiles', 'selftest', 'strategies', 'sweeps')

__all__ = ["atomic_write_bytes", "atomic_write_text", "binomial_upper_p", "builtin_scenarios", "chain_text",
           "compare_text", "Contradiction", "contradictions", "could_not_have_failed_counts",
           "DEFAULT_SUITE_ALPHA", "draw_figure", "ensure_writable_folder", "fmt_number", "fmt_value",
           "GLOSSARY", "HEADERS", "headline", "holm", "jsonable", "load_results", "load_scenarios",
           "load_suite", "md_escape", "record_id", "records_a_fresh_run_would_drop", "relation",
           "relation_log10", "render_figure", "resumable_records", "run_suite",
           "samples_to_decide_proportion", "Scenario", "select", "SuiteInterrupted", "SuiteResult",
           "table_cell", "terms_used", "VERDICT_COLOURS", "verdict_of", "versions", "write_report",
           "write_results", "checks", "cli", "hypothesis_plugin", "profiles", "selftest", "strategies",
           "sweeps"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
