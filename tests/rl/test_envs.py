"""The PettingZoo AEC environments and the Gymnasium solo environment pass their libraries'
own checkers, and play real games with the documented rewards."""

from __future__ import annotations

import random

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import coffeetable.rl as rl
from coffeetable.core.errors import DataError, IllegalActionError
from coffeetable.rl import CafeSoloEnv, cafe_v0, cafe_v1, coffee_rush_v0, final_rewards
from coffeetable.rl.observations import observation_layout, observation_tensor

from .helpers import random_game

#: api_test's advice for Box observations: classic games with masks use dicts, as we do
KNOWN = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]

AEC = [
    (cafe_v0, {"num_players": 1}),
    (cafe_v0, {"num_players": 2}),
    (cafe_v0, {"num_players": 3, "variant": "advanced", "espresso": True}),
    (cafe_v0, {"num_players": 4, "promos": ["leao"], "reward": "score"}),
    (cafe_v1, {"num_players": 1}),
    (cafe_v1, {"num_players": 2}),
    (cafe_v1, {"num_players": 3, "variant": "advanced", "espresso": True}),
    (cafe_v1, {"num_players": 4, "promos": ["leao"], "reward": "score"}),
    (cafe_v0, {"num_players": 2, "observation": "compact"}),
    (cafe_v1, {"num_players": 2, "observation": "full"}),
    (coffee_rush_v0, {"num_players": 2}),
    (coffee_rush_v0, {"num_players": 4, "less_luck": True, "reward": "score"}),
]


def aec_id(case: tuple[object, dict[str, object]]) -> str:
    module, kwargs = case
    return str(getattr(module, "__name__", "")).rsplit(".", 1)[-1] + str(sorted(kwargs.items()))


@pytest.mark.filterwarnings(*KNOWN)
@pytest.mark.parametrize("case", AEC, ids=aec_id)
def test_pettingzoo_api_and_seed(case) -> None:  # type: ignore[no-untyped-def]
    module, kwargs = case
    api_test(module.env(**kwargs), num_cycles=200)
    seed_test(lambda: module.env(**kwargs), num_cycles=100)


def play(env, rng: random.Random) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """One whole game with random masked actions; the final cumulative rewards."""
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        mask = obs["action_mask"]
        env.step(int(rng.choice(list(np.flatnonzero(mask)))))
    return final


@pytest.mark.parametrize("mode", ["win", "score"])
def test_aec_rewards_at_the_end(mode: str) -> None:
    env = cafe_v0.raw_env(num_players=3, reward=mode)
    env.reset(seed=11)
    state_seen = []
    final = {}
    rng = random.Random(1)
    for agent in env.agent_iter():
        obs, reward, terminated, _, _ = env.last()
        if terminated:
            final[agent] = reward
            env.step(None)
            continue
        assert reward == 0
        assert agent == f"player_{min(env.state.current_seats())}"  # lowest seat first
        state_seen.append(env.state)
        env.step(int(rng.choice(list(np.flatnonzero(obs["action_mask"])))))
    expected = final_rewards(state_seen[-1], mode)
    assert [final[f"player_{i}"] for i in range(3)] == pytest.approx(expected)
    if mode == "win":
        assert sum(expected) == pytest.approx(0)


def test_final_rewards_formulas() -> None:
    *_, state = random_game("coffee-rush", 3, {}, seed=3)
    totals = [s.total for s in state.scores()]
    win = final_rewards(state, "win")
    winners = state.winners()
    assert all(win[s] > 0 for s in winners) or len(winners) == 3
    assert sum(win) == pytest.approx(0)
    score = final_rewards(state, "score")
    assert score[0] == pytest.approx(totals[0] - (totals[1] + totals[2]) / 2)


def test_aec_reset_seed_is_the_game_seed() -> None:
    env = coffee_rush_v0.raw_env(num_players=3)
    env.reset(seed=42)
    from coffeetable import find_game

    expected = find_game("coffee-rush").new_initial_state(3, 42)
    assert env.state.to_json() == expected.to_json()
    env.reset()
    first = env.state.to_json()
    env.reset(seed=42)
    env.reset()
    assert env.state.to_json() == first  # unseeded resets follow the last seed


def test_aec_illegal_actions() -> None:
    raw = cafe_v0.raw_env(num_players=2)
    raw.reset(seed=1)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = raw.state.to_json()
    with pytest.raises(IllegalActionError, match="not legal now"):
        raw.step(illegal)
    assert raw.state.to_json() == before
    env = cafe_v0.env(num_players=2, illegal_reward=-1.0)
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(illegal)  # PettingZoo logs "Illegal move made" and ends the game
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0


def test_aec_bad_options() -> None:
    with pytest.raises(DataError):
        cafe_v0.env(num_players=1, variant="advanced")
    with pytest.raises(DataError):
        coffee_rush_v0.env(num_players=1)
    with pytest.raises(DataError):
        cafe_v0.env(reward="elo")
    with pytest.raises(DataError, match="unknown observation 'grid'"):
        cafe_v1.env(observation="grid")
    with pytest.raises(DataError, match="no compact observation"):
        coffee_rush_v0.env(observation="compact")
    with pytest.raises(DataError, match="unknown observation"):
        CafeSoloEnv(observation="dense")


