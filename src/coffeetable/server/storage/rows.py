"""Database rows made into the storage's records (shared by sql.py and its mixins)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from coffeetable.server.storage.records import GameTable, Seat


def table_from_row(row: Any) -> GameTable:
    """A row of `game_tables` (any object with its columns as attributes) as a GameTable."""
    return GameTable(
        id=row.id,
        game=row.game,
        options=row.options,
        seed=row.seed,
        seats=tuple(Seat.from_json(seat) for seat in row.seats),
        clock=row.clock,
        rated=row.rated,
        private=row.private,
        invite_token=row.invite_token,
        status=row.status,
        version=row.version,
        created_by=row.created_by,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        result=row.result,
        revision=row.revision,
        abandon_after=row.abandon_after,
        abandonment=row.abandonment,
    )


def insert_ignoring_duplicates(
    conn: AsyncConnection, table: sa.Table, rows: list[dict[str, Any]]
) -> sa.Executable:
    """An INSERT of `rows` that skips a row whose key is taken (ON CONFLICT DO NOTHING)."""
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table).values(rows).on_conflict_do_nothing()
    return sqlite.insert(table).values(rows).on_conflict_do_nothing()
