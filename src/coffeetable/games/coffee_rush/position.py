"""Coffee Rush position JSON: a full state that a person can read and write by hand.

The format is documented in docs/coffee-rush-records.md. `state_to_json` writes every field;
`state_from_json` accepts the optional ones missing and checks everything, raising DataError
that names the field at fault. Cards are written by drink name, tokens by ingredient name,
squares as a1..d4.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from coffeetable.core.errors import DataError
from coffeetable.core.record import POSITION_FORMAT
from coffeetable.core.rng import Rng
from coffeetable.games.coffee_rush.actions import UPGRADES
from coffeetable.games.coffee_rush.cards import COUNTERS, CUPS, parse_square, square_name
from coffeetable.games.coffee_rush.state import Phase, RushState, Stage, placement_order

if TYPE_CHECKING:
    from coffeetable.games.coffee_rush.game import CoffeeRushGame

_PHASES = {p.name.lower(): p for p in Phase}
_STAGES = {s.name.lower(): s for s in Stage}


# ==== writing ==============================================================================
def state_to_json(state: RushState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "format": POSITION_FORMAT,
        "game": "coffee-rush",
        "options": dict(state.options),
        "phase": state.phase.name.lower(),
        "to_move": state.current if state.phase is not Phase.OVER else None,
        "closed": state.closed,
        "deck": pile_to_json(state, list(reversed(state.deck))),
        "discarded": pile_to_json(state, state.discarded),
        "removed": pile_to_json(state, state.removed),
        "players": [player_to_json(state, s) for s in range(state.num_players)],
        "supply": dict(zip(state.cards.ingredients, state.supply, strict=True)),
        "rush_supply": state.rush_supply,
    }
    turn = turn_to_json(state)
    if turn is not None:
        out["turn"] = turn
    return out


def pile_to_json(state: RushState, cards: list[int]) -> list[str]:
    """A pile of cards (drink indices) as drink names, in pile order."""
    drinks = state.cards.drinks
    return [drinks[d].name for d in cards]


def player_to_json(state: RushState, s: int) -> dict[str, Any]:
    """Seat `s` of a position. Everything in it is public, so views use it as it is."""
    cards = state.cards
    return {
        "meeples": [square_name(sq) if sq >= 0 else None for sq in state.meeples[s]],
        "cups": [cards.tokens_list(cup) for cup in state.cups[s]],
        "counters": [pile_to_json(state, k) for k in state.counters[s]],
        "completed": pile_to_json(state, state.completed[s]),
        "penalties": pile_to_json(state, state.penalties[s]),
        "upgrades": [UPGRADES[k] for k in range(len(UPGRADES)) if state.upgrades[s] & (1 << k)],
        "rush": state.rush[s],
    }


def turn_to_json(state: RushState) -> dict[str, Any] | None:
    """The turn in progress (the `turn` phase), the set-up tokens still to pour (the
    `setup_pour` phase), or None in the other phases. Public: views use it as it is."""
    cards = state.cards
    if state.phase is Phase.TURN:
        moving = state.meeples[state.current][state.meeple] if state.meeple >= 0 else -1
        mine = state.meeples[state.current]
        return {
            "stage": state.stage.name.lower(),
            # the moving meeple's square; its index when both meeples of the seat share it
            "moving": None
            if moving < 0
            else (state.meeple if mine.count(moving) > 1 else square_name(moving)),
            "steps": state.steps,
            "hand": cards.tokens_list(state.hand),
            "served": state.served,
            "upgraded": state.upgraded,
        }
    if state.phase is Phase.SETUP_POUR:
        return {"hand": cards.tokens_list(state.hand)}
    return None


# ==== reading ==============================================================================
class _Reader:
    """Typed access to one JSON object, with errors that say where."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, Mapping):
            raise DataError(f"{where} must be a JSON object")
        self.data = data
        self.where = where

    def get(
        self, key: str, kind: type | tuple[type, ...], default: Any = ..., what: str = ""
    ) -> Any:
        if key not in self.data or (self.data[key] is None and default is not ...):
            if default is ...:
                raise DataError(f"{self.where}: missing field {key!r}")
            return default
        value = self.data[key]
        bad_bool = isinstance(value, bool) and bool not in (
            kind if isinstance(kind, tuple) else (kind,)
        )
        if not isinstance(value, kind) or bad_bool:
            raise DataError(
                f"{self.where}: {key!r} must be {what or _kind_name(kind)}, got {value!r}"
            )
        return value

    def check_keys(self, allowed: set[str]) -> None:
        extra = set(self.data) - allowed
        if extra:
            raise DataError(
                f"{self.where}: unknown field(s) {', '.join(sorted(extra))}; known: {', '.join(sorted(allowed))}"
            )


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    words = {int: "a whole number", bool: "true or false", str: "a string", list: "a list"}
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def _count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise DataError(f"{where} must be a whole number >= 0, got {value!r}")
    return value


