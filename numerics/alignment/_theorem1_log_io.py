"""Validation of a Theorem-1 log's arrays, and logs written by the toolkit's own similarity descent.

:func:`validate_log_arrays` turns the arrays of a log (format: :data:`._theorem1_log.LOG_ARRAYS`)
into a :class:`._theorem1_log.Theorem1Log`, refusing every malformed input with a ``ValueError``
that names the log and the array. :func:`theorem1_log_arrays` makes the arrays of a log from a
:class:`._descent_result.DescentResult` run with ``trajectory_every``, and
:func:`write_theorem1_log` validates and writes any log atomically (``.npz``).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from contrastive_bounds.theory._domains import check_int, check_real

from contrastive_bounds.numerics.alignment._theorem1_log import (
    LOG_ARRAYS, TOLERANCE_ULPS, Theorem1Log, check_batch_size, check_delta, check_log_seed, check_tau, merge_option,
    open_log_arrays, scalar)

__all__ = ["read_theorem1_log", "validate_log_arrays", "theorem1_log_arrays", "write_theorem1_log"]

_CHUNK_VALUES = 2**24  # values per chunk of a record-wise scan over a (possibly memory-mapped) array


def _record_chunks(k1: int, per_record: int) -> range:
    return range(0, k1, max(1, _CHUNK_VALUES // max(per_record, 1)))


def _first_bad(mask: np.ndarray, offset: int) -> str:
    idx = np.argwhere(mask)[0]
    return f"record {int(idx[0]) + offset}, index {tuple(int(i) for i in idx[1:])}"


def _float_array(a: np.ndarray, name: str, who: str, ndim: int, shape_text: str) -> np.ndarray:
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise ValueError(f"{who}: {name} has dtype {a.dtype}; float32 or float64 is needed")
    if a.ndim != ndim:
        raise ValueError(f"{who}: {name} has shape {a.shape}; expected {shape_text}")
    return a


def _similarities(a: np.ndarray, name: str, who: str, symmetric: bool) -> np.ndarray:
    a = _float_array(a, name, who, 3, "(K+1, m, m): one m x m similarity matrix per record")
    k1, m, m2 = a.shape
    if m != m2 or m < 2:
        raise ValueError(f"{who}: {name} has shape {a.shape}; each record must be a square m x m matrix, m >= 2")
    tol = TOLERANCE_ULPS * float(np.finfo(a.dtype).eps)
    step = _record_chunks(k1, m * m).step
    for k in range(0, k1, step):
        x = np.asarray(a[k:k + step])
        bad = ~np.isfinite(x)
        if np.any(bad):
            raise ValueError(f"{who}: {name} has NaN or inf at {_first_bad(bad, k)}")
        out = np.abs(x) > 1.0 + tol
        if np.any(out):
            raise ValueError(f"{who}: {name} has entries outside [-1, 1] (first at {_first_bad(out, k)}: "
                             f"{float(x[tuple(np.argwhere(out)[0])]):.6g}); similarities are cosines")
        if symmetric:
            asym = np.abs(x - np.swapaxes(x, 1, 2)) > tol
            if np.any(asym):
                raise ValueError(f"{who}: {name} is not symmetric (first at {_first_bad(asym, k)}, beyond "
                                 f"{tol:.2g}); a row-wise similarity-descent log sets symmetric=false")
    return a


def _embeddings(a: np.ndarray, name: str, who: str) -> np.ndarray:
    a = _float_array(a, name, who, 3, "(K+1, m, d): the m embedding rows at each record")
    if a.shape[1] < 2 or a.shape[2] < 1:
        raise ValueError(f"{who}: {name} has shape {a.shape}; m >= 2 rows and d >= 1 features are needed")
    x = np.array(a, dtype=np.float64)
    bad = ~np.isfinite(x)
    if np.any(bad):
        raise ValueError(f"{who}: {name} has NaN or inf at {_first_bad(bad, 0)}")
    top = np.max(np.abs(x), axis=2, keepdims=True)
    zero = top[..., 0] == 0
    if np.any(zero):
        k, i = (int(v) for v in np.argwhere(zero)[0])
        raise ValueError(f"{who}: {name} has a zero row (record {k}, row {i}): its cosine similarities are undefined")
    x /= top  # a rescaling that keeps the norm from overflowing
    x /= np.linalg.norm(x, axis=2, keepdims=True)
    return x


def _int_vector(arrays, name: str, who: str, length_text: str) -> np.ndarray:
    a = np.asarray(arrays[name]())
    if a.ndim == 2 and 1 in a.shape and name == "labels":
        a = a.reshape(-1)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise ValueError(f"{who}: {name} must be a 1-D integer array {length_text}; got {a.dtype} {a.shape}")
    return a.astype(np.int64)


def _sequence(arrays, name: str, who: str, steps: int) -> np.ndarray:
    a = np.asarray(arrays[name]())
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{who}: {name} must be real numbers; got dtype {a.dtype}")
    if a.ndim == 0 or a.shape == (1,) and steps != 1:
        a = np.full(steps, float(a.reshape(())))
    if a.shape != (steps,):
        raise ValueError(f"{who}: {name} has {a.shape} values; the records cover T={steps} steps, so it needs "
                         f"({steps},) (one per step) or a scalar")
    a = a.astype(np.float64)
    bad = ~np.isfinite(a) | (a < 0)
    if np.any(bad):
        i = int(np.argmax(bad))
        raise ValueError(f"{who}: {name}[{i}]={float(a[i])!r} must be finite and >= 0")
    return a


def _step_sizes(arrays, who: str, steps: int, step_size, response) -> tuple[np.ndarray, list[str]]:
    notes = []
    if "step_sizes" in arrays and "learning_rates" in arrays:
        raise ValueError(f"{who} holds both step_sizes and learning_rates: give one")
    if response is not None and "learning_rates" not in arrays:
        raise ValueError(f"response={response!r} applies to learning_rates, which {who} does not hold")
    if "step_sizes" in arrays:
        if step_size is not None:
            raise ValueError(f"step_size={step_size!r} is given but {who} holds step_sizes: give one of them")
        return _sequence(arrays, "step_sizes", who, steps), notes
    if "learning_rates" in arrays:
        lr = _sequence(arrays, "learning_rates", who, steps)
        kappa = merge_option(who, "response", scalar(arrays, "response", who, "float"), response,
                             lambda n, v: check_real(n, v, 0.0))
        if kappa is None:
            raise ValueError(f"{who} holds learning_rates but no response (kappa: eta_t = kappa * lr_t); "
                             "give response")
        with np.errstate(over="ignore"):
            etas = kappa * lr
        if not np.all(np.isfinite(etas)):
            raise ValueError(f"{who}: response * learning_rates overflows float64")
        notes.append(f"eta_t = response * learning_rate_t with response = {kappa:g} (isotropic first-order "
                     "response assumed: docs/alignment-theory.md)")
        return etas, notes
    if step_size is None:
        raise ValueError(f"{who} holds no step_sizes: add them, or learning_rates with a response, or give a "
                         "constant step_size")
    eta = check_real("step_size", step_size, 0.0, lo_closed=True)
    notes.append(f"constant step size eta = {eta:g} (the log holds no step sizes)")
    return np.full(steps, eta), notes


def _sampled_batches(labels: np.ndarray, steps: int, batch_size: int, seed: int, replace: bool, stratified: bool,
                     who: str) -> np.ndarray:
    """The toolkit sampler's batches of steps 0..T-1 (``fold_in(key(seed), t)``, as the driver draws them)."""
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.alignment._descent_run import chunk_batches

    n = labels.size
    counts = np.bincount(labels)
    if not replace and batch_size > n:
        raise ValueError(f"{who}: batch_size={batch_size} exceeds the n={n} samples (sampling without replacement)")
    if replace and stratified:
        raise ValueError(f"{who}: stratified batches are drawn without replacement; replace and stratified conflict")
    if stratified and (np.any(counts == 0) or np.any(counts < -(-batch_size // counts.size))):
        raise ValueError(f"{who}: stratified batches of batch_size={batch_size} need labels 0..C-1 with at least "
                         f"{-(-batch_size // counts.size)} samples in every class")
    out = chunk_batches(jax.random.key(seed), jnp.asarray(labels, jnp.int32), 0, count=steps, batch_size=batch_size,
                        replace=replace, stratified=stratified, num_classes=int(counts.size))
    return np.asarray(out, dtype=np.int32)


def read_theorem1_log(log: str | Mapping[str, Any], *, tau: float | None = None, delta: float | None = None,
                      step_size: float | None = None, response: float | None = None) -> Theorem1Log:
    """Read and validate a Theorem-1 log (format: :data:`LOG_ARRAYS`, docs/alignment-numerics.md).

    Args:
      log: an ``.npz`` path, a folder of ``NAME.npy`` files, or a mapping name -> array.
      tau, delta: used when the log does not hold them (``delta`` defaults to 0.05); a value that
        differs from the log's is refused.
      step_size: a constant eta_t when the log holds neither ``step_sizes`` nor ``learning_rates``.
      response: kappa for ``learning_rates`` when the log does not hold ``response``.

    Returns:
      :class:`Theorem1Log`.

    Raises:
      ValueError: naming ``log`` and the array (or the argument) for every malformed input: an
        unreadable, empty, text or pickled file; an unknown or missing array; a wrong shape or
        dtype; NaN or inf; similarities outside [-1, 1] or not symmetric (beyond
        ``TOLERANCE_ULPS`` ulps of the dtype; ``symmetric=False`` lifts the symmetry demand); a zero
        embedding row; mismatched lengths of records, step sizes and batches; batch indices outside
        [0, n); conflicting ``tau``/``delta``/``batch_size``.

    Source: the quantities of docs/theorems.md B3-B4 (Paper B, arXiv 2510.08852, Theorem 1).
    """
    if isinstance(log, Mapping):
        readers = {k: (lambda v=v: np.asarray(v)) for k, v in log.items()}
        source = "<arrays>"
    else:
        readers = open_log_arrays(str(log))
        source = str(log)
    return validate_log_arrays(readers, source, tau=tau, delta=delta, step_size=step_size, response=response)


def validate_log_arrays(arrays: Mapping[str, Callable[[], np.ndarray]], source: str, *, tau: Any = None,
                        delta: Any = None, step_size: Any = None, response: Any = None) -> Theorem1Log:
    """Validate the arrays of a log (name -> reader) into a :class:`._theorem1_log.Theorem1Log`.

    Same arguments and errors as :func:`read_theorem1_log` (which calls this).
    """
    who = f"log={source!r}"
    unknown = sorted(set(arrays) - set(LOG_ARRAYS))
    if unknown:
        raise ValueError(f"{who}: unknown array {unknown[0]!r} (known names: {', '.join(LOG_ARRAYS)})")
    pairs = [p for p in ("sigma", "embeddings") if f"{p}_cl" in arrays or f"{p}_nscl" in arrays]
    if len(pairs) != 1:
        raise ValueError(f"{who} must hold sigma_cl and sigma_nscl, or embeddings_cl and embeddings_nscl "
                         f"({'both kinds' if pairs else 'neither'} found)")
    kind = pairs[0]
    for side, other in (("cl", "nscl"), ("nscl", "cl")):
        if f"{kind}_{side}" not in arrays:
            raise ValueError(f"{who} holds {kind}_{other} but not {kind}_{side}")
    symmetric = scalar(arrays, "symmetric", who, "bool")
    sig = emb = (None, None)
    if kind == "sigma":
        sym = True if symmetric is None else symmetric
        sig = tuple(_similarities(arrays[f"sigma_{s}"](), f"sigma_{s}", who, sym) for s in ("cl", "nscl"))
        if sig[0].shape != sig[1].shape:
            raise ValueError(f"{who}: sigma_cl has shape {sig[0].shape} but sigma_nscl {sig[1].shape}; they must match")
        k1, m = sig[0].shape[:2]
    else:
        if symmetric is not None:
            raise ValueError(f"{who}: symmetric applies to sigma_cl/sigma_nscl; cosine Grams of embeddings are symmetric")
        emb = tuple(_embeddings(arrays[f"embeddings_{s}"](), f"embeddings_{s}", who) for s in ("cl", "nscl"))
        if emb[0].shape[:2] != emb[1].shape[:2]:
            raise ValueError(f"{who}: embeddings_cl has {emb[0].shape[:2]} (records, rows) but embeddings_nscl "
                             f"{emb[1].shape[:2]}; they must match")
        k1, m = emb[0].shape[:2]
    if k1 < 2:
        raise ValueError(f"{who}: {kind}_cl holds {k1} record(s); at least 2 (before and after one step) are needed")

    if "record_steps" in arrays:
        rs = _int_vector(arrays, "record_steps", who, f"of length K+1 = {k1}")
        if rs.shape != (k1,):
            raise ValueError(f"{who}: record_steps has {rs.size} entries but {kind}_cl has {k1} records")
        if rs[0] != 0 or np.any(np.diff(rs) <= 0):
            raise ValueError(f"{who}: record_steps must start at 0 and increase strictly; got {rs[:6].tolist()} ...")
        if rs[-1] > 2**31 - 1:
            raise ValueError(f"{who}: record_steps ends at {int(rs[-1])}, beyond 2**31 - 1 steps")
    else:
        rs = np.arange(k1, dtype=np.int64)
    steps = int(rs[-1])
    etas, notes = _step_sizes(arrays, who, steps, step_size, response)

    labels = None
    if "labels" in arrays:
        labels = _int_vector(arrays, "labels", who, "(n,)")
        if labels.size < 2 or labels.min() < 0:
            raise ValueError(f"{who}: labels must hold n >= 2 classes >= 0; got {labels.size} entries, "
                             f"smallest {int(labels.min()) if labels.size else 'none'}")
        labels = labels.astype(np.int32)
    pi_max = scalar(arrays, "pi_max", who, "float")
    if pi_max is not None:
        pi_max = check_real("pi_max", pi_max, 0.0, 1.0)
    elif labels is not None:
        pi_max = float(np.bincount(labels).max() / labels.size)
        notes.append(f"pi_max = {pi_max:.6g}, the largest class share of labels")
    else:
        raise ValueError(f"{who} needs labels or pi_max (the largest class prior of Delta)")

    batch_size = scalar(arrays, "batch_size", who, "int")
    seed = scalar(arrays, "seed", who, "int")
    replace = bool(scalar(arrays, "replace", who, "bool") or False)
    stratified = bool(scalar(arrays, "stratified", who, "bool") or False)
    batches, source_b = None, None
    needs_layout = "batches" in arrays or seed is not None
    if needs_layout:
        if labels is None:
            raise ValueError(f"{who}: batches (or a sampler seed) need labels")
        if m != 2 * labels.size:
            raise ValueError(f"{who}: {kind}_cl has m={m} rows but labels n={labels.size} samples; gradients need "
                             "the view layout m = 2n (row i and row n + i: the two views of sample i)")
    if "batches" in arrays:
        if seed is not None:
            raise ValueError(f"{who} holds batches and a sampler seed: give one (the seed regenerates the batches)")
        b = np.asarray(arrays["batches"]())
        if b.ndim != 2 or b.dtype.kind not in "iu" or b.shape[0] != steps or b.shape[1] < 1:
            raise ValueError(f"{who}: batches must be an integer array (T, B) = ({steps}, B), one row per step; "
                             f"got {b.dtype} {b.shape}")
        if b.min() < 0 or b.max() >= labels.size:
            raise ValueError(f"{who}: batches hold sample index {int(b.min() if b.min() < 0 else b.max())} outside "
                             f"[0, n) = [0, {labels.size})")
        if batch_size is not None and batch_size != b.shape[1]:
            raise ValueError(f"{who}: batch_size={batch_size} but batches have B={b.shape[1]} columns")
        batches, source_b, batch_size = b.astype(np.int32), "batches", int(b.shape[1])
    elif batch_size is None:
        raise ValueError(f"{who} needs batches (T, B) or batch_size (B of the bound)")
    batch_size = check_batch_size("batch_size", batch_size)
    if seed is not None:
        seed = check_log_seed("seed", seed)
        batches = _sampled_batches(labels, steps, check_int("batch_size", batch_size, 2), seed, replace, stratified, who)
        source_b = "sampler"
        notes.append(f"batches regenerated by the toolkit's sampler from seed {seed}")
    elif replace or stratified:
        raise ValueError(f"{who}: replace/stratified describe the toolkit's sampler and need its seed")

    tau_v = merge_option(who, "tau", scalar(arrays, "tau", who, "float"), tau, check_tau)
    if tau_v is None:
        raise ValueError(f"{who} holds no tau: give the temperature, tau=VALUE")
    delta_v = merge_option(who, "delta", scalar(arrays, "delta", who, "float"), delta, check_delta)
    if delta_v is None:
        delta_v = 0.05
        notes.append("delta = 0.05 (the default; the log holds none)")
    anchors = scalar(arrays, "anchors", who, "str") or "first"
    if anchors not in ("first", "both"):
        raise ValueError(f"{who}: anchors={anchors!r} must be 'first' or 'both'")
    return Theorem1Log(
        source=source, record_steps=rs, step_sizes=etas, tau=tau_v, delta=delta_v, batch_size=batch_size,
        pi_max=pi_max, labels=labels, batches=batches, batches_source=source_b, sigma_cl=sig[0], sigma_nscl=sig[1],
        embeddings_cl=emb[0], embeddings_nscl=emb[1], anchors=anchors,
        coupled=bool(scalar(arrays, "coupled", who, "bool") or False),
        symmetrize=bool(scalar(arrays, "symmetrize", who, "bool") or False),
        symmetric=True if symmetric is None else symmetric, notes=tuple(notes))


def theorem1_log_arrays(result: Any) -> dict[str, np.ndarray]:
    """The arrays of a Theorem-1 log of a similarity-descent run (its ``trajectory`` is needed).

    Args:
      result: a :class:`._descent_result.DescentResult` of ``run_similarity_descent(...,
        trajectory_every=K)``.

    Returns:
      ``{"sigma_cl", "sigma_nscl", "record_steps", "step_sizes", "labels", "batches", "tau", "delta",
      "anchors", "coupled", "symmetrize", "symmetric"}`` (format: :data:`._theorem1_log.LOG_ARRAYS`;
      the batches are the run's, regenerated from its seed).

    Raises:
      ValueError: a result without a trajectory (naming ``trajectory_every``).
    """
    if result.trajectory is None:
        raise ValueError("the run kept no trajectory: run it with trajectory_every=K to write a log")
    import jax
    import jax.numpy as jnp

    from contrastive_bounds.numerics.alignment._descent_run import chunk_batches

    c, tr = result.config, result.trajectory
    steps = int(tr["steps"][-1])
    labels = np.asarray(result.labels, np.int32)
    batches = chunk_batches(jax.random.key(c.seed), jnp.asarray(labels), 0, count=steps, batch_size=c.batch_size,
                            replace=c.replace, stratified=c.stratified, num_classes=int(labels.max()) + 1)
    symmetric = all(np.array_equal(s, s.T) for key in ("sigma_cl", "sigma_nscl") for s in tr[key])
    return {"sigma_cl": tr["sigma_cl"], "sigma_nscl": tr["sigma_nscl"], "record_steps": tr["steps"],
            "step_sizes": np.asarray(result.step_sizes[:steps]), "labels": labels,
            "batches": np.asarray(batches, np.int32), "tau": np.array(c.tau), "delta": np.array(c.delta),
            "anchors": np.array(c.anchors), "coupled": np.array(c.coupled), "symmetrize": np.array(c.symmetrize),
            "symmetric": np.array(symmetric)}


def write_theorem1_log(path: str, arrays: Mapping[str, Any]) -> Theorem1Log:
    """Validate ``arrays`` as a log (:func:`read_theorem1_log`) and write them to ``path`` (.npz, atomic).

    Returns: the validated :class:`._theorem1_log.Theorem1Log`.
    Raises: ValueError: a malformed log (as :func:`read_theorem1_log`), a ``path`` not
      ending in ``.npz`` or in a folder that cannot be written (naming ``path``).
    """
    from contrastive_bounds.numerics._filemode import ensure_writable_parent, write_atomically

    if not str(path).endswith(".npz"):
        raise ValueError(f"path={path!r} must end in .npz")
    log = read_theorem1_log(dict(arrays))
    ensure_writable_parent(path, "path")
    write_atomically(path, lambda fh: np.savez(fh, **{k: np.asarray(v) for k, v in arrays.items()}),
                     prefix=".log-", suffix=".npz")
    return log
