"""What an ``align`` run will cost, refused before it starts when it is beyond reason.

Every size an ``align`` command takes is bounded below by its domain; above, the bound is what the
run costs. Each command estimates its run time from its sizes with rates measured on a loaded 2-core
CPU (the development machine; a free or larger machine is several times faster) and refuses an
estimate above :data:`LIMIT_SECONDS` unless ``--yes``, naming the options that set the cost. Memory
beyond what the machine has free is refused whatever ``--yes`` says (it cannot run). A refusal is a
``CLIError``: one line, exit 2.
"""

from __future__ import annotations

import math

from contrastive_bounds.properties.cli._common import CLIError

__all__: list[str] = []  # a part of the command line, not Python API (the face is properties.cli)

LIMIT_SECONDS = 3600.0
"""Runs estimated above one hour on a 2-core CPU need ``--yes``."""

#: seconds per Sigma entry per step of the coupled similarity descent (align simulate: n = 1000..4000,
#: B = 64..256 on a 2-core CPU at load ~8); the step rewrites the m x m float64 Sigma's
SIMULATE_S_PER_ENTRY = 6e-10
#: seconds per Sigma entry per step of align proxy (the proxy's descent and the records of Sigma^SGD, float64)
PROXY_S_PER_ENTRY = 1.5e-8
#: seconds per multiply-add of an MLP forward + backward pass (numpy-free JAX CPU, loaded 2-core machine)
S_PER_FLOP = 1e-9
#: seconds per epoch of align train (4 models on digits, metrics and probes each epoch; batch 128)
TRAIN_S_PER_EPOCH = 20.0
#: seconds per SGD step of align train on top of the epoch's metrics
TRAIN_S_PER_STEP = 0.05
DIGITS_PIXELS = 64  # the MLP's input width on digits (8 x 8 images)


def _mlp_params(hidden: int, projection_dim: int, feature_dim: int = 64) -> int:
    return DIGITS_PIXELS * hidden + hidden * feature_dim + feature_dim * projection_dim


def simulate_seconds(num_samples: int, batch_size: int, steps: int) -> float:
    """Estimated seconds of ``align simulate``: T steps over the m x m Sigma's, m = 2n (plus the batch block)."""
    m = 2 * num_samples
    return steps * (m * m + 64 * batch_size * m) * SIMULATE_S_PER_ENTRY


def simulate_bytes(num_samples: int) -> int:
    """Bytes of ``align simulate``'s m x m float64 matrices (Sigma_0, both runs, the step's copies: 8 of them)."""
    m = 2 * num_samples
    return 8 * m * m * 8


def train_seconds(epochs: int, batch_size: int, train_size: int = 1437) -> float:
    """Estimated seconds of ``align train`` (digits: about 1437 training images)."""
    return epochs * (TRAIN_S_PER_EPOCH + math.ceil(train_size / batch_size) * TRAIN_S_PER_STEP)


def mlp_bytes(hidden: int, projection_dim: int, lanes: int = 1, copies: int = 16, *, model: str = "mlp",
              reference_size: int = 0) -> int:
    """Bytes of the parameters of CL and NSCL with gradients and their copies in the compiled step, float64,
    for ``lanes`` runs at once (the free model's parameters are its m x d embedding rows)."""
    params = _mlp_params(hidden, projection_dim) if model == "mlp" else 2 * reference_size * projection_dim
    return lanes * copies * params * 8


def proxy_seconds(reference_size: int, batch_size: int, steps: int, hidden: int, projection_dim: int,
                  model: str = "mlp") -> float:
    """Estimated seconds of ``align proxy``: the proxy's descent over m x m per step, and plain SGD of two
    models (the free model's embedding rows are its parameters: m x d)."""
    m = 2 * reference_size
    params = _mlp_params(hidden, projection_dim) if model == "mlp" else m * projection_dim
    return steps * (m * m * PROXY_S_PER_ENTRY + 8 * 2 * batch_size * params * S_PER_FLOP)


def batch_scaling_seconds(batch_sizes: tuple[int, ...], budgets: tuple[str, ...], exponents: int, seeds: int,
                          epochs: int, reference_size: int, reference_batch: int, hidden: int,
                          projection_dim: int = 32) -> float:
    """Estimated seconds of ``align batch-scaling``: every cell trains ``exponents x seeds`` lanes of CL and
    NSCL for its steps on batches of B samples (fixed epochs: ``epochs x n`` samples; fixed steps:
    ``epochs x (n // B_ref) x B``)."""
    lanes = exponents * seeds
    samples = 0
    for b in batch_sizes:
        for budget in budgets:
            steps = epochs * (reference_size // (b if budget == "epochs" else reference_batch))
            samples += steps * b
    return lanes * samples * 8 * 2 * _mlp_params(hidden, projection_dim) * S_PER_FLOP


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.3g} days"


def refuse_costly(seconds: float, options: str, yes: bool) -> None:
    """Raise CLIError when ``seconds`` exceeds :data:`LIMIT_SECONDS` and ``yes`` is False.

    Args:
      seconds: the estimate. options: the options that set the cost, as the user typed them
        (``"--steps=1e9, --reference-size=256"``). yes: the command's ``--yes``.
    """
    if yes or seconds <= LIMIT_SECONDS:
        return
    raise CLIError(f"{options}: an estimated {_duration(seconds)} on a 2-core CPU, above the limit of "
                   f"{_duration(LIMIT_SECONDS)} for a run without --yes; choose smaller sizes, or add --yes to run it")


def refuse_memory(needed: int, options: str, available: int | None = None) -> None:
    """Raise CLIError when ``needed`` bytes exceed the memory this machine has free (``--yes`` cannot help)."""
    from contrastive_bounds.numerics.alignment._sgd import available_memory_bytes

    have = available_memory_bytes() if available is None else available
    if needed > have:
        raise CLIError(f"{options}: needs about {needed / 2**30:.3g} GiB of memory, more than the {have / 2**30:.3g} "
                       "GiB free on this machine; choose smaller sizes")
