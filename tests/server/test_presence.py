"""Presence in-process: one node alone (memory), and several nodes on one Redis (the test
Redis database, $COFFEETABLE_TEST_REDIS), with a clock the test moves."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from coffeetable.server.bus import MemoryBus
from coffeetable.server.presence import Presence

pytestmark = pytest.mark.anyio
REDIS_URL = os.environ.get("COFFEETABLE_TEST_REDIS", "redis://127.0.0.1:6379/9")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Recorder(MemoryBus):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[dict[str, Any]] = []

    async def publish(self, topic: str, message: dict[str, Any]) -> None:
        self.sent.append(message)


async def test_alone_online_away_offline_with_since() -> None:
    clock, bus = Clock(), Recorder()
    presence = Presence(bus, "n1", clock=clock)
    tab, other = object(), object()
    assert await presence.states([7]) == {7: ("offline", None)}
    await presence.opened(7, tab)
    assert await presence.states([7]) == {7: ("online", clock.now)}
    assert await presence.online_count() == 1
    clock.now += 5
    await presence.opened(7, other, hidden=True)  # a hidden tab besides a shown one
    assert (await presence.states([7]))[7][0] == "online"
    await presence.visibility(7, tab, hidden=True)  # every tab hidden
    assert await presence.states([7]) == {7: ("away", clock.now)}
    await presence.visibility(7, tab, hidden=True)  # no change: no message
    clock.now += 5
    await presence.closed(7, tab)
    await presence.closed(7, tab)  # twice: harmless
    assert (await presence.states([7]))[7][0] == "away"
    await presence.closed(7, other)
    assert await presence.states([7]) == {7: ("offline", clock.now)}
    assert await presence.online_count() == 0
    # one message per change of state: online, away, offline
    assert bus.sent == [{"user": 7}] * 3
    await presence.visibility(8, tab, hidden=True)  # a socket it never saw: nothing
    assert await presence.states([8]) == {8: ("offline", None)}


@pytest.fixture
async def redis() -> AsyncIterator[Any]:
    import redis.asyncio

    client = redis.asyncio.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        await client.ping()
    except Exception as exc:
        if os.environ.get("COFFEETABLE_REQUIRE_SITE") == "1":
            pytest.fail(f"Redis at {REDIS_URL} is not reachable ({exc})")
        pytest.skip(f"Redis at {REDIS_URL} is not reachable ({exc})")
    await client.flushdb()
    try:
        yield client
    finally:
        await client.flushdb()
        await client.aclose()


async def test_nodes_on_redis_agree_and_a_dead_node_stops_counting(redis: Any) -> None:
    clock = Clock()
    one = Presence(Recorder(), "node-1", redis, clock=clock, ttl=30)
    two = Presence(Recorder(), "node-2", redis, clock=clock, ttl=30)
    await one.refresh()
    await two.refresh()
    tab_one, tab_two = object(), object()
    await one.opened(7, tab_one, hidden=True)
    assert await two.states([7]) == {7: ("away", clock.now)}  # read on the other node
    clock.now += 3
    await two.opened(7, tab_two)  # a shown tab on the other node: online wins
    assert await one.states([7]) == {7: ("online", clock.now)}
    await two.opened(9, object())
    assert await one.online_count() == 2
    # node 2 dies: it refreshes no more; after its expiry it counts no more
    clock.now += 20
    await one.refresh()
    assert (await one.states([7]))[7][0] == "online"
    clock.now += 15
    await one.refresh()
    assert (await one.states([7]))[7][0] == "away"
    assert await one.online_count() == 1
    # the last tab closes: offline, since when it was last seen
    await one.closed(7, tab_one)
    state, since = (await two.states([7]))[7]
    assert state == "offline" and since == clock.now
    # a node that stops says so at once
    await one.opened(7, object())
    assert (await two.states([7]))[7][0] == "online"
    await one.stop()
    assert (await two.states([7]))[7][0] == "offline"
