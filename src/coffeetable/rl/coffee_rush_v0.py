"""Coffee Rush as a PettingZoo AEC environment (docs/rl.md).

    from coffeetable.rl import coffee_rush_v0
    env = coffee_rush_v0.env(num_players=3, less_luck=True)
    env.reset(seed=7)

Keyword arguments: `num_players` (2-4), `reward` ("win" or "score"), `render_mode`
("ansi" or "human"), `illegal_reward` (`env()` only) and the game's option `less_luck`.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from coffeetable.rl.aec import CoffeetableAECEnv, ObsDict, wrap


class raw_env(CoffeetableAECEnv):
    metadata: dict[str, Any] = {**CoffeetableAECEnv.metadata, "name": "coffee_rush_v0"}  # noqa: RUF012
    game_name = "coffee-rush"


def env(illegal_reward: float | None = None, **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """The wrapped environment (order enforcing, action bounds checked)."""
    return wrap(raw_env(**kwargs), illegal_reward)


__all__ = ["env", "raw_env"]
