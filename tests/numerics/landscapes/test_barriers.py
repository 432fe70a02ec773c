"""Critical heights (docs/theorems.md A3, case C13): persistence (gudhi) vs union-find vs exact critical points."""

from __future__ import annotations

import json
import math

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contrastive_bounds.numerics.landscapes._barriers import circle_barrier, sphere_barrier, torus_barrier
from contrastive_bounds.numerics.landscapes._persistence import (
    critical_height_from_pairs,
    cycle_edges,
    gudhi_persistence,
    union_find_depths,
)
from contrastive_bounds.numerics.landscapes._circle import FourierSeries, analyse_circle
from contrastive_bounds.numerics.landscapes._landscape import Landscape, fourier_landscape, load_fourier
from contrastive_bounds.numerics.landscapes._registry import get_landscape


def test_c13_double_well_exact():
    """C13: H* = 1.53125 exactly; the grid value lies within its stated bound, below the truth."""
    r = circle_barrier(get_landscape("double-well"), resolution=4096)
    assert abs(r.critical_height - 1.53125) <= r.error_bound
    assert 0.0 <= 1.53125 - r.grid_critical_height <= r.grid_error_bound
    assert r.cross_check == r.grid_critical_height
    coarse = circle_barrier(get_landscape("double-well"), resolution=64)
    assert 1e-4 < 1.53125 - coarse.grid_critical_height <= coarse.grid_error_bound
    assert abs(coarse.critical_height - 1.53125) <= coarse.error_bound  # refinement repairs the coarse grid
    saddle = [s["value"] for s in r.saddles]
    np.testing.assert_allclose(saddle, [33 / 32, 33 / 32], rtol=1e-14)
    np.testing.assert_allclose(sorted(s["theta"] for s in r.saddles), [math.acos(-1 / 8), 2 * math.pi - math.acos(-1 / 8)], rtol=1e-13)


def test_c13_triple_well():
    """C13: cos 3θ + 0.5 cos θ has H* ≈ 1.5215 (two equal non-global minima)."""
    r = circle_barrier(get_landscape("triple-well"), resolution=4096)
    assert r.critical_height == pytest.approx(1.5215, abs=5e-5)
    assert abs(r.grid_critical_height - r.critical_height) <= r.grid_error_bound
    # independent: the minimum at θ solves V'(θ) = −3 sin 3θ − 0.5 sin θ = 0, the saddle is θ = 0 side
    crit = analyse_circle(get_landscape("triple-well").fourier)
    depths = [d.depth for d in crit.depths]
    assert len(depths) == 2 and depths[0] == pytest.approx(depths[1], rel=1e-13)


@pytest.mark.parametrize("h", [1.0, 5.0, 10.0])
def test_barrier_h_family(h):
    """barrier-H's computed H* equals H within the stated error bound."""
    land = get_landscape("barrier-H", H=h)
    r = circle_barrier(land)
    assert land.critical_height == h
    assert abs(r.critical_height - h) <= r.error_bound


def _brute_force_depth(values: np.ndarray, tol: float | None = None) -> float:
    """Independent O(n²) scan: from each grid local minimum walk both ways to a strictly lower value."""
    n = values.size
    tol = 1e-12 * (1 + np.abs(values).max()) if tol is None else tol
    vmin = values.min()
    best = 0.0
    for i in range(n):
        if not (values[i] < values[i - 1] and values[i] <= values[(i + 1) % n]) or values[i] <= vmin + tol:
            continue
        barriers = []
        for step in (-1, 1):
            top, j = values[i], i
            while True:
                j = (j + step) % n
                if values[j] < values[i] - tol:
                    break
                top = max(top, values[j])
            barriers.append(top)
        best = max(best, min(barriers) - values[i])
    return best


coef = st.sampled_from([-1.0, -0.5, -0.25, 0.0, 0.3, 0.7, 1.0])


@given(a=st.lists(coef, min_size=4, max_size=4), b=st.lists(coef, min_size=4, max_size=4))
def test_persistence_equals_union_find_on_random_fourier(a, b):
    """gudhi persistence = union-find = brute-force scan on the same grid; refined H* within the grid bound."""
    if not any(a) and not any(b):
        a = [1.0, 0, 0, 0]
    s = FourierSeries.from_dicts({k + 1: v for k, v in enumerate(a)}, {k + 1: v for k, v in enumerate(b)})
    n = 1024
    th = np.linspace(0, 2 * np.pi, n, endpoint=False)
    vals = s.value(th)
    bound = s.derivative_bound(2) * (2 * np.pi / n) ** 2 / 4
    tol = 2 * bound + 1e-12 * (1 + np.abs(vals).max())  # grid-unresolvable differences are ties
    h_gudhi = critical_height_from_pairs(gudhi_persistence(vals, periodic=True), vals.min(), tie_tol=tol)
    recs = union_find_depths(vals, cycle_edges(n), tie_tol=tol)
    h_uf = max((r.depth for r in recs if math.isfinite(r.depth) and r.value > vals.min() + tol), default=0.0)
    assert h_gudhi == pytest.approx(h_uf, abs=1e-12)
    assert h_uf == pytest.approx(_brute_force_depth(vals, tol), abs=1e-12)
    crit = analyse_circle(s)
    gaps = np.diff(np.sort(crit.minima_values))
    if np.all((gaps < 1e-12) | (gaps > 4 * tol)):  # every minimum pair either tied or resolvable
        assert abs(h_gudhi - crit.critical_height) <= bound + 1e-12
    assert circle_barrier(fourier_landscape(s), resolution=n).cross_check == pytest.approx(h_gudhi, abs=1e-12)


