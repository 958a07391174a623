"""Checks of the per-seat view contract (core.game.State.view, docs/views.md) shared by the
game suites and the conformance suite. They use the core protocol only."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

from coffeetable.core.game import VIEW_FORMAT, Game, State

#: Keys no view may hold, at any depth: the deck, the cards removed unseen, the RNG state.
FORBIDDEN_KEYS = {"deck", "rng", "deck_seed"}
HEADER_KEYS = {"format", "game", "options", "seat", "current_seats", "over", "scores"}


def viewers(state: State) -> list[int | None]:
    """Every seat, then the spectator."""
    return [*range(state.num_players), None]


def walk(data: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) pair at any depth of a JSON document (key None inside lists)."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield key, value
            yield from walk(value)
    elif isinstance(data, list):
        for value in data:
            yield None, value
            yield from walk(value)


def strings_in(data: Any) -> set[str]:
    """Every string value at any depth of a JSON document."""
    return {value for _, value in walk(data) if isinstance(value, str)}


def check_no_peek(state: State, seeds: tuple[int, ...] = (1, 2, 3)) -> dict[int | None, Any]:
    """The no-peek property: a seat's view does not change when everything that seat cannot
    see is drawn again (`resample_hidden`). The spectator knows no more than any seat, so its
    view must not change under any seat's resample either. Returns the views."""
    views = {v: state.view(v) for v in viewers(state)}
    for seat in range(state.num_players):
        for seed in seeds:
            resampled = state.resample_hidden(seat, random.Random(seed))
            assert resampled.view(seat) == views[seat], f"seat {seat}'s view peeks"
            assert resampled.view(None) == views[None], "the spectator's view peeks"
    return views


def check_view_basics(game: Game, state: State) -> dict[int | None, Any]:
    """The game-independent parts of the contract, for every seat and the spectator:
    the header, no forbidden key, plain and stable JSON that shares nothing with the state,
    equal views of a clone and of a position JSON round trip. Returns the views.

    Nothing is private to a seat in either game, so every seat's view must equal the
    spectator's but for `seat`; the costlier checks then run on the spectator and seat 0."""
    views = {v: state.view(v) for v in viewers(state)}
    public = views[None]
    if not state.private_views:  # then the server shares the public view (State.private_views)
        for seat in range(state.num_players):
            assert {**views[seat], "seat": None} == public
    clone = state.clone()
    restored = game.state_from_json(json.loads(json.dumps(state.to_json())))
    for viewer in (0, None):
        view = views[viewer]
        assert set(view) >= HEADER_KEYS
        assert view["format"] == VIEW_FORMAT
        assert view["game"] == game.info.name
        assert view["seat"] == viewer
        assert view["current_seats"] == sorted(state.current_seats())
        assert view["over"] == state.is_over()
        assert view["scores"] == [s.to_json() for s in state.scores()]
        if state.is_over():
            assert view["winners"] == state.winners()
        else:
            assert "winners" not in view
        assert not FORBIDDEN_KEYS & {k for k, _ in walk(view) if k is not None}
        text = json.dumps(view, sort_keys=True)
        assert json.loads(text) == view  # plain JSON all the way down
        again = state.view(viewer)
        assert again == view and json.dumps(again, sort_keys=True) == text  # stable
        assert clone.view(viewer) == view
        assert restored.view(viewer) == view
    return views


def check_view_is_a_copy(state: State) -> None:
    """Changing a view changes nothing in the state or in later views."""
    before = state.to_json()
    view = state.view(None)
    fresh = state.view(None)
    for _, value in list(walk(view)):
        if isinstance(value, list):
            value.append("junk")
        elif isinstance(value, dict):
            value["junk"] = 1
    assert state.to_json() == before
    assert state.view(None) == fresh
