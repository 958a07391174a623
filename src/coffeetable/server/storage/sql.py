"""The storage implementation on SQLAlchemy Core, shared by SQLite and PostgreSQL.

The back ends differ only in how `backends.open_storage` sets up the engine; the SQL here is
the same for both, except the insert-if-missing of ratings, which each dialect spells its own
way.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import math
import sqlite3
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Unpack

import asyncpg  # type: ignore[import-untyped]  # (no type information)
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from coffeetable.server.storage.base import DEFAULT_RATING, REQUEST_KEY_WINDOW, TableChanges
from coffeetable.server.storage.chat_sql import ChatSql
from coffeetable.server.storage.decks_sql import DeckSql
from coffeetable.server.storage.errors import (
    AlreadyExistsError,
    DuplicateNameError,
    NotFoundError,
    StaleRevisionError,
    StaleVersionError,
    StorageError,
)
from coffeetable.server.storage.notify_sql import NotifyStorage, sync_players
from coffeetable.server.storage.records import (
    TABLE_STATUSES,
    Friend,
    FriendState,
    GameStats,
    GameTable,
    HighScore,
    Invitation,
    JSONObject,
    LeaderboardEntry,
    PlayerGame,
    Rating,
    RatingChange,
    Seat,
    StoredAction,
    TableStatus,
    User,
    UserSession,
)
from coffeetable.server.storage.review_sql import ReviewSql
from coffeetable.server.storage.rows import insert_ignoring_duplicates, table_from_row
from coffeetable.server.storage.schema import (
    actions,
    friendships,
    game_tables,
    invitations,
    player_games,
    rating_history,
    ratings,
    sessions,
    users,
)
from coffeetable.server.storage.sqlite_loop import LoopConnection, SqliteOnLoop, prepared_sql

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
_MIGRATION_LOCK_ID = 0x0C0FFEE7AB1E  # PostgreSQL advisory lock held while migrating


def name_key(name: str) -> str:
    """How user names are compared: Unicode-normalised and case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def utc_now() -> datetime:
    return datetime.now(UTC)


