"""Café variants: advanced mode (auction, Ruling V1), the Espresso expansion (Rulings E1, E2)
and promo cards, as stated in shared/rules/cafe.md.

Hand-made positions go through the documented position JSON (the conftest helpers, plus
`xseat` below for the expansion's cells); random games through the public protocol. The
random suites at the bottom play every option combination; their `slow` versions play more.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from coffeetable.core.errors import DataError, IllegalActionError
from coffeetable.core.record import GameRecord
from coffeetable.games.cafe.actions import (
    Bid,
    BidDone,
    Deliver,
    End,
    Fill,
    Pass,
    Place,
    Take,
)
from coffeetable.games.cafe.deck import default_deck
from tests.cli.test_cli import assert_user_error, run
from tests.games.cafe.conftest import (
    _KINDS,
    GAME,
    cubes_at,
    grid_area,
    legal,
    parse_grid,
    play,
    position,
    seat_ap,
    seat_json,
    shop,
    shop_cubes,
    step,
    supply,
    warehouse,
)

DECK = default_deck()
PLAN_IDS = {c.id for c in DECK.of_kind("plan")}
STAR_IDS = {c.id for c in DECK.of_kind("plan") if c.star}
SHOP_CARDS = {c.id for c in DECK.of_kind("plan") if c.shops}
ESPRESSO_IDS = {c.id for c in DECK.of_kind("espresso")}
PROMO_IDS = {"leao": "X-LEAO", "coffee-mine": "X-MINE", "atlas": "X-ATLAS"}
CUP_CARDS = sorted(c.id for c in DECK.of_kind("plan") if c.has_cup and not c.star)
FREE_CARDS = sorted(c.id for c in DECK.of_kind("plan") if not c.has_cup and not c.star)
COLOURS = "YBGR"
FULL = {"Y": 35, "B": 35, "G": 35, "R": 35}

PROMO_SETS: tuple[tuple[str, ...], ...] = ((), ("coffee-mine",), ("leao", "coffee-mine", "atlas"))


def combos() -> list[Any]:
    """(options, players) for every variant combination and every allowed player count."""
    out = []
    for variant in ("base", "advanced"):
        for espresso in (False, True):
            for promos in PROMO_SETS:
                opts = {"variant": variant, "espresso": espresso, "promos": list(promos)}
                low = 2 if variant == "advanced" else 1
                for players in range(low, 5):
                    name = f"{variant}{'-espresso' if espresso else ''}-promos{len(promos)}"
                    out.append(pytest.param(opts, players, id=f"{name}-{players}p"))
    return out


COMBOS = combos()


# ==== independent deck arithmetic (from the rules text, not from variant.py) =================


def expected_deck(options: dict, players: int) -> tuple[int, int, int]:
    """(cards in the draw pile at the start, cards used per round, cards left after round 8)."""
    advanced = options.get("variant") == "advanced"
    espresso = options.get("espresso", False)
    size = 48
    if advanced or players < 4:
        size -= 8  # the star cards
    if advanced:
        size -= {2: 16, 3: 8, 4: 0}[players]
    else:
        size -= {1: 16, 2: 8, 3: 0, 4: 0}[players]
    if espresso:
        size += 8
    # advanced: reveal players + 1, no refills (Ruling E2: also with Espresso)
    per_round = players + 1 if advanced else (4 if espresso else 3) + players - 1
    left = size - 8 * per_round
    return size, per_round, left


def usual_removals(options: dict, players: int) -> int:
    advanced = options.get("variant") == "advanced"
    stars = 8 if advanced or players < 4 else 0
    extra = {2: 16, 3: 8, 4: 0}[players] if advanced else {1: 16, 2: 8, 3: 0, 4: 0}[players]
    return stars + extra


# ==== a mildly purposeful random bot =========================================================


def first_step(state, seat: int) -> Any:
    """Pass in the auction, the first take or placement, end in the actions stage."""
    actions = state.legal_actions(seat)
    for action in actions:
        if isinstance(action, Pass):
            return action
        if isinstance(action, Take | Place):
            return action
    assert End() in actions
    return End()


# ==== deck arithmetic =======================================================================


def cards_in_areas(data: dict) -> list[str]:
    return [c["card"] for s in data["seats"] for c in s["area"]["cards"][1:]]


@pytest.mark.parametrize(("options", "players"), COMBOS)
def test_deck_arithmetic_over_a_whole_game(options: dict, players: int) -> None:
    size, per_round, left = expected_deck(options, players)
    advanced = options["variant"] == "advanced"
    for seed in (players, 100 + players):
        state = GAME.new_initial_state(players, seed, options)
        start = state.to_json()
        pile = start["deck"] + start["display"]
        assert len(pile) == size
        rng = random.Random(seed)
        seen_rounds: list[int] = []
        while not state.is_over():
            data = state.to_json()
            if data["phase"] in ("auction", "draft") and data["round"] not in seen_rounds:
                seen_rounds.append(data["round"])
                in_pile = len(data["deck"]) + len(data["display"])
                assert in_pile == size - (data["round"] - 1) * per_round, data["round"]
            if data["phase"] == "draft":
                picked = players - len(data["draft_order"])
                if advanced:  # players + 1 revealed, no refills
                    assert len(data["display"]) == players + 1 - picked
                else:  # the display is refilled after each pick
                    assert len(data["display"]) == (4 if options["espresso"] else 3)
            if data["phase"] == "auction":
                assert len(data["display"]) == players + 1
            step(state, rng)
        final = state.to_json()
        assert seen_rounds == list(range(1, 9))
        assert final["round"] == 8 and final["phase"] == "over"
        # the deck runs out exactly at the end of round 8 (advanced + espresso: 8 are left)
        assert len(final["deck"]) == left
        assert left == (8 if advanced and options["espresso"] else 0)
        assert final["display"] == []
        used = cards_in_areas(final) + final["discard"]
        assert len(used) == 8 * per_round
        assert sorted(used + final["deck"]) == sorted(pile)


@pytest.mark.parametrize(("options", "players"), COMBOS)
def test_setup_removals_and_added_cards(options: dict, players: int) -> None:
    size, _, _ = expected_deck(options, players)
    k = len(options["promos"])
    promo_ids = {PROMO_IDS[n] for n in options["promos"]}
    for seed in range(3):
        data = GAME.new_initial_state(players, seed, options).to_json()
        pile = data["deck"] + data["display"]
        removed = data["removed"]
        assert len(pile) == size  # promo cards replace as many plan cards: same size
        assert len(set(pile)) == len(pile)
        assert not set(pile) & set(removed)
        assert promo_ids <= set(pile)
        assert not (set(PROMO_IDS.values()) - promo_ids) & set(pile)
        if options["espresso"]:
            assert set(pile) >= ESPRESSO_IDS
        else:
            assert not ESPRESSO_IDS & set(pile)
        stars_removed = options["variant"] == "advanced" or players < 4
        if stars_removed:
            assert set(removed) >= STAR_IDS  # advanced mode removes them even with 4 players
        else:  # all 8 are in play, unless a promo card replaced one of them
            assert len(STAR_IDS - set(pile)) <= k
        # every plan card is in the pile or removed; removed = the usual ones + k more
        assert set(removed) <= PLAN_IDS
        assert set(pile) | set(removed) == PLAN_IDS | promo_ids | (
            ESPRESSO_IDS if options["espresso"] else set()
        )
        assert len(removed) == usual_removals(options, players) + k
        others = [c for c in removed if not (stars_removed and c in STAR_IDS)]
        assert sum(1 for c in others if c in SHOP_CARDS) >= k


@pytest.mark.parametrize("promos", [["leao"], ["atlas", "coffee-mine"], list(PROMO_IDS)])
def test_promos_replace_plan_cards_with_shops(promos: list[str]) -> None:
    # 4 players, base: no usual removals, so every removed card is one a promo replaced
    for seed in range(10):
        data = GAME.new_initial_state(4, seed, {"promos": promos}).to_json()
        assert len(data["removed"]) == len(promos)
        assert set(data["removed"]) <= SHOP_CARDS
        assert len(data["deck"]) + len(data["display"]) == 48


@pytest.mark.parametrize(("options", "players"), [p for p in COMBOS if p.values[0]["promos"]])
def test_promo_removals_come_on_top_of_the_usual_ones(options: dict, players: int) -> None:
    # set-up order (docs, SETUP1): the usual removals first, then one plan card with a shop
    # per promo; so the same seed without promos shows the usual removals alone
    k = len(options["promos"])
    for seed in range(4):
        with_promos = GAME.new_initial_state(players, seed, options).to_json()["removed"]
        usual = GAME.new_initial_state(players, seed, {**options, "promos": []})
        usual_removed = usual.to_json()["removed"]
        assert len(usual_removed) == usual_removals(options, players)
        extra = list(with_promos)
        for card in usual_removed:
            extra.remove(card)  # every usual removal is still removed
        assert len(extra) == k
        assert set(extra) <= SHOP_CARDS


@pytest.mark.parametrize(("options", "players"), COMBOS[::3])
def test_position_without_a_deck_deals_the_remaining_draws(options: dict, players: int) -> None:
    size, per_round, left = expected_deck(options, players)
    state = GAME.new_initial_state(players, 3, options)
    while state.to_json()["round"] < 3:
        seat = min(state.current_seats())
        state.apply(seat, first_step(state, seat))
    data = state.to_json()
    assert data["phase"] in ("auction", "draft")
    in_deck = data["deck"]
    del data["deck"]
    dealt = GAME.state_from_json(data)
    got = dealt.to_json()
    assert len(got["deck"]) == len(in_deck) == size - 2 * per_round - len(data["display"])
    assert sorted(got["deck"]) == sorted(in_deck)  # the unseen cards, in some order
    while not dealt.is_over():
        seat = min(dealt.current_seats())
        dealt.apply(seat, first_step(dealt, seat))
    assert len(dealt.to_json()["deck"]) == left


def test_promos_are_drawn_and_can_be_played() -> None:
    drawn: set[str] = set()
    for seed in range(30):
        state = GAME.new_initial_state(2, seed, {"promos": list(PROMO_IDS)})
        rng = random.Random(seed)
        while not state.is_over():
            step(state, rng)
        drawn.update(set(cards_in_areas(state.to_json())) & set(PROMO_IDS.values()))
    assert drawn == set(PROMO_IDS.values())


# ==== options ===============================================================================


def test_options_are_normalised_and_stored() -> None:
    state = GAME.new_initial_state(2, 1, {"variant": "advanced", "promos": ["Atlas "]})
    opts = state.to_json()["options"]
    assert opts["variant"] == "advanced" and opts["espresso"] is False
    assert opts["promos"] == ["atlas"]
    assert opts["deck_sha256"] == DECK.digest
    assert GAME.normalize_options(None) == {
        "variant": "base",
        "espresso": False,
        "promos": [],
        "deck_sha256": DECK.digest,
    }


def test_solo_refuses_advanced_mode() -> None:
    with pytest.raises(DataError, match="advanced") as info:
        GAME.new_initial_state(1, 1, {"variant": "advanced"})
    assert "2 to 4" in str(info.value) or "solo" in str(info.value)
    GAME.new_initial_state(1, 1, {"espresso": True, "promos": ["leao"]})  # the rest is fine
    data = position(seat_json("Y c\nd r"), options={"variant": "advanced"})
    with pytest.raises(DataError, match="advanced"):
        GAME.state_from_json(data)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"variant": "expert"}, ["expert", "base", "advanced"]),
        ({"variant": "Advanced"}, ["base", "advanced"]),
        ({"promos": ["tea-house"]}, ["tea-house", "leao", "coffee-mine", "atlas"]),
        ({"promos": ["leao", "LEAO"]}, ["LEAO", "twice"]),
        ({"promos": "leao"}, ["promos"]),
        ({"espresso": "yes"}, ["espresso"]),
        ({"expansion": True}, ["expansion", "variant", "espresso", "promos"]),
        ({"advanced": True}, ["advanced", "variant", "espresso", "promos"]),
    ],
)
def test_bad_options_name_the_valid_choices(options: dict, words: list[str]) -> None:
    with pytest.raises(DataError) as info:
        GAME.new_initial_state(2, 1, options)
    for word in words:
        assert word in str(info.value)


# ==== advanced mode: the round ==============================================================


def advanced_draft(display: list[str], grid: str = "Y  B  d\nc  r  .", *, store: Any = "YBGR"):
    """A 2-player advanced-mode position in the draft: seat 0 (the master) picks first."""
    seats = [seat_json(grid, stage="wait", warehouse=store) for _ in range(2)]
    return GAME.state_from_json(
        position(
            *seats,
            phase="draft",
            master=0,
            display=display,
            draft_order=[0, 1],
            options={"variant": "advanced"},
        )
    )


def test_advanced_cup_cards_are_free_without_ships_or_cubes() -> None:
    cups = CUP_CARDS[:3]
    state = advanced_draft(cups, store="")  # no ships, an empty warehouse
    assert legal(state) == {f"take {c}" for c in cups}
    with pytest.raises(IllegalActionError):
        play(state, f"take {cups[0]} pay Y")
    play(state, f"take {cups[0]}")
    data = state.to_json()
    assert data["seats"][0]["hand"] == cups[0]
    assert data["seats"][0]["warehouse"] == {"Y": 0, "B": 0, "G": 0, "R": 0}
    # with cubes too, a cup card costs nothing
    state = advanced_draft(cups)
    assert not any("pay" in m for m in legal(state))
    play(state, f"take {cups[1]}")
    assert warehouse(state) == {"Y": 1, "B": 1, "G": 1, "R": 1}


def test_advanced_no_refills_and_the_leftover_card_is_discarded() -> None:
    display = [CUP_CARDS[0], FREE_CARDS[0], CUP_CARDS[1]]
    state = advanced_draft(display)
    deck_before = state.to_json()["deck"]
    play(state, f"take {FREE_CARDS[0]}", seat=0)
    data = state.to_json()
    assert data["display"] == [CUP_CARDS[0], CUP_CARDS[1]]  # not refilled
    assert data["deck"] == deck_before
    assert state.current_seats() == frozenset({1})
    play(state, f"take {CUP_CARDS[1]}", seat=1)
    data = state.to_json()
    assert data["phase"] == "turns"
    assert data["display"] == []
    assert data["discard"] == [CUP_CARDS[0]]
    assert data["deck"] == deck_before


@pytest.mark.parametrize("players", [2, 3, 4])
def test_advanced_round_structure(players: int) -> None:
    """Reveal players + 1, auction from the master, draft from the (new) master clockwise,
    the token never passes left by itself."""
    state = GAME.new_initial_state(players, 40 + players, {"variant": "advanced"})
    rng = random.Random(players)
    rounds_seen = 0
    while not state.is_over():
        data = state.to_json()
        assert data["phase"] == "auction"
        assert len(data["display"]) == players + 1
        master = data["master"]
        assert data["auction"] == {
            "stakes": [0] * players,
            "passed": [False] * players,
            "bidder": master,
            "bid_open": 0,
        }
        assert state.current_seats() == frozenset({master})
        # in odd rounds seat (master + 1) bids one cube and takes the token; else all pass
        bidder = (master + 1) % players if data["round"] % 2 else None
        while state.to_json()["phase"] == "auction":
            seat = min(state.current_seats())
            if seat == bidder and state.to_json()["auction"]["stakes"][seat] == 0:
                colour = next(c for c in COLOURS if warehouse(state, seat)[c])
                play(state, f"bid {colour}", "bid done", seat=seat)
            else:
                play(state, "pass", seat=seat)
        data = state.to_json()
        new_master = master if bidder is None else bidder
        assert data["master"] == new_master
        assert data["phase"] == "draft"
        assert data["draft_order"] == [(new_master + i) % players for i in range(players)]
        for i, seat in enumerate(data["draft_order"]):
            assert state.current_seats() == frozenset({seat})
            assert len(state.to_json()["display"]) == players + 1 - i
            play(state, rng.choice(sorted(legal(state, seat))), seat=seat)
        assert len(state.to_json()["discard"]) == rounds_seen + 1  # one leftover per round
        rounds_seen += 1
        while state.to_json()["phase"] == "turns":
            seat = min(state.current_seats())
            state.apply(seat, first_step(state, seat))
        if not state.is_over():
            after = state.to_json()
            assert after["round"] == data["round"] + 1
            assert after["master"] == new_master  # not passed to the left
    assert rounds_seen == 8


# ==== advanced mode: the auction (Ruling V1) ===============================================

SHIPS = """
Y  s  c
s  r  d
"""


def auction(
    *stores: Any,
    master: int = 0,
    grid: str = "Y  B  d\nc  r  .",
    grids: list[str] | None = None,
    **auction_fields: Any,
):
    """An advanced-mode position at the start of an auction (round 1)."""
    n = len(stores)
    grids = grids or [grid] * n
    seats = [seat_json(g, stage="wait", warehouse=s) for g, s in zip(grids, stores, strict=True)]
    data = position(
        *seats,
        phase="auction",
        master=master,
        display=(FREE_CARDS + CUP_CARDS)[: n + 1],
        options={"variant": "advanced"},
    )
    data["auction"] = auction_fields  # required in the auction phase; its keys default
    return GAME.state_from_json(data)


def auction_json(state) -> dict:
    return state.to_json()["auction"]


def test_auction_starts_with_the_master_and_goes_clockwise() -> None:
    state = auction("YB", "YB", "YB", master=1)
    assert state.current_seats() == frozenset({1})
    play(state, "pass", seat=1)
    assert state.current_seats() == frozenset({2})
    play(state, "bid Y", seat=2)
    assert state.current_seats() == frozenset({2})  # a bid is finished by the same seat
    play(state, "bid done", seat=2)
    assert state.current_seats() == frozenset({0})
    play(state, "pass", seat=0)
    assert state.current_seats() == frozenset({2})  # seat 1 passed: it is skipped


def test_auction_equal_stake_takes_the_token() -> None:
    state = auction("YB", "YB", "YB", master=0)
    play(state, "bid Y", "bid done", seat=0)
    assert state.to_json()["master"] == 0
    play(state, "bid B", seat=1)
    assert "bid done" in legal(state, 1)  # 1 equals the highest stake 1
    play(state, "bid done", seat=1)
    assert state.to_json()["master"] == 1
    assert auction_json(state)["stakes"] == [1, 1, 0]
    play(state, "pass", seat=2)
    play(state, "pass", seat=0)
    play(state, "pass", seat=1)
    data = state.to_json()
    assert data["phase"] == "draft" and data["master"] == 1
    assert data["draft_order"] == [1, 2, 0]


def test_auction_stakes_are_cumulative() -> None:
    state = auction("YYY", "YYYB", master=0)
    play(state, "bid Y", "bid done", seat=0)  # stake 1
    play(state, "bid Y", seat=1)
    play(state, "bid Y", seat=1)
    play(state, "bid Y", "bid done", seat=1)  # stake 3
    assert auction_json(state)["stakes"] == [1, 3]
    assert state.to_json()["master"] == 1
    # seat 0 needs 2 more cubes: its first bid stays at stake 1 + 1 = 2 < 3
    play(state, "bid Y", seat=0)
    assert "bid done" not in legal(state, 0)
    assert "pass" not in legal(state, 0)  # a started bid must be finished
    with pytest.raises(IllegalActionError):
        play(state, "bid done", seat=0)
    play(state, "bid Y", seat=0)
    assert "bid done" in legal(state, 0)
    play(state, "bid done", seat=0)
    assert auction_json(state)["stakes"] == [3, 3]
    assert state.to_json()["master"] == 0
    assert warehouse(state, 0) == {"Y": 0, "B": 0, "G": 0, "R": 0}


def test_auction_reaching_the_highest_stake_counts_your_earlier_bids() -> None:
    # seat 0 holds 2 cubes and a stake of 1: 1 + 2 reaches the highest stake 3
    state = auction("YB", "G", master=1, stakes=[1, 3], bidder=0)
    assert {"bid Y", "bid B", "pass"} <= legal(state, 0)
    # without the earlier cube it could not: it may only pass
    state = auction("YB", "G", master=1, stakes=[0, 3], bidder=0)
    assert legal(state, 0) == {"pass"}
    for move in ("bid Y", "bid done"):
        with pytest.raises(IllegalActionError):
            play(state, move, seat=0)


def test_ruling_v2_a_seat_may_raise_its_own_winning_stake() -> None:
    state = auction("YYB", "G", master=0)
    play(state, "bid Y", "bid done", seat=0)
    play(state, "pass", seat=1)
    assert state.current_seats() == frozenset({0})  # the only seat left
    assert {"bid Y", "bid B", "pass"} <= legal(state, 0)
    play(state, "bid B", "bid done", seat=0)
    assert auction_json(state)["stakes"] == [2, 0]
    play(state, "pass", seat=0)
    data = state.to_json()
    assert data["phase"] == "draft" and data["master"] == 0
    assert warehouse(state, 0) == {"Y": 1, "B": 0, "G": 0, "R": 0}


def test_auction_empty_warehouse_can_only_pass() -> None:
    state = auction("", "YBGR", master=0)
    assert legal(state, 0) == {"pass"}
    with pytest.raises(IllegalActionError):
        play(state, "bid Y", seat=0)


def test_auction_short_warehouse_can_only_pass() -> None:
    state = auction("RRR", "YB", "GGGG", master=0)
    play(state, "bid R", "bid R", "bid R", "bid done", seat=0)  # stake 3
    assert legal(state, 1) == {"pass"}  # 2 cubes cannot reach 3
    play(state, "pass", seat=1)
    assert {"bid G", "pass"} <= legal(state, 2)  # 4 cubes can


def test_auction_passing_is_final() -> None:
    state = auction("YYYY", "YYYY", "YYYY", master=0)
    play(state, "pass", seat=0)
    wanted = {1: 2, 2: 1}  # the stake each seat bids up to, one cube at a time
    turns = []
    while state.to_json()["phase"] == "auction":
        (seat,) = state.current_seats()
        turns.append(seat)
        assert state.legal_actions(0) == []
        if auction_json(state)["stakes"][seat] < wanted[seat]:
            play(state, "bid Y", "bid done", seat=seat)
        else:
            play(state, "pass", seat=seat)
        if 0 in state.current_seats():
            pytest.fail("a seat that passed got another turn")
    assert 0 not in turns
    assert turns.count(1) >= 2  # the auction went round more than once
    data = state.to_json()
    assert data["phase"] == "draft"
    assert data["master"] == 1  # the last to reach the highest stake (2)


def test_auction_nobody_bids_the_master_keeps_the_token() -> None:
    state = auction("YB", "YB", "YB", "YB", master=2)
    for seat in (2, 3, 0, 1):
        play(state, "pass", seat=seat)
    data = state.to_json()
    assert data["master"] == 2 and data["phase"] == "draft"
    assert data["draft_order"] == [2, 3, 0, 1]
    assert "auction" not in data
    assert all(s["warehouse"] == {"Y": 1, "B": 1, "G": 0, "R": 0} for s in data["seats"])


def test_auction_all_bid_cubes_are_lost() -> None:
    state = auction("YYBG", "YBBR", master=0)
    play(state, "bid Y", "bid B", "bid done", seat=0)  # stake 2
    play(state, "bid B", "bid R", "bid done", seat=1)  # stake 2: takes the token
    play(state, "pass", seat=0)
    play(state, "pass", seat=1)
    data = state.to_json()
    assert data["master"] == 1
    assert warehouse(state, 0) == {"Y": 1, "B": 0, "G": 1, "R": 0}  # the loser's cubes
    assert warehouse(state, 1) == {"Y": 1, "B": 1, "G": 0, "R": 0}  # the winner's cubes
    assert supply(state) == FULL  # Ruling S1: warehouse cubes never were supply cubes


def test_auction_bid_cube_on_a_ship() -> None:
    state = auction("YYBG", "YBGR", grids=[SHIPS, "Y  B  d\nc  r  ."], master=0)
    score_before = state.scores()[0].total
    assert {"bid Y ship 0,1", "bid Y ship 1,0", "bid G ship 0,1"} <= legal(state, 0)
    assert not any("ship" in m for m in legal(state, 1))  # seat 1 has no ship
    play(state, "bid Y ship 0,1", seat=0)
    assert cubes_at(state, 0) == {(0, 1): "Y"}
    assert warehouse(state, 0) == {"Y": 1, "B": 1, "G": 1, "R": 0}
    assert supply(state) == FULL
    # the cube still counts in scoring: the score did not change
    assert state.scores()[0].total == score_before
    moves = legal(state, 0)
    assert "bid B ship 1,0" in moves
    assert not any("ship 0,1" in m for m in moves)  # that ship holds a cube now
    with pytest.raises(IllegalActionError):
        play(state, "bid B ship 0,1", seat=0)
    play(state, "bid B ship 1,0", "bid done", seat=0)
    assert cubes_at(state, 0) == {(0, 1): "Y", (1, 0): "B"}
    assert auction_json(state)["stakes"] == [2, 0]
    assert state.scores()[0].total == score_before
    # a plain bid really costs score (for comparison)
    plain = auction("YYBG", "YBGR", grids=[SHIPS, "Y  B  d\nc  r  ."], master=0)
    play(plain, "bid B", "bid done", seat=0)
    assert plain.scores()[0].total < score_before
    # the position JSON writes the bid cubes on the ships and reads them back
    data = state.to_json()
    ships = {tuple(c["at"]): c.get("cubes") for c in data["seats"][0]["area"]["cells"]}
    assert ships[(0, 1)] == "Y" and ships[(1, 0)] == "B"
    assert GAME.state_from_json(json.loads(json.dumps(data))).to_json() == data


def ship_seat(stage: str = "place", hand: str | None = None, ap: int | None = None) -> dict:
    """A seat with bid cubes on both ships (Y on 0,1 and B on 1,0)."""
    return seat_json("Y  s:Y  c\ns:B  r  d", stage=stage, hand=hand, ap=ap, warehouse="YGR")


def test_bid_cube_returns_to_the_warehouse_when_its_ship_is_covered() -> None:
    data = position(
        ship_seat(hand=FREE_CARDS[0]),
        seat_json("Y c", stage="done"),
        options={"variant": "advanced"},
        deck=[],
    )
    state = GAME.state_from_json(data)
    assert supply(state) == FULL  # bid cubes on ships are warehouse cubes
    score = state.scores()[0].total
    placements = [a for a in state.legal_actions(0) if isinstance(a, Place)]
    covering = None
    for action in placements:
        twin = state.clone()
        twin.apply(0, action)
        kept = cubes_at(twin, 0)
        if (0, 1) not in kept and kept.get((1, 0)) == "B":
            covering = action  # covers the ship at 0,1 but not the one at 1,0
            break
    assert covering is not None
    state.apply(0, covering)
    assert warehouse(state, 0) == {"Y": 2, "B": 0, "G": 1, "R": 1}
    assert cubes_at(state, 0) == {(1, 0): "B"}
    assert supply(state) == FULL
    assert state.scores()[0].total == score


def test_bid_cube_on_a_ship_from_auction_to_covering_placement() -> None:
    state = auction("YB", "G", grids=[SHIPS, "Y  c"], master=0)
    play(state, "bid Y ship 0,1", "bid done", seat=0)
    play(state, "pass", seat=1)
    play(state, "pass", seat=0)
    data = state.to_json()
    assert data["phase"] == "draft" and data["draft_order"] == [0, 1]
    assert warehouse(state, 0) == {"Y": 0, "B": 1, "G": 0, "R": 0}
    play(state, f"take {data['display'][0]}", seat=0)
    play(state, f"take {state.to_json()['display'][0]}", seat=1)
    assert cubes_at(state, 0) == {(0, 1): "Y"}  # still on its ship after the draft
    for action in state.legal_actions(0):
        twin = state.clone()
        twin.apply(0, action)
        if (0, 1) not in cubes_at(twin, 0):
            break
    else:
        pytest.fail("no placement covers the ship at 0,1")
    assert warehouse(twin, 0) == {"Y": 1, "B": 1, "G": 0, "R": 0}
    assert supply(twin) == FULL


def test_bid_cubes_on_ships_return_to_the_warehouse_at_game_end() -> None:
    data = position(
        ship_seat(stage="act", ap=1),
        seat_json("Y c", stage="done"),
        round=8,
        options={"variant": "advanced"},
        deck=[],
    )
    state = GAME.state_from_json(data)
    score = state.scores()[0]
    # Y1 G1 R1 in the warehouse plus Y and B on the ships: 2 * 1 + 1 (0 + 1 without them)
    assert score.total == 3
    play(state, "end", seat=0)
    assert state.is_over()
    assert warehouse(state, 0) == {"Y": 2, "B": 1, "G": 1, "R": 1}
    assert cubes_at(state, 0) == {}
    assert supply(state) == FULL
    assert state.scores()[0] == score  # counted the same before and after


def test_bids_do_not_change_the_supply() -> None:
    state = GAME.new_initial_state(3, 5, {"variant": "advanced"})
    while state.to_json()["phase"] == "auction":
        (seat,) = state.current_seats()
        bids = [a for a in state.legal_actions(seat) if isinstance(a, Bid)]
        if BidDone() in state.legal_actions(seat):
            state.apply(seat, BidDone())
        elif bids and sum(warehouse(state, seat).values()) > 2:
            state.apply(seat, bids[0])
        else:
            state.apply(seat, Pass())
        assert supply(state) == FULL
    assert sum(sum(s["warehouse"].values()) for s in state.to_json()["seats"]) < 12


def test_auction_position_round_trips_mid_bid() -> None:
    state = auction("YYBG", "YBGR", "RR", grids=[SHIPS, "Y c", "Y c"], master=2)
    play(state, "pass", seat=2)
    play(state, "bid Y ship 1,0", "bid B", seat=0)
    data = state.to_json()
    assert data["phase"] == "auction"
    assert data["auction"] == {
        "stakes": [2, 0, 0],
        "passed": [False, False, True],
        "bidder": 0,
        "bid_open": 2,
    }
    restored = GAME.state_from_json(json.loads(json.dumps(data)))
    assert restored.to_json() == data
    assert legal(restored, 0) == legal(state, 0)
    play(restored, "bid done", seat=0)
    assert restored.current_seats() == frozenset({1})


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(options={}), "advanced"),
        (lambda d: d.update(auction={}), None),  # every key has a default
        (lambda d: d.pop("auction"), None),  # a missing auction object takes the defaults too
        (lambda d: d["auction"].update(bidder=5), "bidder"),
        (lambda d: d["auction"].update(passed=[True, False]), "bidder"),
        (lambda d: d["auction"].update(stakes=[0]), "stakes"),
        (lambda d: d["auction"].update(bid_open=3), "bid_open"),
        (lambda d: d["auction"].update(colour="Y"), "unknown field"),
        (lambda d: d.update(phase="draft", draft_order=[0, 1]), "auction"),
    ],
)
def test_auction_positions_are_checked(change, words: str | None) -> None:
    state = auction("YB", "YB", master=0)
    data = state.to_json()
    change(data)
    if words is None:
        assert GAME.state_from_json(data).to_json() == state.to_json()
    else:
        with pytest.raises(DataError, match=words):
            GAME.state_from_json(data)


def test_auction_notation_and_codes() -> None:
    for text, action in [
        ("bid Y", Bid(0)),
        ("bid r", Bid(3)),
        ("bid G ship -1,2", Bid(2, (-1, 2))),
        ("bid done", BidDone()),
        ("pass", Pass()),
        ("fill 0,1 B", Fill((0, 1), 1)),
        ("deliver 1,2 > 0,3", Deliver((1, 2), (0, 3))),
    ]:
        assert GAME.parse_action(text) == action
        assert GAME.parse_action(action.notation()) == action
        assert GAME.decode_action(GAME.encode_action(action)) == action
    codes = {GAME.encode_action(a) for a in (Bid(0), Bid(1), Bid(0, (0, 1)), BidDone(), Pass())}
    assert len(codes) == 5


def test_auction_actions_outside_the_auction_are_rejected() -> None:
    state = GAME.new_initial_state(2, 3)  # base game: draft
    seat = min(state.current_seats())
    for move in ("bid Y", "pass", "bid done"):
        with pytest.raises(IllegalActionError, match="auction"):
            play(state, move, seat=seat)
    state = auction("YB", "YB")
    with pytest.raises(IllegalActionError, match="auction"):
        play(state, f"take {FREE_CARDS[0]}", seat=0)


# ==== the Espresso expansion's cells ========================================================

XKINDS = {
    **_KINDS,
    "e": "espresso",
    "S": "supply",
    **{f"b{c}": f"bonus-{c}" for c in "YBGR"},
    **{f"k{v}": f"cake-{v}" for v in range(1, 10)},
}


def xseat(grid: str, shops: list[dict] | tuple = (), **kw: Any) -> dict:
    """seat_json with the expansion's cells: e espresso, S supply, bY bonus, k2 cake-2."""
    stage = kw.get("stage", "act")
    if kw.get("ap") is None:
        cups = sum(1 for _, k, _ in parse_grid(grid) if k == "c")
        kw["ap"] = 0 if stage in ("place", "done") else min(8, cups)
    seat = seat_json("c", **kw)
    seat["area"] = grid_area(grid, shops, kinds=XKINDS)
    return seat


