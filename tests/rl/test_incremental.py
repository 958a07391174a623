"""The kept observations (`Observer`, Café and Coffee Rush): rewritten only where the state
changed, and always equal to the from-scratch `observation_tensor`."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffeetable import find_game
from coffeetable.core.errors import DataError
from coffeetable.games.cafe import observation
from coffeetable.games.cafe.observation import (
    Observer,
    expand_observation,
    observation_layout,
    observation_tensor,
)
from coffeetable.games.coffee_rush import observation as rush_observation
from coffeetable.rl import CafeSoloEnv, cafe_v0, coffee_rush_v0

from .helpers import CAFE_CONFIGS, RUSH_CONFIGS, choose, config_id, random_game


def play_and_compare(
    n: int,
    options: dict[str, Any],
    seed: int,
    every_seat: bool,
    game: str = "cafe",
    compact: bool = False,
) -> int:
    """Observe a random game after every step (every seat, or only the acting one, as an
    environment does) and compare with the from-scratch tensor; the number of checks. With
    `compact` (Café), the compact layout's, whose expansion must be the full tensor."""
    if game == "cafe":
        cafe = find_game("cafe")
        observer: Any = Observer(cafe, compact=compact)

        def fresh_of(state: Any, seat: int) -> Any:
            return observation_tensor(state, seat, compact=compact)
    else:
        observer = rush_observation.Observer(find_game(game))
        fresh_of = rush_observation.observation_tensor
    checks = 0
    for state in random_game(game, n, options, seed):
        seats = range(n) if every_seat or state.is_over() else [min(state.current_seats())]
        for seat in seats:
            kept = observer.observe(state, seat)
            fresh = fresh_of(state, seat)
            changed = np.flatnonzero(kept != fresh)
            assert not changed.size, f"seed {seed}, seat {seat}: differs at {changed[:10]}"
            if compact:
                full = expand_observation(cafe, n, fresh)
                lost = np.flatnonzero(full != observation_tensor(state, seat))
                assert not lost.size, f"seed {seed}, seat {seat}: expanded differs at {lost[:10]}"
            checks += 1
    return checks


LAYOUTS = pytest.mark.parametrize("compact", [False, True], ids=["full", "compact"])


@LAYOUTS
@pytest.mark.parametrize("config", CAFE_CONFIGS, ids=config_id)
def test_kept_equals_fresh_after_every_step(config, compact: bool) -> None:  # type: ignore[no-untyped-def]
    _, n, options = config
    seed = n * 7 + len(options)
    assert play_and_compare(n, options, seed, every_seat=True, compact=compact) > 20


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 4), seed=st.integers(0, 2**31), every_seat=st.booleans())
def test_kept_equals_fresh_in_random_games(n: int, seed: int, every_seat: bool) -> None:
    play_and_compare(n, {}, seed, every_seat)


VARIANTS = [
    {},
    {"espresso": True},
    {"promos": ["leao", "coffee-mine", "atlas"]},
    {"variant": "advanced"},
    {"variant": "advanced", "espresso": True, "promos": ["leao", "atlas"]},
]


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 4),
    options=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**31),
    every_seat=st.booleans(),
)
def test_compact_is_lossless_in_random_games(
    n: int, options: dict[str, Any], seed: int, every_seat: bool
) -> None:
    """The compact observation, kept or fresh, expands to the full one exactly, after every
    step of random games at 1-4 players in every variant (advanced mode from 2 players)."""
    if n == 1 and options.get("variant") == "advanced":
        options = {k: v for k, v in options.items() if k != "variant"}
    play_and_compare(n, options, seed, every_seat, compact=True)


def test_expand_takes_a_batch_and_checks_the_size() -> None:
    """A batch (any leading axes) expands row by row; a full tensor is refused."""
    game = find_game("cafe")
    states = [s.clone() for s in random_game("cafe", 3, {"espresso": True}, 5)][::15][:6]
    assert len(states) == 6
    compact = np.stack([observation_tensor(s, 1, compact=True) for s in states])
    full = np.stack([observation_tensor(s, 1) for s in states])
    assert np.array_equal(expand_observation(game, 3, compact), full)
    batched = expand_observation(game, 3, compact.reshape(2, 3, -1))
    assert np.array_equal(batched, full.reshape(2, 3, -1))
    with pytest.raises(DataError, match="compact 3-player"):
        expand_observation(game, 3, full[0])
    assert observation_layout(game, 3, compact=True).size * 8 < full.shape[1]


