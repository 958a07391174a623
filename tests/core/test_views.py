"""The core part of per-seat views (core.game): the base State.view and view_header."""

from __future__ import annotations

from typing import Any

import pytest

from coffeetable.core.errors import DataError
from coffeetable.core.game import (
    VIEW_FORMAT,
    Action,
    Game,
    GameInfo,
    ScoreBreakdown,
    State,
    view_header,
)


class _TinyGame(Game):
    """A game with one action and nothing hidden, enough to build a State."""

    info = GameInfo(name="tiny", title="Tiny", min_players=2, max_players=2, simultaneous=False)

    def new_initial_state(self, num_players: int, seed: int, options: Any = None) -> State:
        return _TinyState(self)

    def parse_action(self, text: str) -> Action:
        raise NotImplementedError

    def encode_action(self, action: Action) -> int:
        return 0

    def decode_action(self, code: int) -> Action:
        raise NotImplementedError

    def state_from_json(self, data: dict[str, Any]) -> State:
        raise NotImplementedError


class _TinyState(State):
    def __init__(self, game: Game) -> None:
        self.game = game
        self.num_players = 2
        self.over = False

    def current_seats(self) -> frozenset[int]:
        return frozenset() if self.over else frozenset({0})

    def legal_actions(self, seat: int) -> list[Action]:
        return []

    def apply_unchecked(self, seat: int, action: Action) -> None:
        self.over = True

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[ScoreBreakdown]:
        return [ScoreBreakdown(1, (("points", 1),)), ScoreBreakdown(0, (("points", 0),))]

    def clone(self) -> State:
        new = _TinyState(self.game)
        new.over = self.over
        return new

    def to_json(self) -> dict[str, Any]:
        return {}

    def render(self, seat: int | None = None) -> str:
        return ""


def test_the_base_view_is_not_implemented() -> None:
    with pytest.raises(NotImplementedError, match="_TinyState"):
        _TinyState(_TinyGame()).view(None)


def test_view_header() -> None:
    state = _TinyState(_TinyGame())
    options = {"promos": ["a"]}
    header = view_header(state, 1, options)
    assert header == {
        "format": VIEW_FORMAT,
        "game": "tiny",
        "options": {"promos": ["a"]},
        "seat": 1,
        "current_seats": [0],
        "over": False,
        "scores": [{"total": 1, "parts": {"points": 1}}, {"total": 0, "parts": {"points": 0}}],
    }
    header["options"]["promos"].append("b")
    assert options == {"promos": ["a"]}  # a deep copy
    state.over = True
    header = view_header(state, None, {})
    assert header["seat"] is None and header["over"] and header["winners"] == [0]
    assert header["current_seats"] == []


@pytest.mark.parametrize("seat", [2, -1, False, "0"])
def test_view_header_refuses_a_seat_that_does_not_exist(seat: Any) -> None:
    with pytest.raises(DataError, match="no seat"):
        view_header(_TinyState(_TinyGame()), seat, {})