def xload(grid: str, shops: list[dict] | tuple = (), **kw: Any):
    """One seat in the actions stage of round 1, Espresso expansion on."""
    return GAME.state_from_json(position(xseat(grid, shops, **kw), options={"espresso": True}))


def test_searches_skip_only_the_clears_of_bean_cells() -> None:
    """`search_actions`: a bean cell holds one cube, which a Dry takes wherever it lies and
    a Produce would only put back, so its Clear never helps; bonus and supply cells, and
    dry and roast cells, may be worth clearing (docs/bots.md, "Steps a search skips")."""
    state = xload(
        """
        Y:Y  d:BB  r:GGG  c
        S:R  bY:Y  .      c
        """
    )
    legal_steps = state.legal_actions(0)
    searched = state.search_actions(0)
    assert "clear 0,0" in {a.notation() for a in legal_steps}
    assert [a for a in legal_steps if a.notation() != "clear 0,0"] == searched
    assert {a.notation() for a in searched if a.notation().startswith("clear")} == {
        "clear 0,1",
        "clear 0,2",
        "clear 1,0",
        "clear 1,1",
    }
    play(state, "end")  # the next round's draft: every pick is searched
    assert state.search_actions(0) == state.legal_actions(0)
    assert all(a.notation().startswith("take") for a in state.search_actions(0))


