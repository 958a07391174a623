"""Several nodes: `MatchService.check_revisions` reloads a table only when a change that
storage held at one look has still not arrived on the bus by the next look, not merely
because a busy table is one message behind at two looks in a row (its messages in flight
each time). A needless reload sends every client a snapshot in place of the updates."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from coffeetable.server.bus import MemoryBus
from coffeetable.server.match import MatchService

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class _Storage:
    """What `check_revisions` reads of storage: each table's stored revision."""

    def __init__(self) -> None:
        self.revisions: dict[str, int] = {}

    async def table_revisions(self, ids: list[str]) -> dict[str, int]:
        return {i: self.revisions[i] for i in ids if i in self.revisions}


def _node() -> tuple[MatchService, _Storage, Any, list[str]]:
    storage = _Storage()
    match = MatchService(storage, MemoryBus())  # type: ignore[arg-type]
    live = SimpleNamespace(meta=SimpleNamespace(revision=10), behind_at=None, lock=asyncio.Lock())
    match.live_tables["t1"] = live  # type: ignore[assignment]
    reloads: list[str] = []

    async def resync(table: Any) -> None:
        reloads.append("t1")
        table.meta.revision = storage.revisions["t1"]
        table.behind_at = None

    match.resync = resync  # type: ignore[method-assign,assignment]
    return match, storage, live, reloads


async def test_a_busy_table_whose_messages_keep_arriving_is_not_reloaded() -> None:
    match, storage, live, reloads = _node()
    for _look in range(6):
        storage.revisions["t1"] = live.meta.revision + 1  # one more change, its message in flight
        await match.check_revisions()
        live.meta.revision += 1  # ... and it arrives before the next look
    assert reloads == []


async def test_a_change_whose_message_never_arrives_is_reloaded_at_the_next_look() -> None:
    match, storage, live, reloads = _node()
    storage.revisions["t1"] = 11
    await match.check_revisions()  # first look: may be in flight
    assert reloads == []
    await match.check_revisions()  # second look: revision 11 has not arrived: lost
    assert reloads == ["t1"]
    assert live.meta.revision == 11


async def test_a_lost_message_behind_a_busy_stream_is_still_reloaded() -> None:
    match, storage, live, reloads = _node()
    storage.revisions["t1"] = 11
    await match.check_revisions()  # look 1 sees 11 stored
    live.meta.revision = 11  # 11 arrived
    storage.revisions["t1"] = 13  # 12 and 13 stored; 12's message is lost, so 13 waits
    await match.check_revisions()  # look 2: 11 arrived, so only now is 13 awaited
    assert reloads == []
    storage.revisions["t1"] = 14
    await match.check_revisions()  # look 3: 13, stored at look 2, still missing: reload
    assert reloads == ["t1"]
    assert live.meta.revision == 14


async def test_a_table_that_caught_up_starts_afresh() -> None:
    match, storage, live, reloads = _node()
    storage.revisions["t1"] = 11
    await match.check_revisions()
    live.meta.revision = 11
    await match.check_revisions()  # caught up: nothing awaited any more
    assert live.behind_at is None
    storage.revisions["t1"] = 12
    await match.check_revisions()  # a new first look
    assert reloads == []
