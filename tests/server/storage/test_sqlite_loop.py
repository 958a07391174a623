"""SQLite transactions on the event loop's thread (storage/sqlite_loop.py): waits for another
process's write lock happen in asyncio sleeps, never blocking the loop; checkpoints run in a
worker thread."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from coffeetable.server.storage import Seat, StorageError, sqlite_loop
from tests.server.storage.helpers import open_sql_storage

pytestmark = pytest.mark.anyio


async def _ticks_while(work: asyncio.Future[object]) -> int:
    """How often the loop ran a 10 ms ticker while `work` was pending."""
    ticks = 0
    while not work.done():
        await asyncio.sleep(0.01)
        ticks += 1
    return ticks


async def test_a_writer_waits_for_another_process_without_blocking_the_loop(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    storage = open_sql_storage(url)
    try:
        await storage.migrate()
        other = sqlite3.connect(tmp_path / "site.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        asyncio.get_running_loop().call_later(0.3, other.execute, "COMMIT")
        started = time.monotonic()
        work = asyncio.ensure_future(storage.create_user("Ana"))
        ticks = await _ticks_while(work)
        user = work.result()
        assert time.monotonic() - started >= 0.29
        assert ticks >= 10  # the loop went on meanwhile
        assert await storage.get_user_by_name("ana") == user
        other.close()
    finally:
        await storage.close()


async def test_a_writer_gives_up_after_the_busy_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_loop, "BUSY_TIMEOUT", 0.2)
    storage = open_sql_storage(f"sqlite:///{tmp_path / 'site.db'}")
    try:
        await storage.migrate()
        other = sqlite3.connect(tmp_path / "site.db", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StorageError, match="database is locked"):
            await storage.create_user("Ana")
        other.execute("ROLLBACK")
        other.close()
        assert await storage.get_user_by_name("Ana") is None
        await storage.create_user("Ana")  # the writer works again
    finally:
        await storage.close()


async def test_checkpoints_run_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_loop, "CHECKPOINT_EVERY", 5)
    url = f"sqlite:///{tmp_path / 'site.db'}"
    storage = open_sql_storage(url)
    try:
        await storage.migrate()
        user = await storage.create_user("Ana")
        await storage.create_table("t1", game="cafe", seed=1, seats=[Seat("human", user.id)])
        for version in range(40):
            await storage.append_action("t1", version, 0, f"move {version}")
        on_loop = storage._on_loop
        assert on_loop is not None and on_loop._checkpoint is not None
        await on_loop._checkpoint
    finally:
        await storage.close()
    reopened = open_sql_storage(url)
    try:
        assert len(await reopened.list_actions("t1")) == 40
    finally:
        await reopened.close()