def xover(grid: str, shops: list[dict] | tuple = (), store: Any = "YBGR"):
    return GAME.state_from_json(
        position(
            xseat(grid, shops, stage="done", warehouse=store),
            phase="over",
            round=8,
            options={"espresso": True},
        )
    )


def parts(state, seat: int = 0) -> dict[str, int]:
    score = state.scores()[seat]
    assert score.total == sum(p for _, p in score.parts)
    return dict(score.parts)


DONE = {"cubes": "Y"}  # a completed one-cube shop needing Y


def test_cake_next_to_two_completed_shops_counts_once() -> None:
    state = xover("0  k3  1\nc  .  .", [shop("Y", 2, **DONE), shop("Y", 4, **DONE)])
    assert parts(state)["shops"] == 6
    assert parts(state)["cakes"] == 3


def test_two_cakes_next_to_one_shop_only_one_counts() -> None:
    state = xover("k1  0  k3\n.  c  .", [shop("Y", 2, **DONE)])
    assert parts(state)["cakes"] == 3  # the better cake


def test_ruling_e1_the_cake_assignment_maximises_the_score() -> None:
    # cake-3 touches shops 0 and 1; cake-2 touches shop 0 only. Greedy (3 -> shop 0) scores
    # 3; the best assignment (3 -> shop 1, 2 -> shop 0) scores 5.
    grid = """
    k2  0   k3
    .   c   1
    """
    state = xover(grid, [shop("Y", 1, **DONE), shop("Y", 1, **DONE)])
    assert parts(state)["cakes"] == 5
    # and with two shops for two cakes the other way round
    grid = """
    k3  0   k2
    1   c   .
    """
    state = xover(grid, [shop("Y", 1, **DONE), shop("Y", 1, **DONE)])
    assert parts(state)["cakes"] == 5


