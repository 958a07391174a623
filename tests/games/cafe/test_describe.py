"""Café actions in words (`CafeState.describe`): the sentences of a game log.

Exact sentences for every kind of action in known positions (a seeded game and hand-written
positions), the "plays NOTATION" fallback for actions that are not legal now, and a property
test over random games of every variant and player count: every legal action at every step
gets a non-empty single line of at most 160 characters, the same one twice and on a state
whose hidden part is drawn again, and never the id of the deck's next card.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from coffeetable.games.cafe.actions import parse_action
from coffeetable.games.cafe.state import CafeState
from coffeetable.games.coffee_rush.actions import Stop
from tests.games.cafe.conftest import (
    _KINDS,
    GAME,
    choose,
    grid_area,
    load,
    play,
    position,
    seat_json,
    shop,
)
from tests.games.cafe.test_views import combos

MAX_CHARS = 160


def said(state: CafeState, move: str, seat: int = 0) -> str:
    return state.describe(seat, parse_action(move))


def said_then_play(state: CafeState, move: str, seat: int = 0) -> str:
    text = said(state, move, seat)
    play(state, move, seat=seat)
    return text


# ==== the draft and placement ===============================================================


def test_draft_and_placement_sentences() -> None:
    state = GAME.new_initial_state(2, 23)
    assert isinstance(state, CafeState)
    assert state.display == ["P08", "P02", "P15"] and state.draft_order == [0, 1]
    assert (
        said_then_play(state, "take P08 pay Y")
        == "takes P08 (a 5-VP Lisbon 1782 shop), paying a yellow cube"
    )
    assert said_then_play(state, "take P02", seat=1) == "takes P02 (a 4-VP Porto 1921 shop)"
    # seat 0 holds P08 over the start card of Timor (Faro 1908 shop at 0,2)
    assert said(state, "place -1,-1 rot0") == "places P08 at -1,-1, covering 2 cells"
    assert said(state, "place 0,0 rot270") == "places P08 at 0,0 turned 270°, covering 4 cells"
    assert (
        said(state, "place -1,1 rot90")
        == "places P08 at -1,1 turned 90°, covering 4 cells, losing Faro 1908"
    )


def test_cards_without_a_shop_and_the_forced_discard() -> None:
    data = position(
        seat_json("Y  B  d\nc  r  .", stage="wait", warehouse=""),
        phase="draft",
        display=["P33", "P08"],
        draft_order=[0],
    )
    state = GAME.state_from_json(data)
    # both cards show a cup and the warehouse is empty: the seat can only discard
    assert said(state, "take P33 discard") == "discards P33 (no shop), unable to pay for any card"
    assert (
        said(state, "take P08 discard")
        == "discards P08 (a 5-VP Lisbon 1782 shop), unable to pay for any card"
    )


def test_espresso_and_promo_cards() -> None:
    data = position(
        seat_json("Y  B  d\nc  r  .", stage="wait", warehouse="Y"),
        phase="draft",
        display=["E1", "X-LEAO"],
        draft_order=[0],
        options={"espresso": True, "promos": ["leao"]},
    )
    state = GAME.state_from_json(data)
    assert said(state, "take E1 pay Y") == "takes E1 (an espresso card), paying a yellow cube"
    assert said(state, "take X-LEAO") == "takes X-LEAO (a 6-VP Leão d'Ouro shop)"


# ==== actions ==============================================================================

# The area of the worked example in docs/cafe-notation.md: bean cells 0,0 (Y), 0,1 (R) and
# 2,2 (R); a dry group 0,2-0,3; roast cells 1,2 (GG), 1,3 (empty) and 2,1 (B); a shop at
# 1,0 needing GR (holding its R already). Three cups.
EXAMPLE = """
Y:Y  R:R  d     d
0    c    r:GG  r
c    r:B  R:R   c
"""


def test_dry_roast_deliver_clear_and_end() -> None:
    state = load(EXAMPLE, [shop("GR", 5, "Lisbon", 1782, cubes="R")])
    assert said_then_play(state, "dry 0,2 Y") == "dries a yellow cube into the dry cell at 0,2"
    assert (
        said_then_play(state, "dry 0,3 R from 0,1")
        == "dries a red cube from 0,1 into the dry cell at 0,3"
    )
    assert (
        said_then_play(state, "dry 0,3 R") == "dries a red cube into the dry cell at 0,3, making 2"
    )
    assert said(state, "roast 1,3 R") == "roasts 2 red cubes into the roast cell at 1,3"
    assert said_then_play(state, "roast 1,3 Y") == "roasts a yellow cube into the roast cell at 1,3"
    assert (
        said_then_play(state, "deliver 1,2 > 1,0")
        == "delivers a green cube to Lisbon 1782, completing it (5 VP)"
    )
    assert said_then_play(state, "deliver 1,2 > wh") == "delivers a green cube to the warehouse"
    assert said(state, "deliver 2,1 > wh") == "delivers a brown cube to the warehouse"
    assert said(state, "clear 0,3") == "clears 2 red cubes from the dry cell at 0,3"
    play(state, "deliver 2,1 > wh")
    assert said(state, "clear 1,3") == "clears a yellow cube from the roast cell at 1,3"
    assert said(state, "end") == "ends the round's actions"  # 0 AP left, deliveries open


def test_end_with_action_points_left_and_a_shop_named_twice() -> None:
    grid = """
    0  r:Y  1
    c  c    c
    """
    state = load(grid, [shop("Y", 2, "Porto", 1921), shop("YY", 4, "Porto", 1921)])
    assert (
        said(state, "deliver 0,1 > 0,0")
        == "delivers a yellow cube to Porto 1921 at 0,0, completing it (2 VP)"
    )
    assert said(state, "deliver 0,1 > 0,2") == "delivers a yellow cube to Porto 1921 at 0,2"
    assert said(state, "end") == "ends the round's actions, leaving 3 AP unspent"


def test_produce_sentences() -> None:
    state = load("Y  Y  R  c\nG  d  r  c")
    assert said(state, "produce 0,0") == "produces 4 cubes (2 yellow, 1 green, 1 red)"
    assert said(state, "produce 1,0") == said(state, "produce 0,0")  # any cell of the group
    state = load("Y:Y  B  d\nc    r  .")
    assert said(state, "produce 0,0") == "produces a brown cube"


def test_produce_short_of_a_colour_and_the_fill_steps() -> None:
    # 34 red cubes lie on the dry cell: the supply has 1 red for 2 empty red bean cells
    state = load(f"Y  R  R  c\nd:{'R' * 34}  r  c  .")
    assert state.supply == [35, 35, 35, 1]
    assert (
        said_then_play(state, "produce 0,0")
        == "produces 2 cubes (1 yellow, 1 red), the supply's last red"
    )
    assert said(state, "fill 0,2") == "puts a scarce red cube on the bean cell at 0,2"
    state = load(f"Y  R  c\nd:{'R' * 35}  r  c")
    assert said(state, "produce 0,0") == "produces a yellow cube, no red left"


XKINDS = {**_KINDS, "e": "espresso", "S": "supply", "bY": "bonus-Y"}


def test_espresso_expansion_cells() -> None:
    seat = seat_json("c", ap=3)
    seat["area"] = grid_area("S  bY  e\nc  r:BB  c\nc  .  .", kinds=XKINDS)
    state = GAME.state_from_json(position(seat, options={"espresso": True}))
    assert said_then_play(state, "produce 0,0") == "produces 2 yellow cubes, 1 supply cell to fill"
    assert said(state, "fill 0,0 G") == "fills the supply cell at 0,0 with a green cube"
    play(state, "fill 0,0 G")
    assert said_then_play(state, "deliver 1,1 > 0,2") == (
        "delivers a brown cube to the espresso cell at 0,2"
    )
    assert said(state, "clear 0,1") == "plays clear 0,1"  # the roast cell is not empty yet
    assert said_then_play(state, "deliver 1,1 > wh") == "delivers a brown cube to the warehouse"
    assert said(state, "clear 0,1") == "clears 2 yellow cubes from the bonus cell at 0,1"
    assert said(state, "dry 0,0 G") == "plays dry 0,0 G"  # 0,0 is no dry cell


def auction(*stores: str, grid: str = "Y  s  c\ns  r  d") -> CafeState:
    data = position(
        *[seat_json(grid, stage="wait", warehouse=s) for s in stores],
        phase="auction",
        display=["P33", "P34", "P35"],
        options={"variant": "advanced"},
    )
    data["auction"] = {}
    state = GAME.state_from_json(data)
    assert isinstance(state, CafeState)
    return state


def test_auction_sentences() -> None:
    state = auction("YB", "G")
    assert said(state, "pass") == "passes, leaving the auction"
    assert said_then_play(state, "bid Y") == "bids a yellow cube (stake 1)"
    assert said(state, "bid B ship 0,1") == "bids a brown cube onto the ship at 0,1 (stake 2)"
    assert said_then_play(state, "bid done") == (
        "closes the bid at a stake of 1, taking the master token"
    )
    assert said_then_play(state, "bid G", seat=1) == "bids a green cube (stake 1)"
    play(state, "bid done", seat=1)
    assert said(state, "pass") == "passes, leaving the auction with a stake of 1"


# ==== actions that are not legal now ===========================================================


def test_actions_that_are_not_legal_now_get_a_generic_verb() -> None:
    state = GAME.new_initial_state(2, 23)
    assert said(state, "take P08 pay Y", seat=1) == "plays take P08 pay Y"  # not seat 1's turn
    assert said(state, "take P08") == "plays take P08"  # P08 shows a cup
    assert said(state, "take P99") == "plays take P99"  # no such card
    assert said(state, "produce 0,0") == "plays produce 0,0"
    assert state.describe(0, Stop()) == "plays stop"  # not a Café action at all
    assert state.describe(7, parse_action("end")) == "plays end"  # no such seat
    over = GAME.state_from_json(
        position(seat_json("Y c", stage="done"), phase="over", round=8, deck=[])
    )
    assert over.describe(0, parse_action("end")) == "plays end"


# ==== every legal action of random games ====================================================

CARD_ID = r"(?<![\w-]){}(?![\w-])"


def public_ids(state: CafeState) -> set[str]:
    """Card ids anyone may know: the display, the discards, hands, placed cards and the
    cards removed by rule."""
    out = set(state.display) | set(state.discard) | set(state.removed_by_rule())
    for player in state.players:
        out.update(p.card for p in player.area.cards)
        if player.hand is not None:
            out.add(player.hand)
    return out


def check_sentences(state: CafeState, rng: random.Random) -> None:
    secret = state.deck[-1] if state.deck else None
    if secret in public_ids(state):
        secret = None
    for seat in sorted(state.current_seats()):
        twin = state.resample_hidden(seat, rng)
        for action in state.legal_actions(seat):
            text = state.describe(seat, action)
            assert isinstance(text, str) and text.strip() == text and text
            assert "\n" not in text and len(text) <= MAX_CHARS, text
            assert not text.startswith("plays "), (action, text)  # legal: a real sentence
            assert state.describe(seat, action) == text  # deterministic
            assert twin.describe(seat, action) == text  # no peeking at the hidden part
            if secret is not None:
                assert not re.search(CARD_ID.format(re.escape(secret)), text), (secret, text)


def describe_random_game(players: int, seed: int, options: dict[str, Any]) -> None:
    state = GAME.new_initial_state(players, seed, options)
    assert isinstance(state, CafeState)
    rng = random.Random(seed)
    steps = 0
    while not state.is_over():
        before = state.to_json() if steps % 25 == 0 else None
        check_sentences(state, rng)
        if before is not None:
            assert state.to_json() == before  # describing changes nothing
        seat = rng.choice(sorted(state.current_seats()))
        state.apply(seat, choose(rng, state.legal_actions(seat)))
        steps += 1


@pytest.mark.parametrize(("options", "players"), combos())
def test_every_legal_action_of_random_games_is_described(
    options: dict[str, Any], players: int
) -> None:
    describe_random_game(players, 1, options)


@pytest.mark.slow
@pytest.mark.parametrize(("options", "players"), combos())
def test_every_legal_action_of_more_random_games_is_described(
    options: dict[str, Any], players: int
) -> None:
    for seed in (2, 3, 4):
        describe_random_game(players, seed, options)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_a_placement_checked_alone_agrees_with_the_listing(players: int) -> None:
    """describe() checks one placement with BusinessArea.placement_is_legal instead of
    listing them all: the two agree on every position around the area."""
    state = GAME.new_initial_state(players, 5, {"espresso": True})
    assert isinstance(state, CafeState)
    rng = random.Random(5)
    while not state.is_over():
        for seat in sorted(state.current_seats()):
            player = state.players[seat]
            if player.hand is None or state.round % 2:
                continue  # every other round is enough
            card = state.card(player.hand)
            listed = set(player.area.legal_placements(card))
            rows = [r for r, _ in player.area.top]
            cols = [c for _, c in player.area.top]
            alone = {
                (r, c, k)
                for r in range(min(rows) - 4, max(rows) + 3)
                for c in range(min(cols) - 4, max(cols) + 3)
                for k in range(4)
                if player.area.placement_is_legal(card, r, c, k)
            }
            assert alone == listed
            assert not player.area.placement_is_legal(card, 0, 0, 4)
        seat = rng.choice(sorted(state.current_seats()))
        state.apply(seat, choose(rng, state.legal_actions(seat)))
