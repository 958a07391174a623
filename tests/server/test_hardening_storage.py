"""Issue 36, in process: record imports are all or nothing, an imported table never starts,
SQLite's WAL is checkpointed at start-up, and stale sessions and guests are deleted."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from coffeetable.core.record import GameRecord
from coffeetable.server.bus import MemoryBus
from coffeetable.server.livetable import TableError
from coffeetable.server.lobby import LobbyService
from coffeetable.server.match import MatchService
from coffeetable.server.replays import ReplayService
from coffeetable.server.storage import Seat, open_storage
from tests.server.live import finished_record

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_2_a_record_import_that_fails_part_way_leaves_nothing(tmp_path: Path) -> None:
    storage = open_storage(f"sqlite:///{tmp_path / 'i.db'}")
    await storage.migrate()
    try:
        user = await storage.create_user("Ana", None, is_guest=True)
        match = MatchService(storage, MemoryBus())
        replays = ReplayService(match)
        calls = 0
        real = storage.append_action

        async def failing(*args: Any, **kw: Any) -> Any:
            nonlocal calls
            calls += 1
            if calls == 3:
                raise OSError("the disk went away")
            return await real(*args, **kw)

        storage.append_action = failing  # type: ignore[method-assign]
        record = GameRecord.from_json(finished_record())
        with contextlib.suppress(OSError):
            await replays.import_record(user, record)
        assert await storage.list_tables(["open", "running", "finished"]) in ([],) or all(
            t.status == "finished" and t.version == len(record.actions)
            for t in await storage.list_tables(["open", "running", "finished"])
        )
        assert await storage.list_tables(["open"]) == []
    finally:
        await storage.close()


async def test_2_a_half_imported_table_cannot_be_started(tmp_path: Path) -> None:
    storage = open_storage(f"sqlite:///{tmp_path / 'h.db'}")
    await storage.migrate()
    try:
        user = await storage.create_user("Ana", None, is_guest=True)
        # what a crash part-way through the old import left: open, imported seats, some moves
        table = await storage.create_table(
            "half1",
            game="coffee-rush",
            seed=5,
            seats=[Seat("bot", bot="imported:Ana"), Seat("bot", bot="imported:Bo")],
            created_by=user.id,
        )
        match = MatchService(storage, MemoryBus())
        lobby = LobbyService(match)
        with pytest.raises(TableError) as refused:
            await lobby.start(table.id, user)
        assert refused.value.status == 409
        assert (await storage.get_table(table.id)).status == "open"  # type: ignore[union-attr]
    finally:
        await storage.close()


def test_15_the_wal_is_checkpointed_at_start_up(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    import asyncio

    async def make() -> None:
        storage = open_storage(f"sqlite:///{db}")
        await storage.migrate()
        await storage.close()

    asyncio.run(make())
    # a process that writes 8 MB into the WAL and dies before any checkpoint (kill -9)
    script = (
        "import sqlite3, os\n"
        f"c = sqlite3.connect({str(db)!r})\n"
        "c.execute('PRAGMA journal_mode=WAL'); c.execute('PRAGMA wal_autocheckpoint=0')\n"
        "c.execute('CREATE TABLE IF NOT EXISTS junk (b BLOB)')\n"
        "for _ in range(80): c.execute('INSERT INTO junk VALUES (?)', (os.urandom(100_000),)); c.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    wal = Path(str(db) + "-wal")
    assert wal.stat().st_size > 5_000_000

    async def start() -> None:
        storage = open_storage(f"sqlite:///{db}")
        await storage.migrate()
        size = wal.stat().st_size if wal.exists() else 0
        await storage.close()
        assert size < 1_000_000, size

    asyncio.run(start())
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT count(*) FROM junk").fetchone()[0] == 80


async def test_16_expired_sessions_and_stale_guests_are_deleted(tmp_path: Path) -> None:
    storage = open_storage(f"sqlite:///{tmp_path / 's.db'}")
    await storage.migrate()
    try:
        now = datetime.now(UTC)
        old_guest = await storage.create_user("Guest-OLD111", None, is_guest=True)
        seated_guest = await storage.create_user("Guest-SEAT11", None, is_guest=True)
        new_guest = await storage.create_user("Guest-NEW111", None, is_guest=True)
        person = await storage.create_user("Ana", "x")
        await storage.create_session("a" * 64, old_guest.id, now - timedelta(days=1))
        await storage.create_session("b" * 64, new_guest.id, now + timedelta(days=1))
        await storage.create_table(
            "t1", game="cafe", seed=1, seats=[Seat("human", user_id=seated_guest.id), Seat("open")]
        )
        removed = await storage.delete_stale(guests_before=now + timedelta(seconds=1))
        assert removed == (1, 1)
        assert await storage.get_user(old_guest.id) is None
        for kept in (seated_guest, new_guest, person):
            assert await storage.get_user(kept.id) is not None
        assert await storage.get_session("b" * 64) is not None
    finally:
        await storage.close()
