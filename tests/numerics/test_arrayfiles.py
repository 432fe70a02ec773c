"""User-supplied .npy/.npz files: every malformed one is refused with what it is, naming the argument,
never unpickled (numpy's own message advises allow_pickle=True), and an empty file is not an EOFError
(which the command line used to report as an interrupt, exit 130)."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

from contrastive_bounds.numerics._arrayfiles import HOW_TO_SAVE, read_array, read_arrays


@pytest.fixture()
def bad(tmp_path):
    """name -> path of one malformed file each."""
    x = np.arange(24.0).reshape(6, 4)
    np.save(tmp_path / "good.npy", x)
    files = {}

    def put(name, data):
        path = tmp_path / name
        path.write_bytes(data)
        files[name] = path

    put("empty.npy", b"")
    put("text.npy", b"0.1 0.2 0.3\n0.4 0.5 0.6\n")
    put("pickle.npy", pickle.dumps([1, 2, 3]))
    put("binary.npy", bytes(range(256)))
    good = (tmp_path / "good.npy").read_bytes()
    put("truncated.npy", good[: len(good) - 40])
    put("notzip.npz", b"PK\x03\x04" + b"\x00" * 40)
    np.savez(tmp_path / "full.npz", a=x, b=x)
    whole = (tmp_path / "full.npz").read_bytes()
    put("truncated.npz", whole[: len(whole) // 2])
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    files["objects.npy"] = tmp_path / "objects.npy"
    np.savez(tmp_path / "objects.npz", a=np.array([None, 1], dtype=object))
    files["objects.npz"] = tmp_path / "objects.npz"
    np.savez(tmp_path / "nothing.npz")
    files["nothing.npz"] = tmp_path / "nothing.npz"
    (tmp_path / "folder.npy").mkdir()
    files["folder.npy"] = tmp_path / "folder.npy"
    files["missing.npy"] = tmp_path / "missing.npy"
    return files


@pytest.mark.parametrize("name, why", [
    ("empty.npy", "is empty (0 bytes), not a .npy/.npz array file"),
    ("text.npy", "is a text file, not a .npy/.npz array file (text is not parsed)"),
    ("pickle.npy", "is a Python pickle, not a .npy/.npz array file; pickles are never loaded"),
    ("binary.npy", "is not a .npy/.npz array file (it starts with the bytes b'\\x00\\x01"),
    ("truncated.npy", "is damaged or truncated: it cannot be read as a .npy/.npz file"),
    ("notzip.npz", "is damaged or truncated"),
    ("truncated.npz", "is damaged or truncated"),
    ("objects.npy", "holds Python objects, which are never unpickled"),
    ("objects.npz", "holds Python objects (array 'a'), which are never unpickled"),
    ("nothing.npz", "is a zip archive without arrays (an empty .npz)"),
    ("folder.npy", "is a folder, not a .npy/.npz file"),
    ("missing.npy", "does not exist (no such file)"),
])
def test_every_malformed_file_is_refused_with_what_it_is(bad, name, why):
    """One ValueError starting with the argument and the path, saying what is wrong; never numpy's advice
    to unpickle, never an EOFError."""
    with pytest.raises(ValueError) as err:
        read_arrays(bad[name], "labels")
    text = str(err.value)
    assert text.startswith(f"labels={str(bad[name])!r} {why}"), text
    assert "allow_pickle" not in text and "pickle.load" not in text


def test_remedy_is_the_callers():
    """A file that is no array file at all gets the caller's advice (a checkpoint: another path), else how
    to save arrays."""
    with pytest.raises(ValueError, match=re.escape(HOW_TO_SAVE) + "$"):
        read_array(__file__, "CL")
    with pytest.raises(ValueError, match="text is not parsed\\): use another path$"):
        read_array(__file__, "checkpoint", remedy="use another path")


def test_good_files_round_trip_and_npz_members_are_chosen_by_key(tmp_path):
    """Arrays come back bit-identical whatever the suffix says (the kind is read from the first bytes);
    a .npz with several arrays needs key, naming the arrays when it is missing or wrong."""
    x = np.random.default_rng(0).standard_normal((5, 3))
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "x.npy").rename(tmp_path / "x.data")
    np.testing.assert_array_equal(read_array(tmp_path / "x.data", "CL"), x)
    np.savez(tmp_path / "two.npz", a=x, b=2 * x)
    np.testing.assert_array_equal(read_array(tmp_path / "two.npz", "CL", key="b"), 2 * x)
    assert set(read_arrays(tmp_path / "two.npz", "CL")) == {"a", "b"}
    with pytest.raises(ValueError, match=r"holds 2 arrays \['a', 'b'\]: name one with key=NAME"):
        read_array(tmp_path / "two.npz", "CL")
    with pytest.raises(ValueError, match=r"has no array 'c' \(its arrays: \['a', 'b'\]\): give one of them as key=NAME"):
        read_array(tmp_path / "two.npz", "CL", key="c")
    np.testing.assert_array_equal(read_array(tmp_path / "x.data", "CL", key="ignored for .npy"), x)