@LAYOUTS
def test_kept_across_games_and_unrelated_states(compact: bool) -> None:
    """One observer for states of different games and variants, out of order (a reset, a
    clone, a resampled state): each observation is still the state's own."""
    game = find_game("cafe")
    observer = Observer(game, compact=compact)
    states = [
        s.clone()
        for seed, options in ((3, {}), (4, {"espresso": True}), (5, {"variant": "advanced"}))
        for s in random_game("cafe", 3, options, seed)
    ]
    rng = random.Random(1)
    for _ in range(600):
        state = rng.choice(states)
        seat = rng.randrange(3)
        if rng.random() < 0.2:
            state = state.resample_hidden(seat, rng)
        fresh = observation_tensor(state, seat, compact=compact)
        assert np.array_equal(observer.observe(state, seat), fresh)
    four = game.new_initial_state(4, 1, {"espresso": True})
    assert np.array_equal(observer.observe(four, 3), observation_tensor(four, 3, compact=compact))


@LAYOUTS
@pytest.mark.parametrize("n", [1, 2, 4])
def test_a_clone_played_apart_is_observed_as_its_own(n: int, compact: bool) -> None:
    """A state and its clone, played on apart (different random actions) and observed in
    turns through one Observer: each observation equals a fresh one of that state, so no
    kept part (a frame in an area's memo, a grid, the cards) is carried from one lineage
    to the other."""
    game = find_game("cafe")
    observer = Observer(game, compact=compact)
    original = game.new_initial_state(n, 11, {"espresso": True})
    rng = random.Random(n)
    for _ in range(40):  # into the turns, areas grown
        seat = min(original.current_seats())
        observer.observe(original, seat)
        original.apply_unchecked(seat, choose(rng, original.legal_actions(seat)))
    clone = original.clone()
    rngs = {id(original): random.Random(100 + n), id(clone): random.Random(200 + n)}
    diverged = False
    for step in range(400):
        state = original if step % 2 else clone
        if state.is_over():
            continue
        seat = min(state.current_seats())
        for s in range(n):
            kept = observer.observe(state, s)
            assert np.array_equal(kept, observation_tensor(state, s, compact=compact)), (step, s)
        state.apply_unchecked(seat, choose(rngs[id(state)], state.legal_actions(seat)))
        diverged = diverged or not np.array_equal(
            observation_tensor(original, 0), observation_tensor(clone, 0)
        )
    assert diverged  # the two lineages did differ


@pytest.mark.parametrize("options", [{}, {"espresso": True}, {"promos": ["atlas"]}])
def test_unseen_cards_are_what_a_player_can_count(options: dict[str, Any]) -> None:
    """The `cards` field's unseen row: as many cards as the deck plus the cards removed at
    random, none of them a card in sight, every one a card of this game."""
    game = find_game("cafe")
    layout = observation.observation_layout(game, 2)
    start, stop = layout.span("cards")
    ids = [c.id for c in game.deck.cards]
    for i, state in enumerate(random_game("cafe", 2, options, seed=21)):
        if i % 7:
            continue
        rows = observation_tensor(state, 0)[start:stop].reshape(6, len(ids))
        unseen = {ids[k] for k in np.flatnonzero(rows[5])}
        removed_rule = state.removed_by_rule()
        assert len(unseen) == len(state.deck) + len(state.removed) - len(removed_rule)
        assert unseen == set(state.deck) | (set(state.removed) - set(removed_rule))
        assert not rows[:5].sum(axis=0)[[ids.index(c) for c in unseen]].any()


def test_observe_hands_out_a_copy() -> None:
    state = find_game("cafe").new_initial_state(2, 5)
    observer = Observer(state.game)
    first = observer.observe(state, 0)
    first[:] = 7
    assert np.array_equal(observer.observe(state, 0), observation_tensor(state, 0))


#: a compiled observation module (setup.py, mypyc) calls its own functions directly: patching
#: one of them changes nothing there, so the tests that break a key on purpose cannot run (the
#: kept-equals-fresh tests above still run, and tests/games/cafe/test_compiled.py checks the
#: compiled from-scratch tensors against the pure Python ones)
COMPILED = not (observation.__file__ or "").endswith(".py")
needs_pure = pytest.mark.skipif(COMPILED, reason="observation.py is compiled (mypyc)")
RUSH_COMPILED = not (rush_observation.__file__ or "").endswith(".py")
needs_pure_rush = pytest.mark.skipif(
    RUSH_COMPILED, reason="coffee_rush/observation.py is compiled (mypyc)"
)

#: the open and pending part of a grid's key when nothing is open or pending
NO_MARKS = observation._marks_key(find_game("cafe").new_initial_state(1, 0).players[0])


