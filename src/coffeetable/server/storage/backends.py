"""Open a storage back end from a database URL.

    sqlite:///path/to/file.db               a file (created with its folder if missing)
    sqlite://   or   sqlite:///:memory:     in memory, gone when closed (for tests)
    postgresql://user:password@host:port/db[?schema=name]

`schema=` makes PostgreSQL create and find every table in that schema (it must exist);
tests use it to run in a fresh schema each.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool

from coffeetable.server.storage.base import Storage
from coffeetable.server.storage.errors import DatabaseURLError
from coffeetable.server.storage.sql import SqlStorage

ENV_VAR = "COFFEETABLE_DB"
_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_SQLITE_BUSY_TIMEOUT_MS = 30_000


def default_database_url() -> str:
    """The database the server uses unless told otherwise: `$COFFEETABLE_DB` if set, else
    the SQLite file `coffeetable.db` in the user's data folder (on Linux
    `~/.local/share/coffeetable/`)."""
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        return configured
    folder = platformdirs.user_data_path("coffeetable", appauthor=False)
    return f"sqlite:///{folder / 'coffeetable.db'}"


def open_storage(url: str, *, clock: Callable[[], datetime] | None = None) -> Storage:
    """The storage for `url` (see the module docstring). Nothing is connected yet; call
    `await storage.migrate()` before use and `await storage.close()` at the end.
    `clock` (for tests) gives the current time, timezone-aware."""
    return SqlStorage(engine_for_url(url), clock=clock)


def engine_for_url(url: str) -> AsyncEngine:
    """The async SQLAlchemy engine `open_storage` uses for `url`."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseURLError(f"not a database URL: {url!r}; {_EXAMPLES}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed)
    if backend in ("postgresql", "postgres"):
        return _postgresql_engine(parsed)
    raise DatabaseURLError(f"unsupported database {backend!r} in {parsed}; {_EXAMPLES}")


_EXAMPLES = "use sqlite:///path/to/file.db, sqlite:// (in memory) or postgresql://user@host:port/db"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Keep non-ASCII text readable in the database; keep values (password and token hashes) out of
# error messages and logs.
_ENGINE_OPTIONS: dict[str, Any] = {"json_serializer": _dumps, "hide_parameters": True}


def _sqlite_engine(url: URL) -> AsyncEngine:
    if url.drivername not in ("sqlite", "sqlite+aiosqlite"):
        raise DatabaseURLError(f"SQLite is used through aiosqlite; write sqlite:///..., not {url}")
    url = url.set(drivername="sqlite+aiosqlite")
    in_memory = url.database in (None, "", ":memory:")
    if in_memory:
        # An in-memory database lives as long as its one connection: a pool of exactly one
        # connection keeps it alive and makes concurrent tasks take turns (a StaticPool
        # would hand the same connection to two transactions at once).
        engine = create_async_engine(
            url,
            poolclass=AsyncAdaptedQueuePool,
            pool_size=1,
            max_overflow=0,
            **_ENGINE_OPTIONS,
        )
    else:
        assert url.database is not None
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, **_ENGINE_OPTIONS)

    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transactions out of the driver's hands so that BEGIN is ours (below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {_SQLITE_BUSY_TIMEOUT_MS}")
        if not in_memory:
            # WAL: readers never wait for the writer. With WAL, synchronous=NORMAL cannot
            # corrupt the file; a power cut (not a crash) may lose the last commits.
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        # A writing transaction takes the write lock at once (waiting up to the busy
        # timeout), so it can never fail half-way because another writer came first.
        write = connection.get_execution_options().get(SqlStorage.WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _postgresql_engine(url: URL) -> AsyncEngine:
    if url.drivername not in ("postgresql", "postgres", "postgresql+asyncpg"):
        raise DatabaseURLError(
            f"PostgreSQL is used through asyncpg; write postgresql://..., not {url}"
        )
    schema = url.query.get("schema")
    url = url.set(drivername="postgresql+asyncpg").difference_update_query(["schema"])
    connect_args: dict[str, Any] = {}
    if schema is not None:
        if not isinstance(schema, str) or not _SCHEMA_NAME.fullmatch(schema):
            raise DatabaseURLError(
                f"schema={schema!r} must be one plain SQL name (letters, digits, underscores)"
            )
        connect_args["server_settings"] = {"search_path": schema}
    return create_async_engine(
        url, connect_args=connect_args, pool_pre_ping=True, **_ENGINE_OPTIONS
    )
