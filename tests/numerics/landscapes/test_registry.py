"""Landscapes (docs/theorems.md A1, A3, A7): values, gradients, metadata, validation."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from contrastive_bounds.numerics.landscapes._string_method import sampled_minima, string_method_barrier
from contrastive_bounds.numerics.landscapes._registry import get_landscape, list_landscapes
from contrastive_bounds.numerics.landscapes._landscape import scaled


def _z(theta):
    return jnp.array([[math.cos(theta), math.sin(theta)]])


@pytest.mark.parametrize("name", ["double-well", "triple-well"])
def test_circle_potential_and_gradient(name):
    """On S¹ the potential in z equals the θ form, the gradient is V'(θ) times the unit tangent, and V''
    matches a finite difference."""
    land = get_landscape(name)
    for th in (0.3, 2.0, -2.5):
        assert float(land.potential(_z(th))) == pytest.approx(float(land.potential_theta(th)), abs=1e-14)
        g = np.asarray(land.grad(_z(th)))[0]
        tangent = np.array([-math.sin(th), math.cos(th)])
        np.testing.assert_allclose(g, float(land.dpotential_theta(th)) * tangent, atol=1e-13)
        h = 1e-5
        fd = (land.potential_theta(th + h) - 2 * land.potential_theta(th) + land.potential_theta(th - h)) / h**2
        assert float(land.d2potential_theta(th)) == pytest.approx(fd, abs=1e-5)


def test_double_well_metadata_c13():
    """C13: the double well's H* = 1.53125, V_min = -1.5, saddle value 33/32 and minima at θ = 0 and π."""
    land = get_landscape("double-well")
    assert land.critical_height == 1.53125 and land.v_min == -1.5
    assert float(land.potential_theta(math.acos(-1 / 8))) == pytest.approx(33 / 32, rel=1e-15)
    np.testing.assert_allclose(sorted(m[0, 0] for m in land.minima), [-1.0, 1.0], atol=1e-14)


def test_barrier_h_scales_exactly():
    """barrier-H has H* = H exactly and its minimum scales with H; a negative H is refused naming it."""
    land = get_landscape("barrier-H", H=10.0)
    assert land.critical_height == 10.0
    assert land.v_min == pytest.approx(-1.5 * 10 / 1.53125, rel=1e-14)
    with pytest.raises(ValueError, match="H=-1"):
        get_landscape("barrier-H", H=-1.0)


def test_float32_preserved_and_jit():
    """Potentials and gradients keep float32 under jit."""
    land = get_landscape("double-well")
    z = _z(0.4).astype(jnp.float32)
    assert jax.jit(land.potential)(z).dtype == jnp.float32
    assert jax.jit(land.grad)(z).dtype == jnp.float32


@pytest.mark.slow
def test_infonce_toy_minimum_and_range():
    """A7: U0 in [−2, 2], global minimum −2 at z0 = z1 = −z2 = −z3; soft surrogate −2 + log 2/β0."""
    toy = get_landscape("infonce-toy")
    z = jnp.asarray(toy.minima[0])
    assert float(toy.potential(z)) == -2.0
    worst = jnp.asarray([[1.0, 0, 0], [-1.0, 0, 0], [-1.0, 0, 0], [1.0, 0, 0]])  # positives opposite, negatives equal
    assert float(toy.potential(worst)) == 2.0
    soft = get_landscape("infonce-toy-soft", beta0=5.0)
    assert float(soft.potential(z)) == pytest.approx(-2.0 + math.log(2) / 5.0, rel=1e-14) == soft.v_min
    key = jax.random.PRNGKey(0)
    zr = jax.random.normal(key, (64, 4, 3))
    zr = zr / jnp.linalg.norm(zr, axis=-1, keepdims=True)
    u0 = jax.vmap(toy.potential)(zr)
    us = jax.vmap(soft.potential)(zr)
    assert bool(jnp.all(us >= u0 - 1e-12)) and bool(jnp.all(us <= u0 + math.log(2) / 5.0 + 1e-12))
    assert not bool(jnp.any(jnp.isnan(jax.vmap(soft.grad)(zr))))


def test_infonce_finite_tau_limits_and_coupled():
    """τ·(decoupled InfoNCE at τ) equals the soft surrogate at β0 = 1/τ; coupled ≥ decoupled."""
    key = jax.random.PRNGKey(1)
    z = jax.random.normal(key, (4, 3))
    z = z / jnp.linalg.norm(z, axis=-1, keepdims=True)
    dec = get_landscape("infonce", tau=0.2)
    cou = get_landscape("infonce", tau=0.2, coupled=True)
    soft = get_landscape("infonce-toy-soft", beta0=5.0)
    assert 0.2 * float(dec.potential(z)) == pytest.approx(float(soft.potential(z)), rel=1e-12)
    assert float(cou.potential(z)) > float(dec.potential(z))
    with pytest.raises(ValueError, match="num_points"):
        get_landscape("infonce", num_points=2, pairs=((0, 1),))


def test_vmf_and_scaled():
    """vMF's potential is -kappa·z3, and scaled(landscape, c) multiplies the potential and H* by c."""
    v = get_landscape("vmf", kappa=2.0)
    assert float(v.potential(jnp.array([[0.0, 0.6, 0.8]]))) == pytest.approx(-1.6)
    s = scaled(get_landscape("double-well"), 3.0)
    assert s.critical_height == pytest.approx(3 * 1.53125) and float(s.potential(_z(1.0))) == pytest.approx(3 * float(get_landscape("double-well").potential(_z(1.0))))


