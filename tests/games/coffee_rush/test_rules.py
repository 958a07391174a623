"""Coffee Rush rules, one situation per test (shared/rules/coffee-rush.md and its rulings).

Each situation is a hand-written position (conftest.position) or a short scripted game, and
the tests assert exact token counts, piles and seats.

Board (column letter, row number from the top):

    1  ice+     caramel*  steam      coffee+
    2  coffee   milk      ice        water*
    3  tea*     steam     milk       coffee
    4  milk+    ice       chocolate* steam+        (+ corner, * specialty)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from coffeetable.core.errors import (
    CoffeetableError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
from coffeetable.games.coffee_rush import Phase, Stage, parse_square
from tests.games.coffee_rush.conftest import (
    CARDS,
    GAME,
    counter_names,
    cup,
    deck_top,
    hand,
    legal_texts,
    names,
    play,
    player,
    position,
    supply,
    total_tokens,
)

BOX = list(CARDS.box)
ESPRESSO_ONLY = [["Espresso"], [], [], []]
ONE_ORDER = [["Iced Americano"], [], [], []]
LESS_LUCK = {"Espresso", "Ristretto"}
DRAWS = ["Cold Brew", "Milk Tea", "Cocoa", "Green Tea", "Americano", "Iced Cocoa"]


def sq(name: str) -> int:
    return parse_square(name)


def rejected(state: Any, text: str, seat: int | None = None) -> str:
    """Apply `text`, expect an IllegalActionError (or subclass), check that nothing changed,
    and return the message."""
    before = state.to_json()
    who = state.current if seat is None else seat
    with pytest.raises(IllegalActionError) as info:
        state.apply(who, GAME.parse_action(text))
    assert state.to_json() == before
    return str(info.value)


def occupied(state: Any) -> set[int]:
    return {s for ms in state.meeples for s in ms}


def pass_turn(state: Any) -> int:
    """Play a minimal turn for the seat to move (one step to a free square, stop, end);
    returns the seat that played."""
    seat = state.current
    while state.phase is Phase.TURN and state.current == seat:
        texts = legal_texts(state)
        if state.stage is Stage.MOVE:
            if "stop" in texts:
                play(state, "stop")
                continue
            free = [t for t in texts if "-" in t and sq(t.split("-")[1]) not in occupied(state)]
            play(state, free[0])
        else:
            play(state, "end")
    return seat


def two_orders_ready(to_move: int, n: int, **kwargs: Any) -> Any:
    """n players; the seat to move (on b2) holds two finished drinks: cup 1 an Espresso for
    counter 1, cup 2 an Espresso Doppio for counter 2. Every other seat has one order.
    The deck starts with DRAWS (top first)."""
    squares = ["a1", "d1", "a4", "d4"] if n > 2 else [("a1", "d1"), ("a4", "d4")]
    players = []
    for s in range(n):
        where = squares[s]
        meeples = (where,) if isinstance(where, str) else where
        if s == to_move:
            meeples = ("b2",) if n > 2 else ("b2", meeples[1])
            players.append(
                player(
                    *meeples,
                    cups=[["coffee", "steam"], ["coffee", "coffee", "steam"], []],
                    counters=[["Espresso"], ["Espresso Doppio"], [], []],
                )
            )
        else:
            players.append(player(*meeples, counters=[["Iced Americano"], [], [], []]))
    return position(players, to_move=to_move, deck_top=DRAWS, **kwargs)


def serve_both(state: Any) -> None:
    """Step b2-b3 (steam), stop, serve both cups (the turn then ends by itself)."""
    seat = state.current
    play(state, "b2-b3", "stop", "serve 1 1 Espresso", "serve 2 2 Espresso Doppio")
    assert names(state.completed[seat]) == ["Espresso", "Espresso Doppio"]
    assert state.current != seat or state.phase is Phase.OVER


# ==== set-up ==================================================================================
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 7])
def test_setup_deals_two_plus_one_to_the_start_player_and_one_plus_one_to_the_others(
    n: int, seed: int
) -> None:
    state = GAME.new_initial_state(n, seed, {"less_luck": False})
    for seat in range(n):
        sizes = [len(k) for k in state.counters[seat]]
        assert sizes == ([2, 1, 0, 0] if seat == 0 else [1, 1, 0, 0])
    assert len(state.deck) == 80 - (2 * n + 1)
    assert Counter(state.deck) + Counter(state.cards_in_play()) == Counter(CARDS.all_cards())
    assert state.removed == [] and state.discarded == []
    assert state.supply == BOX and state.rush_supply == 15
    assert not state.closed
    assert state.phase is Phase.PLACE


@pytest.mark.parametrize("n", [3, 4])
def test_placement_goes_counterclockwise_from_the_start_players_right(n: int) -> None:
    state = GAME.new_initial_state(n, 3, {})
    squares = ["d1", "b1", "a3", "c4"][:n]  # coffee, caramel, tea, chocolate
    seen = []
    for square in squares:
        (seat,) = state.current_seats()
        seen.append(seat)
        play(state, f"place {square}")
    assert seen == list(range(n - 1, -1, -1))
    # each player took the ingredient of their square into cup 1
    ingredients = ["coffee", "caramel", "tea", "chocolate"][:n]
    for placer, ingredient in zip(seen, ingredients, strict=True):
        assert cup(state, placer, 1) == [ingredient]
        assert cup(state, placer, 2) == [] and cup(state, placer, 3) == []
        assert supply(state, ingredient) == BOX[CARDS.ingredients.index(ingredient)] - 1
    assert state.phase is Phase.TURN and state.stage is Stage.MOVE
    assert state.current_seats() == frozenset({0})
    assert state.hand == [0] * 8


def test_placement_on_an_occupied_square_is_refused() -> None:
    state = GAME.new_initial_state(4, 3, {})
    play(state, "place b2")  # seat 3
    assert state.current == 2
    assert "place b2" not in legal_texts(state)
    assert len(legal_texts(state)) == 15
    message = rejected(state, "place b2")
    assert "b2 already has a meeple" in message


def test_two_players_place_alternately_then_pour_their_set_up_tokens_seat_0_first() -> None:
    state = GAME.new_initial_state(2, 5, {})
    order = []
    for square in ["a1", "d1", "a2", "d2"]:  # ice, coffee, coffee, water
        order.append(state.current)
        play(state, f"place {square}")
    assert order == [1, 0, 1, 0]
    assert state.meeples == [[sq("d1"), sq("d2")], [sq("a1"), sq("a2")]]
    assert state.phase is Phase.SETUP_POUR
    assert state.current == 0
    assert hand(state, "coffee") == 1 and hand(state, "water") == 1 and sum(state.hand) == 2
    assert legal_texts(state) == sorted(
        f"pour {i} {c}" for i in ("coffee", "water") for c in (1, 2, 3)
    )
    assert "set-up tokens" in rejected(state, "place b2")
    play(state, "pour coffee 1", "pour water 2")
    assert state.phase is Phase.SETUP_POUR and state.current == 1
    assert hand(state, "ice") == 1 and hand(state, "coffee") == 1 and sum(state.hand) == 2
    play(state, "pour ice 3", "pour coffee 3")
    assert state.phase is Phase.TURN and state.current == 0 and state.stage is Stage.MOVE
    assert [cup(state, 0, c) for c in (1, 2, 3)] == [["coffee"], ["water"], []]
    assert [cup(state, 1, c) for c in (1, 2, 3)] == [[], [], ["coffee", "ice"]]
    assert supply(state, "coffee") == 16
    assert supply(state, "water") == 11 and supply(state, "ice") == 11
    assert state.hand == [0] * 8


def test_two_players_may_not_place_on_their_own_meeple() -> None:
    state = GAME.new_initial_state(2, 5, {})
    play(state, "place a1", "place d1")
    assert state.current == 1
    assert "a1 already has a meeple" in rejected(state, "place a1")
    assert "d1 already has a meeple" in rejected(state, "place d1")


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 11, 12345])
def test_less_luck_set_up(n: int, seed: int) -> None:
    state = GAME.new_initial_state(n, seed, {"less_luck": True})
    for seat in range(n):
        first, second = counter_names(state, seat)[:2]
        assert first[0] in LESS_LUCK  # the Espresso/Ristretto is on counter 1
        assert len(first) == (2 if seat == 0 else 1)
        assert len(second) == 1 and second[0] not in LESS_LUCK
        assert counter_names(state, seat)[2:] == [[], []]
    # the start player's extra card came from the deck, not from the set-aside cards
    assert counter_names(state, 0)[0][1] not in LESS_LUCK
    assert len(state.removed) == 4 - n
    assert set(names(state.removed)) <= LESS_LUCK
    assert not LESS_LUCK & set(names(state.deck))
    assert len(state.deck) + len(state.cards_in_play()) == 80
    assert Counter(state.deck) + Counter(state.cards_in_play()) == Counter(CARDS.all_cards())
    assert len(state.deck) == 80 - 4 - (n + 1)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_turns_go_clockwise_from_the_start_player(n: int) -> None:
    state = GAME.new_initial_state(n, 42, {})
    while state.phase is Phase.PLACE:
        play(state, legal_texts(state)[0])
    while state.phase is Phase.SETUP_POUR:
        play(state, legal_texts(state)[0])
    assert state.phase is Phase.TURN
    assert sum(sum(c) for cups in state.cups for c in cups) == (4 if n == 2 else n)
    played = [pass_turn(state) for _ in range(n + 1)]
    assert played == [*range(n), 0]


# ==== movement ================================================================================
def three_players(me: str = "b2", other: str = "c2", third: str = "a4", **mine: Any) -> Any:
    mine.setdefault("counters", ESPRESSO_ONLY)
    return position(
        [player(me, **mine), player(other, counters=ONE_ORDER), player(third, counters=ONE_ORDER)]
    )


def test_passing_through_an_occupied_square_collects_its_ingredient() -> None:
    state = three_players()
    play(state, "b2-c2")
    assert hand(state, "ice") == 1 and supply(state, "ice") == 11
    assert state.meeples[0] == [sq("c2")]
    assert "stop" not in legal_texts(state)
    message = rejected(state, "stop")
    assert "may not end your move on c2" in message and "another meeple" in message
    play(state, "c2-d2", "stop")
    assert hand(state, "water") == 1
    assert state.meeples == [[sq("d2")], [sq("c2")], [sq("a4")]]
    assert state.stage is Stage.POUR


def test_a_third_step_onto_an_occupied_square_needs_a_rush_token() -> None:
    state = three_players(me="a3")
    play(state, "a3-b3", "b3-b2")
    assert "b2-c2" not in legal_texts(state)
    message = rejected(state, "b2-c2")
    assert "c2 has a meeple" in message and "no steps left" in message
    # with one rush token the step is offered, and the move must go on
    state = three_players(me="a3", rush=1)
    play(state, "a3-b3", "b3-b2")
    assert "b2-c2" in legal_texts(state)
    play(state, "b2-c2")
    assert state.stage is Stage.MOVE and state.rush[0] == 1
    assert "stop" not in legal_texts(state)
    play(state, "c2-c1")  # the 4th step spends the rush token
    assert state.rush[0] == 0 and state.rush_supply == 15
    assert state.stage is Stage.POUR  # no step left: movement stopped by itself
    assert hand(state, "ice") == 1 and hand(state, "steam") == 2 and hand(state, "milk") == 1


def test_a_step_into_a_pocket_of_meeples_needs_enough_steps_to_get_out() -> None:
    # a1's neighbours b1 and a2 both hold meeples: from a1 a free square is 2 steps away
    def pocket(rush: int) -> Any:
        return position(
            [
                player("c1", counters=ESPRESSO_ONLY, rush=rush),
                player("a1", counters=ONE_ORDER),
                player("b1", counters=ONE_ORDER),
                player("a2", counters=ONE_ORDER),
            ]
        )

    state = pocket(0)
    play(state, "c1-b1")  # b1 is occupied, but c1 (left just now) and b2 are free
    assert "b1-a1" not in legal_texts(state)
    state = pocket(1)
    play(state, "c1-b1")
    assert "b1-a1" in legal_texts(state)
    play(state, "b1-a1")
    assert legal_texts(state) == ["a1-a2", "a1-b1"]
    play(state, "a1-b1")  # 3rd step; the rush token pays a 4th to a free square
    # the last step must reach a free square: back into the pocket is not offered
    assert legal_texts(state) == ["b1-b2", "b1-c1"]
    play(state, "b1-b2")
    assert state.stage is Stage.POUR and state.rush[0] == 0
    assert hand(state, "caramel") == 2 and hand(state, "ice") == 1 and hand(state, "milk") == 1


def test_ending_where_you_started_is_legal() -> None:
    state = three_players()
    play(state, "b2-b1", "b1-b2")
    assert "stop" in legal_texts(state)
    play(state, "stop")
    assert state.meeples[0] == [sq("b2")]
    assert hand(state, "caramel") == 1 and hand(state, "milk") == 1
    assert supply(state, "milk") == 11


def test_diagonal_steps_need_the_upgrade() -> None:
    state = three_players()
    assert "b2-c3" not in legal_texts(state)
    assert "Diagonal Move" in rejected(state, "b2-c3")
    state = three_players(upgrades=["diagonal"])
    assert {"b2-a1", "b2-c1", "b2-a3", "b2-c3"} <= set(legal_texts(state))
    play(state, "b2-c3", "stop")
    assert state.meeples[0] == [sq("c3")]
    assert hand(state, "milk") == 1


def test_rush_tokens_extend_the_path_and_go_back_to_the_supply() -> None:
    state = three_players(rush=2)
    assert state.rush_supply == 13
    play(state, "b2-b1-c1-d1")
    assert state.stage is Stage.MOVE and state.steps == 3
    assert state.steps_left() == (0, 2)
    assert "stop" in legal_texts(state)
    play(state, "d1-d2")
    assert state.rush[0] == 1 and state.rush_supply == 14
    play(state, "d2-d3")
    assert state.rush[0] == 0 and state.rush_supply == 15
    assert state.stage is Stage.POUR  # out of steps: stopped by itself
    assert state.steps == 5
    assert hand(state, "coffee") == 2 and hand(state, "water") == 1
    assert hand(state, "caramel") == 1 and hand(state, "steam") == 1


def test_movement_stops_by_itself_after_the_third_step_without_rush_tokens() -> None:
    state = three_players()
    play(state, "b2-b1", "b1-a1")
    assert state.stage is Stage.MOVE
    play(state, "a1-a2")
    assert state.stage is Stage.POUR
    assert not any(t[0] in "abcd" and t[1] in "1234" for t in legal_texts(state))
    assert "pour coffee 1" in legal_texts(state)
    assert "movement is over" in rejected(state, "a2-a3")
    assert "already over" in rejected(state, "stop")


def test_movement_stops_by_itself_in_a_dead_end_ruling_a1() -> None:
    # d4's neighbours d3 and c4 hold meeples; with one free step left and no rush token,
    # no step can leave d4, so `stop` would be the only choice: the engine plays it
    state = three_players(me="c3", other="d3", third="c4")
    play(state, "c3-d3", "d3-d4")
    assert state.steps == 2
    assert state.stage is Stage.POUR
    assert "stop" not in legal_texts(state)
    assert "already over" in rejected(state, "stop")
    assert "pour coffee 1" in legal_texts(state) and "pour steam 1" in legal_texts(state)
    # the whole turn in one text may still write the stop the engine played
    state = three_players(me="c3", other="d3", third="c4")
    play(state, "c3-d3-d4; stop; pour coffee 1")
    assert state.stage is Stage.POUR and state.meeples[0] == [sq("d4")]
    assert cup(state, 0, 1) == ["coffee"]


def test_at_least_one_step_before_stop() -> None:
    state = three_players()
    assert "stop" not in legal_texts(state)
    assert "at least one step" in rejected(state, "stop")
    assert "finish moving first" in rejected(state, "end")


def two_player_game(**mine: Any) -> Any:
    mine.setdefault("counters", ESPRESSO_ONLY)
    return position(
        [player("b3", "c2", **mine), player("a1", "d4", counters=ESPRESSO_ONLY)],
    )


def test_two_players_a_turn_moves_only_one_meeple() -> None:
    state = two_player_game()
    play(state, "c2-c1")
    assert all(t.startswith("c1-") or t == "stop" for t in legal_texts(state))
    message = rejected(state, "b3-b4")
    assert "one meeple" in message and "c1" in message
    play(state, "stop")
    assert state.meeples[0] == [sq("b3"), sq("c1")]


def test_two_players_ambiguous_shorthand_step_is_refused_with_both_spellings() -> None:
    state = two_player_game()
    message = rejected(state, "c3")
    assert "more than one of your meeples" in message
    assert "b3-c3" in message and "c2-c3" in message
    # unambiguous shorthands resolve to the one meeple that can go there
    play(state, "b4")
    assert state.meeples[0] == [sq("b4"), sq("c2")]
    assert hand(state, "ice") == 1


def test_shorthand_step_that_no_meeple_can_take_is_explained() -> None:
    state = two_player_game()
    message = rejected(state, "a4")  # next to neither b3 nor c2
    assert message.startswith("a4:")
    assert "d0" not in message  # once explained with square_name(-1)
    assert "none of your meeples can step to a4" in message


# ==== pouring =================================================================================
def pouring(**turn: Any) -> Any:
    """Seat 0 (3 players) has moved to b2 and holds `hand`; cups as given."""
    cups = turn.pop("cups", [["coffee"], [], []])
    counters = turn.pop("counters", ESPRESSO_ONLY)
    return position(
        [
            player("b2", cups=cups, counters=counters),
            player("c2", counters=ONE_ORDER),
            player("a4", counters=ONE_ORDER),
        ],
        turn={"stage": "pour", "moving": "b2", "steps": 1, **turn},
    )


def test_pour_takes_only_tokens_taken_this_turn_never_from_another_cup() -> None:
    state = pouring(hand=["steam"])
    assert legal_texts(state) == ["empty 1", "end", "pour steam 1", "pour steam 2", "pour steam 3"]
    assert "no coffee" in rejected(state, "pour coffee 2")
    play(state, "pour steam 2")
    assert [cup(state, 0, c) for c in (1, 2, 3)] == [["coffee"], ["steam"], []]
    # the cup-1 coffee can not join the steam: nothing moves between cups
    assert legal_texts(state) == ["empty 1", "empty 2", "end"]
    assert "no coffee" in rejected(state, "pour coffee 2")
    assert state.hand == [0] * 8


def test_empty_returns_the_tokens_to_the_supply() -> None:
    state = three_players(cups=[[], ["milk", "milk", "ice"], []])
    assert supply(state, "milk") == 10 and supply(state, "ice") == 11
    assert "empty 2" in legal_texts(state)  # at any time in the turn, even before moving
    assert "already empty" in rejected(state, "empty 1")
    play(state, "empty 2")
    assert cup(state, 0, 2) == []
    assert supply(state, "milk") == 12 and supply(state, "ice") == 12
    assert state.current == 0 and state.stage is Stage.MOVE


def test_unpoured_tokens_go_back_at_the_end_of_the_turn() -> None:
    state = pouring(hand=["coffee", "coffee", "steam"])
    assert supply(state, "coffee") == 15 and supply(state, "steam") == 11
    play(state, "pour coffee 3", "end")
    assert cup(state, 0, 3) == ["coffee"] and cup(state, 0, 1) == ["coffee"]
    assert supply(state, "coffee") == 16 and supply(state, "steam") == 12
    assert state.hand == [0] * 8
    assert state.current == 1


def test_the_first_serve_ends_pouring_and_returns_the_hand() -> None:
    state = pouring(hand=["steam", "coffee", "milk"], cups=[["coffee"], ["milk"], []])
    play(state, "pour steam 1", "serve 1 1 Espresso")
    assert state.stage is Stage.SERVE and state.current == 0
    assert state.hand == [0] * 8
    assert supply(state, "coffee") == 18 and supply(state, "steam") == 12
    assert supply(state, "milk") == 11  # the one in cup 2
    assert "Ruling T1" in rejected(state, "pour coffee 2")
    assert legal_texts(state) == ["empty 2", "end"]


# ==== serving =================================================================================
def test_a_cup_must_hold_exactly_the_recipe() -> None:
    state = pouring(hand=["steam", "steam"])
    play(state, "pour steam 1", "pour steam 1")
    assert cup(state, 0, 1) == ["coffee", "steam", "steam"]
    assert not any(t.startswith("serve") for t in legal_texts(state))
    message = rejected(state, "serve 1 1 Espresso")
    assert "coffee+steam+steam" in message and "needs exactly coffee+steam" in message
    message = rejected(state, "serve 1 1")
    assert "matches no order on counter 1" in message
    assert "no Espresso on counter 2" in rejected(state, "serve 1 2 Espresso")
    # one token short is not enough either
    state = pouring(hand=["milk"])
    play(state, "pour milk 2")
    assert not any(t.startswith("serve") for t in legal_texts(state))


def test_serving_two_orders_in_one_turn_returns_the_tokens() -> None:
    # 4 players; seat 0 serves an Espresso (counter 1) and a Caffe Latte (counter 2)
    state = position(
        [
            player(
                "b2",
                cups=[["coffee"], ["coffee", "milk"], []],
                counters=[["Espresso"], ["Caffe Latte"], [], []],
            ),
            player("a1", counters=ONE_ORDER),
            player("d1", counters=ONE_ORDER),
            player("d4", counters=ONE_ORDER),
        ],
        deck_top=DRAWS,
    )
    play(state, "b2-b3-b2-b3")  # steam, milk, steam: movement stops by itself
    assert state.stage is Stage.POUR
    play(state, "pour steam 1", "pour steam 2", "serve 1 1 Espresso")
    assert supply(state, "milk") == 11  # the unpoured milk is back; one milk is in cup 2
    play(state, "serve 2 2 Caffe Latte")  # every cup empty: the turn ends by itself
    assert names(state.completed[0]) == ["Espresso", "Caffe Latte"]
    assert state.supply == BOX
    assert state.cups[0] == [(0,) * 8] * 3
    assert state.current == 1
    # too many orders: 2 cards each for the two players to the left, seat 1 first
    assert counter_names(state, 1)[0] == ["Iced Americano", "Cold Brew", "Milk Tea"]
    assert counter_names(state, 2)[0] == ["Iced Americano", "Cocoa", "Green Tea"]
    assert counter_names(state, 3)[0] == ["Iced Americano"]
    assert deck_top(state, 1) == ["Americano"]
    assert counter_names(state, 0) == [[], [], [], []]


def test_special_menu_gives_a_rush_token() -> None:
    state = pouring(
        hand=["steam"], cups=[["tea", "water"], ["milk"], []], counters=[["Green Tea"], [], [], []]
    )
    assert state.rush_supply == 15
    play(state, "pour steam 1", "serve 1 1 Green Tea")
    assert state.rush == [1, 0, 0] and state.rush_supply == 14
    # an ordinary drink gives none
    state = pouring(hand=["steam"])
    play(state, "pour steam 1", "serve 1 1 Espresso")
    assert state.rush == [0, 0, 0] and state.rush_supply == 15


def test_special_menu_gives_no_rush_token_when_the_supply_has_none() -> None:
    state = position(
        [
            player(
                "b2", cups=[["tea", "water"], ["milk"], []], counters=[["Black Tea"], [], [], []]
            ),
            player("c2", counters=ONE_ORDER, rush=15),
            player("a4", counters=ONE_ORDER),
        ],
        turn={"stage": "pour", "moving": "b2", "steps": 1, "hand": ["steam"]},
    )
    assert state.rush_supply == 0
    play(state, "pour steam 1", "serve 1 1 Black Tea")
    assert names(state.completed[0]) == ["Black Tea"]
    assert state.rush == [0, 15, 0] and state.rush_supply == 0


def test_serve_the_order_on_the_chosen_counter() -> None:
    # cup 2 keeps a milk so that the turn does not end by itself after the serve
    state = pouring(
        hand=["steam"],
        cups=[["coffee"], ["milk"], []],
        counters=[["Espresso"], [], ["Espresso"], []],
    )
    play(state, "pour steam 1")
    assert {"serve 1 1 Espresso", "serve 1 3 Espresso"} <= set(legal_texts(state))
    play(state, "serve 1 3")
    assert counter_names(state, 0)[:3] == [["Espresso"], [], []]
    assert names(state.completed[0]) == ["Espresso"]


def test_an_order_on_counter_4_can_still_be_served() -> None:
    state = pouring(hand=["steam"], counters=[[], [], [], ["Espresso"]])
    play(state, "pour steam 1", "serve 1 4 Espresso")
    assert names(state.completed[0]) == ["Espresso"]
    assert state.penalties[0] == []


def test_serve_without_a_drink_name_must_be_unambiguous() -> None:
    state = pouring(
        hand=["steam"],
        cups=[["coffee"], ["milk"], []],
        counters=[[], ["Espresso", "Ristretto"], [], []],
    )
    play(state, "pour steam 1")
    message = rejected(state, "serve 1 2")
    assert "several orders" in message and "Espresso" in message and "Ristretto" in message
    play(state, "serve 1 2 Ristretto")
    assert counter_names(state, 0)[1] == ["Espresso"]
    assert names(state.completed[0]) == ["Ristretto"]


def test_too_many_orders_with_two_players() -> None:
    state = two_orders_ready(0, 2)
    serve_both(state)
    # the other player draws 2 onto counter 1, then time passes adds 1 to the server's
    assert counter_names(state, 1)[0] == ["Iced Americano", "Cold Brew", "Milk Tea"]
    assert counter_names(state, 0) == [["Cocoa"], [], [], []]
    assert deck_top(state, 1) == ["Green Tea"]
    assert state.current == 1 and not state.closed


def test_too_many_orders_with_three_players_wraps_round_the_table() -> None:
    state = two_orders_ready(1, 3)
    serve_both(state)
    assert counter_names(state, 2)[0] == ["Iced Americano", "Cold Brew", "Milk Tea"]
    assert counter_names(state, 0)[0] == ["Iced Americano", "Cocoa", "Green Tea"]
    assert counter_names(state, 1) == [[], [], [], []]
    assert state.current == 2


def test_too_many_orders_with_four_players() -> None:
    state = two_orders_ready(3, 4)
    serve_both(state)
    assert counter_names(state, 0)[0] == ["Iced Americano", "Cold Brew", "Milk Tea"]
    assert counter_names(state, 1)[0] == ["Iced Americano", "Cocoa", "Green Tea"]
    assert counter_names(state, 2)[0] == ["Iced Americano"]
    # seat 3 is the start player's right: the game goes on (the token is OPEN)
    assert state.current == 0 and state.phase is Phase.TURN


def test_one_order_draws_one_card_each() -> None:
    state = two_orders_ready(0, 4)
    play(state, "b2-b3", "stop", "serve 1 1 Espresso", "empty 2")  # the turn ends by itself
    assert counter_names(state, 1)[0] == ["Iced Americano", "Cold Brew"]
    assert counter_names(state, 2)[0] == ["Iced Americano", "Milk Tea"]
    assert counter_names(state, 3)[0] == ["Iced Americano"]
    assert counter_names(state, 0)[2] == ["Espresso Doppio"]  # time passed: 2 -> 3


def test_deck_running_out_during_too_many_orders_four_players() -> None:
    state = two_orders_ready(0, 4, deck_size=3)
    assert len(state.deck) == 3
    serve_both(state)
    assert counter_names(state, 1)[0] == ["Iced Americano", "Cold Brew", "Milk Tea"]
    assert counter_names(state, 2)[0] == ["Iced Americano", "Cocoa"]  # one short
    assert counter_names(state, 3)[0] == ["Iced Americano"]
    assert state.deck == [] and state.closed
    # CLOSED on the start player's turn: seats 1, 2 and 3 still play, then the game ends
    played = [pass_turn(state) for _ in range(3)]
    assert played == [1, 2, 3]
    assert state.phase is Phase.OVER and state.current_seats() == frozenset()


def test_deck_running_out_during_too_many_orders_three_players_left_neighbour_first() -> None:
    state = two_orders_ready(2, 3, deck_size=1)
    serve_both(state)
    assert counter_names(state, 0)[0] == ["Iced Americano", "Cold Brew"]
    assert counter_names(state, 1)[0] == ["Iced Americano"]
    assert state.closed
    assert state.phase is Phase.OVER  # seat 2 was the start player's right


def test_taking_the_last_card_closes_the_game_ruling_l1() -> None:
    state = two_orders_ready(0, 4, deck_size=4)
    serve_both(state)
    assert counter_names(state, 2)[0] == ["Iced Americano", "Cocoa", "Green Tea"]
    assert state.deck == [] and state.closed
    assert state.current == 1


def test_deck_running_out_with_two_players() -> None:
    # the other player takes the one card left; the start player's own draw finds none
    state = two_orders_ready(0, 2, deck_size=1)
    serve_both(state)
    assert counter_names(state, 1)[0] == ["Iced Americano", "Cold Brew"]
    assert counter_names(state, 0) == [[], [], [], []]
    assert state.closed and state.current == 1
    assert pass_turn(state) == 1
    assert state.phase is Phase.OVER


# ==== upgrades ================================================================================
def test_an_upgrade_needs_three_completed_orders() -> None:
    state = three_players(completed=["Cold Brew", "Cocoa"])
    assert not any(t.startswith("upgrade") for t in legal_texts(state))
    message = rejected(state, "upgrade diagonal")
    assert "3 completed orders" in message and "you have 2" in message


def test_an_upgrade_discards_the_oldest_three_and_scores_two() -> None:
    state = three_players(completed=["Cold Brew", "Cocoa", "Milk Tea", "Green Tea"])
    assert state.scores()[0].total == 4
    assert sorted(t for t in legal_texts(state) if t.startswith("upgrade")) == [
        "upgrade diagonal",
        "upgrade double-corners",
        "upgrade double-meeples",
        "upgrade double-specialties",
    ]
    play(state, "upgrade double-corners")
    assert names(state.completed[0]) == ["Green Tea"]
    assert names(state.discarded) == ["Cold Brew", "Cocoa", "Milk Tea"]
    score = state.scores()[0]
    assert score.total == 3
    assert dict(score.parts) == {"orders": 1, "upgrades": 2, "penalties": 0}
    assert state.to_json()["players"][0]["upgrades"] == ["double-corners"]
    assert len(state.deck) + len(state.cards_in_play()) == 80


def test_an_upgrade_works_at_once() -> None:
    state = three_players(completed=["Cold Brew", "Cocoa", "Milk Tea"])
    assert "b2-c3" not in legal_texts(state)
    play(state, "upgrade diagonal")
    assert "b2-c3" in legal_texts(state)
    play(state, "b2-c3", "stop")
    assert state.meeples[0] == [sq("c3")]
    assert state.completed[0] == []


def test_only_one_upgrade_per_turn() -> None:
    state = three_players(completed=["Cold Brew", "Cocoa", "Milk Tea"] * 2)
    play(state, "upgrade diagonal")
    assert len(state.completed[0]) == 3
    assert not any(t.startswith("upgrade") for t in legal_texts(state))
    assert "Ruling U1" in rejected(state, "upgrade double-corners")
    # next turn another one is allowed
    pass_turn(state)
    pass_turn(state)
    pass_turn(state)
    assert state.current == 0
    play(state, "upgrade double-corners")
    assert state.scores()[0].total == 4
    assert state.completed[0] == []


def test_upgrades_only_before_the_first_step() -> None:
    state = three_players(completed=["Cold Brew", "Cocoa", "Milk Tea"])
    play(state, "b2-b1")
    assert not any(t.startswith("upgrade") for t in legal_texts(state))
    assert "before you move" in rejected(state, "upgrade diagonal")


def test_an_upgrade_already_owned_is_not_offered_again() -> None:
    state = three_players(
        completed=["Cold Brew", "Cocoa", "Milk Tea"], upgrades=["diagonal", "double-meeples"]
    )
    assert sorted(t for t in legal_texts(state) if t.startswith("upgrade")) == [
        "upgrade double-corners",
        "upgrade double-specialties",
    ]
    assert "already have Diagonal Move" in rejected(state, "upgrade diagonal")


# ==== time passes, penalties, end of the game ====================================================
def test_time_passes_moves_the_orders_down_and_counter_4_becomes_penalties() -> None:
    state = pouring(
        hand=["steam"],
        counters=[["Cold Brew"], ["Cocoa", "Milk Tea"], ["Green Tea"], ["Americano", "Iced Cocoa"]],
    )
    play(state, "end")
    assert counter_names(state, 0) == [[], ["Cold Brew"], ["Cocoa", "Milk Tea"], ["Green Tea"]]
    assert names(state.penalties[0]) == ["Americano", "Iced Cocoa"]
    assert state.rush[0] == 2 and state.rush_supply == 13
    assert state.scores()[0].total == -2
    assert not state.closed and state.current == 1


def test_penalty_rush_tokens_are_capped_by_the_supply_ruling_r1() -> None:
    state = position(
        [
            player("b2", counters=[[], [], [], ["Americano", "Iced Cocoa", "Cocoa"]]),
            player("c2", counters=ONE_ORDER, rush=14),
            player("a4", counters=ONE_ORDER),
        ],
        turn={"stage": "pour", "moving": "b2", "steps": 1, "hand": ["milk"]},
    )
    assert state.rush_supply == 1
    play(state, "end")
    assert len(state.penalties[0]) == 3
    assert state.rush == [1, 14, 0] and state.rush_supply == 0


def test_five_penalties_close_the_game() -> None:
    state = position(
        [
            player(
                "b2",
                counters=[["Cold Brew"], [], [], ["Americano"]],
                penalties=["Cocoa", "Cocoa", "Milk Tea", "Milk Tea"],
            ),
            player("c2", counters=ONE_ORDER),
            player("a4", counters=ONE_ORDER),
        ],
        turn={"stage": "pour", "moving": "b2", "steps": 1, "hand": ["milk"]},
    )
    play(state, "end")
    assert len(state.penalties[0]) == 5
    assert state.closed and state.phase is Phase.TURN and state.current == 1


def test_four_penalties_do_not_close_the_game() -> None:
    state = position(
        [
            player(
                "b2",
                counters=[["Cold Brew"], [], [], ["Americano"]],
                penalties=["Cocoa", "Cocoa", "Milk Tea"],
            ),
            player("c2", counters=ONE_ORDER),
            player("a4", counters=ONE_ORDER),
        ],
        turn={"stage": "pour", "moving": "b2", "steps": 1, "hand": ["milk"]},
    )
    play(state, "end")
    assert len(state.penalties[0]) == 4 and not state.closed


def closing_on(n: int, k: int) -> Any:
    """n players, seat k to move with 4 penalties and an order on counter 4: its `end`
    closes the game. Every seat has an order on counter 1."""
    corners = ["a1", "d1", "a4", "d4"]
    players = []
    for s in range(n):
        meeples = corners[2 * s : 2 * s + 2] if n == 2 else [corners[s]]
        if s == k:
            players.append(
                player(
                    *meeples,
                    counters=[["Cold Brew"], [], [], ["Americano"]],
                    penalties=["Cocoa", "Cocoa", "Milk Tea", "Milk Tea"],
                )
            )
        else:
            players.append(player(*meeples, counters=ONE_ORDER))
    return position(players, to_move=k)


@pytest.mark.parametrize(
    ("n", "k"),
    [(2, 0), (2, 1), (3, 0), (3, 1), (3, 2), (4, 0), (4, 1), (4, 2), (4, 3)],
)
def test_the_last_round_ends_with_the_start_players_right_hand_neighbour(n: int, k: int) -> None:
    state = closing_on(n, k)
    assert pass_turn(state) == k
    assert state.closed
    played = []
    while state.phase is not Phase.OVER:
        played.append(pass_turn(state))
    assert played == list(range(k + 1, n))
    assert state.current_seats() == frozenset()
    assert state.legal_actions(0) == []
    assert "game is over" in rejected_over(state)


def rejected_over(state: Any) -> str:
    before = state.to_json()
    with pytest.raises(GameOverError) as info:
        state.apply(0, GAME.parse_action("end"))
    assert state.to_json() == before
    return str(info.value)


def test_two_players_time_passes_adds_a_card_to_your_own_counter_1() -> None:
    state = position(
        [
            player("b2", "a4", counters=[["Cold Brew"], ["Cocoa"], [], []]),
            player("a1", "d4", counters=ONE_ORDER),
        ],
        deck_top=DRAWS,
    )
    pass_turn(state)
    assert counter_names(state, 0) == [[DRAWS[0]], ["Cold Brew"], ["Cocoa"], []]
    assert counter_names(state, 1) == ONE_ORDER  # the other player's orders did not move
    assert deck_top(state, 1) == [DRAWS[1]]
    pass_turn(state)
    assert counter_names(state, 1) == [[DRAWS[1]], ["Iced Americano"], [], []]


@pytest.mark.parametrize(("closer", "last_turns"), [(0, [1]), (1, [])])
def test_two_players_the_deck_running_out_at_time_passes_closes_the_game(
    closer: int, last_turns: list[int]
) -> None:
    state = position(
        [
            player("b2", "a4", counters=[["Cold Brew"], [], [], []]),
            player("c2", "d4", counters=ONE_ORDER),
        ],
        to_move=closer,
        deck_top=["Cocoa"],
        deck_size=1,
    )
    assert pass_turn(state) == closer
    assert counter_names(state, closer)[0] == ["Cocoa"]
    assert state.deck == [] and state.closed
    played = []
    while state.phase is not Phase.OVER:
        played.append(pass_turn(state))
    assert played == last_turns


def test_no_order_left_anywhere_closes_the_game_ruling_e1() -> None:
    state = position(
        [player("b2", counters=[[], [], [], ["Cocoa"]]), player("c2"), player("a4")],
        turn={"stage": "pour", "moving": "b2", "steps": 1, "hand": ["milk"]},
    )
    assert len(state.deck) == 79
    play(state, "end")
    assert names(state.penalties[0]) == ["Cocoa"]
    assert state.closed and state.current == 1
    assert pass_turn(state) == 1 and pass_turn(state) == 2
    assert state.phase is Phase.OVER


def test_the_turn_ends_by_itself_when_end_is_the_only_action() -> None:
    # every water token is in seat 1's cups: the step to d2 takes nothing
    state = position(
        [
            player("d1", counters=ESPRESSO_ONLY),
            player("a1", cups=[["water"] * 12, [], []], counters=ONE_ORDER),
            player("a4", counters=ONE_ORDER),
        ]
    )
    play(state, "d1-d2", "stop")
    assert state.current == 1 and state.stage is Stage.MOVE
    assert counter_names(state, 0)[1] == ["Espresso"]


# ==== scoring ================================================================================
def finished(*players: dict[str, Any]) -> Any:
    return position(list(players), phase="over", to_move=None, closed=True)


def test_scores_count_orders_upgrades_and_penalties() -> None:
    state = finished(
        player(
            "a1",
            completed=["Cocoa", "Cocoa", "Milk Tea"],
            upgrades=["diagonal"],
            penalties=["Cold Brew"],
            rush=2,
        ),
        player("b1", completed=["Green Tea"], upgrades=["double-meeples", "double-corners"]),
        player("c1", penalties=["Americano", "Americano"]),
    )
    assert state.is_over()
    scores = state.scores()
    assert [s.total for s in scores] == [4, 5, -2]
    assert dict(scores[0].parts) == {"orders": 3, "upgrades": 2, "penalties": -1}
    assert dict(scores[1].parts) == {"orders": 1, "upgrades": 4, "penalties": 0}
    assert scores[0].tiebreak == (3, 2)
    assert state.winners() == [1]


def test_a_tie_is_broken_by_completed_orders() -> None:
    state = finished(
        player("a1", "a2", completed=["Cocoa"], upgrades=["diagonal"], rush=5),  # 3
        player("b1", "b2", completed=["Green Tea", "Milk Tea", "Cold Brew"]),  # 3
    )
    assert [s.total for s in state.scores()] == [3, 3]
    assert state.winners() == [1]


def test_then_by_rush_tokens() -> None:
    state = finished(
        player("a1", completed=["Cocoa", "Cocoa"], rush=1),
        player("b1", completed=["Green Tea", "Milk Tea"], rush=3),
        player(
            "c1", completed=["Cold Brew"], upgrades=["diagonal"], penalties=["Cold Brew"], rush=9
        ),
    )
    assert [s.total for s in state.scores()] == [2, 2, 2]
    assert state.winners() == [1]


def test_otherwise_the_win_is_shared() -> None:
    state = finished(
        player("a1", completed=["Cocoa", "Cocoa"], rush=1),
        player("b1", completed=["Green Tea"], rush=4),
        player("c1", completed=["Milk Tea", "Cold Brew"], rush=1),
        player("d1"),
    )
    assert state.winners() == [0, 2]


# ==== illegal actions ========================================================================
def test_wrong_seat_is_refused_and_changes_nothing() -> None:
    state = three_players()
    before = state.to_json()
    with pytest.raises(NotYourTurnError, match="seat 1 may not act now"):
        state.apply(1, GAME.parse_action("c2-c1"))
    with pytest.raises(NotYourTurnError, match="no seat 7"):
        state.apply(7, GAME.parse_action("b2-b1"))
    assert state.to_json() == before
    assert state.legal_actions(1) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "fly to b2",
        "e5",
        "b2-e5",
        "pour coffee 4",
        "pour sugar 1",
        "pour 1",
        "empty 0",
        "serve 1 5",
        "serve 1 1 Unicorn Latte",
        "upgrade teleport",
        "place z9",
        "b2-b1; jump",
    ],
)
def test_malformed_notation_is_a_notation_error(text: str) -> None:
    state = three_players()
    before = state.to_json()
    with pytest.raises(NotationError):
        state.apply(0, GAME.parse_action(text))
    assert state.to_json() == before


def test_a_turn_text_is_all_or_nothing() -> None:
    state = three_players()
    before = state.to_json()
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, GAME.parse_action("b2-b1-c1; pour caramel 1; pour milk 1; end"))
    message = str(info.value)
    assert message.startswith("step 4 of the turn")
    assert "pour milk 1" in message and "no milk" in message
    assert state.to_json() == before
    # the same turn without the bad pour goes through, `stop` inserted before the pour
    done = state.apply(0, GAME.parse_action("b2-b1-c1; pour caramel 1; end"))
    assert done.notation() == "b2-b1-c1; pour 1:caramel; end"
    assert cup(state, 0, 1) == ["caramel"]
    assert supply(state, "steam") == 12 and supply(state, "caramel") == 11
    assert state.current == 1


def test_a_turn_text_failing_on_a_step_names_it() -> None:
    state = three_players(me="a3")
    before = state.to_json()
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, GAME.parse_action("a3-b3-b2-c2"))
    message = str(info.value)
    assert message.startswith("step 3 of the turn") and "b2-c2" in message
    assert "c2 has a meeple" in message
    assert state.to_json() == before


def test_a_turn_text_may_spell_out_the_stop_and_end_the_engine_plays_itself() -> None:
    # Ruling A1: the third step stops the movement and the last serve ends the turn by
    # themselves; a `stop` and an `end` written in the text are then skipped
    state = position(
        [
            player("b2", cups=[["coffee"], [], []], counters=ESPRESSO_ONLY),
            player("c2", counters=ONE_ORDER),
            player("a4", counters=ONE_ORDER),
        ],
        deck_top=DRAWS,
    )
    done = state.apply(0, GAME.parse_action("b2-b1-c1-b1; stop; pour steam 1; serve 1 1; end"))
    assert names(state.completed[0]) == ["Espresso"]
    assert state.current == 1
    assert done.notation() == "b2-b1-c1-b1; pour 1:steam; serve 1 1 Espresso"
    assert counter_names(state, 1)[0] == ["Iced Americano", DRAWS[0]]
    assert counter_names(state, 2)[0] == ["Iced Americano", DRAWS[1]]
    assert state.supply == BOX


def test_tokens_are_conserved_through_a_scripted_turn() -> None:
    state = two_orders_ready(0, 3)
    assert total_tokens(state) == BOX
    play(state, "b2-b3-b2")
    assert total_tokens(state) == BOX
    play(state, "b2-b3")  # the 3rd step ends the movement by itself
    assert total_tokens(state) == BOX
    play(state, "pour milk 3", "serve 1 1 Espresso")
    assert total_tokens(state) == BOX
    assert cup(state, 0, 3) == ["milk"] and state.hand == [0] * 8
    play(state, "serve 2 2 Espresso Doppio", "end")
    assert total_tokens(state) == BOX
    assert state.supply[1] == BOX[1] - 1 and state.current == 1


def test_a_game_stored_with_the_stop_of_a_dead_end_still_replays() -> None:
    """Before Ruling A1 covered dead ends the engine waited for their `stop`, so records and
    the server's tables of that time store it: replaying them skips it (the engine played
    it with the step). Seed 17 with 3 random players reaches a dead end at action 14."""
    import random

    from coffeetable.core.record import GameRecord
    from coffeetable.core.registry import find_game

    game = find_game("coffee-rush")
    state = game.new_initial_state(3, 17, game.normalize_options({}))
    rng = random.Random(17)
    actions: list[tuple[int, str]] = []
    while len(actions) < 14:
        seat = min(state.current_seats())
        action = rng.choice(state.legal_actions(seat))
        state.apply(seat, action)
        actions.append((seat, action.notation()))
    seat = actions[-1][0]
    assert state.current == seat and state.stage is Stage.POUR and state.steps < 3  # dead end
    rest = []
    while not state.is_over() and len(rest) < 40:
        mover = min(state.current_seats())
        action = rng.choice(state.legal_actions(mover))
        state.apply(mover, action)
        rest.append((mover, action.notation()))
    options = game.normalize_options({})
    now = GameRecord("coffee-rush", ["a", "b", "c"], 17, options, actions + rest).replay()
    old = GameRecord("coffee-rush", ["a", "b", "c"], 17, options, [*actions, (seat, "stop"), *rest])
    assert old.replay().to_json() == now.to_json()
    # a stop that the position accepts is never skipped, and a stray one is still refused
    stray = GameRecord(
        "coffee-rush", ["a", "b", "c"], 17, options, [*actions, *rest[:1], (seat, "stop")]
    )
    with pytest.raises(CoffeetableError):
        stray.replay()
