"""What a run of many Langevin chains records: target sets, basins, the scan carry and the result.

* :class:`EnergyBelow` and :class:`Arc` — target sets / basins (hashable pure predicates
  ``(position (N, d), potential ()) -> bool``, called inside the jitted chunk);
* :class:`Carry` — the state carried through ``lax.scan``: the chains' Langevin states and the
  running observables (minimum of V, first hitting time, basin occupancy, escapes);
* :func:`initial_carry` — the carry at the start of a run (the initial state counts: a chain that
  starts inside the target has hit time ``t_start``);
* :class:`SimulationResult` — what :func:`._driver.simulate` returns (numpy arrays).

Definitions: ``hit_time`` is the first continuous time at which a chain is in the target (``inf``
if never); ``occupancy`` the fraction of steps after which a chain was inside each basin;
``escapes`` the number of moves between distinct basins (an excursion outside every basin that
returns to the same basin is not counted); ``final_basin`` the label at the end (−1: in none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from contrastive_bounds.theory._domains import check_real

from contrastive_bounds.numerics.langevin._kernel import LangevinKernel
from contrastive_bounds.numerics.langevin.steps.sphere import LangevinState

__all__ = ["EnergyBelow", "Arc", "Carry", "CARRY_FIELDS", "SimulationResult", "basin_label", "initial_carry",
           "final_labels"]

_TWO_PI = 2.0 * math.pi


@dataclass(frozen=True)
class EnergyBelow:
    """Target set {V < level} (e.g. level = V_min + delta). Callable ``(position, potential) -> bool``."""

    level: float

    def __post_init__(self) -> None:
        check_real("level", self.level)

    def __call__(self, position: jax.Array, potential: jax.Array) -> jax.Array:
        return potential < self.level

    def describe(self) -> str:
        return f"V < {self.level!r}"


@dataclass(frozen=True)
class Arc:
    """Target set on S¹ (N = 1, d = 2): θ in the arc from ``theta_lo`` counter-clockwise to ``theta_hi``.

    θ = atan2(z[0, 1], z[0, 0]); angles in radians, any real values; the arc's length
    (theta_hi − theta_lo) must lie in (0, 2π]. Example: the basin of θ = π of ``double-well`` is
    ``Arc(theta_s, 2π − theta_s)`` with cos θ_s = −1/8.
    """

    theta_lo: float
    theta_hi: float

    def __post_init__(self) -> None:
        check_real("theta_lo", self.theta_lo)
        check_real("theta_hi", self.theta_hi)
        width = self.theta_hi - self.theta_lo
        if not (0.0 < width <= _TWO_PI):
            raise ValueError(
                f"theta_hi - theta_lo={width!r} is outside its domain (0, 2*pi]; give theta_hi > theta_lo"
            )

    def __call__(self, position: jax.Array, potential: jax.Array) -> jax.Array:
        # No atan2: z lies in the arc iff its angle to the arc's midpoint is below half the width,
        # i.e. z . u_mid > cos(width / 2) (exact up to rounding at the two end points).
        half = 0.5 * (self.theta_hi - self.theta_lo)
        mid = self.theta_lo + half
        if half >= math.pi:
            return jnp.ones((), bool)
        dot = position[0, 0] * math.cos(mid) + position[0, 1] * math.sin(mid)
        return dot > math.cos(half)

    def describe(self) -> str:
        return f"theta in [{self.theta_lo!r}, {self.theta_hi!r}] (mod 2pi)"


class Carry(NamedTuple):
    """The scan carry of a run (batched over chains).

    Attributes:
      state: :class:`.steps.sphere.LangevinState` with position ``(chains, N, d)`` (chains-first outside
        the jitted chunk; inside, the state of the run's step path, :mod:`._paths`).
      step: ``()`` int32, steps done. running_min, hit_time: ``(chains,)`` (hit_time ``inf``: not yet).
      occupancy: ``(chains, num_basins)`` int32 step counts. last_basin: ``(chains,)`` int32, −1 = none
      yet. escapes: ``(chains,)`` int32.
    """

    state: LangevinState
    step: jax.Array
    running_min: jax.Array
    hit_time: jax.Array
    occupancy: jax.Array
    last_basin: jax.Array
    escapes: jax.Array


CARRY_FIELDS = ("running_min", "hit_time", "occupancy", "last_basin", "escapes")
"""The running observables of :class:`Carry` (saved in checkpoints beside the state and the step)."""


@dataclass
class SimulationResult:
    """Observables of a run (numpy arrays; ``chains`` leading where per chain).

    Attributes:
      positions: ``(chains, N, d)`` final states; potential: ``(chains,)`` final V.
      running_min: ``(chains,)``; hit_time: ``(chains,)`` (``inf``: not hit by ``t_end``).
      occupancy: ``(chains, num_basins)`` fractions of steps in each basin; final_basin:
        ``(chains,)`` int (−1: in none); escapes: ``(chains,)`` int.
      energy_trace: ``(num_records, chains)``; record_times: ``(num_records,)`` continuous times.
      steps_done / num_steps: progress (``complete`` iff equal); t_start, t_end (time reached).
      wall_time: seconds spent in this call; chain_steps_per_second: throughput of this call
        (including compilation). dtype: ``"float32"``/``"float64"``. config: the run's fingerprint
        (among others ``prng_impl``, the noise generator that ran, and ``shards``, the number of
        devices the chains were split over, when more than one). step_path: how the chains were
        stepped (:mod:`._paths`; part of ``config`` only when not the kernel's default).
    """

    positions: np.ndarray
    potential: np.ndarray
    running_min: np.ndarray
    hit_time: np.ndarray
    occupancy: np.ndarray
    final_basin: np.ndarray
    escapes: np.ndarray
    energy_trace: np.ndarray
    record_times: np.ndarray
    steps_done: int
    num_steps: int
    step_size: float
    t_start: float
    t_end: float
    wall_time: float
    chain_steps_per_second: float
    dtype: str
    seed: int
    config: dict = field(default_factory=dict)
    step_path: str = ""

    @property
    def complete(self) -> bool:
        """Whether all ``num_steps`` steps were run."""
        return self.steps_done == self.num_steps

    @property
    def hit(self) -> np.ndarray:
        """``(chains,)`` bool: the chain reached the target by ``t_end``."""
        return np.isfinite(self.hit_time)

    @property
    def chains(self) -> int:
        return int(self.positions.shape[0])

    @property
    def prng_impl(self) -> str:
        """The noise generator that ran (``"threefry2x32"``, ``"fused-threefry"``, ...)."""
        return str(self.config.get("prng_impl", ""))

    @property
    def devices(self) -> int:
        """How many devices the chains were split over (1: not sharded)."""
        return int(self.config.get("shards", 1))


def basin_label(basins: tuple, position: jax.Array, potential: jax.Array) -> jax.Array:
    """Index of the first basin predicate that holds at ``(position (N, d), potential ())``, −1 if none
    (int32 scalar)."""
    label = jnp.asarray(-1, jnp.int32)
    for i in reversed(range(len(basins))):
        label = jnp.where(basins[i](position, potential), jnp.asarray(i, jnp.int32), label)
    return label


def initial_carry(kernel: LangevinKernel, positions: jax.Array, target: Any, basins: tuple, t_start: float) -> Carry:
    """The carry before step 0: V and ∇V of ``positions (chains, N, d)``, the running minimum = V, a
    hit time of ``t_start`` for chains already inside ``target`` (``inf`` otherwise), zero
    occupancy and escapes, the initial basin labels."""
    state = jax.vmap(kernel.init)(positions)
    chains = positions.shape[0]
    dtype = positions.dtype
    hit = jnp.full((chains,), jnp.inf, dtype)
    if target is not None:
        inside = jax.vmap(target)(state.position, state.potential)
        hit = jnp.where(inside, jnp.asarray(t_start, dtype), hit)
    if basins:
        lab = jax.vmap(lambda p, v: basin_label(basins, p, v))(state.position, state.potential)
    else:
        lab = jnp.full((chains,), -1, jnp.int32)
    return Carry(
        state=state,
        step=jnp.asarray(0, jnp.int32),
        running_min=jnp.array(state.potential, copy=True),
        hit_time=hit,
        occupancy=jnp.zeros((chains, len(basins)), jnp.int32),
        last_basin=lab,
        escapes=jnp.zeros((chains,), jnp.int32),
    )


def final_labels(basins: tuple, state: LangevinState) -> np.ndarray:
    """``(chains,)`` int32 basin labels of a chains-first state (−1 everywhere without basins)."""
    if not basins:
        return np.full(state.position.shape[0], -1, np.int32)
    return np.asarray(jax.vmap(lambda p, v: basin_label(basins, p, v))(state.position, state.potential))
