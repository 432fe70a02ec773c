"""The substitution hook: replace a function, method or bound for the duration of a ``with`` block.

A fault of the self-test (and a test that injects one) names what it replaces by a *target*
string ``"package.module:attribute"`` or ``"package.module:Object.attribute"`` and gives a
``make(original) -> replacement`` function. :func:`substituted` patches the target, runs the block
and restores everything on exit, whatever happens inside; no file is ever edited.

Scope. A module-level function is usually also bound, by ``from module import name``, in the
modules that use it. ``scope="everywhere"`` (the default, for a wrong *formula*) replaces the
original object under every module-level name of the loaded ``contrastive_bounds`` modules that
refers to it; ``scope="here"`` replaces only the named binding (for a *driver* that passes a wrong
argument to a kernel it imported: the kernel itself stays correct, so a check that replays the
driver against the kernel can see the difference). Attributes of classes and objects (a method of
``Schedule``, the ``evaluate`` of one ``Bound``) are shared by construction: the scope does not
matter for them.

Caches. Results computed before the substitution must not be reused under it, nor results
computed under it afterwards: on entry and on exit the hook empties JAX's compilation caches
(``jax.clear_caches``: jitted functions retrace and see the substituted globals) and every
``functools.lru_cache`` held at module level by a loaded ``contrastive_bounds`` module.

Limits. A function captured in a closure or a default argument before the block, or held by an
object built before it, is not replaced; the faults of :mod:`._faults` are chosen so that the code
paths they target look their callee up at call time.
"""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal

__all__ = ["Substitution", "substituted", "resolve_target", "clear_caches", "PACKAGE"]

PACKAGE = "contrastive_bounds"
_MISSING = object()


@dataclass(frozen=True)
class Substitution:
    """One replacement: ``target`` becomes ``make(original)`` while the substitution is active.

    Attributes:
      target: ``"package.module:attr"`` or ``"package.module:Object.attr"`` (dotted attribute path
        inside the module; the module is imported if needed).
      make: ``original -> replacement``; called once, on entry.
      scope: ``"everywhere"`` (module-level functions: also every ``from ... import`` alias in the
        loaded ``contrastive_bounds`` modules) or ``"here"`` (only the named binding).
    """

    target: str
    make: Callable[[Any], Any]
    scope: Literal["everywhere", "here"] = "everywhere"

    def __post_init__(self) -> None:
        if self.scope not in ("everywhere", "here"):
            raise ValueError(f"scope={self.scope!r} must be 'everywhere' or 'here'")
        module, sep, attr = self.target.partition(":")
        if not sep or not module or not attr:
            raise ValueError(f"target={self.target!r} must look like 'package.module:attribute'")


def resolve_target(target: str) -> tuple[Any, str, Any]:
    """``(owner, attribute name, current value)`` of a target string (imports the module).

    Raises:
      ValueError: a malformed target, a module that cannot be imported, or a missing attribute
        (the message names the target).
    """
    module_name, sep, path = target.partition(":")
    if not sep or not module_name or not path:
        raise ValueError(f"target={target!r} must look like 'package.module:attribute'")
    try:
        owner: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"target={target!r}: module {module_name!r} cannot be imported ({exc})") from None
    *parents, name = path.split(".")
    for part in parents:
        if not hasattr(owner, part):
            raise ValueError(f"target={target!r}: {part!r} not found")
        owner = getattr(owner, part)
    if not hasattr(owner, name):
        raise ValueError(f"target={target!r}: attribute {name!r} not found")
    return owner, name, getattr(owner, name)


def clear_caches() -> None:
    """Empty JAX's compilation caches and the module-level ``lru_cache``s of loaded package modules."""
    try:
        import jax

        jax.clear_caches()
    except ImportError:  # pragma: no cover - jax is a dependency
        pass
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == PACKAGE or mod_name.startswith(PACKAGE + ".")):
            continue
        for value in list(vars(mod).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and hasattr(value, "cache_info"):
                clear()


def _set(owner: Any, name: str, value: Any) -> None:
    try:
        setattr(owner, name, value)
    except (AttributeError, TypeError):  # frozen dataclass instances
        object.__setattr__(owner, name, value)


def _restore(owner: Any, name: str, had_own: Any) -> None:
    if had_own is _MISSING:  # the attribute came from the class: drop the instance override
        try:
            delattr(owner, name)
        except (AttributeError, TypeError):
            object.__delattr__(owner, name)
    else:
        _set(owner, name, had_own)


def _aliases(original: Any) -> list[tuple[Any, str]]:
    """Every (module, name) of the loaded package modules bound to ``original`` (by identity)."""
    out = []
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == PACKAGE or mod_name.startswith(PACKAGE + ".")):
            continue
        for attr, value in list(vars(mod).items()):
            if value is original:
                out.append((mod, attr))
    return out


@contextmanager
def substituted(*substitutions: Substitution) -> Iterator[list[str]]:
    """Apply ``substitutions`` for the duration of the block; restore on exit (also on error).

    Yields:
      the list of ``module.name`` bindings that were replaced (for reports and tests).

    Raises:
      ValueError: a target that does not resolve (nothing is patched then).
    """
    resolved = [(s, *resolve_target(s.target)) for s in substitutions]
    undo: list[tuple[Any, str, Any]] = []
    replaced: list[str] = []
    made: list[tuple[Any, Any]] = []
    clear_caches()
    try:
        for sub, owner, name, original in resolved:
            new = sub.make(original)
            made.append((new, original))
            places = [(owner, name)]
            if sub.scope == "everywhere" and isinstance(owner, type(sys)):
                places += [p for p in _aliases(original) if p != (owner, name)]
            for obj, attr in places:
                had = obj.__dict__.get(attr, _MISSING) if hasattr(obj, "__dict__") else getattr(obj, attr)
                undo.append((obj, attr, had))
                _set(obj, attr, new)
                where = obj.__name__ if isinstance(obj, type(sys)) else getattr(obj, "__qualname__", type(obj).__name__)
                replaced.append(f"{where}.{attr}")
        clear_caches()
        yield replaced
    finally:
        for obj, attr, had in reversed(undo):
            _restore(obj, attr, had)
        # a lazy package face that first read a name during the block cached the substitute: put the original back
        for new, original in made:
            for obj, attr in _aliases(new):
                _set(obj, attr, original)
        clear_caches()