def test_cake_next_to_an_incomplete_shop_adds_nothing() -> None:
    state = xover("0  k3  c", [shop("YB", 2, cubes="Y")])
    assert parts(state) == {
        "shops": 0,
        "cakes": 0,
        "warehouse lowest x2": 2,
        "warehouse second x1": 1,
    }
    # diagonal is not adjacent either
    state = xover("0  .\nc  k3", [shop("Y", 2, **DONE)])
    assert parts(state)["cakes"] == 0
    # a completed shop two cells long: a cake next to either cell counts
    state = xover("0  0  k2\nc  .  .", [shop("YB", 3, cubes="YB")])
    assert parts(state)["shops"] == 3 and parts(state)["cakes"] == 2


def test_cake_next_to_a_covered_shop_adds_nothing() -> None:
    # a completed two-cell shop with a cake next to its first cell; a placement covers its
    # second cell: the shop is gone (its cubes go back) and the cake scores nothing
    data = position(
        xseat("k3  0  0\nc  .  .", [shop("YB", 4, cubes="YB")], stage="place", hand=FREE_CARDS[0]),
        options={"espresso": True},
        deck=[],
    )
    state = GAME.state_from_json(data)
    assert parts(state)["shops"] == 4 and parts(state)["cakes"] == 3
    for action in state.legal_actions(0):
        twin = state.clone()
        twin.apply(0, action)
        cells = {tuple(c["at"]): c for c in twin.to_json()["seats"][0]["area"]["cells"]}
        if (
            cells[(0, 0)]["cell"] == "cake-3"
            and cells[(0, 1)].get("shop") == 0
            and cells[(0, 2)].get("shop") != 0
        ):
            break
    else:
        pytest.fail("no placement covers only the shop's second cell")
    assert parts(twin)["shops"] == 0 and parts(twin)["cakes"] == 0
    assert supply(twin) == FULL


