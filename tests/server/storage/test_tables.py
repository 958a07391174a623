"""Game tables: creation, JSON and seed round trips, updates and the lobby listing."""

from __future__ import annotations

from datetime import timedelta, timezone
from typing import Any

import pytest
import sqlalchemy as sa

from coffeetable.server.storage import (
    AlreadyExistsError,
    GameTable,
    NotFoundError,
    Seat,
    SqlStorage,
)
from tests.server.storage.helpers import FakeClock, make_table

pytestmark = pytest.mark.anyio

OPTIONS: dict[str, Any] = {
    "variant": "advanced",
    "note": "Café ☕ — «naïve» 日本語 emoji 🎲",
    "nested": {"list": [1, 2.5, None, True, "ß"], "empty": {}},
    "huge": 2**70,
}


async def test_create_and_get_round_trip(storage: SqlStorage, clock: FakeClock) -> None:
    owner = await storage.create_user("Ana")
    seats = (Seat("human", user_id=owner.id), Seat("bot", bot="greedy"), Seat("open"))
    table = await storage.create_table(
        "Xy_9-zz",
        game="coffee-rush",
        seed=2**63 - 1,
        seats=seats,
        options=OPTIONS,
        clock={"kind": "fischer", "base_s": 300, "increment_s": 5.5},
        rated=True,
        private=True,
        invite_token="inv-ïñ",
        created_by=owner.id,
    )
    assert table == GameTable(
        id="Xy_9-zz",
        game="coffee-rush",
        options=OPTIONS,
        seed=2**63 - 1,
        seats=seats,
        clock={"kind": "fischer", "base_s": 300, "increment_s": 5.5},
        rated=True,
        private=True,
        invite_token="inv-ïñ",
        status="open",
        version=0,
        created_by=owner.id,
        created_at=clock.now,
        started_at=None,
        finished_at=None,
        result=None,
    )
    assert await storage.get_table("Xy_9-zz") == table
    assert await storage.get_table("nope") is None


async def test_big_seeds_round_trip(storage: SqlStorage) -> None:
    seeds = [0, 2**53 + 1, 2**63 - 1, 2**64 - 1, 2**80 + 3, -(2**63)]
    for number, seed in enumerate(seeds):
        await make_table(storage, f"s{number}", seed=seed)
    for number, seed in enumerate(seeds):
        table = await storage.get_table(f"s{number}")
        assert table is not None and table.seed == seed and type(table.seed) is int


async def test_defaults(storage: SqlStorage) -> None:
    table = await make_table(storage)
    assert table.options == {} and table.clock is None and table.result is None
    assert not table.rated and not table.private and table.invite_token is None
    assert table.created_by is None and table.status == "open" and table.version == 0


async def test_create_errors_change_nothing(storage: SqlStorage) -> None:
    first = await make_table(storage)
    with pytest.raises(AlreadyExistsError, match="'t1' exists already"):
        await make_table(storage, game="coffee-rush")
    assert await storage.get_table("t1") == first
    with pytest.raises(NotFoundError, match="no user with id 77"):
        await make_table(storage, "t2", created_by=77)
    assert await storage.get_table("t2") is None
    with pytest.raises(TypeError, match="seed must be an integer"):
        await make_table(storage, "t3", seed="12")
    with pytest.raises(ValueError, match="seat kind"):
        Seat("robot")  # type: ignore[arg-type]


async def test_update_table(storage: SqlStorage, clock: FakeClock) -> None:
    user = await storage.create_user("Ana")
    await make_table(storage, invite_token="secret")
    started = clock.advance(minutes=1)
    seats = [Seat("human", user_id=user.id), Seat("bot", bot="ismcts:easy")]
    running = await storage.update_table(
        "t1", status="running", seats=seats, started_at=started, invite_token=None
    )
    assert running.status == "running" and running.seats == tuple(seats)
    assert running.started_at == started and running.invite_token is None
    assert await storage.get_table("t1") == running

    result = {"scores": [{"total": 31, "parts": {"café": 12}}], "winners": [0], "note": "ünï"}
    finished = await storage.update_table(
        "t1", status="finished", finished_at=clock.advance(minutes=30), result=result
    )
    assert finished.result == result and finished.finished_at == clock.now
    assert finished.started_at == started and finished.version == 0
    assert await storage.get_table("t1") == finished
    assert await storage.update_table("t1") == finished  # no changes

    cleared = await storage.update_table("t1", result=None, clock={"kind": "none"})
    assert cleared.result is None and cleared.clock == {"kind": "none"}


