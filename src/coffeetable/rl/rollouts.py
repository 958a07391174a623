"""Vectorised random rollouts: `n_envs` games side by side, each step a uniformly random legal
action sampled from the action mask (docs/rl.md).

    from coffeetable.rl import random_rollouts
    batch = random_rollouts("cafe", n_envs=16, steps=500, seed=1, num_players=2)
    batch.steps_per_second, batch.episodes, batch.final_scores[:3]

A finished game is replaced at once by a new one (its seed drawn from the helper's
generator), so every env makes exactly `steps` moves. Café's simultaneous phase is played
lowest seat first, as in the AEC environments.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from coffeetable.core.game import Game
from coffeetable.core.registry import find_game
from coffeetable.rl.observations import observation_shape, observation_tensor
from coffeetable.rl.spaces import action_space


@dataclass
class RolloutBatch:
    """What the rollouts did, step by step ([step, env] arrays)."""

    actions: npt.NDArray[np.int64]  #: the action index played
    seats: npt.NDArray[np.int8]  #: the seat that played it
    legal_counts: npt.NDArray[np.int32]  #: how many actions the mask allowed
    dones: npt.NDArray[np.bool_]  #: the game ended with this step (a new one started)
    seconds: float  #: wall-clock time of the whole run
    final_scores: list[tuple[int, ...]] = field(default_factory=list)  #: per finished game
    seeds: list[int] = field(default_factory=list)  #: the game seeds, in the order started
    observations: npt.NDArray[np.float32] | None = None  #: [step, env, obs] if asked for
    masks: npt.NDArray[np.int8] | None = None  #: [step, env, action] if asked for

    @property
    def env_steps(self) -> int:
        return int(self.actions.size)

    @property
    def episodes(self) -> int:
        return int(self.dones.sum())

    @property
    def steps_per_second(self) -> float:
        return self.env_steps / self.seconds if self.seconds > 0 else float("inf")


def random_rollouts(
    game: str | Game,
    n_envs: int,
    steps: int,
    seed: int,
    *,
    num_players: int | None = None,
    options: Mapping[str, Any] | None = None,
    observe: bool = False,
) -> RolloutBatch:
    """Play `steps` random masked moves in each of `n_envs` games. `num_players` defaults to
    the game's minimum (Café: 1, Coffee Rush: 2). Each move is drawn uniformly from the
    acting seat's action mask. With `observe=True` the acting seat's observation and mask
    before each move are kept too (memory: steps x n_envs x (observation + action size))."""
    g = find_game(game) if isinstance(game, str) else game
    n = num_players if num_players is not None else g.info.min_players
    if n_envs < 1 or steps < 0:
        raise ValueError("n_envs must be at least 1 and steps at least 0")
    space = action_space(g)
    rng = np.random.default_rng(seed)
    seeds: list[int] = []

    def new_game() -> Any:
        s = int(rng.integers(2**62))
        seeds.append(s)
        return g.new_initial_state(n, s, options)

    start = time.perf_counter()
    states = [new_game() for _ in range(n_envs)]
    actions = np.zeros((steps, n_envs), dtype=np.int64)
    seats = np.zeros((steps, n_envs), dtype=np.int8)
    counts = np.zeros((steps, n_envs), dtype=np.int32)
    dones = np.zeros((steps, n_envs), dtype=np.bool_)
    obs = None
    if observe:
        obs = np.zeros((steps, n_envs, observation_shape(g, n)[0]), dtype=np.float32)
    masks = None
    if observe:
        masks = np.zeros((steps, n_envs, space.size), dtype=np.int8)
    scores: list[tuple[int, ...]] = []
    for t in range(steps):
        legal = []
        for e, state in enumerate(states):
            seat = min(state.current_seats())
            seats[t, e] = seat
            moves = space.legal(state, seat)  # the mask's nonzero indices -> engine actions
            legal.append(moves)
            counts[t, e] = len(moves)
            if obs is not None and masks is not None:
                obs[t, e] = observation_tensor(state, seat)
                masks[t, e] = space.mask_of(moves)
        # uniform over each mask: the k-th of its legal indices, in increasing order
        picks = (rng.random(n_envs) * counts[t]).astype(np.intp)
        for e, state in enumerate(states):
            index = sorted(legal[e])[picks[e]]
            actions[t, e] = index
            state.apply_unchecked(int(seats[t, e]), legal[e][index])
            if state.is_over():
                dones[t, e] = True
                scores.append(tuple(s.total for s in state.scores()))
                states[e] = new_game()
    return RolloutBatch(
        actions=actions,
        seats=seats,
        legal_counts=counts,
        dones=dones,
        seconds=time.perf_counter() - start,
        final_scores=scores,
        seeds=seeds,
        observations=obs,
        masks=masks,
    )


__all__ = ["RolloutBatch", "random_rollouts"]
