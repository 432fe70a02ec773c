"""The one versioned serialiser of a search's store, and the one reader of ``network.json``.

The state file (``network.json`` in the output folder) is written atomically (temp file + fsync +
``os.replace``) after every batch, so an interrupted search loses at most the batch in flight. Version 3
(now :data:`STATE_VERSION` 6, compatibly extended as below) holds:

* ``version``, ``landscape`` (the spec's fingerprint: ``name``, ``num_points``, ``dim``, ``radius``,
  ``symmetry``, ``params``, ``probe``, ``description``), ``settings`` (every :class:`~.state.SearchSettings`
  field), ``curvature`` (the provider's name);
* ``minima`` and ``transition_states`` (records with coordinates written with ``repr``: they read back bit
  for bit), ``events`` (the log, :mod:`.events`), ``walkers``, ``pending`` (saddle candidates not yet
  refined), ``distances`` (aligned distances of minima pairs), ``seconds`` (wall time so far);
* ``phase`` and ``effort``: derived from the events, written for people and other tools, never read back.

:func:`store_from_dict` reads versions 1 and 2 too (:data:`READABLE_VERSIONS`; the searches before the
event log) by migrating them: their settings get the values that reproduce that search (version 1: the
search before structured starts and closure, :meth:`~.state.SearchSettings.previous`), their records and
saved counts become events (a :class:`~.events.Carried` event holds the counts no record shows), their
InfoNCE pairs are put in canonical order. So an old search reads, reports and resumes. Version 4 adds, compatibly,
the settings ``structured_rule``, ``trap_modes``, ``max_explored`` and ``multiplicities`` (a version-3 file gets
their defaults, the search it ran) and the ``modes``/``of`` fields of the ``followed`` events (how many Hessian
modes of how many off the symmetry were followed from each minimum; ``-1`` in a version-3 log: every mode).
Version 5 adds, compatibly, the setting ``symmetric_modes`` (an older file gets False, the plain following it ran)
and, on ``followed`` events of minima covered modulo their stabiliser, ``representatives`` and ``stabilizer``
(absent: plain following). Version 6 adds, compatibly, how the searches from each minimum ended (``ended``,
``joined``, ``stalled`` on ``followed`` events; absent in an older log: not recorded) and ``followed part`` events
(a block of a minimum's searches, so a search stopped inside them resumes after it).

:func:`read_state` is the only function that opens a state file (the search's resume and
:mod:`.saved` both call it); it names what is wrong with a file it cannot read. JAX-free.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from contrastive_bounds.numerics._filemode import ensure_writable_parent, write_atomically
from contrastive_bounds.numerics.landscapes.network.events import (
    PHASES,
    Carried,
    Followed,
    BandRun,
    ClosureReached,
    HopJoined,
    MinimaHit,
    PhaseEnded,
    RoundEnded,
    StructuredPlan,
    event_from_dict,
)
from contrastive_bounds.numerics.landscapes.network.events import Connection, NewMinimum, NewTransitionState, \
    RejectedCandidate
from contrastive_bounds.numerics.landscapes.network.tally import Tally
from contrastive_bounds.numerics.landscapes.network.records import COUNTS, Candidate, NetworkMinimum, TransitionState, \
    Walker
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

__all__ = ["STATE_FILE", "STATE_VERSION", "READABLE_VERSIONS", "FINGERPRINT_KEYS", "store_to_dict", "store_from_dict",
           "save_store", "read_state", "EmptySavedSearch", "check_resume", "prepare_folder", "canonical_fingerprint",
           "state_path"]

STATE_FILE = "network.json"
STATE_VERSION = 6
#: State-file versions :func:`read_state` reads (1 and 2 are migrated; 3 to 5 read as 6 with the new fields' defaults).
READABLE_VERSIONS = (1, 2, 3, 4, 5, 6)
#: The fingerprint fields that identify a landscape (``LandscapeSpec.fingerprint``).
FINGERPRINT_KEYS = ("name", "num_points", "dim", "radius", "symmetry", "params", "probe")
_UNIT_ATOL = 1e-9
_LEGACY_PHASES = {1: ("starts", "hops", "ts", "done"), 2: PHASES}


def prepare_folder(out: str | os.PathLike) -> Path:
    """The output folder, created and probed for writability before a long search starts. Only the folder itself is
    created: its parent must exist (as the CLI's ``--out``), so a typo in a parent is refused, not built.

    Raises:
      ValueError: naming ``out`` when it is empty or blank (it would be the working folder), an existing file, its
        parent folder is missing, or the folder cannot be created or written.
    """
    if not str(out).strip():
        raise ValueError(f"out={str(out)!r} is empty: give the folder to save the search in (e.g. out='n4-search')")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out={str(out)!r} is an existing file, not a folder")
    if not folder.exists() and not folder.parent.is_dir():
        raise ValueError(f"out={str(out)!r}: its parent folder {str(folder.parent)!r} does not exist (create it first; "
                         "only the last folder of the path is created)")
    ensure_writable_parent(folder / STATE_FILE, "out")
    return folder


def canonical_fingerprint(fingerprint: dict[str, Any]) -> dict[str, Any]:
    """The fingerprint with InfoNCE pairs in canonical order (each pair ``[i, j]`` with ``i < j``, the list
    sorted), in ``params.pairs`` and ``symmetry.pairs``: the order pairs are listed in does not change the
    landscape."""
    fp = dict(fingerprint)
    if isinstance(fp.get("params"), dict) and isinstance(fp["params"].get("pairs"), list):
        fp["params"] = {**fp["params"], "pairs": sorted(sorted(int(x) for x in p) for p in fp["params"]["pairs"])}
    if isinstance(fp.get("symmetry"), dict) and fp["symmetry"].get("pairs"):
        fp["symmetry"] = {**fp["symmetry"], "pairs": sorted(sorted(int(x) for x in p) for p in fp["symmetry"]["pairs"])}
    return fp


# ------------------------------------------------------------------------------------------ writing
def store_to_dict(store: NetworkStore, seconds: float = 0.0) -> dict[str, Any]:
    """The JSON form of ``store`` (module docstring); ``seconds``: this run's wall time so far."""
    effort = store.effort(seconds)
    return {
        "version": STATE_VERSION, "landscape": store.fingerprint, "settings": store.settings.to_dict(),
        "curvature": store.curvature, "phase": store.phase,
        "minima": [m.to_dict() for m in store.minima],
        "transition_states": [t.to_dict() for t in store.transition_states],
        "events": [e.to_dict() for e in store.events],
        "walkers": [w.to_dict() for w in store.walkers], "pending": [c.to_dict() for c in store.pending],
        "distances": sorted([i, j, d] for (i, j), d in store.distances.items()),
        "seconds": effort.seconds, "effort": effort.to_dict(),
    }


def save_store(path: str | os.PathLike, store: NetworkStore, seconds: float = 0.0) -> None:
    """Write :func:`store_to_dict` to ``path`` atomically."""
    write_atomically(path, (json.dumps(store_to_dict(store, seconds), allow_nan=False) + "\n").encode(),
                     prefix=f".{Path(path).name}.", suffix=".tmp", fsync=True)


# ------------------------------------------------------------------------------------------ reading
class EmptySavedSearch(ValueError):
    """A saved search stopped before its first batch finished: it holds no minimum, so there is nothing to
    resume (and nothing to lose by starting it again)."""


def _fail(path: Path, what: str) -> ValueError:
    return ValueError(f"{str(path)!r} is not a readable saved search: {what}")


def _coordinates(path: Path, kind: str, rec: dict[str, Any], shape: tuple[int, int]) -> np.ndarray:
    try:
        z = np.asarray(rec["z"], dtype=np.float64)
    except (KeyError, TypeError, ValueError):
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
    if ids != list(range(len(ids))):
        if not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in ids) or len(set(ids)) != len(ids):
            raise _fail(path, f"the {key} ids are not distinct integers >= 0")
        raise _fail(path, f"the {key} ids are not 0, 1, 2, ... in order")
    return recs


