"""Observation tensors: only what the seat may know, in the declared shape and bounds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from coffeetable import find_game
from coffeetable.core.errors import DataError
from coffeetable.games.cafe.observation import GRID, MAX_SLOTS, area_origin, area_slots
from coffeetable.rl import observation_box, observation_layout, observation_shape
from coffeetable.rl import observation_tensor as tensor

from .helpers import CONFIGS, config_id, random_game


def check_state(state, box, shape, rng) -> None:  # type: ignore[no-untyped-def]
    for seat in range(state.num_players):
        obs = tensor(state, seat)
        assert obs.shape == shape and obs.dtype == np.float32
        assert box.contains(obs), "observation out of its declared bounds"
        again = tensor(state.resample_hidden(seat, rng), seat)
        assert np.array_equal(obs, again), "the observation depends on hidden information"
        assert np.array_equal(obs, tensor(state.clone(), seat))


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_observations_in_random_games(config) -> None:  # type: ignore[no-untyped-def]
    name, n, options = config
    game = find_game(name)
    box = observation_box(game, n)
    shape = observation_shape(game, n, options)
    assert box.shape == shape
    rng = random.Random(5)
    for state in random_game(name, n, options, seed=n * 10 + len(options) + 1):
        check_state(state, box, shape, rng)


@pytest.mark.slow
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_observations_in_many_random_games(config) -> None:  # type: ignore[no-untyped-def]
    name, n, options = config
    game = find_game(name)
    box = observation_box(game, n)
    shape = observation_shape(game, n, options)
    rng = random.Random(6)
    for seed in range(200, 204):
        for state in random_game(name, n, options, seed):
            check_state(state, box, shape, rng)


def test_observation_differs_by_seat_and_progress() -> None:
    states = [s.clone() for s in random_game("cafe", 3, {}, seed=1, max_steps=40)]
    first, last = states[0], states[-1]
    assert not np.array_equal(tensor(first, 0), tensor(first, 1))  # relative seats
    assert not np.array_equal(tensor(first, 0), tensor(last, 0))
    rush = find_game("coffee-rush").new_initial_state(2, 1)
    assert not np.array_equal(tensor(rush, 0), tensor(rush, 1))


def test_cafe_slices() -> None:
    """Spot checks of the documented layout on a fresh 2-player game."""
    game = find_game("cafe")
    state = game.new_initial_state(2, 7)
    layout = observation_layout(game, 2)
    obs = tensor(state, 0)

    def part(name: str) -> np.ndarray:
        start, stop = layout.span(name)
        return obs[start:stop].reshape(layout.field(name).shape)

    assert part("players").tolist() == [0, 1, 0, 0]
    assert part("round")[0] == 1 and part("phase").tolist() == [0, 1, 0, 0]
    assert part("counts")[0] == pytest.approx(len(state.deck) / 10)
    assert part("supply").tolist() == [1, 1, 1, 1]
    cards = part("cards")
    index = {c.id: i for i, c in enumerate(game.deck.cards)}
    assert {i for i in np.flatnonzero(cards[0])} == {index[c] for c in state.display}
    hidden = set(state.deck) | (set(state.removed) - set(state.removed_by_rule()))
    assert {i for i in np.flatnonzero(cards[5])} == {index[c] for c in hidden}
    grid = part("p0.grid")
    area = state.players[0].area
    r0, c0 = area_origin(area)
    assert (r0, c0) == (-2, -2)
    for pos, cell in area.top.items():
        assert grid[pos[0] - r0, pos[1] - c0, int(cell.kind)] == 1
    assert grid.sum(axis=2).astype(bool).sum() == len(area.top) == 6
    slots = part("slots")
    assert slots[:6, 0].tolist() == [1] * 6 and slots[6:, 0].sum() == 0
    assert slots[0, 1] == pytest.approx(2 / (GRID - 1))
    assert len(area_slots(area)) <= MAX_SLOTS


def test_rush_slices() -> None:
    game = find_game("coffee-rush")
    state = game.new_initial_state(3, 4)
    layout = observation_layout(game, 3)
    obs = tensor(state, 1)
    start, stop = layout.span("piles")
    piles = obs[start:stop].reshape(3, -1)
    unseen = np.bincount(state.deck, minlength=len(game.cards.drinks))
    assert piles[2].tolist() == unseen.tolist()
    start, _ = layout.span("deck_size")
    assert obs[start] == len(state.deck)
    start, stop = layout.span("p0.counters")
    counters = obs[start:stop].reshape(4, -1)
    assert counters.sum() == sum(len(k) for k in state.counters[1])


def test_bad_seat_and_layout_docs() -> None:
    game = find_game("cafe")
    state = game.new_initial_state(2, 7)
    with pytest.raises(DataError):
        tensor(state, 2)
    table = observation_layout(game, 2).markdown()
    assert "`p1.grid`" in table and "`slots`" in table
    with pytest.raises(DataError):
        observation_shape(game, 2, {"variant": "nope"})


def test_docs_list_every_slice() -> None:
    """docs/rl.md documents the layouts slice by slice (seat blocks by their p0 fields)."""
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "rl.md").read_text(encoding="utf-8")
    for name, n in (("cafe", 1), ("coffee-rush", 2)):
        layout = observation_layout(find_game(name), n)
        for field in layout.fields:
            if field.name[:1] == "p" and field.name[1:2].isdigit() and field.name[1] != "0":
                continue  # p1, p2, ...: the same fields as p0
            start, stop = layout.span(field.name)
            assert f"| `{field.name}` | {start}–{stop - 1} |" in doc, field.name