def test_cakes_score_mid_game_and_in_the_breakdown() -> None:
    state = xload("0  k2  c\nr:Y  .  c", [shop("Y", 3)])
    assert parts(state)["cakes"] == 0
    play(state, "deliver 1,0 > 0,0")
    assert shop_cubes(state) == ["Y"]
    assert parts(state)["shops"] == 3 and parts(state)["cakes"] == 2


def test_score_breakdown_adds_up_with_expansion_cells_and_espresso_off() -> None:
    # regression: the cake VP used to be in the total without a 'cakes' part
    data = position(xseat("0  k3  c", [shop("Y", 2, **DONE)], stage="done"), phase="over", round=8)
    try:
        state = GAME.state_from_json(data)
    except DataError as exc:  # rejecting expansion cells without the expansion is fine too
        assert "cake" in str(exc) or "espresso" in str(exc)
        return
    score = state.scores()[0]
    assert score.total == sum(p for _, p in score.parts)
    # shop 2 + warehouse 3, plus the cake if it is counted at all
    assert score.total - dict(score.parts).get("cakes", 0) == 5


# ---- espresso cells ----


def test_deliver_one_cube_to_an_empty_espresso_cell() -> None:
    state = xload("r:GG  e  c\n0  e:Y  c", [shop("G", 2)])
    moves = legal(state)
    assert {"deliver 0,0 > wh", "deliver 0,0 > 0,1", "deliver 0,0 > 1,0"} <= moves
    assert "deliver 0,0 > 1,1" not in moves  # that espresso cell is full
    with pytest.raises(IllegalActionError, match="espresso"):
        play(state, "deliver 0,0 > 1,1")
    play(state, "deliver 0,0 > 0,1")
    assert cubes_at(state)[(0, 1)] == "G"
    assert legal(state) == {"deliver 0,0 > wh", "deliver 0,0 > 1,0"}  # the rest of the cell
    play(state, "deliver 0,0 > 1,0")
    assert seat_ap(state) == 1  # one Deliver action
    assert cubes_at(state) == {(0, 1): "G", (1, 1): "Y"}
    assert shop_cubes(state) == ["G"]
    # the espresso cube stays on the cells: it still counts against the supply
    assert supply(state) == {"Y": 34, "B": 35, "G": 33, "R": 35}
    with pytest.raises(IllegalActionError):
        play(state, "clear 0,1")  # not a bean, dry or roast cell