def _multiplicity(rec: dict[str, Any]) -> int | None:
    """A record's multiplicity: None where it was not computed (``null``, or the 0 that older files wrote for it),
    1 where the field is absent (the files before multiplicities were recorded)."""
    value = rec.get("multiplicity", 1)
    return None if value is None or int(value) == 0 else int(value)


def _minimum(path: Path, rec: dict[str, Any], shape: tuple[int, int]) -> NetworkMinimum:
    return NetworkMinimum(
        id=rec["id"], energy=_number(path, "minimum", rec, "energy"), z=_coordinates(path, "minimum", rec, shape),
        multiplicity=_multiplicity(rec), gradient_norm=float(rec.get("gradient_norm", math.nan)),
        eigenvalues=[float(x) for x in rec.get("eigenvalues", [])], orbit_dim=int(rec.get("orbit_dim", 0)),
        verified=bool(rec.get("verified", False)), note=str(rec.get("note", "")),
        found_by=str(rec.get("found_by", "random start")), hits=int(rec.get("hits", 1)),
        found_detail=str(rec.get("found_detail", "")))


def _transition_state(path: Path, rec: dict[str, Any], shape: tuple[int, int], minima: int) -> TransitionState:
    ends = rec.get("minima")
    if not isinstance(ends, list) or not all(isinstance(i, int) and 0 <= i < minima for i in ends):
        raise _fail(path, f"transition state {rec.get('id')!r} joins {ends!r}, not minima of the search")
    if not isinstance(rec.get("verified"), bool):
        raise _fail(path, f"transition state {rec.get('id')!r} has no verified flag")
    if rec["verified"] and len(ends) != 2:
        raise _fail(path, f"verified transition state {rec.get('id')!r} joins {ends!r}, not two minima")
    ev, gn = rec.get("eigenvalue"), rec.get("gradient_norm", math.nan)
    # a rejected candidate where V is not finite is written with energy null (records.TransitionState.to_dict)
    energy = math.inf if not rec["verified"] and rec.get("energy", 0) is None else \
        _number(path, "transition state", rec, "energy")
    return TransitionState(
        id=rec["id"], energy=energy,
        z=_coordinates(path, "transition state", rec, shape), multiplicity=_multiplicity(rec),
        gradient_norm=math.nan if gn is None else float(gn), eigenvalue=math.nan if ev is None else float(ev),
        index=int(rec.get("index", 1)), minima=list(ends), verified=rec["verified"], reason=str(rec.get("reason", "")),
        found_by=str(rec.get("found_by", "double-ended")), descents=list(rec.get("descents", [])),
        degenerate=bool(rec.get("degenerate", False)))


