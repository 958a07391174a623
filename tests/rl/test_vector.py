"""The batched environments: the Gymnasium vector env of solo Café matches Gymnasium's own
SyncVectorEnv of the single env step for step, the batched AEC API matches the AEC
environments lane by lane, worker processes change nothing, and the RL suite's checks (PettingZoo's
api_test and seed_test, masks equal to the legal actions, no hidden information) hold for the
batched API too."""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test

import coffeetable.rl as rl
from coffeetable.core.errors import DataError, IllegalActionError
from coffeetable.rl import AECBatch, CafeSoloEnv, CafeSoloVectorEnv, action_space
from coffeetable.rl.aec import CoffeetableAECEnv
from coffeetable.rl.observations import observation_tensor

from .test_envs import KNOWN


def masked_actions(rng: np.random.Generator, masks: np.ndarray, illegal: float = 0.0) -> np.ndarray:
    """A random legal action per row, or with probability `illegal` a random illegal one."""
    out = np.zeros(len(masks), dtype=np.int64)
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        if rng.random() < illegal or not legal.size:
            out[i] = int(rng.choice(np.flatnonzero(row == 0)))
        else:
            out[i] = int(rng.choice(legal))
    return out


def assert_same_infos(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        if key == "final_obs":
            for a, b in zip(ours[key], value, strict=True):
                assert (a is None and b is None) or np.array_equal(a, b)
        elif isinstance(value, dict):
            assert_same_infos(ours[key], value)
        else:
            assert np.array_equal(ours[key], value), key


@pytest.mark.parametrize("observation", ["full", "compact"])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_solo_vector_env_is_gymnasiums_sync_vector_env(
    mode: AutoresetMode, observation: str
) -> None:
    # short episodes: truncations and resets
    kwargs = {"max_steps": 40, "espresso": True, "observation": observation}
    ours = CafeSoloVectorEnv(3, autoreset_mode=mode, **kwargs)
    theirs = SyncVectorEnv([lambda: CafeSoloEnv(**kwargs)] * 3, autoreset_mode=mode)
    assert ours.metadata["autoreset_mode"] == mode
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.action_space == theirs.action_space
    obs, info = ours.reset(seed=9)
    obs2, info2 = theirs.reset(seed=9)
    assert np.array_equal(obs, obs2)
    assert_same_infos(info, info2)
    rng = np.random.default_rng(1)
    dones = 0
    for _ in range(130):
        assert np.array_equal(ours.action_masks(), info["action_mask"].astype(bool))
        actions = masked_actions(rng, info["action_mask"], illegal=0.05)
        obs, rew, term, trunc, info = ours.step(actions)
        obs2, rew2, term2, trunc2, info2 = theirs.step(actions)
        assert np.array_equal(obs, obs2)
        assert np.array_equal(rew, rew2) and rew.dtype == rew2.dtype
        assert np.array_equal(term, term2) and np.array_equal(trunc, trunc2)
        assert_same_infos(info, info2)
        assert ours.observation_space.contains(obs)
        dones += int(term.sum() + trunc.sum())
    assert dones >= 6
    ours.close()
    theirs.close()


@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")
def test_solo_vector_env_workers_and_make_vec() -> None:
    """Two worker processes play the same games as one process; gymnasium.make_vec builds
    the batched env from the registry, v1 with the compact observation."""
    v1 = gymnasium.make_vec(rl.CAFE_SOLO_V1_ID, num_envs=2, vectorization_mode="vector_entry_point")
    compact = CafeSoloEnv(observation="compact").observation_space
    assert v1.single_observation_space == compact
    assert v1.reset(seed=1)[0].shape == (2, *compact.shape)
    v1.close()
    here = gymnasium.make_vec(rl.CAFE_SOLO_ID, num_envs=4, vectorization_mode="vector_entry_point")
    assert isinstance(here.unwrapped, CafeSoloVectorEnv)
    there = CafeSoloVectorEnv(4, workers=2, autoreset_mode="SameStep")
    here_same = CafeSoloVectorEnv(4, autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        for a, b in ((here, CafeSoloVectorEnv(4)), (there, here_same)):
            obs, info = a.reset(seed=3)
            obs2, info2 = b.reset(seed=3)
            rng = np.random.default_rng(0)
            for _ in range(60):
                assert np.array_equal(obs, obs2)
                assert_same_infos(info, info2)
                actions = masked_actions(rng, info["action_mask"])
                obs, rew, term, _trunc, info = a.step(actions)
                obs2, rew2, term2, _trunc2, info2 = b.step(actions)
                assert np.array_equal(rew, rew2) and np.array_equal(term, term2)
            b.close()
    finally:
        here.close()
        there.close()


def test_solo_vector_env_errors_change_nothing() -> None:
    strict = CafeSoloVectorEnv(2, illegal="raise")
    _, info = strict.reset(seed=1)
    legal = masked_actions(np.random.default_rng(0), info["action_mask"])
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    with pytest.raises(IllegalActionError, match=r"environment 1: action \d+ .*not legal now"):
        strict.step(illegal)
    with pytest.raises(IllegalActionError, match="outside the action space"):
        strict.step(np.array([legal[0], 10**6]))
    with pytest.raises(IllegalActionError, match="expected 2 actions"):
        strict.step(legal[:1])
    # nothing moved: the same actions now give the same step as on a fresh env
    fresh = CafeSoloVectorEnv(2, illegal="raise")
    fresh.reset(seed=1)
    assert np.array_equal(strict.step(legal)[0], fresh.step(legal)[0])
    with pytest.raises(DataError):
        CafeSoloVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(DataError):
        CafeSoloVectorEnv(2, variant="advanced")
    with pytest.raises(DataError):
        CafeSoloVectorEnv(0)
    with pytest.raises(DataError, match="3 seeds for 2"):
        fresh.reset(seed=[1, 2, 3])


BATCHES = [
    ("cafe", {"num_players": 1}),
    ("cafe", {"num_players": 3, "variant": "advanced", "espresso": True}),
    ("cafe", {"num_players": 2, "observation": "compact"}),
    ("coffee-rush", {"num_players": 2}),
    ("coffee-rush", {"num_players": 4, "less_luck": True, "reward": "score"}),
]


def batch_id(case: tuple[str, dict[str, Any]]) -> str:
    return case[0] + str(sorted(case[1].items()))


@pytest.mark.parametrize("case", BATCHES, ids=batch_id)
def test_aec_batch_is_the_aec_env_lane_by_lane(case: tuple[str, dict[str, Any]]) -> None:
    """Each lane plays what the raw AEC env reset with seed + i then unseeded plays: the same
    acting seats, observations, masks and final rewards. The masks are the engine's legal
    actions, and the observations are unchanged when the hidden information is resampled."""
    game, kwargs = case
    compact = kwargs.get("observation") == "compact"
    n = 3
    batch = AECBatch(game, n, **kwargs)
    envs = [CoffeetableAECEnv(game=batch.game, **kwargs) for _ in range(n)]
    obs, masks, seats = batch.reset(seed=20)
    for i, env in enumerate(envs):
        env.reset(seed=20 + i)
    space = action_space(batch.game)
    rng = np.random.default_rng(2)
    hidden = random.Random(0)
    ended = 0
    for t in range(400 if game == "cafe" else 250):
        assert batch.observation_space.contains(obs[0])
        for i, env in enumerate(envs):
            seat = seats[i]
            assert env.agent_selection == f"player_{seat}"
            assert np.array_equal(obs[i], env.observe(env.agent_selection)["observation"])
            assert np.array_equal(masks[i], env.observe(env.agent_selection)["action_mask"])
            assert sorted(np.flatnonzero(masks[i])) == sorted(space.legal(env.state, seat))
            if t % 50 == i:
                other = env.state.resample_hidden(int(seat), hidden)
                assert np.array_equal(obs[i], observation_tensor(other, int(seat), compact))
        assert np.array_equal(batch.action_masks(), masks.astype(bool))
        actions = masked_actions(rng, masks)
        obs, masks, seats, rewards, terminated, infos = batch.step(actions)
        assert set(infos["final_obs"]) == set(np.flatnonzero(terminated))
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            expected = [env.rewards[a] for a in env.possible_agents]
            assert rewards[i] == pytest.approx(expected)
            if env.state.is_over():
                assert terminated[i]
                final = infos["final_obs"][i]
                for s in range(env.num_players):
                    assert np.array_equal(final[s], observation_tensor(env.state, s, compact))
                if kwargs.get("reward", "win") == "win" and env.num_players > 1:
                    assert rewards[i].sum() == pytest.approx(0)
                env.reset()
                ended += 1
            else:
                assert not terminated[i] and not rewards[i].any()
    assert ended >= 1
    batch.close()


def test_aec_batch_workers_are_deterministic() -> None:
    runs = []
    for workers in (0, 2, 3):
        with AECBatch("coffee-rush", 5, num_players=3, workers=workers) as batch:
            obs, masks, seats = batch.reset(seed=4)
            rng = np.random.default_rng(7)
            trace = [obs.sum(axis=1), seats]
            for _ in range(150):
                obs, masks, seats, rewards, _, infos = batch.step(masked_actions(rng, masks))
                trace += [obs.sum(axis=1), seats, rewards, np.array(sorted(infos["final_obs"]))]
            runs.append(trace)
    for other in runs[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(runs[0], other, strict=True))


def test_aec_batch_errors_change_nothing() -> None:
    with AECBatch("cafe", 2, num_players=2, workers=1) as batch:
        obs, masks, seats = batch.reset(seed=1)
        legal = masked_actions(np.random.default_rng(0), masks)
        bad = legal.copy()
        bad[1] = int(np.flatnonzero(masks[1] == 0)[0])
        with pytest.raises(IllegalActionError, match=r"environment 1: action \d+ .*not legal"):
            batch.step(bad)
        with pytest.raises(IllegalActionError, match="outside the action space"):
            batch.step(np.array([legal[0], -1]))
        with pytest.raises(IllegalActionError, match="expected 2 integer actions"):
            batch.step([0.5, 1.5])
        with pytest.raises(DataError):
            batch.observe(2, 0)
        again, again_masks = batch.observe(0, int(seats[0]))
        assert np.array_equal(again, obs[0]) and np.array_equal(again_masks, masks[0])
    with pytest.raises(DataError):
        AECBatch("coffee-rush", 2, num_players=1)
    with pytest.raises(DataError):
        AECBatch("cafe", 2, workers=-1)


class LaneAEC(AECEnv[str, dict[str, np.ndarray], int]):
    """Lane 0 of an AECBatch in a worker process, seen as a PettingZoo AEC environment: the
    acting agent and its view come from the batch, any other seat's view from
    `AECBatch.observe`, the end of a game from the step's rewards and final observations."""

    metadata = {"render_modes": [], "name": "lane", "is_parallelizable": False}  # noqa: RUF012

    def __init__(self, game: str, **kwargs: Any) -> None:
        super().__init__()
        self.batch = AECBatch(game, 1, workers=1, **kwargs)
        self.possible_agents = self.batch.possible_agents
        mask = gymnasium.spaces.Box(0, 1, shape=(self.batch.action_space.n,), dtype=np.int8)
        space = gymnasium.spaces.Dict(
            {"observation": self.batch.observation_space, "action_mask": mask}
        )
        self._spaces = dict.fromkeys(self.possible_agents, space)
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.batch.action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = int(np.random.default_rng().integers(2**31))
        _, _, seats = self.batch.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.final: np.ndarray | None = None
        self.agent_selection = self.possible_agents[int(seats[0])]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        if self.final is not None:
            mask = np.zeros(self.batch.action_space.n, dtype=np.int8)
            return {"observation": self.final[seat], "action_mask": mask}
        obs, mask = self.batch.observe(0, seat)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        _, _, seats, rewards, terminated, infos = self.batch.step([action])
        self._clear_rewards()
        if terminated[0]:
            self.final = infos["final_obs"][0]
            for a, r in zip(self.possible_agents, rewards[0], strict=True):
                self.rewards[a] = float(r)
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[int(seats[0])]
        self._accumulate_rewards()

    def close(self) -> None:
        self.batch.close()


@pytest.mark.filterwarnings(*KNOWN, "ignore:Environment has not defined a render:UserWarning")
@pytest.mark.parametrize(
    "case",
    [
        ("cafe", {"num_players": 2}),
        ("cafe", {"num_players": 3, "observation": "compact"}),
        ("coffee-rush", {"num_players": 3, "reward": "score"}),
    ],
    ids=batch_id,
)
def test_pettingzoo_api_and_seed_on_a_batch_lane(case: tuple[str, dict[str, Any]]) -> None:
    game, kwargs = case
    env = LaneAEC(game, **kwargs)
    try:
        api_test(env, num_cycles=150)
    finally:
        env.close()
    made: list[LaneAEC] = []

    def make() -> LaneAEC:
        made.append(LaneAEC(game, **kwargs))
        return made[-1]

    try:
        seed_test(make, num_cycles=60)
    finally:
        for e in made:
            e.close()
