"""The rulebook's worked examples (Portuguese edition, "Ativar Melhorias", p. 6-7) and the
upgrade rules they illustrate, played on hand-written positions.

Board (column letter, row number from the top):

    1  ice+     caramel*  steam      coffee+
    2  coffee   milk      ice        water*
    3  tea*     steam     milk       coffee
    4  milk+    ice       chocolate* steam+        (+ corner, * specialty)
"""

from __future__ import annotations

import pytest

from coffeetable.games.coffee_rush import Stage
from tests.games.coffee_rush.conftest import cup, hand, legal_texts, play, player, position, supply

ESPRESSO = [["Espresso"], [], [], []]


def nathan_and_ivan(**nathan: object) -> object:
    """3 players: Nathan (seat 0, blue) on c1 (steam) with Double Meeples and Double Corners;
    Ivan (seat 1, yellow) on the coffee corner d1; seat 2 far away on a4."""
    return position(
        [
            player(
                "c1",
                upgrades=["double-meeples", "double-corners"],
                counters=ESPRESSO,
                **nathan,  # type: ignore[arg-type]
            ),
            player("d1", counters=ESPRESSO),
            player("a4", counters=[["Ristretto"], [], [], []]),
        ]
    )


def test_double_meeples_and_double_corners_give_four_coffee() -> None:
    state = nathan_and_ivan()
    assert supply(state, "coffee") == 18
    play(state, "c1-d1")
    assert hand(state, "coffee") == 4
    assert supply(state, "coffee") == 14
    assert state.hand == [4, 0, 0, 0, 0, 0, 0, 0]
    # he may pass through Ivan's square but not end there
    assert legal_texts(state) == ["d1-c1", "d1-d2"]


def test_rulebook_example_continues_back_to_his_square_and_stops_with_a_step_unused() -> None:
    state = nathan_and_ivan()
    play(state, "c1-d1", "d1-c1")
    assert hand(state, "coffee") == 4
    assert hand(state, "steam") == 1  # his original square: one steam (no upgrade applies)
    assert supply(state, "steam") == 11
    assert state.meeples[0] == [2]  # back on c1
    assert state.steps_left() == (1, 0)
    # one step is still available, but he may stop now; a third step back onto Ivan's
    # square is not offered: it would end the move there (Ruling M1)
    assert legal_texts(state) == ["c1-b1", "c1-c2", "stop"]
    play(state, "stop")
    assert state.stage is Stage.POUR
    assert state.current == 0
    assert state.hand[:3] == [4, 0, 1]


def test_the_whole_example_as_one_turn_text() -> None:
    state = nathan_and_ivan()
    # serving empties his last cup, which ends the turn by itself; the written `end` is then
    # skipped (Ruling A1)
    play(state, "c1-d1-c1; pour 1:coffee+steam; serve 1 1 Espresso; end")
    assert [len(c) for c in state.completed] == [1, 0, 0]
    # the 3 unpoured coffee went back: 18 - 4 + 3 + 1 (the served cup's coffee) = 18
    assert supply(state, "coffee") == 18
    assert supply(state, "steam") == 12
    assert state.current == 1


def test_supply_shortage_gives_what_is_left() -> None:
    # 16 of the 18 coffee tokens are in seat 2's cups: only 2 are left for a x4 step
    state = position(
        [
            player("c1", upgrades=["double-meeples", "double-corners"], counters=ESPRESSO, rush=1),
            player("d1", counters=ESPRESSO),
            player("a4", cups=[["coffee"] * 8, ["coffee"] * 8, []]),
        ]
    )
    assert supply(state, "coffee") == 2
    play(state, "c1-d1")
    assert hand(state, "coffee") == 2
    assert supply(state, "coffee") == 0
    # the next visit finds the supply empty and takes nothing (a rush token pays the 4th
    # step that leaves the occupied corner again)
    play(state, "d1-c1", "c1-d1", "d1-d2")
    assert hand(state, "coffee") == 2
    assert supply(state, "coffee") == 0
    assert hand(state, "steam") == 1
    assert hand(state, "water") == 1
    assert state.rush[0] == 0


def test_supply_shortage_without_upgrades() -> None:
    state = position(
        [
            player("c2", counters=ESPRESSO),
            player("a1", cups=[["water"] * 12, [], []]),
            player("a4"),
        ]
    )
    assert supply(state, "water") == 0
    play(state, "c2-d2")
    assert hand(state, "water") == 0
    assert state.steps == 1


