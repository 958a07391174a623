"""Café views (docs/views.md): what a client at a seat, or a spectator, may see.

The key property is that no view peeks: a seat's view does not change when everything that
seat cannot see (the deck order, the cards removed at random, the RNG) is drawn again. It is
checked over random games of every variant and player count, beside checks that the hidden
cards and the RNG state appear nowhere in a view, and exact values on known positions.
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
from coffeetable.games.cafe.deck import default_deck
from coffeetable.games.cafe.state import CafeState
from tests.games.cafe.conftest import GAME
from tests.games.view_checks import (
    check_no_peek,
    check_view_basics,
    check_view_is_a_copy,
    strings_in,
    walk,
)

DECK = default_deck()
STAR_IDS = sorted(c.id for c in DECK.of_kind("plan") if c.star)
EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "cafe-position.json"
ALL_PROMOS = ["leao", "coffee-mine", "atlas"]


def combos(promo_sets: tuple[list[str], ...] = ([], ALL_PROMOS)) -> list[Any]:
    """(options, players) for every variant and every allowed player count."""
    out = []
    for variant in ("base", "advanced"):
        for espresso in (False, True):
            for promos in promo_sets:
                opts = {"variant": variant, "espresso": espresso, "promos": promos}
                for players in range(2 if variant == "advanced" else 1, 5):
                    name = f"{variant}{'-espresso' if espresso else ''}-promos{len(promos)}"
                    out.append(pytest.param(opts, players, id=f"{name}-{players}p"))
    return out


def new_state(players: int, seed: int, options: dict[str, Any] | None = None) -> CafeState:
    state = GAME.new_initial_state(players, seed, options)
    assert isinstance(state, CafeState)
    return state


def hidden_ids(state: CafeState) -> set[str]:
    """The card ids nobody may see: the deck and the cards removed at random."""
    return set(state.deck) | (set(state.removed) - set(state.removed_by_rule()))


def check_redacted(state: CafeState) -> None:
    """No view holds a hidden card id, the deck's sequence or the RNG state, and each
    shows exactly the public counts (seat 0 and the spectator: check_view_basics shows that
    the other seats' views equal the spectator's but for `seat`)."""
    rng_hex = f"{state.rng.state:#x}"
    deck_text = json.dumps(list(reversed(state.deck)))
    for viewer in (0, None):
        view = state.view(viewer)
        assert not hidden_ids(state) & strings_in(view)
        text = json.dumps(view)
        assert rng_hex not in text
        assert state.rng.state < 10**6 or str(state.rng.state) not in text
        assert len(state.deck) < 2 or deck_text not in text
        assert view["deck_size"] == len(state.deck)
        assert view["removed_by_rule"] == state.removed_by_rule()
        assert view["removed_unseen"] == len(state.removed) - len(state.removed_by_rule())


def random_game(players: int, seed: int, options: dict[str, Any], every: int) -> CafeState:
    """Play a game with the random bot, checking the view contract every `every` actions,
    at set-up and at the end."""
    state = new_state(players, seed, options)
    bot = make_bot("random", seed)
    rng = random.Random(seed)
    count = 0
    while True:
        if count % every == 0 or state.is_over():
            check_no_peek(state)
            check_redacted(state)
            check_view_basics(GAME, state)
        if state.is_over():
            return state
        seat = rng.choice(sorted(state.current_seats()))
        action, _ = bot.choose(state, seat)
        state.apply(seat, action)
        count += 1


# ==== random games ========================================================================
@pytest.mark.parametrize(("options", "players"), combos())
def test_views_never_peek_in_random_games(options: dict[str, Any], players: int) -> None:
    state = random_game(
        players, seed=players * 101 + len(options["promos"]), options=options, every=12
    )
    view = state.view(None)
    assert view["over"] and view["phase"] == "over" and view["current_seats"] == []
    # Ruling X1: advanced mode with the expansion leaves 8 unseen cards in the deck
    leftover = 8 if options["variant"] == "advanced" and options["espresso"] else 0
    assert view["deck_size"] == leftover


@pytest.mark.slow
@pytest.mark.parametrize(("options", "players"), combos(([], ["coffee-mine"], ALL_PROMOS)))
def test_views_never_peek_in_many_random_games(options: dict[str, Any], players: int) -> None:
    for seed in range(2):
        random_game(players, seed, options, every=5)


def test_the_check_has_teeth() -> None:
    """resample_hidden really moves the hidden cards, so the no-peek check would catch a
    view that showed them: the full position JSON changes under it."""
    state = new_state(2, 9)
    resampled = state.resample_hidden(0, random.Random(1))
    assert resampled.to_json()["deck"] != state.to_json()["deck"]
    assert resampled.to_json()["rng"] != state.to_json()["rng"]
    assert resampled.view(0) == state.view(0)


# ==== exact values ========================================================================
@pytest.mark.parametrize(
    ("players", "cards", "unseen"), [(1, 24, 16), (2, 32, 8), (3, 40, 0), (4, 48, 0)]
)
def test_set_up_follows_the_deck_arithmetic(players: int, cards: int, unseen: int) -> None:
    state = new_state(players, 3)
    view = state.view(None)
    assert view["format"] == VIEW_FORMAT and view["game"] == "cafe"
    assert view["round"] == 1 and view["rounds"] == 8 and view["phase"] == "draft"
    assert len(view["display"]) == 3  # round 1's draw is revealed at set-up
    assert view["deck_size"] + len(view["display"]) == cards
    assert view["removed_by_rule"] == (STAR_IDS if players < 4 else [])
    assert view["removed_unseen"] == unseen
    assert view["discard"] == []
    assert view["supply"] == {"Y": 35, "B": 35, "G": 35, "R": 35}
    assert view["current_seats"] == [(state.master + 1) % players]
    assert view["draft_order"] == [(state.master + i) % players for i in range(1, players + 1)]
    assert [s["warehouse"] for s in view["seats"]] == [{"Y": 1, "B": 1, "G": 1, "R": 1}] * players
    assert [s["hand"] for s in view["seats"]] == [None] * players
    assert "auction" not in view and "winners" not in view


def test_solo_deck_size_after_each_round() -> None:
    """Solo: 24 cards, 3 drawn each round (21 left once round 1 is revealed, 18 in round 2
    ... 0 in round 8); the 2 cards the solo player does not take are discarded."""
    state = new_state(1, 4)
    bot = make_bot("random", 4)
    seen_rounds = {}
    while not state.is_over():
        view = state.view(0)
        seen_rounds.setdefault(view["round"], (view["deck_size"], len(view["discard"])))
        state.apply(0, bot.choose(state, 0)[0])
    assert seen_rounds == {r: (24 - 3 * r, 2 * (r - 1)) for r in range(1, 9)}
    final = state.view(0)
    assert final["deck_size"] == 0 and final["removed_unseen"] == 16
    assert final["winners"] == [0]
    assert final["scores"][0]["label"]  # the solo rating


def test_advanced_mode_shows_the_auction() -> None:
    state = new_state(2, 6, {"variant": "advanced"})
    view = state.view(1)
    assert view["phase"] == "auction"
    assert view["auction"] == {
        "stakes": [0, 0],
        "passed": [False, False],
        "bidder": state.master,
        "bid_open": 0,
    }
    assert view["current_seats"] == [state.master]
    assert len(view["display"]) == 3  # players + 1
    assert view["deck_size"] == 48 - 8 - 16 - 3
    assert view["removed_by_rule"] == STAR_IDS and view["removed_unseen"] == 16


@pytest.mark.parametrize(
    ("options", "deck_size", "unseen"),
    [
        ({"espresso": True}, 48 + 8 - 4, 0),  # display of 4
        ({"promos": ALL_PROMOS}, 48 - 3, 3),  # 3 plan cards replaced at random, stars stay
        ({"espresso": True, "promos": ["leao"]}, 48 + 8 - 4, 1),
    ],
)
def test_variant_deck_sizes_with_four_players(
    options: dict[str, Any], deck_size: int, unseen: int
) -> None:
    state = new_state(4, 8, options)
    view = state.view(None)
    assert view["deck_size"] == deck_size
    assert view["removed_by_rule"] == []
    assert view["removed_unseen"] == unseen
    assert not hidden_ids(state) & strings_in(view)


def test_the_documented_example_position() -> None:
    """docs/examples/cafe-position.json: the deck (24 cards) is dealt from the unseen cards;
    the 8 stars are removed by rule, and the 12 unseen cards left over are removed unseen."""
    state = GAME.state_from_json(json.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert isinstance(state, CafeState)
    view = state.view(0)
    assert view["seat"] == 0
    assert view["round"] == 2 and view["phase"] == "turns" and view["master"] == 1
    assert view["current_seats"] == [0, 1]
    assert view["deck_size"] == 24
    assert view["removed_by_rule"] == STAR_IDS
    assert view["removed_unseen"] == 12
    assert view["supply"] == {"Y": 33, "B": 33, "G": 34, "R": 35}
    assert [s["hand"] for s in view["seats"]] == ["P43", None]
    assert [s["stage"] for s in view["seats"]] == ["place", "act"]
    assert [s["ap"] for s in view["seats"]] == [0, 3]
    assert [s["total"] for s in view["scores"]] == [0, 0]
    # every seat is public as it is, and each shop says whether it can still be completed
    seats = json.loads(json.dumps(view["seats"]))
    available = [[shop.pop("available") for shop in s["area"]["shops"]] for s in seats]
    assert seats == state.to_json()["seats"]
    assert available == [[shop.available for shop in p.area.shops] for p in state.players]
    assert available == [[True, True], [False, True]]  # seat 1 lost a shop
    check_no_peek(state)
    check_redacted(state)
    check_view_basics(GAME, state)


def test_views_are_copies() -> None:
    check_view_is_a_copy(new_state(3, 2, {"promos": ["atlas"]}))


def test_a_changed_view_changes_no_other_game() -> None:
    """The parts of an area's JSON kept between calls (position.py, in `area.memo`, which
    the copies of a start area share) are never handed out: a caller that changes every
    list and object of a view at any depth changes no later view or position of any game
    (it once reached the next game's cell positions, `[0, 0, "junk"]`)."""
    fresh = new_state(3, 2, {"promos": ["atlas"]})
    # as text: a document that shared its lists with the kept parts would change with them
    position, view = json.dumps(fresh.to_json()), json.dumps(fresh.view(0))
    for state in (new_state(3, 2, {"promos": ["atlas"]}), new_state(3, 2, {"promos": ["atlas"]})):
        for changed in (state.view(None), state.view(1), state.to_json()):
            for _, value in list(walk(changed)):
                if isinstance(value, list):
                    value.append("junk")
                elif isinstance(value, dict):
                    value["junk"] = 1
    later = new_state(3, 2, {"promos": ["atlas"]})
    assert json.dumps(later.to_json()) == position and json.dumps(later.view(0)) == view
    assert json.dumps(fresh.to_json()) == position and json.dumps(fresh.view(0)) == view


@pytest.mark.parametrize("seat", [2, -1, True, "0", 0.0])
def test_a_view_for_no_seat_is_an_error(seat: Any) -> None:
    state = new_state(2, 1)
    with pytest.raises(DataError, match="no seat"):
        state.view(seat)
