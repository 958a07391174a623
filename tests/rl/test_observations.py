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

from .helpers import CAFE_CONFIGS, CONFIGS, config_id, random_game

#: (config, compact): every game's full layout, and Café's compact one
LAYOUT_CONFIGS = [(c, False) for c in CONFIGS] + [(c, True) for c in CAFE_CONFIGS]


def layout_config_id(case) -> str:  # type: ignore[no-untyped-def]
    config, compact = case
    return config_id(config) + ("-compact" if compact else "")


def check_state(state, box, shape, rng, compact=False) -> None:  # type: ignore[no-untyped-def]
    for seat in range(state.num_players):
        obs = tensor(state, seat, compact)
        assert obs.shape == shape and obs.dtype == np.float32
        assert box.contains(obs), "observation out of its declared bounds"
        again = tensor(state.resample_hidden(seat, rng), seat, compact)
        assert np.array_equal(obs, again), "the observation depends on hidden information"
        assert np.array_equal(obs, tensor(state.clone(), seat, compact))


@pytest.mark.parametrize("case", LAYOUT_CONFIGS, ids=layout_config_id)
def test_observations_in_random_games(case) -> None:  # type: ignore[no-untyped-def]
    (name, n, options), compact = case
    game = find_game(name)
    box = observation_box(game, n, compact)
    shape = observation_shape(game, n, options, compact)
    assert box.shape == shape
    rng = random.Random(5)
    for state in random_game(name, n, options, seed=n * 10 + len(options) + 1):
        check_state(state, box, shape, rng, compact)


@pytest.mark.slow
@pytest.mark.parametrize("case", LAYOUT_CONFIGS, ids=layout_config_id)
def test_observations_in_many_random_games(case) -> None:  # type: ignore[no-untyped-def]
    (name, n, options), compact = case
    game = find_game(name)
    box = observation_box(game, n, compact)
    shape = observation_shape(game, n, options, compact)
    rng = random.Random(6)
    for seed in range(200, 204):
        for state in random_game(name, n, options, seed):
            check_state(state, box, shape, rng, compact)


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


def test_cafe_compact_slices() -> None:
    """The compact layout: the full one's fields but the grids and the trailing `slots`, and
    a slots table per seat; `p0.slots` is the full layout's `slots` (the action space's slot
    order), `p1.slots` the next seat's visible cells, the same table it sees as its own."""
    game = find_game("cafe")
    states = list(random_game("cafe", 2, {}, seed=8, max_steps=60))
    state = states[-1]
    full, compact = observation_layout(game, 2), observation_layout(game, 2, compact=True)
    names = [f.name for f in compact.fields]
    assert names == [f.name.replace(".grid", ".slots") for f in full.fields if f.name != "slots"]
    assert compact.size == full.size - 2 * GRID * GRID * 33 - MAX_SLOTS * 36 + 2 * MAX_SLOTS * 36
    for seat in (0, 1):
        small, big = tensor(state, seat, compact=True), tensor(state, seat)
        start, stop = compact.span("p0.slots")
        a, b = full.span("slots")
        assert np.array_equal(small[start:stop], big[a:b])
        start, stop = compact.span("p1.slots")
        other = tensor(state, 1 - seat, compact=True)
        a, b = compact.span("p0.slots")
        assert np.array_equal(small[start:stop], other[a:b])
        assert small[start:stop].reshape(MAX_SLOTS, -1)[:, 0].sum() == len(
            state.players[1 - seat].area.top
        )
    with pytest.raises(DataError, match="no compact observation"):
        observation_layout(find_game("coffee-rush"), 2, compact=True)


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
    for name, n, compact in (("cafe", 1, False), ("cafe", 1, True), ("coffee-rush", 2, False)):
        layout = observation_layout(find_game(name), n, compact)
        for field in layout.fields:
            if field.name[:1] == "p" and field.name[1:2].isdigit() and field.name[1] != "0":
                continue  # p1, p2, ...: the same fields as p0
            start, stop = layout.span(field.name)
            assert f"| `{field.name}` | {start}–{stop - 1} |" in doc, field.name
