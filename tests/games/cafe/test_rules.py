"""Café rules, one by one, as stated in shared/rules/cafe.md (including its Rulings)."""

from __future__ import annotations

import dataclasses

import pytest

from coffeetable.core.errors import (
    DataError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
from coffeetable.games.cafe.actions import End, Place, Take, parse_action
from coffeetable.games.cafe.deck import COMPANIES, default_deck
from tests.games.cafe.conftest import (
    GAME,
    cubes_at,
    legal,
    load,
    play,
    position,
    seat_ap,
    seat_json,
    seat_stage,
    shop,
    shop_cubes,
    supply,
    warehouse,
)

DECK = default_deck()
PLAN_IDS = {c.id for c in DECK.of_kind("plan")}
STAR_IDS = {c.id for c in DECK.of_kind("plan") if c.star}
CUP_CARDS = sorted(c.id for c in DECK.of_kind("plan") if c.has_cup and not c.star)
FREE_CARDS = sorted(c.id for c in DECK.of_kind("plan") if not c.has_cup and not c.star)
DECK_SIZE = {1: 24, 2: 32, 3: 40, 4: 48}


def quick_step(state, seat: int):
    """The first take (or placement); 'end' in the actions stage."""
    actions = state.legal_actions(seat)
    for action in actions:
        if isinstance(action, Take | Place):
            return action
    assert End() in actions
    return End()


def draft_position(grid: str, display: list[str], *, store="YBGR", seats: int = 1) -> dict:
    others = [seat_json(grid, stage="wait") for _ in range(seats - 1)]
    return position(
        seat_json(grid, stage="wait", warehouse=store),
        *others,
        phase="draft",
        display=display,
        draft_order=list(range(seats)),
    )


PLAIN = """
Y  B  d
c  r  .
"""

# ==== set-up ================================================================================


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_deck_size_by_player_count(players: int) -> None:
    state = GAME.new_initial_state(players, seed=17)
    data = state.to_json()
    in_play = data["deck"] + data["display"]
    assert len(in_play) == DECK_SIZE[players]
    assert len(data["removed"]) == 48 - DECK_SIZE[players]
    assert set(in_play) | set(data["removed"]) == PLAN_IDS
    assert not set(in_play) & set(data["removed"])
    if players < 4:  # the star cards are removed with fewer than 4 players
        assert set(data["removed"]) >= STAR_IDS
        assert not STAR_IDS & set(in_play)
    else:
        assert set(in_play) >= STAR_IDS


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_seats(players: int) -> None:
    data = GAME.new_initial_state(players, seed=5).to_json()
    assert data["supply"] == {"Y": 35, "B": 35, "G": 35, "R": 35}
    assert data["round"] == 1 and data["phase"] == "draft"
    companies = [s["company"] for s in data["seats"]]
    assert len(set(companies)) == players and set(companies) <= set(COMPANIES)
    for seat in data["seats"]:
        assert seat["warehouse"] == {"Y": 1, "B": 1, "G": 1, "R": 1}
        start = DECK.start_card(seat["company"])
        assert seat["area"]["cards"] == [{"card": start.id, "at": [0, 0], "rot": 0}]
        # the action marker starts on 1: the start card shows exactly one cup
        assert [c["cell"] for c in seat["area"]["cells"]].count("cup") == 1
        assert seat["hand"] is None


def test_setup_random_master_and_companies() -> None:
    masters = {GAME.new_initial_state(4, seed).to_json()["master"] for seed in range(40)}
    assert masters == {0, 1, 2, 3}
    firsts = {
        GAME.new_initial_state(4, seed).to_json()["seats"][0]["company"] for seed in range(40)
    }
    assert firsts == set(COMPANIES)


def test_setup_is_deterministic_in_the_seed() -> None:
    assert GAME.new_initial_state(3, 8).to_json() == GAME.new_initial_state(3, 8).to_json()
    assert GAME.new_initial_state(3, 8).to_json() != GAME.new_initial_state(3, 9).to_json()


@pytest.mark.parametrize("players", [0, 5, -1])
def test_setup_player_count_checked(players: int) -> None:
    with pytest.raises(DataError, match="1 to 4"):
        GAME.new_initial_state(players, 1)


@pytest.mark.parametrize("seed", [True, "7", 1.5])
def test_setup_seed_must_be_an_integer(seed) -> None:
    with pytest.raises(DataError, match="seed"):
        GAME.new_initial_state(2, seed)


def test_setup_unknown_option() -> None:
    with pytest.raises(DataError, match="unknown Café option"):
        GAME.new_initial_state(2, 1, {"advanced": True})


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_deck_runs_out_exactly_after_round_8(players: int) -> None:
    state = GAME.new_initial_state(players, seed=players * 31)
    seen_rounds = []
    while not state.is_over():
        data = state.to_json()
        if data["phase"] == "draft":
            assert len(data["display"]) == 3  # every pick is from 3 cards
            if data["round"] not in seen_rounds:
                seen_rounds.append(data["round"])
                # each round uses 3 + (players - 1) cards
                used = (data["round"] - 1) * (players + 2)
                assert len(data["deck"]) + len(data["display"]) == DECK_SIZE[players] - used
        seat = min(state.current_seats())
        state.apply(seat, quick_step(state, seat))
    data = state.to_json()
    assert seen_rounds == list(range(1, 9))
    assert data["round"] == 8 and data["phase"] == "over"
    assert data["deck"] == [] and data["display"] == []
    placed = [c["card"] for s in data["seats"] for c in s["area"]["cards"][1:]]
    assert sorted(placed + data["discard"]) == sorted(PLAN_IDS - set(data["removed"]))
    assert len(placed) + len(data["discard"]) == DECK_SIZE[players]
    assert len(data["discard"]) >= 2 * 8


# ==== draft =================================================================================


@pytest.mark.parametrize("players", [2, 3, 4])
def test_draft_order_left_of_master_first_master_last(players: int) -> None:
    state = GAME.new_initial_state(players, seed=3)
    data = state.to_json()
    master = data["master"]
    order = [(master + i) % players for i in range(1, players + 1)]
    assert data["draft_order"] == order
    for i, seat in enumerate(order):
        data = state.to_json()
        assert state.current_seats() == frozenset({seat})  # Ruling D2: one pick at a time
        for other in range(players):
            if other != seat:
                assert state.legal_actions(other) == []
                with pytest.raises(NotYourTurnError):
                    state.apply(other, state.legal_actions(seat)[0])
        assert len(data["display"]) == 3
        take = state.legal_actions(seat)[0]
        state.apply(seat, take)
        after = state.to_json()
        rest = [c for c in data["display"] if c != take.card]
        if i < players - 1:  # refilled from the top of the deck, in view of the next picker
            assert after["display"] == [*rest, data["deck"][0]]
            assert after["deck"] == data["deck"][1:]
        else:  # the master took last; the other two are discarded
            assert after["phase"] == "turns"
            assert after["display"] == []
            assert after["discard"] == rest
            assert after["deck"] == data["deck"]
        assert after["seats"][seat]["hand"] == take.card


def test_ruling_d2_the_draft_is_sequential_and_public() -> None:
    state = GAME.new_initial_state(4, seed=6)
    first = min(state.current_seats())
    take = state.legal_actions(first)[0]
    state.apply(first, take)
    data = state.to_json()
    # before the next seat picks, the first pick is on record and the display is refilled
    assert data["seats"][first]["hand"] == take.card
    assert take.card not in data["display"] and len(data["display"]) == 3
    assert state.current_seats() == frozenset({(first + 1) % 4})
    assert all(
        Take(take.card, pay) not in state.legal_actions((first + 1) % 4) for pay in range(-1, 4)
    )


def test_solo_draft_reveal_3_take_1_discard_2() -> None:
    state = GAME.new_initial_state(1, seed=12)
    data = state.to_json()
    assert data["draft_order"] == [0] and data["master"] == 0
    take = next(a for a in state.legal_actions(0) if isinstance(a, Take))
    state.apply(0, take)
    after = state.to_json()
    assert after["discard"] == [c for c in data["display"] if c != take.card]
    assert after["seats"][0]["stage"] == "place"
    assert len(after["deck"]) == len(data["deck"]) == 21


def test_cup_card_costs_a_warehouse_cube() -> None:
    cup, free = CUP_CARDS[0], FREE_CARDS[0]
    state = GAME.state_from_json(draft_position(PLAIN, [cup, free, CUP_CARDS[1]], store="YGG"))
    moves = legal(state)
    assert {f"take {cup} pay Y", f"take {cup} pay G"} <= moves
    assert f"take {cup} pay B" not in moves and f"take {cup}" not in moves
    assert f"take {free}" in moves and f"take {free} pay Y" not in moves
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="shows a cup"):
        play(state, f"take {cup}")
    with pytest.raises(IllegalActionError, match="no B cube"):
        play(state, f"take {cup} pay B")
    with pytest.raises(IllegalActionError, match="free for you"):
        play(state, f"take {free} pay Y")
    assert state.to_json() == before
    play(state, f"take {cup} pay G")
    assert warehouse(state) == {"Y": 1, "B": 0, "G": 1, "R": 0}
    assert supply(state) == {"Y": 35, "B": 35, "G": 35, "R": 35}  # Ruling S1


