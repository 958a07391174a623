"""The driver: what happens at a running table without anyone sending it — a bot's move, a
clock running out — and the hint button's bot.

Only the node that holds a table's lease drives it (`leases.py`): it plays the bot seats
(through `jobs.py`) and watches the clocks. A lone node holds every lease. With several
nodes, `run` renews this node's leases and takes the leases of running tables that no node
holds (a dead node's, a new table's), up to this node's share of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import Callable
from typing import Any

from coffeetable.core.errors import CoffeetableError
from coffeetable.server.bots import ZOMBIE_BOT
from coffeetable.server.jobs import JobError, Jobs
from coffeetable.server.leases import RENEW_EVERY, SCAN_EVERY, Leases
from coffeetable.server.livetable import LiveTable, TableError, bot_of, seat_of
from coffeetable.server.match import MatchService
from coffeetable.server.storage import Seat, StaleRevisionError, StaleVersionError, User

log = logging.getLogger("coffeetable.server")

#: The bot behind the hint button: the search at the easy level's budget in every game (the
#: level itself plays a weaker bot in some games: bots/make.py, GAME_LEVELS).
HINT_BOT = "ismcts:0.1s"
#: Seconds to wait before trying a bot's move again after its job failed.
RETRY_AFTER = 1.0


class Driver:
    def __init__(self, match: MatchService, leases: Leases, jobs: Jobs) -> None:
        self.match = match
        self.leases = leases
        self.jobs = jobs
        match.after_change = self.after_change
        match.may_release = lambda table_id: (
            not (self.leases.shared and self.leases.holds(table_id))
        )
        self._task: asyncio.Task[None] | None = None
        #: users with a hint being computed (one at a time each)
        self._hinting: set[int] = set()
        #: told of every change of a live table, before the driver acts on it (abandonment)
        self.watchers: list[Callable[[LiveTable], None]] = []

    # ==== what runs next at a table ===========================================================
    def after_change(self, live: LiveTable) -> None:
        """Start what must run next, if this node drives the table: a bot whose seat may
        act, the clock's timer."""
        for watch in self.watchers:
            watch(live)
        state = live.state
        if state is None or state.is_over() or live.meta.status != "running":
            if live.meta.status in ("finished", "aborted") and self.leases.shared:
                asyncio.get_running_loop().create_task(self.leases.release([live.meta.id]))
            return
        if not self.leases.holds(live.meta.id):
            return
        if live.bot_task is None or live.bot_task.done():
            seats = [
                s for s in sorted(state.current_seats()) if bot_of(live.meta.seats[s]) is not None
            ]
            if seats:
                live.bot_task = asyncio.create_task(self._bot_turn(live, seats[0]))
        if live.clock is not None:
            # the running seats changed, and so may the first deadline: watch anew
            if live.timer_task is not None and live.timer_task is not asyncio.current_task():
                live.timer_task.cancel()
            live.timer_task = asyncio.create_task(self._watch_clock(live))

    async def _bot_turn(self, live: LiveTable, seat: int) -> None:
        state = live.state
        bot = bot_of(live.meta.seats[seat])
        if state is None or bot is None:
            return
        version = live.meta.version
        log.debug("bot %s of table %s thinks at version %d", bot, live.meta.id, version)
        try:
            text, plan = await self.jobs.choose(
                live.meta.game,
                state.to_json(),
                seat,
                bot,
                live.meta.seed ^ version,
                live.bot_plans.pop(seat, ()),
                deck=live.deck.text if live.deck is not None else None,
            )
        except JobError as exc:  # the bot failed, or no worker answered: try again later
            log.warning("bot %s failed at table %s: %s", bot, live.meta.id, exc)
            await asyncio.sleep(RETRY_AFTER)
            live.bot_task = None
            self.after_change(live)
            return
        async with live.lock:
            state = live.state
            if (
                state is None
                or state.is_over()
                or live.meta.status != "running"
                or seat not in state.current_seats()
                or bot_of(live.meta.seats[seat]) is None
                or not self.leases.holds(live.meta.id)
            ):
                live.bot_task = None
                self.after_change(live)
                return
            try:
                after = state.clone()
                played = after.apply(seat, live.game.parse_action(text))
            except CoffeetableError:
                # the table moved on meanwhile (Café: another seat took from the supply)
                live.bot_task = None
                self.after_change(live)
                return
            live.bot_task = None
            if plan:
                live.bot_plans[seat] = plan
            try:
                await self.match.commit(live, seat, played, after)
            except StaleVersionError:
                # another node stored a move first: catch up, and the bot thinks again
                await self.match.resync(live)

    async def _watch_clock(self, live: LiveTable) -> None:
        """Sleep until the first running person's time is up; then a bot takes the seat.
        Restarted whenever the running seats change (`after_change`). The seat change is
        stored only if the table is still at the revision this node knows, so a clock never
        fires twice."""
        clock = live.clock
        while clock is not None and live.meta.status == "running":
            people = [s for s in clock.running if live.meta.seats[s].bot is None]
            if not clock.realtime and clock.settings.turn_limit is None:
                return
            if not people:
                return
            wait = min(
                clock.remaining(s)
                if clock.realtime
                else clock.settings.turn_limit - clock.waiting(s)  # type: ignore[operator]
                for s in people
            )
            await asyncio.sleep(max(0.0, wait) + 0.01)
            async with live.lock:
                if not self.leases.holds(live.meta.id):
                    return
                expired = [s for s in clock.expired() if live.meta.seats[s].bot is None]
                if not expired or live.meta.status != "running":
                    continue
                seats = list(live.meta.seats)
                for s in expired:
                    seats[s] = Seat(seats[s].kind, user_id=seats[s].user_id, bot=ZOMBIE_BOT)
                try:
                    await self.match.update(live, seats=seats)
                except StaleRevisionError:
                    continue  # reloaded: look at the clocks again
                for s in expired:
                    log.info("clock: table %s seat %d ran out", live.meta.id, s)
                self.after_change(live)
                return

    # ==== hints ===============================================================================
    async def hint(self, table_id: str, user: User) -> dict[str, Any]:
        """The hint bot's suggestion for the user's seat (not in rated games). One at a time
        per user; hints wait behind bot seats' decisions."""
        live = await self.match.live(table_id)
        state = live.state
        seat = seat_of(live.meta, user)
        if live.meta.rated:
            raise TableError(403, "rated", "hints are off in rated games")
        if seat is None:
            raise TableError(403, "not_seated", "hints are for the players of this table")
        if state is None or live.meta.status != "running" or state.is_over():
            raise TableError(409, "not_running", "there is no game in play at this table")
        if seat not in state.current_seats():
            raise TableError(409, "not_your_turn", "it is not your turn")
        if user.id in self._hinting:
            raise TableError(429, "busy", "your last hint is still being worked out")
        version = live.meta.version
        self._hinting.add(user.id)
        try:
            text, _ = await self.jobs.choose(
                live.meta.game,
                state.to_json(),
                seat,
                HINT_BOT,
                live.meta.seed ^ (version + 7919),
                deck=live.deck.text if live.deck is not None else None,
                hint=True,
                timeout=30.0,
            )
        except JobError:
            raise TableError(
                503, "busy", "no hint could be worked out just now; try again"
            ) from None
        finally:
            self._hinting.discard(user.id)
        action = live.game.parse_action(text)
        return {
            "version": version,
            "action": text,
            "text": state.describe(seat, action),
            "say": state.say(seat, action).to_json(),
        }

    # ==== leases ==============================================================================
    async def start(self) -> None:
        if self.leases.shared:
            self._task = asyncio.create_task(self.run(), name="leases")

    async def run(self) -> None:
        """Several nodes: renew this node's leases, take those of tables nobody drives, and
        catch up with tables whose messages were lost."""
        next_scan = 0.0
        loop = asyncio.get_running_loop()
        while True:
            try:
                for table_id in await self.leases.renew():
                    self._lost(table_id)
                if loop.time() >= next_scan:
                    next_scan = loop.time() + SCAN_EVERY
                    await self._take_unleased()
                    await self.match.check_revisions()
                    self.match.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis or the database away: the leases lapse
                log.warning("lease upkeep failed: %s", exc)
            await asyncio.sleep(RENEW_EVERY)

    def _lost(self, table_id: str) -> None:
        live = self.match.live_tables.get(table_id)
        log.info("lost the lease of table %s", table_id)
        if live is not None:
            for task in (live.bot_task, live.timer_task, live.abandon_task):
                if task is not None:
                    task.cancel()
            live.bot_task = live.timer_task = live.abandon_task = None

    async def _take_unleased(self) -> None:
        running = await self.match.storage.running_table_ids()
        held = set(self.leases.held())
        # leases past their local validity are dropped (renewal failed): stop driving
        for live in self.match.live_tables.values():
            if live.meta.id not in held and live.bot_task is not None:
                self._lost(live.meta.id)
        free = await self.leases.unleased([t for t in running if t not in held])
        if not free:
            return
        share = math.ceil(len(running) / await self.leases.node_count()) + 1
        room = max(0, share - len(held))
        if room == 0:
            return
        random.shuffle(free)
        for table_id in await self.leases.acquire(free[:room]):
            log.info("took the lease of table %s", table_id)
            await self.drive(table_id)

    async def drive(self, table_id: str) -> None:
        """This node took the table's lease: load it and start its bots and clock."""
        held = self.match.live_tables.get(table_id)
        try:
            live = await self.match.live(table_id)
        except Exception:
            log.exception("could not load table %s", table_id)
            await self.leases.release([table_id])
            return
        if live is held:
            # a copy held before may lag behind: the freshest state, then what runs next
            # (a copy loaded just now is fresh, and `live` started what runs next already)
            async with live.lock:
                await self.match.resync(live)

    async def take(self, table_id: str) -> None:
        """Several nodes: take the lease of a table that just started or got a bot, if no
        node holds it (the scan would, a moment later)."""
        if self.leases.shared and not self.leases.holds(table_id):
            with contextlib.suppress(Exception):
                if await self.leases.acquire([table_id]):
                    log.info("took the lease of table %s (it started here)", table_id)
                    live = self.match.live_tables.get(table_id)
                    if live is not None:
                        self.after_change(live)

    async def close(self) -> None:
        """Stop driving; hand the leases over at once (the others take them in a scan)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.leases.shared:
            await self.leases.release(self.leases.held())