class SqlStorage(ChatSql, NotifyStorage, DeckSql, ReviewSql):
    """`Storage` on an async SQLAlchemy engine. Build it with `open_storage(url)`."""

    WRITE_OPTION = "coffeetable_write"  # execution option: this transaction will write

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        clock: Callable[[], datetime] | None = None,
        on_loop: SqliteOnLoop | None = None,
    ):
        self.engine = engine
        self.clock = clock or utc_now
        # SQLite: transactions run on the event loop's thread through synchronous engines on
        # the same database (sqlite_loop.py), not through `engine` (aiosqlite: a thread hop
        # per call). `engine` stays for migrations from the command line and for tests.
        self._on_loop = on_loop
        self._write_engine = engine.execution_options(**{self.WRITE_OPTION: True})
        # PostgreSQL: statements that are a whole transaction by themselves run without
        # BEGIN/COMMIT (one round trip instead of three)
        self._pg_autocommit: AsyncEngine | None = (
            engine.execution_options(isolation_level="AUTOCOMMIT")
            if engine.dialect.name == "postgresql"
            else None
        )
        # SQLite has one writer at a time, and a writer that finds the file locked sleeps in
        # SQLite's busy handler (1, 2, 5 ... 100 ms): under load that is most of the latency.
        # Writers of this process therefore take turns here first, so they never meet in
        # SQLite. (Other processes on the same file still fall back to the busy timeout.)
        self._write_turn: asyncio.Lock | None = (
            asyncio.Lock() if engine.dialect.name == "sqlite" else None
        )

    # --- transactions -------------------------------------------------------------------
    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncConnection]:
        try:
            if self._on_loop is not None:
                async with self._on_loop.read() as conn:
                    yield conn
            else:
                async with self.engine.connect() as conn:
                    yield conn
        except (DBAPIError, OSError) as exc:
            raise _database_error(exc) from exc

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncConnection]:
        """One transaction: committed if the block ends normally, else rolled back."""
        async with self._write_turn or contextlib.nullcontext():
            try:
                if self._on_loop is not None:
                    async with self._on_loop.write() as conn:
                        yield conn
                else:
                    async with self._write_engine.begin() as conn:
                        yield conn
            except (DBAPIError, OSError) as exc:
                raise _database_error(exc) from exc

    @asynccontextmanager
    async def _autocommit(self) -> AsyncIterator[AsyncConnection]:
        """PostgreSQL only: a connection whose every statement commits by itself."""
        assert self._pg_autocommit is not None
        try:
            async with self._pg_autocommit.connect() as conn:
                yield conn
        except (DBAPIError, OSError) as exc:
            raise _database_error(exc) from exc

    def _now(self) -> datetime:
        now = self.clock()
        if now.tzinfo is None:
            raise ValueError("the storage clock must give timezone-aware datetimes")
        return now

    # --- life cycle ---------------------------------------------------------------------
    async def migrate(self) -> None:
        async with self._write() as conn:
            if conn.dialect.name == "postgresql":
                # two servers starting at once must not both create the tables
                await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_MIGRATION_LOCK_ID)))
            await conn.run_sync(_upgrade_to_head)
        if self._on_loop is not None:
            # a process killed before its checkpoint leaves the WAL as long as it was, and a
            # crash loop would grow it without bound: fold it into the database now
            await self._on_loop.checkpoint_now()

    async def close(self) -> None:
        if self._on_loop is not None:
            await self._on_loop.close()
        await self.engine.dispose()

    # --- users --------------------------------------------------------------------------
    async def create_user(
        self, name: str, password_hash: str | None = None, *, is_guest: bool = False
    ) -> User:
        values = {
            "name": name,
            "name_key": name_key(name),
            "password_hash": password_hash,
            "is_guest": is_guest,
            "created_at": self._now(),
        }
        async with self._write() as conn:
            try:
                row = (await conn.execute(_NEW_USER, values)).one()
            except IntegrityError:
                raise DuplicateNameError(name) from None
        return _user(row)

    async def get_user(self, user_id: int) -> User | None:
        async with self._read() as conn:
            row = (await conn.execute(_USER_BY_ID, {"user_id": user_id})).first()
        return None if row is None else _user(row)

    async def get_user_by_name(self, name: str) -> User | None:
        query = sa.select(users).where(users.c.name_key == name_key(name))
        async with self._read() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else _user(row)

    # --- sessions -----------------------------------------------------------------------
    async def create_session(
        self, token_hash: str, user_id: int, expires_at: datetime
    ) -> UserSession:
        _check_aware("expires_at", expires_at)
        values = {
            "token_hash": token_hash,
            "user_id": user_id,
            "created_at": self._now(),
            "expires_at": expires_at,
        }
        async with self._write() as conn:
            await _require_user(conn, user_id)
            try:
                row = (await conn.execute(_NEW_SESSION, values)).one()
            except IntegrityError:
                raise AlreadyExistsError(
                    "a session with this token hash exists already; make a new random token"
                ) from None
        return _session(row)

    async def get_session(self, token_hash: str) -> UserSession | None:
        parameters = {"token_hash": token_hash, "now": self._now()}
        async with self._read() as conn:
            row = (await conn.execute(_LIVE_SESSION, parameters)).first()
        return None if row is None else _session(row)

    async def get_session_user(self, token_hash: str) -> User | None:
        parameters = {"token_hash": token_hash, "now": self._now()}
        async with self._read() as conn:
            row = (await conn.execute(_USER_OF_LIVE_SESSION, parameters)).first()
        return None if row is None else _user(row)

    async def delete_session(self, token_hash: str) -> bool:
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(sessions).where(sessions.c.token_hash == token_hash)
            )
        return result.rowcount > 0

    async def delete_expired_sessions(self) -> int:
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(sessions).where(sessions.c.expires_at <= self._now())
            )
        return result.rowcount

    async def delete_user_sessions(self, user_id: int) -> int:
        async with self._write() as conn:
            result = await conn.execute(sa.delete(sessions).where(sessions.c.user_id == user_id))
        return result.rowcount

    async def delete_stale(self, guests_before: datetime) -> tuple[int, int]:
        _check_aware("guests_before", guests_before)
        expired = await self.delete_expired_sessions()
        live = sa.select(sessions.c.user_id).where(sessions.c.expires_at > self._now())
        creators = sa.select(game_tables.c.created_by).where(game_tables.c.created_by.is_not(None))
        query = (
            sa.select(users.c.id, users.c.created_at)
            .where(
                users.c.is_guest.is_(True),
                users.c.created_at < guests_before,
                users.c.id.not_in(live),
                users.c.id.not_in(creators),
            )
            .limit(1000)
        )
        async with self._read() as conn:
            candidates = {row.id: row.created_at for row in (await conn.execute(query)).all()}
            if not candidates:
                return expired, 0
            # a guest seated at a table keeps its name there: a guest can only sit at tables
            # made after it was
            oldest = min(candidates.values())
            seated = sa.select(game_tables.c.seats).where(game_tables.c.created_at >= oldest)
            for (seats,) in (await conn.execute(seated)).all():
                for seat in seats or ():
                    candidates.pop(seat.get("user_id"), None)
        if not candidates:
            return expired, 0
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(users).where(
                    users.c.id.in_(list(candidates)),
                    users.c.is_guest.is_(True),
                    users.c.id.not_in(live),
                )
            )
        return expired, result.rowcount

    # --- game tables --------------------------------------------------------------------
    async def count_open_tables(self, created_by: int) -> int:
        async with self._read() as conn:
            return int(await conn.scalar(_OPEN_TABLES_OF, {"created_by": created_by}) or 0)

    async def import_table(
        self,
        table_id: str,
        *,
        game: str,
        seed: int,
        seats: Sequence[Seat],
        options: JSONObject,
        created_by: int,
        moves: Sequence[tuple[int, str]],
        result: JSONObject,
    ) -> GameTable:
        now = self._now()
        insert = (
            sa.insert(game_tables)
            .values(
                id=table_id,
                game=game,
                options=dict(options),
                seed=seed,
                seats=_seats_json(seats),
                clock=None,
                rated=False,
                private=False,
                invite_token=None,
                status="finished",
                version=len(moves),
                created_by=created_by,
                created_at=now,
                started_at=now,
                finished_at=now,
                result=result,
            )
            .returning(*game_tables.c)
        )
        async with self._write() as conn:
            await _require_user(conn, created_by)
            try:
                row = (await conn.execute(insert)).one()
            except IntegrityError:
                raise AlreadyExistsError(f"a table with id {table_id!r} exists already") from None
            await sync_players(conn, table_id, seats)
            if moves:
                await conn.execute(
                    sa.insert(actions),
                    [
                        {
                            "table_id": table_id,
                            "version": version + 1,
                            "seat": seat,
                            "notation": notation,
                            "created_at": now,
                        }
                        for version, (seat, notation) in enumerate(moves)
                    ],
                )
            await _sync_players(conn, table_id, row)
        return table_from_row(row)

    async def create_table(
        self,
        table_id: str,
        *,
        game: str,
        seed: int,
        seats: Sequence[Seat],
        options: JSONObject | None = None,
        clock: JSONObject | None = None,
        rated: bool = False,
        private: bool = False,
        invite_token: str | None = None,
        created_by: int | None = None,
        request_key: str | None = None,
        abandon_after: float | None = None,
    ) -> GameTable:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"the seed must be an integer, not {seed!r}")
        keyed = request_key is not None and created_by is not None
        now = self._now()
        values = {
            "id": table_id,
            "game": game,
            "options": dict(options or {}),
            "seed": seed,
            "seats": _seats_json(seats),
            "clock": clock,
            "rated": rated,
            "private": private,
            "invite_token": invite_token,
            "status": "open",
            "version": 0,
            "created_by": created_by,
            "created_at": now,
            "request_key": request_key if keyed else None,
            "abandon_after": abandon_after,
        }
        async with self._write() as conn:
            if created_by is not None:
                await _require_user(conn, created_by)
            if keyed:
                assert created_by is not None and request_key is not None
                repeated = await _table_of_request(conn, created_by, request_key, now)
                if repeated is not None:
                    return repeated
            try:
                row = (await conn.execute(_NEW_TABLE, values)).one()
            except IntegrityError:
                pass
            else:
                await sync_players(conn, table_id, seats)
                await _sync_players(conn, table_id, row)
                return table_from_row(row)
        if keyed:  # another process made the table of this request just now
            assert created_by is not None and request_key is not None
            async with self._read() as conn:
                repeated = await _table_of_request(conn, created_by, request_key, None)
            if repeated is not None:
                return repeated
        raise AlreadyExistsError(f"a table with id {table_id!r} exists already; choose another id")

    async def get_table(self, table_id: str) -> GameTable | None:
        async with self._read() as conn:
            row = (await conn.execute(_TABLE_BY_ID, {"table_id": table_id})).first()
        return None if row is None else table_from_row(row)

    async def update_table(
        self,
        table_id: str,
        expected_revision: int | None = None,
        **changes: Unpack[TableChanges],
    ) -> GameTable:
        values = _table_values(changes)
        async with self._write() as conn:
            if values:
                update = _update_statement(frozenset(values), expected_revision is not None)
                parameters = {f"u_{name}": value for name, value in values.items()}
                parameters.update(u_table=table_id, u_expected=expected_revision)
                row = (await conn.execute(update, parameters)).first()
                if row is not None and _PLAYER_FIELDS & set(values):
                    await _sync_players(conn, table_id, row)
            else:  # nothing to change: the row as it is (at the expected revision)
                where = game_tables.c.id == table_id
                if expected_revision is not None:
                    where = where & (game_tables.c.revision == expected_revision)
                row = (await conn.execute(sa.select(game_tables).where(where))).first()
            if row is None:
                actual = await conn.scalar(
                    sa.select(game_tables.c.revision).where(game_tables.c.id == table_id)
                )
                if actual is None:
                    raise NotFoundError(f"there is no table {table_id!r}")
                assert expected_revision is not None
                raise StaleRevisionError(table_id, expected_revision, actual)
            if "seats" in changes:
                await sync_players(conn, table_id, changes["seats"])
        return table_from_row(row)

    async def table_revisions(self, table_ids: Iterable[str]) -> dict[str, int]:
        wanted = list(table_ids)
        out: dict[str, int] = {}
        for start in range(0, len(wanted), 500):
            query = sa.select(game_tables.c.id, game_tables.c.revision).where(
                game_tables.c.id.in_(wanted[start : start + 500])
            )
            async with self._read() as conn:
                out.update({row.id: row.revision for row in (await conn.execute(query)).all()})
        return out

    async def load_table(self, table_id: str) -> tuple[GameTable, list[StoredAction]] | None:
        # three reads through one connection, checked: the revision only grows, so an
        # unchanged revision around the actions' read means the table and its actions
        # belong together (PostgreSQL's READ COMMITTED gives each statement its own view)
        parameters = {"table_id": table_id}
        for _ in range(100):
            async with self._read() as conn:
                row = (await conn.execute(_TABLE_BY_ID, parameters)).first()
                if row is None:
                    return None
                rows = (await conn.execute(_ACTIONS_OF_TABLE, parameters)).all()
                after = await conn.scalar(_REVISION_OF_TABLE, parameters)
            table = table_from_row(row)
            if after == table.revision:
                return table, [_action(action) for action in rows]
        raise StorageError(f"table {table_id!r} keeps changing; try again")

    async def running_table_ids(self, limit: int = 100_000) -> list[str]:
        query = (
            sa.select(game_tables.c.id)
            .where(game_tables.c.status == "running")
            .order_by(game_tables.c.id)
            .limit(limit)
        )
        async with self._read() as conn:
            return [row.id for row in (await conn.execute(query)).all()]

    async def list_tables(
        self,
        statuses: Iterable[TableStatus] | None = None,
        *,
        game: str | None = None,
        include_private: bool = False,
        limit: int = 100,
    ) -> list[GameTable]:
        if limit < 0:
            raise ValueError(f"limit must be 0 or more, not {limit}")
        query = sa.select(game_tables)
        if statuses is not None:
            wanted = list(statuses)
            for status in wanted:
                _check_status(status)
            query = query.where(game_tables.c.status.in_(wanted))
        if game is not None:
            query = query.where(game_tables.c.game == game)
        if not include_private:
            query = query.where(game_tables.c.private == sa.false())
        query = query.order_by(game_tables.c.created_at.desc(), game_tables.c.id.desc())
        async with self._read() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [table_from_row(row) for row in rows]

    # --- actions ------------------------------------------------------------------------
    async def append_action(
        self,
        table_id: str,
        expected_version: int,
        seat: int,
        notation: str,
        changes: TableChanges | None = None,
    ) -> StoredAction:
        values = _table_values(changes or {})
        params: dict[str, Any] = {
            "a_table": table_id,
            "a_expected": expected_version,
            "a_version": expected_version + 1,
            "a_seat": seat,
            "a_notation": notation,
            "a_now": self._now(),
        }
        params.update({f"a_{name}": value for name, value in values.items()})
        # The statements are built once per set of changed fields (`_append_statements`), so
        # a move costs no SQL compilation. The conditional update is the compare-and-swap:
        # on PostgreSQL it locks the row (a concurrent writer waits, then sees the new
        # version); SQLite lets one writer in at a time.
        bump, insert, both = _append_statements(frozenset(values))
        if self._pg_autocommit is not None and not _PLAYER_FIELDS & set(values):
            # PostgreSQL: one statement, so one round trip and no BEGIN/COMMIT; the insert
            # takes its row from the update, so it happens only if the update did
            async with self._autocommit() as conn:
                # straight to asyncpg (its own prepared statement), like SQLite's
                # execute_prepared: SQLAlchemy's execution costs more than the round trip
                sql, arguments = prepared_sql(both, conn.dialect, params)
                driver = (await conn.get_raw_connection()).driver_connection
                assert driver is not None
                try:
                    # the table's new revision; None when the compare-and-swap failed
                    revision = await driver.fetchval(sql, *arguments)
                except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
                    # what SQLAlchemy would do: a broken connection leaves the pool
                    if not isinstance(exc, asyncpg.PostgresError) or driver.is_closed():
                        await conn.invalidate()
                    raise StorageError(f"database error: {type(exc).__name__}: {exc}") from exc
                if revision is None:
                    await _raise_stale(conn, table_id, expected_version)
        elif self._on_loop is not None and not _PLAYER_FIELDS & set(values):
            # SQLite on the loop: the whole transaction on the driver (the statements
            # compiled once, `prepared_sql`), a move's one write with no SQLAlchemy in it
            on_loop = self._on_loop
            dialect = on_loop.write_engine.dialect
            bump_sql, bump_values = prepared_sql(bump, dialect, params)
            insert_sql, insert_values = prepared_sql(insert, dialect, params)

            def store(driver: sqlite3.Connection) -> int | None:
                cursor = driver.execute(bump_sql, bump_values)
                try:
                    bumped = cursor.fetchall()  # the new revision; none: the swap failed
                finally:
                    cursor.close()
                if not bumped:
                    return None  # nothing changed: committing it is rolling it back
                driver.execute(insert_sql, insert_values).close()
                return int(bumped[0][0])

            async with self._write_turn or contextlib.nullcontext():
                try:
                    revision = await on_loop.write_on_driver(store)
                except sqlite3.Error as exc:
                    raise StorageError(f"database error: {type(exc).__name__}: {exc}") from exc
            if revision is None:
                async with self._read() as conn:
                    await _raise_stale(conn, table_id, expected_version)
        else:
            async with self._write() as conn:
                # the bump returns the table's new revision (no row: the compare-and-swap
                # failed)
                if isinstance(conn, LoopConnection):  # SQLite on the loop: to the driver
                    bumped = conn.fetch_prepared(bump, params)
                    if bumped is None:
                        await _raise_stale(conn, table_id, expected_version)
                    conn.execute_prepared(insert, params)
                else:
                    bumped = (await conn.execute(bump, params)).first()
                    if bumped is None:
                        await _raise_stale(conn, table_id, expected_version)
                    await conn.execute(insert, params)
                assert bumped is not None
                revision = bumped[0]
                if _PLAYER_FIELDS & set(values):  # the game ended (or its seats changed)
                    await _sync_players(conn, table_id)
        return StoredAction(
            table_id=table_id,
            version=params["a_version"],
            seat=seat,
            notation=notation,
            created_at=params["a_now"].astimezone(UTC),
            table_revision=revision,
        )

    async def list_actions(self, table_id: str) -> list[StoredAction]:
        async with self._read() as conn:
            rows = (await conn.execute(_ACTIONS_OF_TABLE, {"table_id": table_id})).all()
        return [_action(row) for row in rows]

    async def remove_last_action(
        self, table_id: str, expected_version: int, changes: TableChanges | None = None
    ) -> StoredAction:
        bump = (
            sa.update(game_tables)
            .where(game_tables.c.id == table_id, game_tables.c.version == expected_version)
            .values(
                version=expected_version + 1,
                revision=game_tables.c.revision + 1,
                **_table_values(changes or {}),
            )
            .returning(game_tables.c.revision)
        )
        last = (
            sa.select(actions)
            .where(actions.c.table_id == table_id)
            .order_by(actions.c.version.desc())
            .limit(1)
        )
        async with self._write() as conn:
            # the same compare-and-swap as append_action: the version moves on (never back)
            revision = (await conn.execute(bump)).scalar()
            if revision is None:
                actual = await conn.scalar(
                    sa.select(game_tables.c.version).where(game_tables.c.id == table_id)
                )
                if actual is None:
                    raise NotFoundError(f"there is no table {table_id!r}")
                raise StaleVersionError(table_id, expected_version, actual)
            row = (await conn.execute(last)).first()
            if row is None:  # rolls the version bump back
                raise NotFoundError(f"table {table_id!r} has no action to take back")
            await conn.execute(
                sa.delete(actions).where(
                    actions.c.table_id == table_id, actions.c.version == row.version
                )
            )
        return dataclasses.replace(_action(row), table_revision=revision)

    # --- ratings ------------------------------------------------------------------------
    async def get_rating(self, user_id: int, game: str) -> Rating:
        query = sa.select(ratings).where(ratings.c.user_id == user_id, ratings.c.game == game)
        async with self._read() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return Rating(user_id=user_id, game=game, rating=DEFAULT_RATING, games_played=0)
        return _rating(row)

    async def apply_rating_changes(
        self, game: str, table_id: str, new_ratings: Mapping[int, float]
    ) -> list[RatingChange]:
        for user_id, value in new_ratings.items():
            if not math.isfinite(value):
                raise ValueError(f"the new rating of user {user_id} is {value}, not a number")
        user_ids = sorted(new_ratings)
        now = self._now()
        async with self._write() as conn:
            table_game = await conn.scalar(
                sa.select(game_tables.c.game).where(game_tables.c.id == table_id)
            )
            if table_game is None:
                raise NotFoundError(f"there is no table {table_id!r}")
            if table_game != game:
                raise StorageError(f"table {table_id!r} is a game of {table_game}, not {game}")
            applied = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(rating_history)
                .where(rating_history.c.table_id == table_id)
            )
            if applied:
                raise AlreadyExistsError(f"the ratings of table {table_id!r} were applied already")
            if not user_ids:
                return []
            found = set(await conn.scalars(sa.select(users.c.id).where(users.c.id.in_(user_ids))))
            missing = [user_id for user_id in user_ids if user_id not in found]
            if missing:
                raise NotFoundError(f"there is no user with id {', '.join(map(str, missing))}")

            # Make sure each player has a rating row, then lock those rows (in id order, so
            # two tables finishing at once cannot deadlock) and read the ratings before.
            defaults = [
                {"user_id": u, "game": game, "rating": DEFAULT_RATING, "games_played": 0}
                for u in user_ids
            ]
            await conn.execute(insert_ignoring_duplicates(conn, ratings, defaults))
            locked = await conn.execute(
                sa.select(ratings.c.user_id, ratings.c.rating)
                .where(ratings.c.game == game, ratings.c.user_id.in_(user_ids))
                .order_by(ratings.c.user_id)
                .with_for_update()
            )
            before = {row.user_id: row.rating for row in locked}

            for user_id in user_ids:
                await conn.execute(
                    sa.update(ratings)
                    .where(ratings.c.user_id == user_id, ratings.c.game == game)
                    .values(
                        rating=float(new_ratings[user_id]),
                        games_played=ratings.c.games_played + 1,
                    )
                )
            changes = [
                RatingChange(
                    user_id=user_id,
                    game=game,
                    table_id=table_id,
                    before=before[user_id],
                    after=float(new_ratings[user_id]),
                    created_at=now,
                )
                for user_id in user_ids
            ]
            try:
                await conn.execute(
                    sa.insert(rating_history),
                    [
                        {
                            "user_id": c.user_id,
                            "game": c.game,
                            "table_id": c.table_id,
                            "rating_before": c.before,
                            "rating_after": c.after,
                            "created_at": c.created_at,
                        }
                        for c in changes
                    ],
                )
            except IntegrityError:  # another process applied them at the same moment
                raise AlreadyExistsError(
                    f"the ratings of table {table_id!r} were applied already"
                ) from None
        return changes

    async def leaderboard(self, game: str, limit: int = 100) -> list[LeaderboardEntry]:
        if limit < 0:
            raise ValueError(f"limit must be 0 or more, not {limit}")
        query = (
            sa.select(users.c.id, users.c.name, ratings.c.rating, ratings.c.games_played)
            .join(users, users.c.id == ratings.c.user_id)
            .where(ratings.c.game == game)
            .order_by(ratings.c.rating.desc(), ratings.c.games_played.desc(), users.c.name_key)
            .limit(limit)
        )
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            LeaderboardEntry(
                user_id=row.id, name=row.name, rating=row.rating, games_played=row.games_played
            )
            for row in rows
        ]

    async def private_table_ids(self, table_ids: Iterable[str]) -> set[str]:
        ids = list(dict.fromkeys(table_ids))
        found: set[str] = set()
        for start in range(0, len(ids), 500):  # a bounded IN list per statement
            query = sa.select(game_tables.c.id).where(
                game_tables.c.id.in_(ids[start : start + 500]), game_tables.c.private == sa.true()
            )
            async with self._read() as conn:
                found |= {row.id for row in await conn.execute(query)}
        return found

    async def rating_history(self, user_id: int, game: str) -> list[RatingChange]:
        query = (
            sa.select(rating_history)
            .where(rating_history.c.user_id == user_id, rating_history.c.game == game)
            .order_by(rating_history.c.created_at, rating_history.c.id)
        )
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            RatingChange(
                user_id=row.user_id,
                game=row.game,
                table_id=row.table_id,
                before=row.rating_before,
                after=row.rating_after,
                created_at=row.created_at,
            )
            for row in rows
        ]

    # --- friends and invitations --------------------------------------------------------
    async def request_friend(self, user_id: int, other_id: int) -> Friend:
        if user_id == other_id:
            raise ValueError("one cannot be one's own friend")
        now = self._now()
        f = friendships.c
        async with self._write() as conn:
            await _require_user(conn, user_id)
            await _require_user(conn, other_id)
            pair = sa.or_(
                sa.and_(f.from_id == user_id, f.to_id == other_id),
                sa.and_(f.from_id == other_id, f.to_id == user_id),
            )
            row = (await conn.execute(sa.select(friendships).where(pair))).first()
            if row is None:
                # a request meeting the other's request made at the same moment: the primary
                # key of one direction cannot stop the other, so both may be inserted; the
                # next call (or `friends`) then reads the pair as friends (see _friend_rows)
                await conn.execute(
                    sa.insert(friendships).values(from_id=user_id, to_id=other_id, created_at=now)
                )
                state: FriendState = "outgoing"
                since = now
            elif row.accepted_at is not None:
                state, since = "friend", row.accepted_at
            elif row.from_id == other_id:  # their request: accepted
                await conn.execute(
                    sa.update(friendships)
                    .where(f.from_id == other_id, f.to_id == user_id)
                    .values(accepted_at=now)
                )
                state, since = "friend", now
            else:
                state, since = "outgoing", row.created_at
            name = await conn.scalar(sa.select(users.c.name).where(users.c.id == other_id))
        return Friend(user_id=other_id, name=str(name), state=state, since=since)

    async def remove_friend(self, user_id: int, other_id: int) -> bool:
        f = friendships.c
        pair = sa.or_(
            sa.and_(f.from_id == user_id, f.to_id == other_id),
            sa.and_(f.from_id == other_id, f.to_id == user_id),
        )
        i = invitations.c
        between = sa.or_(
            sa.and_(i.from_id == user_id, i.to_id == other_id),
            sa.and_(i.from_id == other_id, i.to_id == user_id),
        )
        async with self._write() as conn:
            result = await conn.execute(sa.delete(friendships).where(pair))
            # the invitations between them lapse with the friendship
            await conn.execute(sa.delete(invitations).where(between))
        return bool(result.rowcount)

    async def friends(self, user_id: int) -> list[Friend]:
        f = friendships.c
        query = (
            sa.select(f.from_id, f.to_id, f.created_at, f.accepted_at, users.c.id, users.c.name)
            .join(
                users,
                sa.or_(
                    sa.and_(f.from_id == user_id, users.c.id == f.to_id),
                    sa.and_(f.to_id == user_id, users.c.id == f.from_id),
                ),
            )
            .where(sa.or_(f.from_id == user_id, f.to_id == user_id))
        )
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        found: dict[int, Friend] = {}
        for row in rows:
            state: FriendState
            if row.accepted_at is not None:
                state, since = "friend", row.accepted_at
            else:
                state = "outgoing" if row.from_id == user_id else "incoming"
                since = row.created_at
            seen = found.get(row.id)
            if seen is not None and seen.state != state:
                # requests both ways (made at the same moment): they are friends
                state, since = "friend", max(since, seen.since)
            found[row.id] = Friend(user_id=row.id, name=row.name, state=state, since=since)
        order = {"incoming": 0, "friend": 1, "outgoing": 2}
        return sorted(found.values(), key=lambda x: (order[x.state], name_key(x.name)))

    async def invite(self, table_id: str, from_id: int, to_id: int) -> bool:
        async with self._write() as conn:
            table = await conn.scalar(
                sa.select(game_tables.c.id).where(game_tables.c.id == table_id)
            )
            if table is None:
                raise NotFoundError(f"there is no table {table_id!r}")
            await _require_user(conn, from_id)
            await _require_user(conn, to_id)
            row = {"table_id": table_id, "to_id": to_id, "from_id": from_id}
            result = await conn.execute(
                insert_ignoring_duplicates(conn, invitations, [{**row, "created_at": self._now()}])
            )
        return bool(result.rowcount)

    async def invitations(
        self, user_id: int, table_ids: Iterable[str] | None = None
    ) -> list[Invitation]:
        i = invitations.c
        query = (
            sa.select(i.table_id, i.from_id, i.created_at, users.c.name)
            .join(users, users.c.id == i.from_id)
            .join(game_tables, game_tables.c.id == i.table_id)
            .where(i.to_id == user_id, game_tables.c.status == "open")
            .order_by(i.created_at.desc())
            .limit(100)
        )
        if table_ids is not None:
            query = query.where(i.table_id.in_(list(table_ids)))
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            Invitation(
                table_id=row.table_id,
                from_user_id=row.from_id,
                from_name=row.name,
                created_at=row.created_at,
            )
            for row in rows
        ]

    async def remove_invitation(self, table_id: str, to_id: int) -> bool:
        i = invitations.c
        async with self._write() as conn:
            result = await conn.execute(
                sa.delete(invitations).where(i.table_id == table_id, i.to_id == to_id)
            )
        return bool(result.rowcount)

    # --- player pages -------------------------------------------------------------------
    async def player_stats(self, user_id: int) -> list[GameStats]:
        p = player_games.c
        played = p.score.is_not(None)
        solo = played & (p.players == 1) & (p.left_game == sa.false())
        query = (
            sa.select(
                p.game,
                sa.func.count(p.score).label("played"),
                sa.func.sum(
                    sa.case(
                        (played & p.won & (p.players > 1) & (p.left_game == sa.false()), 1),
                        else_=0,
                    )
                ).label("wins"),
                sa.func.avg(p.score).label("mean"),
                sa.func.max(p.score).label("best"),
                sa.func.sum(sa.case((solo, 1), else_=0)).label("solo_played"),
                sa.func.max(sa.case((solo, p.score), else_=None)).label("solo_best"),
            )
            .where(p.user_id == user_id, played)
            .group_by(p.game)
            .order_by(p.game)
        )
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            GameStats(
                game=row.game,
                played=int(row.played),
                wins=int(row.wins or 0),
                mean_score=float(row.mean) if row.mean is not None else None,
                best_score=row.best,
                solo_played=int(row.solo_played or 0),
                solo_best=row.solo_best,
            )
            for row in rows
        ]

    async def player_history(
        self, user_id: int, viewer_id: int | None, *, limit: int = 20, offset: int = 0
    ) -> tuple[list[PlayerGame], int]:
        if limit < 0 or offset < 0:
            raise ValueError(f"limit and offset must be 0 or more, not {limit} and {offset}")
        p = player_games.c
        t = game_tables.c
        mine = p.user_id == user_id
        if viewer_id != user_id:
            # a private table only for someone who sat there too
            viewer = player_games.alias("viewer")
            sat_there = (
                sa.exists().where(viewer.c.table_id == p.table_id, viewer.c.user_id == viewer_id)
                if viewer_id is not None
                else sa.false()
            )
            mine = mine & ((t.private == sa.false()) | sat_there)
        joined = player_games.join(game_tables, game_tables.c.id == p.table_id)
        page = (
            sa.select(
                p.table_id,
                p.seat,
                p.score,
                p.won,
                p.left_game,
                p.created_at,
                p.finished_at,
                t.game,
                t.seats,
                t.status,
                t.rated,
                t.private,
                t.result,
            )
            .select_from(joined)
            .where(mine)
            .order_by(p.created_at.desc(), p.table_id.desc())
            .limit(limit)
            .offset(offset)
        )
        count = sa.select(sa.func.count()).select_from(joined).where(mine)
        async with self._read() as conn:
            rows = (await conn.execute(page)).all()
            total = int(await conn.scalar(count) or 0)
        return [
            PlayerGame(
                table_id=row.table_id,
                game=row.game,
                seat=row.seat,
                seats=tuple(Seat.from_json(seat) for seat in row.seats),
                status=row.status,
                rated=row.rated,
                private=row.private,
                created_at=row.created_at,
                finished_at=row.finished_at,
                score=row.score,
                won=row.won,
                left_game=row.left_game,
                result=row.result,
            )
            for row in rows
        ], total

    async def high_scores(self, game: str, *, limit: int = 20) -> list[HighScore]:
        if limit < 0:
            raise ValueError(f"limit must be 0 or more, not {limit}")
        p = player_games.c
        query = (
            sa.select(p.user_id, users.c.name, p.table_id, p.score, p.finished_at)
            .select_from(
                player_games.join(users, users.c.id == p.user_id).join(
                    game_tables, game_tables.c.id == p.table_id
                )
            )
            .where(
                p.game == game,
                p.players == 1,
                p.score.is_not(None),
                p.left_game == sa.false(),
                game_tables.c.private == sa.false(),
            )
            .order_by(p.score.desc(), p.finished_at, p.table_id)
            .limit(limit)
        )
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            HighScore(
                user_id=row.user_id,
                name=row.name,
                table_id=row.table_id,
                score=row.score,
                finished_at=row.finished_at,
            )
            for row in rows
        ]


