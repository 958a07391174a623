"""The hand-writable Coffee Rush position format (games/coffee_rush/position.py).

A minimal hand-written position loads with every optional field computed; each kind of
malformed input is refused with a DataError that names the field at fault (and never with a
traceback of another type, which a fuzz test also checks); a position written by `to_json`
reads back equal in every phase of the game.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coffeetable.core.errors import DataError
from coffeetable.core.registry import find_game
from coffeetable.games.coffee_rush.game import CoffeeRushGame
from coffeetable.games.coffee_rush.state import Phase, RushState, Stage
from tests.games.coffee_rush.test_properties import check_invariants, purposeful

GAME: CoffeeRushGame = find_game("coffee-rush")  # type: ignore[assignment]
CARDS = GAME.cards
FORMAT = "coffeetable.position/1"


# ==== helpers ===============================================================================
def minimal(*meeples: list[str | None], to_move: int | None = 0, **extra: Any) -> dict[str, Any]:
    """A position with only the required fields (and `extra`)."""
    data: dict[str, Any] = {
        "format": FORMAT,
        "game": "coffee-rush",
        "players": [{"meeples": list(ms)} for ms in meeples],
    }
    if to_move is not None:
        data["to_move"] = to_move
    data.update(extra)
    return data


def three() -> dict[str, Any]:
    """3 players, seat 0 to move from a1 (b1 and d4 taken), nothing else written."""
    return minimal(["a1"], ["b1"], ["d4"])


def rich() -> dict[str, Any]:
    """A fuller 3-player position: seat 0 in the middle of pouring, with cards and cups."""
    data = three()
    data["players"][0].update(
        cups=[["coffee", "steam"], ["milk"], []],
        counters=[["Espresso"], ["Milk Tea"], [], ["Cold Brew"]],
        completed=["Cocoa"],
        penalties=["Americano"],
        rush=2,
    )
    data["players"][0]["meeples"] = ["a2"]
    data["players"][1].update(counters=[["Espresso Doppio"], [], [], []], rush=1)
    data["turn"] = {"stage": "pour", "moving": "a2", "steps": 1, "hand": ["coffee"]}
    data["discarded"] = ["Green Tea"]
    return data


def names(actions: list[Any]) -> list[str]:
    return sorted(a.notation() for a in actions)


def load(data: Any) -> RushState:
    return GAME.state_from_json(json.loads(json.dumps(data)))


def round_trip(state: RushState) -> RushState:
    data = state.to_json()
    restored = load(data)
    assert restored.to_json() == data
    for seat in range(state.num_players):
        assert restored.legal_actions(seat) == state.legal_actions(seat)
    assert restored.scores() == state.scores()
    assert restored.current_seats() == state.current_seats()
    return restored


# ==== minimal positions =====================================================================
def test_a_minimal_position_loads_with_everything_else_computed() -> None:
    state = load(three())
    assert state.num_players == 3
    assert state.phase is Phase.TURN and state.stage is Stage.MOVE
    assert state.current_seats() == frozenset({0})
    assert names(state.legal_actions(0)) == ["a1-a2", "a1-b1"]
    assert state.legal_actions(1) == state.legal_actions(2) == []
    # omitted: the supply is the whole box, every card is in the deck, nobody has anything
    assert state.supply == list(CARDS.box)
    assert state.rush_supply == CARDS.rush
    assert len(state.deck) == CARDS.total_cards
    assert state.options == {"less_luck": False, "cards_sha256": CARDS.digest}
    assert not state.closed
    check_invariants(state)
    round_trip(state)


def test_a_minimal_two_player_position() -> None:
    state = load(minimal(["a1", "b1"], ["c1", "d1"], to_move=1))
    # a step may pass over any meeple (its own partner too) if it can end elsewhere
    assert names(state.legal_actions(1)) == sorted(["c1-b1", "c1-c2", "c1-d1", "d1-c1", "d1-d2"])
    state = load(minimal(["a1", "b1"], ["c3", "d4"]))
    assert names(state.legal_actions(0)) == sorted(["a1-a2", "a1-b1", "b1-a1", "b1-b2", "b1-c1"])


def test_the_deck_seed_shuffles_the_remaining_cards() -> None:
    a = load({**three(), "deck_seed": 1})
    b = load({**three(), "deck_seed": 2})
    assert sorted(a.deck) == sorted(b.deck) == sorted(CARDS.all_cards())
    assert a.deck != b.deck
    assert load({**three(), "deck_seed": 1}).deck == a.deck


def test_the_supply_is_computed_from_cups_and_hand() -> None:
    data = rich()
    state = load(data)
    box = dict(zip(CARDS.ingredients, CARDS.box, strict=True))
    expected = {**box, "coffee": box["coffee"] - 2, "steam": box["steam"] - 1, "milk": 11}
    assert dict(zip(CARDS.ingredients, state.supply, strict=True)) == expected
    assert state.rush_supply == CARDS.rush - 3
    # given and right: accepted
    data["supply"] = expected
    data["rush_supply"] = CARDS.rush - 3
    assert load(data).to_json() == state.to_json()
    assert names(state.legal_actions(0)) == sorted(
        [
            "pour coffee 1",
            "pour coffee 2",
            "pour coffee 3",
            "serve 1 1 Espresso",
            "empty 1",
            "empty 2",
            "end",
        ]
    )
    check_invariants(state)


def test_a_wrong_supply_is_refused() -> None:
    data = rich()
    data["supply"] = dict(zip(CARDS.ingredients, CARDS.box, strict=True))
    with pytest.raises(DataError, match="'supply'"):
        load(data)
    data = rich()
    data["rush_supply"] = CARDS.rush
    with pytest.raises(DataError, match="'rush_supply'"):
        load(data)


def test_a_hand_written_serve_stage_position() -> None:
    data = rich()
    state = load(data)
    state.apply(0, GAME.parse_action("serve 1 1"))
    assert state.stage is Stage.SERVE and state.served == 1
    restored = round_trip(state)
    assert restored.to_json()["turn"]["stage"] == "serve"
    # and written by hand
    data["players"][0]["cups"] = [[], ["milk"], []]
    data["players"][0]["counters"][0] = []
    data["players"][0]["completed"] = ["Cocoa", "Espresso"]
    data["turn"] = {"stage": "serve", "moving": "a2", "steps": 1, "served": 1}
    by_hand = load(data)
    assert by_hand.to_json() == state.to_json()


# ==== malformed positions ===================================================================
Mutation = Callable[[dict[str, Any]], None]


def setter(*path: Any, value: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return mutate


def deleter(*path: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return mutate


def update(**fields: Any) -> Mutation:
    return lambda data: data.update(fields)


def turn(**fields: Any) -> Mutation:
    return setter("turn", value=fields)


BAD: list[Any] = [
    # format and game
    pytest.param(setter("format", value="coffeetable.position/2"), "'format'", id="format"),
    pytest.param(setter("format", value="coffeetable.record/1"), "'format'", id="record-format"),
    pytest.param(deleter("format"), "missing field 'format'", id="no-format"),
    pytest.param(setter("game", value="cafe"), "'game'", id="game"),
    pytest.param(setter("game", value=3), "'game'", id="game-type"),
    # players
    pytest.param(setter("players", value=[{"meeples": ["a1"]}]), "'players'", id="1-player"),
    pytest.param(
        setter("players", value=[{"meeples": [sq]} for sq in ("a1", "b1", "c1", "d1", "a2")]),
        "'players'",
        id="5-players",
    ),
    pytest.param(setter("players", value={"0": {}}), "'players'", id="players-type"),
    pytest.param(deleter("players"), "missing field 'players'", id="no-players"),
    pytest.param(setter("players", 0, value=["a1"]), r"players\[0\]", id="player-type"),
    # unknown keys
    pytest.param(setter("score", value=3), "unknown field.*score", id="unknown-key"),
    pytest.param(setter("players", 1, "colour", value="red"), r"players\[1\].*colour", id="pkey"),
    pytest.param(turn(stage="pour", moving="a2", steps=1, tip=1), "position.turn.*tip", id="tkey"),
    pytest.param(setter("options", value={"expansion": True}), "expansion", id="unknown-option"),
    pytest.param(setter("options", value={"less_luck": "yes"}), "less_luck", id="option-type"),
    pytest.param(setter("options", value={"cards_sha256": "0" * 64}), "sha256", id="cards-sha"),
    # squares and meeples
    pytest.param(setter("players", 0, "meeples", 0, value="e5"), r"meeples\[0\]", id="square"),
    pytest.param(setter("players", 0, "meeples", 0, value="a0"), r"meeples\[0\]", id="square-0"),
    pytest.param(setter("players", 0, "meeples", 0, value=3), r"meeples\[0\]", id="square-int"),
    pytest.param(setter("players", 0, "meeples", value=["a1", "a3"]), "'meeples'", id="2-meeples"),
    pytest.param(setter("players", 0, "meeples", value=[]), "'meeples'", id="0-meeples"),
    pytest.param(deleter("players", 2, "meeples"), "missing field 'meeples'", id="no-meeples"),
    pytest.param(
        setter("players", 1, "meeples", value=["a2"]), "two meeples on one square", id="shared"
    ),
    # drinks and ingredients
    pytest.param(
        setter("players", 0, "counters", 0, value=["Frappuccino"]),
        r"players\[0\]\.counters\[0\]\[0\].*Frappuccino",
        id="drink-counter",
    ),
    pytest.param(
        setter("players", 1, "completed", value=[7]), r"players\[1\]\.completed", id="drink-type"
    ),
    pytest.param(setter("deck", value=["Frappuccino"]), "'deck'", id="drink-deck"),
    pytest.param(setter("discarded", value=["Tea"]), "'discarded'", id="drink-discarded"),
    pytest.param(
        setter("players", 0, "cups", 1, value=["sugar"]),
        r"players\[0\]\.cups\[1\]\[0\].*sugar",
        id="ingredient-cup",
    ),
    pytest.param(
        turn(stage="pour", moving="a2", steps=1, hand=["rum"]),
        r"position\.turn\.hand\[0\]",
        id="ingredient-hand",
    ),
    pytest.param(setter("players", 0, "cups", value=[[], []]), "'cups' must list 3", id="2-cups"),
    pytest.param(
        setter("players", 0, "counters", value=[[], [], [], [], []]),
        "'counters' must list 4",
        id="5-counters",
    ),
    pytest.param(
        setter("players", 0, "upgrades", value=["teleport"]),
        r"players\[0\]\.upgrades.*teleport",
        id="upgrade",
    ),
    # counts
    pytest.param(
        setter("players", 0, "cups", 2, value=["milk"] * 12),
        "13 milk tokens.*box has 12",
        id="too-many-tokens",
    ),
    pytest.param(
        turn(stage="pour", moving="a2", steps=1, hand=["coffee"] * 18),
        "19 coffee tokens.*box has 18",
        id="too-many-tokens-hand",
    ),
    pytest.param(setter("players", 1, "rush", value=14), "16 rush tokens", id="too-many-rush"),
    pytest.param(setter("players", 1, "rush", value=-1), r"players\[1\]\.rush", id="neg-rush"),
    pytest.param(setter("players", 1, "rush", value=True), "'rush'", id="bool-rush"),
    pytest.param(
        setter("players", 1, "counters", 1, value=["Espresso"]),
        "3 Espresso card.*has 2",
        id="too-many-copies",
    ),
    pytest.param(setter("deck", value=[]), "1 Espresso card.*has 2", id="too-few-copies"),
    pytest.param(setter("deck_seed", value=3), "'deck_seed'", id="deck-and-seed"),
    pytest.param(setter("deck_seed", value="x"), "'deck_seed'", id="seed-type"),
    # whose turn and the turn
    pytest.param(setter("to_move", value=3), "'to_move'", id="to-move-range"),
    pytest.param(setter("to_move", value=True), "'to_move'", id="to-move-bool"),
    pytest.param(deleter("to_move"), "missing field 'to_move'", id="no-to-move"),
    pytest.param(setter("phase", value="lunch"), "'phase'", id="phase"),
    pytest.param(setter("closed", value="no"), "'closed'", id="closed-type"),
    pytest.param(turn(stage="move", moving="a2", steps=0), "'moving'", id="steps0-moving"),
    pytest.param(turn(stage="pour", steps=0), "'move'", id="steps0-pour"),
    pytest.param(turn(stage="pour", steps=1), "'moving'", id="steps-no-moving"),
    pytest.param(
        turn(stage="pour", moving="d4", steps=1), r"turn\.moving.*no meeple", id="moving-other"
    ),
    pytest.param(turn(stage="serve", moving="a2", steps=1), "'served'", id="serve-served0"),
    pytest.param(turn(stage="pour", moving="a2", steps=1, served=1), "'served'", id="pour-served1"),
    pytest.param(
        turn(stage="serve", moving="a2", steps=1, served=1, hand=["milk"]),
        "hand is empty",
        id="serve-hand",
    ),
    pytest.param(turn(stage="drink", moving="a2", steps=1), "'stage'", id="stage"),
    pytest.param(turn(steps=-1), r"turn\.steps", id="neg-steps"),
    pytest.param(turn(hand=["milk"]), "before the first step", id="hand-before-step"),
    pytest.param(setter("turn", value=[]), "'turn'", id="turn-type"),
]


@pytest.mark.parametrize(("mutate", "message"), BAD)
def test_malformed_positions_are_refused_naming_the_field(mutate: Mutation, message: str) -> None:
    data = rich()
    data["deck"] = [d.name for d in CARDS.drinks for _ in range(d.copies)]
    for pile in (
        *(k for p in data["players"] for k in p.get("counters", [])),
        *(p.get(f, []) for p in data["players"] for f in ("completed", "penalties")),
        data["discarded"],
    ):
        for name in pile:
            data["deck"].remove(name)
    load(data)  # the unmutated position is fine
    mutate(data)
    with pytest.raises(DataError, match=message):
        load(data)


@pytest.mark.parametrize("bad", [[], "position", 3, None])
def test_a_position_must_be_an_object(bad: Any) -> None:
    with pytest.raises(DataError, match="JSON object"):
        GAME.state_from_json(bad)


def test_wrong_meeple_counts_for_two_players() -> None:
    with pytest.raises(DataError, match="'meeples' must list 2"):
        load(minimal(["a1"], ["b1", "c1"]))
    with pytest.raises(DataError, match="two meeples on one square"):
        load(minimal(["a1", "a1"], ["b1", "c1"]))


def test_too_many_rush_tokens_across_players() -> None:
    data = three()
    for p, rush in zip(data["players"], (5, 5, 6), strict=True):
        p["rush"] = rush
    with pytest.raises(DataError, match=r"16 rush tokens.*15"):
        load(data)
    data["players"][2]["rush"] = 5
    assert load(data).rush_supply == 0


def test_placement_positions() -> None:
    # 3 players place counterclockwise from the start player's right: seats 2, 1, 0
    data = minimal(["a1"], [None], [None], to_move=2, phase="place")
    with pytest.raises(DataError, match="placed in turn"):
        load(data)
    data = minimal([None], [None], ["a1"], to_move=1, phase="place")
    state = load(data)
    assert len(state.legal_actions(1)) == 15
    round_trip(state)
    for wrong in (0, 2):
        data["to_move"] = wrong
        with pytest.raises(DataError, match="seat 1 places the next meeple"):
            load(data)
    # 2 players: seat 1, 0, 1, 0
    data = minimal([None, None], ["b2", None], to_move=0, phase="place")
    assert load(data).current == 0
    data["to_move"] = 1
    with pytest.raises(DataError, match="seat 0 places the next meeple"):
        load(data)
    # every meeple placed: not the 'place' phase any more; one missing: not a 'turn'
    with pytest.raises(DataError, match="'place' phase"):
        load(minimal(["a1"], ["b1"], ["c1"], phase="place"))
    with pytest.raises(DataError, match="'place' phase"):
        load(minimal([None], ["b1"], ["c1"]))
    with pytest.raises(DataError, match="'turn' is only"):
        load(
            minimal(
                [None],
                [None],
                ["a1"],
                to_move=1,
                phase="place",
                turn={"stage": "move"},
            )
        )


def test_setup_pour_positions() -> None:
    three_players = minimal(["a1"], ["b1"], ["c1"], phase="setup_pour", turn={"hand": ["ice"]})
    with pytest.raises(DataError, match=r"setup_pour.*2 players"):
        load(three_players)
    data = minimal(["a1", "b1"], ["c1", "d1"], phase="setup_pour")
    with pytest.raises(DataError, match="setup_pour"):
        load(data)
    data["turn"] = {"hand": []}
    with pytest.raises(DataError, match=r"position\.turn\.hand"):
        load(data)
    data["turn"] = {"hand": ["ice", "caramel"]}
    state = load(data)
    assert names(state.legal_actions(0)) == sorted(
        f"pour {i} {c}" for i in ("ice", "caramel") for c in (1, 2, 3)
    )
    data["turn"] = {"hand": ["ice"], "steps": 1}
    with pytest.raises(DataError, match=r"position\.turn.*steps"):
        load(data)


def test_finished_positions() -> None:
    data = minimal(["a1"], ["b1"], ["c1"], to_move=None, phase="over", closed=True)
    state = load(data)
    assert state.is_over() and state.current_seats() == frozenset()
    round_trip(state)
    data["to_move"] = 0
    with pytest.raises(DataError, match="to_move"):
        load(data)
    data["to_move"] = None
    data["turn"] = {"stage": "move"}
    with pytest.raises(DataError, match="'turn' is only"):
        load(data)


def test_a_finished_position_with_the_token_open_is_refused() -> None:
    data = minimal(["a1"], ["b1"], ["c1"], to_move=None, phase="over", closed=False)
    with pytest.raises(DataError, match="closed"):
        load(data)
    del data["closed"]
    with pytest.raises(DataError, match="closed"):
        load(data)


def test_a_live_position_without_a_legal_action_is_refused() -> None:
    # seat 0's meeple has used its three steps, stands on seat 1's square and has no rush
    # token left: it may neither stop there nor step on
    data = minimal(["b1"], ["b1"], ["d4"])
    data["turn"] = {"stage": "move", "moving": "b1", "steps": 3, "hand": ["caramel"] * 3}
    with pytest.raises(DataError, match="no legal action"):
        load(data)
    # with a rush token it steps on
    data["players"][0]["rush"] = 1
    state = load(data)
    assert names(state.legal_actions(0)) == ["b1-a1", "b1-b2", "b1-c1"]


def test_drink_and_ingredient_names_ignore_case_and_spaces() -> None:
    data = three()
    data["players"][0]["counters"] = [[" espresso "], [], [], []]
    data["players"][0]["cups"] = [["COFFEE"], [], []]
    state = load(data)
    assert state.counters[0][0] == [CARDS.by_name["espresso"]]
    assert state.cups[0][0][CARDS.ingredients.index("coffee")] == 1


# ==== written positions read back ===========================================================
def states_by_phase() -> dict[str, RushState]:
    """One state for each phase and stage, from real (purposeful) games."""
    found: dict[str, RushState] = {}
    wanted = {
        "place",
        "setup_pour",
        "turn/move/0",
        "turn/move/1+",
        "turn/pour",
        "turn/serve",
        "over",
    }
    for seed in range(200):
        players = 2 + seed % 3
        state = GAME.new_initial_state(players, seed, {"less_luck": seed % 2 == 1})
        rng = random.Random(seed)
        while True:
            key = state.phase.name.lower()
            if state.phase is Phase.TURN:
                key += "/" + state.stage.name.lower()
                if state.stage is Stage.MOVE:
                    key += "/0" if state.steps == 0 else "/1+"
            found.setdefault(key, state.clone())
            if state.is_over():
                break
            seat = state.current
            state.apply(seat, purposeful(state, seat, state.legal_actions(seat), rng))
        if wanted <= set(found):
            return found
    raise AssertionError(f"no game reached {sorted(wanted - set(found))}")


BY_PHASE = states_by_phase()


@pytest.mark.parametrize("key", sorted(BY_PHASE))
def test_written_positions_read_back_equal(key: str) -> None:
    state = BY_PHASE[key]
    data = state.to_json()
    expected_phase = key.split("/")[0]
    assert data["phase"] == expected_phase
    if expected_phase == "turn":
        assert data["turn"]["stage"] == key.split("/")[1]
    restored = round_trip(state)
    check_invariants(restored)
    # the restored state plays on like the original
    if not state.is_over():
        a, b = state.clone(), restored
        rng_a, rng_b = random.Random(1), random.Random(1)
        for _ in range(40):
            if a.is_over():
                break
            seat = a.current
            action = purposeful(a, seat, a.legal_actions(seat), rng_a)
            assert purposeful(b, seat, b.legal_actions(seat), rng_b) == action
            a.apply(seat, action)
            b.apply(seat, action)
            assert b.to_json() == a.to_json()


def test_a_two_player_setup_pour_position_is_covered() -> None:
    state = BY_PHASE["setup_pour"]
    assert state.num_players == 2 and any(state.hand)


def test_a_position_written_while_passing_over_the_own_meeple_plays_on_identically() -> None:
    # the moving meeple stands on its partner's square: the square alone cannot say which
    # one moves, so the position names the moving meeple by its index
    state = GAME.state_from_json(minimal(["a1", "b1"], ["c3", "d4"]))
    state.apply(0, GAME.parse_action("b1-a1"))  # the second meeple steps onto the first
    assert state.meeple == 1 and state.meeples[0] == [0, 0]
    assert state.to_json()["turn"]["moving"] == 1
    restored = round_trip(state)
    for a in (state, restored):
        a.apply(0, GAME.parse_action("a1-a2"))
        a.apply(0, GAME.parse_action("stop"))
    assert restored.to_json() == state.to_json()
    assert state.meeples[0] == [0, 4]


def test_the_moving_meeple_by_index_or_square() -> None:
    data = minimal(["a1", "a1"], ["c3", "d4"])
    data["turn"] = {"stage": "move", "moving": 0, "steps": 1, "hand": ["ice"]}
    assert load(data).meeple == 0
    data["turn"]["moving"] = 1
    assert load(data).meeple == 1
    data["turn"]["moving"] = 2
    with pytest.raises(DataError, match=r"position\.turn\.moving"):
        load(data)
    data["turn"]["moving"] = "a1"  # ambiguous
    with pytest.raises(DataError, match=r"position\.turn\.moving.*index"):
        load(data)
    data = minimal(["a1", "b1"], ["c3", "d4"])
    data["turn"] = {"stage": "move", "moving": "b1", "steps": 1, "hand": ["caramel"]}
    assert load(data).meeple == 1
    data["turn"]["moving"] = 1
    assert load(data).meeple == 1


# ==== fuzzing ===============================================================================
FUZZ_BASES = [
    rich(),
    *(BY_PHASE[k].to_json() for k in sorted(BY_PHASE)),
]
JUNK = [
    None,
    -1,
    0,
    1,
    2,
    99,
    True,
    3.5,
    "",
    "a1",
    "z9",
    "coffee",
    "Espresso",
    "turn",
    "serve",
    [],
    ["a1"],
    [None],
    [[]],
    {},
    {"hand": ["milk"]},
]


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(paths(v, (*prefix, i)))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    base=st.sampled_from(range(len(FUZZ_BASES))),
    where=st.integers(0, 10_000),
    how=st.sampled_from(["replace", "delete", "add"]),
    junk=st.sampled_from(JUNK),
)
def test_fuzzed_positions_load_or_raise_data_error(
    base: int, where: int, how: str, junk: Any
) -> None:
    data = copy.deepcopy(FUZZ_BASES[base])
    all_paths = paths(data)[1:]
    path = all_paths[where % len(all_paths)]
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if how == "replace":
        parent[last] = copy.deepcopy(junk)
    elif how == "delete":
        del parent[last]
    elif isinstance(parent, list):
        parent.insert(last, copy.deepcopy(junk))
    else:
        parent[f"{last}_extra"] = copy.deepcopy(junk)
    try:
        state = GAME.state_from_json(data)
    except DataError:
        return
    # whatever is accepted is a consistent state that writes itself back
    check_invariants(state)
    assert load(state.to_json()).to_json() == state.to_json()
