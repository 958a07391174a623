"""`coffeetable play`: terminal play, hotseat and against the random bot."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from coffeetable.bots.make import make_bot
from coffeetable.core.errors import CoffeetableError, DataError
from coffeetable.core.game import Game
from coffeetable.core.record import GameRecord

HELP = """commands: a move in notation (docs/cafe-notation.md, docs/coffee-rush-notation.md), or
  ?         list your legal moves        show   draw the table again
  save FILE write the record so far      quit   stop (the record is written if --record)"""


def play(
    game: Game,
    players: int,
    bots: int,
    seed: int | None,
    record_path: str | None,
    options: dict[str, Any] | None = None,
    bot: str = "random",
) -> int:
    game.check_setup(players, seed if seed is not None else 0)
    if not 0 <= bots <= players:
        raise DataError(f"--bots must be between 0 and {players}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    options = game.normalize_options(options)
    state = game.new_initial_state(players, seed, options)
    humans = players - bots
    make_bot(bot)  # a clear error for an unknown bot
    seats = [f"human:{i}" if i < humans else f"bot:{bot}" for i in range(players)]
    record = GameRecord(game=game.info.name, seats=seats, seed=seed, options=options)
    bot_of = {i: make_bot(bot, seed * 8 + i) for i in range(humans, players)}
    print(
        f"{game.info.title}, {players} players, seed {seed}. Type ? for your legal moves, 'help' for commands."
    )
    shown_for: int | None = None
    bot_steps: list[str] = []  # a bot's consecutive steps, printed on one line
    bot_seat = -1
    while not state.is_over():
        seat = min(state.current_seats())
        if seat in bot_of:
            if seat != bot_seat and bot_steps:
                print(f"seat {bot_seat} (bot): {'; '.join(bot_steps)}")
                bot_steps = []
            action, _ = bot_of[seat].choose(state, seat)
            applied = state.apply(seat, action)
            record.actions.append((seat, applied.notation()))
            bot_steps.append(applied.notation())
            bot_seat = seat
            continue
        if bot_steps:
            print(f"seat {bot_seat} (bot): {'; '.join(bot_steps)}")
            bot_steps = []
        if shown_for != seat:
            print(state.render(seat if humans == 1 else None))
            shown_for = seat
        try:
            line = input(f"seat {seat}> ").strip()
        except EOFError:
            print()
            break
        if not line:
            continue
        if line in ("?", "legal"):
            print("  " + "\n  ".join(a.notation() for a in state.legal_actions(seat)))
        elif line == "help":
            print(HELP)
        elif line == "show":
            print(state.render())
        elif line.startswith("save "):
            _write(record, state, line[5:].strip())
        elif line == "quit":
            break
        else:
            try:
                applied = state.apply(seat, game.parse_action(line))
            except CoffeetableError as exc:
                print(f"  not played: {exc}")
                continue
            record.actions.append((seat, applied.notation()))
            shown_for = None  # show the table again after every move of a person
    if bot_steps:
        print(f"seat {bot_seat} (bot): {'; '.join(bot_steps)}")
    if state.is_over():
        print(state.render())
        print("\nFinal scores:")
        for s, score in enumerate(state.scores()):
            parts = ", ".join(f"{name} {pts}" for name, pts in score.parts)
            label = f" — {score.label}" if score.label else ""
            print(f"  seat {s}: {score.total} ({parts}){label}")
        print(f"Winner(s): {', '.join(f'seat {w}' for w in state.winners())}")
    if record_path:
        _write(record, state, record_path)
    return 0


def _write(record: GameRecord, state: object, path: str) -> None:
    from coffeetable.core.game import State

    final = state if isinstance(state, State) else None
    try:
        Path(path).write_text(json.dumps(record.to_json(final), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"  could not write {path}: {exc.strerror or exc}", file=sys.stderr)
        return
    print(f"record written to {path}")
