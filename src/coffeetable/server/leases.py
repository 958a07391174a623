"""Leases: which node drives a running table's bots and clock.

Exactly one node at a time may play a table's bot seats and let its clocks run out; any node
may store a person's move. A lease is a Redis key `ct:lease:<table>` holding the node's id,
with an expiry (`TTL`): the holder renews it every `RENEW_EVERY` seconds, and a node that dies
stops renewing, so the key expires and another node takes it over (`Driver` looks for tables
without a driver every `SCAN_EVERY` seconds): a dead node's tables are driven again within
TTL + SCAN_EVERY seconds.

A holder stops driving as soon as it cannot be sure it still holds the lease: `holds` is
true only until the end of the last expiry Redis confirmed (counted from before the renewal
was sent), so two nodes never believe they hold one lease at once, even when Redis is
unreachable. What two drivers could still do twice is harmless anyway: a bot's move and a
clock's expiry are stored with compare-and-swap (version, revision), so the second fails.

`SoleLeases` is the single node's: it holds every lease.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from coffeetable.server.bus import PREFIX

log = logging.getLogger("coffeetable.server.leases")

#: Seconds a lease lasts without renewal.
TTL = 6.0
#: Seconds between renewals of every lease a node holds.
RENEW_EVERY = 1.5
#: Seconds between looks for tables without a driver.
SCAN_EVERY = 2.0
#: Seconds a node's "alive" key lasts (renewed with the leases): the site's node count.
NODE_TTL = 6.0

_RENEW = """
local out = {}
for i, key in ipairs(KEYS) do
    if redis.call('GET', key) == ARGV[1] then
        redis.call('PEXPIRE', key, ARGV[2])
        out[#out + 1] = i
    end
end
return out
"""

_RELEASE = """
local n = 0
for i, key in ipairs(KEYS) do
    if redis.call('GET', key) == ARGV[1] then
        redis.call('DEL', key)
        n = n + 1
    end
end
return n
"""


def lease_key(table_id: str) -> str:
    return f"{PREFIX}lease:{table_id}"


class Leases:
    """The leases one node holds."""

    def __init__(self, node_id: str) -> None:
        self.node_id = node_id

    @property
    def shared(self) -> bool:
        return False

    def holds(self, table_id: str) -> bool:
        raise NotImplementedError

    def held(self) -> list[str]:
        raise NotImplementedError

    async def acquire(self, table_ids: Iterable[str]) -> list[str]:
        """Try to take these leases; return those taken."""
        raise NotImplementedError

    async def renew(self) -> list[str]:
        """Renew every lease held; return the ones lost."""
        return []

    async def release(self, table_ids: Iterable[str]) -> None: ...

    async def unleased(self, table_ids: list[str]) -> list[str]:
        """Those of the tables that no node holds."""
        return []

    async def node_count(self) -> int:
        return 1


class SoleLeases(Leases):
    """One node alone drives every table."""

    def holds(self, table_id: str) -> bool:
        return True

    def held(self) -> list[str]:
        return []

    async def acquire(self, table_ids: Iterable[str]) -> list[str]:
        return list(table_ids)


class RedisLeases(Leases):
    def __init__(
        self, redis: Any, node_id: str, ttl: float = TTL, now: Any = time.monotonic
    ) -> None:
        super().__init__(node_id)
        self.redis = redis
        self.ttl = ttl
        self._now = now
        #: table -> monotonic time until which this node may act as its driver
        self._valid_until: dict[str, float] = {}
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    @property
    def shared(self) -> bool:
        return True

    def holds(self, table_id: str) -> bool:
        until = self._valid_until.get(table_id)
        return until is not None and self._now() < until

    def held(self) -> list[str]:
        return [t for t in self._valid_until if self.holds(t)]

    async def acquire(self, table_ids: Iterable[str]) -> list[str]:
        wanted = [t for t in table_ids if t not in self._valid_until]
        if not wanted:
            return []
        sent = self._now()
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in wanted:
                pipe.set(lease_key(table_id), self.node_id, nx=True, px=int(self.ttl * 1000))
            results = await pipe.execute()
        taken = [t for t, ok in zip(wanted, results, strict=True) if ok]
        for table_id in taken:
            self._valid_until[table_id] = sent + self.ttl * 0.9
        return taken

    async def renew(self) -> list[str]:
        tables = list(self._valid_until)
        sent = self._now()
        await self.redis.set(
            f"{PREFIX}node:{self.node_id}", "1", px=int(NODE_TTL * 1000)
        )  # this node is alive
        if not tables:
            return []
        kept_index = await self._renew(
            keys=[lease_key(t) for t in tables], args=[self.node_id, int(self.ttl * 1000)]
        )
        kept = {tables[int(i) - 1] for i in kept_index}
        lost = [t for t in tables if t not in kept]
        for table_id in kept:
            self._valid_until[table_id] = sent + self.ttl * 0.9
        for table_id in lost:
            del self._valid_until[table_id]
        return lost

    def forget(self, table_ids: Iterable[str]) -> None:
        for table_id in table_ids:
            self._valid_until.pop(table_id, None)

    async def release(self, table_ids: Iterable[str]) -> None:
        tables = [t for t in table_ids if t in self._valid_until]
        if not tables:
            return
        self.forget(tables)
        try:
            await self._release(keys=[lease_key(t) for t in tables], args=[self.node_id])
        except Exception as exc:  # they expire by themselves
            log.warning("could not release %d leases: %s", len(tables), exc)

    async def unleased(self, table_ids: list[str]) -> list[str]:
        out: list[str] = []
        for start in range(0, len(table_ids), 1000):
            chunk = table_ids[start : start + 1000]
            values = await self.redis.mget([lease_key(t) for t in chunk])
            out.extend(t for t, v in zip(chunk, values, strict=True) if v is None)
        return out

    async def node_count(self) -> int:
        count = 0
        async for _ in self.redis.scan_iter(match=f"{PREFIX}node:*", count=1000):
            count += 1
        return max(1, count)