SHIPS_2 = """
Y  s  c
s  r  d
"""
SHIPS_1 = """
Y  s  c
.  r  d
"""


def test_two_visible_ships_make_cup_cards_free() -> None:
    cup = CUP_CARDS[0]
    state = GAME.state_from_json(draft_position(SHIPS_2, [cup, CUP_CARDS[1], CUP_CARDS[2]]))
    assert f"take {cup}" in legal(state)
    assert not any("pay" in m for m in legal(state))
    play(state, f"take {cup}")
    assert warehouse(state) == {"Y": 1, "B": 1, "G": 1, "R": 1}

    one_ship = GAME.state_from_json(draft_position(SHIPS_1, [cup, CUP_CARDS[1], CUP_CARDS[2]]))
    assert f"take {cup}" not in legal(one_ship)
    assert f"take {cup} pay Y" in legal(one_ship)


def test_forced_discard_when_you_can_neither_pay_nor_take_free() -> None:
    cups = CUP_CARDS[:3]
    state = GAME.state_from_json(draft_position(SHIPS_1, cups, store=""))
    assert legal(state) == {f"take {c} discard" for c in cups}
    with pytest.raises(IllegalActionError):
        play(state, f"take {cups[0]}")
    play(state, f"take {cups[1]} discard")
    data = state.to_json()
    assert cups[1] in data["discard"]
    seat = data["seats"][0]
    assert seat["hand"] is None and seat["stage"] == "act"  # acts with the area it has
    assert seat["ap"] == 1
    assert len(seat["area"]["cells"]) == 6  # nothing placed


