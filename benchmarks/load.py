"""Load test of the game server on loopback: N concurrent tables of both games, played by
client processes over WebSockets, with SQLite and with PostgreSQL.

    python3 benchmarks/load.py [--tables 200] [--seconds 30] [--clients 1] [--db sqlite|postgresql|both]

Each table seats two guests driven by the same client; every move is a random legal action
of the seat that may act, sent as soon as the previous update arrives. Latency is measured
from sending an `act` to receiving the `update` that carries it (the server stores the move
before it sends that update). Half the tables play Café (2 players, simultaneous phase), half
Coffee Rush (2 players). Prints moves/s and latency percentiles per database.

The server runs in its own process (`coffeetable serve`), so on a 2-core machine the server
and the clients share the cores; the figures are for the whole loop on one machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
from tests.server.live import ServerProcess
from websockets.asyncio.client import connect

from coffeetable.server.auth import SESSION_COOKIE


async def _guest(http: httpx.AsyncClient) -> str:
    r = await http.post("/api/guest")
    r.raise_for_status()
    return r.cookies[SESSION_COOKIE]


async def _table(
    base: str,
    game: str,
    rng: random.Random,
    first: Any,
    clock: dict[str, float],
    out: dict[str, Any],
) -> None:
    """One table slot: its first game (set up before the clock started), then game after
    game until the time is up."""
    sockets, latest = first
    while True:
        await _play(sockets, latest, rng, clock["stop_at"], out)
        if time.monotonic() >= clock["stop_at"]:
            return
        sockets, latest = await _set_up(base, game)


async def _set_up(base: str, game: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """Two guests at a new started table, both connected: (sockets, first snapshots)."""
    async with (
        httpx.AsyncClient(base_url=base, timeout=120) as a,
        httpx.AsyncClient(base_url=base, timeout=120) as b,
    ):
        ta, tb = await _guest(a), await _guest(b)
        a.cookies.set(SESSION_COOKIE, ta)
        r = await a.post(
            "/api/tables", json={"game": game, "seats": [{"kind": "human"}, {"kind": "open"}]}
        )
        tid = r.json()["id"]
        b.cookies.set(SESSION_COOKIE, tb)
        await b.post(f"/api/tables/{tid}/join")
        await a.post(f"/api/tables/{tid}/start")
    ws_base = base.replace("http://", "ws://")
    sockets = []
    for token in (ta, tb):
        ws = await connect(
            f"{ws_base}/ws/tables/{tid}",
            additional_headers={"Cookie": f"{SESSION_COOKIE}={token}"},
            max_size=8 * 1024 * 1024,
            open_timeout=120,
        )
        sockets.append(ws)
    return sockets, [json.loads(await ws.recv()) for ws in sockets]


async def _play(
    sockets: list[Any],
    latest: list[dict[str, Any]],
    rng: random.Random,
    stop_at: float,
    out: dict[str, Any],
) -> None:
    try:
        while time.monotonic() < stop_at:
            view = latest[0]["view"]
            if view["over"]:
                out["games"] += 1
                return
            movers = [i for i in range(2) if latest[i]["legal"]]
            if not movers:
                # wait for whatever comes next
                i = 0
                latest[i] = await _next_state(sockets[i], latest[i])
                latest[1 - i] = await _next_state(sockets[1 - i], latest[1 - i])
                continue
            i = movers[0]
            version = latest[i]["version"]
            action = rng.choice(latest[i]["legal"])
            sent = time.perf_counter()
            await sockets[i].send(json.dumps({"type": "act", "version": version, "action": action}))
            while True:
                message = json.loads(await sockets[i].recv())
                if (
                    message["type"] == "update"
                    and message["move"]["seat"] == i
                    and message["version"] == version + 1
                ):
                    out["latency"].append(time.perf_counter() - sent)
                    out["moves"] += 1
                    latest[i] = message
                    break
                if message["type"] == "error":
                    out["errors"] += 1
                    break
                if message["type"] in ("update", "snapshot"):
                    latest[i] = message
            # the other seat sees the move too
            latest[1 - i] = await _catch_up(sockets[1 - i], latest[1 - i], latest[i]["version"])
    finally:
        for ws in sockets:
            await ws.close()


async def _next_state(ws: Any, current: dict[str, Any]) -> dict[str, Any]:
    while True:
        message = json.loads(await ws.recv())
        if message["type"] in ("update", "snapshot"):
            return message


async def _catch_up(ws: Any, current: dict[str, Any], version: int) -> dict[str, Any]:
    while current["version"] < version:
        message = json.loads(await ws.recv())
        if message["type"] in ("update", "snapshot"):
            current = message
    return current


def _client(base: str, tables: int, first: int, seconds: float, result: Any) -> None:
    out: dict[str, Any] = {"moves": 0, "games": 0, "errors": 0, "latency": [], "seconds": 0.0}

    async def main() -> None:
        games = ["cafe" if (first + k) % 2 == 0 else "coffee-rush" for k in range(tables)]
        # set every table up first (not timed), a few at a time
        limit = asyncio.Semaphore(20)

        async def one(game: str) -> Any:
            async with limit:
                return await _set_up(base, game)

        ready = await asyncio.gather(*(one(g) for g in games))
        start = time.monotonic()
        clock = {"stop_at": start + seconds}
        await asyncio.gather(
            *(
                _table(base, g, random.Random(first + k), ready[k], clock, out)
                for k, g in enumerate(games)
            )
        )
        out["seconds"] = time.monotonic() - start

    asyncio.run(main())
    result.put(out)


def run(db_url: str, tables: int, seconds: float, clients: int) -> dict[str, Any]:
    with TemporaryDirectory() as folder:
        server = ServerProcess(
            db_url, Path(folder) / "server.log", extra_env={"COFFEETABLE_AUTH_BURST": "100000"}
        )
        server.start()
        try:
            queue: Any = multiprocessing.Queue()
            per = [tables // clients + (1 if k < tables % clients else 0) for k in range(clients)]
            procs = []
            first = 0
            started = time.perf_counter()
            for n in per:
                p = multiprocessing.Process(
                    target=_client, args=(server.url, n, first, seconds, queue)
                )
                first += n
                p.start()
                procs.append(p)
            outs = [queue.get() for _ in procs]
            for p in procs:
                p.join()
            wall = time.perf_counter() - started
        finally:
            server.stop()
    latency = sorted(x for o in outs for x in o["latency"])
    moves = sum(o["moves"] for o in outs)
    q = statistics.quantiles(latency, n=100) if len(latency) > 100 else [float("nan")] * 99
    return {
        "tables": tables,
        "moves": moves,
        "games_finished": sum(o["games"] for o in outs),
        "errors": sum(o["errors"] for o in outs),
        "seconds": wall,
        "moves_per_second": moves / max(o["seconds"] for o in outs),
        "p50_ms": 1000 * q[49],
        "p99_ms": 1000 * q[98],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    args = parser.parse_args()
    if args.tables > 1000 or args.seconds > 600:
        parser.error("a load test is bounded: at most 1000 tables and 600 seconds")
    urls = []
    with TemporaryDirectory() as folder:
        if args.db in ("sqlite", "both"):
            urls.append(("sqlite", f"sqlite:///{folder}/load.db"))
        if args.db in ("postgresql", "both"):
            urls.append(("postgresql", _postgres_url()))
        for name, url in urls:
            r = run(url, args.tables, args.seconds, args.clients)
            print(
                f"{name:10s} tables {r['tables']}  moves {r['moves']}  "
                f"{r['moves_per_second']:.0f} moves/s  p50 {r['p50_ms']:.1f} ms  "
                f"p99 {r['p99_ms']:.1f} ms  games finished {r['games_finished']}  "
                f"errors {r['errors']}",
                flush=True,
            )


def _postgres_url() -> str:
    """A fresh schema in the local test database (dropped at exit)."""
    import atexit

    from tests.server.conftest import _drop_schema, _postgres_schema_url

    url, base, reason = _postgres_schema_url()
    if url is None:
        raise SystemExit(f"PostgreSQL is not reachable: {reason}")
    atexit.register(_drop_schema, base, url)
    return url


if __name__ == "__main__":
    main()
