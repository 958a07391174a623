"""The environments follow the research ecosystem's conventions: sb3-contrib's MaskablePPO
trains on them as they are (short runs, never an illegal action), its masked distribution
takes the batched API's masks. `CafeSoloActionPolicy` (MaskablePPO with an action-feature
actor) trains on the batched solo environment without an illegal action, and its distribution
is sb3-contrib's masked categorical restricted to the legal actions.

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
from coffeetable.rl.action_features import KIND_NAMES, CafeSoloActionFeatures, FeatureCache

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
from coffeetable.rl.sb3_policy import CafeSoloActionPolicy, LegalActions  # noqa: E402

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


# --- CafeSoloActionPolicy (coffeetable.rl.sb3_policy) -----------------------------------
SMALL_FEATURES = {"actor_arch": [16], "critic_arch": [16]}


def positions(
    games: int, seed: int, observation: str = "full"
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Observations and masks of random solo games."""
    env = CafeSoloEnv(observation=observation)
    rng = np.random.default_rng(seed)
    obs_rows, mask_rows = [], []
    for game in range(games):
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            mask = env.action_masks()
            obs_rows.append(obs)
            mask_rows.append(mask)
            obs, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(mask)))
            done = terminated or truncated
    return np.array(obs_rows), np.array(mask_rows)


