"""Reading user-supplied ``.npy`` / ``.npz`` files safely: never unpickled, every failure named.

A file handed to the toolkit (embeddings, labels, a checkpoint) is identified by its first bytes,
not its name: the ``.npy`` magic ``\\x93NUMPY``, or a zip archive (``.npz``). Anything else is
refused with what it is (empty, text, a Python pickle, other bytes), never with numpy's advice to
load it with ``allow_pickle=True``: a pickle can run code, so object arrays are refused too.
Truncated or damaged files, folders and unreadable paths raise a ``ValueError`` naming the argument
and the reason; every member of an archive is read eagerly, so nothing fails later.
"""

from __future__ import annotations

import os
import zipfile
import zlib
from typing import Any

import numpy as np

__all__ = ["read_array", "read_arrays", "NPY_MAGIC", "HOW_TO_SAVE"]

NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip with members; an empty zip
_PICKLE_OPCODES = (b"\x80",)  # protocol >= 2 starts with PROTO
HOW_TO_SAVE = "save arrays with numpy.save (.npy) or numpy.savez (.npz)"
"""The default advice for a file that is not a .npy/.npz array file."""
#: read errors of a damaged or truncated archive or array (zip, deflate, short reads, bad headers)
_READ_ERRORS = (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile, zlib.error)


def _refuse(name: str, path: Any, why: str) -> ValueError:
    return ValueError(f"{name}={str(path)!r} {why}")


def _kind(name: str, path: Any, remedy: str) -> str:
    """``"npy"`` or ``"npz"`` from the file's first bytes; ValueError for anything else."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise _refuse(name, path, "does not exist (no such file)")
    if os.path.isdir(p):
        raise _refuse(name, path, "is a folder, not a .npy/.npz file")
    try:
        with open(p, "rb") as fh:
            head = fh.read(512)
    except OSError as exc:
        raise _refuse(name, path, f"cannot be read ({exc.strerror or exc})") from None
    if not head:
        raise _refuse(name, path, f"is empty (0 bytes), not a .npy/.npz array file: {remedy}")
    if head.startswith(NPY_MAGIC):
        return "npy"
    if head.startswith(_ZIP_MAGICS):
        return "npz"
    if head.startswith(_PICKLE_OPCODES):
        raise _refuse(name, path, "is a Python pickle, not a .npy/.npz array file; pickles are never loaded (they can "
                                  f"run code): {remedy}")
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and all(c.isprintable() or c in "\t\r\n" for c in text):
        raise _refuse(name, path, f"is a text file, not a .npy/.npz array file (text is not parsed): {remedy}")
    raise _refuse(name, path, f"is not a .npy/.npz array file (it starts with the bytes {head[:8]!r}, not the .npy "
                              f"magic {NPY_MAGIC!r} or a zip archive): {remedy}")


def _checked(name: str, path: Any, value: Any, member: str | None = None) -> np.ndarray:
    where = "" if member is None else f" (array {member!r})"
    if not isinstance(value, np.ndarray):  # an npz member that is not a .npy file comes back as bytes
        raise _refuse(name, path, f"holds a member{where} that is not a .npy array")
    if value.dtype.hasobject:
        raise _refuse(name, path, f"holds Python objects{where} (dtype {value.dtype}), which are never unpickled; "
                                  "save a numeric array")
    return value


def _read_error(name: str, path: Any, exc: BaseException, member: str | None = None) -> ValueError:
    text = str(exc)
    where = "" if member is None else f" (array {member!r})"
    if "allow_pickle" in text or "pickled" in text or "Object arrays" in text:
        return _refuse(name, path, f"holds Python objects{where}, which are never unpickled; save a numeric array")
    reason = text.splitlines()[0][:160] if text.strip() else type(exc).__name__
    return _refuse(name, path, f"is damaged or truncated{where}: it cannot be read as a .npy/.npz file ({reason})")


def _read(path: Any, name: str, remedy: str | None) -> tuple[str, dict[str, np.ndarray]]:
    kind = _kind(name, path, remedy or HOW_TO_SAVE)
    if kind == "npy":
        try:
            value = np.load(os.fspath(path), allow_pickle=False)
        except _READ_ERRORS as exc:
            raise _read_error(name, path, exc) from None
        return kind, {"arr_0": _checked(name, path, value)}
    try:
        archive = np.load(os.fspath(path), allow_pickle=False)
    except _READ_ERRORS as exc:
        raise _read_error(name, path, exc) from None
    out = {}
    with archive:
        for member in archive.files:
            try:
                value = archive[member]
            except _READ_ERRORS as exc:
                raise _read_error(name, path, exc, member) from None
            out[member] = _checked(name, path, value, member)
    if not out:
        raise _refuse(name, path, "is a zip archive without arrays (an empty .npz)")
    return kind, out


def read_arrays(path: str | os.PathLike, name: str, *, remedy: str | None = None) -> dict[str, np.ndarray]:
    """Every array of a ``.npz`` archive (read eagerly), or ``{"arr_0": a}`` for a ``.npy`` file.

    Args:
      path: the file (its kind is read from its first bytes, whatever its suffix).
      name: the argument's name, for messages (``checkpoint``, ``labels``, ``CL``).
      remedy: what the message advises for a file that is not a .npy/.npz at all (default
        :data:`HOW_TO_SAVE`; a checkpoint reader says to use another path instead).
    Returns:
      dict of member name -> numpy array (any numeric or string dtype; never an object array).
    Raises:
      ValueError: naming ``name`` and the path: no such file, a folder, unreadable, empty, a text
        file, a pickle, other bytes, damaged or truncated, an object array, an archive without arrays.
    """
    return _read(path, name, remedy)[1]


def read_array(path: str | os.PathLike, name: str, *, key: str | None = None, key_name: str = "key",
               remedy: str | None = None) -> np.ndarray:
    """One array from a ``.npy`` file, or from a ``.npz`` archive holding one array (or ``key``).

    Args:
      path, name, remedy: as :func:`read_arrays`.
      key: the member of a ``.npz`` holding several arrays (ignored for a ``.npy`` file).
      key_name: how messages call ``key`` (the argument that names the member).
    Returns:
      numpy array (never an object array).
    Raises:
      ValueError: as :func:`read_arrays`; also a ``.npz`` without ``key`` among its arrays, or one
        holding several arrays while ``key`` is None (the message lists them).
    """
    kind, arrays = _read(path, name, remedy)
    if kind == "npz" and key is not None:
        if key not in arrays:
            raise _refuse(name, path, f"has no array {key!r} (its arrays: {sorted(arrays)}): give one of them as "
                                      f"{key_name}=NAME")
        return arrays[key]
    if len(arrays) > 1:
        raise _refuse(name, path, f"holds {len(arrays)} arrays {sorted(arrays)}: name one with {key_name}=NAME")
    return next(iter(arrays.values()))
