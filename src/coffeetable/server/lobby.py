"""The lobby: tables from creation to the start (create, join, leave, start, rematch), and the
live list of public tables that every lobby socket of every node gets (`LobbyFeed`).

A change of a table's seats or status is stored only if the table is still at the revision
this node knows (`MatchService.update`): two people who take the last seat at once through
two nodes cannot both get it. The one that lost the race is checked again against the
reloaded table.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from coffeetable.core.errors import DataError
from coffeetable.core.registry import game_names
from coffeetable.server import abandon
from coffeetable.server.bots import ZOMBIE_BOT, check_bot_name
from coffeetable.server.bus import LOBBY, Bus
from coffeetable.server.clock import ClockSettings
from coffeetable.server.deckbook import UnknownDeck
from coffeetable.server.livetable import LiveTable, TableError, now_utc, seat_of, table_json
from coffeetable.server.match import MatchService
from coffeetable.server.storage import GameTable, Seat, StaleRevisionError, User

#: Attempts at a seat or status change that lost a race with another node.
ATTEMPTS = 5


class LobbyFeed:
    """Every public table that changes, to every lobby socket of this node: the node that
    made the change publishes it on the bus, and each node passes it to its sockets."""

    def __init__(self, bus: Bus, names: dict[int, str]) -> None:
        self.bus = bus
        self.names = names
        self.clients: set[asyncio.Queue[dict[str, Any] | str | None]] = set()

    async def changed(self, table: GameTable) -> None:
        if table.private:
            return
        await self.bus.publish(LOBBY, {"type": "table", "table": table_json(table, self.names)})

    async def on_message(self, topic: str, message: dict[str, Any]) -> None:
        for queue in list(self.clients):
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:
                self.clients.discard(queue)
                with contextlib.suppress(asyncio.QueueFull):
                    queue.put_nowait(None)


class LobbyService:
    def __init__(
        self,
        match: MatchService,
        on_running: Callable[[str], Awaitable[None]] | None = None,
        abandon_minimum: float = abandon.MIN_LIMIT,
    ) -> None:
        self.match = match
        #: the shortest `abandon_after` a creator may choose
        self.abandon_minimum = abandon_minimum
        self.storage = match.storage
        #: called with a table that started, or got a bot: it needs a driver
        self.on_running = on_running

    async def _changing(
        self, table_id: str, change: Callable[[LiveTable], Awaitable[None]]
    ) -> GameTable:
        """Run `change` under the table's lock, again on the reloaded table if it lost a
        race with another node."""
        live = await self.match.live(table_id)
        for _ in range(ATTEMPTS):
            async with live.lock:
                try:
                    await change(live)
                except StaleRevisionError:
                    continue
                return live.meta
        raise TableError(409, "busy", "the table keeps changing; try again")

    async def create(
        self,
        user: User,
        game_name: str,
        options: dict[str, Any] | None,
        seats: list[dict[str, Any]],
        clock: dict[str, Any] | None,
        rated: bool,
        private: bool,
        request_id: str | None = None,
        open_tables_limit: int | None = None,
        abandon_after: float | None = None,
    ) -> GameTable:
        """A new open table; the same user's repeated `request_id` gets the same table back
        (storage `create_table`'s request_key). `open_tables_limit`: refused (409
        `too_many_tables`) if the user has created this many open tables already (counted in
        the database: site-wide). `abandon_after`: the table's abandonment limit in seconds
        (None: its speed's default)."""
        if open_tables_limit is not None and (
            await self.storage.count_open_tables(user.id) >= open_tables_limit
        ):
            raise TableError(
                409,
                "too_many_tables",
                f"you have {open_tables_limit} open tables already: start or leave one first",
            )
        if game_name not in game_names():
            raise TableError(
                400, "unknown_game", f"unknown game {game_name!r}; games: {', '.join(game_names())}"
            )
        try:
            game, _ = await self.match.decks.game_for(game_name, options)
        except UnknownDeck:
            raise TableError(
                404, "deck_not_found", "there is no such deck, or it is not yours to use"
            ) from None
        n = len(seats)
        seed = secrets.randbits(63)
        try:
            game.check_setup(n, seed)
            normalized = game.normalize_options(options or {})
            game.new_initial_state(n, seed, normalized)  # e.g. advanced Café needs 2+ players
        except DataError as exc:
            raise TableError(400, "invalid_table", str(exc)) from None
        built: list[Seat] = []
        for index, spec in enumerate(seats):
            kind = spec.get("kind")
            if kind == "bot":
                try:
                    built.append(Seat("bot", bot=check_bot_name(spec.get("bot"))))
                except ValueError as exc:
                    raise TableError(400, "invalid_table", f"seat {index}: {exc}") from None
            elif kind in ("human", "open"):
                built.append(Seat("open"))
            else:
                raise TableError(
                    400, "invalid_table", f"seat {index}: kind must be 'human', 'bot' or 'open'"
                )
        first_human = next(
            (i for i, spec in enumerate(seats) if spec.get("kind") in ("human", "open")), None
        )
        if first_human is None:
            raise TableError(400, "invalid_table", "a table needs at least one seat for a person")
        built[first_human] = Seat("human", user_id=user.id)
        if rated and any(seat.kind == "bot" for seat in built):
            raise TableError(
                400, "invalid_table", "a rated table is for people only: it cannot seat bots"
            )
        if rated and (n < 2 or user.is_guest):
            raise TableError(
                400,
                "invalid_table",
                "rated tables need 2 or more players, and guests cannot play rated games",
            )
        if abandon_after is not None:
            try:
                abandon_after = abandon.check_limit(abandon_after, self.abandon_minimum)
            except ValueError as exc:
                raise TableError(400, "invalid_table", str(exc)) from None
        settings = None
        if clock is not None:
            try:
                settings = ClockSettings.from_json(clock).to_json()
            except ValueError as exc:
                raise TableError(400, "invalid_clock", str(exc)) from None
        table = await self.storage.create_table(
            secrets.token_urlsafe(6),
            game=game_name,
            seed=seed,
            seats=built,
            options=normalized,
            clock=settings,
            rated=rated,
            private=private,
            invite_token=secrets.token_urlsafe(12) if private else None,
            created_by=user.id,
            request_key=request_id,
            abandon_after=abandon_after,
        )
        self.match.names[user.id] = user.name
        await self.match.listing_changed(table)
        return table

    async def get(self, table_id: str) -> GameTable:
        live = self.match.live_tables.get(table_id)
        if live is not None:
            return live.meta
        table = await self.storage.get_table(table_id)
        if table is None:
            raise TableError(404, "no_table", f"there is no table {table_id!r}")
        return table

    async def join(
        self, table_id: str, user: User, seat: int | None = None, invite: str | None = None
    ) -> GameTable:
        async def change(live: LiveTable) -> None:
            meta = live.meta
            if seat_of(meta, user) is not None:
                return  # joined already: a repeated request (a double click)
            if meta.status != "open":
                raise TableError(409, "not_open", "this table has already started")
            if (
                meta.private
                and not (
                    invite
                    and meta.invite_token
                    and secrets.compare_digest(invite, meta.invite_token)
                )
                and meta.created_by != user.id
            ):
                raise TableError(403, "private", "this table is private: use its invite link")
            if meta.rated and user.is_guest:
                raise TableError(403, "guest", "guests cannot play rated games; register first")
            # nobody sits down with a player who blocked them, nor at their table
            people = [s.user_id for s in meta.seats if s.user_id is not None]
            if meta.created_by is not None:
                people.append(meta.created_by)
            if await self.storage.blockers_among(user.id, people):
                raise TableError(
                    403, "blocked", "a player at this table has blocked you: you cannot join it"
                )
            free = [i for i, s in enumerate(meta.seats) if s.kind == "open"]
            chosen = seat
            if chosen is None:
                if not free:
                    raise TableError(409, "full", "every seat at this table is taken")
                chosen = free[0]
            elif chosen not in free:
                raise TableError(409, "seat_taken", f"seat {chosen} is not free")
            seats = list(meta.seats)
            seats[chosen] = Seat("human", user_id=user.id)
            # the new player's name, as `learn_names` would read it (the request's user
            # was read just now): no read of the user again to show the table
            self.match.names.setdefault(user.id, user.name)
            await self.match.update(live, seats=seats)

        return await self._changing(table_id, change)

    async def leave(self, table_id: str, user: User) -> GameTable:
        became_bot = False

        async def change(live: LiveTable) -> None:
            nonlocal became_bot
            meta = live.meta
            index = seat_of(meta, user)
            if index is None:
                raise TableError(409, "not_seated", "you have no seat at this table")
            seats = list(meta.seats)
            if meta.status == "open":
                seats[index] = Seat("open")
                if all(s.kind != "human" for s in seats):
                    await self.match.update(live, seats=seats, status="aborted")
                else:
                    await self.match.update(live, seats=seats)
            elif meta.status == "running":
                # the game goes on: a bot plays the seat from now on
                seats[index] = Seat("human", user_id=user.id, bot=ZOMBIE_BOT)
                await self.match.update(live, seats=seats)
                self.match.after_change(live)
                became_bot = True
            else:
                raise TableError(409, "finished", "this game is over")

        table = await self._changing(table_id, change)
        if became_bot and self.on_running is not None:
            await self.on_running(table_id)
        return table

    async def start(self, table_id: str, user: User) -> GameTable:
        async def change(live: LiveTable) -> None:
            meta = live.meta
            if meta.status != "open":
                raise TableError(409, "not_open", "this table has already started")
            if meta.created_by != user.id:
                raise TableError(403, "not_host", "only the player who created the table starts it")
            if any(s.kind == "open" for s in meta.seats):
                raise TableError(409, "seats_open", "every seat needs a player or a bot first")
            if any((s.bot or "").startswith("imported:") for s in meta.seats):
                # (a table half-stored by an old import: it is a record, not a game to play)
                raise TableError(409, "imported", "an imported game cannot be started")
            await self.match.update(live, status="running", started_at=now_utc())
            await self.match.start_game(live)

        table = await self._changing(table_id, change)
        if self.on_running is not None:
            await self.on_running(table_id)
        return table

    async def rematch(self, table_id: str, user: User, request_id: str | None = None) -> GameTable:
        """A new open table with the same game, options, seats and clock; the players are
        seated as before (bots too), so the host can start it at once. The same user's
        repeated `request_id` gets the same table back."""
        old = await self.get(table_id)
        if old.status != "finished":
            raise TableError(409, "not_finished", "a rematch is for a finished game")
        if seat_of(old, user) is None:
            raise TableError(403, "not_seated", "only the players of a game can ask for a rematch")
        people = {s.user_id for s in old.seats if s.user_id is not None}
        for person in people:  # nobody is seated again with a player who blocked them
            if await self.storage.blockers_among(person, people):
                raise TableError(
                    403, "blocked", "a player of this game has blocked another: no rematch"
                )
        seats = [Seat(s.kind, user_id=s.user_id) if s.kind == "human" else s for s in old.seats]
        table = await self.storage.create_table(
            secrets.token_urlsafe(6),
            game=old.game,
            seed=secrets.randbits(63),
            seats=seats,
            options=old.options,
            clock={k: v for k, v in old.clock.items() if k != "state"} if old.clock else None,
            rated=old.rated,
            private=old.private,
            invite_token=secrets.token_urlsafe(12) if old.private else None,
            created_by=user.id,
            request_key=request_id,
            abandon_after=old.abandon_after,
        )
        await self.match.listing_changed(table)
        return table
