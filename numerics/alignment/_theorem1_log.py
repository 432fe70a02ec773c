"""A training log for Theorem 1 (docs/theorems.md B3, B4): its file format, safe reading and validation.

A *Theorem-1 log* is a sequence of CL and NSCL similarity matrices (or embeddings) over training
steps together with what the bound needs: the step sizes, the batch composition, tau and delta.
It is an ``.npz`` archive, or a folder of ``NAME.npy`` files, holding the arrays of :data:`LOG_ARRAYS`
(the format is documented with an example in docs/alignment-numerics.md, "Theorem 1 on your own
training log"). Files are read with ``allow_pickle=False`` only after their first bytes were
checked to be ``.npy`` or zip (``.npz``) magic, so text, pickles and garbage are refused with a
message naming the file and never unpickled; ``.npy`` files of a folder are memory-mapped.

:func:`._theorem1_log_io.read_theorem1_log` validates every array (shape, dtype, finiteness,
range, symmetry, lengths, indices) and returns a :class:`Theorem1Log`; every error is a
``ValueError`` naming the log and the array. The evaluation is :mod:`._theorem1_trajectory`.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_probability, check_real, check_seed

__all__ = ["LOG_ARRAYS", "Theorem1Log", "load_array_file", "open_log_arrays", "scalar", "merge_option", "TOLERANCE_ULPS"]

#: name -> (shape, dtype, when needed, meaning); K+1 records, T steps, m rows, n = m/2 samples, B batch size.
LOG_ARRAYS: dict[str, tuple[str, str, str, str]] = {
    "sigma_cl": ("(K+1, m, m)", "float", "this pair or the embeddings pair", "Sigma^CL at each record, entries in [-1, 1]"),
    "sigma_nscl": ("(K+1, m, m)", "float", "with sigma_cl", "Sigma^NSCL at each record"),
    "embeddings_cl": ("(K+1, m, d)", "float", "instead of sigma_cl", "CL embeddings; Sigma = cosine Gram of the rows"),
    "embeddings_nscl": ("(K+1, m, d')", "float", "with embeddings_cl", "NSCL embeddings of the same m rows"),
    "record_steps": ("(K+1,)", "integer", "optional (default 0..K)", "step of each record: 0 first, strictly increasing, T last"),
    "step_sizes": ("(T,) or ()", "float", "this, learning_rates, or --eta", "eta_t of similarity descent (a scalar: constant)"),
    "learning_rates": ("(T,) or ()", "float", "instead of step_sizes", "a network's lr_t; eta_t = response * lr_t"),
    "response": ("()", "float", "with learning_rates (or --response)", "kappa > 0, similarity units per unit learning rate"),
    "labels": ("(n,)", "integer", "with batches or seed; else or pi_max", "class of each sample (m = 2n, B3 view layout)"),
    "pi_max": ("()", "float", "optional (default from labels)", "largest class prior of the population, in (0, 1)"),
    "batches": ("(T, B)", "integer", "optional", "sample indices in [0, n) of every step's batch (enables L1)"),
    "batch_size": ("()", "integer", "without batches", "B; with seed, the toolkit's sampler regenerates the batches"),
    "seed": ("()", "integer", "optional", "seed of the toolkit's batch sampler (fold_in(key(seed), t))"),
    "replace": ("()", "bool", "optional (false)", "the sampler drew with replacement"),
    "stratified": ("()", "bool", "optional (false)", "the sampler drew stratified batches"),
    "tau": ("()", "float", "this or --tau", "temperature > 0"),
    "delta": ("()", "float", "optional (--delta, default 0.05)", "failure probability in (0, 1)"),
    "anchors": ("()", "string", "optional ('first')", "'first' or 'both' views as anchors"),
    "coupled": ("()", "bool", "optional (false)", "positive inside the denominator (NT-Xent)"),
    "symmetrize": ("()", "bool", "optional (false)", "symmetrised updates (G + G^T)/2"),
    "symmetric": ("()", "bool", "optional (true)", "Sigma must be symmetric (false: row-wise similarity descent)"),
}

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
#: Symmetry and range tolerance of stored similarities, in units of the dtype's epsilon (entries are <= 1).
TOLERANCE_ULPS = 4096


def _file_kind(path: str, who: str) -> str:
    """``"npy"`` or ``"npz"`` from the file's first bytes; ValueError naming ``who`` otherwise."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise ValueError(f"{who}: cannot be read ({exc.strerror})") from None
    if not head:
        raise ValueError(f"{who} is empty (0 bytes)")
    if head.startswith(_NPY_MAGIC):
        return "npy"
    if head[:4] in _ZIP_MAGICS:
        return "npz"
    raise ValueError(f"{who} is not a .npy or .npz file (it starts with {head[:8]!r}; text, pickles and other "
                     "formats are refused, nothing is unpickled)")


