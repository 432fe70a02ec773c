"""The registry of bounds and claims, keyed by dotted name (``alignment.frobenius``).

Modules register their objects at import time; :func:`load_all` imports every theory module so the
registry is complete (the command line calls it).
"""

from __future__ import annotations

import importlib
from typing import Union

from ._bound import Bound
from ._claim import Claim

__all__ = ["register", "get", "get_bound", "get_claim", "bounds", "claims", "load_all", "THEORY_MODULES"]

_REGISTRY: dict[str, Union[Bound, Claim]] = {}

THEORY_MODULES = ("_alignment", "_alignment_claims", "_annealing", "_kramers", "_annealing_bounds")


def register(obj: Union[Bound, Claim]) -> Union[Bound, Claim]:
    """Register a bound or claim under ``obj.name``; return it (usable as a decorator on objects).

    Raises:
      ValueError: another object already holds that name, or ``obj`` is neither Bound nor Claim.
    """
    if not isinstance(obj, (Bound, Claim)):
        raise ValueError(f"can only register Bound or Claim objects, got {type(obj).__name__}")
    old = _REGISTRY.get(obj.name)
    if old is not None and old is not obj:
        raise ValueError(f"a bound or claim named {obj.name!r} is already registered")
    _REGISTRY[obj.name] = obj
    return obj


def load_all() -> None:
    """Import every theory module listed in :data:`THEORY_MODULES` that exists."""
    for mod in THEORY_MODULES:
        try:
            importlib.import_module(f"{__package__}.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{mod}":
                raise


def get(name: str) -> Union[Bound, Claim]:
    """The bound or claim called ``name``.

    Raises:
      KeyError: unknown name (the message lists close names).
    """
    load_all()
    if name not in _REGISTRY:
        import difflib

        close = difflib.get_close_matches(name, list(_REGISTRY), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"no bound or claim named {name!r}{hint}")
    return _REGISTRY[name]


def get_bound(name: str) -> Bound:
    """The :class:`Bound` called ``name`` (KeyError if unknown or a claim).

    Examples:
      >>> from contrastive_bounds.theory import get_bound
      >>> frobenius = get_bound("alignment.frobenius")       # Paper B, Theorem 1
      >>> res = frobenius.evaluate(tau=0.5, batch_size=256, num_classes=100, delta=0.05, steps=1000, eta_sum=10)
      >>> print(f"{res.value:.10g}", res.dominant_factor(), res.vacuous)
      33.21382725 temperature False

      The corollaries' lower bounds on CKA and RSA, deterministic in the measured ``rho`` and ``r``:

      >>> print(f"{get_bound('alignment.cka_lower').evaluate(rho=0.1).value:.6f}")   # (1 - rho)/(1 + rho)
      0.818182
      >>> print(f"{get_bound('alignment.rsa_lower').evaluate(r=0.1).value:.6f}")
      0.818182
    """
    obj = get(name)
    if not isinstance(obj, Bound):
        raise KeyError(f"{name!r} is a claim, not a bound")
    return obj


def get_claim(name: str) -> Claim:
    """The :class:`Claim` called ``name`` (KeyError if unknown or a bound).

    Examples:
      >>> from contrastive_bounds.theory import get_claim
      >>> claim = get_claim("alignment.frobenius_decreasing_in_tau")
      >>> verdict = claim.run(certify=True)                 # sympy first, then python-flint interval arithmetic
      >>> print(verdict.status, claim.agrees(verdict))
      proved True
    """
    obj = get(name)
    if not isinstance(obj, Claim):
        raise KeyError(f"{name!r} is a bound, not a claim")
    return obj


def bounds() -> list[Bound]:
    """All registered bounds, sorted by name."""
    load_all()
    return [v for k, v in sorted(_REGISTRY.items()) if isinstance(v, Bound)]


def claims() -> list[Claim]:
    """All registered claims, sorted by name."""
    load_all()
    return [v for k, v in sorted(_REGISTRY.items()) if isinstance(v, Claim)]
