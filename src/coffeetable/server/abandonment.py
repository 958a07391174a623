"""Abandonment at a running table: signs of life, the offer to the others, their votes and
the outcome (the rules: `abandon.py`; docs/server-clocks-ratings.md, "Abandonment").

- **Signs of life** (any node): a seated person's socket connecting, and every message it
  sends (the web client pings every 25 s), count. The node that sees one notes it, tells
  the other nodes (at most every `SEEN_EVERY` s per socket, a `seen` message on the table's
  topic) and withdraws an open offer about that person: they are back.
- **The offer** (the node holding the table's lease, `after_change` → `_watch`): when a
  person to move has shown no sign of life for the table's limit, counted from the latest
  of the start of their turn, their last sign of life, the last "wait" about them and the
  moment this node loaded the table, and has no socket at the table on this node, the
  offer is stored with the table (compare-and-swap on its revision) and every client gets
  it in the `table` message. One offer at a time per table.
- **Votes** (any node, `vote`): stored with the table's compare-and-swap, so they travel to
  every node like any change of the table.
- **The outcome** (the lease holder, when the stored votes decide): applied in the same
  compare-and-swap that removes the offer, so it happens exactly once whichever node
  stored the deciding vote, and again after a reload finds nothing left to decide.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from coffeetable.server import abandon
from coffeetable.server.bots import ZOMBIE_BOT
from coffeetable.server.bus import table_topic
from coffeetable.server.leases import Leases
from coffeetable.server.livetable import Client, LiveTable, now_utc
from coffeetable.server.match import MatchService
from coffeetable.server.protocol import ErrorCode, ProtocolError
from coffeetable.server.ratings import rating_changes
from coffeetable.server.storage import AlreadyExistsError, Seat, StaleRevisionError

log = logging.getLogger("coffeetable.server")

#: Seconds between two signs of life of one socket sent to the other nodes.
SEEN_EVERY = 20.0
#: The longest the watch sleeps before it looks at the table again.
MAX_NAP = 60.0
#: Attempts at storing a vote or a withdrawal that lost a race with another change.
ATTEMPTS = 5


class AbandonService:
    def __init__(
        self,
        match: MatchService,
        leases: Leases,
        on_bot: Callable[[str], Awaitable[None]] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.match = match
        self.leases = leases
        #: called with a table one of whose seats a bot took over (it needs a driver)
        self.on_bot = on_bot
        self.now = clock
        match.on_seen = self._seen_elsewhere

    # ==== signs of life (any node) =============================================================
    async def seen(self, live: LiveTable, client: Client) -> None:
        """A seated person's socket connected or sent a message: they are here."""
        seat = client.seat
        if seat is None or live.meta.status != "running":
            return
        now = self.now()
        live.seen_at[seat] = now
        if now - client.seen_sent >= SEEN_EVERY:
            client.seen_sent = now
            with contextlib.suppress(Exception):  # a hint: the bus may be away a moment
                await self.match.bus.publish(
                    table_topic(live.meta.id), {"kind": "seen", "seat": seat}
                )
        offer = abandon.offer_of(live.meta)
        if offer is not None and offer["seat"] == seat:
            await self._withdraw(live, seat)

    def _seen_elsewhere(self, live: LiveTable, seat: int) -> None:
        live.seen_at[seat] = self.now()

    async def _withdraw(self, live: LiveTable, seat: int) -> None:
        """Take back the offer about `seat` (they came back)."""
        async with live.lock:
            for _ in range(ATTEMPTS):
                offer = abandon.offer_of(live.meta)
                if offer is None or offer["seat"] != seat:
                    return
                try:
                    await self.match.update(live, abandonment=abandon.withdrawn(live.meta))
                except StaleRevisionError:
                    continue
                log.info("abandonment: table %s seat %d is back", live.meta.id, seat)
                self.match.after_change(live)
                return

    # ==== votes (any node) =====================================================================
    async def vote(self, live: LiveTable, client: Client, seat: int, choice: str) -> None:
        """`client` votes `choice` on the offer about `seat`. ProtocolError (to that client
        only) and nothing changes if it may not."""
        vote = abandon.as_choice(choice)
        async with live.lock:
            for _ in range(ATTEMPTS):
                meta = live.meta
                if meta.status == "open" or live.state is None:
                    raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started yet")
                if meta.status != "running":
                    raise ProtocolError(ErrorCode.GAME_OVER, "the game is over")
                if client.seat is None:
                    raise ProtocolError(
                        ErrorCode.NOT_SEATED,
                        "only the players of this table vote; spectators do not",
                    )
                offer = abandon.offer_of(meta)
                if offer is None or offer["seat"] != seat:
                    raise ProtocolError(
                        ErrorCode.NO_OFFER,
                        f"nobody is asking about seat {seat} now: the question is over",
                    )
                if client.seat == seat:
                    raise ProtocolError(
                        ErrorCode.NOT_VOTER, "you are the player the others are asked about"
                    )
                if client.seat not in abandon.voters(meta, seat):
                    raise ProtocolError(
                        ErrorCode.NOT_VOTER, "a bot plays your seat now: you no longer vote"
                    )
                try:
                    await self.match.update(
                        live, abandonment=abandon.voted(meta, client.seat, vote)
                    )
                except StaleRevisionError:
                    continue  # reloaded: check again
                self.match.after_change(live)
                return
        raise ProtocolError(ErrorCode.STALE_VERSION, "the table keeps changing; vote again")

    # ==== the lease holder =====================================================================
    def after_change(self, live: LiveTable) -> None:
        """The table changed (on this node or another): note whose turn began, and on the
        node that drives the table, look at it again."""
        state = live.state
        if state is None or live.meta.status != "running" or state.is_over():
            return
        current = state.current_seats()
        now = self.now()
        for seat in list(live.turn_since):
            if seat not in current:
                del live.turn_since[seat]
        for seat in current:
            live.turn_since.setdefault(seat, now)
        if not self.leases.holds(live.meta.id):
            return
        task = live.abandon_task
        if task is not None and not task.done() and abandon.offer_of(live.meta) is None:
            # No offer to decide: a change (a move, the usual case) can only put the times
            # a look is due later, never earlier (every turn, sign of life and "wait" it
            # counts from is at or before now), so the watch goes on: if it wakes before
            # the new time, it looks again and sleeps on. No task made and cancelled per
            # move. (This also covers the watch's own changes, asked first: cheaper.)
            return
        if task is not None and task is asyncio.current_task():
            return  # the watch itself made the change: it looks again by itself
        if task is not None:
            task.cancel()
        live.abandon_task = asyncio.get_running_loop().create_task(self._watch(live))

    def _turn_began(self, live: LiveTable, seat: int) -> float:
        clock = live.clock
        if clock is not None and seat in clock.running:
            return self.now() - clock.waiting(seat)
        return live.turn_since.get(seat, live.loaded_wall)

    def _quiet_since(self, live: LiveTable, seat: int) -> float:
        """Since when the person at `seat` has shown no sign of life that counts."""
        return max(
            self._turn_began(live, seat),
            live.seen_at.get(seat, live.loaded_wall),
            abandon.waited_at(live.meta, seat) or 0.0,
            live.loaded_wall,
        )

    async def _watch(self, live: LiveTable) -> None:
        try:
            while True:
                async with live.lock:
                    if not self.leases.holds(live.meta.id):
                        return
                    wait = await self._look(live)
                if wait is None:
                    return
                await asyncio.sleep(min(MAX_NAP, max(0.05, wait)))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("abandonment watch of table %s failed", live.meta.id)

    async def _look(self, live: LiveTable) -> float | None:
        """One look at the table (lock held): store an offer that is due, or apply the
        outcome of one the votes decided. Returns the seconds until the next look, or None
        when only a change of the table (a vote, a move) can make one due."""
        meta = live.meta
        state = live.state
        if state is None or meta.status != "running" or state.is_over():
            return None
        now = self.now()
        offer = abandon.offer_of(meta)
        try:
            if offer is not None:
                seat = offer["seat"]
                voters = abandon.voters(meta, seat)
                if (
                    seat not in state.current_seats()
                    or not abandon.plays_itself(meta.seats[seat])
                    or not voters
                ):
                    await self.match.update(live, abandonment=abandon.withdrawn(meta))
                    return 0.0
                outcome = abandon.tally(offer["votes"], voters)
                if outcome is None:
                    return None
                await self._apply(live, seat, outcome, now)
                return 0.0
            limit = abandon.limit_of(meta)
            next_look: float | None = None
            for seat in sorted(state.current_seats()):
                if not abandon.plays_itself(meta.seats[seat]) or not abandon.voters(meta, seat):
                    continue
                if any(c.seat == seat for c in live.clients):
                    live.seen_at[seat] = now  # connected here: here
                due = self._quiet_since(live, seat) + limit
                if due <= now:
                    await self.match.update(live, abandonment=abandon.offered(meta, seat, now))
                    log.info("abandonment: table %s asks about seat %d", meta.id, seat)
                    return None
                next_look = due - now if next_look is None else min(next_look, due - now)
            return next_look
        except StaleRevisionError:
            return 0.0  # the table was reloaded: look again

    async def _apply(self, live: LiveTable, seat: int, outcome: abandon.Choice, now: float) -> None:
        """Apply the outcome the votes decided, in the change that removes the offer."""
        meta = live.meta
        after = abandon.decided(meta, outcome, now)
        if outcome == "wait":
            await self.match.update(live, abandonment=after)
        elif outcome == "bot":
            seats = list(meta.seats)
            seats[seat] = Seat("human", user_id=seats[seat].user_id, bot=ZOMBIE_BOT)
            await self.match.update(live, seats=seats, abandonment=after)
            self.match.after_change(live)
            if self.on_bot is not None:
                await self.on_bot(meta.id)
        else:
            if live.clock is not None:
                live.clock.stop()
            await self.match.update(
                live,
                status="aborted",
                finished_at=now_utc(),
                result={"abandoned": {"seat": seat}},
                abandonment=after,
            )
            await self._rate_leaver(live, seat)
        log.info("abandonment: table %s seat %d: %s", meta.id, seat, outcome)

    async def _rate_leaver(self, live: LiveTable, seat: int) -> None:
        """A rated game ended as abandoned: the leaver loses against every other person at
        the table; nobody else's rating changes (their game has no result)."""
        meta = live.meta
        users = [s.user_id for s in meta.seats]
        leaver = users[seat]
        if not meta.rated or leaver is None or any(u is None for u in users):
            return
        people = [u for u in users if u is not None]
        if len(set(people)) != len(people):
            return
        storage = self.match.storage
        current = {u: await storage.get_rating(u, meta.game) for u in people}
        new = rating_changes(
            {u: r.rating for u, r in current.items()},
            {u: r.games_played for u, r in current.items()},
            {u: 1 if u == leaver else 0 for u in people},
        )
        with contextlib.suppress(AlreadyExistsError):
            await storage.apply_rating_changes(meta.game, meta.id, {leaver: new[leaver]})