class Count(BaseCallback):  # type: ignore[misc]
    """Counts steps and finished games; fails on an illegal action."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = self.games = 0

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            assert not info["illegal_action"]
            self.steps += 1
            self.games += "final_score" in info
        return True


def test_action_feature_policy_trains_without_an_illegal_action() -> None:
    env = VecMonitor(SB3VecEnv(4, shaping="estimate", max_steps=60))
    env.seed(3)
    model = MaskablePPO(
        CafeSoloActionPolicy,
        env,
        n_steps=64,
        batch_size=64,
        n_epochs=2,
        seed=0,
        policy_kwargs=SMALL_FEATURES,
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    watch = Count()
    model.learn(256, callback=watch)
    assert watch.steps == 256 and watch.games > 0
    after = list(model.policy.parameters())
    assert all(not torch.equal(a, b) for a, b in zip(before, after, strict=True))
    cache = model.policy.feature_cache
    assert cache.hits > cache.misses  # the update's epochs reuse the rollout's rows
    obs = env.reset()
    masks = env.action_masks()
    for deterministic in (True, False):
        actions, _ = model.predict(obs, action_masks=masks, deterministic=deterministic)
        assert masks[np.arange(4), actions].all()
    env.close()


def test_action_feature_policy_is_the_masked_categorical_on_legal_actions() -> None:
    env = SB3VecEnv(1)
    model = MaskablePPO(CafeSoloActionPolicy, env, n_steps=8, batch_size=8, seed=1)
    policy = model.policy
    with torch.no_grad():  # random weights, so the logits differ between actions
        for p in policy.scorer.parameters():
            p.normal_(0, 0.5)
    obs, masks = positions(2, seed=5)
    obs_t = torch.as_tensor(obs)
    with torch.no_grad():
        ours = policy.get_distribution(obs_t, action_masks=masks)
        assert isinstance(ours, LegalActions)
        # the same logits over all 15,905 indices, masked by sb3-contrib
        full = torch.full((len(obs), masks.shape[1]), 0.0)
        full.scatter_(1, ours.index, torch.where(ours.valid, ours.distribution.logits, 0.0))
        theirs = MaskableCategoricalDistribution(masks.shape[1]).proba_distribution(full)
        theirs.apply_masking(masks)
        probs = theirs.distribution.probs
        assert float(probs[torch.as_tensor(~masks)].max()) < 1e-12  # nothing illegal
        torch.manual_seed(0)
        for _ in range(3):
            actions = ours.get_actions()
            assert masks[np.arange(len(obs)), actions.numpy()].all()
            assert torch.allclose(ours.log_prob(actions), theirs.log_prob(actions), atol=1e-5)
        mode = ours.get_actions(deterministic=True)
        assert torch.equal(mode, theirs.get_actions(deterministic=True))
        assert torch.allclose(ours.entropy(), theirs.entropy(), atol=1e-4)
        values, log_prob, entropy = policy.evaluate_actions(obs_t, mode, action_masks=masks)
        assert entropy is not None and torch.allclose(entropy, theirs.entropy(), atol=1e-4)
        assert values.shape == (len(obs), 1)
        assert torch.allclose(log_prob, theirs.log_prob(mode), atol=1e-5)
        illegal = int(np.flatnonzero(~masks[0])[0])
        with pytest.raises(ValueError, match="not among the legal actions"):
            ours.log_prob(torch.full((len(obs),), illegal))
    env.close()


def test_action_feature_policy_rejects_bad_input() -> None:
    env = SB3VecEnv(1)
    model = MaskablePPO(CafeSoloActionPolicy, env, n_steps=8, batch_size=8, seed=1)
    obs = env.reset()
    with pytest.raises(ValueError, match="pass action_masks"):
        model.predict(obs)
    with pytest.raises(ValueError, match="no legal action"):
        model.predict(obs, action_masks=np.zeros((1, 15_905), dtype=bool))
    env.close()
    with pytest.raises(ValueError, match="for solo Café"):
        MaskablePPO(CafeSoloActionPolicy, "CartPole-v1")


def test_cached_feature_rows_equal_computed_ones() -> None:
    space = CafeSoloEnv().actions
    features = CafeSoloActionFeatures(space)
    obs, masks = positions(1, seed=9)
    cache = FeatureCache(size=8)
    plain = features.batch(obs, masks)
    first = features.batch(obs, masks, cache)
    assert cache.misses == len(obs) and len(cache.rows) == 8  # bounded
    tail = features.batch(obs[-8:], masks[-8:], cache)
    assert cache.hits == 8  # the last eight rows came from the cache
    again = features.batch(obs, masks, cache)
    for a, b, c in zip(plain, first, again, strict=True):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    skip = int(plain[2][:-8].sum())  # the feature rows of the positions before the last 8
    assert np.array_equal(tail[0], plain[0][skip:])
    phi, index, valid = plain
    assert np.array_equal(index[valid], np.concatenate([np.flatnonzero(m) for m in masks]))
    assert phi.shape == (int(valid.sum()), features.size)
    with pytest.raises(ValueError, match="expected obs"):
        features.batch(obs, masks[:, :100])
    with pytest.raises(ValueError, match="at least one row"):
        FeatureCache(0)


def test_action_features_are_the_same_in_both_layouts() -> None:
    """The features of CafeSolo-v1's compact observation are those of the full one (the
    slots table is `p0.slots`, the cells a placement covers are read from it)."""
    space = CafeSoloEnv().actions
    full_obs, masks = positions(2, seed=4)
    compact_obs, compact_masks = positions(2, seed=4, observation="compact")
    assert np.array_equal(masks, compact_masks)
    assert compact_obs.shape[1] * 6 < full_obs.shape[1]
    features = CafeSoloActionFeatures(space)
    full = features.batch(full_obs, masks)
    compact = CafeSoloActionFeatures(space, compact=True).batch(compact_obs, masks)
    for a, b in zip(full, compact, strict=True):
        assert np.array_equal(a, b)
    _, index, valid = full
    kinds = np.searchsorted(features.starts, index[valid], side="right") - 1
    assert (kinds == KIND_NAMES.index("place")).any()  # the covered cells were compared


def test_action_feature_policy_trains_the_same_on_the_compact_observation() -> None:
    """MaskablePPO with CafeSoloActionPolicy on CafeSolo-v1's compact observation learns
    exactly what it learns on the full one (the same seeds): the networks see the same
    values."""
    learnt = []
    for observation in ("full", "compact"):
        env = SB3VecEnv(2, shaping="estimate", max_steps=40, observation=observation)
        env.seed(5)
        model = MaskablePPO(
            CafeSoloActionPolicy,
            env,
            n_steps=32,
            batch_size=32,
            n_epochs=1,
            seed=0,
            policy_kwargs=SMALL_FEATURES,
        )
        model.learn(64)
        learnt.append([p.detach().clone() for p in model.policy.parameters()])
        env.close()
    assert all(torch.equal(a, b) for a, b in zip(*learnt, strict=True))
