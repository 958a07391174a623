"""Load test of the game server on loopback: N concurrent tables of both games, played by
client processes over WebSockets, with SQLite and with PostgreSQL.

    python3 benchmarks/load.py [--tables 200] [--seconds 30] [--clients 2] [--nodes N]
                               [--rate MOVES_PER_S] [--db sqlite|postgresql|both]
                               [--repeat N] [--profile FOLDER] [--no-deflate]

Each table seats two guests driven by the same client; every move is a random legal action
of the seat that may act. Latency is measured from sending an `act` to receiving the
`update` that carries it (the server stores the move before it sends that update). Half the
tables play Café (2 players, simultaneous phase), half Coffee Rush (2 players). Prints moves/s,
latency percentiles, and the CPU time the server and the clients used per move, per database.

Two kinds of load:

- closed loop (the default): each table sends its next move as soon as the previous update
  arrives. This measures the server's capacity (moves/s at saturation). Its latency is not a
  service figure: with N tables always waiting, latency = N / throughput (Little's law).
- paced (`--rate R`): the tables together aim at R moves/s (each table R/N, with a random
  phase), like people who think between moves. The latency percentiles at a rate the server
  sustains are the service figures (the issue's target: 500 moves/s, p99 < 100 ms, 200 tables).

The server runs in its own process (`coffeetable serve`), so on a 2-core machine the server
and the clients share the cores; the figures are for the whole loop on one machine. The CPU
columns say how the cores were shared: `server ms/move` is the server process's CPU time
(user + system, from /proc) in the timed window divided by the moves; `client ms/move` the
same for all client processes together. `--profile FOLDER` records the server and the first
client process with py-spy during the timed window (FOLDER/server-DB.txt and client-DB.txt:
collapsed stacks of the thread holding the GIL; py-spy must be installed).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import multiprocessing
import os
import random
import resource
import shutil
import ssl
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import orjson
from tests.server.live import ServerProcess
from websockets.asyncio.client import connect

from coffeetable.server.auth import SESSION_COOKIE

_TICKS = os.sysconf("SC_CLK_TCK")
#: Whether the clients offer permessage-deflate, as browsers do (`--no-deflate` turns it off).
DEFLATE = True
#: Seconds between the clients' keepalive pings (websockets' default; None: no pings, as
#: `load_instructions.py` wants, whose count must not follow the wall clock).
PING_INTERVAL: float | None = 20.0


def _loads(raw: str | bytes) -> Any:
    return orjson.loads(raw)


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context for every HTTP client of the process: httpx would load the CA
    certificates for each new client (unused on loopback), which cost the load clients more
    CPU than all their moves."""
    return ssl.create_default_context()


async def _guest(http: httpx.AsyncClient) -> str:
    r = await http.post("/api/guest")
    r.raise_for_status()
    return r.cookies[SESSION_COOKIE]


async def _table(
    base: str | list[str],
    game: str,
    rng: random.Random,
    first: Any,
    clock: dict[str, float],
    out: dict[str, Any],
) -> None:
    """One table slot: its first game (set up before the clock started), then game after
    game until the time is up."""
    sockets, latest = first
    pace = clock["interval"] * rng.random() if clock["interval"] else 0.0
    slot = {"next": clock["start"] + pace}
    while True:
        over = await _play(sockets, latest, rng, clock, slot, out)
        if not over:
            # time is up: the sockets close once every client has stopped (closing them now
            # would load the server while other tables are still being timed)
            out["open"].extend(sockets)
            return
        for ws in sockets:
            await ws.close()
        if time.monotonic() >= clock["stop_at"]:
            return
        sockets, latest = await _set_up(base, game)