def test_ruling_d1_a_player_who_can_pay_may_not_discard() -> None:
    cups = CUP_CARDS[:3]
    state = GAME.state_from_json(draft_position(SHIPS_1, cups, store="R"))
    assert not any("discard" in m for m in legal(state))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="D1"):
        play(state, f"take {cups[0]} discard")
    assert state.to_json() == before


def test_no_discard_when_a_free_card_is_on_offer() -> None:
    display = [CUP_CARDS[0], FREE_CARDS[0], CUP_CARDS[1]]
    state = GAME.state_from_json(draft_position(SHIPS_1, display, store=""))
    assert legal(state) == {f"take {FREE_CARDS[0]}"}


def test_no_discard_with_two_ships_and_an_empty_warehouse() -> None:
    cups = CUP_CARDS[:3]
    state = GAME.state_from_json(draft_position(SHIPS_2, cups, store=""))
    assert legal(state) == {f"take {c}" for c in cups}


def test_take_a_card_not_on_offer() -> None:
    state = GAME.state_from_json(draft_position(PLAIN, CUP_CARDS[:3]))
    with pytest.raises(IllegalActionError, match="not on offer"):
        play(state, f"take {FREE_CARDS[0]}")


# ==== placement and action points ===========================================================


def test_ap_is_visible_cups_capped_at_8() -> None:
    grid = """
    c  c  c  c  c
    c  c  c  c  c
    Y  d  r  .  .
    """
    state = GAME.state_from_json(position(seat_json(grid, stage="place", hand="P02"), deck=[]))
    play(state, "place 2,2 rot0")  # covers (2,2)-(2,4): no cups; P02 has none either
    assert seat_ap(state) == 8  # 10 cups visible


@pytest.mark.parametrize(
    ("move", "ap"),
    [
        ("place 1,-1 rot0", 1),  # covers the cup at (1,0); P19 brings one
        ("place 1,1 rot0", 2),  # keeps the start cup and adds P19's
    ],
)
def test_ap_counts_cups_after_placement(move: str, ap: int) -> None:
    state = GAME.state_from_json(position(seat_json(PLAIN, stage="place", hand="P19"), deck=[]))
    play(state, move)
    cells = state.to_json()["seats"][0]["area"]["cells"]
    assert seat_ap(state) == sum(1 for c in cells if c["cell"] == "cup") == ap


def test_place_before_acting() -> None:
    state = GAME.state_from_json(position(seat_json(PLAIN, stage="place", hand="P19"), deck=[]))
    assert all(isinstance(a, Place) for a in state.legal_actions(0))
    with pytest.raises(IllegalActionError, match="first place"):
        play(state, "produce 0,0")


# ==== produce ===============================================================================