def test_errors():
    """Unknown landscapes, parameters a landscape does not take, wrong shapes and θ forms of non-S¹ landscapes
    are refused naming the problem."""
    with pytest.raises(ValueError, match="landscape='nope'"):
        get_landscape("nope")
    with pytest.raises(ValueError, match="is not accepted: landscape 'double-well' takes no parameters"):
        get_landscape("double-well", H=3)
    with pytest.raises(ValueError, match="shape"):
        get_landscape("double-well").potential(jnp.zeros((2, 2)))
    with pytest.raises(ValueError, match="not an S¹"):
        get_landscape("vmf").potential_theta(0.0)
    assert "barrier-H" in list_landscapes() and "infonce-toy" in list_landscapes()


@pytest.mark.slow
def test_high_dimensional_estimates_on_double_well():
    """Random starts find both wells; the string method between them recovers the barrier from π."""
    land = get_landscape("double-well")
    z, v = sampled_minima(land, jax.random.PRNGKey(0), starts=32, steps=400, step_size=0.05)
    assert set(np.round(v, 6)) == {-1.5, -0.5}
    barrier, energies = string_method_barrier(land, _z(math.pi - 1e-3), _z(1e-3), images=41, iterations=300)
    assert barrier == pytest.approx(1.53125, abs=5e-3) and energies.shape == (41,)


def test_minima_lowest_first():
    """The first listed minimum is a global one (its value is V_min)."""
    for name in ("double-well", "triple-well"):
        land = get_landscape(name)
        first = land.minima[0][0]
        assert float(land.potential_theta(math.atan2(first[1], first[0]))) == pytest.approx(land.v_min, abs=1e-14)


# ------------------------------------------------------------- bad landscapes: errors name the argument
def test_resolve_landscape_folder_and_missing_file_name_the_argument(tmp_path):
    """A folder or a missing path as LANDSCAPE: ValueError naming it and listing the built-ins."""
    from contrastive_bounds.numerics.landscapes._registry import resolve_landscape

    with pytest.raises(ValueError, match=r"landscape='.*' is a folder.*built-in landscapes: barrier-H, double-well"):
        resolve_landscape(str(tmp_path))
    with pytest.raises(ValueError, match=r"landscape='nothere.json': no such built-in landscape or file; built-in"):
        resolve_landscape("nothere.json")
    p = tmp_path / "dw.json"
    p.write_text('{"cos": {"1": -0.5, "2": -1.0}}')
    assert resolve_landscape(str(p)).critical_height == pytest.approx(1.53125, abs=1e-13)
    with pytest.raises(ValueError, match=r"not accepted for a Fourier file"):
        resolve_landscape(str(p), H=2)


@pytest.mark.parametrize(
    "text,message",
    [
        ('{"cos": {"1": "abc"}}', r"fourier file '.*x\.json': cos\[1\]='abc' is not a number"),
        ('{"cos": {"1": true}}', r"cos\[1\]=True is not a number"),
        ('{"sin": [1, 2]}', r"fourier file '.*x\.json': sin must be a table \{k: coefficient\}.*got list"),
        ('{"cos": {"1": 1e308}}', r"cos\[1\]=1e\+308 is outside its domain \[-1e\+06, 1e\+06\]"),
        ('{"cos": {"-1": 1}}', r"cos frequency"),
        ("[1, 2]", r"only the tables 'cos' and 'sin'"),
    ],
)
def test_malformed_fourier_file_names_file_key_and_range(tmp_path, text, message):
    """A malformed Fourier file (non-number, bool, list, out-of-range coefficient, negative frequency, not a
    table) is a ValueError naming the file, the key and the allowed range."""
    from contrastive_bounds.numerics.landscapes._landscape import load_fourier

    p = tmp_path / "x.json"
    p.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_fourier(p)


def test_read_fourier_file_missing_or_folder_named(tmp_path):
    """A missing Fourier file or a folder is named in the error."""
    from contrastive_bounds.numerics.landscapes._circle import read_fourier_file

    with pytest.raises(FileNotFoundError, match=r"fourier file '.*nothere.json': no such file"):
        read_fourier_file(tmp_path / "nothere.json")
    with pytest.raises(ValueError, match=r"is a folder, not a file"):
        read_fourier_file(tmp_path)


def test_wrong_landscape_parameter_lists_what_it_takes():
    """No internal function name leaks; the message lists the parameters (or none) with ranges."""
    with pytest.raises(ValueError, match=r"^parameter H=-1 is not accepted: landscape 'double-well' takes no parameters$"):
        get_landscape("double-well", H=-1)
    with pytest.raises(ValueError, match=r"parameter foo=1 is not accepted: landscape 'barrier-H' takes H in \(0, 1e\+06\]") as err:
        get_landscape("barrier-H", foo=1)
    assert "_barrier_h" not in str(err.value)
    with pytest.raises(ValueError, match=r"takes kappa > 0, default 1.0; dim integer >= 2, default 3"):
        get_landscape("vmf", H=3)
    with pytest.raises(ValueError, match=r"^H=-1 is outside its domain \(0, 1e\+06\]$"):
        get_landscape("barrier-H", H=-1)
    with pytest.raises(ValueError, match=r"H=1e\+308 is outside its domain"):
        get_landscape("barrier-H", H=1e308)
    assert get_landscape("barrier-H", H=1e6).critical_height == 1e6  # the top of the range works


def test_landscape_parameters_match_the_builders():
    """landscape_parameters lists what each builder takes and refuses an unknown landscape naming it."""
    from contrastive_bounds.numerics.landscapes._registry import landscape_parameters

    assert landscape_parameters("double-well") == {}
    assert set(landscape_parameters("infonce")) == {"tau", "num_points", "dim", "pairs", "coupled"}
    with pytest.raises(ValueError, match="landscape='nope' is unknown"):
        landscape_parameters("nope")
