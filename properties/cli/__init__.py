"""The ``contrastive-bounds`` command line: :func:`main` (the console script) and :data:`app`.

Each command lives in a module of its own, loaded only when the command runs (``--help`` and
``bound`` import no JAX); :data:`COMMANDS` lists them. The command modules are not Python API: use
the faces of :mod:`contrastive_bounds.theory`, :mod:`contrastive_bounds.numerics` and
:mod:`contrastive_bounds.properties.checks` from Python.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._align` — ``contrastive-bounds align``: CL vs NSCL similarity descent and real-data training (Paper
  B).
* :mod:`._align_compare` — ``contrastive-bounds align compare CL.npy NSCL.npy``: Paper B's alignment
  measures on a user's embeddings (B5).
* :mod:`._align_cost` — What an ``align`` run will cost, refused before it starts when it is beyond reason.
* :mod:`._align_proxy` — ``contrastive-bounds align proxy`` and ``align batch-scaling``: Paper B against
  real SGD (docs/theorems.md B9, B10).
* :mod:`._align_schedule` — Step-size schedules and Theorem-1 logs on the command line of ``align simulate``
  (docs/theorems.md B4).
* :mod:`._align_theorem1` — ``contrastive-bounds align theorem1 LOG``: Theorem 1 and its proof links along a
  user's training log (B4).
* :mod:`._anneal` — Command ``anneal``: simulate annealed Langevin chains and put the theory's prediction
  beside them.
* :mod:`._anneal_run` — What every ``anneal`` run shares: the step count, the cost guard, and what Ctrl-C
  prints.
* :mod:`._annealing` — Commands ``barrier``, ``schedule`` and ``kramers`` (annealing theory,
  docs/theorems.md A2–A5).
* :mod:`._app` — The ``contrastive-bounds`` command line (typer + rich), loaded lazily.
* :mod:`._check` — ``contrastive-bounds check``: every theorem's checks on built-in scenarios and real data.
* :mod:`._cli_docs` — docs/cli.md, the command-line reference: typer's generator, written as Markdown that reads
  the same as text.
* :mod:`._common` — Shared plumbing for the command line: error handling, JSON output, key=value parsing.
* :mod:`._self_test` — ``contrastive-bounds check --self-test``: the self-test run from the command line.
* :mod:`._landscape_print` — The ``landscape`` command's tables: a network result in words.
* :mod:`._stop_watch` — A second Ctrl-C or SIGTERM ends the command at once, even inside a compiled call.
* :mod:`._sweep` — Command ``sweep``: run a grid of tasks (a spec) on dask.distributed, one Parquet row per
  task.
* :mod:`._theory` — Commands ``list``, ``bound`` and ``claims``: the theorems as objects, from the shell.
* :mod:`.anneal_network` — (public module) ``anneal`` on a landscape spec from the minima of a saved search
  (docs/theorems.md A4, A5, A9): parse, call, print.
* :mod:`.landscape` — (public module) Command ``landscape``: minima, transition states and H* of a landscape
  by its transition network (A9).
* :mod:`.landscape_options` — (public module) The landscape options shared by ``landscape`` and ``anneal``:
  parse them, call the library, name the option.
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "app": "_app",
    "cli_reference_markdown": "_cli_docs",
    "command_names": "_app",
    "COMMANDS": "_app",
    "load_command": "_app",
    "main": "_app",
    "markdown_safe": "_cli_docs",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ('anneal_network', 'landscape', 'landscape_options')

__all__ = ["app", "cli_reference_markdown", "command_names", "COMMANDS", "load_command", "main", "markdown_safe",
           "anneal_network", "landscape", "landscape_options"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
