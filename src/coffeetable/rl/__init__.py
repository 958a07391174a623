"""coffeetable's research interface (docs/rl.md): fixed action spaces and masks, per-seat
observation tensors, PettingZoo AEC environments (`cafe_v0`, `cafe_v1` with the compact
observation, `coffee_rush_v0`), a Gymnasium environment for solo Café (`CafeSoloEnv`, ids
`coffeetable/CafeSolo-v0`, full observation, and `coffeetable/CafeSolo-v1`, compact), batched
environments (`CafeSoloVectorEnv`, a Gymnasium VectorEnv; `AECBatch` for every game) and
vectorised random rollouts.

Needs the `rl` extra: `pip install 'coffeetable[rl]'` (numpy, gymnasium, pettingzoo).
Importing this package registers the environments with Gymnasium
(`gymnasium.make("coffeetable/CafeSolo-v1")`) and PettingZoo
(`pettingzoo.make("aec", "coffeetable/cafe_v1")`, where that registry exists).
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from coffeetable.rl.aec import REWARDS, CoffeetableAECEnv, final_rewards
from coffeetable.rl.observations import (
    OBSERVATIONS,
    observation_box,
    observation_layout,
    observation_shape,
    observation_tensor,
)
from coffeetable.rl.rollouts import RolloutBatch, random_rollouts
from coffeetable.rl.solo import CafeSoloEnv
from coffeetable.rl.spaces import (
    CAFE_ENGINE_CODE_BOUND,
    ActionSpace,
    CafeActionSpace,
    RushActionSpace,
    action_space,
)
from coffeetable.rl.vector import AECBatch, CafeSoloVectorEnv

CAFE_SOLO_ID = "coffeetable/CafeSolo-v0"
CAFE_SOLO_V1_ID = "coffeetable/CafeSolo-v1"
#: the Gymnasium ids and the observation each gives by default (`observation=` overrides it)
SOLO_IDS = {CAFE_SOLO_ID: "full", CAFE_SOLO_V1_ID: "compact"}
AEC_IDS = {
    "coffeetable/cafe_v0": "cafe_v0",
    "coffeetable/cafe_v1": "cafe_v1",
    "coffeetable/coffee_rush_v0": "coffee_rush_v0",
}


def _register() -> None:
    for solo_id, observation in SOLO_IDS.items():
        if solo_id not in gymnasium.registry:
            gymnasium.register(
                id=solo_id,
                entry_point="coffeetable.rl.solo:CafeSoloEnv",
                vector_entry_point="coffeetable.rl.vector:CafeSoloVectorEnv",
                kwargs={"observation": observation},
            )
    registry = getattr(pettingzoo, "aec_registry", None)
    register = getattr(pettingzoo, "register", None)
    if registry is None or register is None:  # PettingZoo before its registry (< 1.26)
        return
    for env_id, module in AEC_IDS.items():
        if env_id not in registry:
            register("aec", env_id, entry_point=f"coffeetable.rl.{module}:env")


_register()

__all__ = [
    "AEC_IDS",
    "CAFE_ENGINE_CODE_BOUND",
    "CAFE_SOLO_ID",
    "CAFE_SOLO_V1_ID",
    "OBSERVATIONS",
    "REWARDS",
    "SOLO_IDS",
    "AECBatch",
    "ActionSpace",
    "CafeActionSpace",
    "CafeSoloEnv",
    "CafeSoloVectorEnv",
    "CoffeetableAECEnv",
    "RolloutBatch",
    "RushActionSpace",
    "action_space",
    "final_rewards",
    "observation_box",
    "observation_layout",
    "observation_shape",
    "observation_tensor",
    "random_rollouts",
]