@pytest.mark.parametrize(
    ("upgrades", "square", "ingredient", "expected"),
    [
        ([], "b1", "caramel", 1),
        (["double-specialties"], "b1", "caramel", 2),  # caramel
        (["double-specialties"], "a3", "tea", 2),  # tea
        (["double-specialties"], "c4", "chocolate", 2),  # chocolate
        (["double-specialties"], "d2", "water", 2),  # water
        (["double-specialties"], "b2", "milk", 1),  # not a specialty
        (["double-specialties"], "a1", "ice", 1),  # a corner is not a specialty
        (["double-corners"], "a1", "ice", 2),
        (["double-corners"], "b1", "caramel", 1),
        (["double-meeples"], "b1", "caramel", 1),  # nobody on b1
    ],
)
def test_single_upgrades_on_empty_squares(
    upgrades: list[str], square: str, ingredient: str, expected: int
) -> None:
    # seat 0 stands next to the square: b1/a1 from a2... pick a start next to each square
    start = {"b1": "b2", "a3": "a2", "c4": "c3", "d2": "c2", "b2": "c2", "a1": "a2"}[square]
    state = position(
        [
            player(start, upgrades=upgrades, counters=ESPRESSO),
            player("d4", counters=ESPRESSO),
            player("d3"),
        ]
    )
    before = supply(state, ingredient)
    play(state, f"{start}-{square}")
    assert hand(state, ingredient) == expected
    assert supply(state, ingredient) == before - expected


def test_double_specialties_and_double_meeples_multiply() -> None:
    # the tea square a3 holds another meeple: 2 x 2 = 4 tea
    state = position(
        [
            player("a2", upgrades=["double-specialties", "double-meeples"], counters=ESPRESSO),
            player("a3", counters=ESPRESSO),
            player("d4"),
        ]
    )
    play(state, "a2-a3")
    assert hand(state, "tea") == 4
    assert supply(state, "tea") == 8
    play(state, "a3-a4")  # milk corner, no Double Corners: 1
    assert hand(state, "milk") == 1


def test_double_meeples_without_another_meeple_gives_one() -> None:
    state = position(
        [
            player("c1", upgrades=["double-meeples", "double-corners"], counters=ESPRESSO),
            player("a4", counters=ESPRESSO),
            player("b4"),
        ]
    )
    play(state, "c1-d1")
    assert hand(state, "coffee") == 2  # Double Corners only


def two_players(upgrades: list[str]) -> object:
    """2 players: seat 0 on c1 (steam) and d1 (coffee corner); seat 1 on a3 and b4."""
    return position(
        [
            player("c1", "d1", upgrades=upgrades, counters=ESPRESSO),
            player("a3", "b4", counters=ESPRESSO),
        ]
    )


@pytest.mark.parametrize(
    ("upgrades", "coffee"),
    [
        ([], 1),
        (["double-meeples"], 2),
        (["double-corners"], 2),
        (["double-meeples", "double-corners"], 4),
    ],
)
def test_two_players_double_meeples_counts_your_own_other_meeple(
    upgrades: list[str], coffee: int
) -> None:
    state = two_players(upgrades)
    play(state, "c1-d1")  # onto the own other meeple on the coffee corner
    assert hand(state, "coffee") == coffee
    assert supply(state, "coffee") == 18 - coffee
    # the own meeple blocks the end of the move like any other
    assert "stop" not in legal_texts(state)
    play(state, "d1-d2")  # water, no meeple there: Double Meeples does not apply
    assert hand(state, "water") == 1
    play(state, "stop")
    assert sorted(state.meeples[0]) == [3, 7]  # d1 (the other meeple) and d2


def test_two_players_double_specialties_with_own_meeple_on_a_specialty() -> None:
    state = position(
        [
            player(
                "c1",
                "b1",
                upgrades=["double-meeples", "double-specialties"],
                counters=ESPRESSO,
            ),
            player("a3", "b4", counters=ESPRESSO),
        ]
    )
    play(state, "c1-b1")  # caramel, a specialty, with the own other meeple: 4
    assert hand(state, "caramel") == 4
    assert supply(state, "caramel") == 8
    play(state, "b1-b2", "stop", "pour caramel 1")
    assert cup(state, 0, 1) == ["caramel"]