async def test_update_errors_change_nothing(storage: SqlStorage) -> None:
    table = await make_table(storage)
    with pytest.raises(NotFoundError, match="no table 'nope'"):
        await storage.update_table("nope", status="running")
    with pytest.raises(ValueError, match="status must be one of"):
        await storage.update_table("t1", status="paused")  # type: ignore[typeddict-item]
    with pytest.raises(TypeError, match="cannot change version"):
        await storage.update_table("t1", version=9)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="timezone-aware"):
        await storage.update_table("t1", started_at=table.created_at.replace(tzinfo=None))
    assert await storage.get_table("t1") == table


async def test_list_tables_filters(storage: SqlStorage, clock: FakeClock) -> None:
    specs = [
        ("a", "cafe", "open", False),
        ("b", "cafe", "running", False),
        ("c", "coffee-rush", "open", False),
        ("d", "cafe", "open", True),
        ("e", "coffee-rush", "finished", False),
        ("f", "cafe", "aborted", False),
    ]
    for table_id, game, status, private in specs:
        clock.advance(seconds=1)
        await make_table(storage, table_id, game=game, private=private)
        if status != "open":
            await storage.update_table(table_id, status=status)  # type: ignore[arg-type]

    def ids(tables: list[GameTable]) -> list[str]:
        return [t.id for t in tables]

    assert ids(await storage.list_tables()) == ["f", "e", "c", "b", "a"]  # newest first
    assert ids(await storage.list_tables(include_private=True)) == ["f", "e", "d", "c", "b", "a"]
    assert ids(await storage.list_tables(["open"])) == ["c", "a"]
    assert ids(await storage.list_tables(["open"], include_private=True)) == ["d", "c", "a"]
    assert ids(await storage.list_tables(("open", "running"), game="cafe")) == ["b", "a"]
    assert ids(await storage.list_tables(["finished", "aborted"], limit=1)) == ["f"]
    assert ids(await storage.list_tables(["running"], game="coffee-rush")) == []
    assert await storage.list_tables([]) == []
    assert await storage.list_tables(limit=0) == []
    with pytest.raises(ValueError, match="status must be one of"):
        await storage.list_tables(["lobby"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="limit"):
        await storage.list_tables(limit=-1)


async def test_deleting_a_creator_keeps_the_table(storage: SqlStorage) -> None:
    """Foreign keys are enforced (SQLite too): `created_by` is cleared, not left dangling."""
    user = await storage.create_user("Ana")
    await make_table(storage, created_by=user.id)
    async with storage.engine.begin() as connection:
        await connection.execute(sa.text("DELETE FROM users WHERE id = :id"), {"id": user.id})
    table = await storage.get_table("t1")
    assert table is not None and table.created_by is None


async def test_timestamps_are_utc(storage: SqlStorage, clock: FakeClock) -> None:
    clock.now = clock.now.astimezone(timezone(timedelta(hours=-5)))
    table = await make_table(storage)
    assert table.created_at == clock.now
    assert table.created_at.utcoffset() == timedelta(0)


async def test_every_change_moves_the_revision_and_update_can_compare_and_swap(
    storage: SqlStorage,
) -> None:
    from coffeetable.server.storage import StaleRevisionError

    table = await make_table(storage)
    assert table.revision == 0
    joined = await storage.update_table("t1", seats=[Seat("human", user_id=None), table.seats[1]])
    assert joined.revision == 1
    moved = await storage.append_action("t1", 0, 0, "take P1")
    assert moved.table_revision == 2
    # a change based on revision 1 lost the race: nothing changes
    with pytest.raises(StaleRevisionError, match="at revision 2, not 1"):
        await storage.update_table("t1", expected_revision=1, status="aborted")
    after = await storage.get_table("t1")
    assert after is not None and after.status == "open" and after.revision == 2
    running = await storage.update_table("t1", expected_revision=2, status="running")
    assert running.revision == 3 and running.status == "running"
    undone = await storage.remove_last_action("t1", 1)
    assert undone.table_revision == 4
    with pytest.raises(NotFoundError):
        await storage.update_table("nope", expected_revision=0, status="aborted")
    assert await storage.table_revisions(["t1", "nope"]) == {"t1": 4}
    assert await storage.running_table_ids() == ["t1"]
    loaded = await storage.load_table("t1")
    assert loaded is not None
    loaded_table, loaded_actions = loaded
    assert loaded_table.revision == 4 and loaded_table.version == 2 and loaded_actions == []
    assert await storage.load_table("nope") is None


async def test_a_repeated_request_gets_the_same_table(
    storage: SqlStorage, clock: FakeClock
) -> None:
    """`request_key`: the same creator and key within 10 minutes give back the table made
    the first time (a double click, a retried request); other creators, other keys, or the
    same key later make new tables."""
    ana = await storage.create_user("Ana")
    bea = await storage.create_user("Bea")
    first = await make_table(storage, "r1", created_by=ana.id, request_key="click-1")
    again = await make_table(storage, "r2", created_by=ana.id, request_key="click-1")
    assert again == first and await storage.get_table("r2") is None
    other_key = await make_table(storage, "r3", created_by=ana.id, request_key="click-2")
    other_user = await make_table(storage, "r4", created_by=bea.id, request_key="click-1")
    no_key = [await make_table(storage, f"n{i}", created_by=ana.id) for i in range(2)]
    assert {other_key.id, other_user.id, *(t.id for t in no_key)} == {"r3", "r4", "n0", "n1"}
    clock.advance(minutes=9, seconds=59)
    assert (await make_table(storage, "r5", created_by=ana.id, request_key="click-1")).id == "r1"
    clock.advance(seconds=2)
    later = await make_table(storage, "r6", created_by=ana.id, request_key="click-1")
    assert later.id == "r6" and (await storage.get_table("r1")) == first
    assert (await make_table(storage, "r7", created_by=ana.id, request_key="click-1")).id == "r6"


async def test_private_table_ids(storage: SqlStorage) -> None:
    await make_table(storage, "pub")
    await make_table(storage, "priv", private=True, invite_token="tok")
    assert await storage.private_table_ids(["pub", "priv", "nope"]) == {"priv"}
    assert await storage.private_table_ids([]) == set()


async def test_load_table_gives_the_table_with_its_actions_in_order(storage: SqlStorage) -> None:
    """`load_table` (one connection, the revision checked around the actions' read): the
    table as `get_table` gives it, its actions as `list_actions` does, and another table's
    actions never among them."""
    await make_table(storage)
    await make_table(storage, "t2")
    for version, notation in enumerate(["take P1", "take P2", "pass"]):
        await storage.append_action("t1", version, version % 2, notation)
    await storage.append_action("t2", 0, 1, "other")
    loaded = await storage.load_table("t1")
    assert loaded is not None
    table, moves = loaded
    assert table == await storage.get_table("t1")
    assert table.version == 3 and table.revision == 3
    assert moves == await storage.list_actions("t1")
    assert [(m.version, m.seat, m.notation) for m in moves] == [
        (1, 0, "take P1"),
        (2, 1, "take P2"),
        (3, 0, "pass"),
    ]
    other = await storage.load_table("t2")
    assert other is not None and [m.notation for m in other[1]] == ["other"]


async def test_open_tables_are_counted_per_creator(storage: SqlStorage) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    for table_id in ("a1", "a2", "a3"):
        await make_table(storage, table_id, created_by=ana.id)
    await make_table(storage, "b1", created_by=ben.id)
    await make_table(storage, "nobody's")
    assert await storage.count_open_tables(ana.id) == 3
    assert await storage.count_open_tables(ben.id) == 1
    await storage.update_table("a1", status="running")
    await storage.update_table("a2", status="aborted")
    assert await storage.count_open_tables(ana.id) == 1
    assert await storage.count_open_tables(ben.id) == 1
    made = await storage.get_table("a3")
    assert made is not None and made.created_by == ana.id and made.status == "open"
