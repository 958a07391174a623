"""A real `coffeetable serve` process per back end (SQLite file, PostgreSQL schema), shared by
the tests of a module; clients talk to it over real sockets (tests/server/live.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess
from tests.server.storage.helpers import create_postgres_schema, drop_postgres_schema

POSTGRES_ENV = "COFFEETABLE_TEST_POSTGRES"
REQUIRE_ENV = "COFFEETABLE_REQUIRE_POSTGRES"


def _postgres_schema_url() -> tuple[str | None, str, str]:
    """(URL of a fresh schema, base URL, why not)."""
    from tests.server.storage.conftest import _find_postgres

    base, reason = asyncio.run(_find_postgres())
    if base is None:
        return None, "", reason
    return asyncio.run(create_postgres_schema(base, prefix="test_srv")), base, ""


def _drop_schema(base: str, url: str) -> None:
    asyncio.run(drop_postgres_schema(base, url))


@contextlib.contextmanager
def serve_on(backend: str, folder: Path, **options: Any) -> Iterator[ServerProcess]:
    """A real server on `backend` ("sqlite": a file in `folder`; "postgresql": a fresh schema,
    dropped afterwards), with `ServerProcess` options; it must never log a traceback."""
    base = ""
    if backend == "sqlite":
        db_url = f"sqlite:///{folder / 'coffeetable.db'}"
    else:
        url, base, reason = _postgres_schema_url()
        if url is None:
            message = f"PostgreSQL is not reachable ({reason})"
            if os.environ.get(REQUIRE_ENV) == "1":
                pytest.fail(f"{message}, and {REQUIRE_ENV}=1 requires it")
            pytest.skip(f"{message}; set {POSTGRES_ENV} to a server URL to run these tests")
        db_url = url
    proc = ServerProcess(db_url, Path(folder) / "server.log", **options)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        log = proc.log_text()
        if base:
            _drop_schema(base, db_url)
        # the server must never have crashed or logged a traceback from a client's input
        assert "Traceback" not in log, log[-5000:]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    with serve_on(request.param, tmp_path_factory.mktemp("server")) as proc:
        yield proc
