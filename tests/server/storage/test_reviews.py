"""Game reviews in storage (review_sql.py): one per table and budget, on every back end."""

from __future__ import annotations

from datetime import timedelta

import pytest

from coffeetable.server.storage import NotFoundError, SqlStorage
from tests.server.storage.helpers import FakeClock, make_table

pytestmark = pytest.mark.anyio


async def test_a_review_is_queued_once_then_run_and_stored(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana", "h")
    bo = await storage.create_user("Bo", "h")
    await make_table(storage, "t1")
    assert await storage.get_review("t1", "quick") is None
    queued, new = await storage.queue_review("t1", "quick", ana.id)
    assert new and queued.status == "queued" and queued.requested_by == ana.id
    # asked again, by anyone: the same review, nothing queued
    clock.advance(minutes=1)
    again, new = await storage.queue_review("t1", "quick", bo.id)
    assert not new and again == queued
    # another budget is another review
    _, new = await storage.queue_review("t1", "deep", bo.id)
    assert new
    await storage.set_review("t1", "quick", "running", review={"done": 5, "total": 40})
    running = await storage.get_review("t1", "quick")
    assert running is not None and running.status == "running"
    assert running.review == {"done": 5, "total": 40} and running.updated_at == clock.now
    await storage.set_review("t1", "quick", "done", review={"moves": []})
    done = await storage.get_review("t1", "quick")
    assert done is not None and done.status == "done" and done.review == {"moves": []}
    assert done.error is None
    # a done review is never queued again, even long after
    clock.advance(days=3)
    assert (await storage.queue_review("t1", "quick", bo.id, retry_before=clock.now))[1] is False


async def test_a_failed_or_stale_review_is_queued_again(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana", "h")
    bo = await storage.create_user("Bo", "h")
    await make_table(storage, "t1")
    await storage.queue_review("t1", "quick", ana.id)
    await storage.set_review("t1", "quick", "failed", error="the worker died")
    failed = await storage.get_review("t1", "quick")
    assert failed is not None and failed.error == "the worker died" and failed.review is None
    review, new = await storage.queue_review("t1", "quick", bo.id)
    assert new and review.status == "queued" and review.requested_by == bo.id
    await storage.set_review("t1", "quick", "running")
    clock.advance(minutes=20)
    # a node died with it running: stale after `retry_before`
    stale = clock.now - timedelta(minutes=15)
    assert (await storage.queue_review("t1", "quick", ana.id, retry_before=stale))[1] is True
    assert (await storage.queue_review("t1", "quick", ana.id, retry_before=stale))[1] is False


async def test_reviews_count_toward_the_user_who_asked(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana", "h")
    start = clock.now
    for table in ("t1", "t2", "t3"):
        await make_table(storage, table)
        await storage.queue_review(table, "quick", ana.id)
        clock.advance(hours=1)
    await storage.set_review("t1", "quick", "done", review={})
    assert await storage.reviews_requested(ana.id, start) == 3
    assert await storage.reviews_requested(ana.id, start, ("queued", "running")) == 2
    assert await storage.reviews_requested(ana.id, start + timedelta(minutes=90)) == 1
    with pytest.raises(NotFoundError):
        await storage.queue_review("nowhere", "quick", ana.id)
    with pytest.raises(ValueError, match="status"):
        await storage.set_review("t1", "quick", "lost")
