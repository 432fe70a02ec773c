"""Checkpoints of a run: the fingerprint that names it, atomic writes, and reads that trust nothing.

A checkpoint is an ``.npz`` archive with the chains' state (chains-first), the step count, the
energy trace so far, the running observables of :class:`._observables.Carry`, and the run's
fingerprint (a JSON object of everything that determines the result: kernel, initial positions'
hash, seed, noise generator, device count, record spacing, target, basins). A resumed run is
bit-identical to an uninterrupted one on the same platform because the noise depends only on the
step index, never on where a run was cut.

Reading validates everything before use (shapes, dtypes, the step, finiteness, positions on the
sphere), because a checkpoint file may be damaged, truncated, from another run or from anything
else: every failure is a ValueError naming ``checkpoint=``, never numpy's own message (for a
non-npz file numpy suggests ``allow_pickle=True``, i.e. loading an untrusted file unsafely).
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import numpy as np

from contrastive_bounds.numerics._filemode import write_atomically
from contrastive_bounds.numerics.langevin._observables import CARRY_FIELDS, Carry
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState
from contrastive_bounds.numerics._fingerprints import fingerprint_difference

__all__ = ["run_fingerprint", "save_checkpoint", "load_checkpoint", "CHECKPOINT_KEYS"]

CHECKPOINT_KEYS = ("fingerprint", "position", "potential", "grad", "step", "energy_trace") + CARRY_FIELDS


#: the fingerprint's keys as a user of ``anneal`` knows them (what to change back to resume)
FINGERPRINT_LABELS = {
    "kernel": "the landscape, temperature and step (kernel)",
    "shape": "chains × points × dimension",
    "positions_sha256": "the starting positions (from LANDSCAPE, --start, --chains and --seed)",
    "num_steps": "the number of steps (--time / --step-size)",
    "record_every": "steps between records",
    "prng_impl": "the random-number generator",
    "shards": "devices the chains are split over",
    "t_start": "the schedule's start time",
}


def run_fingerprint(*, kernel_description: str, positions: np.ndarray, num_steps: int, seed: int, t_start: float,
                    record_every: int, prng_impl: str, shards: int, target: Any, basins: tuple,
                    step_path: str | None = None) -> str:
    """The run's configuration as canonical JSON (sorted keys): what a checkpoint must match to resume.

    ``shards`` appears only when > 1 (the noise stream of a sharded run depends on the device count),
    ``step_path`` only when given (a run on a step path other than the kernel's default, whose rounding
    differs), so that checkpoints of default runs keep their fingerprint.
    """
    return json.dumps(
        {
            "kernel": kernel_description,
            "shape": list(positions.shape),
            "dtype": str(positions.dtype),
            "positions_sha256": hashlib.sha256(np.ascontiguousarray(positions).tobytes()).hexdigest(),
            "num_steps": num_steps,
            "seed": seed,
            "t_start": t_start,
            "record_every": record_every,
            "prng_impl": prng_impl,
            **({"shards": shards} if shards > 1 else {}),
            **({"step_path": step_path} if step_path is not None else {}),
            "target": None if target is None else getattr(target, "describe", lambda: repr(target))(),
            "basins": [getattr(b, "describe", lambda b=b: repr(b))() for b in basins],
        },
        sort_keys=True,
    )


def save_checkpoint(path: Path, carry: Carry, trace: np.ndarray, fingerprint: str) -> None:
    """Write the run state to ``path`` atomically (:func:`~contrastive_bounds.numerics.write_atomically`:
    temp file in the same folder, fsync, mode ``0o666 & ~umask`` like any ``open(path, "w")``, os.replace).

    Raises:
      ValueError: ``path`` is a folder. OSError: the write fails (the previous file is kept).
    """
    arrays = {
        "position": np.asarray(carry.state.position),
        "potential": np.asarray(carry.state.potential),
        "grad": np.asarray(carry.state.grad),
        "step": np.asarray(carry.step),
        "energy_trace": trace,
        "fingerprint": np.asarray(fingerprint),
    }
    for name in CARRY_FIELDS:
        arrays[name] = np.asarray(getattr(carry, name))
    if path.is_dir():
        raise ValueError(f"checkpoint={str(path)!r} is a folder; give a file path such as {str(path / 'run.npz')!r}")
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(fh: Any) -> None:
        np.savez(fh, **arrays)
        fh.flush()
        os.fsync(fh.fileno())  # on disk before it replaces the previous checkpoint

    write_atomically(path, write, prefix=path.name + ".", suffix=".tmp")


def _unreadable(path: Path, reason: str) -> ValueError:
    return ValueError(
        f"checkpoint={str(path)!r} is not a readable checkpoint of this toolkit ({reason}); "
        "resume=False or another checkpoint path starts the run over"
    )


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array of the checkpoint file, read eagerly; ValueError naming checkpoint= on any read error."""
    not_npz = "not an .npz archive written by simulate, or damaged/truncated"
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        raise _unreadable(path, not_npz) from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise _unreadable(path, not_npz)
    with data:
        missing = [k for k in CHECKPOINT_KEYS if k not in data.files]
        if missing:
            raise _unreadable(path, f"missing array {missing[0]!r}")
        try:
            return {k: np.asarray(data[k]) for k in CHECKPOINT_KEYS}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile):
            raise _unreadable(path, not_npz) from None