# --- helpers ----------------------------------------------------------------------------
#: The fields of a table whose change changes its `player_games` rows.
_PLAYER_FIELDS = frozenset({"seats", "status", "result", "finished_at"})

# Statements of every request and of every game set up, built once with bound parameters:
# building a statement and its cache key anew cost about as much as running it
# (docs/server.md, "The hot path, fifth pass"). A session and its user (`get_session`,
# `get_user`):
_USER_BY_ID = sa.select(users).where(users.c.id == sa.bindparam("user_id"))
_LIVE_SESSION = sa.select(sessions).where(
    sessions.c.token_hash == sa.bindparam("token_hash"),
    sessions.c.expires_at > sa.bindparam("now"),
)
# ... and both in one (`get_session_user`): the user of a live session, joined
_USER_OF_LIVE_SESSION = (
    sa.select(users)
    .join(sessions, sessions.c.user_id == users.c.id)
    .where(
        sessions.c.token_hash == sa.bindparam("token_hash"),
        sessions.c.expires_at > sa.bindparam("now"),
    )
)
# a new user, a new session (a row's values as parameters named after its columns):
_NEW_USER = sa.insert(users).returning(*users.c)
_NEW_SESSION = sa.insert(sessions).returning(*sessions.c)
# a new table (`create_table`: every column it sets, as parameters named after them), and
# the open tables a user made (counted before):
_NEW_TABLE = sa.insert(game_tables).returning(*game_tables.c)
_OPEN_TABLES_OF = sa.select(sa.func.count()).where(
    game_tables.c.created_by == sa.bindparam("created_by"), game_tables.c.status == "open"
)
# a table and its actions (`load_table`, when a node takes a table up):
_TABLE_BY_ID = sa.select(game_tables).where(game_tables.c.id == sa.bindparam("table_id"))
_ACTIONS_OF_TABLE = (
    sa.select(actions)
    .where(actions.c.table_id == sa.bindparam("table_id"))
    .order_by(actions.c.version)
)
_REVISION_OF_TABLE = sa.select(game_tables.c.revision).where(
    game_tables.c.id == sa.bindparam("table_id")
)


