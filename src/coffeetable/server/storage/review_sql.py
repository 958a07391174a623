"""Game reviews in the SQL storage (SQLite and PostgreSQL): one row per finished table and
budget. A part of `SqlStorage` (a base class of it), kept in its own file."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from coffeetable.server.storage.errors import NotFoundError
from coffeetable.server.storage.records import JSONObject, StoredReview
from coffeetable.server.storage.schema import reviews

#: what a review may be
REVIEW_STATUSES = ("queued", "running", "done", "failed")


def _review(row: Any) -> StoredReview:
    return StoredReview(
        table_id=row.table_id,
        budget=row.budget,
        status=row.status,
        requested_by=row.requested_by,
        created_at=row.created_at,
        updated_at=row.updated_at,
        review=row.review,
        error=row.error,
    )


async def _row(conn: AsyncConnection, table_id: str, budget: str) -> Any:
    result = await conn.execute(
        sa.select(reviews).where(reviews.c.table_id == table_id, reviews.c.budget == budget)
    )
    return result.first()


class ReviewSql:
    """The review methods of `SqlStorage` (see `Storage` in base.py)."""

    if TYPE_CHECKING:  # provided by SqlStorage

        def _read(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

        def _write(self) -> AbstractAsyncContextManager[AsyncConnection]: ...

        def _now(self) -> datetime: ...

    async def get_review(self, table_id: str, budget: str) -> StoredReview | None:
        async with self._read() as conn:
            row = await _row(conn, table_id, budget)
        return None if row is None else _review(row)

    async def queue_review(
        self, table_id: str, budget: str, user_id: int, *, retry_before: datetime | None = None
    ) -> tuple[StoredReview, bool]:
        now = self._now()
        async with self._write() as conn:
            row = await _row(conn, table_id, budget)
            if row is not None:
                stale = retry_before is not None and row.updated_at < retry_before
                if row.status != "failed" and not (stale and row.status != "done"):
                    return _review(row), False
                await conn.execute(
                    sa.update(reviews)
                    .where(reviews.c.table_id == table_id, reviews.c.budget == budget)
                    .values(
                        status="queued",
                        requested_by=user_id,
                        created_at=now,
                        updated_at=now,
                        review=None,
                        error=None,
                    )
                )
            else:
                try:
                    await conn.execute(
                        sa.insert(reviews).values(
                            table_id=table_id,
                            budget=budget,
                            status="queued",
                            requested_by=user_id,
                            created_at=now,
                            updated_at=now,
                        )
                    )
                except IntegrityError:
                    raise NotFoundError(f"there is no table {table_id!r}") from None
        return StoredReview(table_id, budget, "queued", user_id, now, now), True

    async def set_review(
        self,
        table_id: str,
        budget: str,
        status: str,
        *,
        review: JSONObject | None = None,
        error: str | None = None,
    ) -> None:
        if status not in REVIEW_STATUSES:
            raise ValueError(f"a review's status is one of {REVIEW_STATUSES}, not {status!r}")
        async with self._write() as conn:
            await conn.execute(
                sa.update(reviews)
                .where(reviews.c.table_id == table_id, reviews.c.budget == budget)
                .values(status=status, updated_at=self._now(), review=review, error=error)
            )

    async def reviews_requested(
        self, user_id: int, since: datetime, statuses: tuple[str, ...] = REVIEW_STATUSES
    ) -> int:
        async with self._read() as conn:
            count = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(reviews)
                .where(
                    reviews.c.requested_by == user_id,
                    reviews.c.created_at >= since,
                    reviews.c.status.in_(statuses),
                )
            )
        return int(count or 0)
