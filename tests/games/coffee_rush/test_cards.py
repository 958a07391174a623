"""Coffee Rush card files (docs/coffee-rush-cards-format.md).

The default file loads with the box, board and 80 order cards of the rulebook; broken
variants of it are refused with a CardsError that lists every problem; a game played with
another valid card file keeps its own totals and refuses records made with other cards.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from coffeetable.core.errors import DataError
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game
from coffeetable.games.coffee_rush import CoffeeRushGame
from coffeetable.games.coffee_rush.cards import (
    CardsError,
    CardSet,
    default_cards,
    load_cards,
    parse_cards,
)
from coffeetable.games.coffee_rush.state import Phase
from tests.games.coffee_rush.test_properties import (
    check_action_codes,
    check_finished,
    check_invariants,
    check_json_round_trip,
    check_notation,
    play,
    purposeful,
    snapshot,
    uniform,
)

DEFAULT_TEXT = (
    resources.files("coffeetable.games.coffee_rush").joinpath("data/cards.toml").read_text("utf-8")
)
INGREDIENTS = ("coffee", "milk", "steam", "ice", "chocolate", "caramel", "tea", "water")
#: drinks whose recipe a public fan project checked against photos of the cards
VERIFIED = {
    "Espresso",
    "Espresso Doppio",
    "Caffe Latte",
    "Con Panna",
    "Milk Tea",
    "Iced Caffe Latte",
    "Iced Milk Tea",
    "Caramel Caffe Freddo",
    "Iced Green Tea",
    "Iced Black Tea",
    "Caramel Frappe",
}


def variant(*replacements: tuple[str, str]) -> bytes:
    """The default file with each (old, new) replaced once; `old` must be in the file."""
    text = DEFAULT_TEXT
    for old, new in replacements:
        assert old in text, f"the default card file no longer contains {old!r}"
        text = text.replace(old, new, 1)
    return text.encode("utf-8")


def problems_of(raw: bytes) -> list[str]:
    with pytest.raises(CardsError) as info:
        parse_cards(raw, "x.toml")
    err = info.value
    assert err.source == "x.toml"
    assert str(err).startswith("x.toml: invalid Coffee Rush card file: ")
    assert err.problems[0] in str(err)
    return err.problems


HEADER = DEFAULT_TEXT.split("[[drink]]")[0]


def small_file(rush: int = 6, coffee: int = 5) -> str:
    """A valid card file with its own box counts and a 20-card deck of 2 drinks."""
    text = HEADER.replace("rush = 15", f"rush = {rush}").replace(
        "coffee = 18", f"coffee = {coffee}"
    )
    return (
        text
        + """[[drink]]
name = "Espresso"
recipe = ["coffee", "steam"]
copies = 10
special = false
verified = true
less_luck = true

