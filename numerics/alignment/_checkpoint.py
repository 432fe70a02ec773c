"""Atomic ``.npz`` checkpoints of long alignment runs (temp file + ``os.replace``), tied to their run.

A checkpoint holds named arrays plus a ``fingerprint``: the run's settings as canonical JSON (nested
settings flattened to dotted keys, input arrays by their SHA-256). Loading a file whose fingerprint
differs raises instead of silently continuing another run, naming the settings that differ.
Parameter pytrees are stored leaf by leaf (:func:`flatten_tree`) and rebuilt on the structure of a
freshly initialised tree (:func:`unflatten_tree`), so nothing is pickled.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Mapping

import jax
import numpy as np

from contrastive_bounds.numerics._filemode import write_atomically
from contrastive_bounds.numerics._fingerprints import fingerprint_difference

__all__ = ["fingerprint", "save_npz_atomic", "load_npz_checked", "flatten_tree", "unflatten_tree"]


def _flatten(prefix: str, obj: Any, out: dict[str, Any]) -> None:
    if isinstance(obj, Mapping):
        for k, v in obj.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = list(obj) if isinstance(obj, tuple) else obj


def fingerprint(settings: Mapping[str, Any], *arrays: Any) -> str:
    """Canonical JSON of ``settings`` (nested mappings flattened to dotted keys, sorted) and, when
    ``arrays`` are given, a ``data_sha256`` of their bytes, dtypes and shapes."""
    flat: dict[str, Any] = {}
    _flatten("", settings, flat)
    if arrays:
        h = hashlib.sha256()
        for a in arrays:
            a = np.ascontiguousarray(np.asarray(a))
            h.update(f"{a.dtype}{a.shape}".encode())
            h.update(a.tobytes())
        flat["data_sha256"] = h.hexdigest()
    return json.dumps(flat, sort_keys=True, default=str)


def save_npz_atomic(path: str, fingerprint_value: str, arrays: Mapping[str, Any]) -> None:
    """Write ``arrays`` and ``fingerprint_value`` to ``path`` atomically (temp file in the same folder).

    The file gets the mode an ordinary ``open(path, "w")`` gives (``0o666 & ~umask``). An interrupted
    write leaves the previous checkpoint intact.
    Raises:
      OSError: when the folder is not writable.
    """
    write_atomically(path, lambda fh: np.savez(fh, fingerprint=np.array(fingerprint_value),
                                               **{k: np.asarray(v) for k, v in arrays.items()}),
                     prefix=".ckpt-", suffix=".npz")


def load_npz_checked(path: str, fingerprint_value: str, name: str = "checkpoint") -> dict[str, np.ndarray]:
    """The arrays of the checkpoint at ``path`` (read by :func:`~contrastive_bounds.numerics.read_arrays`:
    every member eagerly, nothing unpickled).

    Raises:
      ValueError: naming ``name`` when the file is not a readable checkpoint (missing, a folder, empty,
        text, a pickle, damaged or truncated, not an archive, no fingerprint) or belongs to another run
        (naming the settings that differ).
    """
    from contrastive_bounds.numerics._arrayfiles import read_arrays

    start_over = f"use another {name} path, or delete the file to start over"
    arrays = read_arrays(path, name, remedy=start_over)
    if "fingerprint" not in arrays or arrays["fingerprint"].dtype.kind not in "US":
        raise ValueError(f"{name}={path!r} is not a checkpoint of this toolkit (no fingerprint); {start_over}")
    found = str(arrays.pop("fingerprint"))
    if found != fingerprint_value:
        raise ValueError(f"{name}={path!r} belongs to a different run (its configuration differs: "
                         f"{fingerprint_difference(found, fingerprint_value)}); {start_over}")
    return arrays


def flatten_tree(prefix: str, tree: Any) -> dict[str, np.ndarray]:
    """``{prefix_i: leaf_i}`` for the leaves of a pytree, in ``jax.tree_util`` order."""
    return {f"{prefix}_{i}": np.asarray(leaf) for i, leaf in enumerate(jax.tree_util.tree_leaves(tree))}


def unflatten_tree(prefix: str, arrays: Mapping[str, np.ndarray], like: Any) -> Any:
    """Rebuild a pytree with the structure, dtypes and shapes of ``like`` from :func:`flatten_tree` output.

    Raises:
      ValueError: when a leaf is missing or has another shape.
    """
    leaves, treedef = jax.tree_util.tree_flatten(like)
    out = []
    for i, leaf in enumerate(leaves):
        key = f"{prefix}_{i}"
        if key not in arrays or arrays[key].shape != np.shape(leaf):
            raise ValueError(f"checkpoint leaf {key!r} is missing or has the wrong shape")
        out.append(jax.numpy.asarray(arrays[key], dtype=leaf.dtype))
    return jax.tree_util.tree_unflatten(treedef, out)
