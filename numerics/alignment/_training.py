"""Real-data training of CL, NSCL, SupCon and CE under shared randomness (docs/theorems.md B8).

A small MLP (plain JAX + optax): encoder ``h`` (64 -> hidden -> feature_dim, ReLU) and projection
head ``z`` (feature_dim -> feature_dim -> projection_dim). All models start from the *same*
parameters and see the *same* augmented batches (same keys): one jitted epoch (``lax.scan`` over
batches) updates the four parameter sets in lock-step. CE trains a linear classifier on ``z``.
Training runs in float32 for throughput; every metric is computed in float64 with numpy/scikit-learn.

Per epoch (on the held-out split): CKA on cosine Grams of z, linear CKA on h, RSA (Pearson, RDM =
1 - cosine of z) between CL and each other model; nearest-class-centre and linear-probe accuracy of
h; and the population loss gap L^DCL - L^NSCL of the CL and NSCL models on the training set
(two fixed augmented views) against ``alignment.loss_gap_value(tau, n_max/N)`` (docs/theorems.md B2).
"""

from __future__ import annotations

import functools
import math
import warnings
import dataclasses
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax

from contrastive_bounds import theory as alignment
from contrastive_bounds.theory._domains import check_int, check_seed, check_real

from contrastive_bounds.numerics.alignment._data import augment, load_digits_subset
from contrastive_bounds.numerics.alignment._loss_core import anchor_loss_terms, min_tau
from contrastive_bounds.numerics.alignment._losses import batch_loss, view_masks
from contrastive_bounds.numerics.alignment._cka import cosine_gram, cosine_gram_cka, linear_cka
from contrastive_bounds.numerics.alignment._rsa import rsa_from_similarity
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["TrainConfig", "TrainResult", "init_params", "encode", "train_alignment", "check_train_config", "population_loss_gap", "MODELS"]

MODELS = ("cl", "nscl", "supcon", "ce")
PAIRS = ("nscl", "supcon", "ce")  # compared with "cl"


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters (validated by :meth:`validate`).

    Attributes: ``num_classes`` C in [2, 10]; ``tau`` > 0 (CL, NSCL, SupCon); ``epochs`` >= 1;
    ``batch_size`` in [4, n_train]; ``learning_rate`` > 0 (Adam); ``seed`` in [0, 2**32 - 1]; ``hidden``,
    ``feature_dim`` (h), ``projection_dim`` (z) >= 1; ``noise_std`` >= 0 and ``max_shift`` >= 0 of the
    augmentation; ``coupled``: coupled InfoNCE/NSCL denominators; ``models``: which of
    ``("cl", "nscl", "supcon", "ce")`` to train (must include ``"cl"``, the reference of every
    comparison; fewer models compile and run faster); ``probe``: compute the linear-probe accuracy
    each epoch (the slowest metric; nearest-class-centre accuracy is always computed).
    """

    num_classes: int = 10
    tau: float = 0.5
    epochs: int = 50
    batch_size: int = 128
    learning_rate: float = 1e-3
    seed: int = 0
    hidden: int = 256
    feature_dim: int = 64
    projection_dim: int = 32
    noise_std: float = 0.1
    max_shift: int = 1
    coupled: bool = False
    models: tuple[str, ...] = ("cl", "nscl", "supcon", "ce")
    probe: bool = True

    def validate(self) -> None:
        check_int("num_classes", self.num_classes, 2, 10)
        check_real("tau", self.tau, 0.0)
        if self.tau < min_tau(np.float32):  # training runs in float32
            raise ValueError(f"tau={self.tau!r} is below the smallest float32 temperature {min_tau(np.float32)!r} "
                             "(training runs in float32; see numerics.losses.min_tau)")
        check_int("epochs", self.epochs, 1)
        check_int("batch_size", self.batch_size, 4)
        check_real("learning_rate", self.learning_rate, 0.0)
        check_seed(self.seed)
        for name in ("hidden", "feature_dim", "projection_dim"):
            check_int(name, getattr(self, name), 1)
        check_real("noise_std", self.noise_std, 0.0, lo_closed=True)
        check_int("max_shift", self.max_shift, 0, 3)
        models = tuple(self.models)
        if "cl" not in models or len(set(models)) != len(models) or any(m not in MODELS for m in models):
            raise ValueError(f"models={models!r} must be distinct names from {MODELS} including 'cl'")


def _dense(key, fan_in, fan_out):
    w = jax.random.normal(key, (fan_in, fan_out), jnp.float32) * math.sqrt(2.0 / fan_in)
    return {"w": w, "b": jnp.zeros(fan_out, jnp.float32)}


def init_params(key: jax.Array, config: TrainConfig, input_dim: int = 64) -> dict[str, Any]:
    """He-normal float32 parameters: ``enc1, enc2`` (encoder), ``head1, head2`` (projection), ``cls`` (CE)."""
    ks = jax.random.split(key, 5)
    c = config
    return {
        "enc1": _dense(ks[0], input_dim, c.hidden),
        "enc2": _dense(ks[1], c.hidden, c.feature_dim),
        "head1": _dense(ks[2], c.feature_dim, c.feature_dim),
        "head2": _dense(ks[3], c.feature_dim, c.projection_dim),
        "cls": _dense(ks[4], c.projection_dim, c.num_classes),
    }


def encode(params: dict[str, Any], x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(h, z)`` for inputs x (B, 64): h (B, feature_dim) after ReLU, z (B, projection_dim) unnormalised."""
    require_x64(x, what="contrastive_bounds.numerics.alignment.encode")
    lin = lambda p, a: a @ p["w"] + p["b"]  # noqa: E731
    h = jax.nn.relu(lin(params["enc2"], jax.nn.relu(lin(params["enc1"], x))))
    z = lin(params["head2"], jax.nn.relu(lin(params["head1"], h)))
    return h, z


