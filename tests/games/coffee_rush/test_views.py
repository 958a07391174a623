"""Coffee Rush views (docs/views.md): what a client at a seat, or a spectator, may see.

Only the deck order is hidden (docs/coffee-rush-rules.md, "Hidden information"). The key
property is that no view peeks: a seat's view does not change when the deck is shuffled
anew (`resample_hidden`). It is checked over random games of every player count, with and
without less luck, beside checks that the deck appears nowhere in a view, and exact values
on known positions.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from coffeetable.bots import make_bot
from coffeetable.core.errors import DataError
from coffeetable.core.game import VIEW_FORMAT
from coffeetable.games.coffee_rush.state import RushState
from tests.games.coffee_rush.conftest import GAME, names, play, player, position
from tests.games.view_checks import check_no_peek, check_view_basics, check_view_is_a_copy

EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "coffee-rush-position.json"
CARDS_IN_BOX = 80
COMBOS = [
    pytest.param(players, less_luck, id=f"{players}p{'-less-luck' if less_luck else ''}")
    for players in (2, 3, 4)
    for less_luck in (False, True)
]


def new_state(players: int, seed: int, less_luck: bool = False) -> RushState:
    state = GAME.new_initial_state(players, seed, {"less_luck": less_luck})
    assert isinstance(state, RushState)
    return state


def check_redacted(state: RushState) -> None:
    """The deck shows as its size only; its sequence of cards appears nowhere; the public
    piles are shown as they are."""
    deck_text = json.dumps(names(list(reversed(state.deck))))
    for viewer in (0, None):
        view = state.view(viewer)
        assert view["deck_size"] == len(state.deck)
        assert len(state.deck) < 5 or deck_text not in json.dumps(view)
        assert view["removed"] == names(state.removed)  # the less-luck cards left out
        assert view["discarded"] == names(state.discarded)


def random_game(players: int, seed: int, less_luck: bool, every: int) -> RushState:
    """Play a game with the random bot, checking the view contract every `every` actions,
    at set-up and at the end."""
    state = new_state(players, seed, less_luck)
    bot = make_bot("random", seed)
    count = 0
    while True:
        if count % every == 0 or state.is_over():
            check_no_peek(state)
            check_redacted(state)
            check_view_basics(GAME, state)
        if state.is_over():
            return state
        (seat,) = state.current_seats()
        action, _ = bot.choose(state, seat)
        state.apply(seat, action)
        count += 1


# ==== random games ========================================================================
@pytest.mark.parametrize(("players", "less_luck"), COMBOS)
def test_views_never_peek_in_random_games(players: int, less_luck: bool) -> None:
    for seed in (1, 2):
        state = random_game(players, seed, less_luck, every=3)
        view = state.view(None)
        assert view["over"] and view["phase"] == "over" and view["closed"]
        assert view["to_move"] is None and view["current_seats"] == []
        assert "turn" not in view


@pytest.mark.slow
@pytest.mark.parametrize(("players", "less_luck"), COMBOS)
def test_views_never_peek_in_many_random_games(players: int, less_luck: bool) -> None:
    for seed in range(3, 13):
        random_game(players, seed, less_luck, every=1)


def test_the_check_has_teeth() -> None:
    """resample_hidden really reorders the deck, so the no-peek check would catch a view
    that showed it: the full position JSON changes under it."""
    state = new_state(3, 9)
    resampled = state.resample_hidden(1, random.Random(1))
    assert resampled.to_json()["deck"] != state.to_json()["deck"]
    assert resampled.view(1) == state.view(1)


# ==== exact values ========================================================================
@pytest.mark.parametrize(
    ("players", "less_luck", "deck_size", "removed"),
    [
        (2, False, CARDS_IN_BOX - 3 - 2, 0),  # the start player 2 + 1 cards, the other 1 + 1
        (3, False, CARDS_IN_BOX - 3 - 2 * 2, 0),
        (4, False, CARDS_IN_BOX - 3 - 2 * 3, 0),
        (2, True, CARDS_IN_BOX - 4 - 2 - 1, 2),  # 4 less-luck cards set aside, 1 each dealt
        (3, True, CARDS_IN_BOX - 4 - 3 - 1, 1),
        (4, True, CARDS_IN_BOX - 4 - 4 - 1, 0),
    ],
)
def test_set_up_deck_size(players: int, less_luck: bool, deck_size: int, removed: int) -> None:
    state = new_state(players, 5, less_luck)
    view = state.view(None)
    assert view["format"] == VIEW_FORMAT and view["game"] == "coffee-rush"
    assert view["options"]["less_luck"] is less_luck
    assert view["phase"] == "place" and not view["closed"]
    assert view["deck_size"] == deck_size
    assert len(view["removed"]) == removed
    assert set(view["removed"]) <= {"Ristretto", "Espresso"}
    assert view["to_move"] == players - 1  # placement starts at the start player's right
    assert view["current_seats"] == [players - 1]
    on_counters = [[len(k) for k in p["counters"]] for p in view["players"]]
    assert on_counters == [[2, 1, 0, 0]] + [[1, 1, 0, 0]] * (players - 1)
    assert view["rush_supply"] == 15
    assert "turn" not in view and "winners" not in view


def serving_position() -> RushState:
    """3 players, seat 0 to move from b2 with an Espresso (coffee + steam) in cup 1 and an
    Espresso order on counter 1; 10 cards in the deck."""
    players = [
        player("b2", cups=[["coffee", "steam"], [], []], counters=[["Espresso"], [], [], []]),
        player("a1", counters=[["Iced Americano"], [], [], []]),
        player("d4", counters=[[], ["Cold Brew"], [], []]),
    ]
    state = position(players, deck_size=10)
    assert isinstance(state, RushState)
    return state


def test_a_turn_with_a_serve() -> None:
    """The hand and the turn in progress are public; serving one order makes the two
    players to the left draw one card each (the deck shrinks by 2)."""
    state = serving_position()
    view = state.view(2)
    assert view["seat"] == 2 and view["deck_size"] == 10
    assert view["turn"] == {
        "stage": "move",
        "moving": None,
        "steps": 0,
        "hand": [],
        "served": 0,
        "upgraded": False,
    }
    play(state, "b2-b3")  # b3: steam
    view = state.view(2)
    assert view["turn"]["moving"] == "b3" and view["turn"]["hand"] == ["steam"]
    assert view["supply"]["steam"] == 12 - 1 - 1  # one in cup 1, one in the hand
    play(state, "stop", "serve 1 1 Espresso")  # every cup is empty: the turn ends by itself
    view = state.view(2)
    assert view["deck_size"] == 8
    assert view["to_move"] == 1 and view["current_seats"] == [1]
    first = view["players"][0]
    assert first["completed"] == ["Espresso"]
    assert first["counters"] == [[], [], [], []]
    assert first["cups"] == [[], [], []]
    # the two players to the left drew onto counter 1; time passed for seat 0 only
    assert [len(k) for k in view["players"][1]["counters"]] == [2, 0, 0, 0]
    assert [len(k) for k in view["players"][2]["counters"]] == [1, 1, 0, 0]
    assert [s["total"] for s in view["scores"]] == [1, 0, 0]
    check_no_peek(state)
    check_redacted(state)
    check_view_basics(GAME, state)


def test_the_documented_example_position() -> None:
    """docs/examples/coffee-rush-position.json: 9 cards are in play, the other 71 are
    dealt into the deck."""
    state = GAME.state_from_json(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert isinstance(state, RushState)
    view = state.view(None)
    assert view["seat"] is None
    assert view["phase"] == "turn" and view["to_move"] == 0 and view["current_seats"] == [0]
    assert view["deck_size"] == CARDS_IN_BOX - 9
    assert view["removed"] == [] and view["discarded"] == []
    assert view["players"] == state.to_json()["players"]  # every player is public as it is
    assert [s["total"] for s in view["scores"]] == [3, -1]
    assert view["rush_supply"] == 13
    check_no_peek(state)
    check_redacted(state)
    check_view_basics(GAME, state)


def test_views_are_copies() -> None:
    check_view_is_a_copy(new_state(2, 3))


@pytest.mark.parametrize("seat", [3, -1, True, "1"])
def test_a_view_for_no_seat_is_an_error(seat: Any) -> None:
    with pytest.raises(DataError, match="no seat"):
        new_state(3, 1).view(seat)
