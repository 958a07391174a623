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
import secrets
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool, QueuePool

from coffeetable.server.storage.base import Storage
from coffeetable.server.storage.errors import DatabaseURLError
from coffeetable.server.storage.sql import SqlStorage
from coffeetable.server.storage.sqlite_loop import SqliteOnLoop

ENV_VAR = "COFFEETABLE_DB"
_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
_SQLITE_BUSY_TIMEOUT_MS = 30_000
_POSTGRES_POOL_SIZE = 20


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
    engine = engine_for_url(url)
    on_loop = _sqlite_on_loop(engine.url) if engine.dialect.name == "sqlite" else None
    return SqlStorage(engine, clock=clock, on_loop=on_loop)


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
    in_memory = _sqlite_in_memory(url)
    if in_memory:
        # An in-memory database lives as long as its last connection. It gets a name of its
        # own, shared by this engine and the storage's synchronous one (sqlite_loop.py), so
        # both see the same database. A pool of exactly one connection keeps it alive and
        # makes concurrent tasks take turns (a StaticPool would hand the same connection to
        # two transactions at once).
        if url.query.get("mode") != "memory":
            url = url.set(
                database=f"file:coffeetable-{secrets.token_hex(8)}",
                query={"mode": "memory", "cache": "shared", "uri": "true"},
            )
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
    _set_up_sqlite(engine.sync_engine, in_memory=in_memory, busy_timeout_ms=_SQLITE_BUSY_TIMEOUT_MS)
    return engine


def _sqlite_in_memory(url: URL) -> bool:
    return url.database in (None, "", ":memory:") or url.query.get("mode") == "memory"


def _set_up_sqlite(
    sync_engine: Engine, *, in_memory: bool, busy_timeout_ms: int, autocheckpoint: bool = True
) -> None:
    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transactions out of the driver's hands so that BEGIN is ours (below).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        if not in_memory:
            # WAL: readers never wait for the writer. With WAL, synchronous=NORMAL cannot
            # corrupt the file; a power cut (not a crash) may lose the last commits.
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
            if not autocheckpoint:
                cursor.execute("PRAGMA wal_autocheckpoint = 0")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        # A writing transaction takes the write lock at once (waiting up to the busy
        # timeout), so it can never fail half-way because another writer came first.
        write = connection.get_execution_options().get(SqlStorage.WRITE_OPTION, False)
        # straight to the driver: exec_driver_sql would cost more than the statement
        statement = "BEGIN IMMEDIATE" if write else "BEGIN"
        cursor = connection.connection.dbapi_connection.cursor()
        try:
            cursor.execute(statement)
        except connection.dialect.loaded_dbapi.Error as exc:  # as SQLAlchemy would raise it
            raise DBAPIError.instance(
                statement, None, exc, connection.dialect.loaded_dbapi.Error
            ) from exc
        finally:
            cursor.close()


def _sqlite_on_loop(url: URL) -> SqliteOnLoop:
    """Synchronous engines (pysqlite) on the same database as the aiosqlite engine at `url`,
    for transactions on the event loop's thread (sqlite_loop.py)."""
    url = url.set(drivername="sqlite+pysqlite")
    write_option = {SqlStorage.WRITE_OPTION: True}
    if _sqlite_in_memory(url):
        engine = create_engine(
            url, poolclass=QueuePool, pool_size=1, max_overflow=0, **_ENGINE_OPTIONS
        )
        _set_up_sqlite(engine, in_memory=True, busy_timeout_ms=0)
        return SqliteOnLoop(engine.execution_options(**write_option), engine, memory=True)
    # one writer (writers of this process take turns before SQLite): no busy timeout, no
    # checkpoints of its own; readers as many as are asked for at once (never waiting)
    writer = create_engine(url, poolclass=QueuePool, pool_size=1, max_overflow=0, **_ENGINE_OPTIONS)
    _set_up_sqlite(writer, in_memory=False, busy_timeout_ms=0, autocheckpoint=False)
    readers = create_engine(
        url, poolclass=QueuePool, pool_size=5, max_overflow=-1, **_ENGINE_OPTIONS
    )
    _set_up_sqlite(readers, in_memory=False, busy_timeout_ms=_SQLITE_BUSY_TIMEOUT_MS)
    return SqliteOnLoop(writer.execution_options(**write_option), readers, memory=False)


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
    # A pool of 20 connections and no overflow: more concurrent transactions than that wait
    # their turn for a connection, instead of opening one for a single use (a TLS attempt, a
    # login, new prepared statements; benchmarks/load.py at 200 tables: 1.8 ms of CPU per
    # move and p99 1.5 s, against 2.2 ms and 2.2 s with 20 more for one use each). No ping
    # before each use (a round trip per transaction): a connection the database dropped (a
    # restart) fails its request once, and SQLAlchemy then replaces the pool's connections.
    return create_async_engine(
        url,
        connect_args=connect_args,
        pool_size=_POSTGRES_POOL_SIZE,
        max_overflow=0,
        **_ENGINE_OPTIONS,
    )
