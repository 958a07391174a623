"""A table as a node holds it in memory (`LiveTable`), its connected clients, and how a
table is written: for clients (`table_json`, the game log's lines) and for the other nodes
of a site (`table_to_bus`, `changes_to_bus`). `match.py` changes tables; this says what
they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from coffeetable.core.game import Action, Game, State
from coffeetable.server.abandon import limit_of, public_json
from coffeetable.server.clock import GameClock
from coffeetable.server.deckbook import LoadedDeck, summary_of
from coffeetable.server.storage import GameTable, Seat, TableChanges, User

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


#: The close code of a socket whose session ended (logout): log in again.
LOGGED_OUT = 4401


@dataclass(eq=False)
class Client:
    """One WebSocket connection to one table."""

    user: User | None
    seat: int | None = None
    queue: asyncio.Queue[dict[str, Any] | str | None] = field(
        default_factory=lambda: asyncio.Queue(SEND_QUEUE)
    )
    #: the close code sent when the client is closed (1008: too slow; 1012: node restarting;
    #: 4401: its session ended)
    close_code: int = 1008
    #: the token hash of the session the socket was opened with (a logout closes it)
    session: str | None = None
    #: when this client's last sign of life went to the other nodes (`abandonment.py`)
    seen_sent: float = 0.0

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (a dict, or JSON text already encoded for several clients); a
        client too slow to drain its queue is disconnected."""
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.close()

    def end(self) -> None:
        """The session ended (a logout, on any node): close with 4401."""
        self.close(LOGGED_OUT)

    def close(self, code: int = 1008) -> None:
        self.close_code = code
        with contextlib.suppress(asyncio.QueueEmpty):
            while True:
                self.queue.get_nowait()
        self.queue.put_nowait(None)


#: A line of a table's game log (`MatchService._log_line`): (version, seat, its encoded
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


@dataclass(eq=False, slots=True)
class StateCache:
    """What a node worked out about one state of a table, each at most once
    (`MatchService`): nobody may change what it holds."""

    state: State | None
    # the views, per seat (`_view`)
    views: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    # the public view encoded in two parts, around its `seat` (`_view_json`)
    view_parts: tuple[bytes, bytes] | None = None
    # the legal actions, per seat that may act: their notations in the order of
    # `legal_actions` (what the seat's payload sends) and each notation's action (`_legal`:
    # a move the client picked from that list is applied without listing them again)
    legal: dict[int, tuple[list[str], dict[str, Action]]] = field(default_factory=dict)


@dataclass(eq=False)
class LiveTable:
    meta: GameTable
    game: Game
    # the players' deck the table plays with (None: the default deck); bot jobs carry its text
    deck: LoadedDeck | None = None
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
    # what this node worked out about `state` so far (`of_state`)
    cache: StateCache = field(default_factory=lambda: StateCache(None))
    # the score totals of a state (MatchService._moved: the state before a move had them
    # after the move before, so each move computes them once)
    totals: tuple[State | None, list[int]] = field(default_factory=lambda: (None, []))
    # several nodes: the revision storage held when `check_revisions` last found it ahead
    # of this copy (reloaded if that revision has not arrived by the next look)
    behind_at: int | None = None
    # when the table last had a client or a change here (`MatchService.sweep`)
    touched: float = field(default_factory=time.monotonic)
    # abandonment (`abandonment.py`), Unix times: when this node loaded the table, each
    # person's last sign of life, when each current seat's turn began (tables without a
    # clock: a clock knows it itself); and the lease holder's watch
    loaded_wall: float = field(default_factory=time.time)
    seen_at: dict[int, float] = field(default_factory=dict)
    turn_since: dict[int, float] = field(default_factory=dict)
    abandon_task: asyncio.Task[None] | None = None

    @property
    def version(self) -> int:
        return self.meta.version

    def of_state(self, state: State) -> StateCache:
        """What this node worked out about `state` (the table's state) so far: a new, empty
        cache once the table moved on to another state."""
        cache = self.cache
        if cache.state is not state:
            cache = self.cache = StateCache(state)
        return cache


def now_utc() -> datetime:
    return datetime.now(UTC)


def seat_of(meta: GameTable, user: User | None) -> int | None:
    """The seat `user` holds at the table, if any."""
    if user is None:
        return None
    for index, seat in enumerate(meta.seats):
        if seat.kind == "human" and seat.user_id == user.id:
            return index
    return None


def users_to_move(meta: GameTable, state: State | None) -> frozenset[int]:
    """The people whose move it is at the table: the users of the seats that may act now,
    unless a bot plays the seat for them (they left or ran out of time)."""
    if state is None or meta.status != "running" or state.is_over():
        return frozenset()
    out = set()
    for index in state.current_seats():
        seat = meta.seats[index]
        if seat.kind == "human" and seat.user_id is not None and seat.bot is None:
            out.add(seat.user_id)
    return frozenset(out)


#: the fields of a table's row (`moved_table` sets only these)
_TABLE_FIELDS = frozenset(f.name for f in dataclasses.fields(GameTable))
#: a check in the row's class (`__post_init__`) or slots: `moved_table` leaves it to `replace`
_TABLE_CHECKS = hasattr(GameTable, "__post_init__") or hasattr(GameTable, "__slots__")


def moved_table(meta: GameTable, **fields: Any) -> GameTable:
    """`dataclasses.replace(meta, **fields)` for a table whose move was stored: the same
    table, several times faster (a move does it once; `replace` runs the frozen class's
    `__init__`, one `object.__setattr__` a field, and GameTable checks nothing in it). A
    field the row does not have is refused as `replace` refuses it (TypeError)."""
    if _TABLE_CHECKS or not _TABLE_FIELDS.issuperset(fields):
        return dataclasses.replace(meta, **fields)
    out: GameTable = object.__new__(GameTable)
    values = out.__dict__
    values.update(meta.__dict__)
    values.update(fields)
    return out


def bot_of(seat: Seat) -> str | None:
    """The bot that plays this seat: a bot seat's, or the replacement of a human who ran out
    of time or left (a human seat with `bot` set)."""
    return seat.bot if seat.kind in ("bot", "human") else None


# ==== the table on the bus ====================================================================
def table_to_bus(meta: GameTable) -> dict[str, Any]:
    """The whole stored table as JSON, for the other nodes (never for a client)."""
    out = dataclasses.asdict(meta)
    out["seats"] = [s.to_json() for s in meta.seats]
    for key in ("created_at", "started_at", "finished_at"):
        moment = getattr(meta, key)
        out[key] = moment.isoformat() if moment is not None else None
    return out


def table_from_bus(data: dict[str, Any]) -> GameTable:
    fields = dict(data)
    fields["seats"] = tuple(Seat.from_json(s) for s in data["seats"])
    for key in ("created_at", "started_at", "finished_at"):
        fields[key] = datetime.fromisoformat(data[key]) if data[key] is not None else None
    return GameTable(**fields)


def changes_to_bus(changes: TableChanges) -> dict[str, Any]:
    out: dict[str, Any] = dict(changes)
    if out.get("finished_at") is not None:
        out["finished_at"] = out["finished_at"].isoformat()
    return out


def changes_from_bus(data: dict[str, Any]) -> dict[str, Any]:
    out = dict(data)
    if out.get("finished_at") is not None:
        out["finished_at"] = datetime.fromisoformat(out["finished_at"])
    return out


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
        "abandon_after": limit_of(meta),
        "abandon": public_json(meta),
        # the players' deck (issue 39): its sha256, name and where its cards come from
        **({"deck": deck} if (deck := summary_of(meta.game, meta.options)) else {}),
    }
