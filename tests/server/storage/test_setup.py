"""Opening storage by URL, migrations, and SQLite persistence across restarts."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from coffeetable.server.storage import (
    DatabaseURLError,
    Seat,
    SqlStorage,
    StorageError,
    default_database_url,
    engine_for_url,
    open_storage,
)
from coffeetable.server.storage.schema import metadata
from tests.server.storage.helpers import fresh_postgres_schema, open_sql_storage

pytestmark = pytest.mark.anyio


def _schema_differences(connection: sa.Connection) -> list[Any]:
    return list(compare_metadata(MigrationContext.configure(connection), metadata))


async def _head(storage: SqlStorage) -> str | None:
    async with storage.engine.connect() as connection:
        return await connection.scalar(sa.text("SELECT version_num FROM alembic_version"))


async def test_migrated_schema_matches_the_code(storage: SqlStorage) -> None:
    async with storage.engine.connect() as connection:
        assert await connection.run_sync(_schema_differences) == []
    assert await _head(storage) == "0006"


async def test_migrate_again_keeps_data(storage: SqlStorage) -> None:
    user = await storage.create_user("Ana")
    await storage.migrate()
    await storage.migrate()
    assert await storage.get_user(user.id) == user
    assert await _head(storage) == "0006"


async def test_migrate_a_fresh_postgres_schema_twice(postgres_base_url: str) -> None:
    async with fresh_postgres_schema(postgres_base_url) as url:
        storage = open_sql_storage(url)
        try:
            await storage.migrate()
            await storage.migrate()
            assert await _head(storage) == "0006"
            user = await storage.create_user("Ana")
            assert await storage.get_user_by_name("ANA") == user
        finally:
            await storage.close()


async def test_sqlite_file_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'deep' / 'er' / 'site.db'}"  # folders are created
    storage = open_sql_storage(url)
    await storage.migrate()
    user = await storage.create_user("Ana", "hash")
    table = await storage.create_table(
        "t1",
        game="cafe",
        seed=2**63 - 1,
        seats=[Seat("human", user_id=user.id)],
        options={"note": "Café"},
    )
    action = await storage.append_action("t1", 0, 0, "take P1")
    await storage.close()

    reopened = open_sql_storage(url)
    try:
        await reopened.migrate()
        assert await reopened.get_user_by_name("ana") == user
        stored = await reopened.get_table("t1")
        assert stored is not None and stored.version == 1
        assert stored == dataclasses.replace(table, version=1, revision=1)
        assert await reopened.list_actions("t1") == [action]
        async with reopened.engine.connect() as connection:
            assert await connection.scalar(sa.text("PRAGMA journal_mode")) == "wal"
            assert await connection.scalar(sa.text("PRAGMA foreign_keys")) == 1
    finally:
        await reopened.close()


async def test_in_memory_databases_are_separate() -> None:
    first, second = open_storage("sqlite://"), open_storage("sqlite:///:memory:")
    try:
        await first.migrate()
        await second.migrate()
        await first.create_user("Ana")
        assert await second.get_user_by_name("Ana") is None
    finally:
        await first.close()
        await second.close()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u@db.example:5433/site",
        "postgres://u@db.example/site",
        "postgresql+asyncpg://u@h/d",
    ],
)
def test_postgresql_urls_use_asyncpg(url: str) -> None:
    engine = engine_for_url(url)  # connects lazily: nothing is contacted here
    assert engine.url.drivername == "postgresql+asyncpg"


def test_schema_parameter_becomes_the_search_path() -> None:
    engine = engine_for_url("postgresql://u@h/d?schema=test_abc")
    assert "schema" not in engine.url.query
    with pytest.raises(DatabaseURLError, match="one plain SQL name"):
        open_storage("postgresql://u@h/d?schema=a;drop")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://root@localhost/x", "unsupported database 'mysql'"),
        ("not a url", "not a database URL"),
        ("postgresql+psycopg://u@h/d", "through asyncpg"),
        ("sqlite+pysqlite:///x.db", "through aiosqlite"),
    ],
)
def test_bad_urls(url: str, message: str) -> None:
    with pytest.raises(DatabaseURLError, match=message):
        open_storage(url)


async def test_unreachable_database_raises_storage_error() -> None:
    storage = open_storage("postgresql://nobody@127.0.0.1:1/none")
    try:
        with pytest.raises(StorageError, match="database error"):
            await storage.get_user(1)
    finally:
        await storage.close()


def test_default_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COFFEETABLE_DB", raising=False)
    url = default_database_url()
    assert url.startswith("sqlite:///") and url.endswith("coffeetable.db")
    assert "coffeetable" in Path(url.removeprefix("sqlite:///")).parent.name
    monkeypatch.setenv("COFFEETABLE_DB", "postgresql://site@db/coffeetable")
    assert default_database_url() == "postgresql://site@db/coffeetable"