def test_registries() -> None:
    assert rl.CAFE_SOLO_ID in gymnasium.registry and rl.CAFE_SOLO_V1_ID in gymnasium.registry
    if hasattr(pettingzoo, "make"):
        env = pettingzoo.make("aec", "coffeetable/coffee_rush_v0", num_players=2)
        env.reset(seed=0)
        assert env.agents == ["player_0", "player_1"]
        v1 = pettingzoo.make("aec", "coffeetable/cafe_v1", num_players=3)
        assert v1.unwrapped.observation_kind == "compact"


@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")
def test_versions_and_their_observations() -> None:
    """v0 keeps the full layout (its spaces never change), v1 defaults to the compact one;
    both take `observation=` for the other; what they hand out is `observation_tensor` of
    that layout."""
    game = rl.CafeSoloEnv().game
    for n in (1, 2, 4):
        full = observation_layout(game, n).size
        compact = observation_layout(game, n, compact=True).size
        assert compact * 6 < full
        for module, kwargs, size in (
            (cafe_v0, {}, full),
            (cafe_v1, {}, compact),
            (cafe_v0, {"observation": "compact"}, compact),
            (cafe_v1, {"observation": "full"}, full),
        ):
            env = module.env(num_players=n, **kwargs)
            assert env.observation_space("player_0")["observation"].shape == (size,)
            env.reset(seed=n)
            obs, *_ = env.last()
            seat = int(env.agent_selection.split("_")[1])
            state = env.unwrapped.state
            assert np.array_equal(
                obs["observation"], observation_tensor(state, seat, compact=size == compact)
            )
    for env_id, kwargs, n in (
        (rl.CAFE_SOLO_ID, {}, 17171),
        (rl.CAFE_SOLO_V1_ID, {}, observation_layout(game, 1, compact=True).size),
        (rl.CAFE_SOLO_V1_ID, {"observation": "full"}, 17171),
    ):
        made = gymnasium.make(env_id, **kwargs)
        assert made.observation_space.shape == (n,)
        obs, _ = made.reset(seed=2)
        assert obs.shape == (n,)


SOLO_LAYOUTS = pytest.mark.parametrize("observation", ["full", "compact"])


@SOLO_LAYOUTS
@pytest.mark.parametrize(
    "kwargs", [{}, {"shaping": "estimate"}, {"espresso": True, "promos": ["atlas"]}]
)
def test_gymnasium_check_env(kwargs, observation: str) -> None:  # type: ignore[no-untyped-def]
    check_env(CafeSoloEnv(observation=observation, **kwargs), skip_render_check=True)


@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")
@pytest.mark.parametrize("env_id", [rl.CAFE_SOLO_ID, rl.CAFE_SOLO_V1_ID])
def test_gymnasium_make_and_render(env_id: str) -> None:
    env = gymnasium.make(env_id, render_mode="ansi")
    check_env(env.unwrapped)
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and "Café" in text


@SOLO_LAYOUTS
@pytest.mark.parametrize("shaping", [None, "estimate"])
def test_solo_return_is_the_final_score(shaping: str | None, observation: str) -> None:
    env = CafeSoloEnv(shaping=shaping, observation=observation)
    obs, info = env.reset(seed=5)
    start = env.state.clone()
    rng = np.random.default_rng(0)
    total, terminated = 0.0, False
    while not terminated:
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs, observation_tensor(env.state, 0, observation == "compact"))
        legal = np.flatnonzero(info["action_mask"])
        others = [i for i in legal if i != env.actions.offsets["end"]]
        pick = rng.choice(others if others and rng.random() < 0.9 else legal)
        obs, reward, terminated, truncated, info = env.step(pick)
        assert not truncated
        total += reward
    final = env.state.scores()[0].total
    assert info["score"] == final and not info["action_mask"].any()
    if shaping is None:
        assert total == final
    else:
        from coffeetable.bots.heuristics import value

        assert total == pytest.approx(final - value(start, 0))