def test_produce_skips_full_cells() -> None:
    state = load(
        """
        Y:Y  B  c
        d    r  c
        """
    )
    play(state, "produce 0,0")
    assert cubes_at(state) == {(0, 0): "Y", (0, 1): "B"}
    assert supply(state) == {"Y": 34, "B": 34, "G": 35, "R": 35}
    assert seat_ap(state) == 1


def test_produce_needs_an_empty_cell() -> None:
    state = load(
        """
        Y:Y  B:B  c
        d    r    c
        """
    )
    assert not any(m.startswith("produce") for m in legal(state))
    with pytest.raises(IllegalActionError, match="no empty bean cell"):
        play(state, "produce 0,1")
    with pytest.raises(IllegalActionError, match="not a bean cell"):
        play(state, "produce 1,0")
    with pytest.raises(IllegalActionError, match="no visible cell"):
        play(state, "produce 5,5")
    # clearing is free and makes room again
    play(state, "clear 0,0")
    assert seat_ap(state) == 2
    play(state, "produce 0,1")
    assert cubes_at(state) == {(0, 0): "Y", (0, 1): "B"}
    assert seat_ap(state) == 1


def test_produce_is_per_group() -> None:
    state = load(
        """
        Y  d  G
        c  r  c
        """
    )
    assert {m for m in legal(state) if m.startswith("produce")} == {"produce 0,0", "produce 0,2"}
    play(state, "produce 0,2")
    assert cubes_at(state) == {(0, 2): "G"}


# ==== dry and roast =========================================================================


def test_dry_cell_holds_one_colour_and_never_receives_more() -> None:
    state = load(
        """
        Y:Y  B:B  d:B  c
        .    .    r    c
        """
    )
    dries = {m for m in legal(state) if m.startswith("dry")}
    assert dries == set()
    for move in ("dry 0,2 B", "dry 0,2 Y"):
        with pytest.raises(IllegalActionError, match="already holds cubes"):
            play(state, move)
    with pytest.raises(IllegalActionError, match="not a dry cell"):
        play(state, "dry 1,2 Y")
    play(state, "clear 0,2")  # free; now the cell may be used again
    play(state, "dry 0,2 Y")
    assert cubes_at(state) == {(0, 1): "B", (0, 2): "Y"}


def test_dry_takes_all_bean_cubes_of_the_colour_or_a_chosen_subset() -> None:
    grid = """
    Y:Y  Y:Y  d  c
    .    .    .  c
    Y:Y  .    d  c
    """
    state = load(grid)
    play(state, "dry 0,2 Y")
    assert cubes_at(state) == {(0, 2): "YYY"}
    state = load(grid)
    play(state, "dry 0,2 Y from 2,0", "dry 0,2 Y from 0,0")
    assert cubes_at(state) == {(0, 1): "Y", (0, 2): "YY"}
    assert seat_ap(state) == 2  # adding cells to the same dry step costs nothing more


def test_dry_two_colours_in_one_group_is_one_action() -> None:
    state = load(
        """
        Y:Y  B:B  d  c
        .    .    d  c
        """
    )
    play(state, "dry 0,2 Y", "dry 1,2 B")
    assert seat_ap(state) == 1
    assert cubes_at(state) == {(0, 2): "Y", (1, 2): "B"}


def test_second_dry_of_the_same_colour_costs_a_new_action_point() -> None:
    state = load(
        """
        Y:Y  Y:Y  d  c
        .    .    d  c
        .    .    .  c
        """
    )
    play(state, "dry 0,2 Y from 0,0")
    assert seat_ap(state) == 2
    play(state, "dry 1,2 Y from 0,1")
    assert seat_ap(state) == 1


def test_dry_in_another_group_costs_a_new_action_point() -> None:
    state = load(
        """
        Y:Y  B:B  d  c
        .    d    .  c
        .    .    .  c
        """
    )
    play(state, "dry 0,2 Y", "dry 1,1 B")
    assert seat_ap(state) == 1


def test_another_action_in_between_ends_the_dry_action() -> None:
    state = load(
        """
        Y:Y  B:B  d  c
        G    .    d  c
        .    .    c  c
        """
    )
    play(state, "dry 0,2 Y", "produce 1,0", "dry 1,2 B")
    assert seat_ap(state) == 1
    # the produce refilled the yellow cell too: (0,0) and (1,0) are one bean group
    assert cubes_at(state) == {(0, 0): "Y", (0, 2): "Y", (1, 2): "B", (1, 0): "G"}


