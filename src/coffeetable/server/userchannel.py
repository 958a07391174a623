"""A person's own channel: `GET /ws/user` (docs/server-protocol.md, "The user channel").

Every page of the web client keeps one open. Through it the server learns whether the
person is looking (`visibility`: the page is shown or hidden; presence.py), and tells them
what concerns them wherever they are on the site: whose move it is at their tables (`turn`,
`ended`, `invitation`, from the bus topic `user:<id>`: notify.py), how many people are online
(`online`), and the presence of the people they watch (`watch`: the players at the table
they look at). Without a login the channel only watches and counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from coffeetable.server.bus import Bus
from coffeetable.server.livetable import SEND_QUEUE
from coffeetable.server.notify import user_topic
from coffeetable.server.presence import PRESENCE_REFRESH, Presence
from coffeetable.server.protocol import MAX_MESSAGE_BYTES, ErrorCode, ProtocolError
from coffeetable.server.storage import Storage, User

log = logging.getLogger("coffeetable.server.userchannel")

#: People one channel may watch at once (a table has at most 4 seats; a friends list later).
MAX_WATCHED = 32


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Visibility(_Message):
    """The page was shown (`hidden: false`) or hidden (another tab, minimised)."""

    type: Literal["visibility"]
    hidden: bool


class Watch(_Message):
    """Tell me the presence of these people, now and whenever it changes (replaces the list
    watched before)."""

    type: Literal["watch"]
    users: list[Annotated[str, Field(min_length=1, max_length=40)]] = Field(max_length=MAX_WATCHED)


class Ping(_Message):
    type: Literal["ping"]
    ref: str | None = Field(default=None, max_length=64)


UserMessage = Visibility | Watch | Ping
_ADAPTER: TypeAdapter[UserMessage] = TypeAdapter(
    Annotated[UserMessage, Field(discriminator="type")]
)
USER_TYPES = ("visibility", "watch", "ping")


def parse_user_message(raw: str) -> UserMessage:
    """The message in `raw`, or ProtocolError with the reason (as for table messages)."""
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}"
        )
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(ErrorCode.BAD_JSON, "message is not valid JSON") from None
    except RecursionError:
        raise ProtocolError(ErrorCode.BAD_JSON, "message is nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_JSON, "message must be a JSON object")
    if data.get("type") not in USER_TYPES:
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE,
            f"unknown message type {data.get('type')!r}; expected one of {', '.join(USER_TYPES)}",
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'][1:]) or 'message'}: {e['msg']}"
            for e in exc.errors()
        )
        raise ProtocolError(ErrorCode.INVALID, problems) from None


@dataclass(eq=False)
class Channel:
    """One `/ws/user` socket."""

    user: User | None
    session: str | None = None
    queue: asyncio.Queue[dict[str, Any] | str | None] = field(
        default_factory=lambda: asyncio.Queue(SEND_QUEUE)
    )
    close_code: int = 1008
    #: the user ids it watches (and their names, to answer in names)
    watching: dict[int, str] = field(default_factory=dict)

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.close()

    def end(self) -> None:
        """The session ended (a logout on any node): 4401."""
        self.close(4401)

    def close(self, code: int = 1008) -> None:
        self.close_code = code
        with contextlib.suppress(asyncio.QueueEmpty):
            while True:
                self.queue.get_nowait()
        self.queue.put_nowait(None)


class UserChannels:
    """This node's user channels: their people's presence, what to tell whom."""

    def __init__(
        self, storage: Storage, bus: Bus, presence: Presence, every: float = PRESENCE_REFRESH
    ) -> None:
        self.every = every
        self.storage = storage
        self.bus = bus
        self.presence = presence
        self.channels: set[Channel] = set()
        #: a user's own channels on this node
        self.by_user: dict[int, set[Channel]] = {}
        #: who watches whom on this node
        self.watchers: dict[int, set[Channel]] = {}
        #: what each watched user was last told to be (so the periodic look tells changes only)
        self._told: dict[int, tuple[str, float | None]] = {}
        self._online = -1
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._tick_loop(), name="user-channels")

    async def close(self, code: int = 1012) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for channel in list(self.channels):
            channel.close(code)
        await self.presence.stop()

    # ---- a channel's life ----------------------------------------------------------------------
    async def opened(self, channel: Channel, hidden: bool = False) -> None:
        self.channels.add(channel)
        user = channel.user
        if user is not None:
            mine = self.by_user.setdefault(user.id, set())
            if not mine:
                await self.bus.subscribe(user_topic(user.id))
            mine.add(channel)
            await self.presence.opened(user.id, channel, hidden)

    async def closed(self, channel: Channel) -> None:
        self.channels.discard(channel)
        self._unwatch(channel)
        user = channel.user
        if user is not None:
            mine = self.by_user.get(user.id)
            if mine is not None:
                mine.discard(channel)
                if not mine:
                    del self.by_user[user.id]
                    await self.bus.unsubscribe(user_topic(user.id))
            await self.presence.closed(user.id, channel)

    async def handle(self, channel: Channel, message: UserMessage) -> None:
        if isinstance(message, Visibility):
            if channel.user is None:
                raise ProtocolError(
                    ErrorCode.NOT_SEATED, "log in or play as a guest to be shown as present"
                )
            await self.presence.visibility(channel.user.id, channel, message.hidden)
        elif isinstance(message, Watch):
            await self.watch(channel, message.users)
        else:
            channel.send({"type": "pong", "ref": message.ref})

    async def watch(self, channel: Channel, names: list[str]) -> None:
        """Watch these people (unknown names are left out, and said so)."""
        found: dict[int, str] = {}
        unknown = []
        for name in dict.fromkeys(names):
            user = await self.storage.get_user_by_name(name)
            if user is None:
                unknown.append(name)
            else:
                found[user.id] = user.name
        self._unwatch(channel)
        channel.watching = found
        for user_id in found:
            self.watchers.setdefault(user_id, set()).add(channel)
        states = await self.presence.states(found)
        channel.send(
            {
                "type": "presence",
                "users": {found[u]: state_json(s) for u, s in states.items()},
                "unknown": unknown,
            }
        )

    def _unwatch(self, channel: Channel) -> None:
        for user_id in channel.watching:
            watchers = self.watchers.get(user_id)
            if watchers is not None:
                watchers.discard(channel)
                if not watchers:
                    del self.watchers[user_id]
                    self._told.pop(user_id, None)
        channel.watching = {}

    # ---- from the bus --------------------------------------------------------------------------
    async def on_presence(self, message: dict[str, Any]) -> None:
        """A user's presence changed on some node: tell their watchers here."""
        user_id = message.get("user")
        if isinstance(user_id, int) and user_id in self.watchers:
            await self._tell([user_id])

    def on_user_message(self, topic: str, message: dict[str, Any]) -> None:
        """Something for one user (turn, ended, invitation, friend): to their channels here."""
        try:
            user_id = int(topic.removeprefix("user:"))
        except ValueError:
            return
        if message.get("type") not in ("turn", "ended", "invitation", "friend"):
            return
        for channel in list(self.by_user.get(user_id, ())):
            channel.send(message)

    async def _tell(self, user_ids: list[int]) -> None:
        states = await self.presence.states(user_ids)
        for user_id, state in states.items():
            if self._told.get(user_id) == state:
                continue
            self._told[user_id] = state
            for channel in list(self.watchers.get(user_id, ())):
                name = channel.watching.get(user_id)
                if name is not None:
                    channel.send({"type": "presence", "users": {name: state_json(state)}})

    # ---- the periodic look ---------------------------------------------------------------------
    async def _tick_loop(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("presence upkeep failed: %s", exc)

    async def tick(self) -> None:
        """Refresh this node's presence in Redis; tell watchers of changes no message said
        (a node that died); tell everyone here how many are online, when it changed."""
        await self.presence.refresh()
        if self.watchers:
            await self._tell(list(self.watchers))
        await self.send_online()

    async def send_online(self, force_to: Channel | None = None) -> int:
        count = await self.presence.online_count()
        if force_to is not None:
            force_to.send({"type": "online", "count": count})
        elif count != self._online:
            for channel in list(self.channels):
                channel.send({"type": "online", "count": count})
        self._online = count
        return count


def state_json(state: tuple[str, float | None]) -> dict[str, Any]:
    """A presence state as JSON: `{"state", "since"}` (an ISO time, or null)."""
    kind, since = state
    return {
        "state": kind,
        "since": (
            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(since)) if since is not None else None
        ),
    }