def test_solo_illegal_actions() -> None:
    env = CafeSoloEnv()
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.state.to_json()
    _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and info["illegal_action"] and not terminated
    assert env.state.to_json() == before
    strict = CafeSoloEnv(illegal="raise")
    strict.reset(seed=2)
    with pytest.raises(IllegalActionError, match="not legal now"):
        strict.step(illegal)
    short = CafeSoloEnv(max_steps=3)
    short.reset(seed=2)
    results = [short.step(illegal) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    with pytest.raises(DataError):
        CafeSoloEnv(variant="advanced")


@pytest.mark.parametrize(
    "module", [cafe_v0, cafe_v1, coffee_rush_v0], ids=["cafe", "cafe_v1", "coffee-rush"]
)
def test_action_masks_through_pettingzoos_wrappers(module) -> None:  # type: ignore[no-untyped-def]
    """`action_masks()` (sb3-contrib's convention) reaches through PettingZoo's wrappers."""
    env = module.env(num_players=2)  # order-enforcing and bounds-checking wrappers
    env.reset(seed=3)
    for _ in range(30):
        agent = env.agent_selection
        obs, *_ = env.last()
        masks = env.action_masks()
        assert masks.dtype == np.bool_
        assert np.array_equal(masks, obs["action_mask"].astype(bool))
        assert np.array_equal(env.action_masks(agent), masks)
        env.step(int(np.flatnonzero(masks)[0]))


@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")
@pytest.mark.parametrize("env_id", [rl.CAFE_SOLO_ID, rl.CAFE_SOLO_V1_ID])
def test_solo_action_masks(env_id: str) -> None:
    env = gymnasium.make(env_id)
    _, info = env.reset(seed=4)
    for _ in range(20):
        masks = env.unwrapped.action_masks()
        assert masks.dtype == np.bool_ and np.array_equal(masks, info["action_mask"].astype(bool))
        _, _, _, _, info = env.step(int(np.flatnonzero(masks)[-1]))


@pytest.mark.parametrize("illegal_reward", [None, -1.0])
@pytest.mark.parametrize("module", [cafe_v0, cafe_v1, coffee_rush_v0])
def test_direct_last_equals_pettingzoos(module, illegal_reward) -> None:  # type: ignore[no-untyped-def]
    """`wrap`'s order-enforcing wrapper reads `last()` straight from the raw environment
    (only without `illegal_reward`): at every step of random games, also after the game
    ended, it gives what PettingZoo's own `AECEnv.last` gives through the wrappers."""
    from pettingzoo import AECEnv

    from coffeetable.rl.aec import OrderEnforcingWrapper

    env = module.env(num_players=3, illegal_reward=illegal_reward)
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env, pettingzoo.utils.wrappers.OrderEnforcingWrapper)
    assert (env._raw is None) == (illegal_reward is not None)
    assert str(env) == str(pettingzoo.utils.wrappers.OrderEnforcingWrapper(env.env))
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    rng = random.Random(5)
    for game in range(3):
        env.reset(seed=game)
        for _agent in env.agent_iter():
            mine, theirs = env.last(), AECEnv.last(env)
            raw = env.unwrapped
            if illegal_reward is None and not raw.state.is_over():
                # rewards at the end only (step leaves them alone before)
                assert set(raw.rewards.values()) == set(raw._cumulative_rewards.values()) == {0}
            assert np.array_equal(mine[0]["observation"], theirs[0]["observation"])
            assert np.array_equal(mine[0]["action_mask"], theirs[0]["action_mask"])
            assert mine[1:] == theirs[1:]
            assert env.last(observe=False) == (None, *theirs[1:])
            if mine[2] or mine[3]:
                env.step(None)
                continue
            if illegal_reward is not None and rng.random() < 0.01:
                env.step(int(np.flatnonzero(mine[0]["action_mask"] == 0)[0]))  # ends it
                continue
            env.step(int(rng.choice(np.flatnonzero(mine[0]["action_mask"]))))


@pytest.mark.parametrize("module", [cafe_v0, cafe_v1, coffee_rush_v0])
def test_direct_step_equals_pettingzoos_wrappers(module, caplog) -> None:  # type: ignore[no-untyped-def]
    """`wrap`'s order-enforcing wrapper steps the raw environment directly: random games
    through it and through PettingZoo's own wrappers (the same seeds and actions) pass
    through the same observations, rewards and ends; an action outside the space fails
    PettingZoo's bounds check, changing nothing; a step after the end only warns."""
    from pettingzoo.utils import wrappers as pz

    from coffeetable.rl.aec import OrderEnforcingWrapper

    mine = module.env(num_players=2)
    theirs = pz.OrderEnforcingWrapper(pz.AssertOutOfBoundsWrapper(module.raw_env(num_players=2)))
    assert isinstance(mine, OrderEnforcingWrapper) and mine._raw is not None
    rng = random.Random(7)
    for game in range(2):
        for env in (mine, theirs):
            env.reset(seed=game)
        for agent in mine.agent_iter():
            assert agent == theirs.agent_selection
            a, b = mine.last(), theirs.last()
            assert np.array_equal(a[0]["observation"], b[0]["observation"])
            assert a[1:] == b[1:]
            if a[2] or a[3]:
                for env in (mine, theirs):
                    env.step(None)
                continue
            if rng.random() < 0.05:
                for env in (mine, theirs):
                    with pytest.raises(AssertionError, match="action is not in action space"):
                        env.step(env.unwrapped.actions.size)
                assert np.array_equal(mine.last()[0]["observation"], a[0]["observation"])
            action = int(rng.choice(np.flatnonzero(a[0]["action_mask"])))
            for env in (mine, theirs):
                env.step(action)
        assert theirs.agents == mine.agents == []
        assert mine.unwrapped.rewards == theirs.unwrapped.rewards
    mine.step(0)
    assert "after all agents are terminated or truncated" in caplog.text
