"""Coffee Rush actions in words (`RushState.describe`): the sentences of a game log.

Exact sentences for every kind of step in known positions (a seeded set-up, the example
position of docs/examples and hand-written positions), whole turns written on one line, the
"plays NOTATION" fallback for actions that are not legal now, and a property test over
random games of every player count and set-up: every legal step at every point gets a
non-empty single line of at most 160 characters, the same one twice and on a state whose
deck is shuffled again, and never the name of the deck's next card unless that drink is
already public.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from coffeetable.games.cafe.actions import End as CafeEnd
from coffeetable.games.coffee_rush.actions import RushAction, Turn
from coffeetable.games.coffee_rush.state import Phase, RushState, Stage
from tests.games.coffee_rush.conftest import GAME, play, player, position

EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "coffee-rush-position.json"
MAX_CHARS = 160
ORDER = [["Espresso"], [], [], []]
OTHER = [["Iced Americano"], [], [], []]
THIRD = [["Cold Brew"], [], [], []]


def example() -> RushState:
    """Seat 0 to move (2 players): meeples b2 and d1, cups coffee | - | milk+steam, counters
    Espresso | Caffe Latte | - | Iced Americano, 3 completed orders, 1 rush token."""
    state = GAME.state_from_json(json.loads(EXAMPLE.read_text()))
    assert isinstance(state, RushState)
    return state


def said(state: RushState, text: str, seat: int | None = None) -> str:
    if seat is None:
        (seat,) = state.current_seats()
    return state.describe(seat, GAME.parse_action(text))


def said_then_play(state: RushState, text: str) -> str:
    sentence = said(state, text)
    play(state, text)
    return sentence


# ==== set-up ================================================================================


def test_set_up_sentences() -> None:
    # the moves of docs/examples/coffee-rush-record.json (2 players, seed 3)
    state = GAME.new_initial_state(2, 3)
    assert isinstance(state, RushState)
    assert said_then_play(state, "place a4") == "places a meeple on a4 (milk)"
    assert said_then_play(state, "place d3") == "places a meeple on d3 (coffee)"
    assert said_then_play(state, "place c4") == "places a second meeple on c4 (chocolate)"
    assert said(state, "place a4") == "plays place a4"  # taken
    assert said_then_play(state, "place c2") == "places a second meeple on c2 (ice)"
    # each seat puts its two set-up tokens into cups (Ruling SETUP3)
    assert said_then_play(state, "pour ice 2") == "pours ice into cup 2"
    assert said(state, "pour coffee 2") == "pours coffee into cup 2 (now coffee and ice)"
    assert said(state, "pour milk 1") == "plays pour milk 1"  # seat 0 holds no milk


def test_three_players_place_one_meeple_each() -> None:
    state = GAME.new_initial_state(3, 1)
    assert isinstance(state, RushState)
    assert said_then_play(state, "place b1") == "places a meeple on b1 (caramel)"
    assert said_then_play(state, "place d2") == "places a meeple on d2 (water)"
    assert said(state, "place a3") == "places a meeple on a3 (tea)"


# ==== a turn, step by step ==================================================================


def test_upgrade_move_stop_pour_serve_empty_and_end() -> None:
    state = example()
    assert said(state, "upgrade diagonal") == (
        "upgrades to Diagonal Move, discarding 3 completed orders"
    )
    assert said(state, "empty 3") == "empties cup 3 (milk and steam)"
    assert said(state, "d1-c1") == "moves from d1 to c1, taking steam"
    assert said_then_play(state, "b2-b3") == "moves from b2 to b3, taking steam"
    assert said(state, "upgrade diagonal") == "plays upgrade diagonal"  # only before moving
    # passing through seat 1's meeple on c3 is allowed
    assert said_then_play(state, "b3-c3") == "moves from b3 to c3, taking milk"
    assert said(state, "stop") == "plays stop"  # may not end on another meeple
    assert said_then_play(state, "c3-d3") == "moves from c3 to d3, taking coffee"
    assert said(state, "d3-d4") == "moves from d3 to d4, taking steam, spending a rush token"
    assert said_then_play(state, "stop") == "stops moving on d3"
    assert said(state, "pour coffee 2") == "pours coffee into cup 2"
    assert said_then_play(state, "pour steam 1") == "pours steam into cup 1 (now coffee and steam)"
    assert said(state, "serve 1 1") == "serves an Espresso from cup 1 to counter 1"
    assert said_then_play(state, "serve 1 1 Espresso") == (
        "serves an Espresso from cup 1 to counter 1"
    )
    # serving ended pouring: the coffee and milk in hand went back (Ruling T1)
    assert said(state, "pour coffee 2") == "plays pour coffee 2"
    assert said(state, "end") == "ends the turn (1 order expires as a penalty)"


def test_end_returns_unpoured_tokens() -> None:
    state = example()
    play(state, "b2-b1", "stop")
    assert said(state, "end") == (
        "ends the turn (returns caramel unpoured; 1 order expires as a penalty)"
    )


def test_upgrades_multiply_what_a_step_takes() -> None:
    # seat 0 steps onto the coffee corner d1, where seat 1's meeple stands: 1 x 2 x 2
    state = position(
        [
            player("c1", upgrades=["double-meeples", "double-corners"], counters=ORDER),
            player("d1", counters=OTHER),
            player("a4", counters=THIRD),
        ]
    )
    assert said(state, "c1-d1") == "moves from c1 to d1, taking 4 coffee"
    assert said(state, "c1-b1") == "moves from c1 to b1, taking caramel"


def test_a_step_onto_an_exhausted_ingredient_takes_nothing() -> None:
    state = position(
        [
            player("c2", cups=[["water"] * 12, [], []], counters=ORDER),
            player("a1", counters=OTHER),
            player("a4", counters=THIRD),
        ]
    )
    assert said(state, "c2-d2") == "moves from c2 to d2, taking nothing (no water left)"


def test_a_special_menu_order_earns_a_rush_token() -> None:
    state = position(
        [
            player(
                "b2",
                cups=[["coffee", "milk", "steam", "chocolate"], [], []],
                counters=[[], ["Caffe Mocha", "Mochaccino"], [], []],
            ),
            player("c2", counters=OTHER),
            player("a4", counters=THIRD),
        ],
        turn={"stage": "pour", "moving": "b2", "steps": 1, "hand": []},
    )
    assert said(state, "serve 1 2 Mochaccino") == (
        "serves a Mochaccino from cup 1 to counter 2, earning a rush token"
    )
    assert said(state, "serve 1 2 Caffe Mocha") == (
        "serves a Caffe Mocha from cup 1 to counter 2, earning a rush token"
    )
    assert said(state, "serve 1 2") == "plays serve 1 2"  # two drinks match: name one


# ==== a whole turn on one line ================================================================


def test_a_whole_turn_is_described_step_group_by_step_group() -> None:
    state = example()
    before = state.to_json()
    assert said(state, "b2-b3-c3-d3; pour 1:steam; serve 1 1 Espresso; end") == (
        "moves b2-b3-c3-d3, taking coffee, milk and steam; pours steam into cup 1; "
        "serves an Espresso from cup 1 to counter 1; ends the turn (1 order expires as a penalty)"
    )
    assert said(state, "upgrade double-specialties; b2-b1; pour 2:caramel+caramel; end") == (
        "upgrades to Double Specialties, discarding 3 completed orders; moves b2-b1, taking "
        "2 caramel; pours 2 caramel into cup 2; ends the turn (1 order expires as a penalty)"
    )
    assert said(state, "b2-b3-c3-d3-d4; pour 1:steam 2:coffee; end") == (
        "moves b2-b3-c3-d3-d4, taking coffee, milk and 2 steam, spending a rush token; pours "
        "steam into cup 1 and coffee into cup 2; ends the turn (returns milk and steam "
        "unpoured; 1 order expires as a penalty)"
    )
    assert said(state, "b2-b1; stop") == "moves b2-b1, taking caramel; stops moving on b1"
    assert said(state, "b2-b3-c3; end") == "plays b2-b3-c3; end"  # may not stop on c3
    assert state.to_json() == before  # describing a turn plays it on a copy only


# ==== actions that are not legal now ===========================================================


def test_actions_that_are_not_legal_now_get_a_generic_verb() -> None:
    state = example()
    assert said(state, "b2-b3", seat=1) == "plays b2-b3"  # not seat 1's turn
    assert said(state, "b2-c4") == "plays b2-c4"  # not a neighbour
    assert said(state, "b2-a1") == "plays b2-a1"  # diagonal without the upgrade
    assert said(state, "c3") == "plays c3"  # no meeple of seat 0 can step there
    assert said(state, "b1") == "moves from b2 to b1, taking caramel"  # the short form
    assert said(state, "empty 2") == "plays empty 2"  # already empty
    assert state.describe(0, CafeEnd()) == "plays end"  # not a Coffee Rush action
    assert state.describe(5, GAME.parse_action("stop")) == "plays stop"  # no such seat
    over = position(
        [player("a1"), player("b2"), player("c3")], phase="over", to_move=None, closed=True
    )
    assert over.describe(0, GAME.parse_action("end")) == "plays end"


def test_an_ambiguous_short_form_is_not_legal_as_written() -> None:
    # two meeples of seat 0 can step to b2: `b2` alone names no step
    state = position([player("a2", "c2", counters=ORDER), player("d4", "a4", counters=OTHER)])
    assert said(state, "b2") == "plays b2"
    assert said(state, "a2-b2") == "moves from a2 to b2, taking milk"


# ==== every legal step of random games =====================================================


def public_drinks(state: RushState) -> set[str]:
    """Names of the drinks of every card outside the deck (all of them are public)."""
    return {state.cards.drinks[d].name for d in state.cards_in_play()}


def mentions(text: str, drink: str, public: set[str]) -> bool:
    """Whether `text` names `drink`, not counting public names that contain it ("Milk Tea"
    inside "Iced Milk Tea")."""
    for name in sorted(public, key=len, reverse=True):
        text = text.replace(name, "#")
    return drink in text


def check_sentences(state: RushState, rng: random.Random) -> None:
    public = public_drinks(state)
    secret = state.cards.drinks[state.deck[-1]].name if state.deck else None
    if secret in public:
        secret = None
    for seat in sorted(state.current_seats()):
        twin = state.resample_hidden(seat, rng)
        for action in state.legal_actions(seat):
            text = state.describe(seat, action)
            assert isinstance(text, str) and text.strip() == text and text
            assert "\n" not in text and len(text) <= MAX_CHARS, text
            assert not text.startswith("plays "), (action, text)  # legal: a real sentence
            assert state.describe(seat, action) == text  # deterministic
            assert twin.describe(seat, action) == text  # no peeking at the deck
            assert secret is None or not mentions(text, secret, public), (secret, text)


def check_whole_turn(state: RushState, rng: random.Random) -> None:
    """The rest of the seat's turn, played at random on a copy and written as one Turn, is
    described clause by clause (no generic "plays")."""
    (seat,) = state.current_seats()
    trial = state.clone()
    steps: list[RushAction] = []
    while trial.current_seats() == {seat}:
        action = rng.choice(trial.legal_actions(seat))
        assert isinstance(action, RushAction)
        trial.apply(seat, action)
        steps.append(action)
    text = state.describe(seat, Turn(tuple(steps)))
    assert text and "\n" not in text and not text.startswith("plays "), (steps, text)
    assert text.count("; ") >= min(len(steps), 2) - 1


def cases() -> list[Any]:
    return [
        pytest.param(players, less_luck, id=f"{players}p{'-less-luck' if less_luck else ''}")
        for players in (2, 3, 4)
        for less_luck in (False, True)
    ]


def describe_random_game(players: int, seed: int, less_luck: bool) -> None:
    state = GAME.new_initial_state(players, seed, {"less_luck": less_luck})
    assert isinstance(state, RushState)
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        before = state.to_json() if steps % 25 == 0 else None
        check_sentences(state, rng)
        if state.phase is Phase.TURN and state.stage is Stage.MOVE and not state.steps:
            check_whole_turn(state, rng)
        if before is not None:
            assert state.to_json() == before  # describing changes nothing
        (seat,) = state.current_seats()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        steps += 1


@pytest.mark.parametrize(("players", "less_luck"), cases())
def test_every_legal_step_of_random_games_is_described(players: int, less_luck: bool) -> None:
    for seed in range(1, 11):
        describe_random_game(players, seed, less_luck)


@pytest.mark.slow
@pytest.mark.parametrize(("players", "less_luck"), cases())
def test_every_legal_step_of_more_random_games_is_described(players: int, less_luck: bool) -> None:
    for seed in range(11, 61):
        describe_random_game(players, seed, less_luck)