def _settings(path: Path, data: dict[str, Any], version: int) -> SearchSettings:
    saved = data.get("settings")
    if not isinstance(saved, dict):
        raise _fail(path, "'settings' is not a JSON object")
    base = SearchSettings.previous().to_dict() if version == 1 else SearchSettings().to_dict()
    unknown = sorted(set(saved) - set(base))
    if unknown:
        raise _fail(path, f"unknown search settings {unknown}")
    try:
        return SearchSettings(**{**base, **saved})
    except (TypeError, ValueError) as exc:
        raise _fail(path, f"its settings are not valid ({exc})") from None


def _legacy_events(data: dict[str, Any], version: int, minima: list[NetworkMinimum],
                   tss: list[TransitionState]) -> list[Any]:
    """The events that reproduce a version-1 or -2 state: records, progress and (as :class:`Carried`) counts."""
    effort = data.get("effort") or {}
    phase = data["phase"]
    events: list[Any] = []
    if effort.get("structured"):
        events.append(StructuredPlan(dict(effort["structured"])))
    for m in minima:
        events.append(NewMinimum(m.id, m.found_by or "random start", m.found_detail))
    again = tuple(i for m in minima for i in [m.id] * max(0, m.hits - 1))
    if again:
        events.append(MinimaHit("saved before the event log", again))
    for t in tss:
        if t.verified:
            method = t.descents[0].get("method", "quasi-newton") if t.descents else "quasi-newton"
            events += [NewTransitionState(t.id, t.found_by, t.degenerate), Connection(t.id, tuple(t.minima), method)]
        else:
            events.append(RejectedCandidate(t.id, t.found_by, t.reason))
    events += [Followed(int(i), 0) for i in data.get("explored", [])]
    events += [BandRun(tuple(int(x) for x in p)) for p in data.get("tried_pairs", [])]
    events += [HopJoined(tuple(int(x) for x in p)) for p in data.get("hop_pairs", [])]
    events += [RoundEnded(k + 1) for k in range(int(data.get("ts_rounds", 0)))]
    stopped = effort.get("stopped_by") or {}
    for ph in PHASES[:PHASES.index(phase)]:
        if ph == "ts":
            text = str(effort.get("closure", "")) or ("not attempted (a version-1 search: random starts, basin hopping "
                                                      "and the softest modes, saved before closure existed)")
            events.append(ClosureReached(bool(effort.get("closed", False)), text,
                                         int(effort.get("pairs_within_distance", 0))))
        events.append(PhaseEnded(ph, str(stopped.get({"hops": "minima", "ts": "transition_states"}.get(ph, ""), ""))))
    folded = Tally.from_events(events)
    carried = {k: int(effort[k]) - folded.counts[k] for k in COUNTS if k in effort}
    carried["rounds_without_new"] = int(effort.get("rounds_without_new", 0))
    events.append(Carried({k: v for k, v in carried.items() if v}))
    return events