def _checked(value: Any, who: str) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise ValueError(f"{who} is not a .npy array inside the archive")
    if value.dtype.hasobject:
        raise ValueError(f"{who} holds Python objects (pickled data), which are never loaded: store numeric arrays")
    return value


def _reader(load: Callable[[], Any], who: str) -> Callable[[], np.ndarray]:
    def read() -> np.ndarray:
        try:
            return _checked(load(), who)
        except ValueError as exc:
            if "pickle" in str(exc) or "object" in str(exc).lower():
                raise ValueError(f"{who} holds Python objects (pickled data), which are never loaded: store "
                                 "numeric arrays") from None
            if str(exc).startswith(who):
                raise
            raise ValueError(f"{who} cannot be read as a .npy array ({exc})") from None
        except (OSError, EOFError, zipfile.BadZipFile, KeyError) as exc:
            raise ValueError(f"{who} cannot be read as a .npy array ({type(exc).__name__}: {exc})") from None
    return read


def open_log_arrays(log: str, who: str = "log") -> dict[str, Callable[[], np.ndarray]]:
    """The arrays of a log file or folder, as name -> reader (nothing is loaded yet).

    Args:
      log: path of an ``.npz`` archive, or of a folder of ``NAME.npy`` files (other files ignored).
      who: the argument's name in messages (``log`` in the API, ``LOG`` on the command line).

    Raises:
      ValueError: a missing path, an empty or non-.npy/.npz file (text, pickle, garbage), a
        corrupt archive, or a folder without ``.npy`` files, naming the path.
    """
    label = f"{who}={log!r}"
    if os.path.isdir(log):
        names = sorted(f[:-4] for f in os.listdir(log) if f.endswith(".npy"))
        if not names:
            raise ValueError(f"{label} is a folder without .npy files")
        out = {}
        for name in names:
            p = os.path.join(log, name + ".npy")
            _file_kind(p, f"{label}: {name}.npy")
            out[name] = _reader(lambda p=p: np.load(p, mmap_mode="r", allow_pickle=False), f"{label}: {name}")
        return out
    if not os.path.exists(log):
        raise ValueError(f"{label}: no such file or folder")
    if _file_kind(log, label) == "npy":
        raise ValueError(f"{label} is a single .npy array; a log is an .npz archive or a folder of NAME.npy files "
                         "(sigma_cl.npy, sigma_nscl.npy, ...)")
    try:
        with zipfile.ZipFile(log) as zf:
            members = zf.namelist()
            bad = zf.testzip()
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise ValueError(f"{label} is not a readable .npz archive ({exc})") from None
    if bad is not None:
        raise ValueError(f"{label}: archive member {bad!r} is corrupt")
    names = [m[:-4] for m in members if m.endswith(".npy")]
    others = [m for m in members if not m.endswith(".npy")]
    if others:
        raise ValueError(f"{label} holds {others[0]!r}, which is not a .npy array")
    if not names:
        raise ValueError(f"{label} is an archive without arrays")

    def member(name: str) -> Any:
        with np.load(log, allow_pickle=False) as data:
            return data[name]

    return {name: _reader(lambda name=name: member(name), f"{label}: {name}") for name in names}


def load_array_file(path: str, who: str, key: str | None = None) -> np.ndarray:
    """One array from a ``.npy`` file or an ``.npz`` archive (its only array, or ``key``), never unpickled.

    Raises:
      ValueError: naming ``who``: missing, empty, text/pickle/garbage, a corrupt archive, an
        archive of several arrays without ``key`` (or without that key).
    """
    label = f"{who}={path!r}"
    if not os.path.isfile(path):
        raise ValueError(f"{label}: no such file")
    if _file_kind(path, label) == "npy":
        return _reader(lambda: np.load(path, allow_pickle=False), label)()
    arrays = open_log_arrays(path, who)
    if key is None and len(arrays) != 1:
        raise ValueError(f"{label} holds {len(arrays)} arrays {sorted(arrays)}: it must hold exactly one")
    name = key if key is not None else next(iter(arrays))
    if name not in arrays:
        raise ValueError(f"{label} has no array {name!r} (arrays: {sorted(arrays)})")
    return arrays[name]()


