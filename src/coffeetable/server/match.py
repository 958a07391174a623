"""The match: one table's moves, on every node that holds the table.

A node holds a `LiveTable` for each table it has clients at or drives (`driver.py`): the
rules state, the game log, the clock and the connected clients, with an `asyncio.Lock`.
Every change to a table happens under its lock, in the boardgame.io master's order: check →
apply to a clone → store with compare-and-swap → swap in → send to this node's clients →
publish on the bus. The state is swapped in only after the action is stored, so a storage
failure changes nothing. Every client gets only its seat's view; spectators the public one.

Several nodes may hold one table, and any of them may store a move: the storage's
compare-and-swap on the table's version lets exactly one of two moves made against one
version in, and the other gets `stale_version` with a fresh snapshot. Every change of a table
moves its `revision` on by one and is published on the bus with it; a node applies the
changes of another in revision order (`on_message`): the next revision is applied, an old one
skipped, and after a gap (or a silence: `check_revisions`) the table is reloaded from storage
(`resync`). Alone, a node's bus delivers only to itself and every message is one it applied.

A table's state is never stored, only its record (game, options, seats, seed, actions) and
clock: `load` rebuilds it by replaying the actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import orjson

from coffeetable.core.errors import CoffeetableError
from coffeetable.core.game import Action, State
from coffeetable.core.say import render as render_say
from coffeetable.server import abandon
from coffeetable.server.bus import Bus, table_topic
from coffeetable.server.clock import ClockSettings, GameClock
from coffeetable.server.deckbook import DeckBook, UnknownDeck
from coffeetable.server.livetable import (
    Client,
    LiveTable,
    LogLine,
    TableError,
    bot_of,
    changes_from_bus,
    changes_to_bus,
    encode_json,
    encode_log_line,
    moved_table,
    now_utc,
    result_json,
    seat_of,
    table_from_bus,
    table_json,
    table_to_bus,
    users_to_move,
)
from coffeetable.server.protocol import ErrorCode, ProtocolError
from coffeetable.server.ratings import ranks_from_scores, rating_changes
from coffeetable.server.storage import (
    AlreadyExistsError,
    GameTable,
    Seat,
    StaleRevisionError,
    StaleVersionError,
    Storage,
    TableChanges,
)

log = logging.getLogger("coffeetable.server")


class MatchService:
    """The live tables of this node: loading them, their moves and undos, their clients,
    and what other nodes publish about them."""

    def __init__(
        self,
        storage: Storage,
        bus: Bus,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.storage = storage
        self.bus = bus
        #: the games on players' decks (`deckbook.py`)
        self.decks = DeckBook(storage)
        self.monotonic = monotonic
        self.live_tables: dict[str, LiveTable] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.names: dict[int, str] = {}
        #: called after every change of a live table: what must run next (bots, clocks)
        self.after_change: Callable[[LiveTable], None] = lambda live: None
        #: called with a table whose public listing changed (the lobby)
        self.on_listing: Callable[[GameTable], Awaitable[None]] | None = None
        #: called by the node that made a change of a table with the users to move before
        #: and after it (turn notifications, "my games": notify.py); only that node calls it
        self.on_turns: Callable[[LiveTable, frozenset[int], frozenset[int]], None] = (
            lambda live, before, after: None
        )
        #: whether this node may forget a table it holds (not while it drives it)
        self.may_release: Callable[[str], bool] = lambda table_id: True
        #: another node saw a sign of life of the person at a seat (`abandonment.py`)
        self.on_seen: Callable[[LiveTable, int], None] = lambda live, seat: None

    # ==== loading =============================================================================
    async def live(self, table_id: str) -> LiveTable:
        """The live table, loaded from storage (and its game replayed) if needed."""
        live = self.live_tables.get(table_id)
        if live is not None:
            live.touched = self.monotonic()
            return live
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            live = self.live_tables.get(table_id)
            if live is not None:
                return live
            # listen first, then read: whatever changes after the read arrives on the bus
            await self.bus.subscribe(table_topic(table_id))
            try:
                loaded = await self.storage.load_table(table_id)
                if loaded is None:
                    raise TableError(404, "no_table", f"there is no table {table_id!r}")
                meta, _ = loaded
                try:
                    game, deck = await self.decks.game_for(meta.game, meta.options)
                except UnknownDeck:
                    raise TableError(
                        500, "no_deck", f"the deck of table {table_id!r} is not stored"
                    ) from None
                live = LiveTable(meta=meta, game=game, deck=deck)
                await self._replay(live, loaded)
            except BaseException:
                await self.bus.unsubscribe(table_topic(table_id))
                raise
            self.live_tables[table_id] = live
            if meta.status == "running":
                self.after_change(live)
            return live

    async def _replay(self, live: LiveTable, loaded: tuple[GameTable, list[Any]]) -> None:
        """Make `live` the stored table `loaded` (its row and actions): the state replayed,
        the log, the clock as stored with the last change."""
        meta, actions = loaded
        live.meta = meta
        live.state = None
        live.clock = None
        live.log = []
        live.last_undoable = False
        await self.learn_names(meta.seats, meta.created_by)
        if meta.status in ("running", "finished"):
            await self._prepare(live)
            state = live.state
            assert state is not None
            previous: tuple[int, Any] | None = None
            totals = _totals(state)  # of the state as it is: each move's, once
            for index, stored in enumerate(actions):
                action = live.game.parse_action(stored.notation)
                if state.played_by_engine(stored.seat, action, previous):
                    continue  # stored by an older engine: this one played it itself
                previous = (stored.seat, action)
                said = self._say(live, state, stored.seat, action)
                before = totals
                if index == len(actions) - 1 and bot_of(meta.seats[stored.seat]) is None:
                    live.last_undoable = state.may_take_back(stored.seat, action)
                state.apply(stored.seat, action)
                totals = _totals(state)
                live.log.append(
                    self._log_line(live, said, before, totals, stored.version, stored.seat, action)
                )
            live.totals = (state, totals)
            self._restore_clock(live)

    async def resync(self, live: LiveTable) -> None:
        """Reload a table this node holds from storage (lock held): after a gap in its
        messages, a silence, or a compare-and-swap this node lost. Every client gets a
        fresh snapshot."""
        loaded = await self.storage.load_table(live.meta.id)
        if loaded is None:
            return
        await self._replay(live, loaded)
        live.behind_at = None
        live.bot_plans.clear()
        for client in list(live.clients):
            client.seat = seat_of(live.meta, client.user)
            client.send(self.snapshot(live, client))
        self.after_change(live)

    async def _prepare(self, live: LiveTable) -> None:
        meta = live.meta
        live.state = live.game.new_initial_state(len(meta.seats), meta.seed, meta.options)
        live.names = [await self._seat_name(seat) for seat in meta.seats]
        if meta.clock is not None:
            settings = {k: v for k, v in meta.clock.items() if k != "state"}
            live.clock = GameClock(
                ClockSettings.from_json(settings), len(meta.seats), now=self.monotonic
            )
            live.clock.sync(live.state.current_seats())

    def _restore_clock(self, live: LiveTable) -> None:
        """The clocks as they were stored with the last change. With several nodes the
        site kept running while this node read it, so the time since that change is
        charged (`wall_time` in the stored clock); a single node charges nobody for the
        time it was down (docs/server-clocks-ratings.md)."""
        if live.clock is not None and live.meta.clock and "state" in live.meta.clock:
            stored = live.meta.clock["state"]
            live.clock.restore(stored)
            wall = stored.get("wall_time") if isinstance(stored, dict) else None
            if self.bus.shared and isinstance(wall, int | float):
                live.clock.charge_running(max(0.0, time.time() - wall))
        if live.clock is not None and live.state is not None:
            live.clock.sync(live.state.current_seats() if not live.state.is_over() else ())

    async def learn_names(self, seats: Iterable[Seat], creator: int | None = None) -> None:
        """Put the names of the people in `seats`, and of the table's creator, into `names`
        (for `table_json`)."""
        for seat in seats:
            await self._seat_name(seat)
        if creator is not None:
            await self._seat_name(Seat("human", user_id=creator))

    async def _seat_name(self, seat: Seat) -> str:
        if seat.kind == "bot":
            return f"bot {seat.bot}"
        if seat.user_id is None:
            return "open seat"
        if seat.user_id not in self.names:
            user = await self.storage.get_user(seat.user_id)
            self.names[seat.user_id] = user.name if user else f"user {seat.user_id}"
        return self.names[seat.user_id]

    def release(self, live: LiveTable) -> None:
        """Forget a table nobody watches here, unless this node drives it (it is loaded
        again from storage when asked for)."""
        table_id = live.meta.id
        if (
            not live.clients
            and self.live_tables.get(table_id) is live
            and (live.meta.status in ("finished", "aborted") or self.bus.shared)
            and self.may_release(table_id)
        ):
            del self.live_tables[table_id]
            self._loading.pop(table_id, None)
            for task in (live.bot_task, live.timer_task, live.abandon_task):
                if task is not None:
                    task.cancel()
            asyncio.get_running_loop().create_task(self.bus.unsubscribe(table_topic(table_id)))

    def sweep(self, idle: float = 30.0) -> None:
        """Forget the tables loaded for a request that nobody has watched for `idle` s."""
        cutoff = self.monotonic() - idle
        for live in list(self.live_tables.values()):
            if live.touched < cutoff:
                self.release(live)

    # ==== changes of the table's row ==========================================================
    async def update(self, live: LiveTable, **changes: Any) -> None:
        """Change the stored table (lock held) if it is still at the revision this node
        knows, then tell this node's clients and the other nodes. `StaleRevisionError` if
        it changed meanwhile: the table is reloaded first, and the caller may check again."""
        to_move = users_to_move(live.meta, live.state)
        try:
            live.meta = await self.storage.update_table(
                live.meta.id, expected_revision=live.meta.revision, **changes
            )
        except StaleRevisionError:
            await self.resync(live)
            raise
        await self._table_changed(live, seats_changed="seats" in changes)
        await self.bus.publish(
            table_topic(live.meta.id),
            {"kind": "table", "revision": live.meta.revision, "row": table_to_bus(live.meta)},
        )
        self.on_turns(live, to_move, users_to_move(live.meta, live.state))

    async def _table_changed(
        self, live: LiveTable, seats_changed: bool, local: bool = True
    ) -> None:
        """The table's row changed: this node's clients are told; the lobby too, by the node
        that made the change (`local`)."""
        await self.learn_names(live.meta.seats)  # known before anyone is told of the change
        if seats_changed:
            for client in live.clients:
                client.seat = seat_of(live.meta, client.user)
        live.touched = self.monotonic()
        if local:
            await self.listing_changed(live.meta)
        self.broadcast(live, {"type": "table", "table": table_json(live.meta, self.names)})

    async def listing_changed(self, meta: GameTable) -> None:
        if self.on_listing is not None:
            await self.on_listing(meta)

    async def start_game(self, live: LiveTable, local: bool = True) -> None:
        """The table's status became running (lock held): the first position for everyone.
        `local`: this node started it (not another node, whose message this is)."""
        await self._prepare(live)
        for client in list(live.clients):
            client.send(self.snapshot(live, client))
        if local:
            self.on_turns(live, frozenset(), users_to_move(live.meta, live.state))
        self.after_change(live)

    # ==== what other nodes publish ============================================================
    async def on_message(self, topic: str, message: dict[str, Any]) -> None:
        """A message about a table from the bus: applied in revision order (see the module
        doc). Messages this node published itself arrive here too and are skipped."""
        table_id = topic.removeprefix("table:")
        live = self.live_tables.get(table_id)
        if live is None:
            return
        if message.get("kind") == "seen":  # a hint, not a change: no revision
            seat = message.get("seat")
            if isinstance(seat, int) and 0 <= seat < len(live.meta.seats):
                self.on_seen(live, seat)
            return
        revision = message.get("revision")
        if not isinstance(revision, int) or revision <= live.meta.revision:
            return  # applied already (by this node itself: its own message, from the bus)
        async with live.lock:
            if self.live_tables.get(table_id) is not live or revision <= live.meta.revision:
                return  # applied already (by this node, or by a reload)
            try:
                if revision == live.meta.revision + 1 and await self._apply_message(live, message):
                    return
                await self.resync(live)
            except Exception:
                log.exception("could not apply a message about table %s; reloading", table_id)
                await self.resync(live)

    async def _apply_message(self, live: LiveTable, message: dict[str, Any]) -> bool:
        """Apply the next change of a table another node made; False if it cannot be
        applied in place (then the table is reloaded)."""
        kind = message.get("kind")
        if kind == "move" and live.state is not None:
            if message["version"] != live.meta.version + 1:
                return False
            seat = int(message["seat"])
            action = live.game.parse_action(str(message["action"]))
            after = live.state.clone()
            after.apply(seat, action)
            changes = changes_from_bus(message.get("changes") or {})
            if live.clock is not None and changes.get("clock"):
                live.clock.restore(changes["clock"]["state"])
            live.bot_plans.pop(seat, None)
            await self._moved(
                live,
                seat,
                action,
                after,
                message["version"],
                message["revision"],
                changes,
                local=False,
            )
            return True
        if kind == "table":
            before = live.meta
            live.meta = table_from_bus(message["row"])
            await self._table_changed(
                live, seats_changed=before.seats != live.meta.seats, local=False
            )
            if before.status != "running" and live.meta.status == "running" and live.state is None:
                await self.start_game(live, local=False)
            self.after_change(live)
            return True
        return False  # an undo, or something this node cannot apply: reload

    # ==== views ===============================================================================
    def _view(self, live: LiveTable, seat: int | None) -> dict[str, Any]:
        """The seat's view of the table's state, computed once per state: unless the game has
        information private to a seat (`State.private_views`), every seat's view is the
        public one with its own `seat`, so one view serves every client. The views are
        shared by the messages that hold them, and their parts with other states' views
        (`State.view(seat, shared=True)`): nobody may change them."""
        state = live.state
        assert state is not None
        views = live.of_state(state).views
        view = views.get(seat)
        if view is None:
            if state.private_views:
                view = state.view(seat, shared=True)
            else:
                public = views.get(None)
                if public is None:
                    public = views[None] = state.view(None, shared=True)
                view = public if seat is None else {**public, "seat": seat}
            views[seat] = view
        return view

    def _view_json(self, live: LiveTable, seat: int | None) -> bytes:
        """The seat's view (`_view`) encoded as JSON, as `encode_json` writes it. Unless the
        game has views private to a seat, the public view is encoded once per state, and
        each seat's is put together from its two parts around `seat`: the same bytes,
        without encoding the view again for every seat."""
        state = live.state
        assert state is not None
        if state.private_views or seat is None:
            return _encode(self._view(live, seat))
        cache = live.of_state(state)
        parts = cache.view_parts
        if parts is None:
            parts = cache.view_parts = _split_at_seat(self._view(live, None))
        return parts[0] + str(seat).encode() + parts[1]

    @staticmethod
    def _legal(live: LiveTable, seat: int) -> tuple[list[str], dict[str, Action]]:
        """The seat's legal actions in the table's state (which may act now), listed once
        per state: their notations in the order of `legal_actions`, and the action of each
        notation. A move a client picks from this list is applied without listing them
        again (`act`)."""
        state = live.state
        assert state is not None
        by_seat = live.of_state(state).legal
        listed = by_seat.get(seat)
        if listed is None:
            actions = state.legal_actions(seat)
            notations = [a.notation() for a in actions]
            listed = by_seat[seat] = (notations, dict(zip(notations, actions, strict=True)))
        return listed

    def _seat_payload(
        self, live: LiveTable, seat: int | None, *, encoded: bool = False
    ) -> dict[str, Any]:
        """What a message tells one seat about the table's state: its view (`encoded`: as
        encoded JSON, `_view_json`), its legal actions, the clock, whether it may undo."""
        state = live.state
        assert state is not None
        legal: list[str] = []
        if seat is not None and seat in state.current_seats() and not state.is_over():
            legal = self._legal(live, seat)[0]
        return {
            "seat": seat,
            "view": orjson.Fragment(self._view_json(live, seat))
            if encoded
            else self._view(live, seat),
            "legal": legal,
            "clock": live.clock.snapshot() if live.clock is not None else None,
            "undoable": self.may_undo(live, seat),
        }

    def snapshot(self, live: LiveTable, client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "snapshot",
            "table": table_json(live.meta, self.names),
            "version": live.meta.version,
            "log": [orjson.Fragment(line[2]) for line in live.log[-200:]],
            "seat": client.seat,
        }
        if live.meta.private and client.seat is not None:
            out["invite"] = live.meta.invite_token  # the players may share it
        if live.state is not None:
            out.update(self._seat_payload(live, client.seat))
        return out

    def broadcast(self, live: LiveTable, message: dict[str, Any]) -> None:
        for client in list(live.clients):
            client.send(message)

    # ==== play ================================================================================
    @staticmethod
    def _seated_player(
        live: LiveTable, client: Client, version: int, spectator: str, stale: str
    ) -> tuple[int, State]:
        """The checks a move and an undo share: the game runs, the client holds a seat that
        no bot has taken over, and it saw the current version. Returns the seat and state;
        raises ProtocolError (with the caller's wording for a spectator and a stale
        version) otherwise."""
        meta = live.meta
        state = live.state
        if meta.status == "open" or state is None:
            raise ProtocolError(ErrorCode.NOT_STARTED, "the game has not started yet")
        if meta.status != "running" or state.is_over():
            raise ProtocolError(ErrorCode.GAME_OVER, "the game is over")
        seat = client.seat
        if seat is None:
            raise ProtocolError(ErrorCode.NOT_SEATED, spectator)
        if meta.seats[seat].bot is not None:
            raise ProtocolError(
                ErrorCode.NOT_YOUR_TURN,
                "a bot plays your seat now (you left or ran out of time)",
            )
        if version != meta.version:
            raise ProtocolError(ErrorCode.STALE_VERSION, stale)
        return seat, state

    @staticmethod
    def _stale_message(version: int, actual: int) -> str:
        return (
            f"you played on version {version}, but the table is at version {actual}: "
            "look at the latest state and try again"
        )

    async def act(self, live: LiveTable, client: Client, version: int, text: str) -> None:
        """A client's move. Raises ProtocolError (sent to that client only) and changes
        nothing if it cannot be accepted."""
        async with live.lock:
            meta = live.meta
            seat, state = self._seated_player(
                live,
                client,
                version,
                "spectators cannot play: take a seat",
                self._stale_message(version, meta.version),
            )
            if seat not in state.current_seats():
                raise ProtocolError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
            if live.clock is not None and seat in live.clock.expired():
                raise ProtocolError(
                    ErrorCode.NOT_YOUR_TURN, "your time has run out: a bot plays your seat now"
                )
            # a move from the legal list this state sent the seat is legal as it stands:
            # applied without the rules listing the legal actions again (their order is the
            # seat's, checked above: the state is the table's, not over, the seat to act)
            cache = live.cache
            listed = cache.legal.get(seat) if cache.state is state else None
            picked = listed[1].get(text) if listed is not None else None
            try:
                after = state.clone()
                if picked is not None:
                    after.apply_unchecked(seat, picked)
                    played = picked
                else:  # anything else (a turn of several steps, a typo) is checked in full
                    played = after.apply(seat, live.game.parse_action(text))
            except CoffeetableError as exc:
                raise ProtocolError(ErrorCode.ILLEGAL, str(exc)) from None
            try:
                await self.commit(live, seat, played, after, listed=picked is not None)
            except StaleVersionError as exc:
                # another node stored a move first: this node catches up, the client too
                await self.resync(live)
                raise ProtocolError(
                    ErrorCode.STALE_VERSION, self._stale_message(version, exc.actual)
                ) from None

    async def undo(self, live: LiveTable, client: Client, version: int) -> None:
        """A client takes back its own last step (docs/server-protocol.md): only the table's
        last move, made by the client's seat at `version`, which its game allows to be taken
        back (`State.may_take_back`: the seat is still to act and nothing hidden was
        revealed). The state is rebuilt by replaying the stored actions without it; the
        version moves on by one; clocks are not refunded; the move leaves the log. Raises
        ProtocolError (to that client only) and changes nothing if it cannot be done."""
        async with live.lock:
            meta = live.meta
            seat, _ = self._seated_player(
                live,
                client,
                version,
                "spectators cannot take moves back",
                f"you asked to undo at version {version}, but the table is at version "
                f"{meta.version}: look at the latest state first",
            )
            if not live.log or live.log[-1][1] != seat:
                raise ProtocolError(
                    ErrorCode.CANNOT_UNDO,
                    "the last move is not yours: only your own last move can be taken back",
                )
            if not live.last_undoable:
                raise ProtocolError(
                    ErrorCode.CANNOT_UNDO,
                    "that move cannot be taken back: it ended your turn or revealed something "
                    "hidden",
                )
            if live.clock is not None and seat in live.clock.expired():
                raise ProtocolError(
                    ErrorCode.NOT_YOUR_TURN, "your time has run out: a bot plays your seat now"
                )
            stored = await self.storage.list_actions(meta.id)
            if not stored or stored[-1].version != live.log[-1][0]:
                await self.resync(live)
                raise ProtocolError(
                    ErrorCode.STALE_VERSION, "the table changed just before; nothing was undone"
                )
            to_move = users_to_move(meta, live.state)
            rebuilt = live.game.new_initial_state(len(meta.seats), meta.seed, meta.options)
            undoable = False
            previous: tuple[int, Any] | None = None
            for index, action in enumerate(stored[:-1]):
                played = live.game.parse_action(action.notation)
                if rebuilt.played_by_engine(action.seat, played, previous):
                    continue  # stored by an older engine: this one played it itself
                previous = (action.seat, played)
                if index == len(stored) - 2 and bot_of(meta.seats[action.seat]) is None:
                    undoable = rebuilt.may_take_back(action.seat, played)
                rebuilt.apply(action.seat, played)
            changes: TableChanges = {}
            clock = live.clock
            before = clock.snapshot() if clock is not None else None
            if clock is not None:
                clock.on_moved(seat, turn_ended=False)  # the time spent is not refunded
                clock.sync(rebuilt.current_seats())
                changes["clock"] = {**clock.settings.to_json(), "state": self._clock_state(clock)}
            try:
                removed = await self.storage.remove_last_action(
                    meta.id, meta.version, changes or None
                )
            except BaseException as exc:
                if clock is not None and before is not None:
                    clock.restore(before)
                if isinstance(exc, StaleVersionError):
                    await self.resync(live)
                    raise ProtocolError(
                        ErrorCode.STALE_VERSION,
                        "the table changed just before; nothing was undone",
                    ) from None
                raise
            live.state = rebuilt
            live.log.pop()
            live.last_undoable = undoable
            stored_fields: dict[str, Any] = dict(changes)  # the clock only
            revision = removed.table_revision
            live.meta = dataclasses.replace(
                meta,
                version=meta.version + 1,
                revision=revision if revision is not None else meta.revision + 1,
                **stored_fields,
            )
            undone = {"version": removed.version, "seat": removed.seat, "action": removed.notation}
            for client_ in list(live.clients):
                client_.send(
                    {
                        "type": "undo",
                        "version": live.meta.version,
                        "undone": undone,
                        **self._seat_payload(live, client_.seat),
                    }
                )
            await self.bus.publish(
                table_topic(meta.id), {"kind": "undo", "revision": live.meta.revision}
            )
            if revision is not None and revision != meta.revision + 1:
                await self.resync(live)  # something else changed too: catch up with it
            self.on_turns(live, to_move, users_to_move(live.meta, live.state))
            self.after_change(live)

    def may_undo(self, live: LiveTable, seat: int | None) -> bool:
        """Whether `seat` may take back the table's last move now (`undoable` in its
        payload): its own, allowed by the game, in a running game it still plays itself."""
        return (
            seat is not None
            and live.last_undoable
            and bool(live.log)
            and live.log[-1][1] == seat
            and live.meta.status == "running"
            and live.meta.seats[seat].bot is None
        )

    @staticmethod
    def _clock_state(clock: GameClock) -> dict[str, Any]:
        """The clock as stored with a change: its snapshot, and the wall time it was taken
        (another node that loads it charges the time since)."""
        return {**clock.snapshot(), "wall_time": time.time()}

    async def commit(
        self, live: LiveTable, seat: int, action: Any, after: State, *, listed: bool = False
    ) -> None:
        """Store the action, then make it the table's state, tell this node's clients and
        publish it (lock held). `StaleVersionError` if another move was stored first; then
        nothing changed here. `listed`: the action is from the legal list of the table's
        state (its sentence is written without checking it again, `State.say`)."""
        meta = live.meta
        changes: TableChanges = {}
        offer = abandon.offer_of(meta)
        if offer is not None and offer["seat"] == seat:
            changes["abandonment"] = abandon.withdrawn(meta)  # they are back: they moved
        if after.is_over():
            changes["status"] = "finished"
            changes["finished_at"] = now_utc()
            changes["result"] = result_json(after)
        clock = live.clock
        before = clock.snapshot() if clock is not None else None
        if clock is not None:
            # the clock's state is stored with every move, so a restart resumes it
            clock.on_moved(seat, turn_ended=seat not in after.current_seats())
            clock.sync(after.current_seats() if not after.is_over() else ())
            changes["clock"] = {**clock.settings.to_json(), "state": self._clock_state(clock)}
        notation = action.notation()
        try:
            stored = await self.storage.append_action(
                meta.id, meta.version, seat, notation, changes or None
            )
        except BaseException:
            if clock is not None and before is not None:
                clock.restore(before)
            raise
        revision = stored.table_revision
        if revision is None:
            revision = meta.revision + 1
        await self._moved(
            live, seat, action, after, stored.version, revision, dict(changes), listed=listed
        )
        await self.bus.publish(
            table_topic(meta.id),
            {
                "kind": "move",
                "revision": revision,
                "version": stored.version,
                "seat": seat,
                "action": notation,
                "changes": changes_to_bus(changes),
            },
        )
        if revision != meta.revision + 1:
            await self.resync(live)  # the row changed meanwhile (a seat): catch up with it
        if after.is_over():
            await self._rate(live)

    async def _moved(
        self,
        live: LiveTable,
        seat: int,
        action: Any,
        after: State,
        version: int,
        revision: int,
        changes: dict[str, Any],
        local: bool = True,
        listed: bool = False,
    ) -> None:
        """A move stored (by this node, `local`, or another): make it the table's state and
        tell this node's clients."""
        meta = live.meta
        before_state = live.state
        to_move = users_to_move(meta, before_state)
        listed_before = live.cache
        live.state = after
        if before_state is not None and listed_before.state is before_state:
            # the other seats' legal lists that this move left as they were are kept
            # (`State.legal_actions_kept`: Café's simultaneous action phase)
            for other, their_list in listed_before.legal.items():
                if other != seat and after.legal_actions_kept(other, before_state):
                    live.of_state(after).legal[other] = their_list
        # the stored table is now exactly this (no need to read it back)
        live.meta = moved_table(meta, version=version, revision=revision, **changes)
        said = (
            self._say(live, before_state, seat, action, listed)
            if before_state is not None
            else None
        )
        # the totals before the move are those its state had after the move before (kept)
        known_state, known = live.totals
        before = None
        if before_state is not None:
            before = known if known_state is before_state else _totals(before_state)
        if live.clients and not after.private_views:
            # the public view, which this node's clients get anyway, has them (its `scores`)
            totals = [score["total"] for score in self._view(live, None)["scores"]]
        else:
            totals = _totals(after)
        live.totals = (after, totals)
        line = self._log_line(live, said, before, totals, version, seat, action)
        live.log.append(line)
        live.last_undoable = (
            before_state is not None
            and bot_of(meta.seats[seat]) is None
            # a move after which its seat is not to act (or the game is over) is never taken
            # back (`State.may_take_back`'s contract): the rules need not be asked
            and seat in after.current_seats()
            and before_state.may_take_back(seat, action, after)
        )
        live.touched = self.monotonic()
        payloads: dict[int | None, str] = {}  # one encoded view per seat, for all its clients
        for client in list(live.clients):
            if client.seat not in payloads:
                payloads[client.seat] = encode_json(
                    {
                        "type": "update",
                        "version": live.meta.version,
                        "move": orjson.Fragment(line[2]),  # encoded once, in the log line
                        **self._seat_payload(live, client.seat, encoded=True),
                    }
                )
            client.send(payloads[client.seat])
        if after.is_over():
            if local:
                await self.listing_changed(live.meta)
            self.broadcast(live, {"type": "table", "table": table_json(live.meta, self.names)})
        if local:
            self.on_turns(live, to_move, users_to_move(live.meta, after))
        self.after_change(live)

    async def _rate(self, live: LiveTable) -> None:
        """The ratings of a rated game that just ended (by the node that stored its last
        move)."""
        meta = live.meta
        state = live.state
        if not meta.rated or state is None:
            return
        users = [s.user_id for s in meta.seats]
        if any(u is None for u in users) or len(set(users)) != len(users):
            return
        current = {u: await self.storage.get_rating(u, meta.game) for u in users if u is not None}
        totals = _totals(state)
        ranks = ranks_from_scores(totals, state.winners())
        for seat in abandon.left_seats(meta):  # the others handed the seat to a bot: a resignation
            ranks[seat] = len(ranks)
        new = rating_changes(
            {u: r.rating for u, r in current.items()},
            {u: r.games_played for u, r in current.items()},
            {u: ranks[i] for i, u in enumerate(users) if u is not None},
        )
        with contextlib.suppress(AlreadyExistsError):
            await self.storage.apply_rating_changes(meta.game, meta.id, new)

    def _say(
        self, live: LiveTable, before: State, seat: int, action: Any, listed: bool = False
    ) -> tuple[str, dict[str, Any]] | None:
        """The move's sentence in English and as a message key with parameters (`State.say`
        on the state before it, `listed` if the action is from its legal list); None when
        it cannot be written."""
        try:
            sentence = before.say(seat, action, listed=listed)
            return render_say(sentence, live.game.log_templates), sentence.to_json()
        except Exception:  # the move is stored already: a log-text bug must not stop it
            log.exception("describe failed at table %s", live.meta.id)
            return None

    def _log_line(
        self,
        live: LiveTable,
        said: tuple[str, dict[str, Any]] | None,
        before_totals: list[int] | None,
        totals: list[int],
        version: int,
        seat: int,
        action: Any,
    ) -> LogLine:
        """A line of the game log: the move in notation, in English words (`text`) and as a
        message key with parameters (`say`) that clients write in their own language (both
        from `_say`), and the public score totals after it (`scores`, as every view has
        them: `totals`) with each seat's change by this move (`gains`), for round
        summaries."""
        name = live.names[seat] if seat < len(live.names) else f"seat {seat}"
        notation = action.notation()
        words = notation
        say: dict[str, Any] = {"key": "log.plays", "params": {"notation": notation}}
        if said is not None:
            words, say = said
        before = before_totals if before_totals is not None else totals
        return encode_log_line(
            {
                "version": version,
                "seat": seat,
                "action": notation,
                "text": f"{name} {words}",
                "say": say,
                "scores": totals,
                "gains": [a - b for a, b in zip(totals, before, strict=True)],
            }
        )

    # ==== several nodes: catching up ==========================================================
    async def check_revisions(self) -> None:
        """Reload every table this node holds whose messages were lost (Redis pub/sub is
        at-most-once) or are late: a table is reloaded when a revision storage held at one
        look has still not arrived by the next look. A busy table is often a message or two
        behind at a look (in flight); that alone is no reason to reload it."""
        if not self.live_tables:
            return
        stored = await self.storage.table_revisions(list(self.live_tables))
        for table_id, revision in stored.items():
            live = self.live_tables.get(table_id)
            if live is None:
                continue
            if revision <= live.meta.revision:
                live.behind_at = None
                continue
            if live.behind_at is None or live.meta.revision >= live.behind_at:
                # the first look behind, or what the last look awaited has arrived
                live.behind_at = revision
                continue
            log.info(
                "table %s fell behind (revision %d, storage had %d a look ago); reloading",
                table_id,
                live.meta.revision,
                live.behind_at,
            )
            async with live.lock:
                await self.resync(live)

    async def resync_all(self) -> None:
        """Reload every table this node holds (after the bus reconnected)."""
        for live in list(self.live_tables.values()):
            async with live.lock:
                await self.resync(live)

    async def close(self, code: int = 1012) -> None:
        """Stop: every client is closed with `code` (1012: the node is restarting, come
        back), every task cancelled."""
        for live in self.live_tables.values():
            for task in (live.bot_task, live.timer_task, live.abandon_task):
                if task is not None:
                    task.cancel()
            for client in live.clients:
                client.close(code)


def _totals(state: State) -> list[int]:
    """The public score totals of a state, one per seat (as its view's `scores` has them)."""
    return [s.total for s in state.scores()]


def _encode(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _split_at_seat(public: dict[str, Any]) -> tuple[bytes, bytes]:
    """The public view (`seat` None) encoded in two parts, before and after the value of its
    `seat`: `parts[0] + b"1" + parts[1]` is seat 1's view `{**public, "seat": 1}` as
    `encode_json` writes it (the same keys in the same order)."""
    keys = list(public)
    at = keys.index("seat")
    before = {k: public[k] for k in keys[:at]}
    after = {k: public[k] for k in keys[at + 1 :]}
    head = _encode(before)[:-1] + (b',"seat":' if before else b'"seat":')
    tail = (b"," + _encode(after)[1:]) if after else b"}"
    return head, tail
