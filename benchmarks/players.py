"""The player pages' queries on a large site: a player's history page and its count, their
results per game, and the solo high-score board, on SQLite and PostgreSQL, with the query
plans (docs/server-storage.md, "The player index").

    python3 benchmarks/players.py --tables 100000 --db both

The tables are written straight into the database (not through `create_table`, which would
take minutes): `--tables` finished games of 1 to 4 seats among `--users` people, a tenth of
them solo Café games, a tenth private.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa

from coffeetable.server.storage import SqlStorage, open_storage
from coffeetable.server.storage.schema import game_tables, player_games, users


async def fill(storage: SqlStorage, tables: int, people: int, seed: int) -> None:
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    async with storage.engine.begin() as conn:
        await conn.execute(
            sa.insert(users),
            [
                {
                    "id": i + 1,
                    "name": f"p{i}",
                    "name_key": f"p{i}",
                    "is_guest": False,
                    "created_at": start,
                }
                for i in range(people)
            ],
        )
        rows: list[dict[str, Any]] = []
        seats_rows: list[dict[str, Any]] = []
        for t in range(tables):
            solo = rng.random() < 0.1
            game = "cafe" if solo or rng.random() < 0.5 else "coffee-rush"
            n = 1 if solo else rng.randint(2, 4)
            who = rng.sample(range(1, people + 1), n)
            totals = [rng.randint(0, 45) for _ in who]
            best = max(totals)
            created = start + timedelta(minutes=t)
            rows.append(
                {
                    "id": f"t{t}",
                    "game": game,
                    "options": {},
                    "seed": t,
                    "seats": [{"kind": "human", "user_id": u, "bot": None} for u in who],
                    "clock": None,
                    "rated": False,
                    "private": rng.random() < 0.1,
                    "invite_token": None,
                    "status": "finished",
                    "version": 10,
                    "revision": 10,
                    "created_by": who[0],
                    "created_at": created,
                    "started_at": created,
                    "finished_at": created + timedelta(minutes=30),
                    "result": {
                        "scores": [{"total": x} for x in totals],
                        "winners": [totals.index(best)],
                    },
                }
            )
            for seat, user in enumerate(who):
                seats_rows.append(
                    {
                        "table_id": f"t{t}",
                        "seat": seat,
                        "user_id": user,
                        "game": game,
                        "players": n,
                        "created_at": created,
                        "finished_at": created + timedelta(minutes=30),
                        "score": totals[seat],
                        "won": seat == totals.index(best),
                        "left_game": False,
                    }
                )
            if len(rows) >= 2000:
                await conn.execute(sa.insert(game_tables), rows)
                await conn.execute(sa.insert(player_games), seats_rows)
                rows, seats_rows = [], []
        if rows:
            await conn.execute(sa.insert(game_tables), rows)
            await conn.execute(sa.insert(player_games), seats_rows)
        await conn.execute(sa.text("ANALYZE"))


async def timed(what: str, call: Any, repeat: int = 50) -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(
        f"  {what:<38} median {statistics.median(times):6.2f} ms   p90 {times[int(0.9 * len(times))]:6.2f} ms"
    )


async def plans(storage: SqlStorage, user: int) -> None:
    """The database's plan of the history page and the high-score board."""
    async with storage.engine.connect() as conn:
        dialect = conn.dialect.name
        explain = "EXPLAIN QUERY PLAN" if dialect == "sqlite" else "EXPLAIN"
        history = (
            f"{explain} SELECT p.table_id FROM player_games p JOIN game_tables t ON t.id = "
            f"p.table_id WHERE p.user_id = {user} AND (t.private = false OR EXISTS (SELECT 1 "
            f"FROM player_games v WHERE v.table_id = p.table_id AND v.user_id = 1)) ORDER BY "
            "p.created_at DESC, p.table_id DESC LIMIT 20"
        )
        board = (
            f"{explain} SELECT p.table_id FROM player_games p JOIN game_tables t ON t.id = "
            "p.table_id WHERE p.game = 'cafe' AND p.players = 1 AND p.score IS NOT NULL AND "
            "p.left_game = false AND t.private = false ORDER BY p.score DESC, p.finished_at "
            "LIMIT 20"
        )
        for name, sql in (("history page", history), ("high scores", board)):
            rows = (await conn.execute(sa.text(sql))).all()
            print(f"  plan of the {name}:")
            for row in rows:
                print("    " + " | ".join(str(x) for x in row if x is not None))


async def run(url: str, tables: int, people: int) -> None:
    storage = open_storage(url)
    assert isinstance(storage, SqlStorage)
    await storage.migrate()
    try:
        started = time.perf_counter()
        await fill(storage, tables, people, 1)
        print(f"  filled {tables:,} tables in {time.perf_counter() - started:.1f} s")
        user = 7
        _, total = await storage.player_history(user, None, limit=1)
        print(f"  player {user} sat at {total} tables")
        await timed("history page 1 (20) + count", lambda: storage.player_history(user, 1))
        await timed(
            "history page 10 (20) + count", lambda: storage.player_history(user, 1, offset=180)
        )
        await timed("results per game", lambda: storage.player_stats(user))
        await timed("high scores (top 20)", lambda: storage.high_scores("cafe"))
        await plans(storage, user)
    finally:
        await storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=2_000)
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="sqlite")
    parser.add_argument("--sqlite", default="/tmp/players-bench.db")
    parser.add_argument(
        "--postgresql", default="postgresql://postgres@127.0.0.1:5432/test", help="a database"
    )
    args = parser.parse_args()
    if args.db in ("sqlite", "both"):
        import pathlib

        for suffix in ("", "-wal", "-shm"):
            pathlib.Path(args.sqlite + suffix).unlink(missing_ok=True)
        print(f"SQLite ({args.sqlite})")
        asyncio.run(run(f"sqlite:///{args.sqlite}", args.tables, args.users))
    if args.db in ("postgresql", "both"):
        asyncio.run(run_postgres(args.postgresql, args.tables, args.users))


async def run_postgres(base: str, tables: int, people: int) -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' schema helpers
    from tests.server.storage.helpers import create_postgres_schema, drop_postgres_schema

    url = await create_postgres_schema(base, prefix="bench_players")
    print(f"PostgreSQL (a fresh schema of {base})")
    try:
        await run(url, tables, people)
    finally:
        await drop_postgres_schema(base, url)


if __name__ == "__main__":
    main()
