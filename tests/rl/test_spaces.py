"""The RL action spaces: the mask is exactly the engine's legal actions, and indices and
engine actions convert both ways (docs/rl.md)."""

from __future__ import annotations

import numpy as np
import pytest

from coffeetable import find_game
from coffeetable.core.errors import NotationError
from coffeetable.games.cafe import actions as cafe
from coffeetable.rl import CAFE_ENGINE_CODE_BOUND, CafeActionSpace, action_space

from .helpers import CONFIGS, config_id, random_game


def check_state(state, space) -> int:  # type: ignore[no-untyped-def]
    """Mask == legal actions for every seat; decode/encode round trips. Returns the number
    of legal actions checked."""
    game = state.game
    checked = 0
    for seat in range(state.num_players):
        legal = state.legal_actions(seat)
        by_index = space.legal(state, seat)
        assert len(by_index) == len(legal), "two legal actions share an index"
        mask = space.mask(state, seat)
        assert mask.dtype == np.int8 and mask.shape == (space.size,)
        assert set(np.flatnonzero(mask)) == set(by_index)
        assert sorted(by_index.values(), key=str) == sorted(legal, key=str)
        if seat not in state.current_seats():
            assert not legal and not mask.any()
        for index, action in by_index.items():
            decoded = space.decode(state, seat, index)
            assert decoded == action
            assert decoded in legal
            assert space.encode(state, seat, decoded) == index
            code = game.encode_action(action)
            assert game.decode_action(code) == action
            checked += 1
    return checked


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_mask_is_the_legal_actions_in_random_games(config) -> None:  # type: ignore[no-untyped-def]
    name, n, options = config
    space = action_space(find_game(name))
    checked = 0
    for state in random_game(name, n, options, seed=n * 10 + len(options)):
        checked += check_state(state, space)
    assert checked > 0


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_mask_is_the_legal_actions_in_many_random_games(config) -> None:  # type: ignore[no-untyped-def]
    name, n, options = config
    space = action_space(find_game(name))
    for seed in range(100, 105):
        for state in random_game(name, n, options, seed):
            check_state(state, space)


def test_sizes() -> None:
    assert action_space(find_game("coffee-rush")).size == 701
    space = action_space(find_game("cafe"))
    assert isinstance(space, CafeActionSpace)
    # 63 cards x 6 + 4 x 21 x 21 + 38 + 38 x 5 + 2 x 38 x 4 x 39 + 38 x 39 + 38 + 1 + 4 x 39 + 2
    assert space.size == 15905
    assert sum(space.sizes.values()) == space.size


def test_cafe_engine_code_bound() -> None:
    game = find_game("cafe")
    largest = game.encode_action(cafe.Roast((19, 19), 3, (19, 19)))
    assert largest + 1 == CAFE_ENGINE_CODE_BOUND


def test_cafe_split_and_bad_indices() -> None:
    game = find_game("cafe")
    space = action_space(game)
    assert isinstance(space, CafeActionSpace)
    state = game.new_initial_state(2, 7)
    assert space.split(space.offsets["end"]) == ("end", ())
    assert space.split(space.offsets["dry"] + (3 * 4 + 2) * 39 + 5) == ("dry", (3, 2, 4))
    with pytest.raises(NotationError):
        space.split(space.size)
    with pytest.raises(NotationError):  # slot 37 is empty on a start card
        space.decode(state, 0, space.offsets["clear"] + 37)


def test_cafe_indices_are_relative_to_the_area() -> None:
    """The start card's cells are slots 0-5 and its top-left cell sits at frame (2, 2)."""
    game = find_game("cafe")
    space = action_space(game)
    state = game.new_initial_state(1, 3)
    assert space.decode(state, 0, space.offsets["clear"]) == cafe.Clear((0, 0))
    assert space.decode(state, 0, space.offsets["clear"] + 5) == cafe.Clear((1, 2))
    place = space.offsets["place"] + (1 * 21 + 2) * 21 + 2
    assert space.decode(state, 0, place) == cafe.Place(0, 0, 1)


def test_masked_discrete_samples_what_gymnasium_samples() -> None:
    """The environments' action spaces draw exactly what `gymnasium.spaces.Discrete` draws
    with the same seed and masks, and reject the masks it rejects."""
    import gymnasium

    from coffeetable.rl.spaces import MaskedDiscrete

    rng = np.random.default_rng(3)
    for n, start in ((15905, 0), (701, 0), (9, 2)):
        ours, theirs = (
            MaskedDiscrete(n, seed=5, start=start),
            gymnasium.spaces.Discrete(n, seed=5, start=start),
        )
        for k in sorted({0, 1, 2, 3, min(30, n), n}):
            mask = np.zeros(n, dtype=np.int8)
            mask[rng.choice(n, size=k, replace=False)] = 1
            for _ in range(20):
                assert ours.sample(mask) == theirs.sample(mask)
            assert ours.sample() == theirs.sample()
        probability = np.full(n, 1 / n)
        assert ours.sample(probability=probability) == theirs.sample(probability=probability)
        for bad in (np.full(n, 2, dtype=np.int8), np.full(n, -1, dtype=np.int8)):
            with pytest.raises(AssertionError, match="0 or 1"):
                ours.sample(bad)
        with pytest.raises(AssertionError, match="dtype"):
            ours.sample(np.ones(n, dtype=np.float32))
        with pytest.raises(AssertionError, match="shape"):
            ours.sample(np.ones(n + 1, dtype=np.int8))
        # one legal value other than 1 among ones (the check is on bytes, not a reduction)
        mixed = np.zeros(n, dtype=np.int8)
        mixed[: min(5, n)] = 1
        mixed[min(5, n) - 1] = 3
        with pytest.raises(AssertionError, match="0 or 1"):
            ours.sample(mixed)
        # contains: the fast path for int and int64 answers as Gymnasium does
        values = [-1, 0, 1, start, start + n - 1, start + n, 2**40, True, 1.0, "1", None]
        values += [np.int64(v) for v in (start - 1, start, start + n - 1, start + n)]
        values += [np.int32(start), np.array(start), np.array([start])]
        for value in values:
            assert ours.contains(value) == theirs.contains(value), value


def test_rush_codes_by_identity_follow_equal_but_new_actions() -> None:
    """Coffee Rush's memo of codes is keyed by the action object: an action equal to an
    interned one but not it gets its own code from the encoder, and actions that are not
    interned do not grow the memo without bound."""
    from coffeetable.games.coffee_rush.actions import Step

    game = find_game("coffee-rush")
    space = action_space(game)

    class Listing:
        def __init__(self, actions: list[Step]) -> None:
            self.actions = actions

        def legal_actions(self, seat: int) -> list[Step]:
            return list(self.actions)

    interned = game.STEP[0][1]  # type: ignore[attr-defined]
    assert space.legal(Listing([interned]), 0) == {game.encode_action(interned): interned}  # type: ignore[arg-type]
    for k in range(6 * space.size):
        fresh = Step(k % 16, (k + 1) % 16)
        legal = space.legal(Listing([fresh]), 0)  # type: ignore[arg-type]
        assert legal == {game.encode_action(fresh): fresh}
        assert next(iter(legal.values())) is fresh
    assert len(space._codes) <= 4 * space.size  # type: ignore[attr-defined]
