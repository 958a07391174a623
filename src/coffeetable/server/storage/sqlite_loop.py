"""SQLite transactions run on the event loop's own thread, with no thread hop.

aiosqlite runs every call (cursor, execute, fetch, close, commit) in its worker thread and
wakes the event loop for each answer: about 25 hops for one stored move, which cost more CPU
than the move itself. A SQLite statement on a file in WAL mode is a few microseconds of work
in the page cache, and a commit (with `synchronous=NORMAL`) writes to the WAL without waiting
for the disk. So here every statement runs at once on the calling thread, through a
synchronous SQLAlchemy connection (pysqlite) behind the few `AsyncConnection` methods the
storage uses (`LoopConnection`): a method written in the usual style,
`async with self._write() as conn: await conn.execute(...)`, runs unchanged.

The only waits SQLite could impose are kept off the loop:

- Another process holding the write lock (the server's own writers already take turns in
  `SqlStorage._write_turn`): the write connection has no busy timeout; `BEGIN IMMEDIATE` that
  finds the file locked is retried after an asyncio sleep (1, 2, 5 ... 100 ms, like SQLite's
  busy handler) until `BUSY_TIMEOUT` has passed.
- Checkpoints (copying the WAL into the file, with fsyncs): the write connection never runs
  one itself (`wal_autocheckpoint=0`); after every `CHECKPOINT_EVERY` write transactions a
  PASSIVE checkpoint runs in a worker thread, on a connection of its own. Writers go on
  meanwhile. The last connection to close folds the rest of the WAL into the file.

Readers in WAL mode never wait for the writer. An in-memory database (one connection) has
nobody else to wait for; there, every transaction, reading or writing, takes its turn.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.compiler import SQLCompiler

T = TypeVar("T")

#: How long a writer waits for another process's write lock before it fails.
BUSY_TIMEOUT = 30.0
log = logging.getLogger("coffeetable.server.storage")

#: Write transactions between two background checkpoints.
CHECKPOINT_EVERY = 1000
_BACKOFF = (0.001, 0.002, 0.005, 0.010, 0.015, 0.020, 0.025, 0.025, 0.050, 0.050, 0.100)


class LoopConnection:
    """The `AsyncConnection` methods the storage uses, over a synchronous connection: each
    runs at once, on the caller's thread (the coroutine never suspends)."""

    __slots__ = ("dialect", "sync_connection")

    def __init__(self, connection: sa.Connection) -> None:
        self.sync_connection = connection
        self.dialect = connection.dialect

    async def execute(self, statement: Any, parameters: Any = None, **kw: Any) -> Any:
        return self.sync_connection.execute(statement, parameters, **kw)

    async def scalar(self, statement: Any, parameters: Any = None, **kw: Any) -> Any:
        return self.sync_connection.scalar(statement, parameters, **kw)

    async def scalars(self, statement: Any, parameters: Any = None, **kw: Any) -> Any:
        return self.sync_connection.scalars(statement, parameters, **kw)

    async def run_sync(self, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        return fn(self.sync_connection, *args, **kw)

    def execute_prepared(self, statement: sa.ClauseElement, parameters: dict[str, Any]) -> int:
        """Run a statement that has bound parameters only (built once, like
        `sql._append_statements`) straight on the driver: compiled once, its parameters
        processed by their SQLAlchemy types, but without SQLAlchemy's per-execution work
        (cache key, execution context, result object), which costs several times the
        statement itself. Returns the number of rows it changed."""
        cursor = self._driver_cursor(statement, parameters)
        try:
            count: int = cursor.rowcount
        finally:
            cursor.close()
        return count

    def fetch_prepared(
        self, statement: sa.ClauseElement, parameters: dict[str, Any]
    ) -> tuple[Any, ...] | None:
        """`execute_prepared` for a statement that returns rows (a `RETURNING`): its first
        row as the driver gives it (column values unprocessed), or None."""
        cursor = self._driver_cursor(statement, parameters)
        try:
            row: tuple[Any, ...] | None = cursor.fetchone()
            if row is not None:
                cursor.fetchall()  # the statement runs to its end (SQLite: all its rows)
        finally:
            cursor.close()
        return row

    def _driver_cursor(self, statement: sa.ClauseElement, parameters: dict[str, Any]) -> Any:
        sql, values = prepared_sql(statement, self.dialect, parameters)
        driver = self.sync_connection.connection.driver_connection
        assert driver is not None
        return driver.execute(sql, values)


def prepared_sql(
    statement: sa.ClauseElement, dialect: sa.Dialect, parameters: dict[str, Any]
) -> tuple[str, list[Any]]:
    """The SQL of a statement with bound parameters only, compiled once per dialect, and
    its positional parameter values, processed by their SQLAlchemy types (JSON, UTC
    datetimes): what the driver itself is given."""
    cache = _PREPARED.get(dialect)
    if cache is None:
        cache = _PREPARED[dialect] = {}
    prepared = cache.get(id(statement))
    if prepared is None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        assert compiled.positiontup is not None  # both drivers take positional parameters
        binds = [
            (name, compiled.binds[name].type.bind_processor(dialect))
            for name in compiled.positiontup
        ]
        prepared = cache[id(statement)] = (statement, compiled.string, binds)
    _, sql, binds = prepared
    values = [
        parameters[name] if process is None else process(parameters[name])
        for name, process in binds
    ]
    return sql, values


# dialect -> id(statement) -> (statement, SQL, [(parameter, processor)]); the statement is
# kept so that its id is never reused; a dialect's entries go with its engine
_PREPARED: weakref.WeakKeyDictionary[
    sa.Dialect, dict[int, tuple[Any, str, list[tuple[str, Any]]]]
] = weakref.WeakKeyDictionary()


def _is_busy(exc: BaseException) -> bool:
    """Whether `exc` (the driver's, or SQLAlchemy's around it) says the file is locked."""
    orig = exc.orig if isinstance(exc, OperationalError) else exc
    return isinstance(orig, sqlite3.OperationalError) and (
        getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY
        or "database is locked" in str(orig)
    )


def _begin_on_driver(connection: sa.Connection) -> None:
    """BEGIN IMMEDIATE straight on the driver, unknown to SQLAlchemy (`write_on_driver`)."""
    driver = connection.connection.driver_connection
    assert driver is not None
    driver.execute("BEGIN IMMEDIATE").close()


class SqliteOnLoop:
    """Reading and writing transactions of one SQLite database, on the event loop's thread.

    `write_engine` has a pool of one connection (writers take turns before they get here)
    that begins with `BEGIN IMMEDIATE` and has no busy timeout; `read_engine` begins with
    `BEGIN`. For an in-memory database both are the same one-connection engine."""

    def __init__(self, write_engine: sa.Engine, read_engine: sa.Engine, *, memory: bool) -> None:
        self.write_engine = write_engine
        self.read_engine = read_engine
        self.memory = memory
        self._turn: asyncio.Lock | None = asyncio.Lock() if memory else None
        self._writes = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._writer: sa.Connection | None = None  # a file's one write connection, kept

    @asynccontextmanager
    async def _take_turn(self) -> AsyncIterator[None]:
        if self._turn is None:
            yield
        else:
            async with self._turn:
                yield

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        async with self._take_turn():
            with self.read_engine.connect() as connection:
                yield cast(AsyncConnection, LoopConnection(connection))

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One transaction: committed if the block ends normally, else rolled back."""
        async with self._take_turn():
            connection = await self._begin_immediate()
            try:
                yield cast(AsyncConnection, LoopConnection(connection))
            except BaseException:
                self._end(connection, commit=False)
                raise
            else:
                self._end(connection, commit=True)
        self._writes += 1
        if self._writes >= CHECKPOINT_EVERY and not self.memory:
            self._start_checkpoint()

    async def write_on_driver(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """One write transaction run by `work` straight on the driver's connection (pysqlite),
        committed if it returns, rolled back if it raises: `BEGIN IMMEDIATE` and `COMMIT`
        go to the driver too, without SQLAlchemy's transaction (its `begin` and `commit`
        cost more than the statements of a stored move). The write connection's SQLAlchemy
        `Connection` never sees the transaction: between two transactions it is idle, as
        after `write`. Raises the driver's `sqlite3.Error`. An in-memory database runs it in
        `write`."""
        if self.memory:
            async with self.write() as conn:
                driver = cast(LoopConnection, conn).sync_connection.connection.driver_connection
                assert driver is not None
                return work(driver)
        connection = await self._begin_immediate(_begin_on_driver)
        driver = connection.connection.driver_connection
        assert driver is not None
        try:
            result = work(driver)
            driver.execute("COMMIT").close()
        except BaseException:
            try:
                if driver.in_transaction:
                    driver.execute("ROLLBACK").close()
            except BaseException:
                self._drop_writer()
            raise
        self._writes += 1
        if self._writes >= CHECKPOINT_EVERY:
            self._start_checkpoint()
        return result

    def _end(self, connection: sa.Connection, *, commit: bool) -> None:
        try:
            if commit:
                connection.commit()
            else:
                connection.rollback()
        except BaseException:
            self._drop_writer()
            raise
        if self.memory:
            connection.close()  # the one connection serves the readers too

    def _drop_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    async def _begin_immediate(
        self, begin: Callable[[sa.Connection], object] = sa.Connection.begin
    ) -> sa.Connection:
        """The write connection in a new transaction that holds the write lock, begun by
        `begin` (SQLAlchemy's, or `_begin_on_driver`). A file's writer keeps its connection
        from one transaction to the next."""
        deadline = time.monotonic() + BUSY_TIMEOUT
        attempt = 0
        while True:
            connection = self._writer
            if connection is None or connection.invalidated:
                self._drop_writer()
                connection = self.write_engine.connect()
                if not self.memory:
                    self._writer = connection
            try:
                begin(connection)  # BEGIN IMMEDIATE (backends._on_begin, or on the driver)
                return connection
            except (OperationalError, sqlite3.OperationalError) as exc:
                self._drop_writer()
                connection.close()
                if not _is_busy(exc) or time.monotonic() >= deadline:
                    raise
            except BaseException:
                self._drop_writer()
                connection.close()
                raise
            await asyncio.sleep(_BACKOFF[min(attempt, len(_BACKOFF) - 1)])
            attempt += 1

    def _start_checkpoint(self) -> None:
        if self._checkpoint is not None and not self._checkpoint.done():
            return
        self._writes = 0
        self._checkpoint = asyncio.get_running_loop().create_task(
            asyncio.to_thread(self._run_checkpoint)
        )

    def _run_checkpoint(self, mode: str = "PASSIVE") -> None:
        with self.read_engine.connect() as connection:
            raw = connection.connection.driver_connection
            assert raw is not None
            raw.execute(f"PRAGMA wal_checkpoint({mode})").close()

    async def checkpoint_now(self) -> None:
        """At start-up: fold the whole WAL into the database and empty it (TRUNCATE), so that
        a WAL left by a process killed before its checkpoint never grows on."""
        if self.memory:
            return
        self._drop_writer()
        try:
            await asyncio.to_thread(self._run_checkpoint, "TRUNCATE")
        except Exception as exc:  # a reader of another process: the next checkpoint will do
            log.warning("start-up checkpoint failed: %s", exc)

    async def close(self) -> None:
        if self._checkpoint is not None:
            with suppress(Exception):  # a failed checkpoint only leaves the WAL longer
                await self._checkpoint
        self._drop_writer()
        self.write_engine.dispose()
        self.read_engine.dispose()
