"""A saved landscape search as a library object: read it, rebuild its landscape, re-verify it, say its status.

:func:`load_saved_search` reads the folder ``contrastive-bounds landscape --out`` (or
``landscape_network(out=...)``) wrote — through :func:`~.serial.read_state`, the one reader of
``network.json``, which reads state versions 1, 2 and 3 — and returns a :class:`SavedSearch`:

* the records: minima (labelled ``m<id>``), transition states (``ts<id>``), the landscape's fingerprint,
  the settings, the phase, the effort; :meth:`~SavedSearch.minimum` and
  :meth:`~SavedSearch.transition_state` find a record by label;
* the network: :meth:`~SavedSearch.analysis` (H*, barriers, global minima, D),
  :meth:`~SavedSearch.status` (the one status rule, :mod:`.status`), :meth:`~SavedSearch.result`
  (a :class:`~.result.NetworkResult`, as the search reported it);
* the landscape: :meth:`~SavedSearch.spec` rebuilds it from the fingerprint (:mod:`.rebuild`),
  :meth:`~SavedSearch.verify_energies` recomputes every saved energy at its saved coordinates (an edited
  file, or one of another landscape, is refused), :meth:`~SavedSearch.resume` continues the search.

Reading starts no JAX; rebuilding, verifying and resuming do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contrastive_bounds.numerics.landscapes.network.records import (
    NetworkMinimum,
    TransitionState,
    minimum_label,
    parse_label,
    ts_label,
)
from contrastive_bounds.numerics.landscapes.network.rebuild import fingerprint_differences
from contrastive_bounds.numerics.landscapes.network.serial import read_state, state_path
from contrastive_bounds.numerics.landscapes.network.status import is_known, network_status
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore

__all__ = ["SavedSearch", "load_saved_search", "SavedEnergyMismatch", "ENERGY_RTOL"]

#: a saved energy must equal the potential at its saved coordinates to this (relative to max(1, |V|))
ENERGY_RTOL = 1e-8


class SavedEnergyMismatch(ValueError):
    """A saved record's energy is not the landscape's value at its saved coordinates (see
    :meth:`SavedSearch.verify_energies`)."""


@dataclass(frozen=True)
class SavedSearch:
    """A saved landscape search (module docstring; immutable view of the store read back).

    Attributes:
      folder: the folder read; path: its state file; version: the file's state version (1, 2 or 3).
      store: the :class:`~.store.NetworkStore` read back (migrated to the current version).
    """

    folder: Path
    path: Path
    version: int
    store: NetworkStore = field(repr=False)

    # ------------------------------------------------------------------------------------ records
    @property
    def landscape(self) -> dict[str, Any]:
        """The landscape's fingerprint (``name``, ``num_points``, ``dim``, ``radius``, ``symmetry``, ``params``,
        ``probe``; ``description`` when saved)."""
        return dict(self.store.fingerprint)

    @property
    def settings(self) -> dict[str, Any]:
        """The search settings (version 1: with the values that reproduce that search)."""
        return self.store.settings.to_dict()

    @property
    def phase(self) -> str:
        """``"starts"``, ``"structured"``, ``"hops"``, ``"ts"`` or ``"done"`` (anything but ``"done"``: unfinished)."""
        return self.store.phase

    @property
    def minima(self) -> tuple[NetworkMinimum, ...]:
        """The minima, in id order (coordinates float64 ``(N, d)``, bit for bit as written)."""
        return tuple(self.store.minima)

    @property
    def transition_states(self) -> tuple[TransitionState, ...]:
        """Every transition state, verified and rejected, in id order."""
        return tuple(self.store.transition_states)

    @property
    def effort(self) -> dict[str, Any]:
        """The search effort (a fold of the saved events)."""
        return self.store.effort().to_dict()

    @property
    def closed(self) -> bool:
        """The saved search reached closure under single-ended exploration (a version-1 search never did)."""
        return bool(self.store.tally.closed)

    @property
    def finished(self) -> bool:
        """The search ran to its end (phase ``"done"``)."""
        return self.store.finished

    @property
    def labels(self) -> list[str]:
        """``["m0", "m1", ...]`` in id order."""
        return [minimum_label(m.id) for m in self.store.minima]

    def minimum(self, label: str | int) -> NetworkMinimum:
        """The minimum labelled ``label`` (``"m3"``, ``"3"`` or ``3``).

        Raises:
          ValueError: naming ``label`` and the labels the search holds.
        """
        i = parse_label(label, "minimum")
        if i is not None and 0 <= i < len(self.store.minima):
            return self.store.minima[i]
        known = ", ".join(self.labels[:20]) + (", ..." if len(self.store.minima) > 20 else "")
        raise ValueError(f"label={str(label).strip()!r} is not a minimum of the search saved in {str(self.folder)!r}; "
                         f"its minima are {known}")

    def transition_state(self, label: str | int) -> TransitionState:
        """The transition state labelled ``label`` (``"ts3"``, the ``"t3"`` of older output, ``"3"`` or ``3``).

        Raises:
          ValueError: naming ``label`` and the labels the search holds.
        """
        i = parse_label(label, "transition state")
        if i is not None and 0 <= i < len(self.store.transition_states):
            return self.store.transition_states[i]
        known = ", ".join(ts_label(t.id) for t in self.store.transition_states[:20])
        raise ValueError(f"label={str(label).strip()!r} is not a transition state of the search saved in "
                         f"{str(self.folder)!r}; its transition states are {known or 'none'}")

    def verified_transition_states(self) -> list[TransitionState]:
        """The accepted transition states (the network's edges)."""
        return self.store.verified_ts()

    # ------------------------------------------------------------------------------------ the network
    def analysis(self) -> Any:
        """H*, barriers, global minima and Catoni's D of the saved network (:func:`~.graph.analyse_network`)."""
        return _analysis(self.store)

    def status(self) -> str:
        """The network's status by the one rule of :mod:`.status` (an unfinished search says so)."""
        e = self.store.effort()
        return network_status(self.analysis(), self.store.minima, closed=e.closed,
                              closure_attempted=self.store.settings.closure,
                              stopped=e.stopped_by.get("transition_states", ""), phase=self.store.phase)

    @property
    def critical_height_known(self) -> bool:
        """H* is the closed, finished network's value (status complete or barrier-free)."""
        return self.finished and is_known(self.status())

    def result(self) -> Any:
        """The :class:`~.result.NetworkResult` of the saved network (as the search reported it)."""
        from contrastive_bounds.numerics.landscapes.network.result import network_result

        return network_result(self.store, self.landscape, radius=float(self.landscape.get("radius", 1.0)))

    def differences(self, fingerprint: dict[str, Any], *, probe: bool = True) -> list[tuple[str, Any, Any]]:
        """``(field, saved, given)`` where ``fingerprint`` differs from the saved landscape
        (:func:`~.rebuild.fingerprint_differences`); empty when they agree."""
        return fingerprint_differences(self.landscape, fingerprint, probe=probe)

    # ------------------------------------------------------------------------------------ the landscape
    def spec(self) -> Any:
        """The landscape rebuilt from the saved fingerprint (:func:`~.rebuild.spec_from_fingerprint`).

        Raises:
          ValueError: a landscape that cannot be rebuilt (a Fourier file, a user potential), or one whose
            rebuilt potential differs from the saved one (named).
        """
        from contrastive_bounds.numerics.landscapes.network.rebuild import spec_from_fingerprint

        return spec_from_fingerprint(self.landscape)

    def verify_energies(self, spec: Any, *, rtol: float = ENERGY_RTOL) -> None:
        """Check every saved minimum's and verified transition state's energy is the potential of ``spec`` at its
        saved coordinates (``|V(z) − energy| <= rtol·max(1, |energy|)``).

        Raises:
          SavedEnergyMismatch: the first record whose energy differs, named by label (the file was edited or
            belongs to another landscape).
        """
        records = [("minimum", m.label, m.energy, m.z) for m in self.store.minima]
        records += [("transition state", t.label, t.energy, t.z) for t in self.store.verified_ts()]
        for kind, label, energy, z in records:
            v = float(spec.energy(z))
            if not abs(v - energy) <= rtol * max(1.0, abs(energy)):
                raise SavedEnergyMismatch(
                    f"{kind} {label} is saved with energy {energy!r}, but the landscape at its saved coordinates is "
                    f"{v!r}: the file was edited or belongs to another landscape; run the search again")

    def resume(self, spec: Any = None, **kwargs: Any) -> Any:
        """Continue the saved search with its own settings (:func:`~.search.landscape_network` with
        ``resume=True``; ``spec`` default :meth:`spec`; ``kwargs``: ``progress``, ``draw``, ...). A finished search
        reports at once."""
        from contrastive_bounds.numerics.landscapes.network.search import landscape_network
        from contrastive_bounds.numerics.landscapes.network.state import SearchSettings

        return landscape_network(self.spec() if spec is None else spec, SearchSettings(**self.settings),
                                 out=self.folder, resume=True, curvature=self.store.curvature, **kwargs)


def _analysis(store: NetworkStore) -> Any:
    from contrastive_bounds.numerics.landscapes.network.graph import analyse_network

    return analyse_network(store.minima, store.transition_states)


def load_saved_search(folder: str | Path) -> SavedSearch:
    """Read the search saved in ``folder`` (its ``network.json``; the file's path is accepted too).

    Returns:
      :class:`SavedSearch` (minima and transition states in the order saved; coordinates float64, bit for bit).

    Raises:
      FileNotFoundError: no such folder, or no ``network.json`` in it (named ``folder``).
      ValueError: not JSON, not a search state, a version this reader does not understand (both versions
        named), a missing or malformed field (named), coordinates of the wrong shape or off the sphere, a
        transition state joining minima the search does not hold, or no minimum at all.
    """
    store, version = read_state(folder)
    given, path = Path(folder), state_path(folder)
    return SavedSearch(given if path != given else given.parent, path, version, store)
