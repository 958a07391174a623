"""Helpers shared by the storage tests."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import asyncpg

from coffeetable.server.storage import GameTable, Seat, SqlStorage, open_storage


@dataclass
class FakeClock:
    """The storage's clock in tests: starts at a fixed UTC time and moves only when told."""

    now: datetime = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


def open_sql_storage(url: str, clock: Callable[[], datetime] | None = None) -> SqlStorage:
    """Like `open_storage`, typed as the SQL implementation (tests look at its engine)."""
    return cast(SqlStorage, open_storage(url, clock=clock))


async def create_postgres_schema(base_url: str, prefix: str = "test") -> str:
    """A new, empty schema with a random name; returns the storage URL that uses it."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    connection = await asyncpg.connect(base_url)
    try:
        await connection.execute(f'CREATE SCHEMA "{name}"')
    finally:
        await connection.close()
    return f"{base_url}?schema={name}"


async def drop_postgres_schema(base_url: str, url: str) -> None:
    """Drop the schema of a URL made by `create_postgres_schema`."""
    name = url.rsplit("schema=", 1)[1]
    connection = await asyncpg.connect(base_url)
    try:
        await connection.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    finally:
        await connection.close()


@asynccontextmanager
async def fresh_postgres_schema(base_url: str) -> AsyncIterator[str]:
    """A new, empty schema with a random name; yields the storage URL that uses it."""
    url = await create_postgres_schema(base_url)
    try:
        yield url
    finally:
        await drop_postgres_schema(base_url, url)


async def make_table(storage: SqlStorage, table_id: str = "t1", **overrides: Any) -> GameTable:
    """A Café table with an open seat and a bot, unless `overrides` say otherwise."""
    fields: dict[str, Any] = {
        "game": "cafe",
        "seed": 42,
        "seats": [Seat("open"), Seat("bot", bot="ismcts:easy")],
    }
    fields.update(overrides)
    return await storage.create_table(table_id, **fields)
