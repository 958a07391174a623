"""The match service: tables from creation to the end of the game.

One `LiveTable` per table in play holds the rules state, the connected clients and an
`asyncio.Lock`: every change to a table (a move, a seat taken, a clock running out) happens
under its lock, one at a time, in the order load -> check version -> apply -> persist ->
broadcast (the boardgame.io master's order). The state is applied on a clone and swapped in
only after the action is stored, so a storage failure changes nothing. Every client gets only
its seat's view (`State.view`); spectators get the public view.

A table's state is never stored, only its record (game, options, seats, seed, actions): after
a restart `TableService.live` rebuilds it by replaying the actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from coffeetable.core.errors import CoffeetableError, DataError
from coffeetable.core.game import Game, State
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game, game_names
from coffeetable.core.say import render as render_say
from coffeetable.server.bots import ZOMBIE_BOT, BotRunner, check_bot_name
from coffeetable.server.clock import ClockSettings, GameClock
from coffeetable.server.protocol import ErrorCode, ProtocolError
from coffeetable.server.ratings import ranks_from_scores, rating_changes
from coffeetable.server.storage import (
    GameTable,
    Seat,
    StaleVersionError,
    Storage,
    TableChanges,
    User,
)

log = logging.getLogger("coffeetable.server")

#: The bot behind the hint button.
HINT_BOT = "ismcts:easy"
#: Outgoing messages queued per client before it is considered gone.
SEND_QUEUE = 256


class TableError(Exception):
    """A request about a table that cannot be granted: an HTTP status, a code and a message
    for people. Nothing changed."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(eq=False)