def test_union_find_ties_are_not_depths():
    """Two equal global minima get no depth (a tie, not a barrier), while a non-global minimum gets its depth
    and saddle, in union-find and in gudhi persistence alike."""
    # cycle: two equal global minima (0 and 0) separated by 2 and 1; a non-global min 0.5 next to the 3
    vals = np.array([0.0, 2.0, 0.0, 1.0, 0.5, 3.0])
    recs = {r.vertex: r for r in union_find_depths(vals, cycle_edges(6))}
    assert math.isinf(recs[0].depth) and math.isinf(recs[2].depth)  # tie: both global, no depth
    assert recs[4].depth == pytest.approx(0.5) and recs[4].saddle_vertex == 3
    pairs = gudhi_persistence(vals, periodic=True)
    assert critical_height_from_pairs(pairs, 0.0, tie_tol=1e-12) == pytest.approx(0.5)


def test_fourier_file_matches_brute_force(tmp_path):
    """A Fourier file in JSON or TOML gives the same H*, equal to a 200 000-point brute-force scan within its
    grid bound."""
    data = {"cos": {"1": -0.3, "3": 0.8}, "sin": {"2": 0.45}}
    pj = tmp_path / "v.json"
    pj.write_text(json.dumps(data))
    pt = tmp_path / "v.toml"
    pt.write_text("[cos]\n1 = -0.3\n3 = 0.8\n[sin]\n2 = 0.45\n")
    lj, lt = load_fourier(pj), load_fourier(pt)
    rj = circle_barrier(lj, resolution=8192)
    assert circle_barrier(lt, resolution=8192).critical_height == rj.critical_height
    th = np.linspace(0, 2 * np.pi, 200_000, endpoint=False)
    brute = _brute_force_depth(lj.potential_theta(th))
    assert abs(brute - rj.critical_height) <= lj.fourier.derivative_bound(2) * (2 * np.pi / 200_000) ** 2 / 4 + 1e-12
    assert rj.critical_height > 0.1  # a real barrier, not a trivial pass


def test_fourier_file_errors(tmp_path):
    """A bad frequency, an unknown table and a missing file are refused naming the problem."""
    p = tmp_path / "bad.json"
    p.write_text('{"cos": {"x": 1}}')
    with pytest.raises(ValueError, match="frequency"):
        load_fourier(p)
    p.write_text('{"cosine": {"1": 1}}')
    with pytest.raises(ValueError, match="only the tables"):
        load_fourier(p)
    with pytest.raises(FileNotFoundError):
        load_fourier(tmp_path / "missing.json")


def test_torus_separable_double_wells():
    """(S¹)²: V(θ1) + V(θ2) for the double well; H* = 1.53125 (every non-global minimum climbs one saddle)."""
    dw = get_landscape("double-well")

    def potential(z):
        return dw.potential(z[0:1]) + dw.potential(z[1:2])

    land = Landscape(name="dw2", num_points=2, dim=2, potential_fn=potential)
    r = torus_barrier(land, resolution=96)
    assert r.cross_check == pytest.approx(r.critical_height, abs=1e-12)
    assert abs(r.critical_height - 1.53125) <= r.grid_error_bound
    assert r.critical_height <= 1.53125 + 1e-12


@pytest.mark.slow
def test_sphere_mesh_gudhi_equals_union_find():
    """On S² meshes gudhi persistence equals union-find and the vMF mixture's H* equals its closed form within
    the grid bound; a single vMF has H* = 0."""
    r = sphere_barrier(get_landscape("vmf-mixture"), num_vertices=3000)
    assert r.cross_check == pytest.approx(r.critical_height, abs=1e-12)
    # two antipodal wells (rotationally symmetric): V(z3) = −log(0.7e^{4(z3−1)} + 0.3e^{−4(z3+1)}) is highest
    # where 0.7e^{4 z3} = 0.3e^{−4 z3}, at V = 4 − log(2·sqrt(0.21)); the south pole is the other minimum
    south = -math.log(0.7 * math.exp(-8.0) + 0.3)
    exact = 4.0 - math.log(2.0 * math.sqrt(0.21)) - south
    assert abs(r.critical_height - exact) <= r.grid_error_bound
    assert sphere_barrier(get_landscape("vmf", kappa=2.0), num_vertices=500).critical_height == 0.0


