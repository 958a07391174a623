"""Café as a PettingZoo AEC environment with the compact observation (docs/rl.md).

    from coffeetable.rl import cafe_v1
    env = cafe_v1.env(num_players=3, variant="advanced", espresso=True)
    env.reset(seed=7)

The same environment as `cafe_v0` (the same keyword arguments, rules, rewards and seeds)
except the observation: by default the compact layout (`observation_layout(game, n,
compact=True)`: every seat's visible cells as a slots table, no 21 x 21 x 33 grid),
lossless (`coffeetable.games.cafe.observation.expand_observation` rebuilds the full one)
and about an eighth of its size. `observation="full"` gives `cafe_v0`'s layout.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from coffeetable.rl.aec import CoffeetableAECEnv, ObsDict, wrap


class raw_env(CoffeetableAECEnv):
    metadata: dict[str, Any] = {**CoffeetableAECEnv.metadata, "name": "cafe_v1"}  # noqa: RUF012
    game_name = "cafe"
    default_observation = "compact"


def env(illegal_reward: float | None = None, **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """The wrapped environment (order enforcing, action bounds checked)."""
    return wrap(raw_env(**kwargs), illegal_reward)


__all__ = ["env", "raw_env"]
