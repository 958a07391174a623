"""Players' decks in storage (migration 0008), on each back end: a file stored once by its
sha256 whoever uploads it, each owner's copy and visibility, what a user may use, deletion
keeping the file, and calibration runs queued one at a time, per-user limits and stale runs."""

from __future__ import annotations

from datetime import timedelta

import pytest

from coffeetable.server.storage import AlreadyExistsError, DeckFile, SqlStorage
from tests.server.storage.helpers import FakeClock

pytestmark = pytest.mark.anyio


def _file(clock: FakeClock, sha: str = "a" * 64, game: str = "cafe") -> DeckFile:
    return DeckFile(
        sha256=sha,
        game=game,
        name="<b>my</b> deck",
        cards=63,
        reconstructed=False,
        provenance={"source": "my printed copy"},
        text='format = "coffeetable.cafe.deck/1"\n',
        created_at=clock.now,
    )


async def test_decks_owners_and_who_may_use_them(storage: SqlStorage, clock: FakeClock) -> None:
    ana, bo, cy = [await storage.create_user(n) for n in ("Ana", "Bo", "Cy")]
    mine = await storage.add_deck(_file(clock), ana.id, "private", max_decks=2)
    assert (mine.owner_name, mine.visibility, mine.name, mine.cards) == (
        "Ana",
        "private",
        "<b>my</b> deck",
        63,
    )
    assert mine.provenance == {"source": "my printed copy"} and mine.reconstructed is False
    with pytest.raises(AlreadyExistsError):
        await storage.add_deck(_file(clock), ana.id, "public")
    # the same file from another owner: stored once, two copies
    clock.advance(seconds=1)
    await storage.add_deck(_file(clock), bo.id, "friends")
    assert [d.owner_id for d in await storage.deck_owners("a" * 64)] == [ana.id, bo.id]
    stored = await storage.deck_file("a" * 64)
    assert stored is not None and stored.text.startswith("format")
    await storage.add_deck(_file(clock, "b" * 64, "coffee-rush"), ana.id, "public")
    with pytest.raises(OverflowError):
        await storage.add_deck(_file(clock, "c" * 64), ana.id, "public", max_decks=2)
    # what each may use
    assert {(d.sha256[0], d.owner_id) for d in await storage.usable_decks(cy.id, [])} == {
        ("b", ana.id)
    }
    assert {d.owner_id for d in await storage.usable_decks(cy.id, [bo.id], "cafe")} == {bo.id}
    assert {d.sha256[0] for d in await storage.usable_decks(ana.id, [], "cafe")} == {"a"}
    assert {d.sha256[0] for d in await storage.usable_decks(None, [])} == {"b"}
    # visibility and deletion: owners only; the file stays
    assert await storage.set_deck_visibility("a" * 64, ana.id, "public")
    assert not await storage.set_deck_visibility("a" * 64, cy.id, "public")
    assert {d.owner_id for d in await storage.usable_decks(cy.id, [], "cafe")} == {ana.id}
    assert await storage.delete_deck("a" * 64, ana.id)
    assert not await storage.delete_deck("a" * 64, ana.id)
    assert await storage.deck_file("a" * 64) is not None
    assert [d.owner_id for d in await storage.deck_owners("a" * 64)] == [bo.id]


async def test_calibrations_one_at_a_time(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    await storage.add_deck(_file(clock), ana.id, "private")
    sha = "a" * 64
    assert await storage.calibration(sha) is None
    day = timedelta(days=1)
    run = await storage.queue_calibration(sha, ana.id, since=clock.now - day, per_user=2)
    assert run.status == "queued" and run.requested_by == ana.id and run.figures is None
    with pytest.raises(AlreadyExistsError):
        await storage.queue_calibration(sha, ana.id, since=clock.now - day, per_user=2)
    await storage.finish_calibration(sha, "running")
    clock.advance(seconds=30)
    await storage.finish_calibration(sha, "done", figures={"games": 1})
    done = await storage.calibration(sha)
    assert done is not None and done.status == "done" and done.figures == {"games": 1}
    assert done.finished_at == clock.now
    # again, once done; then the user's limit
    again = await storage.queue_calibration(sha, ana.id, since=clock.now - day, per_user=2)
    assert again.status == "queued" and again.figures is None and again.finished_at is None
    await storage.finish_calibration(sha, "failed", error="the bot failed")
    with pytest.raises(OverflowError):
        await storage.queue_calibration(sha, ana.id, since=clock.now - day, per_user=1)
    # a run under way whose node died is stale after a while: it may be asked for again
    clock.advance(hours=25)
    await storage.queue_calibration(sha, ana.id, since=clock.now - day, per_user=2)
    clock.advance(minutes=5)
    with pytest.raises(AlreadyExistsError):
        await storage.queue_calibration(
            sha, ana.id, since=clock.now - day, per_user=2, stale_before=clock.now - day
        )
    stale = await storage.queue_calibration(
        sha, ana.id, since=clock.now - day, per_user=2, stale_before=clock.now
    )
    assert stale.status == "queued" and stale.requested_at == clock.now