def test_non_circle_rejected():
    """circle_barrier refuses a landscape that is not on S¹."""
    with pytest.raises(ValueError, match="not on S¹"):
        circle_barrier(get_landscape("vmf"))


# ------------------------------------------------------------- barrier edge cases: finite, exact, or refused
def test_landscape_barrier_validates_resolution_zero_is_no_sentinel():
    """resolution 0, negative or below the minimum is refused with its domain (None means the default), on S¹
    and on spheres."""
    from contrastive_bounds.numerics.landscapes._barriers import landscape_barrier

    land = get_landscape("double-well")
    for bad in (0, -5, 3, 15):
        with pytest.raises(ValueError, match=rf"^resolution={bad} is outside its domain: integers in \[16, 10000000\]"):
            landscape_barrier(land, resolution=bad)
    assert landscape_barrier(land).resolution == 4096  # None: the default
    assert landscape_barrier(land, resolution=64).resolution == 64
    with pytest.raises(ValueError, match=r"resolution=0 is outside its domain: integers in \[12"):
        landscape_barrier(get_landscape("vmf"), resolution=0)


def test_barrier_json_has_no_inf_global_minimum_flagged():
    """The barrier JSON holds no inf or NaN: the global minimum is flagged with depth null, the other minimum
    has depth H*."""
    r = circle_barrier(get_landscape("double-well"), resolution=512)
    d = r.to_dict()
    text = json.dumps(d, allow_nan=False)  # raises on inf/NaN
    assert "Infinity" not in text
    glob = [m for m in d["minima"] if m["global"]]
    assert len(glob) == 1 and glob[0]["depth"] is None and glob[0]["value"] == pytest.approx(-1.5, abs=1e-14)
    (other,) = [m for m in d["minima"] if not m["global"]]
    assert other["depth"] == pytest.approx(1.53125, abs=1e-13)
    assert d["warnings"] == []


def test_large_barrier_height_stays_finite_and_agrees():
    """H up to the documented 1e6: finite bounds, grid within its bound, no warning."""
    r = circle_barrier(get_landscape("barrier-H", H=1e6), resolution=4096)
    assert math.isfinite(r.grid_error_bound) and r.grid_error_bound < 2.0
    assert abs(r.grid_critical_height - 1e6) <= r.grid_error_bound and r.critical_height == 1e6
    assert r.warnings == ()


def test_grid_mismatch_beyond_bound_is_reported():
    """A 16-point grid that misses extrema: the grid H* is 0 while the exact H* ≈ 4.82 > the bound."""
    s = FourierSeries.from_dicts({1: 0.0413, 2: -2.325, 3: -0.2188, 4: -1.246, 5: -0.7323, 6: -0.5443, 7: -0.3163, 8: 0.4116})
    r = circle_barrier(fourier_landscape(s), resolution=16)
    assert abs(r.grid_critical_height - r.critical_height) > r.grid_error_bound + r.error_bound
    (note,) = r.warnings
    assert "beyond the stated bound" in note and "raise the resolution" in note
    fine = circle_barrier(fourier_landscape(s), resolution=4096)
    assert fine.warnings == () and abs(fine.grid_critical_height - fine.critical_height) <= fine.grid_error_bound


def test_high_frequency_series_is_analysed_quickly_and_exactly():
    """A frequency of 1e5 had run for minutes (a Python loop over 256·k grid cells) and 1e6 had ended in
    scipy's 'f(a) and f(b) must have different signs'. The grid is now classified with numpy and only
    sign-change cells are refined; frequencies above MAX_FREQUENCY are refused naming the frequency.
    V = cos(kθ) has exactly k minima at (2j+1)π/k and k maxima at 2jπ/k."""
    import time

    from contrastive_bounds.numerics.landscapes._circle import MAX_FREQUENCY, FourierSeries, analyse_circle

    k = 1000
    start = time.perf_counter()
    crit = analyse_circle(FourierSeries.from_dicts({k: 1.0}))
    assert time.perf_counter() - start < 60.0  # generous guard against the per-cell Python loop
    np.testing.assert_allclose(np.sort(crit.minima), (2 * np.arange(k) + 1) * np.pi / k, atol=1e-12)
    np.testing.assert_allclose(np.sort(crit.maxima), 2 * np.arange(k) * np.pi / k, atol=1e-12)
    assert MAX_FREQUENCY == 2000
    with pytest.raises(ValueError, match=r"cos frequency=2001 is outside its domain: integers in \[0, 2000\]"):
        FourierSeries.from_dicts({2001: 1.0})
    with pytest.raises(ValueError, match=r"sin frequency=1000000 is outside its domain: integers in \[1, 2000\]"):
        FourierSeries.from_dicts(sin={10**6: 1.0})