def store_from_dict(data: Any, *, path: str | os.PathLike = "<state>") -> NetworkStore:
    """The store saved as ``data`` (any of :data:`READABLE_VERSIONS`; older ones migrated, module docstring).

    Raises:
      ValueError: not a state of a readable version (both versions named), a missing or malformed field
        (named), coordinates of the wrong shape or off the sphere, a transition state joining minima the
        search does not hold, an unknown event, or no minimum at all.
    """
    path = Path(path)
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
    phases = _LEGACY_PHASES.get(version, PHASES)
    if data.get("phase") not in phases:
        raise _fail(path, f"phase={data.get('phase')!r} (expected one of {list(phases)})")
    if not isinstance(data.get("effort", {}), dict):
        raise _fail(path, "'effort' is not a JSON object")
    settings = _settings(path, data, version)
    minima = [_minimum(path, r, (n, d)) for r in _records(path, data, "minima")]
    if not minima:
        raise EmptySavedSearch(f"{str(path)!r} is not a readable saved search: it holds no minimum yet (the search "
                               "was stopped before its first batch finished)")
    tss = [_transition_state(path, r, (n, d), len(minima)) for r in _records(path, data, "transition_states")]
    try:
        walkers = [Walker.from_dict(w) for w in data.get("walkers", [])]
        pending = [Candidate.from_dict(c) for c in data.get("pending", data.get("saddle_seeds", []))]
        distances = {(int(i), int(j)): float(x) for i, j, x in data.get("distances", [])}
        events = ([event_from_dict(e) for e in data.get("events", [])] if version >= 3
                  else _legacy_events(data, version, minima, tss))
    except (KeyError, TypeError, ValueError) as exc:
        raise _fail(path, f"malformed walkers, candidates, distances or events ({type(exc).__name__}: {exc})") from None
    seconds = float(data.get("seconds", (data.get("effort") or {}).get("seconds", 0.0)))
    store = NetworkStore(canonical_fingerprint(fp), settings, minima, tss, events, walkers, pending, distances, seconds,
                         str(data.get("curvature", "dense")))
    store.replay()
    if store.phase != data["phase"]:
        raise _fail(path, f"its events end in phase {store.phase!r}, its phase field says {data['phase']!r}")
    return store