def test_roast_follows_the_dry_rules() -> None:
    state = load(
        """
        d:YY  d:B  r    c
        B:B   .    r:G  c
        """
    )
    moves = {m for m in legal(state) if m.startswith("roast")}
    assert moves == {"roast 0,2 Y", "roast 0,2 B"}  # only from dry cells, only into empty
    with pytest.raises(IllegalActionError, match="already holds cubes"):
        play(state, "roast 1,2 Y")
    play(state, "roast 0,2 B")
    assert cubes_at(state) == {(0, 0): "YY", (0, 2): "B", (1, 0): "B", (1, 2): "G"}


def test_open_action_can_be_finished_at_zero_action_points() -> None:
    state = load(
        """
        Y:Y  B:B  d  c
        .    .    d  .
        """
    )
    assert seat_ap(state) == 1
    play(state, "dry 0,2 Y")
    assert seat_ap(state) == 0
    assert seat_stage(state) == "act"  # the dry group still has an empty cell and brown
    assert "dry 1,2 B" in legal(state)
    assert not any(m.startswith(("produce", "roast", "deliver")) for m in legal(state))
    play(state, "dry 1,2 B")
    # nothing more is free: the turn (and, solo, the round) is over
    assert state.to_json()["round"] == 2


# ==== deliver ===============================================================================


def test_deliver_only_to_available_shops_that_need_the_colour() -> None:
    state = load(
        """
        r:Y  r:G  r:B  c
        0    1    1    c
        """,
        [shop("YB", 2, cubes="Y"), shop("BB", 3, cells=[[1, 1], [1, 2]])],
    )
    moves = {m for m in legal(state) if m.startswith("deliver")}
    assert moves == {
        "deliver 0,0 > wh",  # shop 0 already has its yellow
        "deliver 0,1 > wh",  # no shop needs green
        "deliver 0,2 > wh",
        "deliver 0,2 > 1,0",
        "deliver 0,2 > 1,1",
    }
    with pytest.raises(IllegalActionError, match="needs no more Y"):
        play(state, "deliver 0,0 > 1,0")
    with pytest.raises(IllegalActionError, match="not a shop"):
        play(state, "deliver 0,0 > 0,1")
    with pytest.raises(IllegalActionError, match="not a roast cell"):
        play(state, "deliver 1,3 > wh")


def test_warehouse_cubes_never_go_to_shops() -> None:
    state = load(
        """
        Y  r  c
        0  d  c
        """,
        [shop("YY", 2)],
        warehouse={"Y": 9, "B": 0, "G": 0, "R": 0},
    )
    assert not any(m.startswith("deliver") for m in legal(state))
    with pytest.raises(NotationError):
        parse_action("deliver wh > 1,0")


def test_delivered_warehouse_cubes_leave_the_cells() -> None:
    state = load("r:GG c\n0 c", [shop("R", 1)])
    play(state, "deliver 0,0 > wh", "deliver 0,0 > wh")
    assert warehouse(state) == {"Y": 1, "B": 1, "G": 3, "R": 1}
    assert supply(state)["G"] == 35  # Ruling S1: warehouse cubes are not on cells
    assert shop_cubes(state) == [""]


def test_deliver_cubes_stay_on_shops_and_complete_them() -> None:
    state = load("r:R  r:G  c\n0  .  c", [shop("GR", 2)])
    assert state.scores()[0].parts[0] == ("shops", 0)
    play(state, "deliver 0,0 > 1,0", "deliver 0,1 > 1,0")
    assert shop_cubes(state) == ["GR"]
    assert state.scores()[0].parts[0] == ("shops", 2)
    assert supply(state) == {"Y": 35, "B": 35, "G": 34, "R": 34}


def test_two_roast_cells_in_one_delivery() -> None:
    state = load("r:R  r:G  c\n0  .  c", [shop("RG", 2)])
    play(state, "deliver 0,0 > 1,0", "deliver 0,1 > wh")
    assert seat_ap(state) == 1


def test_a_started_delivery_blocks_everything_else() -> None:
    state = load("r:YY  Y  c\n0  d  c", [shop("Y", 1)])
    play(state, "deliver 0,0 > 1,0")
    assert legal(state) == {"deliver 0,0 > wh"}
    for move in ("end", "clear 0,0", "produce 0,1"):
        with pytest.raises(IllegalActionError, match="first deliver"):
            play(state, move)


# ==== clearing ==============================================================================


def test_clearing_is_free_and_returns_cubes() -> None:
    state = load(
        """
        Y:Y  d:BB  r:GGG  c
        0    .     .      c
        """,
        [shop("R", 1)],
    )
    assert {m for m in legal(state) if m.startswith("clear")} == {
        "clear 0,0",
        "clear 0,1",
        "clear 0,2",
    }
    play(state, "clear 0,0", "clear 0,1", "clear 0,2")
    assert cubes_at(state) == {}
    assert supply(state) == {"Y": 35, "B": 35, "G": 35, "R": 35}
    assert seat_ap(state) == 2
    with pytest.raises(IllegalActionError, match="holds no cubes"):
        play(state, "clear 0,0")
    with pytest.raises(IllegalActionError, match="only bean, dry and roast"):
        play(state, "clear 1,0")


