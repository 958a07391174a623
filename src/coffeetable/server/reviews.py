"""Game reviews online (docs/server.md, "Game reviews"): a finished game analysed move by
move (bots/review.py) on the bot workers, stored once per game and budget.

- Only a finished game is reviewed (a running game never, a rated one once it has ended).
- Its decisions go to the workers one at a time as the lowest-priority jobs
  (`Jobs.analyse`: after bot seats' decisions and hints), and each node runs at most
  `RUNNING_PER_NODE` reviews at once: a review never starves bot seats. The node replays
  the game (in a thread) and sends each decision's position; the worker analyses it on
  determinizations only.
- A user has at most `QUEUE_PER_USER` reviews queued or running, and `daily` new ones a
  day; a review someone already asked for costs nothing.
- A review stuck queued or running (its node died) for `STALE` may be asked for again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from coffeetable.bots.base import Limit
from coffeetable.bots.review import (
    MoveReview,
    ReviewSettings,
    assemble,
    decision_job,
    decisions,
)
from coffeetable.core.errors import CoffeetableError
from coffeetable.server.jobs import Jobs
from coffeetable.server.livetable import TableError
from coffeetable.server.replays import ReplayService
from coffeetable.server.storage import NotFoundError, Storage, StoredReview, User

log = logging.getLogger("coffeetable.server.reviews")

#: the budgets a review may be asked for at (the settings' keys name them in storage)
BUDGETS: dict[str, ReviewSettings] = {
    "quick": ReviewSettings("greedy", samples=4, seed=0),
    "deep": ReviewSettings("ismcts", Limit(iterations=30), samples=8, seed=0),
}
DEFAULT_BUDGET = "quick"
RUNNING_PER_NODE = 1
QUEUE_PER_USER = 1
STALE = timedelta(minutes=15)
DAY = timedelta(days=1)
#: the review's progress is stored every this many decisions
PROGRESS_EVERY = 5


def review_out(stored: StoredReview, budget: str) -> dict[str, Any]:
    """A stored review as the API shows it."""
    out: dict[str, Any] = {"table_id": stored.table_id, "budget": budget, "status": stored.status}
    if stored.status == "done":
        out["review"] = stored.review
    elif stored.status == "running" and stored.review:
        out["progress"] = stored.review
    elif stored.status == "failed":
        out["error"] = stored.error
    return out


class ReviewService:
    def __init__(
        self,
        storage: Storage,
        replays: ReplayService,
        jobs: Jobs,
        daily: int = 10,
        samples: int | None = None,
    ) -> None:
        """`samples`: the deals each move is played out on, for every budget (a small site
        or the tests; None: the budgets' own)."""
        self.budgets = {
            name: dataclasses.replace(settings, samples=samples) if samples else settings
            for name, settings in BUDGETS.items()
        }
        self.storage = storage
        self.replays = replays
        self.jobs = jobs
        self.daily = daily
        self._slots = asyncio.Semaphore(RUNNING_PER_NODE)
        self._tasks: set[asyncio.Task[None]] = set()

    def settings(self, budget: str | None) -> tuple[str, ReviewSettings]:
        name = budget or DEFAULT_BUDGET
        if name not in self.budgets:
            raise TableError(
                400, "unknown_budget", f"unknown budget {name!r}: one of {', '.join(BUDGETS)}"
            )
        return name, self.budgets[name]

    async def get(self, table_id: str, budget: str | None) -> dict[str, Any]:
        name, settings = self.settings(budget)
        stored = await self.storage.get_review(table_id, settings.key())
        if stored is None:
            raise TableError(404, "no_review", "nobody has asked for this game's review yet")
        return review_out(stored, name)

    async def request(self, table_id: str, user: User, budget: str | None) -> dict[str, Any]:
        """Ask for the table's review: the stored one if there is one (done, or on its way),
        else a new one, queued (409 `not_finished` for a game not over; 429
        `rate_limited` beyond the user's queue or daily budget)."""
        name, settings = self.settings(budget)
        meta = await self.storage.get_table(table_id)
        if meta is None:
            raise TableError(404, "no_table", f"there is no table {table_id!r}")
        if meta.status != "finished":
            raise TableError(409, "not_finished", "a game is reviewed once it is over")
        key = settings.key()
        now = datetime.now(UTC)
        stored = await self.storage.get_review(table_id, key)
        fresh = stored is not None and (
            stored.status == "done"
            or (stored.status != "failed" and stored.updated_at >= now - STALE)
        )
        if stored is not None and fresh:
            return review_out(stored, name)
        if await self.storage.reviews_requested(user.id, now - STALE, ("queued", "running")) >= (
            QUEUE_PER_USER
        ):
            raise TableError(
                429, "rate_limited", "a review you asked for is still under way: wait for it"
            )
        if await self.storage.reviews_requested(user.id, now - DAY) >= self.daily:
            raise TableError(
                429, "rate_limited", f"you may ask for {self.daily} reviews a day; try tomorrow"
            )
        try:
            stored, queued = await self.storage.queue_review(
                table_id, key, user.id, retry_before=now - STALE
            )
        except NotFoundError:
            raise TableError(404, "no_table", f"there is no table {table_id!r}") from None
        if queued:
            task = asyncio.create_task(self._run(table_id, settings), name=f"review-{table_id}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return review_out(stored, name)

    async def _run(self, table_id: str, settings: ReviewSettings) -> None:
        key = settings.key()
        try:
            async with self._slots:
                await self.storage.set_review(table_id, key, "running")
                review = await self._analyse(table_id, settings)
                await self.storage.set_review(table_id, key, "done", review=review)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await self.storage.set_review(table_id, key, "failed", error="the server stopped")
            raise
        except Exception as exc:
            log.warning("the review of %s failed: %s", table_id, exc)
            with contextlib.suppress(Exception):
                await self.storage.set_review(
                    table_id, key, "failed", error=f"the review could not be made: {exc}"
                )

    async def _analyse(self, table_id: str, settings: ReviewSettings) -> dict[str, Any]:
        start = time.perf_counter()
        record, final = await self.replays.record(table_id)
        # a table on a players' deck is replayed, and its jobs analysed, on that deck
        game, deck = await self.replays.match.decks.game_for(record.game, record.options)
        text = deck.text if deck is not None else None
        found = await asyncio.to_thread(
            lambda: [
                {**decision_job(record.game, d, settings), "deck": text}
                for d in decisions(record, game)
            ]
        )
        key = settings.key()
        moves: list[MoveReview] = []
        for i, job in enumerate(found):
            moves.append(MoveReview.from_json(await self.jobs.analyse(job)))
            if (i + 1) % PROGRESS_EVERY == 0:
                progress = {"done": i + 1, "total": len(found)}
                await self.storage.set_review(table_id, key, "running", review=progress)
        seats = list(range(len(record.seats)))
        review = assemble(record, final, settings, seats, moves, time.perf_counter() - start)
        return review.to_json()

    async def compare(self, table_id: str, index: int, budget: str | None) -> dict[str, Any]:
        """A reviewed move of the game: the public view before it, after the move made, and
        after the move suggested (a finished game's; no hidden card is in a public view)."""
        stored = await self.storage.get_review(table_id, self.settings(budget)[1].key())
        if stored is None or stored.status != "done" or stored.review is None:
            raise TableError(404, "no_review", "this game has no review at that budget yet")
        move = next((m for m in stored.review["moves"] if m["index"] == index), None)
        if move is None:
            raise TableError(404, "no_move", f"move #{index} was not reviewed")
        state, _ = await self.replays.replay_state(table_id, index)
        game = state.game
        seat = int(move["seat"])
        out: dict[str, Any] = {"index": index, "move": move, "before": state.view(None)}
        for name in ("played", "suggested"):
            after = state.clone()
            try:
                after.apply(seat, game.parse_action(move[name]))
            except CoffeetableError:
                # a step inside a multi-step record action: shown from the action's start
                out[name] = None
                continue
            out[name] = after.view(None)
        return out

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
