"""The environments follow the research ecosystem's conventions: sb3-contrib's MaskablePPO
trains on them as they are (short runs, never an illegal action), its masked distribution
takes the batched API's masks.

Needs the `rl-train` extra (stable-baselines3, sb3-contrib, torch): skipped without it,
except where COFFEETABLE_REQUIRE_RLTRAIN=1 (as in .ci/run), which makes it a failure."""

from __future__ import annotations

import os
from typing import Any

import gymnasium
import numpy as np
import pytest

import coffeetable.rl as rl
from coffeetable.rl import AECBatch, CafeSoloEnv

REQUIRE_ENV = "COFFEETABLE_REQUIRE_RLTRAIN"
try:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor
except ImportError as exc:
    if os.environ.get(REQUIRE_ENV) == "1":
        raise ImportError(f"{REQUIRE_ENV}=1 but the rl-train extra is missing: {exc}") from exc
    pytest.skip(
        f"the rl-train extra is not installed (pip install -e '.[rl-train]'): {exc}",
        allow_module_level=True,
    )

from coffeetable.rl.sb3 import SB3VecEnv  # noqa: E402 - needs stable-baselines3

# one thread: torch's intra-op threads only contend on a small shared machine (a linear layer
# of the Café observation ran 4x slower with two threads than with one here)
torch.set_num_threads(1)
SMALL = {"net_arch": [32]}  # a small MLP: these runs check the plumbing, not the learning


class Watch(BaseCallback):  # type: ignore[misc]
    """Records every step's infos; fails on an illegal action."""

    def __init__(self) -> None:
        super().__init__()
        self.infos: list[dict[str, Any]] = []

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            assert not info["illegal_action"]
            self.infos.append(info)
        return True


def test_maskable_ppo_on_the_gymnasium_env() -> None:
    env = gymnasium.make(rl.CAFE_SOLO_ID, shaping="estimate")
    assert is_masking_supported(env)
    env.reset(seed=1)
    assert np.array_equal(get_action_masks(env), env.unwrapped.action_masks())
    watch = Watch()
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, policy_kwargs=SMALL
    )
    model.learn(256, callback=watch)
    assert len(watch.infos) == 256


def test_maskable_ppo_on_the_batched_env_in_workers() -> None:
    env = VecMonitor(SB3VecEnv(4, workers=2, max_steps=50))  # truncations: terminal obs
    assert is_masking_supported(env)
    watch = Watch()
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, policy_kwargs=SMALL
    )
    model.learn(256, callback=watch)
    ended = [i for i in watch.infos if "terminal_observation" in i]
    assert ended and all(i["terminal_observation"].shape == (17171,) for i in ended)
    assert all("episode" in i and "final_score" in i for i in ended)
    obs = env.reset()
    masks = get_action_masks(env)
    actions, _ = model.predict(obs, action_masks=masks)
    assert masks[np.arange(4), actions].all()
    env.close()


def test_sb3_vec_env_seeds() -> None:
    a, b = SB3VecEnv(2), SB3VecEnv(2)
    a.seed(5)
    b.seed(5)
    assert np.array_equal(a.reset(), b.reset())
    solo = CafeSoloEnv()
    obs, _ = solo.reset(seed=6)
    assert np.array_equal(a.reset()[1], b.reset()[1])
    b.seed(6)
    assert np.array_equal(b.reset()[0], obs)


@pytest.mark.parametrize(
    ("game", "players"), [("cafe", 2), ("coffee-rush", 3)], ids=["cafe", "coffee-rush"]
)
def test_masked_distribution_on_the_batched_aec_api(game: str, players: int) -> None:
    """sb3-contrib's masked categorical takes `AECBatch.action_masks()` as they are, and
    samples only legal actions."""
    with AECBatch(game, 8, num_players=players) as batch:
        batch.reset(seed=2)
        dist = MaskableCategoricalDistribution(int(batch.action_space.n))
        torch.manual_seed(0)
        for _ in range(40):
            dist.proba_distribution(torch.zeros(8, int(batch.action_space.n)))
            dist.apply_masking(batch.action_masks())
            batch.step(dist.sample().numpy())  # raises on an illegal action