def _loss(name: str, params, x1, x2, y, tau: float, coupled: bool):
    _, z1 = encode(params, x1)
    _, z2 = encode(params, x2)
    if name == "ce":
        ce = lambda z: optax.softmax_cross_entropy_with_integer_labels(  # noqa: E731
            z @ params["cls"]["w"] + params["cls"]["b"], y).mean()
        return 0.5 * (ce(z1) + ce(z2))
    kind = {"cl": "cl", "nscl": "nscl", "supcon": "supcon"}[name]
    return batch_loss(z1, z2, y, tau=tau, kind=kind, coupled=coupled and name != "supcon")


@functools.lru_cache(maxsize=16)
def _make_epoch(shape_config: TrainConfig, num_batches: int):
    """One jitted epoch for every config with the same shapes and model set.

    ``shape_config`` has ``tau``, ``seed`` and ``epochs`` zeroed by the caller: tau is a traced
    argument, so runs that differ only in tau, seed or length share one compilation.
    """
    config = shape_config
    bs = config.batch_size
    optimizer = optax.adam(config.learning_rate)

    @jax.jit
    def epoch(all_params, all_opt, x, y, key, tau):
        k_perm, k_aug = jax.random.split(key)
        order = jax.random.permutation(k_perm, x.shape[0])[: num_batches * bs].reshape(num_batches, bs)

        def body(carry, inp):
            ps, os_ = carry
            idx, i = inp
            xb, yb = x[idx], y[idx]
            k = jax.random.fold_in(k_aug, i)
            k1, k2 = jax.random.split(k)
            x1 = augment(k1, xb, noise_std=config.noise_std, max_shift=config.max_shift)
            x2 = augment(k2, xb, noise_std=config.noise_std, max_shift=config.max_shift)
            new_p, new_o, losses = [], [], []
            for name, p, o in zip(config.models, ps, os_):  # same views for every model: shared randomness
                val, g = jax.value_and_grad(partial(_loss, name))(p, x1, x2, yb, tau, config.coupled)
                upd, o = optimizer.update(g, o, p)
                new_p.append(optax.apply_updates(p, upd))
                new_o.append(o)
                losses.append(val)
            return (tuple(new_p), tuple(new_o)), jnp.stack(losses)

        (ps, os_), losses = jax.lax.scan(body, (all_params, all_opt), (order, jnp.arange(num_batches)))
        return ps, os_, losses.mean(axis=0)

    return epoch, optimizer

    return epoch


