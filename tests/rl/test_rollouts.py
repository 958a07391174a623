"""Vectorised random rollouts."""

from __future__ import annotations

import numpy as np
import pytest

from coffeetable import find_game
from coffeetable.rl import action_space, observation_shape, random_rollouts


@pytest.mark.parametrize(("name", "players"), [("cafe", 1), ("cafe", 3), ("coffee-rush", 2)])
def test_random_rollouts(name: str, players: int) -> None:
    batch = random_rollouts(name, n_envs=4, steps=120, seed=3, num_players=players)
    assert batch.actions.shape == (120, 4) and batch.env_steps == 480
    assert (batch.legal_counts > 0).all()
    assert (batch.actions < action_space(find_game(name)).size).all()
    assert batch.episodes == len(batch.final_scores) > 0
    assert len(batch.seeds) == 4 + batch.episodes
    assert all(len(scores) == players for scores in batch.final_scores)
    assert batch.steps_per_second > 0
    again = random_rollouts(name, n_envs=4, steps=120, seed=3, num_players=players)
    assert np.array_equal(batch.actions, again.actions)
    assert batch.seeds == again.seeds
    other = random_rollouts(name, n_envs=4, steps=120, seed=4, num_players=players)
    assert not np.array_equal(batch.actions, other.actions)


def test_random_rollouts_with_observations() -> None:
    game = find_game("coffee-rush")
    batch = random_rollouts(game, n_envs=2, steps=10, seed=1, observe=True)
    assert batch.observations is not None
    assert batch.observations.shape == (10, 2, observation_shape(game, 2)[0])
    assert batch.observations.any()
    assert batch.masks is not None
    picked = np.take_along_axis(batch.masks, batch.actions[..., None], axis=2)
    assert (picked == 1).all()
    assert (batch.masks.sum(axis=2) == batch.legal_counts).all()
    with pytest.raises(ValueError):
        random_rollouts(game, n_envs=0, steps=1, seed=1)
