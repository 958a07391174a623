"""The bus: how the nodes of one site tell each other what changed (docs/deploy.md).

A message is a JSON object published on a topic: `table:<id>` for everything that happens at
one table (moves, undos, seats, status: `match.py` orders them by the table's `revision`),
`lobby` for the lobby's live list, and later chat and presence. A node subscribes to the
topics of the tables it holds in memory (it has clients there, or drives the table's bots and
clock) and to `lobby`.

Two back ends, chosen by URL as in broadcaster:

- `MemoryBus` (no URL): one node alone. A message reaches the node's own subscribers, which
  skip what they applied already: the same code path as with several nodes.
- `RedisBus` (`redis://...`): Redis pub/sub. Pub/sub is at-most-once: a message sent while a
  node was disconnected, or dropped, is lost. That is acceptable because the bus never holds
  the truth: PostgreSQL does. Every table message carries the table's revision, so a node
  that sees a gap reloads the table from storage, and a node that hears nothing for a while
  compares its revisions with storage's (`match.MatchService.check_revisions`); after a
  reconnection it reloads every table it holds (`on_reconnect`). Redis Streams would keep a
  per-table log in Redis, but that log would duplicate the one in the database, need a key
  per table to trim and delete, and survive nothing a Redis restart wipes (the site's Redis
  keeps nothing on disk); pub/sub costs one PUBLISH per change and nothing per table at rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

log = logging.getLogger("coffeetable.server.bus")

Handler = Callable[[str, dict[str, Any]], Awaitable[None]]

#: Prefix of every Redis key and channel of the site, so that one Redis may serve others too.
PREFIX = "ct:"


def table_topic(table_id: str) -> str:
    return f"table:{table_id}"


LOBBY = "lobby"
#: The site-wide topic of users' sessions (a logout closes the user's sockets on every node).
USERS = "users"


class Bus:
    """Publish/subscribe between the nodes of a site. `handler(topic, message)` gets every
    message of a subscribed topic, in the order published by any one node (messages of
    different nodes may interleave: the receivers order table messages by revision)."""

    def __init__(self) -> None:
        self.handler: Handler | None = None
        #: called after the bus reconnected: messages may have been lost meanwhile
        self.on_reconnect: Callable[[], Awaitable[None]] | None = None
        self.topics: set[str] = set()

    @property
    def shared(self) -> bool:
        """Whether other nodes may be listening (a Redis bus)."""
        return False

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        raise NotImplementedError

    async def subscribe(self, topic: str) -> None:
        self.topics.add(topic)

    async def unsubscribe(self, topic: str) -> None:
        self.topics.discard(topic)

    async def healthy(self) -> bool:
        return True

    async def _deliver(self, topic: str, message: dict[str, Any]) -> None:
        if self.handler is not None and topic in self.topics:
            try:
                await self.handler(topic, message)
            except Exception:  # one bad message must not stop the bus
                log.exception("handling a message on %s failed", topic)


class MemoryBus(Bus):
    """One node alone: a message goes straight to this node's own subscribers."""

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        await self._deliver(topic, message)


class RedisBus(Bus):
    """Redis pub/sub: one connection subscribed to this node's topics, one pool for
    publishing. Reconnects by itself (every second while Redis is away) and then calls
    `on_reconnect`."""

    def __init__(self, redis: Any) -> None:
        super().__init__()
        self.redis = redis  # redis.asyncio.Redis
        # channels are shared by all the databases of a Redis server: a site's carry its
        # database number, so that two sites on one Redis (in tests, say) never cross
        db = redis.connection_pool.connection_kwargs.get("db", 0)
        self.prefix = f"{PREFIX}{db}:"
        self._pubsub: Any = None
        self._task: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._closing = False
        self._handling: set[asyncio.Task[None]] = set()

    @property
    def shared(self) -> bool:
        return True

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen(), name="bus-listener")

    async def close(self) -> None:
        self._closing = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        try:
            await self.redis.publish(self.prefix + topic, orjson.dumps(message))
        except Exception as exc:  # Redis away: the others catch up from storage
            log.warning("could not publish on %s: %s", topic, exc)

    async def subscribe(self, topic: str) -> None:
        await super().subscribe(topic)
        if self._pubsub is not None and self._connected.is_set():
            with contextlib.suppress(Exception):  # re-subscribed after a reconnection
                await self._pubsub.subscribe(self.prefix + topic)

    async def unsubscribe(self, topic: str) -> None:
        await super().unsubscribe(topic)
        if self._pubsub is not None and self._connected.is_set():
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(self.prefix + topic)

    async def healthy(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    async def _listen(self) -> None:
        first = True
        while not self._closing:
            try:
                self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                # connected first: a topic subscribed from now on is subscribed here too (a
                # topic subscribed twice is harmless); a channel nobody publishes on keeps
                # the connection subscribed while this node holds no table
                self._connected.set()
                await self._pubsub.subscribe(
                    self.prefix + "node-alive", *(self.prefix + t for t in self.topics)
                )
                if not first and self.on_reconnect is not None:
                    await self.on_reconnect()
                first = False
                while True:
                    item = await self._pubsub.get_message(timeout=1.0)
                    if item is None or item.get("type") != "message":
                        continue
                    channel = item["channel"]
                    if isinstance(channel, bytes):
                        channel = channel.decode()
                    try:
                        message = orjson.loads(item["data"])
                    except orjson.JSONDecodeError:
                        log.warning("a message on %s is not JSON; ignored", channel)
                        continue
                    # handled in a task of its own, so that a table waiting for its lock
                    # holds up no other; tasks start in order, and a table's lock is fair
                    task = asyncio.create_task(
                        self._deliver(channel.removeprefix(self.prefix), message)
                    )
                    self._handling.add(task)
                    task.add_done_callback(self._handling.discard)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._connected.clear()
                log.warning("the bus lost Redis (%s); reconnecting", exc)
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()
                self._pubsub = None
                await asyncio.sleep(1.0)
