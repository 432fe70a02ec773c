"""Self-test of the main job: built-in faults injected through a documented hook, and who catches them.

* :mod:`.hook` — :class:`Substitution` and :func:`substituted`: replace a function, method or bound
  for the duration of a ``with`` block (no file edits; caches cleared on entry and exit);
* :mod:`.faults` — the built-in faults (:data:`FAULTS`), one per realistic mistake, grouped by the
  blind-spot kind they probe (:data:`KINDS`), each naming its witnesses (the checks it must turn red);
  every registered check is the witness of some fault (:func:`unwitnessed` is empty);
* :mod:`.makers` — the replacement makers the faults are built from;
* :mod:`.runner` — :func:`run_self_test`: the baseline, then every fault's checks under the fault,
  the check × fault matrix;
* :mod:`.report` — the progress lines, tables and files (Markdown, JSON) of ``contrastive-bounds check --self-test``.
"""

from contrastive_bounds.properties.selftest.faults import (  # noqa: F401
    FAULTS, KINDS, Fault, get_fault, select_faults, unwitnessed, witnesses_of)
from contrastive_bounds.properties.selftest.hook import Substitution, clear_caches, substituted  # noqa: F401
from contrastive_bounds.properties.selftest.runner import SelfTestResult, run_self_test  # noqa: F401