# ==== finite supply =========================================================================

HOARD = "r:" + "Y" * 34  # 34 yellow cubes on one roast cell leave 1 in the supply


def test_short_supply_makes_the_player_choose_cells() -> None:
    state = load(
        f"""
        Y  Y  B  c
        {HOARD}  .  .  c
        """
    )
    assert supply(state)["Y"] == 1
    play(state, "produce 0,0")
    assert legal(state) == {"fill 0,0", "fill 0,1"}
    assert cubes_at(state)[(0, 2)] == "B"  # brown is plentiful: filled at once
    assert supply(state)["Y"] == 0  # the scarce cube is in the player's hand
    with pytest.raises(IllegalActionError, match="fill"):
        play(state, "end")
    # the pending choice survives a trip through the position format
    data = state.to_json()
    assert data["seats"][0]["pending"]["fill"] == "Y"
    restored = GAME.state_from_json(data)
    assert restored.to_json() == data
    assert legal(restored) == {"fill 0,0", "fill 0,1"}
    play(state, "fill 0,1")
    got = cubes_at(state)
    assert got[(0, 1)] == "Y" and (0, 0) not in got
    assert seat_ap(state) == 1
    assert "produce 0,0" not in legal(state)  # no yellow left at all


def test_empty_supply_colour_cannot_be_produced() -> None:
    state = load(f"Y  c\n{HOARD}Y  c")
    assert supply(state)["Y"] == 0
    assert not any(m.startswith("produce") for m in legal(state))


# ==== turns, rounds, master =================================================================


def test_turn_ends_at_zero_action_points() -> None:
    mine = seat_json("Y  c\nd  r", ap=1)
    other = seat_json("Y  c\nd  r", ap=1)
    state = GAME.state_from_json(position(mine, other))
    play(state, "produce 0,0", seat=0)
    assert seat_stage(state, 0) == "done"
    assert state.current_seats() == frozenset({1})
    with pytest.raises(NotYourTurnError):
        play(state, "end", seat=0)


def test_ending_early_loses_the_remaining_points() -> None:
    state = GAME.state_from_json(position(seat_json(PLAIN, ap=1), seat_json(PLAIN)))
    play(state, "end", seat=0)
    assert seat_stage(state, 0) == "done"
    play(state, "end", seat=1)
    data = state.to_json()
    assert data["round"] == 2 and data["phase"] == "draft"
    assert all(s["ap"] == 0 for s in data["seats"])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_master_passes_left_each_round(players: int) -> None:
    state = GAME.new_initial_state(players, seed=21)
    masters = [state.to_json()["master"]]
    rounds = [1]
    while not state.is_over():
        seat = min(state.current_seats())
        state.apply(seat, quick_step(state, seat))
        data = state.to_json()
        if data["round"] != rounds[-1]:
            rounds.append(data["round"])
            masters.append(data["master"])
            assert data["draft_order"][0] == (data["master"] + 1) % players
            assert data["draft_order"][-1] == data["master"]
    assert rounds == list(range(1, 9))
    assert masters == [(masters[0] + r) % players for r in range(8)]


def test_game_over_after_round_8() -> None:
    state = GAME.state_from_json(position(seat_json(PLAIN), seat_json(PLAIN), round=8, deck=[]))
    play(state, "end", seat=1)
    assert not state.is_over()
    play(state, "end", seat=0)
    assert state.is_over()
    assert state.current_seats() == frozenset()
    assert state.legal_actions(0) == []
    with pytest.raises(GameOverError):
        play(state, "end", seat=0)


# ==== scoring and ties ======================================================================


def over(*seats: dict) -> object:
    return GAME.state_from_json(position(*seats, phase="over", round=8))


def done(grid: str, store: str | dict = "YBGR", shops=()) -> dict:
    return seat_json(grid, list(shops), stage="done", warehouse=store)


def test_warehouse_scoring_counts_two_lowest_colours() -> None:
    state = over(done("c", {"Y": 3, "B": 3, "G": 3, "R": 3}), done("c", {"Y": 5, "B": 1, "G": 9}))
    assert state.scores()[0].total == 2 * 3 + 3  # only two colours score, even when tied
    assert state.scores()[1].total == 0 + 1  # red 0 is lowest, brown 1 second
    assert state.winners() == [0]


