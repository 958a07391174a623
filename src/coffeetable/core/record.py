"""Game records and position files.

A game is fully determined by (game, options, seats, seed, actions); a record stores exactly
that and replays it through the checked rules path. A position stores a full state (see each
game's position format). Both are JSON objects told apart by their "format" field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coffeetable.core.errors import CoffeetableError, DataError
from coffeetable.core.game import JSON, Action, Game, State
from coffeetable.core.registry import find_game

RECORD_FORMAT = "coffeetable.record/1"
POSITION_FORMAT = "coffeetable.position/1"


class RecordActionError(DataError):
    """An action in a record could not be read or is illegal; `index` is 0-based."""

    def __init__(self, index: int, seat: int, text: str, reason: str) -> None:
        super().__init__(f"action #{index} (seat {seat}, {text!r}) is illegal: {reason}")
        self.index = index
        self.seat = seat
        self.text = text
        self.reason = reason


@dataclass
class GameRecord:
    game: str
    seats: list[str]
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    actions: list[tuple[int, str]] = field(default_factory=list)

    # --- building -----------------------------------------------------------------------
    def replay(self, upto: int | None = None, game: Game | None = None) -> State:
        """The state after the first `upto` actions (all by default), checked at each step.

        `game` overrides the registered game (e.g. Café with another deck)."""
        game = game or find_game(self.game)
        state = game.new_initial_state(len(self.seats), self.seed, self.options)
        count = len(self.actions) if upto is None else upto
        previous: tuple[int, Action] | None = None
        for index, (seat, text) in enumerate(self.actions[:count]):
            try:
                action = game.parse_action(text)
                apply_stored(state, seat, action, previous)
            except CoffeetableError as exc:
                raise RecordActionError(index, seat, text, str(exc)) from None
            previous = (seat, action)
        return state

    # --- JSON ---------------------------------------------------------------------------
    def to_json(self, final: State | None = None) -> JSON:
        out: JSON = {
            "format": RECORD_FORMAT,
            "game": self.game,
            "options": self.options,
            "seats": self.seats,
            "seed": self.seed,
            "actions": [[seat, text] for seat, text in self.actions],
        }
        if final is not None and final.is_over():
            out["result"] = {
                "scores": [s.to_json() for s in final.scores()],
                "winners": final.winners(),
            }
        return out

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        if not isinstance(data, Mapping):
            raise DataError("a game record must be a JSON object")
        if data.get("format") != RECORD_FORMAT:
            raise DataError(f"not a game record: 'format' must be {RECORD_FORMAT!r}")
        game = _field(data, "game", str)
        find_game(game)  # a clear error for an unknown game
        seats = _field(data, "seats", list)
        if not seats or not all(isinstance(s, str) for s in seats):
            raise DataError("'seats' must be a non-empty list of seat names (strings)")
        seed = _field(data, "seed", int)
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise DataError("'options' must be a JSON object")
        raw_actions = _field(data, "actions", list)
        actions: list[tuple[int, str]] = []
        for i, item in enumerate(raw_actions):
            if (
                not isinstance(item, Sequence)
                or isinstance(item, str)
                or len(item) != 2
                or not isinstance(item[0], int)
                or isinstance(item[0], bool)
                or not isinstance(item[1], str)
            ):
                raise DataError(f'action #{i} must be [seat, "notation"], got {item!r}')
            actions.append((item[0], item[1]))
        return cls(game=game, seats=list(seats), seed=seed, options=dict(options), actions=actions)


def _field(data: Mapping[str, Any], name: str, kind: type) -> Any:
    if name not in data:
        raise DataError(f"missing field {name!r}")
    value = data[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise DataError(f"field {name!r} must be a {kind.__name__}, got {value!r}")
    return value


def read_json_file(path: str | Path) -> Any:
    """Read a JSON file; raise DataError with the place of a syntax error."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{p}: cannot read: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{p}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


def load_state_or_record(data: Any, game: Game | None = None) -> tuple[State, GameRecord | None]:
    """Interpret a parsed JSON document as a record (replayed) or a position."""
    if not isinstance(data, Mapping):
        raise DataError("expected a JSON object (a game record or a position)")
    fmt = data.get("format")
    if fmt == RECORD_FORMAT:
        record = GameRecord.from_json(data)
        return record.replay(game=game), record
    if fmt == POSITION_FORMAT:
        game_name = data.get("game")
        if not isinstance(game_name, str):
            raise DataError("a position needs a 'game' field naming the game")
        if game is None or game.info.name != game_name:
            game = find_game(game_name)
        return game.state_from_json(dict(data)), None
    raise DataError(
        f"unknown file format {fmt!r}; expected {RECORD_FORMAT!r} or {POSITION_FORMAT!r}"
    )


def apply_stored(
    state: State, seat: int, action: Action, previous: tuple[int, Action] | None
) -> bool:
    """Apply an action read from a stored game (a record, a server's table), checked;
    `previous` is the stored (seat, action) before it. A forced step that this engine plays
    by itself but an older one stored (`State.played_by_engine`) is skipped: returns False
    then, True when the action was applied."""
    if state.played_by_engine(seat, action, previous):
        return False
    state.apply(seat, action)
    return True