def population_loss_gap(z1: np.ndarray, z2: np.ndarray, labels: np.ndarray, *, tau: float) -> tuple[float, float]:
    """Population losses ``(L^DCL, L^NSCL)`` over all N samples (anchors = first views), float64.

    Args: ``z1, z2`` float (N, d) two views (normalised inside); ``labels`` int (N,), >= 2 classes; tau > 0.
    Returns: the two mean losses; B2 says ``0 <= L^DCL - L^NSCL <= loss_gap_value(tau, n_max/N)``.
    Raises: ValueError when some anchor has no other-class sample (a single class).
    """
    require_x64(z1, z2, what="contrastive_bounds.numerics.alignment.population_loss_gap")
    z1 = np.asarray(z1, np.float64)
    z2 = np.asarray(z2, np.float64)
    lab = np.asarray(labels)
    if len(np.unique(lab)) < 2:
        raise ValueError("labels must contain at least 2 classes for the NSCL population loss")
    zz = np.concatenate([z1, z2])
    zz = zz / np.linalg.norm(zz, axis=1, keepdims=True)
    sim = jnp.asarray(zz[: len(z1)] @ zz.T)
    out = []
    for kind in ("cl", "nscl"):
        pw, dm = view_masks(lab, kind=kind)
        out.append(float(jnp.mean(anchor_loss_terms(sim, pw, dm, tau))))
    return out[0], out[1]


@dataclass
class TrainResult:
    """Per-epoch metrics (``history``: list of dicts, one per epoch) and the config (``config``)."""

    config: TrainConfig
    history: list[dict[str, Any]]
    n_train: int
    n_test: int

    def to_dict(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "n_train": self.n_train, "n_test": self.n_test,
                "float_dtype_training": "float32", "history": self.history}


def _metrics(params, split, config: TrainConfig, eval_key) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import NearestCentroid
    from sklearn.preprocessing import StandardScaler

    xtr = jnp.asarray(split.x_train, jnp.float32)
    xte = jnp.asarray(split.x_test, jnp.float32)
    models = tuple(config.models)
    emb = {name: [np.asarray(a, np.float64) for a in encode(p, xte)] for name, p in zip(models, params)}
    emb_tr = {name: np.asarray(encode(p, xtr)[0], np.float64) for name, p in zip(models, params)}
    grams = {name: cosine_gram(z + 0.0) for name, (_, z) in emb.items()}
    out: dict[str, Any] = {"cka_z": {}, "cka_h": {}, "rsa": {}, "ncc_accuracy": {}, "probe_accuracy": {}}
    for other in (m for m in PAIRS if m in models):
        key = f"cl-{other}"
        out["cka_z"][key] = cosine_gram_cka(grams["cl"], grams[other])
        out["cka_h"][key] = linear_cka(emb["cl"][0], emb[other][0], debiased=False)
        out["rsa"][key] = rsa_from_similarity(grams["cl"], grams[other])
    for name in models:
        scaler = StandardScaler().fit(emb_tr[name])
        htr, hte = scaler.transform(emb_tr[name]), scaler.transform(emb[name][0])
        with warnings.catch_warnings():  # dead ReLU units have zero spread; harmless for the centroid rule
            warnings.filterwarnings("ignore", message=".*zero standard deviation.*")
            out["ncc_accuracy"][name] = float(NearestCentroid().fit(htr, split.y_train).score(hte, split.y_test))
        if config.probe:
            probe = LogisticRegression(max_iter=300).fit(htr, split.y_train)
            out["probe_accuracy"][name] = float(probe.score(hte, split.y_test))
    k1, k2 = jax.random.split(eval_key)
    v1 = augment(k1, xtr, noise_std=config.noise_std, max_shift=config.max_shift)
    v2 = augment(k2, xtr, noise_std=config.noise_std, max_shift=config.max_shift)
    counts = np.bincount(split.y_train)
    bound = alignment.loss_gap_value(config.tau, counts.max() / counts.sum())
    out["loss_gap_bound"] = bound
    out["loss_gap_bound_pi_max"] = float(counts.max() / counts.sum())
    for name in (m for m in ("cl", "nscl") if m in models):
        p = params[models.index(name)]
        l_dcl, l_nscl = population_loss_gap(encode(p, v1)[1], encode(p, v2)[1], split.y_train, tau=config.tau)
        gap = l_dcl - l_nscl
        out[f"loss_gap_{name}"] = gap
        out[f"loss_gap_{name}_holds"] = bool(-1e-9 <= gap <= bound * (1 + 1e-9))
    return out


def check_train_config(config: TrainConfig) -> None:
    """Validate ``config`` against the data as :func:`train_alignment` does, without training.

    Callers that show progress (the CLI) call this first, so bad input is reported before any output.

    Raises:
      ValueError: naming the first field outside its domain, including ``batch_size`` above the
        training-set size of the chosen classes (80 % of their digits).
    """
    _checked_split(config)


