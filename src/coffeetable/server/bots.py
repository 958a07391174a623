"""Bots in seats: which bots a seat may hold, and one bot decision (`choose_move`), which
runs in a worker process (`jobs.py`), never on a node's event loop.

The worker gets the full position JSON: it is a trusted part of the server, and every bot
searches only on `resample_hidden` determinizations, so it never uses what its seat may not
see (tests/bots check that). Clients never see that JSON.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from coffeetable.bots import make_bot
from coffeetable.bots.calibrate import calibrate
from coffeetable.bots.review import analyse_job
from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import JSON
from coffeetable.server.deckbook import game_on_text

#: The bot that takes over the seat of a player who ran out of time or left (BGA's "zombie").
ZOMBIE_BOT = "greedy"
#: Bots a table may seat.
SEAT_BOTS = ("random", "greedy", "ismcts:easy", "ismcts:medium", "ismcts:hard")


def choose_move(
    game_name: str,
    position: JSON,
    seat: int,
    bot: str,
    seed: int,
    plan: Sequence[str] = (),
    deck: str | None = None,
) -> tuple[str, list[str]]:
    """The notation of `bot`'s move for `seat` in `position` (runs in a worker), and the
    rest of the turn the bot plans after it (notations; empty for a bot that keeps no
    plan). `plan` is what the seat's previous move gave: a bot is built anew for every
    move, so the plan travels with the table (ISMCTS searches it again as one of its
    turns; one that no longer fits the position is dropped). `deck`: the text of the
    players' deck the table plays with (None: the default deck)."""
    game = game_on_text(game_name, deck)
    state = game.state_from_json(position)
    player = make_bot(bot, seed)
    plans = getattr(player, "plans", None)
    if plans is not None and plan:
        # a plan this game cannot read is dropped: the bot searches afresh
        with contextlib.suppress(CoffeetableError):
            plans[seat] = tuple(game.parse_action(text) for text in plan)
    action, _ = player.choose(state, seat)
    rest = plans.get(seat, ()) if plans is not None else ()
    return action.notation(), [step.notation() for step in rest]


#: The bounds of a deck calibration (a worker refuses a plan beyond them).
CALIBRATION_LIMITS = {"players": (1, 4), "games": (1, 200), "seconds": (1.0, 3600.0)}


def calibrate_deck(game_name: str, deck: str | None, plan: dict[str, Any]) -> dict[str, Any]:
    """A deck's calibration figures (runs in a worker; `bots.calibrate`): `plan` gives the
    bot, players, games, seed and the time bound in seconds."""
    bot = check_bot_name(plan.get("bot", "greedy"))
    numbers = {}
    for key, (low, high) in CALIBRATION_LIMITS.items():
        value = plan.get(key, low)
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not low <= value <= high
        ):
            raise ValueError(f"calibration {key} must be from {low} to {high}")
        numbers[key] = value
    seed = plan.get("seed", 1000)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("the calibration seed must be a whole number")
    return calibrate(
        game_on_text(game_name, deck),
        bot,
        int(numbers["players"]),
        int(numbers["games"]),
        seed,
        float(numbers["seconds"]),
    )


def check_bot_name(name: Any) -> str:
    if not isinstance(name, str) or name not in SEAT_BOTS:
        raise ValueError(f"unknown bot {name!r}; a seat may hold one of: {', '.join(SEAT_BOTS)}")
    return name


def review_decision(job: JSON) -> JSON:
    """`review.analyse_job` in a worker, on the deck the job's table was played with (its
    text in `deck`; None: the default deck)."""
    return analyse_job(job, game_on_text(job["game"], job.get("deck")))
