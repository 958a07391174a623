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
        assert action.table_revision == version + 1  # every change moves the revision on
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


async def test_remove_last_action_is_a_compare_and_swap(storage: SqlStorage) -> None:
    """An undo: the last action goes, the version moves on (never back), and the next
    action takes the version after the undo's."""
    await make_table(storage)
    first = await storage.append_action("t1", 0, 0, "take P1")
    second = await storage.append_action("t1", 1, 1, "take P2")
    clock_state = {"kind": "realtime", "state": {"remaining": [5.0, 6.0]}}
    removed = await storage.remove_last_action("t1", 2, {"clock": clock_state})
    assert removed == second
    table = await storage.get_table("t1")
    assert table is not None and table.version == 3 and table.clock == clock_state
    assert await storage.list_actions("t1") == [first]
    again = await storage.append_action("t1", 3, 1, "take P3")
    assert again.version == 4
    assert [a.notation for a in await storage.list_actions("t1")] == ["take P1", "take P3"]
    # a stale version changes nothing, and neither does a table without actions
    for expected in (2, 3, 5):
        with pytest.raises(StaleVersionError) as caught:
            await storage.remove_last_action("t1", expected, {"status": "finished"})
        assert caught.value.actual == 4
    assert [a.version for a in await storage.list_actions("t1")] == [1, 4]
    await make_table(storage, "t2")
    with pytest.raises(NotFoundError, match="no action"):
        await storage.remove_last_action("t2", 0)
    empty = await storage.get_table("t2")
    assert empty is not None and empty.version == 0
    with pytest.raises(NotFoundError, match="no table 'ghost'"):
        await storage.remove_last_action("ghost", 0)
    table = await storage.get_table("t1")
    assert table is not None and table.version == 4 and table.status == "open"


async def test_undo_races_a_move_exactly_one_wins(storage: SqlStorage) -> None:
    await make_table(storage)
    await storage.append_action("t1", 0, 0, "take P1")
    await storage.append_action("t1", 1, 0, "take P2")
    outcomes = await asyncio.gather(
        storage.remove_last_action("t1", 2),
        storage.append_action("t1", 2, 1, "take P3"),
        return_exceptions=True,
    )
    assert sum(isinstance(o, StaleVersionError) for o in outcomes) == 1, outcomes
    stored = [a.notation for a in await storage.list_actions("t1")]
    assert stored in (["take P1"], ["take P1", "take P2", "take P3"])
    table = await storage.get_table("t1")
    assert table is not None and table.version == 3
