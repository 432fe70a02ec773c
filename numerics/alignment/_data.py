"""scikit-learn's digits as the real-data stand-in of docs/theorems.md B8, with JAX augmentations.

The data ship with scikit-learn (1797 8x8 images, 10 classes): nothing is downloaded.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_int, check_seed, check_real
from contrastive_bounds.numerics._precision import require_x64

__all__ = ["DigitsSplit", "load_digits_subset", "augment"]

IMAGE_SIDE = 8


class DigitsSplit(NamedTuple):
    """Train/test arrays: ``x_*`` float (n, 64) pixels in [0, 1]; ``y_*`` int32 (n,) labels in [0, C)."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: tuple[int, ...]


def load_digits_subset(num_classes: int = 10, *, test_fraction: float = 0.2, seed: int = 0,
                       dtype=np.float64) -> DigitsSplit:
    """The digits of classes ``0 .. num_classes - 1``, pixels scaled to [0, 1], stratified split.

    Args:
      num_classes: C in [2, 10]; the first C digit classes are kept (deterministic subset).
      test_fraction: share of each class held out, in (0, 1).
      seed: integer in [0, 2**32 - 1] for the split.
      dtype: float dtype of the pixels.

    Returns: :class:`DigitsSplit` (about 180 images per class).
    Raises: ValueError for out-of-domain arguments.
    Source: scikit-learn ``load_digits`` (UCI optical recognition of handwritten digits).
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    c = check_int("num_classes", num_classes, 2, 10)
    tf = check_real("test_fraction", test_fraction, 0.0, 1.0)
    s = check_seed(seed)
    data = load_digits()
    keep = data.target < c
    x = (data.data[keep] / 16.0).astype(dtype)
    y = data.target[keep].astype(np.int32)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=tf, random_state=s, stratify=y)
    return DigitsSplit(x_tr, y_tr, x_te, y_te, tuple(range(c)))


def _shift_one(img: jax.Array, dx: jax.Array, dy: jax.Array, max_shift: int) -> jax.Array:
    padded = jnp.pad(img, max_shift)
    return jax.lax.dynamic_slice(padded, (max_shift + dy, max_shift + dx), (IMAGE_SIDE, IMAGE_SIDE))


def augment(key: jax.Array, x: jax.Array, *, noise_std: float = 0.1, max_shift: int = 1) -> jax.Array:
    """Random view of a batch: integer shifts in [-max_shift, max_shift]^2 (zero fill) + Gaussian noise.

    Args:
      key: JAX PRNG key (the same key gives the same view: shared randomness across runs).
      x: float (B, 64) flattened 8x8 images.
      noise_std: pixel noise standard deviation >= 0 (pixels are in [0, 1]; the result is clipped to it).
      max_shift: largest shift in pixels (static int >= 0).

    Returns: float (B, 64), same dtype. jit-able (``max_shift`` static).
    """
    require_x64(x, what="contrastive_bounds.numerics.alignment.augment")
    k_shift, k_noise = jax.random.split(key)
    b = x.shape[0]
    shifts = jax.random.randint(k_shift, (b, 2), -max_shift, max_shift + 1)
    imgs = x.reshape(b, IMAGE_SIDE, IMAGE_SIDE)
    moved = jax.vmap(lambda im, s: _shift_one(im, s[0], s[1], max_shift))(imgs, shifts)
    noisy = moved.reshape(b, -1) + noise_std * jax.random.normal(k_noise, (b, IMAGE_SIDE * IMAGE_SIDE), x.dtype)
    return jnp.clip(noisy, 0.0, 1.0)
