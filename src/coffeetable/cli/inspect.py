"""`coffeetable inspect FILE`: who is to move, their legal actions, scores, result."""

from __future__ import annotations

import json
from typing import Any

from coffeetable.bots.base import Limit
from coffeetable.bots.make import make_bot
from coffeetable.cli.games import game_for
from coffeetable.core.game import State
from coffeetable.core.record import GameRecord, load_state_or_record, read_json_file


def describe(state: State, record: GameRecord | None) -> dict[str, Any]:
    info: dict[str, Any] = {
        "game": state.game.info.name,
        "kind": "record" if record else "position",
        "over": state.is_over(),
        "to_move": {
            str(seat): [a.notation() for a in state.legal_actions(seat)]
            for seat in sorted(state.current_seats())
        },
        "scores": [s.to_json() for s in state.scores()],
        "options": getattr(state, "options", {}),
    }
    if record is not None:
        info.update(
            options=record.options,
            seats=record.seats,
            seed=record.seed,
            actions=len(record.actions),
        )
    if state.is_over():
        info["winners"] = state.winners()
    return info


def suggestions(state: State, bot_name: str, limit: Limit | None) -> dict[str, Any]:
    """The bot's recommended action for each seat to move, with its evaluation."""
    out: dict[str, Any] = {}
    for seat in sorted(state.current_seats()):
        bot = make_bot(bot_name, seed=seat)
        action, info = bot.choose(state, seat, limit)
        out[str(seat)] = {"bot": bot_name, "action": action.notation(), **info}
    return out


def inspect_file(
    path: str,
    deck: str | None,
    as_json: bool,
    cards: str | None = None,
    suggest: tuple[str, Limit | None] | None = None,
) -> int:
    data = read_json_file(path)
    game = None
    if deck is not None or cards is not None:
        default = "coffee-rush" if cards is not None else "cafe"
        name = data.get("game", default) if isinstance(data, dict) else default
        game = game_for(name if isinstance(name, str) else default, deck, cards)
    state, record = load_state_or_record(data, game)
    info = describe(state, record)
    if suggest is not None and not state.is_over():
        info["suggestions"] = suggestions(state, *suggest)
    if as_json:
        print(json.dumps(info, indent=2, ensure_ascii=False))
        return 0
    opts = {k: v for k, v in info["options"].items() if not k.endswith("_sha256")}
    lines = [
        f"{path}: {state.game.info.title} {info['kind']}; options: "
        + (", ".join(f"{k}={v}" for k, v in opts.items()) or "none")
    ]
    if record is not None:
        lines.append(
            f"seats: {', '.join(record.seats)}; seed {record.seed}; {len(record.actions)} actions"
        )
    lines.append(state.render())
    if state.is_over():
        lines.append("\nGame over.")
    else:
        for seat, moves in info["to_move"].items():
            lines.append(f"\nSeat {seat} to move; {len(moves)} legal actions:")
            lines.extend(f"  {m}" for m in moves)
    for seat, hint in info.get("suggestions", {}).items():
        value = hint.get("value")
        how = f"value {value:.3f}" if isinstance(value, float) else "the only legal action"
        lines.append(f"\nSuggestion for seat {seat} ({hint['bot']}): {hint['action']} ({how})")
        for alt in hint.get("top", [])[1:]:
            lines.append(
                f"  also considered: {alt['action']} (value {alt['value']:.3f}, {alt['visits']} visits)"
            )
    lines.append("\nScores" + (" (final)" if state.is_over() else " if the game ended now") + ":")
    for seat, score in enumerate(state.scores()):
        parts = ", ".join(f"{name} {pts}" for name, pts in score.parts)
        label = f" — {score.label}" if score.label else ""
        tiebreak = f" (tie-break {', '.join(map(str, score.tiebreak))})" if score.tiebreak else ""
        lines.append(f"  seat {seat}: {score.total} = {parts}{tiebreak}{label}")
    if state.is_over():
        winners = info["winners"]
        lines.append(
            f"Winner{'s' if len(winners) > 1 else ''}: seat {', '.join(map(str, winners))}"
        )
    print("\n".join(lines))
    return 0