def _drinks(state: RushState, value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise DataError(f"{where} must be a list of drink names")
    out = []
    for i, name in enumerate(value):
        if not isinstance(name, str) or name.strip().lower() not in state.cards.by_name:
            raise DataError(f"{where}[{i}]: {name!r} is not a drink of {state.cards.name!r}")
        out.append(state.cards.by_name[name.strip().lower()])
    return out


def _tokens(state: RushState, value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        raise DataError(f"{where} must be a list of ingredient names")
    counts = [0] * len(state.cards.ingredients)
    for i, name in enumerate(value):
        if not isinstance(name, str) or name.strip().lower() not in state.cards.ingredients:
            raise DataError(
                f"{where}[{i}]: {name!r} is not an ingredient ({', '.join(state.cards.ingredients)})"
            )
        counts[state.cards.ingredients.index(name.strip().lower())] += 1
    return counts


def _square(value: Any, where: str) -> int:
    if not isinstance(value, str):
        raise DataError(f"{where} must be a square a1..d4, got {value!r}")
    try:
        return parse_square(value)
    except DataError as exc:
        raise DataError(f"{where}: {exc}") from None


def state_from_json(game: CoffeeRushGame, data: dict[str, Any]) -> RushState:
    r = _Reader(data, "position")
    r.check_keys(
        {
            "format", "game", "options", "phase", "to_move", "closed", "deck", "deck_seed",
            "discarded", "removed", "players", "supply", "rush_supply", "turn",
        }
    )  # fmt: skip
    if r.get("format", str) != POSITION_FORMAT:
        raise DataError(f"position: 'format' must be {POSITION_FORMAT!r}")
    if r.get("game", str) != "coffee-rush":
        raise DataError("position: 'game' must be \"coffee-rush\"")
    options = game.normalize_options(r.get("options", dict, {}))
    raw_players = r.get("players", list)
    n = len(raw_players)
    if not game.info.min_players <= n <= game.info.max_players:
        raise DataError(f"position: 'players' must list 2 to 4 players, got {n}")
    state = RushState(game, n, options)
    phase_name = r.get("phase", str, "turn")
    if phase_name not in _PHASES:
        raise DataError(
            f"position: 'phase' must be one of {', '.join(_PHASES)}, got {phase_name!r}"
        )
    state.phase = _PHASES[phase_name]
    state.closed = r.get("closed", bool, False)
    for s, raw in enumerate(raw_players):
        _read_player(state, s, raw)
    state.discarded = _drinks(state, r.get("discarded", list, []), "position: 'discarded'")
    state.removed = _drinks(state, r.get("removed", list, []), "position: 'removed'")
    _read_meeple_progress(state)
    if state.phase is Phase.OVER:
        if not state.closed:
            raise DataError(
                "position: a finished game has the start-player token CLOSED ('closed': true)"
            )
        if r.get("to_move", int, None) is not None:
            raise DataError("position: a finished game has no 'to_move' (write null)")
        state.current = -1
    else:
        current = r.get("to_move", int)
        if not 0 <= current < n:
            raise DataError(f"position: 'to_move' must be a seat 0..{n - 1}, got {current}")
        state.current = current
    _read_turn(state, r)
    moving = (state.current, state.meeple) if state.stage is Stage.MOVE and state.steps else None
    squares = [
        sq
        for s, ms in enumerate(state.meeples)
        for m, sq in enumerate(ms)
        if sq >= 0 and (s, m) != moving
    ]
    if len(set(squares)) != len(squares):
        raise DataError(
            "position: two meeples on one square (only a meeple in the middle of its move may pass through another)"
        )
    _read_deck(state, r)
    _derive_supply(state, r)
    if state.phase is not Phase.OVER and not state.legal_actions(state.current):
        raise DataError(
            f"position: seat {state.current} is to move but has no legal action (check its meeple and turn)"
        )
    return state


def _read_player(state: RushState, s: int, raw: Any) -> None:
    where = f"players[{s}]"
    p = _Reader(raw, where)
    p.check_keys({"meeples", "cups", "counters", "completed", "penalties", "upgrades", "rush"})
    meeples = p.get("meeples", list)
    expected = 2 if state.num_players == 2 else 1
    if len(meeples) != expected:
        raise DataError(
            f"{where}: 'meeples' must list {expected} square(s) (null if not placed yet)"
        )
    state.meeples[s] = [
        -1 if sq is None else _square(sq, f"{where}.meeples[{m}]") for m, sq in enumerate(meeples)
    ]
    cups = p.get("cups", list, [[]] * CUPS)
    if len(cups) != CUPS:
        raise DataError(f"{where}: 'cups' must list {CUPS} cups (each a list of ingredients)")
    state.cups[s] = [tuple(_tokens(state, c, f"{where}.cups[{i}]")) for i, c in enumerate(cups)]
    counters = p.get("counters", list, [[]] * COUNTERS)
    if len(counters) != COUNTERS:
        raise DataError(f"{where}: 'counters' must list {COUNTERS} counters (counter 1 first)")
    state.counters[s] = [
        _drinks(state, k, f"{where}.counters[{i}]") for i, k in enumerate(counters)
    ]
    state.completed[s] = _drinks(state, p.get("completed", list, []), f"{where}.completed")
    state.penalties[s] = _drinks(state, p.get("penalties", list, []), f"{where}.penalties")
    bits = 0
    for name in p.get("upgrades", list, []):
        if name not in UPGRADES:
            raise DataError(f"{where}.upgrades: {name!r} is not one of {', '.join(UPGRADES)}")
        if bits & (1 << UPGRADES.index(name)):
            raise DataError(f"{where}.upgrades: {name!r} is listed twice")
        bits |= 1 << UPGRADES.index(name)
    state.upgrades[s] = bits
    state.rush[s] = _count(p.get("rush", int, 0), f"{where}.rush")


def _read_meeple_progress(state: RushState) -> None:
    order = placement_order(state.num_players)
    placed = [state.meeples[s][m] >= 0 for s, m in order]
    count = sum(placed)
    if placed != [True] * count + [False] * (len(order) - count):
        raise DataError(
            "position: meeples are placed in turn (counterclockwise from the start player's right; "
            "2 players: seat 1, 0, 1, 0); the placed ones must come first in that order"
        )
    if (state.phase is Phase.PLACE) != (count < len(order)):
        raise DataError(
            "position: during the 'place' phase some meeple is still unplaced (null); "
            "in every other phase all are on the board"
        )
    state.placed = count


def _read_turn(state: RushState, r: _Reader) -> None:
    raw = r.get("turn", dict, None)
    if state.phase is Phase.PLACE:
        order = placement_order(state.num_players)
        if state.current != order[state.placed][0]:
            raise DataError(
                f"position: seat {order[state.placed][0]} places the next meeple, not seat {state.current}"
            )
    if raw is None:
        if state.phase is Phase.SETUP_POUR:
            raise DataError("position: the 'setup_pour' phase needs 'turn': {\"hand\": [...]}")
        return
    if state.phase not in (Phase.TURN, Phase.SETUP_POUR):
        raise DataError(
            f"position: 'turn' is only for the 'turn' and 'setup_pour' phases, not {state.phase.name.lower()!r}"
        )
    t = _Reader(raw, "position.turn")
    seat = state.current
    if state.phase is Phase.SETUP_POUR:
        if state.num_players != 2:
            raise DataError(
                "position: the 'setup_pour' phase is for 2 players only (with 3-4 players the set-up token goes into cup 1)"
            )
        t.check_keys({"hand"})
        state.hand = _tokens(state, t.get("hand", list), "position.turn.hand")
        if not any(state.hand):
            raise DataError("position.turn.hand: the set-up tokens still to pour (at least one)")
        return
    t.check_keys({"stage", "moving", "steps", "hand", "served", "upgraded"})
    stage_name = t.get("stage", str, "move")
    if stage_name not in _STAGES:
        raise DataError(f"position.turn: 'stage' must be one of {', '.join(_STAGES)}")
    state.stage = _STAGES[stage_name]
    state.steps = _count(t.get("steps", int, 0), "position.turn.steps")
    state.hand = _tokens(state, t.get("hand", list, []), "position.turn.hand")
    state.served = _count(t.get("served", int, 0), "position.turn.served")
    state.upgraded = t.get("upgraded", bool, False)
    moving = t.get("moving", (str, int), None, "a square (or the meeple's index 0/1)")
    if state.steps == 0:
        if moving is not None or state.stage is not Stage.MOVE:
            raise DataError(
                "position.turn: before the first step the stage is 'move' and nothing is 'moving'"
            )
        if any(state.hand):
            raise DataError("position.turn: no tokens are taken before the first step")
    else:
        if moving is None:
            raise DataError(
                "position.turn: after a step, 'moving' names the square of the meeple that moves"
            )
        mine = state.meeples[seat]
        if isinstance(moving, int):
            if not 0 <= moving < len(mine):
                raise DataError(
                    f"position.turn.moving: seat {seat} has meeples 0..{len(mine) - 1}, not {moving}"
                )
            state.meeple = moving
        else:
            square = _square(moving, "position.turn.moving")
            if square not in mine:
                raise DataError(f"position.turn.moving: seat {seat} has no meeple on {moving}")
            if mine.count(square) > 1:
                raise DataError(
                    f"position.turn.moving: both of seat {seat}'s meeples are on {moving}; "
                    "give the moving one's index (0 or 1) instead"
                )
            state.meeple = mine.index(square)
    if (state.stage is Stage.SERVE) != (state.served > 0):
        raise DataError("position.turn: the 'serve' stage comes with 'served' >= 1, and only then")
    if state.stage is Stage.SERVE and any(state.hand):
        raise DataError(
            "position.turn: serving ended pouring; the hand is empty in the 'serve' stage"
        )


def _read_deck(state: RushState, r: _Reader) -> None:
    cards = state.cards
    used = Counter(state.cards_in_play())
    if "deck" in r.data and r.data["deck"] is not None:
        deck = _drinks(state, r.get("deck", list), "position: 'deck'")
        if "deck_seed" in r.data:
            raise DataError("position: give 'deck' or 'deck_seed', not both")
    else:
        seed = r.get("deck_seed", int, 0)
        deck = []
        for d, drink in enumerate(cards.drinks):
            deck.extend([d] * (drink.copies - used[d]))
        Rng(seed).shuffle(deck)
    total = used + Counter(deck)
    for d, drink in enumerate(cards.drinks):
        if total[d] != drink.copies:
            raise DataError(
                f"position: {total[d]} {drink.name} card(s) in play and deck, but the game has "
                f"{drink.copies}"
            )
    state.deck = list(reversed(deck))


def _derive_supply(state: RushState, r: _Reader) -> None:
    cards = state.cards
    supply = list(cards.box)
    for s in range(state.num_players):
        for cup in state.cups[s]:
            for i, k in enumerate(cup):
                supply[i] -= k
    for i, k in enumerate(state.hand):
        supply[i] -= k
    for i, k in enumerate(supply):
        if k < 0:
            raise DataError(
                f"position: {cards.box[i] - k} {cards.ingredients[i]} tokens in cups and hand, but the box has {cards.box[i]}"
            )
    rush_supply = cards.rush - sum(state.rush)
    if rush_supply < 0:
        raise DataError(
            f"position: players hold {sum(state.rush)} rush tokens; the box has {cards.rush}"
        )
    given = r.get("supply", dict, None)
    if given is not None and given != dict(zip(cards.ingredients, supply, strict=True)):
        raise DataError(
            "position: 'supply' does not match the box minus cups and hand "
            f"(expected {dict(zip(cards.ingredients, supply, strict=True))}); omit it to have it computed"
        )
    given_rush = r.get("rush_supply", int, None)
    if given_rush is not None and given_rush != rush_supply:
        raise DataError(
            f"position: 'rush_supply' must be {rush_supply} (the box minus the players' rush tokens); omit it to have it computed"
        )
    state.supply = supply
    state.rush_supply = rush_supply