def player_rows(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The `player_games` rows of a table (a row of `game_tables` as a mapping): one per
    person's seat, with the seat's result once the game has ended by the rules."""
    seats = table["seats"] or []
    result = table["result"] if table["status"] == "finished" else None
    scores = (result or {}).get("scores") or []
    winners = (result or {}).get("winners") or []
    rows = []
    for index, seat in enumerate(seats):
        if seat.get("kind") != "human" or seat.get("user_id") is None:
            continue
        score = scores[index].get("total") if index < len(scores) else None
        rows.append(
            {
                "table_id": table["id"],
                "seat": index,
                "user_id": seat["user_id"],
                "game": table["game"],
                "players": len(seats),
                "created_at": table["created_at"],
                "finished_at": table["finished_at"] if result is not None else None,
                "score": score if isinstance(score, int) else None,
                "won": (index in winners) if result is not None else None,
                "left_game": seat.get("bot") is not None,
            }
        )
    return rows


async def _sync_players(
    conn: AsyncConnection, table_id: str, table: sa.Row[Any] | None = None
) -> None:
    """Write the table's `player_games` rows anew from its row (in the caller's
    transaction): after it is made, its seats change or its game ends. `table`: its row
    as the caller's statement just returned it (`RETURNING` every column, in the same
    transaction), else it is read here."""
    if table is None:
        found = (await conn.execute(_TABLE_FOR_PLAYERS, {"table_id": table_id})).first()
        values = None if found is None else dict(found._mapping)
    else:
        values = dict(table._mapping)
    await conn.execute(_DROP_PLAYERS, {"table_id": table_id})
    if values is None:
        return
    rows = player_rows(values)
    if rows:
        await conn.execute(_ADD_PLAYERS, rows)


# `_sync_players`' statements, built once (three times a table's set-up: made, joined,
# started; docs/server.md, "The hot path, ninth pass")
_TABLE_FOR_PLAYERS = sa.select(
    game_tables.c.id,
    game_tables.c.game,
    game_tables.c.seats,
    game_tables.c.status,
    game_tables.c.result,
    game_tables.c.created_at,
    game_tables.c.finished_at,
).where(game_tables.c.id == sa.bindparam("table_id"))
_DROP_PLAYERS = sa.delete(player_games).where(player_games.c.table_id == sa.bindparam("table_id"))
_ADD_PLAYERS = sa.insert(player_games)


def _database_error(exc: DBAPIError | OSError) -> StorageError:
    """A failure of the database itself (unreachable, locked, out of space ...)."""
    cause = exc.orig if isinstance(exc, DBAPIError) else exc
    return StorageError(f"database error: {type(cause).__name__}: {cause}")


def _upgrade_to_head(connection: sa.Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR).replace("%", "%%"))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def _raise_stale(conn: AsyncConnection, table_id: str, expected_version: int) -> None:
    """The compare-and-swap failed: say why (the table is gone, or at another version)."""
    actual = await conn.scalar(sa.select(game_tables.c.version).where(game_tables.c.id == table_id))
    if actual is None:
        raise NotFoundError(f"there is no table {table_id!r}")
    raise StaleVersionError(table_id, expected_version, actual)


@functools.cache
def _update_statement(changed: frozenset[str], checked: bool) -> sa.Update:
    """`update_table`'s statement for a set of changed fields (`checked`: only at the
    expected revision), built once with bound parameters `u_*` (the table's id `u_table`,
    the revision `u_expected`, each field's new value `u_<field>`), returning the row:
    building it anew cost more than running it (docs/server.md, "The hot path, fifth
    pass")."""
    where = game_tables.c.id == sa.bindparam("u_table")
    if checked:
        where = where & (game_tables.c.revision == sa.bindparam("u_expected"))
    return (
        sa.update(game_tables)
        .where(where)
        .values(
            revision=game_tables.c.revision + sa.literal_column("1"),  # no parameter
            **{
                name: sa.bindparam(f"u_{name}", type_=game_tables.c[name].type)
                for name in sorted(changed)
            },
        )
        .returning(*game_tables.c)
    )


@functools.cache
def _append_statements(
    changed: frozenset[str],
) -> tuple[sa.Update, sa.Insert, sa.Insert]:
    """`append_action`'s statements for a set of changed table fields, with bound parameters
    `a_*` only: (the version bump returning the new revision, the insert, both in one
    PostgreSQL statement)."""
    bump = (
        sa.update(game_tables)
        .where(
            game_tables.c.id == sa.bindparam("a_table"),
            game_tables.c.version == sa.bindparam("a_expected"),
        )
        .values(
            version=sa.bindparam("a_version"),
            revision=game_tables.c.revision + sa.literal_column("1"),  # no parameter
            **{
                name: sa.bindparam(f"a_{name}", type_=game_tables.c[name].type)
                for name in sorted(changed)
            },
        )
    )
    new_action = {
        "table_id": sa.bindparam("a_table", type_=actions.c.table_id.type),
        "version": sa.bindparam("a_version", type_=actions.c.version.type),
        "seat": sa.bindparam("a_seat", type_=actions.c.seat.type),
        "notation": sa.bindparam("a_notation", type_=actions.c.notation.type),
        "created_at": sa.bindparam("a_now", type_=actions.c.created_at.type),
    }
    insert = sa.insert(actions).values(new_action)
    bumped = bump.returning(game_tables.c.id, game_tables.c.revision).cte("bumped")
    both = (
        sa.insert(actions)
        .from_select(
            list(new_action),
            sa.select(*(value for name, value in new_action.items())).select_from(bumped),
        )
        .returning(sa.select(bumped.c.revision).scalar_subquery())
    )
    return bump.returning(game_tables.c.revision), insert, both


async def _require_user(conn: AsyncConnection, user_id: int) -> None:
    if await conn.scalar(_USER_EXISTS, {"user_id": user_id}) is None:
        raise NotFoundError(f"there is no user with id {user_id}")


_USER_EXISTS = sa.select(users.c.id).where(users.c.id == sa.bindparam("user_id"))


_CHANGEABLE = frozenset(TableChanges.__annotations__)


def _table_values(changes: TableChanges) -> dict[str, Any]:
    unknown = set(changes) - _CHANGEABLE
    if unknown:
        raise TypeError(
            f"cannot change {', '.join(sorted(unknown))} of a table; "
            f"changeable: {', '.join(sorted(_CHANGEABLE))}"
        )
    values: dict[str, Any] = dict(changes)
    if "status" in changes:
        _check_status(changes["status"])
    if "seats" in changes:
        values["seats"] = _seats_json(changes["seats"])
    for name in ("started_at", "finished_at"):
        moment = values.get(name)
        if moment is not None:
            _check_aware(name, moment)
    return values


def _check_aware(name: str, moment: datetime) -> None:
    if moment.tzinfo is None:
        raise ValueError(f"{name} must be a timezone-aware datetime, got {moment!r}")


def _check_status(status: str) -> None:
    if status not in TABLE_STATUSES:
        raise ValueError(f"table status must be one of {', '.join(TABLE_STATUSES)}, not {status!r}")


def _seats_json(seats: Sequence[Seat]) -> list[JSONObject]:
    return [seat.to_json() for seat in seats]


def _user(row: sa.Row[Any]) -> User:
    return User(
        id=row.id,
        name=row.name,
        password_hash=row.password_hash,
        is_guest=row.is_guest,
        created_at=row.created_at,
        role=row.role,
        suspended_at=row.suspended_at,
    )


def _session(row: sa.Row[Any]) -> UserSession:
    return UserSession(
        token_hash=row.token_hash,
        user_id=row.user_id,
        created_at=row.created_at,
        expires_at=row.expires_at,
    )


async def _table_of_request(
    conn: AsyncConnection, created_by: int, request_key: str, now: datetime | None
) -> GameTable | None:
    """The table `created_by` made with `request_key`. With `now` (in a write transaction),
    a table made `REQUEST_KEY_WINDOW` or longer ago first gives its key up, and is not it."""
    mine = (game_tables.c.created_by == created_by) & (game_tables.c.request_key == request_key)
    if now is not None:
        await conn.execute(
            sa.update(game_tables)
            .where(mine & (game_tables.c.created_at <= now - REQUEST_KEY_WINDOW))
            .values(request_key=None)
        )
    row = (await conn.execute(sa.select(game_tables).where(mine))).first()
    return None if row is None else table_from_row(row)


def _action(row: sa.Row[Any]) -> StoredAction:
    return StoredAction(
        table_id=row.table_id,
        version=row.version,
        seat=row.seat,
        notation=row.notation,
        created_at=row.created_at,
    )


def _rating(row: sa.Row[Any]) -> Rating:
    return Rating(
        user_id=row.user_id, game=row.game, rating=row.rating, games_played=row.games_played
    )