[[drink]]
name = "Green Tea"
recipe = ["tea", "water", "steam"]
copies = 10
special = true
verified = false
"""
    )


# ==== the default file ======================================================================
def test_the_default_file_loads() -> None:
    cards = default_cards()
    assert isinstance(cards, CardSet)
    assert cards.total_cards == 80 and len(cards.all_cards()) == 80
    assert len(cards.drinks) == 33
    assert len({d.name for d in cards.drinks}) == 33
    assert cards.ingredients == INGREDIENTS
    assert dict(zip(cards.ingredients, cards.box, strict=True)) == {
        "coffee": 18,
        **{i: 12 for i in INGREDIENTS[1:]},
    }
    assert cards.rush == 15
    assert len(cards.board) == 16
    assert [cards.ingredients[i] for i in cards.board] == [
        *("ice", "caramel", "steam", "coffee"),
        *("coffee", "milk", "ice", "water"),
        *("tea", "steam", "milk", "coffee"),
        *("milk", "ice", "chocolate", "steam"),
    ]
    assert {cards.ingredients[i] for i in cards.specialties} == {
        "caramel",
        "water",
        "tea",
        "chocolate",
    }
    less_luck = [d for d in cards.drinks if d.less_luck]
    assert {d.name for d in less_luck} == {"Espresso", "Ristretto"}
    assert sum(d.copies for d in less_luck) == 4
    assert cards.digest == hashlib.sha256(DEFAULT_TEXT.encode("utf-8")).hexdigest()
    assert cards.version >= 1 and cards.name.strip()


def test_every_drink_keeps_its_provenance() -> None:
    cards = default_cards()
    assert {d.name for d in cards.drinks if d.verified} == VERIFIED
    for d in cards.drinks:
        assert isinstance(d.verified, bool)
        assert 2 <= sum(d.recipe) <= 4, d.name
        assert all(k <= box for k, box in zip(d.recipe, cards.box, strict=True))
    # the recipes that share a multiset are told apart by name only
    assert cards.by_recipe[cards.counts_of(["coffee", "steam"])] == (
        cards.drink_index("Espresso"),
        cards.drink_index("Ristretto"),
    )


def test_load_cards_reads_a_path(tmp_path: Path) -> None:
    path = tmp_path / "cards.toml"
    path.write_text(DEFAULT_TEXT, encoding="utf-8")
    cards = load_cards(path)
    assert cards == default_cards() or cards.digest == default_cards().digest
    assert cards.source == str(path)
    with pytest.raises(DataError, match="cannot read"):
        load_cards(tmp_path / "missing.toml")


# ==== broken files ==========================================================================
BROKEN = [
    pytest.param(
        [
            (
                'format = "coffeetable.coffee-rush.cards/1"',
                'format = "coffeetable.coffee-rush.cards/2"',
            )
        ],
        ["'format' must be"],
        id="format",
    ),
    pytest.param(
        [('["tea",    "steam"', '["rum",    "steam"')],
        ["[board] square a3: 'rum' is not an ingredient"],
        id="board-ingredient",
    ),
    pytest.param(
        [('specialties = ["caramel"', 'specialties = ["vanilla"')],
        ["[board] specialties: 'vanilla'"],
        id="specialty",
    ),
    pytest.param(
        [('recipe = ["coffee", "steam"]', 'recipe = ["coffee", "sugar"]')],
        ["drink 'Espresso': 'sugar' is not an ingredient of [box]"],
        id="recipe-ingredient",
    ),
    pytest.param(
        [("coffee = 18", "coffee = 1")],
        ["drink 'Espresso Doppio': needs 2 coffee but the box has only 1"],
        id="recipe-over-box",
    ),
    pytest.param(
        [('name = "Ristretto"', 'name = "Espresso"')],
        ["drink name 'espresso' is used 2 times"],
        id="duplicate-name",
    ),
    pytest.param(
        [('name = "Ristretto"', 'name = "espresso"')],
        ["drink name 'espresso' is used 2 times"],
        id="duplicate-name-case",
    ),
    pytest.param(
        [("copies = 4", "copies = 0")],
        ["drink 'Espresso Doppio': 'copies' must be a whole number from 1 to 99 (got 0)"],
        id="copies-0",
    ),
    pytest.param(
        [("copies = 4", 'copies = "4"')],
        ["drink 'Espresso Doppio': 'copies' must be a whole number"],
        id="copies-text",
    ),
    pytest.param(
        [("verified = true\nless_luck", "less_luck")],
        ["drink 'Espresso': 'verified' (true/false) is required"],
        id="no-verified",
    ),
    pytest.param(
        [("special = false\nverified = true\nless_luck", "verified = true\nless_luck")],
        ["drink 'Espresso': 'special' (true/false) is required"],
        id="no-special",
    ),
    pytest.param(
        [("rush = 15", "rush = -1")],
        ["[box]: 'rush' must be a whole number"],
        id="rush",
    ),
    pytest.param(
        [("water = 12 }", "water = 12, sugar = 3 }")],
        ["[box] tokens: not an ingredient: sugar"],
        id="tokens-unknown",
    ),
    pytest.param(
        [("water = 12 }", "water = 0 }")],
        ["[box] tokens: water needs a whole number of tokens from 1"],
        id="tokens-0",
    ),
    pytest.param(
        [('name = "Espresso"', 'name = " Espresso"')],
        ["drink #1: 'name' must be a non-empty string"],
        id="name-spaces",
    ),
    pytest.param(
        [
            (
                "copies = 2\nspecial = false\nverified = true\nless_luck = true",
                'copies = 2\nspecial = false\nverified = true\nless_luck = true\ncolour = "brown"',
            )
        ],
        ["drink 'Espresso': unknown field(s) colour"],
        id="unknown-field",
    ),
]


@pytest.mark.parametrize(("replacements", "expected"), BROKEN)
def test_broken_files_list_their_problem(
    replacements: list[tuple[str, str]], expected: list[str]
) -> None:
    problems = problems_of(variant(*replacements))
    assert len(problems) == len(expected), problems
    for problem, text in zip(problems, expected, strict=True):
        assert text.lower() in problem.lower(), problems


def test_several_problems_are_all_listed() -> None:
    problems = problems_of(
        variant(
            ('format = "coffeetable.coffee-rush.cards/1"', 'format = "nope"'),
            ('["tea",    "steam"', '["rum",    "steam"'),
            ('recipe = ["coffee", "steam"]', 'recipe = ["coffee", "sugar"]'),
            ("coffee = 18", "coffee = 1"),
            ('name = "Ristretto"', 'name = "Espresso"'),
            ("copies = 4", "copies = 0"),
            ("verified = false\nless_luck", "verified = 0\nless_luck"),
        )
    )
    wanted = [
        "'format' must be",
        "[board] square a3: 'rum'",
        "'sugar' is not an ingredient",
        "needs 2 coffee but the box has only 1",
        "drink name 'espresso' is used 2 times",
        "'copies' must be a whole number from 1 to 99 (got 0)",
        # the Ristretto, renamed Espresso above
        "drink 'espresso': 'verified'",
    ]
    for text in wanted:
        assert any(text.lower() in p.lower() for p in problems), (text, problems)
    assert len(problems) == len(wanted), problems
    with pytest.raises(
        CardsError, match=r"\(and 1 more problem: `coffeetable deck check x\.toml` lists them all\)"
    ):
        parse_cards(variant(("coffee = 18", "coffee = 1"), ("copies = 4", "copies = 0")), "x.toml")


def test_too_few_cards() -> None:
    text = small_file().replace("copies = 10", "copies = 4")  # 8 cards
    problems = problems_of(text.encode())
    assert problems == ["the deck needs at least 9 cards to set up 4 players (got 8)"]
    # 9 are enough
    cards = parse_cards(text.replace("copies = 4", "copies = 5", 1).encode(), "x.toml")
    assert cards.total_cards == 9


@pytest.mark.parametrize(
    "raw",
    [
        b"format = = 1",
        variant(("rush = 15", "rush = = 15")),
        variant(("\n[box]\n", "\n[box\n")),
        'format = "caf\xe9"'.encode("latin-1"),
    ],
    ids=["syntax", "syntax-in-file", "table", "not-utf8"],
)
def test_unreadable_files_give_a_data_error(raw: bytes) -> None:
    with pytest.raises(DataError, match=r"x\.toml: not"):
        parse_cards(raw, "x.toml")


@pytest.mark.parametrize(
    "raw",
    [b"", b'format = "coffeetable.coffee-rush.cards/1"', b"box = 3\nboard = []\ndrink = 1"],
    ids=["empty", "format-only", "wrong-types"],
)
def test_incomplete_files_list_what_is_missing(raw: bytes) -> None:
    problems = problems_of(raw)
    joined = " | ".join(problems)
    assert "[box]" in joined and "[board]" in joined and "[[drink]]" in joined


# ==== a game with other cards ===============================================================
@pytest.fixture(scope="module")
def small_cards() -> CardSet:
    return parse_cards(small_file().encode(), "small.toml")


def test_the_small_file_loads(small_cards: CardSet) -> None:
    assert small_cards.total_cards == 20
    assert [d.name for d in small_cards.drinks] == ["Espresso", "Green Tea"]
    assert small_cards.rush == 6
    assert small_cards.box[0] == 5
    assert small_cards.digest != default_cards().digest


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("less_luck", [False, True])
def test_games_with_other_cards_end_and_keep_their_totals(
    small_cards: CardSet, players: int, less_luck: bool
) -> None:
    game = CoffeeRushGame(small_cards)
    deck_out = 0
    for seed in range(15):
        chooser = purposeful if seed % 3 else uniform
        state, _ = play(game, players, seed, less_luck, chooser=chooser, json_every=10)
        assert state.options["cards_sha256"] == small_cards.digest
        assert Counter(state.cards_in_play()) + Counter(state.deck) == Counter(
            small_cards.all_cards()
        )
        deck_out += not state.deck
        if less_luck:
            # the Espresso cards not dealt leave the game
            assert len(state.removed) == 10 - players
    assert deck_out > 0, "no game ran the small deck out"


def test_other_cards_encode_their_own_drinks(small_cards: CardSet) -> None:
    game = CoffeeRushGame(small_cards)
    default_size = find_game("coffee-rush").num_distinct_actions
    assert game.num_distinct_actions < default_size
    for code in range(game.num_distinct_actions):
        action = game.decode_action(code)
        assert game.encode_action(action) == code
        assert game.parse_action(action.notation()) == action
    with pytest.raises(Exception, match="Caffe Latte"):
        game.parse_action("serve 1 1 Caffe Latte")


def test_a_game_runs_the_deck_out_and_closes(small_cards: CardSet) -> None:
    # 2 players draw a card at the end of every turn: 20 cards run out within a few rounds
    game = CoffeeRushGame(small_cards)
    state = game.new_initial_state(2, 3)
    rng = random.Random(3)
    actions = []
    closed_with_cards = None
    while not state.is_over():
        seat = state.current
        legal = state.legal_actions(seat)
        check_action_codes(game, legal)
        check_notation(game, legal)
        action = purposeful(state, seat, legal, rng)
        prev = snapshot(state)
        state.apply(seat, action)
        actions.append((seat, action))
        check_invariants(state, prev)
        if state.closed and closed_with_cards is None:
            closed_with_cards = len(state.deck)
    check_json_round_trip(game, state)
    check_finished(state, actions)
    assert state.phase is Phase.OVER
    assert closed_with_cards == 0  # it closed because the deck ran out


def test_records_and_positions_need_the_same_cards(small_cards: CardSet) -> None:
    default = find_game("coffee-rush")
    small = CoffeeRushGame(small_cards)
    record = GameRecord("coffee-rush", ["a", "b"], 1, {"cards_sha256": default_cards().digest})
    record.replay(game=default)
    with pytest.raises(DataError, match="default cards"):
        record.replay(game=small)
    with pytest.raises(DataError, match="default cards"):
        small.new_initial_state(2, 1, {"cards_sha256": default_cards().digest})
    other = GameRecord("coffee-rush", ["a", "b"], 1, {"cards_sha256": small_cards.digest})
    other.replay(game=small)
    with pytest.raises(DataError, match="another card file"):
        other.replay()
    # positions too
    position = default.new_initial_state(3, 1).to_json()
    with pytest.raises(DataError):
        small.state_from_json(position)
    position = small.new_initial_state(3, 1).to_json()
    assert small.state_from_json(position).to_json() == position
    with pytest.raises(DataError):
        default.state_from_json(position)


def test_options_always_carry_the_digest() -> None:
    game = find_game("coffee-rush")
    state = game.new_initial_state(2, 1)
    assert state.options == {"less_luck": False, "cards_sha256": default_cards().digest}
    assert game.normalize_options({"less_luck": True}) == {
        "less_luck": True,
        "cards_sha256": default_cards().digest,
    }


def test_less_luck_needs_a_less_luck_card_per_player(small_cards: CardSet) -> None:
    text = (
        small_file()
        .replace(
            "copies = 10\nspecial = false\nverified = true\nless_luck = true",
            "copies = 3\nspecial = false\nverified = true\nless_luck = true",
        )
        .replace("copies = 10", "copies = 17")
    )
    cards = parse_cards(text.encode(), "three.toml")
    game = CoffeeRushGame(cards)
    game.new_initial_state(3, 1, {"less_luck": True})
    with pytest.raises(DataError, match="less_luck card per player"):
        game.new_initial_state(4, 1, {"less_luck": True})