def _validate_arrays(path: Path, arrays: dict[str, np.ndarray], config: dict) -> None:
    """Shapes, dtypes, step and finiteness of a checkpoint whose fingerprint matches ``config``."""
    chains, n, d = config["shape"]
    dtype = np.dtype(config["dtype"])
    num_basins = len(config["basins"])
    step_arr = arrays["step"]
    if step_arr.shape != () or step_arr.dtype != np.int32:
        raise _unreadable(path, f"'step' must be an integer scalar, got {step_arr.dtype} {step_arr.shape}")
    step = int(step_arr)
    if not 0 <= step <= config["num_steps"]:
        raise _unreadable(path, f"step={step} is outside [0, {config['num_steps']}]")
    expected = {
        "position": ((chains, n, d), "f"), "potential": ((chains,), "f"), "grad": ((chains, n, d), "f"),
        "energy_trace": ((step // config["record_every"], chains), "f"), "running_min": ((chains,), "f"),
        "hit_time": ((chains,), "f"), "occupancy": ((chains, num_basins), "i"), "last_basin": ((chains,), "i"),
        "escapes": ((chains,), "i"),
    }
    for name, (shape, kind) in expected.items():
        a = arrays[name]
        if a.shape != shape:
            raise _unreadable(path, f"{name!r} has shape {a.shape}, the run needs {shape}")
        if kind == "f" and a.dtype != dtype:
            raise _unreadable(path, f"{name!r} has dtype {a.dtype}, the run needs {dtype}")
        if kind == "i" and a.dtype != np.int32:
            raise _unreadable(path, f"{name!r} has dtype {a.dtype}, the run needs int32")
        # hit_time = inf means "not hit yet"; everything else must be finite
        bad = np.isnan(a) if name == "hit_time" else (~np.isfinite(a) if kind == "f" else np.zeros(a.shape, bool))
        if np.any(bad):
            raise _unreadable(path, f"{name!r} has NaN or inf")
    if np.any(arrays["occupancy"] < 0) or np.any(arrays["escapes"] < 0) or np.any(arrays["occupancy"] > step):
        raise _unreadable(path, "negative or too large step counts in 'occupancy'/'escapes'")
    if np.any(arrays["last_basin"] < -1) or np.any(arrays["last_basin"] >= num_basins):
        raise _unreadable(path, f"'last_basin' outside [-1, {num_basins - 1}]")
    norm_err = float(np.max(np.abs(np.linalg.norm(arrays["position"].astype(np.float64), axis=-1) - 1.0)))
    if norm_err > (1e-3 if dtype == np.float32 else 1e-6):
        raise _unreadable(path, f"'position' is off the sphere by {norm_err:.3g}")


def load_checkpoint(path: Path, fingerprint: str) -> tuple[Carry, np.ndarray]:
    """Read a checkpoint of the run ``fingerprint`` (a JSON object of the run's configuration).

    Returns:
      The chains-first :class:`._observables.Carry` and the energy trace ``(records, chains)``.
    Raises:
      ValueError: naming ``checkpoint=``, when the file is not a readable checkpoint of this toolkit
        (not an npz, empty, truncated, missing arrays, wrong shapes/dtypes, NaN/inf, a step outside
        the run) or belongs to a different run (naming the settings that differ).
    """
    arrays = _read_arrays(path)
    found = arrays["fingerprint"]
    if found.shape != () or found.dtype.kind != "U":
        raise _unreadable(path, "'fingerprint' is not a string")
    if str(found) != fingerprint:
        raise ValueError(
            f"checkpoint={str(path)!r} belongs to a different run (its configuration differs: "
            f"{fingerprint_difference(str(found), fingerprint, labels=FINGERPRINT_LABELS)}); use another path, or "
            "delete the file to start over"
        )
    _validate_arrays(path, arrays, json.loads(fingerprint))
    state = LangevinState(jnp.asarray(arrays["position"]), jnp.asarray(arrays["potential"]), jnp.asarray(arrays["grad"]))
    carry = Carry(state, jnp.asarray(arrays["step"]), *(jnp.asarray(arrays[name]) for name in CARRY_FIELDS))
    return carry, np.array(arrays["energy_trace"])
