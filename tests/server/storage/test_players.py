"""Player pages in storage: every person's seat indexed (`player_games`), kept up to date as
tables are made, change seats and end; results per game, the history with its privacy and
pages, the solo high scores; and migration 0006 filling the index from the tables there
were. On each back end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from coffeetable.server.storage import GameStats, Seat, SqlStorage
from coffeetable.server.storage.schema import game_tables, player_games
from coffeetable.server.storage.sql import MIGRATIONS_DIR, player_rows
from tests.server.storage.helpers import FakeClock, open_sql_storage

pytestmark = pytest.mark.anyio


def _result(totals: list[int], winners: list[int]) -> dict[str, Any]:
    return {"scores": [{"total": t, "parts": {}} for t in totals], "winners": winners}


async def _finish(
    storage: SqlStorage, table_id: str, totals: list[int], winners: list[int], clock: FakeClock
) -> None:
    """Start the table and end it with one move that carries the result (as the server
    stores the last move of a game)."""
    await storage.update_table(table_id, status="running", started_at=clock.now)
    table = await storage.get_table(table_id)
    assert table is not None
    await storage.append_action(
        table_id,
        table.version,
        0,
        "end",
        {"status": "finished", "finished_at": clock.now, "result": _result(totals, winners)},
    )


async def test_results_per_game(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    people = [Seat("human", user_id=ana.id), Seat("human", user_id=ben.id)]
    await storage.create_table("s1", game="cafe", seed=1, seats=[people[0]])
    await _finish(storage, "s1", [31], [0], clock)
    await storage.create_table("s2", game="cafe", seed=2, seats=[people[0]])
    await _finish(storage, "s2", [17], [0], clock)
    await storage.create_table("d1", game="cafe", seed=3, seats=people)
    await _finish(storage, "d1", [40, 12], [0], clock)
    await storage.create_table("r1", game="coffee-rush", seed=4, seats=people)
    await _finish(storage, "r1", [5, 9], [1], clock)
    # a table still running and one never started count for nothing
    await storage.create_table("r2", game="coffee-rush", seed=5, seats=people)
    await storage.update_table("r2", status="running")
    await storage.create_table("r3", game="coffee-rush", seed=6, seats=[people[0], Seat("open")])
    # a seat a bot took over: played, but not won by the person
    await storage.create_table("r4", game="coffee-rush", seed=7, seats=people)
    await storage.update_table("r4", seats=[Seat("human", user_id=ana.id, bot="greedy"), people[1]])
    await _finish(storage, "r4", [20, 3], [0], clock)

    assert await storage.player_stats(ana.id) == [
        GameStats("cafe", 3, 1, (31 + 17 + 40) / 3, 40, 2, 31),
        GameStats("coffee-rush", 2, 0, (5 + 20) / 2, 20, 0, None),
    ]
    assert await storage.player_stats(ben.id) == [
        GameStats("cafe", 1, 0, 12.0, 12, 0, None),
        GameStats("coffee-rush", 2, 1, 6.0, 9, 0, None),
    ]


async def test_history_pages_and_privacy(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    cy = await storage.create_user("Cy")
    pair = [Seat("human", user_id=ana.id), Seat("human", user_id=ben.id)]
    for index in range(5):
        clock.advance(minutes=1)
        await storage.create_table(
            f"t{index}", game="cafe", seed=index, seats=pair, private=index == 3
        )
    await _finish(storage, "t1", [3, 4], [1], clock)

    rows, total = await storage.player_history(ana.id, ana.id, limit=2)
    assert total == 5 and [r.table_id for r in rows] == ["t4", "t3"]
    rows, _ = await storage.player_history(ana.id, ana.id, limit=2, offset=2)
    assert [r.table_id for r in rows] == ["t2", "t1"]
    finished = rows[1]
    assert (finished.status, finished.score, finished.won, finished.seat) == (
        "finished",
        3,
        False,
        0,
    )
    assert finished.seats == tuple(pair)
    # the private table: for Ana and Ben, not for Cy nor for nobody
    for viewer, expected in ((ben.id, 5), (cy.id, 4), (None, 4)):
        rows, total = await storage.player_history(ana.id, viewer, limit=10)
        assert total == expected and len(rows) == expected
        assert ("t3" in {r.table_id for r in rows}) == (expected == 5)
    with pytest.raises(ValueError, match="limit"):
        await storage.player_history(ana.id, None, limit=-1)


async def test_seats_changing_keep_the_index(storage: SqlStorage) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    await storage.create_table(
        "t", game="cafe", seed=1, seats=[Seat("human", user_id=ana.id), Seat("open")]
    )
    assert (await storage.player_history(ben.id, ben.id))[1] == 0
    await storage.update_table(
        "t", seats=[Seat("human", user_id=ana.id), Seat("human", user_id=ben.id)]
    )
    assert (await storage.player_history(ben.id, ben.id))[1] == 1
    await storage.update_table("t", seats=[Seat("open"), Seat("human", user_id=ben.id)])
    assert (await storage.player_history(ana.id, ana.id))[1] == 0


async def test_high_scores(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    games = [("a1", ana.id, 30), ("b1", ben.id, 36), ("a2", ana.id, 36), ("b2", ben.id, 10)]
    for table_id, user_id, total in games:
        clock.advance(minutes=1)
        await storage.create_table(
            table_id, game="cafe", seed=1, seats=[Seat("human", user_id=user_id)]
        )
        await _finish(storage, table_id, [total], [0], clock)
    # a private game, one a bot finished, and a game of two are not on the board
    await storage.create_table(
        "p", game="cafe", seed=1, seats=[Seat("human", user_id=ana.id)], private=True
    )
    await _finish(storage, "p", [50], [0], clock)
    await storage.create_table(
        "z", game="cafe", seed=1, seats=[Seat("human", user_id=ben.id, bot="greedy")]
    )
    await _finish(storage, "z", [49], [0], clock)
    await storage.create_table(
        "d",
        game="cafe",
        seed=1,
        seats=[Seat("human", user_id=ana.id), Seat("human", user_id=ben.id)],
    )
    await _finish(storage, "d", [48, 0], [0], clock)
    board = await storage.high_scores("cafe")
    # best first; equal scores: the earlier game first
    assert [(h.table_id, h.name, h.score) for h in board] == [
        ("b1", "Ben", 36),
        ("a2", "Ana", 36),
        ("a1", "Ana", 30),
        ("b2", "Ben", 10),
    ]
    assert [h.table_id for h in await storage.high_scores("cafe", limit=2)] == ["b1", "a2"]
    assert await storage.high_scores("coffee-rush") == []


async def test_migration_fills_the_index_from_existing_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    storage = open_sql_storage(url)
    try:

        def upgrade(connection: sa.Connection, to: str) -> None:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS_DIR))
            config.attributes["connection"] = connection
            command.upgrade(config, to)

        async with storage.engine.begin() as connection:
            await connection.run_sync(upgrade, "0003")
            await connection.execute(
                sa.text(
                    "INSERT INTO users (name, name_key, is_guest, created_at) VALUES ('Ana', 'ana', 0, '2026-01-01 00:00:00')"
                )
            )
            for table_id, status, result in (
                ("old1", "finished", '{"scores": [{"total": 33}], "winners": [0]}'),
                ("old2", "running", None),
            ):
                await connection.execute(
                    sa.text(
                        "INSERT INTO game_tables (id, game, options, seed, seats, rated, private, "
                        "status, version, created_at, finished_at, result) VALUES (:id, 'cafe', "
                        "'{}', '1', :seats, 0, 0, :status, 1, '2026-01-01 00:00:00', "
                        "'2026-01-01 01:00:00', :result)"
                    ),
                    {
                        "id": table_id,
                        "seats": '[{"kind": "human", "user_id": 1, "bot": null}]',
                        "status": status,
                        "result": result,
                    },
                )
        await storage.migrate()
        stats = await storage.player_stats(1)
        assert stats == [GameStats("cafe", 1, 0, 33.0, 33, 1, 33)]
        rows, total = await storage.player_history(1, 1)
        assert total == 2 and {r.table_id for r in rows} == {"old1", "old2"}
        assert [h.table_id for h in await storage.high_scores("cafe")] == ["old1"]
    finally:
        await storage.close()


async def _index_is_the_tables(storage: SqlStorage, table_id: str) -> list[dict[str, Any]]:
    """The table's `player_games` rows, checked against those its stored row gives (the
    index is written from the row a statement returns, not from a read of it)."""
    of_table = sa.select(game_tables).where(game_tables.c.id == table_id)
    index = sa.select(player_games).where(player_games.c.table_id == table_id)
    async with storage.engine.connect() as conn:
        table = (await conn.execute(of_table)).one()
        stored = (await conn.execute(index.order_by(player_games.c.seat))).all()
    rows = [dict(row._mapping) for row in stored]
    assert rows == player_rows(table._mapping)
    return rows


async def test_index_rows_follow_every_change(storage: SqlStorage, clock: FakeClock) -> None:
    ana = await storage.create_user("Ana")
    ben = await storage.create_user("Ben")
    await storage.create_table(
        "t", game="cafe", seed=1, seats=[Seat("human", user_id=ana.id), Seat("open")]
    )
    made = await _index_is_the_tables(storage, "t")
    assert [(r["seat"], r["user_id"], r["players"], r["won"]) for r in made] == [
        (0, ana.id, 2, None)
    ]
    clock.advance(minutes=5)  # the rows keep the table's creation time
    await storage.update_table(
        "t", seats=[Seat("human", user_id=ana.id), Seat("human", user_id=ben.id)]
    )
    joined = await _index_is_the_tables(storage, "t")
    assert [r["user_id"] for r in joined] == [ana.id, ben.id]
    assert {r["created_at"] for r in joined} == {made[0]["created_at"]}
    await _finish(storage, "t", [7, 9], [1], clock)
    ended = await _index_is_the_tables(storage, "t")
    assert [(r["score"], r["won"]) for r in ended] == [(7, False), (9, True)]
    assert all(r["finished_at"] is not None for r in ended)
    await storage.import_table(
        "imported",
        game="cafe",
        seed=2,
        seats=[Seat("human", user_id=ben.id), Seat("bot", bot="random")],
        options={},
        created_by=ben.id,
        moves=[(0, "a"), (1, "b")],
        result=_result([3, 4], [1]),
    )
    imported = await _index_is_the_tables(storage, "imported")
    assert [(r["user_id"], r["score"], r["won"]) for r in imported] == [(ben.id, 3, False)]
