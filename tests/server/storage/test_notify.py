"""Presence, "my games" and notifications in storage (issue 38): the seat index, turns in
revision order, settings, the mail digest's claims (exactly one claimer), site secrets."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from coffeetable.server.storage import Seat, SqlStorage
from tests.server.storage.helpers import FakeClock

pytestmark = pytest.mark.anyio


async def _table(storage: SqlStorage, table_id: str, *users: int, clock_kind: str = "") -> None:
    seats = [Seat("human", user_id=u) for u in users] + [Seat("bot", bot="greedy")]
    await storage.create_table(
        table_id,
        game="cafe",
        seed=1,
        seats=seats,
        clock={"kind": clock_kind} if clock_kind else None,
    )


async def test_my_games_lists_seated_tables_your_move_as_stored(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana")
    bo = await storage.create_user("Bo")
    await _table(storage, "t1", ana.id, bo.id)
    clock.advance(seconds=1)
    await _table(storage, "t2", bo.id)
    clock.advance(seconds=1)
    await _table(storage, "t3", ana.id)
    assert [p.table.id for p in await storage.player_tables(ana.id)] == ["t3", "t1"]
    assert [p.table.id for p in await storage.player_tables(bo.id)] == ["t2", "t1"]
    # turns: only while running, in revision order
    t1 = await storage.update_table("t1", status="running")
    await storage.set_turns("t1", t1.revision, [ana.id])
    mine = {p.table.id: p for p in await storage.player_tables(ana.id)}
    assert mine["t1"].to_move and mine["t1"].turn_since == clock.now
    assert not mine["t3"].to_move
    clock.advance(seconds=5)
    await storage.set_turns("t1", t1.revision + 2, [bo.id])
    await storage.set_turns("t1", t1.revision + 1, [ana.id])  # older: ignored
    assert not {p.table.id: p for p in await storage.player_tables(ana.id)}["t1"].to_move
    bo_t1 = {p.table.id: p for p in await storage.player_tables(bo.id)}["t1"]
    assert bo_t1.to_move and bo_t1.seat == 1 and bo_t1.turn_since == clock.now
    # a seat that changes hands changes the index; a replaced player keeps the table listed
    seats = (Seat("human", user_id=ana.id), Seat("open"), Seat("bot", bot="greedy"))
    await storage.update_table("t1", seats=seats)
    assert [p.table.id for p in await storage.player_tables(bo.id)] == ["t2"]
    # finished tables: only the latest `recent`
    await storage.update_table("t3", status="finished", finished_at=clock.now)
    assert [p.table.id for p in await storage.player_tables(ana.id, recent=0)] == ["t1"]
    assert [p.table.id for p in await storage.player_tables(ana.id, recent=5)] == ["t1", "t3"]


async def test_turns_of_several_tables_in_one_transaction(
    storage: SqlStorage, clock: FakeClock
) -> None:
    """`set_turns_many` (the notifier's batch under load): each table as `set_turns` would
    leave it, in the order given, with an older revision ignored and a player still to move
    keeping the moment their turn began."""
    ana = await storage.create_user("Ana")
    bo = await storage.create_user("Bo")
    await _table(storage, "t1", ana.id, bo.id)
    await _table(storage, "t2", bo.id, ana.id)
    r1 = (await storage.update_table("t1", status="running")).revision
    r2 = (await storage.update_table("t2", status="running")).revision
    began = clock.now
    await storage.set_turns_many([("t1", r1, [ana.id]), ("t2", r2, [ana.id, bo.id])])
    clock.advance(seconds=5)
    await storage.set_turns_many(
        [
            ("t1", r1 + 1, [bo.id]),
            ("t2", r2 + 2, [ana.id]),  # Ana was to move already: her turn began before
            ("t2", r2 + 1, [bo.id]),  # older than the one just stored: ignored
            ("t1", r1 + 2, []),  # nobody to move
        ]
    )
    ana_tables = {p.table.id: p for p in await storage.player_tables(ana.id)}
    bo_tables = {p.table.id: p for p in await storage.player_tables(bo.id)}
    assert not ana_tables["t1"].to_move and not bo_tables["t1"].to_move
    assert ana_tables["t2"].to_move and ana_tables["t2"].turn_since == began
    assert not bo_tables["t2"].to_move and bo_tables["t2"].turn_since is None


async def test_settings_round_trip_and_defaults(storage: SqlStorage) -> None:
    ana = await storage.create_user("Ana")
    fresh = await storage.get_settings(ana.id)
    assert fresh.email is None and fresh.language == "en" and fresh.prefs == {}
    saved = await storage.save_settings(
        ana.id, email="ana@example.org", language="pt", prefs={"sound": True, "digest": 60}
    )
    assert (saved.email, saved.language, saved.prefs) == (
        "ana@example.org",
        "pt",
        {"sound": True, "digest": 60},
    )
    again = await storage.save_settings(ana.id, email=None, language="uk", prefs={})
    assert again.email is None and again.language == "uk"
    assert await storage.get_settings(ana.id) == again


async def test_a_digest_is_claimed_once_and_gathers_every_event(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana")
    await storage.save_settings(ana.id, email="a@x.org", language="en", prefs={})
    await _table(storage, "t1", ana.id)
    for kind in ("your_move", "ended", "invitation"):
        await storage.add_mail_event(ana.id, kind, "t1", {"game": "cafe"})
    assert await storage.mail_due(clock.now) == [ana.id]
    # several claimers at once (several nodes): exactly one gets the events
    claims = await asyncio.gather(
        *(storage.claim_mail(ana.id, clock.now, timedelta(minutes=15)) for _ in range(4))
    )
    won = [c for c in claims if c is not None]
    assert len(won) == 1
    batch, events = won[0]
    assert [e.kind for e in events] == ["your_move", "ended", "invitation"]
    assert await storage.mail_due(clock.now) == []
    # an event made meanwhile waits for the next interval
    await storage.add_mail_event(ana.id, "your_move", "t1", {})
    assert await storage.mail_due(clock.now) == []
    assert await storage.claim_mail(ana.id, clock.now, timedelta(minutes=15)) is None
    await storage.finish_mail(batch, sent=True)
    clock.advance(minutes=16)
    assert await storage.mail_due(clock.now) == [ana.id]
    second = await storage.claim_mail(ana.id, clock.now, timedelta(minutes=15))
    assert second is not None and [e.kind for e in second[1]] == ["your_move"]
    # a batch that could not be sent is claimable again with the next digest
    await storage.finish_mail(second[0], sent=False)
    clock.advance(minutes=16)
    third = await storage.claim_mail(ana.id, clock.now, timedelta(minutes=15))
    assert third is not None and len(third[1]) == 1


async def test_pending_your_move_is_dropped_when_the_move_is_made(
    storage: SqlStorage, clock: FakeClock
) -> None:
    ana = await storage.create_user("Ana")
    await _table(storage, "t1", ana.id)
    await storage.add_mail_event(ana.id, "your_move", "t1", {})
    await storage.add_mail_event(ana.id, "ended", "t1", {})
    assert await storage.drop_mail_events(ana.id, "t1", ["your_move"]) == 1
    claim = await storage.claim_mail(ana.id, clock.now, timedelta(minutes=1))
    assert claim is not None and [e.kind for e in claim[1]] == ["ended"]


async def test_events_newer_than_the_delay_wait(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    await storage.add_mail_event(ana.id, "ended", None, {})
    assert await storage.mail_due(clock.now - timedelta(seconds=60)) == []
    clock.advance(seconds=61)
    assert await storage.mail_due(clock.now - timedelta(seconds=60)) == [ana.id]


async def test_the_site_secret_is_made_once(storage: SqlStorage) -> None:
    first, second = await asyncio.gather(storage.site_secret("mail"), storage.site_secret("mail"))
    assert first == second and len(first) == 64
    assert await storage.site_secret("other") != first


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_the_migration_lists_the_players_of_existing_tables(
    backend: str, tmp_path: Any
) -> None:
    """Tables made before 0005 get their `table_players` rows when it is applied (and
    downgrading takes its tables away again)."""
    from alembic import command
    from alembic.config import Config

    from coffeetable.server.storage.sql import MIGRATIONS_DIR
    from tests.server.storage.helpers import fresh_postgres_schema, open_sql_storage

    def migrate(connection: sa.Connection, target: str, down: bool = False) -> None:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS_DIR))
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, target)

    async def run(url: str) -> None:
        storage = open_sql_storage(url)
        try:
            async with storage.engine.begin() as conn:
                await conn.run_sync(migrate, "0003")
                await conn.execute(
                    sa.text(
                        "INSERT INTO users (name, name_key, is_guest, created_at) "
                        "VALUES ('Ana', 'ana', false, CURRENT_TIMESTAMP)"
                    )
                )
                ana = await conn.scalar(sa.text("SELECT id FROM users WHERE name_key = 'ana'"))
                seats = json.dumps(
                    [
                        {"kind": "bot", "user_id": None, "bot": "greedy"},
                        {"kind": "human", "user_id": ana, "bot": None},
                        {"kind": "open", "user_id": None, "bot": None},
                    ]
                )
                await conn.execute(
                    sa.text(
                        "INSERT INTO game_tables (id, game, options, seed, seats, rated, private,"
                        " status, version, revision, created_at) VALUES ('old', 'cafe', '{}',"
                        " '1', :seats, false, false, 'running', 0, 0, CURRENT_TIMESTAMP)"
                    ),
                    {"seats": seats},
                )
                await conn.run_sync(migrate, "head")
            assert [(p.table.id, p.seat, p.to_move) for p in await storage.player_tables(ana)] == [
                ("old", 1, False)
            ]
            async with storage.engine.begin() as conn:
                await conn.run_sync(migrate, "0003", True)
                tables = await conn.run_sync(lambda c: sa.inspect(c).get_table_names())
            assert "table_players" not in tables and "mail_events" not in tables
        finally:
            await storage.close()

    if backend == "sqlite":
        await run(f"sqlite:///{tmp_path / 'old.db'}")
    else:
        from tests.server.storage.conftest import _find_postgres, _missing_postgres

        base, reason = await _find_postgres()
        if base is None:
            _missing_postgres(reason)
        assert base is not None
        async with fresh_postgres_schema(base) as url:
            await run(url)
