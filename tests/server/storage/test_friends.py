"""Friends (a request, accepted by the other) and invitations to open tables, on every back end."""

from __future__ import annotations

import pytest

from coffeetable.server.storage import Friend, Invitation, NotFoundError, SqlStorage
from coffeetable.server.storage.schema import friendships
from tests.server.storage.helpers import FakeClock, make_table

pytestmark = pytest.mark.anyio


async def test_a_request_then_its_acceptance(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana", "h")
    bo = await storage.create_user("Bo", "h")
    asked = clock.now
    assert await storage.request_friend(ana.id, bo.id) == Friend(bo.id, "Bo", "outgoing", asked)
    assert await storage.friends(ana.id) == [Friend(bo.id, "Bo", "outgoing", asked)]
    assert await storage.friends(bo.id) == [Friend(ana.id, "Ana", "incoming", asked)]
    # asking again changes nothing
    clock.advance(minutes=1)
    assert (await storage.request_friend(ana.id, bo.id)).state == "outgoing"
    assert await storage.friends(bo.id) == [Friend(ana.id, "Ana", "incoming", asked)]
    # Bo's request meets Ana's: accepted
    accepted = clock.advance(minutes=1)
    assert await storage.request_friend(bo.id, ana.id) == Friend(ana.id, "Ana", "friend", accepted)
    assert await storage.friends(ana.id) == [Friend(bo.id, "Bo", "friend", accepted)]
    assert await storage.friends(bo.id) == [Friend(ana.id, "Ana", "friend", accepted)]
    assert (await storage.request_friend(ana.id, bo.id)).state == "friend"


async def test_removing_declines_withdraws_or_ends(storage: SqlStorage) -> None:
    ana = await storage.create_user("Ana", "h")
    bo = await storage.create_user("Bo", "h")
    cy = await storage.create_user("Cy", "h")
    await storage.request_friend(ana.id, bo.id)
    assert await storage.remove_friend(bo.id, ana.id)  # declined
    assert await storage.friends(ana.id) == []
    assert not await storage.remove_friend(bo.id, ana.id)
    await storage.request_friend(ana.id, bo.id)
    await storage.request_friend(bo.id, ana.id)
    await storage.request_friend(cy.id, ana.id)
    assert [(f.name, f.state) for f in await storage.friends(ana.id)] == [
        ("Cy", "incoming"),
        ("Bo", "friend"),
    ]
    assert await storage.remove_friend(ana.id, bo.id)  # ended
    assert [(f.name, f.state) for f in await storage.friends(bo.id)] == []
    assert [(f.name, f.state) for f in await storage.friends(ana.id)] == [("Cy", "incoming")]


async def test_bad_friend_requests_change_nothing(storage: SqlStorage) -> None:
    ana = await storage.create_user("Ana", "h")
    with pytest.raises(ValueError):
        await storage.request_friend(ana.id, ana.id)
    with pytest.raises(NotFoundError):
        await storage.request_friend(ana.id, ana.id + 1000)
    assert await storage.friends(ana.id) == []


async def test_requests_both_ways_at_once_make_friends(storage: SqlStorage) -> None:
    """Two requests that crossed (both rows written) read as a friendship, and one removal ends it."""
    ana = await storage.create_user("Ana", "h")
    bo = await storage.create_user("Bo", "h")
    async with storage._write() as conn:
        for a, b in ((ana.id, bo.id), (bo.id, ana.id)):
            await conn.execute(
                friendships.insert().values(from_id=a, to_id=b, created_at=storage._now())
            )
    assert [(f.name, f.state) for f in await storage.friends(ana.id)] == [("Bo", "friend")]
    assert await storage.remove_friend(ana.id, bo.id)
    assert await storage.friends(bo.id) == []


async def test_invitations_to_open_tables(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana", "h")
    bo = await storage.create_user("Bo", "h")
    first = await make_table(storage, "t1", created_by=ana.id)
    second = await make_table(storage, "t2", created_by=ana.id)
    first_at = clock.now
    assert await storage.invite(first.id, ana.id, bo.id)
    assert not await storage.invite(first.id, ana.id, bo.id)  # once
    later = clock.advance(minutes=1)
    assert await storage.invite(second.id, ana.id, bo.id)
    assert await storage.invitations(bo.id) == [
        Invitation("t2", ana.id, "Ana", later),
        Invitation("t1", ana.id, "Ana", first_at),
    ]
    assert await storage.invitations(ana.id) == []
    # a table that starts is no longer offered
    await storage.update_table("t2", status="running")
    assert [i.table_id for i in await storage.invitations(bo.id)] == ["t1"]
    assert await storage.remove_invitation("t1", bo.id)
    assert not await storage.remove_invitation("t1", bo.id)
    assert await storage.invitations(bo.id) == []
    with pytest.raises(NotFoundError):
        await storage.invite("nope", ana.id, bo.id)
    with pytest.raises(NotFoundError):
        await storage.invite("t1", ana.id, bo.id + 1000)
