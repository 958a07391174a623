"""Fixtures: a migrated, empty `storage` on each back end, and a clock the tests move.

PostgreSQL: `postgresql://postgres@127.0.0.1:5432/test` by default (trust auth; the current
user is tried when `postgres` is refused), or `$COFFEETABLE_TEST_POSTGRES`. Each test run
creates a schema with a random name, migrates it once, empties its tables before each test
(ids are not reset: tests must not assume them) and drops it at the end, so parallel or repeated runs never meet. If no server answers, the
PostgreSQL tests are skipped, unless `COFFEETABLE_REQUIRE_POSTGRES=1` (as in CI): then they fail.
"""

from __future__ import annotations

import getpass
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from coffeetable.server.storage import SqlStorage
from coffeetable.server.storage.schema import metadata
from tests.server.storage.helpers import FakeClock, fresh_postgres_schema, open_sql_storage

POSTGRES_ENV = "COFFEETABLE_TEST_POSTGRES"
REQUIRE_ENV = "COFFEETABLE_REQUIRE_POSTGRES"
BACKENDS = ["sqlite-file", "sqlite-memory", "postgresql"]


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"  # aiosqlite and asyncpg run on asyncio only


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# --- PostgreSQL -------------------------------------------------------------------------
async def _find_postgres() -> tuple[str | None, str]:
    """A base URL that connects, or None and why not."""
    configured = os.environ.get(POSTGRES_ENV)
    candidates = (
        [configured]
        if configured
        else [
            f"postgresql://{user}@127.0.0.1:5432/test"
            for user in dict.fromkeys(["postgres", getpass.getuser()])
        ]
    )
    errors = []
    for url in candidates:
        try:
            connection = await asyncpg.connect(url, timeout=5)
        except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
            errors.append(f"{url}: {exc}")
            continue
        await connection.close()
        return url, ""
    return None, "; ".join(errors)


def _missing_postgres(reason: str) -> None:
    message = f"PostgreSQL is not reachable ({reason})"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{message}, and {REQUIRE_ENV}=1 requires it")
    pytest.skip(f"{message}; set {POSTGRES_ENV} to a server URL to run these tests")


@pytest.fixture(scope="session")
async def postgres_base_url() -> str:
    url, reason = await _find_postgres()
    if url is None:
        _missing_postgres(reason)
    assert url is not None
    return url


@pytest.fixture(scope="session")
async def postgres_url(postgres_base_url: str) -> AsyncIterator[str]:
    """This test run's schema, migrated once."""
    async with fresh_postgres_schema(postgres_base_url) as url:
        storage = open_sql_storage(url)
        try:
            await storage.migrate()
        finally:
            await storage.close()
        yield url


# --- SQLite -----------------------------------------------------------------------------
@pytest.fixture(scope="session")
async def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty SQLite file, copied for each test (faster than migrating each)."""
    path = tmp_path_factory.mktemp("template") / "coffeetable.db"
    storage = open_sql_storage(f"sqlite:///{path}")
    try:
        await storage.migrate()
    finally:
        await storage.close()  # the last connection to close folds the WAL into the file
    return path


# --- the storage under test -------------------------------------------------------------
@pytest.fixture(params=BACKENDS)
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite-file":
        path = tmp_path / "coffeetable.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"
    if request.param == "sqlite-memory":
        return "sqlite://"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.fixture
async def storage(backend_url: str, clock: FakeClock) -> AsyncIterator[SqlStorage]:
    """A migrated storage with no rows, on each back end."""
    storage = open_sql_storage(backend_url, clock=clock)
    try:
        if backend_url == "sqlite://":
            await storage.migrate()  # in memory: a new database each time
        elif backend_url.startswith("postgresql"):
            # this run's migrated schema, emptied (DELETE is much faster than TRUNCATE here)
            async with storage.engine.begin() as connection:
                for table in reversed(metadata.sorted_tables):
                    await connection.execute(table.delete())
        # else a SQLite file: a fresh copy of the migrated template
        yield storage
    finally:
        await storage.close()