async def _set_up(bases: str | list[str], game: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """Two guests at a new started table, both connected: (sockets, first snapshots). With
    several nodes (`bases`), the table is made through a random one, and its two players
    connect to two different nodes (what the bus must carry)."""
    if isinstance(bases, list):
        first = random.randrange(len(bases))
        base = bases[first]
        socket_bases = [base, bases[(first + 1) % len(bases)]]
    else:
        base = bases
        socket_bases = [base, base]
    async with (
        httpx.AsyncClient(base_url=base, timeout=120, verify=_tls()) as a,
        httpx.AsyncClient(base_url=base, timeout=120, verify=_tls()) as b,
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
    sockets = []
    for token, node in zip((ta, tb), socket_bases, strict=True):
        ws = await connect(
            f"{node.replace('http://', 'ws://')}/ws/tables/{tid}",
            additional_headers={"Cookie": f"{SESSION_COOKIE}={token}"},
            max_size=8 * 1024 * 1024,
            open_timeout=120,
            compression="deflate" if DEFLATE else None,
            ping_interval=PING_INTERVAL,
        )
        sockets.append(ws)
    return sockets, [_loads(await ws.recv()) for ws in sockets]


async def _play(
    sockets: list[Any],
    latest: list[dict[str, Any]],
    rng: random.Random,
    clock: dict[str, float],
    slot: dict[str, float],
    out: dict[str, Any],
) -> bool:
    """Play the table's game until it ends (True) or the time is up (False)."""
    stop_at = clock["stop_at"]
    while time.monotonic() < stop_at:
        view = latest[0]["view"]
        if view["over"]:
            out["games"] += 1
            return True
        movers = [i for i in range(2) if latest[i]["legal"]]
        if not movers:
            # wait for whatever comes next
            i = 0
            latest[i] = await _next_state(sockets[i], latest[i])
            latest[1 - i] = await _next_state(sockets[1 - i], latest[1 - i])
            continue
        if clock["interval"]:
            # paced: this table's next move is due at slot["next"] (never in a burst to
            # catch up: a late table just goes on)
            now = time.monotonic()
            if slot["next"] > now:
                await asyncio.sleep(slot["next"] - now)
                if time.monotonic() >= stop_at:
                    return False
            slot["next"] = max(slot["next"] + clock["interval"], time.monotonic())
        i = movers[0]
        version = latest[i]["version"]
        action = rng.choice(latest[i]["legal"])
        sent = time.perf_counter()
        await sockets[i].send(_dumps({"type": "act", "version": version, "action": action}))
        while True:
            message = _loads(await sockets[i].recv())
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
    return False


async def _next_state(ws: Any, current: dict[str, Any]) -> dict[str, Any]:
    while True:
        message = _loads(await ws.recv())
        if message["type"] in ("update", "snapshot"):
            return message  # type: ignore[no-any-return]


async def _catch_up(ws: Any, current: dict[str, Any], version: int) -> dict[str, Any]:
    while current["version"] < version:
        message = _loads(await ws.recv())
        if message["type"] in ("update", "snapshot"):
            current = message
    return current


def _cpu_seconds() -> tuple[float, float]:
    """(user, system) CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def _client(
    base: str | list[str],
    tables: int,
    first: int,
    seconds: float,
    interval: float,
    ready: Any,
    finished: Any,
    result: Any,
    deflate: bool = True,
) -> None:
    global DEFLATE
    DEFLATE = deflate
    out: dict[str, Any] = {
        "moves": 0, "games": 0, "errors": 0, "latency": [], "seconds": 0.0, "open": []
    }  # fmt: skip

    async def main() -> None:
        games = ["cafe" if (first + k) % 2 == 0 else "coffee-rush" for k in range(tables)]
        # set every table up first (not timed), a few at a time
        limit = asyncio.Semaphore(20)

        async def one(game: str) -> Any:
            async with limit:
                for attempt in range(5):
                    try:
                        return await _set_up(base, game)
                    except (httpx.TransportError, OSError):
                        # a loaded machine's server may drop a set-up connection (not
                        # timed): a new table is set up instead
                        if attempt == 4:
                            raise
                        await asyncio.sleep(0.5 * (attempt + 1))
                return None

        tables_ready = await asyncio.gather(*(one(g) for g in games))
        # what the set-up made lives to the end: out of the cycle collector's way, whose full
        # passes would pause this client and show up as server latency
        gc.freeze()
        await asyncio.to_thread(ready.wait)  # every client process starts at once
        cpu = _cpu_seconds()
        start = time.monotonic()
        clock = {"start": start, "stop_at": start + seconds, "interval": interval}
        await asyncio.gather(
            *(
                _table(base, g, random.Random(first + k), tables_ready[k], clock, out)
                for k, g in enumerate(games)
            )
        )
        out["seconds"] = time.monotonic() - start
        user, system = _cpu_seconds()
        out["cpu"] = user - cpu[0] + system - cpu[1]
        out["cpu_system"] = system - cpu[1]
        await asyncio.to_thread(finished.wait)  # every client has stopped: now close
        for ws in out.pop("open"):
            await ws.close()

    try:
        asyncio.run(main())
    except BaseException:
        # a client that failed must not leave the others (and the parent) waiting for it
        ready.abort()
        finished.abort()
        raise
    result.put(out)


def _run_queue_wait(pid: int) -> float:
    """Seconds the process's threads have waited, runnable, for a CPU (/proc schedstat):
    on a machine shared with other work, the time the server could not run."""
    total = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):  # a thread that ended
            total += int((task / "schedstat").read_text().split()[1]) / 1e9
    return total


def _nodes_cpu(pids: list[int]) -> tuple[float, float]:
    """(user, system) CPU seconds of all the server processes together."""
    times = [_process_cpu(p) for p in pids]
    return sum(t[0] for t in times), sum(t[1] for t in times)


def _redis_url() -> str:
    """The machine's Redis, a database of the benchmark's own, emptied."""
    import redis

    url = os.environ.get("COFFEETABLE_BENCH_REDIS", "redis://127.0.0.1:6379/8")
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    return url


def _process_cpu(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / _TICKS, int(fields[12]) / _TICKS


def run(
    db_url: str,
    tables: int,
    seconds: float,
    clients: int,
    rate: float | None = None,
    profile: Path | None = None,
    deflate: bool = True,
    nodes: int = 0,
) -> dict[str, Any]:
    """One run. `nodes` 0: one server alone (no Redis); N: N nodes of a site on Redis."""
    clients = max(1, min(clients, tables))
    interval = tables / rate if rate else 0.0
    with TemporaryDirectory() as folder:
        servers = [
            ServerProcess(
                db_url,
                Path(folder) / f"server{k}.log",
                extra_env={
                    "COFFEETABLE_AUTH_BURST": "100000",
                    "COFFEETABLE_TABLE_BURST": "100000",
                    "COFFEETABLE_SOCKETS_PER_ADDRESS": "100000",
                },
                extra_args=["--redis", _redis_url()] if nodes else [],
            )
            for k in range(max(1, nodes))
        ]
        for server in servers:
            server.start()
        pids = [s.proc.pid for s in servers if s.proc is not None]
        pid = pids[0]
        bases: str | list[str] = [s.url for s in servers] if nodes else servers[0].url
        try:
            queue: Any = multiprocessing.Queue()
            ready: Any = multiprocessing.Barrier(clients + 1)
            finished: Any = multiprocessing.Barrier(clients + 1)
            per = [tables // clients + (1 if k < tables % clients else 0) for k in range(clients)]
            procs = []
            first = 0
            for n in per:
                p = multiprocessing.Process(
                    target=_client,
                    args=(bases, n, first, seconds, interval, ready, finished, queue, deflate),
                )
                first += n
                p.start()
                procs.append(p)
            try:
                ready.wait()  # the tables are set up: the timed window starts
            except threading.BrokenBarrierError:
                raise SystemExit("a client process failed while setting up its tables") from None
            before = _nodes_cpu(pids)
            waited = sum(_run_queue_wait(p) for p in pids)
            collector = _collector_stats(servers)
            spies = []
            if profile is not None:  # the server, and the first client process
                for who, target in (("server", pid), ("client", procs[0].pid)):
                    spies.append(
                        subprocess.Popen(
                            [
                                "py-spy", "record", "--pid", str(target), "--rate", "200",
                                "--duration", str(int(seconds)), "--format", "raw", "--gil",
                                "--output", str(profile.with_name(f"{who}-{profile.name}")),
                            ],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                        )
                    )  # fmt: skip
            finished.wait()  # every client has stopped playing (none has closed yet)
            user, system = _nodes_cpu(pids)
            waited = sum(_run_queue_wait(p) for p in pids) - waited
            collector = _collector_window(collector, _collector_stats(servers))
            outs = [queue.get() for _ in procs]
            server_cpu, server_system = user + system - sum(before), system - before[1]
            for p in procs:
                p.join()
            for spy in spies:
                spy.wait(seconds + 60)
        finally:
            for server in servers:
                server.stop()
    return summary(tables, outs, server_cpu, server_system, waited) | collector


def _collector_stats(servers: list[ServerProcess]) -> list[dict[str, Any]]:
    """Each server's cycle collector figures (`GET /api/health`, server/collector.py; none
    from a server older than them, as when `PYTHONPATH` runs another checkout's code)."""
    health = [httpx.get(f"{s.url}/api/health", timeout=30).json() for s in servers]
    return [h["collector"] for h in health] if all("collector" in h for h in health) else []


def _collector_window(
    before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> dict[str, float]:
    """The collector's passes and sweeps in the timed window, all servers together, and how
    many of them stood the event loop still for 20 ms or more."""
    if not before or not after:
        return {}
    from coffeetable.server.collector import PAUSE_BUCKETS_MS, PAUSE_NAMES

    slow = PAUSE_NAMES[PAUSE_BUCKETS_MS.index(20) + 1 :]  # the buckets from 20 ms up
    window = {"gc_passes": 0.0, "gc_sweeps": 0.0, "gc_pauses_20ms": 0.0, "gc_ms": 0.0}
    for b, a in zip(before, after, strict=True):
        window["gc_passes"] += a["passes"] - b["passes"]
        window["gc_sweeps"] += a["sweeps"] - b["sweeps"]
        window["gc_pauses_20ms"] += sum(a["pauses"][k] - b["pauses"][k] for k in slow)
        window["gc_ms"] += a["pass_ms_total"] - b["pass_ms_total"]
    return window


def summary(
    tables: int,
    outs: list[dict[str, Any]],
    server_cpu: float,
    server_system: float,
    waited: float,
) -> dict[str, Any]:
    """A run's figures from what its client processes counted (`moves`, `games`, `errors`,
    `latency` in seconds, `seconds`, `cpu`, `cpu_system`) and the server's CPU seconds in the
    timed window (also those of the peer server in `load_compare.py`)."""
    latency = sorted(x for o in outs for x in o["latency"])
    moves = sum(o["moves"] for o in outs)
    q = statistics.quantiles(latency, n=100) if len(latency) > 100 else [float("nan")] * 99
    window = max(o["seconds"] for o in outs)
    client_cpu = sum(o["cpu"] for o in outs)
    client_system = sum(o["cpu_system"] for o in outs)
    return {
        "tables": tables,
        "moves": moves,
        "games_finished": sum(o["games"] for o in outs),
        "errors": sum(o["errors"] for o in outs),
        "seconds": window,
        "moves_per_second": moves / window,
        "p50_ms": 1000 * q[49],
        "p99_ms": 1000 * q[98],
        "server_cpu_ms_per_move": 1000 * server_cpu / max(moves, 1),
        "client_cpu_ms_per_move": 1000 * client_cpu / max(moves, 1),
        "server_cpu_share": server_cpu / window,  # cores busy with the server
        "client_cpu_share": client_cpu / window,
        "server_system_fraction": server_system / max(server_cpu, 1e-9),  # in the kernel
        "server_waited_share": waited / window,  # runnable but without a CPU
        "client_system_fraction": client_system / max(client_cpu, 1e-9),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument(
        "--rate", type=float, default=None, help="paced load: moves/s for all tables together"
    )
    parser.add_argument(
        "--no-deflate",
        action="store_true",
        help="clients do not offer permessage-deflate (browsers do)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs per database (and medians)")
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument(
        "--nodes",
        type=int,
        default=0,
        help="0 (default): one server alone; N: N nodes of a site on PostgreSQL and Redis, "
        "each table's two players on two different nodes",
    )
    parser.add_argument(
        "--profile", type=Path, default=None, help="folder for py-spy profiles of the server"
    )
    args = parser.parse_args()
    if args.tables > 1000 or args.seconds > 600 or (args.rate or 0) > 10000 or args.repeat > 10:
        parser.error(
            "a load test is bounded: at most 1000 tables, 600 seconds, 10000 moves/s, 10 runs"
        )
    if not 0 <= args.nodes <= 8:
        parser.error("--nodes is 0 (one server alone) to 8")
    if args.nodes and args.db != "postgresql":
        args.db = "postgresql"  # several nodes share one PostgreSQL database
    if args.profile is not None:
        if shutil.which("py-spy") is None:
            parser.error("--profile needs py-spy (pip install py-spy)")
        args.profile.mkdir(parents=True, exist_ok=True)
    urls = []
    with TemporaryDirectory() as folder:
        if args.db in ("sqlite", "both"):
            urls.append(("sqlite", f"sqlite:///{folder}/load.db"))
        if args.db in ("postgresql", "both"):
            urls.append(("postgresql", _postgres_url()))
        for name, url in urls:
            results = []
            for k in range(args.repeat):
                profile = args.profile / f"{name}.txt" if args.profile else None
                load = os.getloadavg()[0]  # what else the machine was doing
                r = run(
                    url.replace("load.db", f"load-{k}.db"),
                    args.tables,
                    args.seconds,
                    args.clients,
                    args.rate,
                    profile,
                    deflate=not args.no_deflate,
                    nodes=args.nodes,
                )
                r["load"] = load
                results.append(r)
                label = f"{name} {args.nodes} nodes" if args.nodes else f"{name} alone"
                print(_line(label, args.rate, r), flush=True)
            if args.repeat > 1:
                middle = {
                    key: statistics.median(r[key] for r in results)
                    for key in results[0]
                    if isinstance(results[0][key], int | float)
                }
                label = f"{name} {args.nodes} nodes" if args.nodes else f"{name} alone"
                print(_line(f"{label} median", args.rate, middle), flush=True)


def _line(name: str, rate: float | None, r: dict[str, Any]) -> str:
    return (
        f"{name:18s} tables {r['tables']:.0f}  "
        + (f"rate {rate:.0f}  " if rate else "closed loop  ")
        + f"moves {r['moves']:.0f}  {r['moves_per_second']:.0f} moves/s  "
        f"p50 {r['p50_ms']:.1f} ms  p99 {r['p99_ms']:.1f} ms  "
        f"server {r['server_cpu_ms_per_move']:.2f} ms/move "
        f"({r['server_cpu_share']:.2f} cores, "
        f"{100 * r['server_system_fraction']:.0f}% system, "
        f"waited for a CPU {100 * r['server_waited_share']:.0f}% of the time)  "
        f"clients {r['client_cpu_ms_per_move']:.2f} ms/move "
        f"({r['client_cpu_share']:.2f} cores, "
        f"{100 * r['client_system_fraction']:.0f}% system)  "
        f"games finished {r['games_finished']:.0f}  errors {r['errors']:.0f}  "
        f"load average {r['load']:.1f}"
        + (
            f"  collector {r['gc_passes']:.0f} passes {r['gc_ms']:.0f} ms, "
            f"{r['gc_pauses_20ms']:.0f} of 20 ms or more, {r['gc_sweeps']:.0f} sweeps"
            if "gc_passes" in r
            else ""
        )
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
