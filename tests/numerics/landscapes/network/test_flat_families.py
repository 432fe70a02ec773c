"""A flat family of minima (a curve of degenerate minima) is one node of the network, never one node per point
of it; two degenerate minima of the same energy separated by a ridge stay two nodes (catalog.flat_path)."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics.landscapes.network import catalog
from contrastive_bounds.numerics.landscapes.network.catalog import flat_path, record_minimum
from contrastive_bounds.numerics.landscapes.network.spec import user_spec
from contrastive_bounds.numerics.landscapes.network.state import SearchSettings
from contrastive_bounds.numerics.landscapes.network.store import NetworkStore
from contrastive_bounds.numerics.landscapes.network.verify import classify


def _store(spec):
    return NetworkStore(spec.fingerprint(), SearchSettings())


def _equator(z):
    """V = z_3² on S²: the equator is a circle of minima (V = 0, one zero mode), the poles are maxima."""
    return z[0, 2] ** 2


def _two_latitudes(z):
    """V = (z_3² − 1/4)² on S²: two circles of minima at z_3 = ±1/2 (V = 0), the equator a ridge of height 1/16."""
    return (z[0, 2] ** 2 - 0.25) ** 2


def _point(theta, z3):
    r = math.sqrt(1.0 - z3 ** 2)
    return np.array([[r * math.cos(theta), r * math.sin(theta), z3]])


def test_two_points_of_one_circle_of_minima_are_one_node():
    """Two points 90° apart on the equator of V = z_3²: each classifies as a degenerate minimum (one zero mode);
    the great circle between them is the equator (V = 0 exactly), so the store keeps one node with two hits
    (one NewMinimum and one MinimaHit event)."""
    spec = user_spec(_equator, 1, 3, name="equator")
    a, b = _point(0.0, 0.0), _point(math.pi / 2, 0.0)
    assert flat_path(spec, a, b, 0.0)
    cps = [classify(spec, jnp.asarray(z)) for z in (a, b)]
    assert all(cp.index == 0 and cp.zero_modes == 1 for cp in cps)
    store = _store(spec)
    (i, new_i), (j, new_j) = (record_minimum(store, spec, cp, "random start") for cp in cps)
    assert new_i and not new_j and i == j and len(store.minima) == 1 and store.minima[0].hits == 2
    assert [e.kind for e in store.events] == ["new minimum", "minima hit"]


def test_degenerate_minima_behind_a_ridge_stay_apart(monkeypatch):
    """V = (z_3² − 1/4)²: the northern and southern circles have the same energy (0) and are both degenerate, but
    the great circle between (r, 0, 1/2) and (r, 0, −1/2) crosses the equator at V = 1/16: two nodes. With the
    flat test answering "not flat", two points of one circle are two nodes too (the merge is the flat test's doing)."""
    spec = user_spec(_two_latitudes, 1, 3, name="two-latitudes")
    north, south = _point(0.0, 0.5), _point(0.0, -0.5)
    assert not flat_path(spec, north, south, 0.0)
    cps = [classify(spec, jnp.asarray(z)) for z in (north, south)]
    assert all(cp.index == 0 and cp.zero_modes == 1 and abs(cp.energy) < 1e-14 for cp in cps)
    store = _store(spec)
    assert [record_minimum(store, spec, cp, "random start")[1] for cp in cps] == [True, True] and len(store.minima) == 2
    near = classify(spec, jnp.asarray(_point(0.3, 0.5)))
    monkeypatch.setattr(catalog, "flat_path", lambda *a, **k: False)
    plain = _store(spec)
    assert [record_minimum(plain, spec, cp, "random start")[1] for cp in (cps[0], near)] == [True, True]