def test_tie_broken_by_roast_cubes_then_dry_cubes() -> None:
    state = over(done("c  r:Y  d:BB"), done("c  r:YY  d"))
    assert state.scores()[0].total == state.scores()[1].total
    assert state.scores()[0].tiebreak == (1, 2)
    assert state.scores()[1].tiebreak == (2, 0)
    assert state.winners() == [1]

    state = over(done("c  r:Y  d:BB"), done("c  r:G  d:B"))
    assert state.winners() == [0]


def test_tie_that_stands_is_shared() -> None:
    state = over(done("c  r:Y  d:B"), done("c  r:G  d:R"), done("c  r  d", "YYBBGGR"))
    assert [s.total for s in state.scores()] == [3, 3, 4]
    state = over(done("c  r:Y  d:B"), done("c  r:G  d:R"))
    assert state.winners() == [0, 1]


def test_tie_break_only_between_equal_totals() -> None:
    state = over(done("c  r  d", "YYBBGGRR"), done("c  r:YYYY  d:BBBB"))
    assert state.winners() == [0]


@pytest.mark.parametrize(
    ("total", "label"),
    [
        (0, "Bad"),
        (14, "Bad"),
        (15, "Average"),
        (22, "Average"),
        (23, "Good"),
        (29, "Good"),
        (30, "Very good"),
        (35, "Very good"),
        (36, "Incredible"),
        (40, "Incredible"),
        (41, "Seriously?"),
        (55, "Seriously?"),
    ],
)
def test_solo_rating(total: int, label: str) -> None:
    store = {"Y": 0, "B": total, "G": total + 1, "R": total + 1}
    score = over(done("c", store)).scores()[0]
    assert score.total == total
    assert score.label == label


def test_no_rating_with_several_players() -> None:
    state = over(done("c"), done("c"))
    assert all(s.label is None for s in state.scores())


# ==== rulings ===============================================================================


def test_ruling_a1_placement_and_actions_are_simultaneous() -> None:
    state = GAME.new_initial_state(3, seed=2)
    while state.to_json()["phase"] == "draft":
        seat = min(state.current_seats())
        state.apply(seat, quick_step(state, seat))
    assert state.current_seats() == frozenset({0, 1, 2})
    # the last seat may place and finish before the others have placed
    state.apply(2, quick_step(state, 2))
    play(state, "end", seat=2)
    assert state.current_seats() == frozenset({0, 1})
    assert seat_stage(state, 0) == "place"


def test_ruling_a1_supply_takes_apply_in_arrival_order() -> None:
    hoarder = seat_json(f"{HOARD}  c", stage="done")
    first = seat_json("Y  c\nd  c")
    second = seat_json("Y  c\nd  c")
    state = GAME.state_from_json(position(first, second, hoarder))
    assert supply(state)["Y"] == 1
    assert "produce 0,0" in legal(state, 0) and "produce 0,0" in legal(state, 1)
    play(state, "produce 0,0", seat=1)  # seat 1 asks first and gets the last yellow
    assert cubes_at(state, 1) == {(0, 0): "Y"}
    assert "produce 0,0" not in legal(state, 0)
    with pytest.raises(IllegalActionError):
        play(state, "produce 0,0", seat=0)


def test_ruling_s1_warehouse_cubes_do_not_deplete_the_supply() -> None:
    state = load("Y  c\nd  r", warehouse={"Y": 50, "B": 0, "G": 0, "R": 0})
    assert supply(state) == {"Y": 35, "B": 35, "G": 35, "R": 35}
    assert warehouse(state)["Y"] == 50


# ==== position format =======================================================================


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(supply={"Y": 1}), "supply"),
        (lambda d: d.update(display=["P99"]), "unknown card"),
        (lambda d: d.update(round=9), "round"),
        (lambda d: d.update(phase="setup"), "phase"),
        (lambda d: d.update(master=3), "master"),
        (lambda d: d.update(colour="blue"), "unknown field"),
        (lambda d: d["seats"][0].update(ap=9), "ap"),
        (lambda d: d["seats"][0].update(stage="place"), "hand"),
        (
            lambda d: d["seats"][0]["area"]["cells"].append({"at": [0, 0], "cell": "cup"}),
            "two cells",
        ),
        (lambda d: d["seats"][0]["area"]["cells"].append({"at": [5, 5], "cell": "tea"}), "tea"),
        (
            lambda d: d["seats"][0]["area"]["cells"].append(
                {"at": [5, 5], "cell": "bean-Y", "cubes": "B"}
            ),
            "own colour",
        ),
        (
            lambda d: d["seats"][0]["area"]["cells"].append(
                {"at": [5, 5], "cell": "dry", "cubes": "YB"}
            ),
            "one colour",
        ),
        (
            lambda d: d["seats"][0]["area"]["cells"].append(
                {"at": [5, 5], "cell": "roast", "cubes": "Y" * 36}
            ),
            "more than 35",
        ),
        (lambda d: d["seats"][0]["area"]["cells"].append({"at": [99, 0], "cell": "dry"}), "grid"),
        (lambda d: d.update(seats=[]), "1 to 4"),
    ],
)
def test_bad_positions_are_rejected(change, words: str) -> None:
    data = position(seat_json(PLAIN))
    GAME.state_from_json(data)  # the unchanged position is fine
    change(data)
    with pytest.raises(DataError, match=words):
        GAME.state_from_json(data)


