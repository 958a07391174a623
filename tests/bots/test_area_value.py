"""The Café evaluation, rewritten for speed, gives the values it gave before to the last bit.

`tests/bots/data/cafe-area-values.json` holds game records (greedy and random play, 1 to 4
players, base and advanced rules, espresso and promos) and, for every seat after every step
of them, the values of `heuristics._cafe_area_value` (a seat with no card in hand, both as is
and as if its card had just been placed) or of `heuristics.cafe_value` (a card in hand: its
best placement), written as `float.hex`, by the implementation before the rewrite (main at
commit a3bcb95, 2026-11-27). To write it again (only for a deliberate change of the values):

    PYTHONPATH=src python3 -m tests.bots.test_area_value --write
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from coffeetable import find_game
from coffeetable.bots import heuristics, make_bot
from coffeetable.core.game import State

FIXTURE = Path(__file__).parent / "data" / "cafe-area-values.json"

#: (players, options, bot, deal): the games of the fixture
GAMES: tuple[tuple[int, dict[str, Any], str, int], ...] = (
    (1, {}, "greedy", 11),
    (1, {}, "greedy", 12),
    (2, {}, "greedy", 13),
    (1, {"espresso": True}, "random", 14),
    (2, {"variant": "advanced"}, "random", 15),
    (3, {"promos": ["leao", "coffee-mine", "atlas"]}, "random", 16),
    (
        4,
        {"variant": "advanced", "espresso": True, "promos": ["leao", "coffee-mine", "atlas"]},
        "random",
        17,
    ),
    (2, {}, "greedy", 18),
    *((players, {}, "random", 20 + players) for players in (1, 2, 3, 4)),
    *((players, {"espresso": True}, "random", 30 + players) for players in (1, 3)),
)


def _play(players: int, options: dict[str, Any], bot: str, deal: int) -> dict[str, Any]:
    """A game record of `bot` in every seat."""
    state = find_game("cafe").new_initial_state(players, deal, options)
    bots = [make_bot(bot, deal * 8 + s) for s in range(players)]
    actions = []
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
        actions.append([seat, action.notation()])
    return {"players": players, "options": options, "seed": deal, "actions": actions}


def _values(record: dict[str, Any]) -> Iterator[float]:
    """The evaluations of every seat after every step of the game."""
    game = find_game("cafe")
    state = game.new_initial_state(record["players"], record["seed"], record["options"])
    heuristics._HAND_VALUES.clear()
    for seat, text in record["actions"]:
        state.apply(seat, game.parse_action(text))
        if state.is_over():
            break
        yield from _evaluations(state)


def _evaluations(state: State) -> Iterator[float]:
    from coffeetable.games.cafe.state import CafeState

    assert isinstance(state, CafeState)
    for seat, player in enumerate(state.players):
        if player.hand is None:
            yield heuristics._cafe_area_value(state, player)
            yield heuristics._cafe_area_value(state, player, card_placed=True)
        else:
            yield heuristics.cafe_value(state, seat)


def test_the_values_are_those_of_the_plain_implementation() -> None:
    data = json.loads(FIXTURE.read_text("utf-8"))
    got = [v.hex() for record in data["games"] for v in _values(record)]
    assert len(got) == len(data["values"]) > 5000
    different = [i for i, (a, b) in enumerate(zip(got, data["values"], strict=True)) if a != b]
    assert not different, f"{len(different)} values differ, the first at {different[0]}"


def test_the_fixture_covers_what_the_evaluation_branches_on() -> None:
    """Rare cells (ships, espresso, supply, bonus), cakes, blocked areas, shops under way and
    done: the positions reach every branch (else the comparison above proves little)."""
    from coffeetable.games.cafe.deck import CellKind
    from coffeetable.games.cafe.state import CafeState

    data = json.loads(FIXTURE.read_text("utf-8"))
    game = find_game("cafe")
    seen: set[str] = set()
    for record in data["games"]:
        state = game.new_initial_state(record["players"], record["seed"], record["options"])
        for seat, text in record["actions"]:
            state.apply(seat, game.parse_action(text))
            assert isinstance(state, CafeState)
            for player in state.players:
                area = player.area
                kinds = area.kinds()
                on = area.cubes_per_kind()
                seen.update(f"cubes on {kind.name}" for kind in on)
                if CellKind.CAKE in kinds:
                    seen.add("cake")
                if CellKind.DRY not in kinds or CellKind.ROAST not in kinds:
                    seen.add("blocked")
                if any(player.pending_fill):
                    seen.add("pending fill")
                for shop in area.shops:
                    if shop.available and shop.cubes == shop.spec.requires:
                        seen.add("shop done")
                    elif shop.available and any(shop.cubes):
                        seen.add("shop under way")
    for wanted in ("cubes on SHIP", "cubes on ESPRESSO", "blocked", "shop done", "shop under way"):
        assert wanted in seen, wanted


def main() -> None:
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    games = [_play(*spec) for spec in GAMES]
    values = [v.hex() for record in games for v in _values(record)]
    FIXTURE.write_text(json.dumps({"games": games, "values": values}) + "\n", "utf-8")
    print(f"{FIXTURE}: {len(games)} games, {len(values)} values")


if __name__ == "__main__":
    main()
