"""The server's CPU per move in process, without sockets: what `MatchService.act` costs (the
rules, the views, the log line, JSON, storing the move) on a SQLite file, for Café and
Coffee Rush tables with two seated clients whose queues are drained like a socket's sender
would.

    python3 benchmarks/load_move.py [--tables 20] [--moves 2000] [--repeat 5] [--db sqlite|memory]

Each repeat plays `--moves` moves round-robin over the tables (new games as games end), each
a random legal move of a seat to act picked from the legal list its last message carried, as
the load clients do; it prints the CPU time (`time.process_time`) of `act` per move (the
clients decoding their messages is not timed), per game and for both, and the median over
the repeats. It runs on one core with no network, so it is far
less sensitive to a loaded machine than `load.py`; the frames and loopback writes (about a
fifth of a move over WebSockets) are not in it. Run it against another checkout's code with
`PYTHONPATH=OTHER/src` to compare, alternating, in the same window.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson

from coffeetable.server.bus import MemoryBus
from coffeetable.server.livetable import Client, LiveTable, encode_json
from coffeetable.server.lobby import LobbyService
from coffeetable.server.match import MatchService
from coffeetable.server.storage import Seat, open_storage

GAMES = ("cafe", "coffee-rush")


def _latest(client: Client) -> dict[str, Any] | None:
    """The client's last message (its queue drained, each item decoded as a client would)."""
    last = None
    while not client.queue.empty():
        item = client.queue.get_nowait()
        if item is not None:
            last = orjson.loads(item if isinstance(item, str) else encode_json(item))
    return last


class Table:
    def __init__(self, live: LiveTable, clients: list[Client]) -> None:
        self.live = live
        self.clients = clients
        self.latest: dict[int, dict[str, Any]] = {}

    def read(self) -> None:
        for client in self.clients:
            message = _latest(client)
            if message is not None and client.seat is not None:
                self.latest[client.seat] = message


async def _new_table(
    storage: Any, match: MatchService, lobby: LobbyService, game: str, n: int
) -> Table:
    users = [await storage.create_user(f"p{n}x{i}", None, is_guest=True) for i in range(2)]
    table = await storage.create_table(
        f"t{n}",
        game=game,
        seed=n,
        seats=[Seat("human", u.id) for u in users],
        created_by=users[0].id,
    )
    await lobby.start(table.id, users[0])
    live = await match.live(table.id)
    clients = []
    for seat, user in enumerate(users):
        client = Client(user=user, seat=seat)
        live.clients.add(client)
        client.send(match.snapshot(live, client))
        clients.append(client)
    out = Table(live, clients)
    out.read()
    return out


async def run(tables: int, moves: int, db: str, rng: random.Random) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'moves.db'}" if db == "sqlite" else "sqlite://"
        storage = open_storage(url)
        await storage.migrate()
        try:
            match = MatchService(storage, MemoryBus())
            lobby = LobbyService(match)
            made = 0
            live_tables = []
            for i in range(tables):
                live_tables.append(await _new_table(storage, match, lobby, GAMES[i % 2], made))
                made += 1
            cpu = {game: 0.0 for game in GAMES}
            count = {game: 0 for game in GAMES}
            played = 0
            while played < moves:
                for index, table in enumerate(live_tables):
                    live = table.live
                    assert live.state is not None
                    if live.state.is_over():
                        live_tables[index] = await _new_table(
                            storage, match, lobby, live.meta.game, made
                        )
                        made += 1
                        continue
                    seat = min(live.state.current_seats())
                    text = rng.choice(table.latest[seat]["legal"])
                    client = table.clients[seat]
                    started = time.process_time()
                    await match.act(live, client, live.meta.version, text)
                    cpu[live.meta.game] += time.process_time() - started
                    table.read()  # the clients' part, not timed
                    count[live.meta.game] += 1
                    played += 1
        finally:
            await storage.close()
    out = {game: 1000 * cpu[game] / max(count[game], 1) for game in GAMES}
    out["both"] = 1000 * sum(cpu.values()) / max(sum(count.values()), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--db", choices=("sqlite", "memory"), default="sqlite")
    args = parser.parse_args()
    runs = []
    for r in range(args.repeat):
        figures = asyncio.run(run(args.tables, args.moves, args.db, random.Random(r)))
        runs.append(figures)
        print(
            f"run {r + 1}: CPU per move "
            + "  ".join(f"{k} {v:.3f} ms" for k, v in figures.items()),
            flush=True,
        )
    print(
        "median: CPU per move "
        + "  ".join(f"{k} {statistics.median(f[k] for f in runs):.3f} ms" for k in (*GAMES, "both"))
    )


if __name__ == "__main__":
    main()
