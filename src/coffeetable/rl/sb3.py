"""Stable-Baselines3's `VecEnv` over the batched solo-Café environment (docs/rl.md).

    from sb3_contrib import MaskablePPO
    from coffeetable.rl.sb3 import SB3VecEnv
    env = SB3VecEnv(16, workers=2, shaping="estimate")
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

Stable-Baselines3 (and sb3-contrib's `MaskablePPO`) take their own vectorised environment
class, not Gymnasium's `VectorEnv`. `SB3VecEnv` is one, backed by a `CafeSoloVectorEnv` in
`SAME_STEP` autoreset mode: the games are stepped together (in `workers` processes if asked),
a finished game's last observation is in its info as `"terminal_observation"`, a truncated
one has `"TimeLimit.truncated"`, and `env_method("action_masks")` (what `MaskablePPO` calls)
gives each lane's mask. Each info also has `score` and `illegal_action`, as
`CafeSoloEnv`'s; a finished game's has `final_score`.

`MlpPolicy` runs but learns almost nothing in minutes (15,905 outputs, one per action index);
`coffeetable.rl.sb3_policy.CafeSoloActionPolicy` scores the legal actions from their features
and beats random play within ten minutes (docs/rl.md).

Needs the `rl-train` extra (`pip install 'coffeetable[rl-train]'`: stable-baselines3,
sb3-contrib, torch, matplotlib); nothing else in `coffeetable.rl` imports this module.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from coffeetable.rl.vector import CafeSoloVectorEnv


class SB3VecEnv(VecEnv):
    """`num_envs` solo Café games as a Stable-Baselines3 `VecEnv` (module docstring).
    Keyword arguments: `workers`, `context` and `CafeSoloEnv`'s options (`shaping`,
    `illegal`, `illegal_reward`, `max_steps`, `espresso`, `promos`)."""

    def __init__(self, num_envs: int, **kwargs: Any) -> None:
        self.venv = CafeSoloVectorEnv(
            num_envs, autoreset_mode=AutoresetMode.SAME_STEP, copy=False, **kwargs
        )
        self._actions = np.zeros(num_envs, dtype=np.int64)
        super().__init__(
            num_envs, self.venv.single_observation_space, self.venv.single_action_space
        )

    def reset(self) -> np.ndarray[Any, Any]:
        seeds = None if all(s is None for s in self._seeds) else self._seeds
        obs, infos = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self.reset_infos = self._infos(infos)
        return obs.copy()

    def step_async(self, actions: np.ndarray[Any, Any]) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        out = self._infos(infos)
        for i in np.flatnonzero(terminated | truncated):
            out[i]["terminal_observation"] = infos["final_obs"][i]
            out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            out[i]["final_score"] = int(infos["final_info"]["score"][i])
        return obs.copy(), rewards.astype(np.float32), terminated | truncated, out

    @staticmethod
    def _infos(infos: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"score": int(s), "illegal_action": bool(b)}
            for s, b in zip(infos["score"], infos["illegal_action"], strict=True)
        ]

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """Every lane's legal actions, (num_envs, actions) booleans."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    # --- the attribute protocol: the lanes are not separate objects here --------------------
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._get_indices(indices)]
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"{type(self).__name__} does not set attributes of its lanes")

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"{type(self).__name__} lanes offer action_masks() only")
        masks = self.venv.action_masks()
        return [masks[i] for i in self._get_indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.venv, attr_name)

    def env_is_wrapped(
        self,
        wrapper_class: type[gymnasium.Wrapper[Any, Any, Any, Any]],
        indices: VecEnvIndices = None,
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


__all__ = ["SB3VecEnv"]