def _checked_split(config: TrainConfig) -> Any:
    config.validate()
    split = load_digits_subset(config.num_classes, seed=config.seed, dtype=np.float32)
    check_int("batch_size", config.batch_size, 4, len(split.y_train))
    return split


def _check_training_state(config: TrainConfig, epoch: int, losses: np.ndarray, all_params: Any, all_opt: Any) -> None:
    """Refuse to go on (and to report metrics) once a model's training has broken down in float32.

    Two failures are caught after every epoch, per model: a non-finite loss or parameter (the run
    diverged: too large a learning rate, or a tau so small that the loss, of order 1/tau, overflows),
    and a non-finite Adam moment (gradients of order 1/tau whose squares overflow float32: Adam's
    update m/(sqrt(v) + eps) is then exactly 0, so the model silently stops training).

    Raises:
      ValueError: naming the model, the epoch and the options to change (tau, learning_rate).
    """
    for i, model in enumerate(config.models):
        p_ok = all(bool(np.all(np.isfinite(np.asarray(a)))) for a in jax.tree_util.tree_leaves(all_params[i]))
        if not (np.isfinite(losses[i]) and p_ok):
            raise ValueError(f"training of {model!r} diverged in epoch {epoch} (non-finite loss or parameters in "
                             f"float32): lower learning_rate={config.learning_rate!r} or raise tau={config.tau!r}")
        moments = [a for a in jax.tree_util.tree_leaves(all_opt[i]) if jnp.issubdtype(jnp.asarray(a).dtype, jnp.floating)]
        if not all(bool(np.all(np.isfinite(np.asarray(a)))) for a in moments):
            raise ValueError(f"training of {model!r} stalled in epoch {epoch}: Adam's second moment overflowed float32 "
                             f"(gradients of order 1/tau squared beyond 3.4e38), so every update is 0; raise "
                             f"tau={config.tau!r} (or lower the learning rate)")


def train_alignment(config: TrainConfig, *, progress: Callable[[int, int], None] | None = None) -> TrainResult:
    """Train CL, NSCL, SupCon and CE from one initialisation on the same augmented digits batches.

    Args:
      config: :class:`TrainConfig` (validated).
      progress: optional callback ``progress(epoch_done, epochs)``.

    Returns: :class:`TrainResult` with one dict per epoch: ``epoch``, ``train_loss`` (per model),
      ``cka_z``/``cka_h``/``rsa`` (keys ``cl-nscl``, ``cl-supcon``, ``cl-ce``), ``ncc_accuracy``,
      ``probe_accuracy`` (per model), ``loss_gap_cl``, ``loss_gap_nscl``, ``loss_gap_bound`` and
      whether each gap is within the bound. Results are what is measured: nothing is tuned toward
      the paper's ordering (NSCL > CE > SCL).

    Raises:
      ValueError: out-of-domain config values (naming the field), a batch size above the
        training-set size, or a model whose float32 training breaks down (non-finite loss, parameters
        or Adam moments after an epoch: the message names tau and learning_rate).
    Source: docs/theorems.md B8 (stand-in for Luthra, Mishra, Galanti, arXiv 2510.08852, Figs. 3-5).
    """
    split = _checked_split(config)
    n_train = len(split.y_train)
    num_batches = n_train // config.batch_size
    key = jax.random.key(config.seed)
    k_init, k_train, k_eval = jax.random.split(key, 3)
    params0 = init_params(k_init, config)
    epoch_fn, optimizer = _make_epoch(dataclasses.replace(config, tau=1.0, seed=0, epochs=1), num_batches)
    all_params = tuple(params0 for _ in config.models)  # the same initialisation for every model
    all_opt = tuple(optimizer.init(params0) for _ in config.models)
    x = jnp.asarray(split.x_train, jnp.float32)
    y = jnp.asarray(split.y_train)
    history = []
    for e in range(config.epochs):
        all_params, all_opt, losses = epoch_fn(all_params, all_opt, x, y, jax.random.fold_in(k_train, e),
                                               jnp.float32(config.tau))
        _check_training_state(config, e + 1, np.asarray(losses), all_params, all_opt)
        rec = {"epoch": e + 1, "train_loss": {m: float(v) for m, v in zip(config.models, np.asarray(losses))}}
        rec.update(_metrics(all_params, split, config, k_eval))
        history.append(rec)
        if progress is not None:
            progress(e + 1, config.epochs)
    return TrainResult(config, history, n_train, len(split.y_test))