def test_espresso_cube_is_lost_when_covered() -> None:
    data = position(
        xseat("e:R  Y  c\n.  .  d", stage="place", hand=FREE_CARDS[0]),
        options={"espresso": True},
        deck=[],
    )
    state = GAME.state_from_json(data)
    assert supply(state)["R"] == 34
    placements = state.legal_actions(0)
    for action in placements:
        twin = state.clone()
        twin.apply(0, action)
        if (0, 0) not in cubes_at(twin):
            break
    else:
        pytest.fail("no placement covers the espresso cell")
    assert supply(twin) == FULL  # back to the supply, not to the warehouse
    assert warehouse(twin) == {"Y": 1, "B": 1, "G": 1, "R": 1}


@pytest.mark.parametrize(
    ("store", "espresso", "after"),
    [
        # Y0 B2 G3 R5: a Y cube scores 2*1 + 2 = 4 (B would give 0 + 3)
        ({"Y": 0, "B": 2, "G": 3, "R": 5}, "R", {"Y": 1, "B": 2, "G": 3, "R": 5}),
        # Y4 B4 G1 R9: G -> 2*2 + 4 = 8
        ({"Y": 4, "B": 4, "G": 1, "R": 9}, "Y", {"Y": 4, "B": 4, "G": 2, "R": 9}),
    ],
)
def test_espresso_cube_exchanged_at_game_end_for_the_best_colour(
    store: dict, espresso: str, after: dict
) -> None:
    data = position(
        xseat(f"e:{espresso}  Y  c", stage="act", warehouse=store, ap=1),
        round=8,
        options={"espresso": True},
        deck=[],
    )
    state = GAME.state_from_json(data)
    before = state.scores()[0]
    low, second = sorted(after.values())[:2]
    assert before.total == 2 * low + second  # counted as exchanged already
    play(state, "end")
    assert state.is_over()
    assert warehouse(state) == after
    assert cubes_at(state) == {}
    assert supply(state) == FULL  # the espresso cube itself went back to the supply
    assert state.scores()[0].total == before.total


def test_two_espresso_cubes_are_exchanged_jointly() -> None:
    # Y0 B0 G5 R5: two cubes as Y + B give 2*1 + 1 = 3; two Y give 0 + 2 = 2
    store = {"Y": 0, "B": 0, "G": 5, "R": 5}
    state = GAME.state_from_json(
        position(
            xseat("e:G  e:G  c", stage="act", warehouse=store, ap=1),
            round=8,
            options={"espresso": True},
            deck=[],
        )
    )
    play(state, "end")
    assert warehouse(state) == {"Y": 1, "B": 1, "G": 5, "R": 5}
    assert state.scores()[0].total == 3


# ---- supply and bonus cells ----


def test_supply_cell_takes_a_chosen_colour() -> None:
    state = xload("Y  S  d\nc  c  .")
    play(state, "produce 0,0")
    assert cubes_at(state) == {(0, 0): "Y"}  # the bean cell at once
    assert legal(state) == {"fill 0,1 Y", "fill 0,1 B", "fill 0,1 G", "fill 0,1 R"}
    with pytest.raises(IllegalActionError):
        play(state, "end")
    # the choice survives the position format
    data = state.to_json()
    assert data["seats"][0]["pending"] == {"supply": [[0, 1]]}
    assert GAME.state_from_json(json.loads(json.dumps(data))).to_json() == data
    play(state, "fill 0,1 G")
    assert cubes_at(state) == {(0, 0): "Y", (0, 1): "G"}
    assert supply(state) == {"Y": 34, "B": 35, "G": 34, "R": 35}
    assert seat_ap(state) == 1  # one Produce
    assert "pending" not in state.to_json()["seats"][0]
    assert {"dry 0,2 Y", "dry 0,2 G"} <= legal(state)  # a supply cell is a bean cell
    assert not any(m.startswith("produce") for m in legal(state))  # nothing empty


def test_supply_cell_offers_only_colours_left_in_the_supply() -> None:
    hoard = "r:" + "B" * 35
    state = xload(f"S  c  c\n{hoard}  .  .")
    play(state, "produce 0,0")
    assert legal(state) == {"fill 0,0 Y", "fill 0,0 G", "fill 0,0 R"}
    with pytest.raises(IllegalActionError):
        play(state, "fill 0,0 B")


def test_supply_cell_choice_is_skipped_when_the_supply_runs_dry() -> None:
    # 35 Y, 35 B, 35 G and 34 R lie on roast cells: one red cube is left in the supply
    grid = """
    S     S     c  c
    r:{Y}  r:{B}  r:{G}  r:{R}
    """.format(Y="Y" * 35, B="B" * 35, G="G" * 35, R="R" * 34)
    state = xload(grid)
    assert supply(state) == {"Y": 0, "B": 0, "G": 0, "R": 1}
    play(state, "produce 0,0")
    assert legal(state) == {"fill 0,0 R", "fill 0,1 R"}
    play(state, "fill 0,1 R")
    assert "pending" not in state.to_json()["seats"][0]  # nothing left to choose
    assert seat_ap(state) == 1
    # cubes coming back to the supply later do not revive the finished Produce
    play(state, "clear 1,0")
    assert supply(state)["Y"] == 35
    assert "pending" not in state.to_json()["seats"][0]
    assert not any(m.startswith("fill") for m in legal(state))
    assert cubes_at(state) == {(0, 1): "R", (1, 1): "B" * 35, (1, 2): "G" * 35, (1, 3): "R" * 34}
    play(state, "produce 0,0")  # a new Produce, a new action point
    assert seat_ap(state) == 0
    play(state, "fill 0,0 Y")
    assert cubes_at(state)[(0, 0)] == "Y"


