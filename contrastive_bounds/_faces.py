"""The lazy package face every ``__init__`` of the toolkit uses: one name → module table, loaded on first use.

A face lists its public names in ``__all__`` and where each lives (a private module of the package, or a public
submodule); nothing is imported until a name is first read (PEP 562 module ``__getattr__``), so importing
``contrastive_bounds.theory`` or the command line's entry point does not start JAX. The value read is then
stored on the package, so later reads are plain attribute lookups.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Iterable, Mapping

__all__ = ["lazy_face"]


def lazy_face(package: str, home: Mapping[str, str], submodules: Iterable[str],
              names: Iterable[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``(__getattr__, __dir__)`` pair of a package face.

    Args:
      package: the package's ``__name__``.
      home: public name -> the module of ``package`` that defines it (e.g. ``{"simulate": "_driver"}``).
      submodules: public submodules and subpackages, imported as modules on first use.
      names: the package's ``__all__`` (what ``dir()`` adds to the package's globals).
    Returns:
      ``(__getattr__, __dir__)``, to be bound at the package's top level.
    Raises (from ``__getattr__``):
      AttributeError: a name neither in ``home`` nor in ``submodules``, as for any module.

    Examples:
      >>> import contrastive_bounds.theory as theory
      >>> "get_bound" in dir(theory) and callable(theory.get_bound)
      True
    """
    table, subs, listed = dict(home), frozenset(submodules), tuple(names)

    def __getattr__(name: str) -> Any:
        if name in table:
            value = getattr(importlib.import_module(f"{package}.{table[name]}"), name)
        elif name in subs:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(listed))

    return __getattr__, __dir__