def state_path(folder: str | os.PathLike) -> Path:
    """The state file of a search folder (the path of a ``network.json`` itself is accepted too)."""
    given = Path(folder)
    return given if given.name == STATE_FILE and given.is_file() else given / STATE_FILE


def read_state(folder: str | os.PathLike) -> tuple[NetworkStore, int]:
    """Read the store saved in ``folder`` (its ``network.json``; the file's path is accepted too) and its version.

    Raises:
      FileNotFoundError: no such folder, or no state file in it (naming ``folder``).
      ValueError: see :func:`store_from_dict`; not JSON.
    """
    given = Path(folder)
    path = state_path(given)
    if not given.exists():
        raise FileNotFoundError(f"folder={str(given)!r} does not exist (give the --out folder of a landscape search)")
    if not path.is_file():
        raise FileNotFoundError(f"folder={str(given)!r} holds no saved search (no {STATE_FILE}); run "
                                f"`contrastive-bounds landscape ... --out {given}` first")
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(path, f"not JSON ({type(exc).__name__}: {str(exc)[:80]})") from None
    store = store_from_dict(data, path=path)
    return store, int(data["version"])


def _shown(value: Any) -> str:
    """A setting's value as the command line spells it (``none`` for an unset optional setting)."""
    return "none" if value is None else repr(value)


def check_resume(store: NetworkStore, fingerprint: dict[str, Any], settings: SearchSettings, curvature: str) -> None:
    """Refuse to resume a store written for another landscape, other settings or another curvature provider.

    ``multiplicities`` is not compared: it decides only whether records carry a count, not which critical points the
    search finds, so a resumed search keeps its saved value (an at-scale search saved when ``at_scale()`` did not
    compute multiplicities resumes under today's defaults, and its records stay alike).

    Raises:
      ValueError: naming every differing landscape field or setting with both values.
    """
    diffs = []
    old_fp, new_fp = canonical_fingerprint(store.fingerprint), canonical_fingerprint(fingerprint)
    if old_fp.get("name") != new_fp.get("name"):  # another landscape: its parameters and symmetry differ with it
        raise ValueError(f"resume refused: the saved search differs in landscape name: saved {old_fp.get('name')!r}, "
                         f"now {new_fp.get('name')!r}")
    derived = {"symmetry"} if old_fp.get("params") != new_fp.get("params") else set()  # set by the parameters
    for key in sorted(set(old_fp) | set(new_fp)):
        old, new = old_fp.get(key), new_fp.get(key)
        if key == "description" or key in derived or old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict):  # the landscape's parameters (or symmetry): those differing
            diffs.extend(text for name in sorted(set(old) | set(new)) if old.get(name) != new.get(name)
                         and (text := f"{name}: saved {_shown(old.get(name))}, now {_shown(new.get(name))}") not in diffs)
        elif key != "probe" or len(diffs) == 0:  # the probe (V at fixed points) differs whenever a parameter does
            diffs.append(f"landscape {key}: saved {old!r}, now {new!r}")
    old_set, new_set = store.settings.to_dict(), settings.to_dict()
    for key in sorted((set(old_set) | set(new_set)) - {"multiplicities"}):
        if old_set.get(key) != new_set.get(key):
            diffs.append(f"{key}: saved {_shown(old_set.get(key))}, now {_shown(new_set.get(key))}")
    if store.curvature != curvature:
        diffs.append(f"curvature: saved {store.curvature!r}, now {curvature!r}")
    if diffs:
        raise ValueError("resume refused: the saved search differs in " + "; ".join(diffs))