def test_bonus_cell_receives_two_cubes() -> None:
    state = xload("bY  B  d\nc  c  .")
    play(state, "produce 0,0")
    assert cubes_at(state) == {(0, 0): "YY", (0, 1): "B"}
    assert supply(state) == {"Y": 33, "B": 34, "G": 35, "R": 35}
    play(state, "dry 0,2 Y")
    assert cubes_at(state) == {(0, 1): "B", (0, 2): "YY"}


def test_bonus_cell_shortage_of_one_cube() -> None:
    hoard = "r:" + "Y" * 34  # one yellow left in the supply
    state = xload(f"bY  Y  c\n{hoard}  .  c")
    play(state, "produce 0,0")
    assert legal(state) == {"fill 0,0", "fill 0,1"}
    assert state.to_json()["seats"][0]["pending"]["fill"] == "Y"
    play(state, "fill 0,0")
    assert cubes_at(state)[(0, 0)] == "Y"
    assert (0, 1) not in cubes_at(state)
    assert supply(state)["Y"] == 0
    assert seat_ap(state) == 1


def test_bonus_cell_shortage_of_two_cubes() -> None:
    hoard = "r:" + "Y" * 33  # two yellows for three places (bonus 2 + bean 1)
    state = xload(f"bY  Y  c\n{hoard}  .  c")
    play(state, "produce 0,0")
    assert state.to_json()["seats"][0]["pending"]["fill"] == "YY"
    assert legal(state) == {"fill 0,0", "fill 0,1"}
    play(state, "fill 0,0")
    assert legal(state) == {"fill 0,0", "fill 0,1"}  # the bonus cell takes a second cube
    data = state.to_json()
    assert GAME.state_from_json(json.loads(json.dumps(data))).to_json() == data
    play(state, "fill 0,0")
    assert cubes_at(state)[(0, 0)] == "YY" and (0, 1) not in cubes_at(state)
    assert supply(state)["Y"] == 0
    assert "pending" not in state.to_json()["seats"][0]


def test_short_produce_skips_a_bonus_cell_that_already_holds_a_cube() -> None:
    # regression: 'fill 0,0' used to top the bonus cell up to 2 cubes
    hoard = "r:" + "Y" * 33  # with the cube on the bonus cell: 1 yellow left
    state = xload(f"bY:Y  Y  Y\n{hoard}  c  c")
    assert supply(state)["Y"] == 1
    play(state, "produce 0,1")
    assert legal(state) == {"fill 0,1", "fill 0,2"}


def test_bonus_and_supply_cells_join_bean_groups() -> None:
    state = xload("bG  S  R\nc  c  d")
    produces = {m for m in legal(state) if m.startswith("produce")}
    assert produces == {"produce 0,0"}  # one bean group of three cells
    play(state, "produce 0,2")  # named by any of its cells
    assert cubes_at(state) == {(0, 0): "GG", (0, 2): "R"}
    play(state, "fill 0,1 R")
    assert cubes_at(state)[(0, 1)] == "R"
    assert seat_ap(state) == 1


def test_espresso_positions_need_the_expansion_option() -> None:
    data = position(
        seat_json("Y c", stage="wait"),
        phase="draft",
        display=["E3", FREE_CARDS[0], FREE_CARDS[1]],
        draft_order=[0],
    )
    with pytest.raises(DataError, match="E3"):
        GAME.state_from_json(data)
    data["options"] = {"espresso": True}
    data["display"].append(FREE_CARDS[2])
    state = GAME.state_from_json(data)
    assert "take E3" in legal(state)  # E3 shows no cup


def test_espresso_display_is_four_and_the_master_takes_last_from_four() -> None:
    state = GAME.new_initial_state(3, 9, {"espresso": True})
    data = state.to_json()
    master = data["master"]
    assert data["draft_order"] == [(master + i) % 3 for i in (1, 2, 3)]
    for _ in range(3):
        data = state.to_json()
        assert len(data["display"]) == 4
        seat = min(state.current_seats())
        take = next(a for a in state.legal_actions(seat) if isinstance(a, Take))
        state.apply(seat, take)
    after = state.to_json()
    assert after["phase"] == "turns"
    assert len(after["discard"]) == 3


def test_ruling_e2_advanced_with_espresso_reveals_players_plus_one() -> None:
    for players in (2, 3, 4):
        data = GAME.new_initial_state(players, 1, {"variant": "advanced", "espresso": True})
        data = data.to_json()
        assert len(data["display"]) == players + 1
        pile = set(data["deck"]) | set(data["display"])
        assert pile >= ESPRESSO_IDS


# ==== command line ==========================================================================


def one_error_line(code: int, err: str) -> str:
    return assert_user_error(code, err).splitlines()[0]


@pytest.mark.parametrize("command", ["sim", "play"])
def test_cli_solo_advanced_is_a_user_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, command, "cafe", "--players", "1", "--variant", "advanced")
    assert "advanced" in one_error_line(code, err)
    assert out == ""


def test_cli_unknown_promo_is_a_user_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sim", "cafe", "--games", "1", "--promo", "tea")
    line = one_error_line(code, err)
    assert "tea" in line and "leao" in line and "atlas" in line


