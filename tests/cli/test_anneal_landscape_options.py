"""The landscape options shared by ``landscape`` and ``anneal`` (properties/cli/landscape_options.py).

The spec built from options is compared with the spec builders called directly (fingerprints: name, N, d,
radius, symmetry, parameters and the potential's values at probe points); a saved fingerprint turns back
into the options that rebuild it; bad options name themselves as the ``landscape`` command's do."""

from __future__ import annotations

import pytest

from contrastive_bounds.numerics.landscapes.network import infonce_spec, landscape_spec, thomson_spec
from contrastive_bounds.numerics.landscapes._registry import get_landscape, resolve_landscape
from contrastive_bounds.properties.cli.landscape_options import (
    LandscapeOptions,
    landscape_spec_from_options,
    option_for_field,
    options_from_fingerprint,
    parse_pairs,
)
from contrastive_bounds.numerics.landscapes.network.rebuild import spec_from_fingerprint


def _rebuilt(fp):
    """The library's rebuild of a fingerprint, and the options the command line prints for it."""
    return spec_from_fingerprint(fp), options_from_fingerprint(fp)


def _fp(spec):
    return spec.fingerprint()


@pytest.mark.parametrize("options, direct", [
    (("infonce",), lambda: infonce_spec(8, 3, 0.5)),
    (("infonce", None, 4, 2, 0.1), lambda: infonce_spec(4, 2, 0.1)),
    (("infonce", None, 5, 2, 0.2, "0-2,1-3", True, 2.0), lambda: infonce_spec(5, 2, 0.2, [(0, 2), (1, 3)], coupled=True,
                                                                               radius=2.0)),
    (("thomson", None, 5), lambda: thomson_spec(5, 3)),
    (("double-well",), lambda: landscape_spec(get_landscape("double-well"))),
    (("barrier-H", ["H=5"], None, None, None, None, False, 1.5), lambda: landscape_spec(get_landscape("barrier-H", H=5),
                                                                                        radius=1.5)),
])
@pytest.mark.slow
def test_options_build_the_spec_the_builders_build(options, direct):
    """Defaults as the landscape command's: infonce N = 8, d = 3, tau = 0.5, default pairs; thomson N = 12 (here 5),
    d = 3; built-ins with key=value and a radius."""
    assert _fp(landscape_spec_from_options(*options)) == _fp(direct())


@pytest.mark.parametrize("options", [
    LandscapeOptions("infonce", points=4, dim=2, tau=0.1),
    LandscapeOptions("infonce", points=5, dim=3, tau=0.25, pairs="0-2,1-3", coupled=True, radius=2.0),
    LandscapeOptions("thomson", points=4, dim=3),
    LandscapeOptions("barrier-H", ("H=5.0",)),
    LandscapeOptions("double-well", radius=1.5),
])
def test_a_saved_fingerprint_turns_back_into_the_options_that_rebuild_it(options):
    """options -> spec -> fingerprint -> options: the same options (so a message can print the command of a
    saved search) and the same potential (spec_from_fingerprint checks the probe values)."""
    fp = options.spec().fingerprint()
    back = options_from_fingerprint(fp)
    assert back == options
    spec, opts = _rebuilt(fp)
    assert spec.fingerprint() == fp and opts == options


@pytest.mark.slow
def test_command_lines_non_numeric_parameters_and_what_cannot_be_rebuilt(tmp_path):
    """command_line() prints what differs from the defaults; vmf-mixture's means (not numbers) are kept, and
    infonce-toy-soft's pairs (a description, not a parameter of its builder) are left out;
    a Fourier file (saved by name only) and a user potential are refused with what to give instead; a probe
    that differs is refused."""
    assert LandscapeOptions("infonce", points=4, dim=2, tau=0.1).command_line() == "infonce --points 4 --dim 2 --tau 0.1"
    assert LandscapeOptions("barrier-H", ("H=5.0",), radius=2.0).command_line() == "barrier-H H=5.0 --radius 2"
    soft = landscape_spec(get_landscape("infonce-toy-soft"))
    spec, opts = _rebuilt(soft.fingerprint())
    assert spec.fingerprint() == soft.fingerprint() and opts.params == ("beta0=10.0",) and opts.extra == {}
    mix = landscape_spec(get_landscape("vmf-mixture"))
    spec, opts = _rebuilt(mix.fingerprint())
    assert spec.fingerprint() == mix.fingerprint() and opts.extra["kappas"] == (4.0, 4.0)
    f = tmp_path / "dw.json"
    f.write_text('{"cos": {"1": -0.5, "2": -1.0}}')
    with pytest.raises(ValueError, match="Fourier file 'dw.json'.*give the file as the LANDSCAPE"):
        options_from_fingerprint(landscape_spec(resolve_landscape(str(f))).fingerprint())
    with pytest.raises(ValueError, match="not a built-in"):
        options_from_fingerprint({"name": "user", "num_points": 1, "dim": 2, "params": {}})
    fp = {**infonce_spec(4, 2, 0.1).fingerprint(), "probe": "0000000000000000"}
    with pytest.raises(ValueError, match="not the same potential"):
        spec_from_fingerprint(fp)
    assert option_for_field("params.tau", "infonce") == "--tau" and option_for_field("num_points", "thomson") == "--points"
    assert option_for_field("params.H", "barrier-H") == "H="


@pytest.mark.parametrize("options, word", [
    (("infonce", None, 2), "--points"),
    (("infonce", None, None, 1), "--dim"),
    (("infonce", None, None, None, 0.0), "--tau"),
    (("infonce", None, 4, None, None, "0-0"), "with itself"),
    (("infonce", None, 4, None, None, "0-4"), "pairs index"),
    (("infonce", None, None, None, None, "0-a"), "--pairs"),
    (("infonce", ["a=1"]), "not key=value"),
    (("thomson", None, None, None, 0.1), "--tau"),
    (("double-well", None, 3), "--points"),
    (("infonce-toy",), "infonce-toy-soft"),
    (("no-such-landscape",), "no such built-in"),
    (("infonce", None, None, None, None, None, False, 0.0), "--radius"),
])
def test_bad_options_are_refused_naming_the_option(options, word):
    """The landscape command's bad inputs, each refused with a ValueError naming the option."""
    with pytest.raises(ValueError, match=word):
        landscape_spec_from_options(*options)
    assert parse_pairs("0-1, 2:3") == [(0, 1), (2, 3)]


@pytest.mark.parametrize("argv, words", [
    (["--points", "99999999999"], "--points=99999999999 is outside its domain: integers in [3, 1000000]"),
    (["--dim", "1"], "--dim=1 is outside its domain: integers in [2, 16384]"),
])
def test_anneal_without_a_search_refuses_bad_sizes_before_advising_a_search(argv, words):
    """anneal LANDSCAPE without --search checks the landscape's sizes first: a refused --points is named with its
    range, not repeated in the advice to run `landscape ... --out FOLDER` (a command that would itself be refused)."""
    from typer.testing import CliRunner

    from contrastive_bounds.properties.cli._app import app

    res = CliRunner().invoke(app, ["anneal", "infonce", "--schedule", "temperature", "c=1", *argv])
    assert res.exit_code == 2 and words in res.output and "--search FOLDER is needed" not in res.output, res.output
