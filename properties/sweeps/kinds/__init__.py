"""Task kinds of a sweep: what one task computes, as a pure function of (kind, parameters, seed).

A kind is a :class:`TaskKind` registered with :func:`register_kind`; the built-in kinds
(``check``, ``anneal``, ``align-simulate``, ``align-train``, ``bound``, ``landscape``) live in the
modules of :data:`KIND_MODULES`, each registering its kinds on import.

Modules (private ones hold the code behind the names below; public ones are imported as
modules):

* :mod:`._align` — Sweep kinds of Paper B: ``align-simulate`` (Theorem 1 along coupled similarity descent)
  and ``align-train`` (CL vs NSCL/SupCon/CE on digits).
* :mod:`._anneal` — Sweep kind ``anneal``: annealed Langevin chains under a schedule, success beside
  Eyring-Kramers.
* :mod:`._bound` — Sweep kind ``bound``: a registered bound of the theory over a grid of its parameters
  (pure theory).
* :mod:`._check` — Sweep kind ``check``: a registered check of the main job over a grid of its parameters.
* :mod:`._kind` — Task kinds of a sweep: what one task computes, as a pure function of (kind, parameters,
  seed).
* :mod:`._landscape` — Sweep kind ``landscape``: the transition network of an InfoNCE landscape, and runs on
  it (A9, A8.6–A8.8).
"""

from __future__ import annotations

from contrastive_bounds._faces import lazy_face

#: public name -> the private module of this package that defines it
_HOME = {
    "ALIGN_SIMULATE": "_align",
    "ALIGN_TRAIN": "_align",
    "ANNEAL": "_anneal",
    "BOUND": "_bound",
    "CHECK": "_check",
    "check_columns": "_kind",
    "DIGITS": "_bound",
    "FORM_PARAMS": "_anneal",
    "get_kind": "_kind",
    "KIND_ALIASES": "_kind",
    "KIND_MODULES": "_kind",
    "LANDSCAPE": "_landscape",
    "LINK_NAMES": "_align",
    "list_kinds": "_kind",
    "ParamSpec": "_kind",
    "register_kind": "_kind",
    "REQUIRED": "_kind",
    "TaskKind": "_kind",
    "TaskOutput": "_kind",
    "TEMPERATURE_SCALE_FORMS": "_anneal",
    "VERDICTS": "_kind",
}

#: public submodules and subpackages (imported as modules on first use)
_SUBMODULES = ()

__all__ = ["ALIGN_SIMULATE", "ALIGN_TRAIN", "ANNEAL", "BOUND", "CHECK", "check_columns", "DIGITS", "FORM_PARAMS",
           "get_kind", "KIND_ALIASES", "KIND_MODULES", "LANDSCAPE", "LINK_NAMES", "list_kinds", "ParamSpec",
           "register_kind", "REQUIRED", "TaskKind", "TaskOutput", "TEMPERATURE_SCALE_FORMS", "VERDICTS"]


__getattr__, __dir__ = lazy_face(__name__, _HOME, _SUBMODULES, __all__)
