"""Actions: the atomic compare-and-append that keeps a table's moves in order."""

from __future__ import annotations

import asyncio

import pytest

from coffeetable.server.storage import (
    NotFoundError,
    SqlStorage,
    StaleVersionError,
    StoredAction,
)
from tests.server.storage.helpers import FakeClock, make_table

pytestmark = pytest.mark.anyio


async def test_append_and_list(storage: SqlStorage, clock: FakeClock) -> None:
    await make_table(storage)
    moves = [(1, "take P17"), (0, "take P3"), (1, "place 2 b4")]
    stored = []
    for version, (seat, notation) in enumerate(moves):
        clock.advance(seconds=3)
        action = await storage.append_action("t1", version, seat, notation)
        assert action == StoredAction("t1", version + 1, seat, notation, clock.now)
        stored.append(action)
    assert await storage.list_actions("t1") == stored
    table = await storage.get_table("t1")
    assert table is not None and table.version == 3
    assert await storage.list_actions("nope") == []


async def test_stale_version_changes_nothing(storage: SqlStorage) -> None:
    await make_table(storage)
    first = await storage.append_action("t1", 0, 0, "take P1")
    for expected in (0, 2, -1):
        with pytest.raises(StaleVersionError, match="at version 1, not") as caught:
            await storage.append_action("t1", expected, 1, "take P2", {"status": "finished"})
        assert (caught.value.table_id, caught.value.expected, caught.value.actual) == (
            "t1",
            expected,
            1,
        )
    assert await storage.list_actions("t1") == [first]
    table = await storage.get_table("t1")
    assert table is not None and table.version == 1 and table.status == "open"


async def test_unknown_table(storage: SqlStorage) -> None:
    with pytest.raises(NotFoundError, match="no table 'ghost'"):
        await storage.append_action("ghost", 0, 0, "take P1")


@pytest.mark.parametrize("racers", [2, 6])
async def test_concurrent_appends_exactly_one_wins(storage: SqlStorage, racers: int) -> None:
    await make_table(storage)
    await storage.append_action("t1", 0, 0, "take P1")
    outcomes = await asyncio.gather(
        *(storage.append_action("t1", 1, seat, f"move {seat}") for seat in range(racers)),
        return_exceptions=True,
    )
    winners = [o for o in outcomes if isinstance(o, StoredAction)]
    losers = [o for o in outcomes if isinstance(o, StaleVersionError)]
    assert len(winners) == 1 and len(losers) == racers - 1, outcomes
    assert all(loser.actual == 2 for loser in losers)
    stored = await storage.list_actions("t1")
    assert [a.version for a in stored] == [1, 2] and stored[1] == winners[0]
    table = await storage.get_table("t1")
    assert table is not None and table.version == 2


async def test_final_action_finishes_the_table_atomically(
    storage: SqlStorage, clock: FakeClock
) -> None:
    await make_table(storage)
    await storage.update_table("t1", status="running", started_at=clock.now)
    result = {"winners": [1], "scores": [{"total": 20}, {"total": 25}]}
    last = await storage.append_action(
        "t1", 0, 1, "end", {"status": "finished", "finished_at": clock.now, "result": result}
    )
    table = await storage.get_table("t1")
    assert table is not None
    assert (table.version, table.status, table.result, table.finished_at) == (
        1,
        "finished",
        result,
        clock.now,
    )
    assert await storage.list_actions("t1") == [last]
    with pytest.raises(TypeError, match="cannot change version"):
        await storage.append_action("t1", 1, 0, "x", {"version": 5})  # type: ignore[typeddict-unknown-key]
    assert len(await storage.list_actions("t1")) == 1