@dataclass
class Theorem1Log:
    """A validated Theorem-1 log (see :data:`LOG_ARRAYS`; shapes with K+1 records, T steps, m rows).

    Attributes:
      source: the file or folder read (or ``"<arrays>"``).
      record_steps: int64 (K+1,), 0 first, T last, strictly increasing.
      step_sizes: float64 (T,) eta_t >= 0 (``learning_rates`` times ``response`` when given so).
      tau, delta: floats; batch_size: int B; pi_max: float in (0, 1).
      labels: int32 (n,) or None; batches: int32 (T, B) or None (``batches_source``: ``"batches"``,
        ``"sampler"`` (regenerated from ``seed``) or None: the gradients, L1 and the batch event need them).
      sigma_cl, sigma_nscl: (K+1, m, m) float arrays (possibly memory-mapped) or None;
      embeddings_cl, embeddings_nscl: (K+1, m, d) float64 with unit rows, or None.
      anchors, coupled, symmetrize, symmetric: the similarity-descent variant and the symmetry demand.
      notes: what was assumed (defaults taken) in words.
    """

    source: str
    record_steps: np.ndarray
    step_sizes: np.ndarray
    tau: float
    delta: float
    batch_size: int
    pi_max: float
    labels: np.ndarray | None
    batches: np.ndarray | None
    batches_source: str | None
    sigma_cl: np.ndarray | None
    sigma_nscl: np.ndarray | None
    embeddings_cl: np.ndarray | None
    embeddings_nscl: np.ndarray | None
    anchors: str = "first"
    coupled: bool = False
    symmetrize: bool = False
    symmetric: bool = True
    notes: tuple[str, ...] = ()

    @property
    def steps(self) -> int:
        """T, the number of steps the log covers."""
        return int(self.record_steps[-1])

    @property
    def m(self) -> int:
        """Rows of Sigma (2n in B3's view layout)."""
        return int((self.sigma_cl if self.sigma_cl is not None else self.embeddings_cl).shape[1])

    @property
    def has_batches(self) -> bool:
        """Whether the batch of every step is known (gradients, L1 and the batch event can be evaluated)."""
        return self.batches is not None


def scalar(arrays: Mapping[str, Callable[[], np.ndarray]], name: str, who: str, kind: str) -> Any:
    """A scalar array of the log as a Python value of ``kind`` (``float``, ``int``, ``bool``, ``str``), or None.

    Args:
      arrays: name -> reader of the log; name: the array; who: the log, for messages; kind: as above.

    Raises:
      ValueError: naming the log and the array when it is not 0-d (or of one element) or not of ``kind``
        (a bool is ``true``/``false`` or an integer 0/1).
    """
    if name not in arrays:
        return None
    a = np.asarray(arrays[name]())
    if a.shape not in ((), (1,)):
        raise ValueError(f"{who}: {name} must be a scalar; got shape {a.shape}")
    v = a.reshape(())
    if kind == "str":
        if a.dtype.kind != "U":
            raise ValueError(f"{who}: {name} must be a string; got dtype {a.dtype}")
        return str(v)
    if kind == "bool":
        if a.dtype.kind == "b" or (a.dtype.kind in "iu" and int(v) in (0, 1)):
            return bool(v)
        raise ValueError(f"{who}: {name} must be a bool (true/false); got {v!r} of dtype {a.dtype}")
    if kind == "int":
        if a.dtype.kind not in "iu":
            raise ValueError(f"{who}: {name} must be an integer; got dtype {a.dtype}")
        return int(v)
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{who}: {name} must be a real number; got dtype {a.dtype}")
    return float(v)


def merge_option(who: str, name: str, from_log: Any, given: Any, check: Callable[[str, Any], Any]) -> Any:
    """The value of ``name`` from the log or the caller (never two different ones), validated by ``check``.

    Returns: the validated value, or None when neither gives one.
    Raises: ValueError: both give a value and they differ (naming ``name`` and the log), or ``check``'s error.
    """
    if from_log is not None and given is not None and float(from_log) != float(given):
        raise ValueError(f"{name}={given!r} differs from the log's array {name!r} = {from_log!r} ({who}); give one of them")
    value = from_log if from_log is not None else given
    return None if value is None else check(name if from_log is None else f"the log's {name!r}", value)


def check_tau(name: str, value: Any) -> float:
    """A temperature in (0, inf); ValueError naming ``name`` otherwise."""
    return check_real(name, value, 0.0)


def check_delta(name: str, value: Any) -> float:
    """A failure probability in (0, 1); ValueError naming ``name`` otherwise."""
    return check_probability(name, value)


def check_batch_size(name: str, value: Any) -> int:
    """A batch size, an integer in [1, 2**31 - 1]; ValueError naming ``name`` otherwise."""
    return check_int(name, value, 1, 2**31 - 1)


def check_log_seed(name: str, value: Any) -> int:
    """A sampler seed in [0, 2**32 - 1] (:func:`~contrastive_bounds.theory.check_seed`)."""
    return check_seed(value, name)