class Client:
    """One WebSocket connection to one table."""

    user: User | None
    seat: int | None = None
    queue: asyncio.Queue[dict[str, Any] | str | None] = field(
        default_factory=lambda: asyncio.Queue(SEND_QUEUE)
    )

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or JSON text already encoded for several clients); a
        client too slow to drain its queue is disconnected."""
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        with contextlib.suppress(asyncio.QueueEmpty):
            while True:
                self.queue.get_nowait()
        self.queue.put_nowait(None)


#: A line of a table's game log (`TableService._log_line`): (version, seat, its encoded
#: JSON). A plain tuple of an int, an int and bytes holds nothing Python's cycle collector
#: must follow, so the collector stops tracking it: the logs of all running games, which grow
#: with every move, add nothing to its full passes (each of which stops the event loop for
#: as long as it takes). A subclass such as a NamedTuple would stay tracked.
LogLine = tuple[int, int, bytes]


def encode_log_line(entry: dict[str, Any]) -> LogLine:
    """A log entry (a JSON object with its `version` and `seat`) as a `LogLine`."""
    return (entry["version"], entry["seat"], orjson.dumps(entry))


def log_json(line: LogLine) -> dict[str, Any]:
    """A log line as the JSON object it was made from."""
    return orjson.loads(line[2])  # type: ignore[no-any-return]


@dataclass(eq=False)
class LiveTable:
    meta: GameTable
    game: Game
    state: State | None = None
    log: list[LogLine] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    clients: set[Client] = field(default_factory=set)
    clock: GameClock | None = None
    bot_task: asyncio.Task[None] | None = None
    timer_task: asyncio.Task[None] | None = None
    names: list[str] = field(default_factory=list)  # per seat, for logs and records
    # whether the last move in `log` may be taken back by its seat (State.may_take_back)
    last_undoable: bool = False
    # per bot seat, the rest of the turn its last move planned (server.bots.choose_move);
    # kept in memory only: after a restart the bot searches afresh
    bot_plans: dict[int, list[str]] = field(default_factory=dict)
    # the views of `state` computed so far, per seat (TableService._view)
    views: tuple[State | None, dict[int | None, dict[str, Any]]] = field(
        default_factory=lambda: (None, {})
    )

    @property
    def version(self) -> int:
        return self.meta.version


def _now() -> datetime:
    return datetime.now(UTC)


def seat_of(meta: GameTable, user: User | None) -> int | None:
    """The seat `user` holds at the table, if any."""
    if user is None:
        return None
    for index, seat in enumerate(meta.seats):
        if seat.kind == "human" and seat.user_id == user.id:
            return index
    return None


def bot_of(seat: Seat) -> str | None:
    """The bot that plays this seat: a bot seat's, or the replacement of a human who ran out
    of time or left (a human seat with `bot` set)."""
    return seat.bot if seat.kind in ("bot", "human") else None


class TableService:
    """Creates, loads and runs tables. One per server process; a table is served by one
    process (the one that loaded it)."""

    def __init__(
        self,
        storage: Storage,
        bots: BotRunner,
        on_lobby_change: Callable[[GameTable], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.storage = storage
        self.bots = bots
        self.on_lobby_change = on_lobby_change or (lambda table: None)
        self.monotonic = monotonic
        self.live_tables: dict[str, LiveTable] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self.names: dict[int, str] = {}

    # ==== set-up ==============================================================================
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
    ) -> GameTable:
        """A new open table; the same user's repeated `request_id` gets the same table back
        (storage `create_table`'s request_key)."""
        if game_name not in game_names():
            raise TableError(
                400, "unknown_game", f"unknown game {game_name!r}; games: {', '.join(game_names())}"
            )
        game = find_game(game_name)
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
        )
        self.names[user.id] = user.name
        self.on_lobby_change(table)
        return table

    async def get(self, table_id: str) -> GameTable:
        live = self.live_tables.get(table_id)
        if live is not None:
            return live.meta
        table = await self.storage.get_table(table_id)
        if table is None:
            raise TableError(404, "no_table", f"there is no table {table_id!r}")
        return table

    async def join(
        self, table_id: str, user: User, seat: int | None = None, invite: str | None = None
    ) -> GameTable:
        live = await self.live(table_id)
        async with live.lock:
            meta = live.meta
            if seat_of(meta, user) is not None:
                return meta  # joined already: a repeated request (a double click)
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
            free = [i for i, s in enumerate(meta.seats) if s.kind == "open"]
            if seat is None:
                if not free:
                    raise TableError(409, "full", "every seat at this table is taken")
                seat = free[0]
            elif seat not in free:
                raise TableError(409, "seat_taken", f"seat {seat} is not free")
            seats = list(meta.seats)
            seats[seat] = Seat("human", user_id=user.id)
            await self._update(live, seats=seats)
        return live.meta

    async def leave(self, table_id: str, user: User) -> GameTable:
        live = await self.live(table_id)
        async with live.lock:
            meta = live.meta
            index = seat_of(meta, user)
            if index is None:
                raise TableError(409, "not_seated", "you have no seat at this table")
            seats = list(meta.seats)
            if meta.status == "open":
                seats[index] = Seat("open")
                if all(s.kind != "human" for s in seats):
                    await self._update(live, seats=seats, status="aborted")
                else:
                    await self._update(live, seats=seats)
            elif meta.status == "running":
                # the game goes on: a bot plays the seat from now on
                seats[index] = Seat("human", user_id=user.id, bot=ZOMBIE_BOT)
                await self._update(live, seats=seats)
                self._after_change(live)
            else:
                raise TableError(409, "finished", "this game is over")
        return live.meta

    async def start(self, table_id: str, user: User) -> GameTable:
        live = await self.live(table_id)
        async with live.lock:
            meta = live.meta
            if meta.status != "open":
                raise TableError(409, "not_open", "this table has already started")
            if meta.created_by != user.id:
                raise TableError(403, "not_host", "only the player who created the table starts it")
            if any(s.kind == "open" for s in meta.seats):
                raise TableError(409, "seats_open", "every seat needs a player or a bot first")
            await self._update(live, status="running", started_at=_now())
            await self._prepare(live)
            for client in list(live.clients):  # everyone watching gets the first position
                client.send(self.snapshot(live, client))
            self._after_change(live)
        return live.meta

    async def rematch(self, table_id: str, user: User, request_id: str | None = None) -> GameTable:
        """A new open table with the same game, options, seats and clock; the players are
        seated as before (bots too), so the host can start it at once. The same user's
        repeated `request_id` gets the same table back."""
        old = await self.get(table_id)
        if old.status != "finished":
            raise TableError(409, "not_finished", "a rematch is for a finished game")
        if seat_of(old, user) is None:
            raise TableError(403, "not_seated", "only the players of a game can ask for a rematch")
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
        )
        self.on_lobby_change(table)
        return table

    # ==== loading =============================================================================
    async def live(self, table_id: str) -> LiveTable:
        """The live table, loaded from storage (and its game replayed) if needed."""
        live = self.live_tables.get(table_id)
        if live is not None:
            return live
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            live = self.live_tables.get(table_id)
            if live is not None:
                return live
            meta = await self.storage.get_table(table_id)
            if meta is None:
                raise TableError(404, "no_table", f"there is no table {table_id!r}")
            live = LiveTable(meta=meta, game=find_game(meta.game))
            await self.learn_names(meta.seats, meta.created_by)
            if meta.status in ("running", "finished"):
                await self._prepare(live)
                actions = await self.storage.list_actions(table_id)
                state = live.state
                assert state is not None
                for index, stored in enumerate(actions):
                    action = live.game.parse_action(stored.notation)
                    line = self._log_line(live, state, stored.version, stored.seat, action)
                    if index == len(actions) - 1 and bot_of(meta.seats[stored.seat]) is None:
                        live.last_undoable = state.may_take_back(stored.seat, action)
                    state.apply(stored.seat, action)
                    live.log.append(line)
                self._restore_clock(live)
            self.live_tables[table_id] = live
            if meta.status == "running":
                self._after_change(live)
            return live

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
        """After a restart: the clocks as they were stored with the last move (the time the
        server was down is charged to nobody)."""
        if live.clock is not None and live.meta.clock and "state" in live.meta.clock:
            live.clock.restore(live.meta.clock["state"])
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

    async def _update(self, live: LiveTable, **changes: Any) -> None:
        live.meta = await self.storage.update_table(live.meta.id, **changes)
        await self.learn_names(live.meta.seats)  # known before anyone is told of the change
        if "seats" in changes:
            for client in live.clients:
                client.seat = seat_of(live.meta, client.user)
        self.on_lobby_change(live.meta)
        self._broadcast(live, {"type": "table", "table": table_json(live.meta, self.names)})

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
                f"you played on version {version}, but the table is at version "
                f"{meta.version}: look at the latest state and try again",
            )
            if seat not in state.current_seats():
                raise ProtocolError(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
            if live.clock is not None and seat in live.clock.expired():
                raise ProtocolError(
                    ErrorCode.NOT_YOUR_TURN, "your time has run out: a bot plays your seat now"
                )
            try:
                action = live.game.parse_action(text)
                after = state.clone()
                played = after.apply(seat, action)
            except CoffeetableError as exc:
                raise ProtocolError(ErrorCode.ILLEGAL, str(exc)) from None
            await self._commit(live, seat, played, after)

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
                raise ProtocolError(ErrorCode.SERVER, "the table changed; nothing was undone")
            rebuilt = live.game.new_initial_state(len(meta.seats), meta.seed, meta.options)
            undoable = False
            for index, action in enumerate(stored[:-1]):
                played = live.game.parse_action(action.notation)
                if index == len(stored) - 2 and bot_of(meta.seats[action.seat]) is None:
                    undoable = rebuilt.may_take_back(action.seat, played)
                rebuilt.apply(action.seat, played)
            changes: TableChanges = {}
            clock = live.clock
            before = clock.snapshot() if clock is not None else None
            if clock is not None:
                clock.on_moved(seat, turn_ended=False)  # the time spent is not refunded
                clock.sync(rebuilt.current_seats())
                changes["clock"] = {**clock.settings.to_json(), "state": clock.snapshot()}
            try:
                removed = await self.storage.remove_last_action(
                    meta.id, meta.version, changes or None
                )
            except BaseException:
                if clock is not None and before is not None:
                    clock.restore(before)
                raise
            live.state = rebuilt
            live.log.pop()
            live.last_undoable = undoable
            stored_fields: dict[str, Any] = dict(changes)  # the clock only
            live.meta = dataclasses.replace(meta, version=meta.version + 1, **stored_fields)
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
            self._after_change(live)

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

    async def _commit(self, live: LiveTable, seat: int, action: Any, after: State) -> None:
        """Store the action, then make it the table's state and tell everyone (lock held)."""
        meta = live.meta
        changes: TableChanges = {}
        if after.is_over():
            changes["status"] = "finished"
            changes["finished_at"] = _now()
            changes["result"] = result_json(after)
        clock = live.clock
        before = clock.snapshot() if clock is not None else None
        if clock is not None:
            # the clock's state is stored with every move, so a restart resumes it
            clock.on_moved(seat, turn_ended=seat not in after.current_seats())
            clock.sync(after.current_seats() if not after.is_over() else ())
            changes["clock"] = {**clock.settings.to_json(), "state": clock.snapshot()}
        try:
            stored = await self.storage.append_action(
                meta.id, meta.version, seat, action.notation(), changes or None
            )
        except BaseException:
            if clock is not None and before is not None:
                clock.restore(before)
            raise
        before_state = live.state
        live.state = after
        # the stored table is now exactly this (no need to read it back)
        stored_fields: dict[str, Any] = dict(changes)  # status, result, clock: never seats
        live.meta = dataclasses.replace(meta, version=stored.version, **stored_fields)
        line = self._log_line(live, before_state, stored.version, seat, action)
        live.log.append(line)
        live.last_undoable = (
            before_state is not None
            and bot_of(meta.seats[seat]) is None
            and before_state.may_take_back(seat, action)
        )
        payloads: dict[int | None, str] = {}  # one encoded view per seat, for all its clients
        for client in list(live.clients):
            if client.seat not in payloads:
                payloads[client.seat] = encode_json(
                    {
                        "type": "update",
                        "version": live.meta.version,
                        "move": orjson.Fragment(line[2]),  # encoded once, in the log line
                        **self._seat_payload(live, client.seat),
                    }
                )
            client.send(payloads[client.seat])
        if after.is_over():
            await self._finish(live)
        else:
            self._after_change(live)

    def _log_line(
        self, live: LiveTable, before: State | None, version: int, seat: int, action: Any
    ) -> LogLine:
        """A line of the game log: the move in notation, in English words (`text`, from
        `State.describe` on the state before it) and as a message key with parameters
        (`say`, `State.say`) that clients write in their own language."""
        name = live.names[seat] if seat < len(live.names) else f"seat {seat}"
        notation = action.notation()
        words = notation
        said: dict[str, Any] = {"key": "log.plays", "params": {"notation": notation}}
        if before is not None:
            try:
                sentence = before.say(seat, action)
                words = render_say(sentence, live.game.log_templates)
                said = sentence.to_json()
            except Exception:  # the move is stored already: a log-text bug must not stop it
                log.exception("describe failed at table %s", live.meta.id)
        return encode_log_line(
            {
                "version": version,
                "seat": seat,
                "action": notation,
                "text": f"{name} {words}",
                "say": said,
            }
        )

    def _view(self, live: LiveTable, seat: int | None) -> dict[str, Any]:
        """The seat's view of the table's state, computed once per state: unless the game has
        information private to a seat (`State.private_views`), every seat's view is the
        public one with its own `seat`, so one view serves every client. The views are
        shared by the messages that hold them: nobody may change them."""
        state = live.state
        assert state is not None
        cached_state, views = live.views
        if cached_state is not state:
            views = {}
            live.views = (state, views)
        view = views.get(seat)
        if view is None:
            if state.private_views:
                view = state.view(seat)
            else:
                public = views.get(None)
                if public is None:
                    public = views[None] = state.view(None)
                view = public if seat is None else {**public, "seat": seat}
            views[seat] = view
        return view

    def _seat_payload(self, live: LiveTable, seat: int | None) -> dict[str, Any]:
        state = live.state
        assert state is not None
        legal: list[str] = []
        if seat is not None and seat in state.current_seats() and not state.is_over():
            legal = [a.notation() for a in state.legal_actions(seat)]
        return {
            "seat": seat,
            "view": self._view(live, seat),
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

    def _broadcast(self, live: LiveTable, message: dict[str, Any]) -> None:
        for client in list(live.clients):
            client.send(message)

    async def _finish(self, live: LiveTable) -> None:
        meta = live.meta
        state = live.state
        assert state is not None
        self.on_lobby_change(meta)
        self._broadcast(live, {"type": "table", "table": table_json(meta, self.names)})
        if not meta.rated:
            return
        users = [s.user_id for s in meta.seats]
        if any(u is None for u in users) or len(set(users)) != len(users):
            return
        current = {u: await self.storage.get_rating(u, meta.game) for u in users if u is not None}
        totals = [s.total for s in state.scores()]
        ranks = ranks_from_scores(totals, state.winners())
        new = rating_changes(
            {u: r.rating for u, r in current.items()},
            {u: r.games_played for u, r in current.items()},
            {u: ranks[i] for i, u in enumerate(users) if u is not None},
        )
        await self.storage.apply_rating_changes(meta.game, meta.id, new)

    # ==== bots and clocks =====================================================================
    def _after_change(self, live: LiveTable) -> None:
        """Start what must run next: a bot whose seat may act, the clock's timer."""
        state = live.state
        if state is None or state.is_over() or live.meta.status != "running":
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
        try:
            text, plan = await self.bots.choose(
                live.meta.game,
                state.to_json(),
                seat,
                bot,
                live.meta.seed ^ version,
                live.bot_plans.pop(seat, ()),
            )
        except Exception:  # a bot bug must not stop the table: log it and retry later
            log.exception("bot %s failed at table %s", bot, live.meta.id)
            await asyncio.sleep(1.0)
            live.bot_task = None
            self._after_change(live)
            return
        async with live.lock:
            state = live.state
            if (
                state is None
                or state.is_over()
                or live.meta.status != "running"
                or seat not in state.current_seats()
                or bot_of(live.meta.seats[seat]) is None
            ):
                live.bot_task = None
                self._after_change(live)
                return
            try:
                after = state.clone()
                played = after.apply(seat, live.game.parse_action(text))
            except CoffeetableError:
                # the table moved on meanwhile (Café: another seat took from the supply)
                live.bot_task = None
                self._after_change(live)
                return
            live.bot_task = None
            if plan:
                live.bot_plans[seat] = plan
            try:
                await self._commit(live, seat, played, after)
            except StaleVersionError:
                log.warning("table %s changed under a bot move; reloading", live.meta.id)
                self.live_tables.pop(live.meta.id, None)

    async def _watch_clock(self, live: LiveTable) -> None:
        """Sleep until the first running person's time is up; then a bot takes the seat.
        Restarted whenever the running seats change (`_after_change`)."""
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
                expired = [s for s in clock.expired() if live.meta.seats[s].bot is None]
                if not expired or live.meta.status != "running":
                    continue
                seats = list(live.meta.seats)
                for s in expired:
                    seats[s] = Seat(seats[s].kind, user_id=seats[s].user_id, bot=ZOMBIE_BOT)
                await self._update(live, seats=seats)
                self._after_change(live)
                return

    # ==== hints ===============================================================================
    async def hint(self, table_id: str, user: User) -> dict[str, Any]:
        """The hint bot's suggestion for the user's seat (not in rated games)."""
        live = await self.live(table_id)
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
        version = live.meta.version
        text, _ = await self.bots.choose(
            live.meta.game, state.to_json(), seat, HINT_BOT, live.meta.seed ^ (version + 7919)
        )
        action = live.game.parse_action(text)
        return {
            "version": version,
            "action": text,
            "text": state.describe(seat, action),
            "say": state.say(seat, action).to_json(),
        }

    # ==== records =============================================================================
    async def record(self, table_id: str) -> GameRecord:
        live = await self.live(table_id)
        if live.meta.status not in ("running", "finished") or live.state is None:
            raise TableError(409, "not_started", "this table has not started yet")
        if live.meta.status != "finished":
            raise TableError(409, "not_finished", "the record is available once the game is over")
        actions = await self.storage.list_actions(table_id)
        return GameRecord(
            game=live.meta.game,
            seats=list(live.names),
            seed=live.meta.seed,
            options=dict(live.meta.options),
            actions=[(a.seat, a.notation) for a in actions],
        )

    async def import_record(self, user: User, record: GameRecord) -> GameTable:
        """A finished table made from a record (checked by replaying it). The seats are
        shown under the record's names; the importer holds none of them."""
        if record.game not in game_names():
            raise TableError(400, "unknown_game", f"unknown game {record.game!r}")
        try:
            final = record.replay()
        except CoffeetableError as exc:
            raise TableError(400, "invalid_record", str(exc)) from None
        if not final.is_over():
            raise TableError(400, "invalid_record", "the record's game is not finished")
        table = await self.storage.create_table(
            secrets.token_urlsafe(6),
            game=record.game,
            seed=record.seed,
            seats=[Seat("bot", bot=f"imported:{name}"[:64]) for name in record.seats],
            options=find_game(record.game).normalize_options(record.options),
            created_by=user.id,
        )
        game = find_game(record.game)
        for version, (seat, text) in enumerate(record.actions):
            changes: TableChanges | None = None
            if version + 1 == len(record.actions):
                changes = {
                    "status": "finished",
                    "finished_at": _now(),
                    "result": result_json(final),
                }
            notation = game.parse_action(text).notation()
            await self.storage.append_action(table.id, version, seat, notation, changes)
        started = await self.storage.update_table(table.id, started_at=table.created_at)
        return started

    async def replay_view(self, table_id: str, version: int) -> dict[str, Any]:
        """The public view after the first `version` moves of a finished game (`version`
        counts moves here: after undos the table's version is larger than its number of
        moves)."""
        meta = await self.get(table_id)
        if meta.status != "finished":
            raise TableError(409, "not_finished", "replays are for finished games")
        actions = await self.storage.list_actions(table_id)
        if not 0 <= version <= len(actions):
            raise TableError(404, "no_move", f"this game has moves 0..{len(actions)}")
        game = find_game(meta.game)
        state = game.new_initial_state(len(meta.seats), meta.seed, meta.options)
        for stored in actions[:version]:
            state.apply(stored.seat, game.parse_action(stored.notation))
        return {
            "version": version,
            "move": (
                {"seat": actions[version - 1].seat, "action": actions[version - 1].notation}
                if version
                else None
            ),
            "view": state.view(None),
        }

    def release(self, live: LiveTable) -> None:
        """Forget a table nobody watches once nothing more can happen at it (it is loaded
        again from storage when asked for)."""
        if (
            not live.clients
            and live.meta.status in ("finished", "aborted")
            and self.live_tables.get(live.meta.id) is live
        ):
            del self.live_tables[live.meta.id]
            self._loading.pop(live.meta.id, None)

    async def close(self) -> None:
        for live in self.live_tables.values():
            for task in (live.bot_task, live.timer_task):
                if task is not None:
                    task.cancel()
            for client in live.clients:
                client.close()


def encode_json(message: dict[str, Any]) -> str:
    """A message as compact JSON text (orjson: several times faster than `json` on views)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def result_json(state: State) -> dict[str, Any]:
    return {"scores": [s.to_json() for s in state.scores()], "winners": state.winners()}


def table_json(meta: GameTable, names: dict[int, str]) -> dict[str, Any]:
    """What anyone may see of a table (never its seed or invite token). `created_by` is the
    creator's name (None if unknown to `names`)."""
    return {
        "id": meta.id,
        "game": meta.game,
        "options": meta.options,
        "seats": [
            {
                "kind": s.kind,
                "user": names.get(s.user_id) if s.user_id is not None else None,
                "bot": s.bot,
                "replaced": s.kind == "human" and s.bot is not None,
            }
            for s in meta.seats
        ],
        "clock": meta.clock,
        "rated": meta.rated,
        "private": meta.private,
        "status": meta.status,
        "version": meta.version,
        "created_by": names.get(meta.created_by) if meta.created_by is not None else None,
        "created_at": meta.created_at.isoformat(),
        "started_at": meta.started_at.isoformat() if meta.started_at else None,
        "finished_at": meta.finished_at.isoformat() if meta.finished_at else None,
        "result": meta.result,
    }


def check_seat_specs(seats: Iterable[Any]) -> list[dict[str, Any]]:
    out = []
    for spec in seats:
        if not isinstance(spec, dict):
            raise TableError(400, "invalid_table", "each seat must be an object")
        out.append(spec)
    return out
