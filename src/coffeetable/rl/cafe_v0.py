"""Café as a PettingZoo AEC environment (docs/rl.md).

    from coffeetable.rl import cafe_v0
    env = cafe_v0.env(num_players=3, variant="advanced", espresso=True, promos=["leao"])
    env.reset(seed=7)

Keyword arguments: `num_players` (1-4), `reward` ("win" or "score"), `render_mode`
("ansi" or "human"), `illegal_reward` (`env()` only) and the game's options `variant`,
`espresso`, `promos`. The simultaneous phase is played lowest seat first (`coffeetable.rl.aec`).
The observation is the full layout (its space never changes); `observation="compact"` gives
the compact one, `cafe_v1`'s default.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv

from coffeetable.rl.aec import CoffeetableAECEnv, ObsDict, wrap


class raw_env(CoffeetableAECEnv):
    metadata: dict[str, Any] = {**CoffeetableAECEnv.metadata, "name": "cafe_v0"}  # noqa: RUF012
    game_name = "cafe"


def env(illegal_reward: float | None = None, **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """The wrapped environment (order enforcing, action bounds checked)."""
    return wrap(raw_env(**kwargs), illegal_reward)


__all__ = ["env", "raw_env"]