def test_cli_sim_shows_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sim", "cafe", "--players", "3", "--games", "2", "--seed", "4", "--variant"]
    argv += ["advanced", "--espresso", "--promo", "leao", "--promo", "atlas"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    assert "variant=advanced" in out and "espresso=True" in out
    assert "leao" in out and "atlas" in out
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["options"]["variant"] == "advanced"
    assert stats["options"]["espresso"] is True
    assert stats["options"]["promos"] == ["leao", "atlas"]


def test_cli_play_records_the_options_and_inspect_prints_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    path = tmp_path / "adv.json"
    argv = ["play", "cafe", "--players", "2", "--bots", "2", "--seed", "6"]
    argv += ["--variant", "advanced", "--espresso", "--promo", "coffee-mine"]
    code, out, _ = run(capsys, *argv, "--record", str(path))
    assert code == 0 and "Final scores:" in out
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["options"]["variant"] == "advanced"
    assert data["options"]["espresso"] is True
    assert data["options"]["promos"] == ["coffee-mine"]
    assert data["options"]["deck_sha256"] == DECK.digest
    assert any(text.startswith(("bid", "pass")) for _, text in data["actions"])
    final = GameRecord.from_json(data).replay()
    assert final.is_over() and final.to_json()["options"] == data["options"]
    assert data["result"]["winners"] == final.winners()

    code, out, err = run(capsys, "inspect", str(path))
    assert code == 0 and err == ""
    header = out.splitlines()[0]
    assert "variant=advanced" in header and "espresso=True" in header
    assert "coffee-mine" in header
    code, out, _ = run(capsys, "inspect", str(path), "--json")
    assert json.loads(out)["options"]["variant"] == "advanced"

    # a position in the auction phase: inspect lists the bidder's moves and the options
    state = GAME.new_initial_state(2, 6, {"variant": "advanced"})
    pos = tmp_path / "auction.json"
    pos.write_text(json.dumps(state.to_json()), encoding="utf-8")
    code, out, err = run(capsys, "inspect", str(pos))
    assert code == 0 and err == ""
    assert "variant=advanced" in out.splitlines()[0]
    (seat,) = state.current_seats()
    assert f"Seat {seat} to move" in out and "  pass" in out


def test_cli_play_accepts_auction_moves(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import io

    # seat 0 is the human; if seat 1 (the bot) is the master it bids or passes first
    monkeypatch.setattr("sys.stdin", io.StringIO("bid Q\npass\nquit\n"))
    path = tmp_path / "rec.json"
    argv = ["play", "cafe", "--players", "2", "--bots", "1", "--seed", "11"]
    code, out, _ = run(capsys, *argv, "--variant", "advanced", "--record", str(path))
    assert code == 0
    assert out.count("not played:") == 1  # 'bid Q' names no colour
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [0, "pass"] in data["actions"]
    assert data["options"]["variant"] == "advanced"
    GameRecord.from_json(data).replay()  # replays cleanly


# ==== random games over every variant: invariants, round trips, replay ======================


def check_invariants(state) -> dict:
    data = state.to_json()
    on_cells = dict.fromkeys(COLOURS, 0)
    for seat in data["seats"]:
        cells = seat["area"]["cells"]
        cups = sum(1 for c in cells if c["cell"] == "cup")
        assert cups >= 1
        assert 0 <= seat["ap"] <= min(8, cups)
        for cell in cells:
            cubes = cell.get("cubes", "")
            if cell["cell"] == "ship":  # a bid cube: a warehouse cube (Ruling S1)
                assert len(cubes) <= 1
                continue
            if cell["cell"] == "espresso":
                assert len(cubes) <= 1
            if cell["cell"].startswith("bonus"):
                assert len(cubes) <= 2
            for ch in cubes:
                on_cells[ch] += 1
        for s in seat["area"]["shops"]:
            for ch in s["cubes"]:
                on_cells[ch] += 1
        for ch in seat.get("pending", {}).get("fill", ""):
            on_cells[ch] += 1
        assert all(n >= 0 for n in seat["warehouse"].values())
    for colour in COLOURS:
        assert data["supply"][colour] >= 0
        assert data["supply"][colour] + on_cells[colour] == 35, colour
    current = state.current_seats()
    if data["phase"] == "auction":
        assert current == frozenset({data["auction"]["bidder"]})
        assert not data["auction"]["passed"][data["auction"]["bidder"]]
    if data["phase"] == "over":
        assert current == frozenset()
        for seat in data["seats"]:  # no cube is left on a ship or espresso cell
            assert not any(
                c.get("cubes") for c in seat["area"]["cells"] if c["cell"] in ("ship", "espresso")
            )
    for seat in range(state.num_players):
        if seat in current:
            assert state.legal_actions(seat), "a seat to act has no legal action"
        else:
            assert state.legal_actions(seat) == []
    return data


def check_codes(state) -> None:
    for seat in state.current_seats():
        actions = state.legal_actions(seat)
        assert len(set(actions)) == len(actions)
        codes = set()
        for action in actions:
            text = action.notation()
            assert GAME.parse_action(text) == action, text
            code = GAME.encode_action(action)
            assert code >= 0
            assert GAME.decode_action(code) == action, text
            codes.add(code)
        assert len(codes) == len(actions)


def round_trip(state) -> None:
    data = state.to_json()
    restored = GAME.state_from_json(json.loads(json.dumps(data)))
    assert restored.to_json() == data
    assert restored.current_seats() == state.current_seats()
    for seat in range(state.num_players):
        assert restored.legal_actions(seat) == state.legal_actions(seat)
    assert restored.scores() == state.scores()
    assert state.render().strip() and state.render(0).strip()


def action_kind(state_json: dict, seat: int, action: Any) -> str:
    """A name for what an action does (splits bids on ships, supply fills, espresso
    deliveries from their plain forms); `state_json` is the position before the action."""
    kind = type(action).__name__
    if isinstance(action, Bid) and action.ship is not None:
        return "Bid ship"
    if isinstance(action, Fill) and action.colour >= 0:
        return "Fill supply"
    if isinstance(action, Deliver) and action.to is not None:
        cells = {tuple(c["at"]): c["cell"] for c in state_json["seats"][seat]["area"]["cells"]}
        if cells.get(action.to) == "espresso":
            return "Deliver espresso"
    return kind


def checked_game(options: dict, players: int, seed: int, *, every: int = 1) -> dict:
    """A random game with every check; returns counts of what it went through."""
    state = GAME.new_initial_state(players, seed, options)
    record = GameRecord("cafe", [f"bot{i}" for i in range(players)], seed, options=options)
    rng = random.Random(seed)
    seen: dict[str, int] = {}
    count = 0
    check_invariants(state)
    while not state.is_over():
        data = state.to_json()
        phase = data["phase"]
        if count % every == 0:
            check_codes(state)
        # round trips at random points, and always during the auction
        if phase == "auction" or rng.random() < 0.15:
            round_trip(state)
            seen["round trip " + phase] = seen.get("round trip " + phase, 0) + 1
            # a clone moves on alone
            twin = state.clone()
            assert twin.to_json() == data
            twin_seat = min(twin.current_seats())
            twin.apply(twin_seat, rng.choice(twin.legal_actions(twin_seat)))
            assert state.to_json() == data
        seat, action = step(state, rng)
        record.actions.append((seat, action.notation()))
        kind = action_kind(data, seat, action)
        seen[kind] = seen.get(kind, 0) + 1
        check_invariants(state)
        count += 1
    final = state.to_json()
    assert final["phase"] == "over" and final["round"] == 8
    for score in state.scores():
        assert score.total == sum(p for _, p in score.parts)
    round_trip(state)
    # the record replays (through the checked path and JSON) to the same final state
    restored = GameRecord.from_json(json.loads(json.dumps(record.to_json(final=state))))
    replayed = restored.replay()
    assert replayed.to_json() == final
    assert replayed.scores() == state.scores()
    assert replayed.winners() == state.winners()
    return seen


@pytest.mark.parametrize(("options", "players"), COMBOS)
def test_random_variant_games_keep_the_invariants(options: dict, players: int) -> None:
    seen: dict[str, int] = {}
    for seed in (7 * players, 7 * players + 1):
        for kind, n in checked_game(options, players, seed).items():
            seen[kind] = seen.get(kind, 0) + n
    if options["variant"] == "advanced":
        assert seen.get("Bid", 0) + seen.get("Bid ship", 0) > 0
        assert seen.get("Pass", 0) >= 8 * players
        assert seen.get("round trip auction", 0) > 0
    else:
        assert not {"Bid", "Bid ship", "Pass", "BidDone"} & set(seen)


@pytest.mark.slow
@pytest.mark.parametrize(("options", "players"), COMBOS)
def test_random_variant_games_keep_the_invariants_more_seeds(options: dict, players: int) -> None:
    for seed in range(1000, 1012):
        checked_game(options, players, seed, every=1)


def test_random_games_reach_the_variant_features() -> None:
    """The suites above mean little if random games never use the new rules."""
    seen: dict[str, int] = {}
    everything = {"variant": "advanced", "espresso": True, "promos": list(PROMO_IDS)}
    games = [(everything, 2 + seed % 3, seed) for seed in range(12)]
    games += [({"espresso": True}, 1 + seed % 4, 500 + seed) for seed in range(8)]
    for options, players, seed in games:
        state = GAME.new_initial_state(players, seed, options)
        rng = random.Random(seed)
        while not state.is_over():
            data = state.to_json()
            seat, action = step(state, rng)
            kind = action_kind(data, seat, action)
            seen[kind] = seen.get(kind, 0) + 1
    for kind in ("Bid", "Bid ship", "BidDone", "Pass", "Fill supply", "Deliver espresso"):
        assert seen.get(kind, 0) > 0, kind
