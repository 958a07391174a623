"""Presence: whether a user is online, away (every tab of theirs hidden) or offline, and
since when (docs/server.md, "Presence"; docs/deploy.md for several nodes).

A user is present through their user channels (`/ws/user`, userchannel.py): each socket is
visible or hidden (the page reports `visibilitychange`). On one node the user is *online*
if any of their sockets is visible, *away* if all are hidden, *offline* with none.

- Alone (no Redis), everything is in this process.
- With Redis, each node keeps its own users in a hash `ct:presence:node:<node id>` (user id
  → state and since), which expires 30 s after the node last refreshed it (every 10 s), and
  lists itself in the sorted set `ct:presence:nodes` with the time its hash expires. A node
  that dies stops refreshing: its users stop counting within 30 s, with no message from it.
  The site's state of a user is the best of the live nodes' (online over away), and
  `ct:presence:seen` keeps when each user was last seen, for "offline since".

Every change of a user's state on a node is published on the bus (`presence`), so that the
nodes tell their watchers at once; the watchers of users whose node died learn it from the
periodic look (`userchannel.UserChannels.tick`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, Literal

from coffeetable.server.bus import Bus

log = logging.getLogger("coffeetable.server.presence")

PresenceState = Literal["online", "away", "offline"]
#: The bus topic of presence changes (every node subscribes).
PRESENCE = "presence"
#: Seconds a node's presence hash lives without a refresh, and how often it is refreshed.
PRESENCE_TTL = 30.0
PRESENCE_REFRESH = 10.0

_RANK = {"online": 2, "away": 1, "offline": 0}


class Presence:
    """This node's users' presence, and the site's (through Redis when there is one)."""

    def __init__(
        self,
        bus: Bus,
        node_id: str,
        redis: Any = None,
        clock: Callable[[], float] = time.time,
        ttl: float = PRESENCE_TTL,
    ) -> None:
        self.bus = bus
        self.node_id = node_id
        self.redis = redis
        self.clock = clock
        self.ttl = ttl
        #: per user, this node's sockets and whether each is hidden
        self.sockets: dict[int, dict[object, bool]] = {}
        #: per user present here, this node's state and since when
        self.local: dict[int, tuple[PresenceState, float]] = {}
        #: alone: when each user was last seen (with Redis: `ct:presence:seen`)
        self.seen: dict[int, float] = {}
        self._node_key = f"ct:presence:node:{node_id}"
        self._nodes_key = "ct:presence:nodes"
        self._seen_key = "ct:presence:seen"

    # ==== this node's sockets ===================================================================
    async def opened(self, user_id: int, socket: object, hidden: bool = False) -> None:
        self.sockets.setdefault(user_id, {})[socket] = hidden
        await self._changed(user_id)

    async def visibility(self, user_id: int, socket: object, hidden: bool) -> None:
        sockets = self.sockets.get(user_id)
        if sockets is None or socket not in sockets or sockets[socket] == hidden:
            return
        sockets[socket] = hidden
        await self._changed(user_id)

    async def closed(self, user_id: int, socket: object) -> None:
        sockets = self.sockets.get(user_id)
        if sockets is None or socket not in sockets:
            return
        del sockets[socket]
        if not sockets:
            del self.sockets[user_id]
        await self._changed(user_id)

    def _state_here(self, user_id: int) -> PresenceState:
        sockets = self.sockets.get(user_id)
        if not sockets:
            return "offline"
        return "away" if all(sockets.values()) else "online"

    async def _changed(self, user_id: int) -> None:
        state = self._state_here(user_id)
        before = self.local.get(user_id)
        if (before[0] if before else "offline") == state:
            return
        now = self.clock()
        if state == "offline":
            del self.local[user_id]
        else:
            self.local[user_id] = (state, now)
        if before is not None:  # was here: seen until now
            self.seen[user_id] = now
        await self._store(user_id, state, now)
        await self.bus.publish(PRESENCE, {"user": user_id})

    async def _store(self, user_id: int, state: PresenceState, now: float) -> None:
        if self.redis is None:
            return
        try:
            pipe = self.redis.pipeline(transaction=False)
            if state == "offline":
                pipe.hdel(self._node_key, user_id)
            else:
                pipe.hset(self._node_key, user_id, f"{state}:{now}")
                pipe.pexpire(self._node_key, int(self.ttl * 1000))
                pipe.zadd(self._nodes_key, {self.node_id: now + self.ttl})
            pipe.hset(self._seen_key, user_id, now)
            await pipe.execute()
        except Exception as exc:  # Redis away: the next refresh writes it all again
            log.warning("could not store presence: %s", exc)

    async def refresh(self) -> None:
        """Write this node's users again and push its expiry on (every PRESENCE_REFRESH s)."""
        if self.redis is None:
            return
        now = self.clock()
        try:
            # one transaction: a reader never sees the hash emptied before it is filled
            pipe = self.redis.pipeline(transaction=True)
            pipe.delete(self._node_key)
            if self.local:
                pipe.hset(
                    self._node_key,
                    mapping={u: f"{s}:{since}" for u, (s, since) in self.local.items()},
                )
                pipe.pexpire(self._node_key, int(self.ttl * 1000))
                pipe.hset(self._seen_key, mapping=dict.fromkeys(self.local, now))
            pipe.zadd(self._nodes_key, {self.node_id: now + self.ttl})
            pipe.zremrangebyscore(self._nodes_key, "-inf", now)
            await pipe.execute()
        except Exception as exc:
            log.warning("could not refresh presence: %s", exc)

    async def stop(self) -> None:
        """This node goes: its users are no longer present through it (at once, not after
        the expiry), and the others are told."""
        users = list(self.local)
        now = self.clock()
        for user_id in users:
            self.seen[user_id] = now
        self.sockets.clear()
        self.local.clear()
        if self.redis is not None:
            try:
                pipe = self.redis.pipeline(transaction=False)
                pipe.delete(self._node_key)
                pipe.zrem(self._nodes_key, self.node_id)
                if users:
                    pipe.hset(self._seen_key, mapping=dict.fromkeys(users, now))
                await pipe.execute()
            except Exception as exc:
                log.warning("could not clear presence: %s", exc)
        for user_id in users:
            await self.bus.publish(PRESENCE, {"user": user_id})

    # ==== the site's view ======================================================================
    async def states(
        self, user_ids: Iterable[int]
    ) -> dict[int, tuple[PresenceState, float | None]]:
        """Each user's state on the site and since when (for "offline", when last seen; None
        if never seen)."""
        wanted = list(dict.fromkeys(user_ids))
        if self.redis is None:
            out: dict[int, tuple[PresenceState, float | None]] = {}
            for user_id in wanted:
                here = self.local.get(user_id)
                out[user_id] = here if here is not None else ("offline", self.seen.get(user_id))
            return out
        try:
            now = self.clock()
            nodes = [
                n.decode() if isinstance(n, bytes) else str(n)
                for n in await self.redis.zrangebyscore(self._nodes_key, now, "+inf")
            ]
            pipe = self.redis.pipeline(transaction=False)
            for node in nodes:
                pipe.hmget(f"ct:presence:node:{node}", wanted)
            pipe.hmget(self._seen_key, wanted)
            replies = await pipe.execute() if wanted else []
        except Exception as exc:
            log.warning("could not read presence: %s", exc)
            return {u: self.local.get(u, ("offline", None)) for u in wanted}
        best: dict[int, tuple[PresenceState, float | None]] = {}
        seen_values = replies[-1] if replies else []
        for index, user_id in enumerate(wanted):
            state: PresenceState = "offline"
            since: float | None = None
            for reply in replies[:-1]:
                value = reply[index]
                if value is None:
                    continue
                text = value.decode() if isinstance(value, bytes) else str(value)
                node_state, _, node_since = text.partition(":")
                if node_state not in ("online", "away"):
                    continue
                moment = float(node_since)
                if _RANK[node_state] > _RANK[state] or (
                    node_state == state and since is not None and moment < since
                ):
                    state, since = node_state, moment  # type: ignore[assignment]
            if state == "offline":
                seen = seen_values[index] if seen_values else None
                since = float(seen) if seen is not None else None
            best[user_id] = (state, since)
        return best

    async def online_count(self) -> int:
        """How many users are online or away on the site now."""
        if self.redis is None:
            return len(self.local)
        try:
            now = self.clock()
            nodes = await self.redis.zrangebyscore(self._nodes_key, now, "+inf")
            pipe = self.redis.pipeline(transaction=False)
            for node in nodes:
                name = node.decode() if isinstance(node, bytes) else str(node)
                pipe.hkeys(f"ct:presence:node:{name}")
            users: set[bytes | str] = set()
            for keys in await pipe.execute():
                users.update(keys)
            return len(users)
        except Exception as exc:
            log.warning("could not count who is online: %s", exc)
            return len(self.local)
