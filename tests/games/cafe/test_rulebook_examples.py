"""The rulebook's worked examples (Russian rulebook, examples 1-8 and the scoring examples).

The pictures are not available, so each example is rebuilt as a position that matches the
text: which cubes move, how many action points it costs.
"""

from __future__ import annotations

import pytest

from coffeetable.core.errors import IllegalActionError
from coffeetable.games.cafe.deck import default_deck
from tests.games.cafe.conftest import (
    GAME,
    cubes_at,
    legal,
    load,
    play,
    position,
    seat_ap,
    seat_json,
    shop,
    shop_cubes,
    supply,
    warehouse,
)

# ==== Example 1: a sequence of placements covering 2, 3, 4, then 3 visible cells ==========

START = """
Y:Y R:R d:BB
c   r   0
"""
START_SHOPS = [shop("RG", 2, city="Lisbon", year=1868)]
START_CARD = {"card": "S-BR", "at": [0, 0], "rot": 0}


def footprint(row: int, col: int, rot: int) -> list[tuple[int, int]]:
    height, width = (2, 3) if rot in (0, 180) else (3, 2)
    return [(row + r, col + c) for r in range(height) for c in range(width)]


def turned(card_id: str, rot: int) -> list[list[str]]:
    """The card's cell tokens as they lie after turning it `rot` degrees clockwise."""
    cells = [
        ["shop" if cell.kind.name == "SHOP" else cell.token for cell in row]
        for row in default_deck().card(card_id).cells
    ]
    for _ in range(rot // 90):
        height, width = len(cells), len(cells[0])
        cells = [[cells[height - 1 - j][i] for j in range(height)] for i in range(width)]
    return cells


def visible(state, seat: int = 0) -> dict[tuple[int, int], str]:
    return {tuple(c["at"]): c["cell"] for c in state.to_json()["seats"][seat]["area"]["cells"]}


def layers(state, seat: int = 0) -> dict[tuple[int, int], int]:
    """How many cards lie at each grid position (from the area's placement list)."""
    out: dict[tuple[int, int], int] = {}
    for placed in state.to_json()["seats"][seat]["area"]["cards"]:
        for pos in footprint(*placed["at"], placed["rot"]):
            out[pos] = out.get(pos, 0) + 1
    return out


def with_hand(state, card_id: str):
    """The same area (through its position JSON), now with `card_id` to place."""
    data = state.to_json()
    data.update(display=[], draft_order=[], deck=[], removed=[], discard=[], phase="turns")
    del data["supply"]
    seat = data["seats"][0]
    seat.update(stage="place", hand=card_id, ap=0)
    seat.pop("open", None)
    return GAME.state_from_json(data)


def expected_legal_placements(state, card_id: str) -> set[str]:
    """Placement legality from the rules alone: cover 2-4 visible cells, keep a cup."""
    cells = visible(state)
    cups = sum(1 for kind in cells.values() if kind == "cup")
    card_has_cup = any("cup" in row for row in turned(card_id, 0))
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    out = set()
    for rot in (0, 90, 180, 270):
        for row in range(min(rows) - 3, max(rows) + 2):
            for col in range(min(cols) - 3, max(cols) + 2):
                covered = [p for p in footprint(row, col, rot) if p in cells]
                cups_covered = sum(1 for p in covered if cells[p] == "cup")
                if 2 <= len(covered) <= 4 and (card_has_cup or cups > cups_covered):
                    out.add(f"place {row},{col} rot{rot}")
    return out


SEQUENCE = [
    # card, placement, visible cells covered, raw card cells under the footprint
    ("P19", "place -1,1 rot0", 2, 2),
    ("P21", "place -1,-1 rot0", 3, 4),  # (0,1) already has a hidden cell under it
    ("P01", "place 0,1 rot90", 4, 7),  # 3 hidden cells do not count
    ("P12", "place -2,0 rot0", 3, 4),
]


def test_example_1_placement_sequence() -> None:
    state = GAME.state_from_json(
        position(
            seat_json(START, START_SHOPS, stage="place", hand="P19", cards=[START_CARD]), deck=[]
        )
    )
    for card_id, move, visible_covered, raw_covered in SEQUENCE:
        state = with_hand(state, card_id)
        before = visible(state)
        depth = layers(state)
        row_col, rot = move.split()[1:]
        row, col = map(int, row_col.split(","))
        rot_deg = int(rot[3:])
        spots = footprint(row, col, rot_deg)
        assert sum(1 for p in spots if p in before) == visible_covered
        assert sum(depth.get(p, 0) for p in spots) == raw_covered
        # the engine's legal placements are exactly what the rules allow
        assert legal(state) == expected_legal_placements(state, card_id)
        assert move in legal(state)
        play(state, move)
        after = visible(state)
        # the new card lies on top, turned as asked
        grid = turned(card_id, rot_deg)
        for r, line in enumerate(grid):
            for c, token in enumerate(line):
                assert after[(row + r, col + c)] == token
        # nothing outside the footprint changed
        for pos, kind in before.items():
            if pos not in spots:
                assert after[pos] == kind
        assert seat_ap(state) == min(8, sum(1 for k in after.values() if k == "cup"))


def test_example_1_cubes_on_covered_cells_return_to_the_supply() -> None:
    state = GAME.state_from_json(
        position(seat_json(START, START_SHOPS, stage="place", hand="P19", cards=[START_CARD]))
    )
    assert supply(state) == {"Y": 34, "B": 33, "G": 35, "R": 34}
    play(state, "place -1,1 rot0")  # covers the R bean (0,1) and the dry cell (0,2)
    assert supply(state) == {"Y": 34, "B": 35, "G": 35, "R": 35}
    assert cubes_at(state) == {(0, 0): "Y"}


BLOCK = """
Y  B  G
d  c  r
R  c  -
"""


@pytest.mark.parametrize(
    ("move", "covered"),
    [
        ("place -1,2 rot0", 1),  # footprint rows -1..0, cols 2..4: only (0,2)
        ("place 2,-2 rot0", 1),  # only (2,0)
        ("place 1,2 rot90", 1),  # only (1,2)
        ("place 2,0 rot0", 2),
        ("place -1,0 rot0", 3),
        ("place 0,1 rot0", 4),
        ("place 1,0 rot0", 5),  # rows 1..2, cols 0..2 minus the hole at (2,2)
        ("place 0,1 rot90", 5),  # rows 0..2, cols 1..2 minus the hole
        ("place 0,0 rot0", 6),
        ("place 5,5 rot0", 0),
    ],
)
def test_example_1_cover_count_decides_legality(move: str, covered: int) -> None:
    state = GAME.state_from_json(position(seat_json(BLOCK, stage="place", hand="P33"), deck=[]))
    row_col, rot = move.split()[1:]
    row, col = map(int, row_col.split(","))
    cells = visible(state)
    assert sum(1 for p in footprint(row, col, int(rot[3:])) if p in cells) == covered
    if 2 <= covered <= 4:
        assert move in legal(state)
        play(state, move)
        assert state.to_json()["seats"][0]["stage"] == "act"
    else:
        before = state.to_json()
        assert move not in legal(state)
        with pytest.raises(IllegalActionError, match=f"cover {covered} visible cells"):
            play(state, move)
        assert state.to_json() == before


def test_turned_cards_oracle() -> None:
    # P19 is  Y B shop / dry roast cup ; turning clockwise moves the left column to the top
    assert turned("P19", 0) == [["bean-Y", "bean-B", "shop"], ["dry", "roast", "cup"]]
    assert turned("P19", 90) == [["dry", "bean-Y"], ["roast", "bean-B"], ["cup", "shop"]]
    assert turned("P19", 180) == [["cup", "roast", "dry"], ["shop", "bean-B", "bean-Y"]]
    assert turned("P19", 270) == [["shop", "cup"], ["bean-B", "roast"], ["bean-Y", "dry"]]


@pytest.mark.parametrize("rot", [0, 90, 180, 270])
def test_example_1_all_four_rotations(rot: int) -> None:
    state = GAME.state_from_json(
        position(seat_json(START, START_SHOPS, stage="place", hand="P19"), deck=[])
    )
    move = f"place 1,0 rot{rot}"
    assert move in legal(state)
    play(state, move)
    after = visible(state)
    for r, line in enumerate(turned("P19", rot)):
        for c, token in enumerate(line):
            assert after[(1 + r, c)] == token
    # the new shop (Tomar 1911) sits where its cell was turned to
    new_shop = state.to_json()["seats"][0]["area"]["shops"][-1]
    assert new_shop["city"] == "Tomar"
    expected_cells = [
        (1 + r, c)
        for r, line in enumerate(turned("P19", rot))
        for c, token in enumerate(line)
        if token == "shop"
    ]
    assert [tuple(p) for p in new_shop["cells"]] == expected_cells


TWO_CELL_SHOP = """
Y  0    0
c  r:R  d
"""


def test_example_1_covering_one_cell_of_a_two_cell_shop_loses_it() -> None:
    shops = [shop("BBBR", 4, city="Portalegre", year=1936, cubes="BBB")]
    state = GAME.state_from_json(
        position(seat_json(TWO_CELL_SHOP, shops, stage="place", hand="P19"), deck=[])
    )
    assert supply(state) == {"Y": 35, "B": 32, "G": 35, "R": 34}
    play(state, "place -1,2 rot90")  # covers shop cell (0,2) and the dry cell (1,2)
    assert visible(state)[(0, 1)] == "shop"  # the other cell is still visible...
    assert shop_cubes(state) == ["", ""]  # ...but the shop's cubes went back
    assert supply(state) == {"Y": 35, "B": 35, "G": 35, "R": 34}
    # the red cube on the roast cell can no longer go to the lost shop
    assert "deliver 1,1 > 0,1" not in legal(state)
    assert "deliver 1,1 > wh" in legal(state)
    with pytest.raises(IllegalActionError, match="partly covered"):
        play(state, "deliver 1,1 > 0,1")


def test_example_1_a_lost_complete_shop_scores_nothing() -> None:
    shops = [shop("BBBR", 4, city="Portalegre", year=1936, cubes="BBBR")]
    state = GAME.state_from_json(
        position(seat_json(TWO_CELL_SHOP, shops, stage="place", hand="P19"), deck=[])
    )
    assert dict(state.scores()[0].parts)["shops"] == 4
    play(state, "place -1,2 rot90")
    assert dict(state.scores()[0].parts)["shops"] == 0
    assert supply(state)["B"] == 35 and supply(state)["R"] == 35 - 1  # the roast cube stays


def test_example_1_at_least_one_cup_stays_visible() -> None:
    grid = """
    Y  B  d
    c  r  .
    """
    covers_cup = "place 1,-1 rot0"  # rows 1..2, cols -1..1: the cup (1,0) and roast (1,1)
    no_cup = GAME.state_from_json(position(seat_json(grid, stage="place", hand="P02"), deck=[]))
    assert legal(no_cup) == expected_legal_placements(no_cup, "P02")
    assert covers_cup not in legal(no_cup)
    with pytest.raises(IllegalActionError, match="no cup would stay visible"):
        play(no_cup, covers_cup)
    with_cup = GAME.state_from_json(position(seat_json(grid, stage="place", hand="P19"), deck=[]))
    assert legal(with_cup) == expected_legal_placements(with_cup, "P19")
    assert covers_cup in legal(with_cup)  # the new card brings its own cup


# ==== Examples 2-3: Produce ==================================================================


def test_example_2_produce_one_yellow() -> None:
    state = load(
        """
        Y  d  c
        .  r  c
        """
    )
    assert seat_ap(state) == 2
    play(state, "produce 0,0")
    assert cubes_at(state) == {(0, 0): "Y"}
    assert seat_ap(state) == 1
    assert supply(state) == {"Y": 34, "B": 35, "G": 35, "R": 35}


def test_example_3_one_action_fills_a_whole_bean_group() -> None:
    state = load(
        """
        Y  R  c  c
        B  B  .  G
        d  r  c  .
        """
    )
    assert seat_ap(state) == 3
    play(state, "produce 1,1")  # any cell of the group names it
    # yellow, red and two brown, for one action point; the lone green cell is another group
    assert cubes_at(state) == {(0, 0): "Y", (0, 1): "R", (1, 0): "B", (1, 1): "B"}
    assert seat_ap(state) == 2
    assert supply(state) == {"Y": 34, "B": 33, "G": 35, "R": 34}
    play(state, "produce 1,3")
    assert cubes_at(state)[(1, 3)] == "G"
    assert seat_ap(state) == 1


# ==== Examples 4-5: Dry ======================================================================


def test_example_4_dry_two_brown() -> None:
    state = load(
        """
        B:B  B:B  d  c
        Y:Y  .    r  c
        """
    )
    play(state, "dry 0,2 B")
    assert cubes_at(state) == {(0, 2): "BB", (1, 0): "Y"}
    assert seat_ap(state) == 1


def test_example_5_dry_group_takes_two_colours_for_one_action() -> None:
    state = load(
        """
        B:B  B:B  d  c
        Y:Y  .    d  c
        .    .    r  c
        """
    )
    assert seat_ap(state) == 3
    play(state, "dry 0,2 B", "dry 1,2 Y")
    assert cubes_at(state) == {(0, 2): "BB", (1, 2): "Y"}
    assert seat_ap(state) == 2


# ==== Examples 6-7: Roast ====================================================================


def test_example_6_roast_three_brown() -> None:
    state = load(
        """
        d:BB  d:B  r  c
        .     .    .  c
        """
    )
    play(state, "roast 0,2 B")
    assert cubes_at(state) == {(0, 2): "BBB"}
    assert seat_ap(state) == 1


def test_example_7_roast_group_and_a_lone_roast_cell() -> None:
    state = load(
        """
        d:YY  d:GGG  d:R  c
        r     r      .    c
        .     .      r    c
        """
    )
    assert seat_ap(state) == 3
    play(state, "roast 1,0 Y", "roast 1,1 G")
    assert cubes_at(state) == {(1, 0): "YY", (1, 1): "GGG", (0, 2): "R"}
    assert seat_ap(state) == 2  # 2 yellow and 3 green for one action point
    # the red cube can be roasted too, but (2,2) is not adjacent: a second action point
    play(state, "roast 2,2 R")
    assert cubes_at(state) == {(1, 0): "YY", (1, 1): "GGG", (2, 2): "R"}
    assert seat_ap(state) == 1


# ==== Example 8: Deliver =====================================================================


def test_example_8_deliver_to_a_shop_and_the_warehouse_in_one_action() -> None:
    state = load(
        """
        r:R  r:YY  r:GGG  c
        0    0     .      c
        """,
        [shop("YBR", 3, city="Vila Real", year=1925)],
        warehouse={"Y": 1, "B": 2, "G": 0, "R": 1},
    )
    assert seat_ap(state) == 2
    play(state, "deliver 0,0 > 1,0", "deliver 0,1 > 1,1")  # a shop named by either cell
    # one yellow cube is still on (0,1): it must be delivered before anything else
    assert legal(state) == {"deliver 0,1 > wh"}  # the shop needs no second yellow
    with pytest.raises(IllegalActionError, match="first deliver"):
        play(state, "end")
    play(state, "deliver 0,1 > wh", "deliver 0,2 > wh", "deliver 0,2 > wh", "deliver 0,2 > wh")
    assert cubes_at(state) == {}
    assert shop_cubes(state) == ["YR"]
    assert warehouse(state) == {"Y": 2, "B": 2, "G": 3, "R": 1}
    assert seat_ap(state) == 1  # the whole delivery cost one action point
    assert supply(state) == {"Y": 34, "B": 35, "G": 35, "R": 34}


# ==== Scoring examples =======================================================================

SCORED_AREA = """
0  0  1  c
2  3  3  .
"""
SCORED_SHOPS = [
    shop("BBBR", 4, city="Portalegre", year=1936, cubes="BBBR"),
    shop("YRR", 3, city="Vila Real", year=1925, cubes="YRR"),
    shop("GG", 2, city="Tomar", year=1911, cubes="GG"),
    shop("YBGR", 5, city="Coimbra", year=1923, cubes="YBG"),  # not all its coffee
]


@pytest.mark.parametrize(
    ("store", "total", "label"),
    [
        ({"Y": 4, "B": 6, "G": 7, "R": 9}, 23, "Good"),  # 9 + 2x4 + 6
        ({"Y": 0, "B": 6, "G": 6, "R": 8}, 15, "Average"),  # 9 + 0 + 6: only two colours
    ],
)
def test_scoring_examples(store: dict, total: int, label: str) -> None:
    data = position(
        seat_json(SCORED_AREA, SCORED_SHOPS, stage="done", warehouse=store), phase="over", round=8
    )
    state = GAME.state_from_json(data)
    assert state.is_over()
    score = state.scores()[0]
    assert dict(score.parts)["shops"] == 9  # Coimbra is incomplete
    assert score.total == total
    assert score.label == label
    assert state.winners() == [0]
