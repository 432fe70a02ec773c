"""Reading a saved landscape search (the folder ``contrastive-bounds landscape --out`` writes) for later runs.

:func:`load_saved_search` reads the state file ``network.json`` of a folder written by
:func:`~.search.landscape_network` (:mod:`.store`) and returns a :class:`SavedSearch`: the landscape's
fingerprint, the search settings and phase, every minimum (labelled ``m<id>`` as the ``landscape``
command prints them) with its energy and coordinates, and every transition state. Only these fields
of the state are read, so the reader keeps working when the search adds fields of its own:

* ``version`` (one of :data:`READABLE_VERSIONS`), ``landscape`` (the spec's fingerprint: ``name``,
  ``num_points``, ``dim``, ``radius``, ``symmetry``, ``params``, ``probe``), ``settings`` (a dict,
  kept as is), ``phase`` (``"starts"``, ``"structured"`` (version 2: structured starts), ``"hops"``, ``"ts"``
  or ``"done"``), ``effort`` (a dict, kept);
* per minimum: ``id``, ``energy``, ``z`` (required); ``multiplicity``, ``gradient_norm``,
  ``eigenvalues``, ``orbit_dim``, ``verified``, ``note``, ``found_by``, ``hits`` (defaults if absent);
* per transition state: ``id``, ``energy``, ``z``, ``minima``, ``verified`` (required);
  ``multiplicity``, ``gradient_norm``, ``eigenvalue``, ``index``, ``reason``, ``found_by`` (defaults).

The network's analysis (H*, barriers, global minima) is recomputed from these records by
:func:`~.graph.analyse_network`, exactly as the search reports it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from contrastive_bounds.numerics.landscapes.network.graph import NetworkAnalysis, analyse_network
from contrastive_bounds.numerics.landscapes.network.records import NetworkMinimum, TransitionState
from contrastive_bounds.numerics.landscapes.network.store import STATE_FILE

__all__ = ["SavedSearch", "load_saved_search", "minimum_label", "READABLE_VERSIONS", "FINGERPRINT_KEYS"]

#: State-file versions this reader understands (``store.STATE_VERSION`` of the searches that wrote them).
READABLE_VERSIONS = (1, 2)
#: The fingerprint fields that identify a landscape (``LandscapeSpec.fingerprint``).
FINGERPRINT_KEYS = ("name", "num_points", "dim", "radius", "symmetry", "params", "probe")
_PHASES = ("starts", "structured", "hops", "ts", "done")
_UNIT_ATOL = 1e-9


def minimum_label(minimum_id: int) -> str:
    """The label the ``landscape`` command prints for a minimum: ``m<id>``."""
    return f"m{int(minimum_id)}"


@dataclass(frozen=True)
class SavedSearch:
    """A saved landscape search, read by :func:`load_saved_search` (immutable).

    Attributes:
      folder: the folder read; path: its state file.
      version: the state file's version.
      landscape: the landscape's fingerprint (``name``, ``num_points``, ``dim``, ``radius``, ``symmetry``,
        ``params``, ``probe``; plus ``description`` when present).
      settings: the search settings (as saved). phase: ``"starts"``, ``"structured"``, ``"hops"``, ``"ts"`` or ``"done"``
        (anything but ``"done"``: an interrupted search).
      minima: :class:`~.records.NetworkMinimum` records (``z`` float64 ``(N, d)``, unit rows).
      transition_states: :class:`~.records.TransitionState` records, verified and rejected.
      effort: the search effort (as saved).
    """

    folder: Path
    path: Path
    version: int
    landscape: dict[str, Any]
    settings: dict[str, Any]
    phase: str
    minima: tuple[NetworkMinimum, ...] = field(repr=False)
    transition_states: tuple[TransitionState, ...] = field(repr=False)
    effort: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def closed(self) -> bool:
        """True when the saved search reached closure under single-ended exploration (version 2 with
        ``effort["closed"]``); a version-1 search (random starts and hops only) never did."""
        return self.version >= 2 and bool(self.effort.get("closed", False))

    @property
    def finished(self) -> bool:
        """True when the search ran to its end (phase ``"done"``)."""
        return self.phase == "done"

    @property
    def labels(self) -> list[str]:
        """``["m0", "m1", ...]`` in id order."""
        return [minimum_label(m.id) for m in self.minima]

    def minimum(self, label: str | int) -> NetworkMinimum:
        """The minimum labelled ``label`` (``"m3"``, ``"3"`` or ``3``).

        Raises:
          ValueError: naming ``label`` and the labels the search holds.
        """
        text = str(label).strip()
        digits = text[1:] if text[:1] in ("m", "M") else text
        by_id = {m.id: m for m in self.minima}
        if digits.isdigit() and int(digits) in by_id:
            return by_id[int(digits)]
        known = ", ".join(self.labels[:20]) + (", ..." if len(self.minima) > 20 else "")
        raise ValueError(f"label={text!r} is not a minimum of the search saved in {str(self.folder)!r}; "
                         f"its minima are {known}")

    def verified_transition_states(self) -> list[TransitionState]:
        """The accepted transition states (the network's edges)."""
        return [t for t in self.transition_states if t.verified]

    def analysis(self) -> NetworkAnalysis:
        """H*, barriers, global minima and Catoni's D of the saved network (:func:`~.graph.analyse_network`)."""
        return analyse_network(self.minima, self.verified_transition_states())

    def differences(self, fingerprint: dict[str, Any]) -> list[tuple[str, Any, Any]]:
        """``(field, saved, given)`` for each fingerprint field (``params`` entry by entry, as
        ``params.<key>``) where ``fingerprint`` differs from the saved landscape; empty when they agree."""
        out = []
        for key in FINGERPRINT_KEYS:
            a, b = self.landscape.get(key), fingerprint.get(key)
            if key == "params" and isinstance(a, dict) and isinstance(b, dict):
                out += [(f"params.{k}", a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            elif a != b:
                out.append((key, a, b))
        return out


def _fail(path: Path, what: str) -> ValueError:
    return ValueError(f"{str(path)!r} is not a readable saved search: {what}")


def _coordinates(path: Path, kind: str, rec: dict[str, Any], shape: tuple[int, int]) -> np.ndarray:
    try:
        z = np.asarray(rec["z"], dtype=np.float64)
    except (TypeError, ValueError):
        raise _fail(path, f"{kind} {rec.get('id')!r} has coordinates that are not numbers") from None
    if z.shape != shape:
        raise _fail(path, f"{kind} {rec.get('id')!r} has coordinates of shape {z.shape} (expected {shape})")
    if not np.all(np.isfinite(z)):
        raise _fail(path, f"{kind} {rec.get('id')!r} has non-finite coordinates (NaN or inf)")
    if not np.allclose(np.linalg.norm(z, axis=1), 1.0, atol=_UNIT_ATOL, rtol=0.0):
        raise _fail(path, f"{kind} {rec.get('id')!r} has coordinates whose rows are not unit vectors (norms "
                          f"{np.round(np.linalg.norm(z, axis=1), 6).tolist()})")
    return z


def _number(path: Path, kind: str, rec: dict[str, Any], key: str) -> float:
    value = rec.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(path, f"{kind} {rec.get('id')!r} has {key}={value!r} (expected a finite number)")
    return float(value)


def _records(path: Path, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    recs = data.get(key)
    if not isinstance(recs, list) or not all(isinstance(r, dict) for r in recs):
        raise _fail(path, f"{key!r} is missing or not a list of records")
    ids = [r.get("id") for r in recs]
    if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in ids) or len(set(ids)) != len(ids):
        raise _fail(path, f"the {key} ids are not distinct integers >= 0")
    return recs


def _minimum(path: Path, rec: dict[str, Any], shape: tuple[int, int]) -> NetworkMinimum:
    return NetworkMinimum(
        id=rec["id"], energy=_number(path, "minimum", rec, "energy"), z=_coordinates(path, "minimum", rec, shape),
        multiplicity=int(rec.get("multiplicity", 1)), gradient_norm=float(rec.get("gradient_norm", math.nan)),
        eigenvalues=[float(x) for x in rec.get("eigenvalues", [])], orbit_dim=int(rec.get("orbit_dim", 0)),
        verified=bool(rec.get("verified", False)), note=str(rec.get("note", "")),
        found_by=str(rec.get("found_by", "")), hits=int(rec.get("hits", 1)))


def _transition_state(path: Path, rec: dict[str, Any], shape: tuple[int, int], minima: set[int]) -> TransitionState:
    ends = rec.get("minima")
    if not isinstance(ends, list) or not all(isinstance(i, int) and i in minima for i in ends):
        raise _fail(path, f"transition state {rec.get('id')!r} joins {ends!r}, not minima of the search")
    if not isinstance(rec.get("verified"), bool):
        raise _fail(path, f"transition state {rec.get('id')!r} has no verified flag")
    ev = rec.get("eigenvalue")
    return TransitionState(
        id=rec["id"], energy=_number(path, "transition state", rec, "energy"),
        z=_coordinates(path, "transition state", rec, shape), multiplicity=int(rec.get("multiplicity", 1)),
        gradient_norm=float(rec.get("gradient_norm", math.nan)), eigenvalue=math.nan if ev is None else float(ev),
        index=int(rec.get("index", 1)), minima=list(ends), verified=rec["verified"], reason=str(rec.get("reason", "")),
        found_by=str(rec.get("found_by", "")))


def load_saved_search(folder: str | Path) -> SavedSearch:
    """Read the search saved in ``folder`` (its ``network.json``, see the module docstring for the fields).

    Args:
      folder: the ``--out`` folder of ``contrastive-bounds landscape`` (or the ``out`` of
        :func:`~.search.landscape_network`); the path of its ``network.json`` is accepted too.

    Returns:
      :class:`SavedSearch` (minima and transition states in the order saved; coordinates float64, bit for
      bit as written).

    Raises:
      FileNotFoundError: no such folder, or no ``network.json`` in it (named ``folder``).
      ValueError: not JSON, not a search state, a version this reader does not understand (both
        versions named), a missing or malformed field (named), coordinates of the wrong shape or off
        the sphere, a transition state joining minima the search does not hold, or no minimum at all.
    """
    given = Path(folder)
    path = given if given.name == STATE_FILE and given.is_file() else given / STATE_FILE
    if not given.exists():
        raise FileNotFoundError(f"folder={str(given)!r} does not exist (give the --out folder of a landscape search)")
    if not path.is_file():
        raise FileNotFoundError(f"folder={str(given)!r} holds no saved search (no {STATE_FILE}); run "
                                f"`contrastive-bounds landscape ... --out {given}` first")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(path, f"not JSON ({type(exc).__name__}: {str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise _fail(path, "not a JSON object")
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        raise _fail(path, f"state version {version!r}; this reader understands version(s) {list(READABLE_VERSIONS)}")
    fp = data.get("landscape")
    if not isinstance(fp, dict) or any(k not in fp for k in FINGERPRINT_KEYS):
        raise _fail(path, f"no landscape fingerprint with {list(FINGERPRINT_KEYS)}")
    n, d = fp["num_points"], fp["dim"]
    if not (isinstance(n, int) and isinstance(d, int) and n >= 1 and d >= 2):
        raise _fail(path, f"landscape num_points={n!r}, dim={d!r}")
    phase = data.get("phase")
    if phase not in _PHASES:
        raise _fail(path, f"phase={phase!r} (expected one of {list(_PHASES)})")
    settings, effort = data.get("settings"), data.get("effort", {})
    if not isinstance(settings, dict) or not isinstance(effort, dict):
        raise _fail(path, "'settings' or 'effort' is not a JSON object")
    minima = tuple(_minimum(path, r, (n, d)) for r in _records(path, data, "minima"))
    if not minima:
        raise _fail(path, "it holds no minimum yet (the search was stopped before its first batch finished)")
    ids = {m.id for m in minima}
    tss = tuple(_transition_state(path, r, (n, d), ids) for r in _records(path, data, "transition_states"))
    return SavedSearch(given if path != given else given.parent, path, int(version), dict(fp), dict(settings), phase,
                       minima, tss, dict(effort))
