"""Database rows made into the storage's records (shared by sql.py and its mixins)."""

from __future__ import annotations

from typing import Any

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
