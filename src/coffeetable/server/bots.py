"""Bots in seats, run off the event loop.

A bot's search is CPU-bound Python, so it runs in a worker process (a thread would hold the
GIL and slow every table). The worker gets the full position JSON: it is a trusted part of
the server, and every bot searches only on `resample_hidden` determinizations, so it never
uses what its seat may not see (tests/bots check that). Clients never see that JSON.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
from collections.abc import Sequence
from typing import Any

from coffeetable.bots import make_bot
from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import JSON
from coffeetable.core.registry import find_game

#: The bot that takes over the seat of a player who ran out of time or left (BGA's "zombie").
ZOMBIE_BOT = "greedy"
#: Bots a table may seat.
SEAT_BOTS = ("random", "greedy", "ismcts:easy", "ismcts:medium", "ismcts:hard")


def choose_move(
    game_name: str, position: JSON, seat: int, bot: str, seed: int, plan: Sequence[str] = ()
) -> tuple[str, list[str]]:
    """The notation of `bot`'s move for `seat` in `position` (runs in a worker), and the
    rest of the turn the bot plans after it (notations; empty for a bot that keeps no
    plan). `plan` is what the seat's previous move gave: a bot is built anew for every
    move, so the plan travels with the table (ISMCTS searches it again as one of its
    turns; one that no longer fits the position is dropped)."""
    game = find_game(game_name)
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


class BotRunner:
    """Runs bot decisions in a pool of worker processes (`workers`), or in threads with
    `mode="thread"` (tests that cannot fork), never on the event loop itself."""

    def __init__(self, workers: int = 1, mode: str = "process") -> None:
        self.workers = workers
        self.mode = mode
        self._pool: concurrent.futures.Executor | None = None

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self.mode == "process":
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers)
        return self._pool

    async def choose(
        self,
        game_name: str,
        position: JSON,
        seat: int,
        bot: str,
        seed: int,
        plan: Sequence[str] = (),
    ) -> tuple[str, list[str]]:
        """`choose_move` in a worker: the move's notation and the bot's plan after it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor(), choose_move, game_name, position, seat, bot, seed, tuple(plan)
        )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def check_bot_name(name: Any) -> str:
    if not isinstance(name, str) or name not in SEAT_BOTS:
        raise ValueError(f"unknown bot {name!r}; a seat may hold one of: {', '.join(SEAT_BOTS)}")
    return name