def test_position_without_a_visible_cup_is_rejected() -> None:
    with pytest.raises(DataError, match="cup"):
        load("Y  d  r")


def test_position_supply_may_be_given_when_it_matches() -> None:
    data = position(seat_json("Y:Y  c\nd:BB  r", ap=1), supply={"Y": 34, "B": 33, "G": 35, "R": 35})
    assert supply(GAME.state_from_json(data)) == {"Y": 34, "B": 33, "G": 35, "R": 35}


def test_position_without_deck_deals_exactly_the_remaining_draws() -> None:
    # round 5 draft, 3 players, two still to pick: 1 refill now + 3 rounds of 5 cards
    grid = "Y  c\nd  r"
    data = position(
        *(seat_json(grid, stage="wait") for _ in range(3)),
        phase="draft",
        round=5,
        master=2,
        display=["P01", "P02", "P05"],
        draft_order=[1, 2],
    )
    state = GAME.state_from_json(data)
    dealt = state.to_json()
    assert len(dealt["deck"]) == 1 + 3 * 5
    assert not STAR_IDS & set(dealt["deck"])
    assert set(dealt["deck"]) | set(dealt["removed"]) | {"P01", "P02", "P05"} == PLAN_IDS
    while not state.is_over():
        seat = min(state.current_seats())
        state.apply(seat, quick_step(state, seat))
    assert state.to_json()["deck"] == []


# ==== notation ==============================================================================


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("take P12", ("Take", "P12", -1, False)),
        ("take P12 pay r", ("Take", "P12", 3, False)),
        ("take P12 discard", ("Take", "P12", -1, True)),
        ("place -1,2 rot270", ("Place", -1, 2, 3)),
        ("place 0,0 rot0", ("Place", 0, 0, 0)),
        ("produce 0,1", ("Produce", (0, 1))),
        ("fill -3,4", ("Fill", (-3, 4), -1)),
        ("fill -3,4 G", ("Fill", (-3, 4), 2)),
        ("dry 0,2 Y", ("Dry", (0, 2), 0, None)),
        ("dry 0,2 B from 0,0", ("Dry", (0, 2), 1, (0, 0))),
        ("roast 1,2 G from 0,2", ("Roast", (1, 2), 2, (0, 2))),
        ("deliver 1,2 > 1,0", ("Deliver", (1, 2), (1, 0))),
        ("deliver 1,2 > wh", ("Deliver", (1, 2), None)),
        ("clear 0,0", ("Clear", (0, 0))),
        ("  END  ", ("End",)),
    ],
)
def test_notation_reads_the_documented_forms(text: str, fields: tuple) -> None:
    action = parse_action(text)
    assert type(action).__name__ == fields[0]
    assert tuple(getattr(action, f.name) for f in dataclasses.fields(action)) == fields[1:]
    assert parse_action(action.notation()) == action


@pytest.mark.parametrize(
    "text",
    [
        "",
        "brew 0,0",
        "take",
        "take P12 pay X",
        "take P12 pay",
        "place 0,0",
        "place 0,0 rot45",
        "produce",
        "produce 0;1",
        "produce 40,0",
        "dry 0,2",
        "dry 0,2 Q",
        "dry 0,2 Y from",
        "deliver 1,2 1,0",
        "deliver wh > 1,0",
        "end now",
    ],
)
def test_bad_notation(text: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_action(text)
    assert str(info.value)


def test_action_codes() -> None:
    with pytest.raises(NotationError):
        GAME.decode_action(-1)
    with pytest.raises(NotationError):
        GAME.encode_action(Take("NOPE"))
    codes = {GAME.encode_action(parse_action(t)) for t in ("end", "take P01", "take S-BR")}
    assert len(codes) == 3
    assert GAME.decode_action(GAME.encode_action(End())) == End()