@needs_pure
@pytest.mark.parametrize(
    "broken",
    [
        # the cubes left out of the grid's key: the cells whose cubes moved are not rewritten
        lambda player, frame: (
            frame,
            {},
            tuple(player.area.shops),
            observation._marks_key(player),
        ),
        # the shops left out: a shop's needs are not rewritten when a cube goes in
        lambda player, frame: (frame, player.area.cubes.copy(), (), observation._marks_key(player)),
        # the open and pending cells left out
        lambda player, frame: (
            frame,
            player.area.cubes.copy(),
            tuple(player.area.shops),
            NO_MARKS,
        ),
    ],
    ids=["cubes", "shops", "open-cells"],
)
@LAYOUTS
def test_a_skipped_update_is_caught(
    monkeypatch: pytest.MonkeyPatch, broken: Any, compact: bool
) -> None:
    """The comparison above can fail: with part of a key left out on purpose (so an update
    of those cells is skipped), the kept observation differs from the fresh one within a few
    games."""
    monkeypatch.setattr(observation, "_grid_key", broken)
    with pytest.raises(AssertionError, match="differs at"):
        for seed in range(6):
            play_and_compare(2, {}, seed, every_seat=False, compact=compact)


def test_environment_observations_are_fresh_ones() -> None:
    """cafe_v0 observes through an Observer: its observations equal the fresh tensors."""
    env = cafe_v0.raw_env(num_players=4)
    env.reset(seed=11)
    rng = random.Random(2)
    for _ in range(400):
        if env.state.is_over():
            env.reset()
        agent = env.agent_selection
        seat = int(agent.split("_")[1])
        obs = env.observe(agent)
        assert np.array_equal(obs["observation"], observation_tensor(env.state, seat))
        other = rng.randrange(4)
        assert np.array_equal(
            env.observe(f"player_{other}")["observation"], observation_tensor(env.state, other)
        )
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ==== Coffee Rush ================================================================================
@pytest.mark.parametrize("config", RUSH_CONFIGS, ids=config_id)
def test_rush_kept_equals_fresh_after_every_step(config) -> None:  # type: ignore[no-untyped-def]
    _, n, options = config
    for seed in range(3):
        assert play_and_compare(n, options, seed, seed % 2 == 0, "coffee-rush") > 20


def test_rush_kept_across_games_and_unrelated_states() -> None:
    game = find_game("coffee-rush")
    observer = rush_observation.Observer(game)
    states = [
        s.clone()
        for seed, n, options in ((3, 2, {}), (4, 3, {"less_luck": True}), (5, 3, {}))
        for s in random_game("coffee-rush", n, options, seed)
    ]
    rng = random.Random(1)
    for _ in range(600):
        state = rng.choice(states)
        seat = rng.randrange(state.num_players)
        if rng.random() < 0.2:
            state = state.resample_hidden(seat, rng)
        expected = rush_observation.observation_tensor(state, seat)
        assert np.array_equal(observer.observe(state, seat), expected)


def _without(part: int) -> Any:
    """`_seat_parts` with one part replaced by a constant: a change of it goes unseen."""
    parts = rush_observation._seat_parts

    def broken(state: Any, s: int) -> tuple[Any, ...]:
        return tuple([] if k == part else v for k, v in enumerate(parts(state, s)))

    return broken


@pytest.mark.parametrize(
    "part",
    [
        # the cups left out of a seat's parts: its block is not rewritten when a cup fills
        rush_observation._CUPS,
        # the cards on counters left out: neither the block nor the piles follow a draw
        rush_observation._COUNTERS,
    ],
    ids=["cups", "cards"],
)
@needs_pure_rush
def test_rush_a_skipped_update_is_caught(monkeypatch: pytest.MonkeyPatch, part: int) -> None:
    monkeypatch.setattr(rush_observation, "_seat_parts", _without(part))
    with pytest.raises(AssertionError, match="differs at"):
        for seed in range(6):
            play_and_compare(3, {}, seed, False, "coffee-rush")


def test_rush_environment_observes_through_an_observer() -> None:
    env = coffee_rush_v0.raw_env(num_players=3)
    assert isinstance(env.observer, rush_observation.Observer)
    env.reset(seed=4)
    rng = random.Random(3)
    for _ in range(300):
        if env.state.is_over():
            env.reset()
        obs = env.observe(env.agent_selection)
        for other in range(3):
            assert np.array_equal(
                env.observe(f"player_{other}")["observation"],
                rush_observation.observation_tensor(env.state, other),
            )
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_observer_score_is_the_state_score() -> None:
    """`Observer.score` (CafeSoloEnv's `info["score"]`) reuses the score of the last
    observation only while the area and warehouse are unchanged: it always equals
    `state.score(seat)`."""
    game = find_game("cafe")
    observer = Observer(game)
    for state in random_game("cafe", 2, {}, 9):
        seat = min(state.current_seats()) if not state.is_over() else 0
        observer.observe(state, seat)
        for s in range(2):
            assert observer.score(state, s) == state.score(s)
    env = CafeSoloEnv()
    _, info = env.reset(seed=3)
    rng = random.Random(4)
    for _ in range(150):
        assert info["score"] == env.state.scores()[0].total
        _, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if terminated:
            _, info = env.reset()
