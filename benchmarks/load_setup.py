"""The server's CPU to set up a game, as `load.py`'s clients set up each new table: two
guests (`POST /api/guest`), the table made, joined and started (three more requests), and
both players' WebSockets opened, each with its first snapshot.

    python3 benchmarks/load_setup.py [--tables 200] [--concurrency 20] [--repeat 3]

In `load.py`'s closed loop every game that ends is followed by such a set-up, so its "server
ms/move" is the moves' CPU plus the set-ups' spread over the moves: at 200 tables on a quiet
machine about 200 games end in 20 s (about 90 moves each), and the set-ups are a fifth of the
server's CPU (docs/server.md, "The hot path, fifth pass"). This prints the server's CPU per
set-up (user + system from /proc, the server alone in its process), so that a change of the
HTTP layer can be measured apart from the moves; run another checkout's code (or another
uvicorn HTTP parser) with `PYTHONPATH=...`, alternating, in the same window.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.load import _process_cpu, _set_up
from tests.server.live import ServerProcess

GAMES = ("cafe", "coffee-rush")


async def _set_up_all(base: str, tables: int, concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(n: int) -> None:
        async with gate:
            sockets, first = await _set_up(base, GAMES[n % 2])
            assert all(message["type"] == "snapshot" for message in first), first
            for ws in sockets:
                await ws.close()

    await asyncio.gather(*(one(n) for n in range(tables)))


def run(tables: int, concurrency: int) -> float:
    """The server's CPU (ms) per game set up, over `tables` set-ups after a warm-up."""
    with TemporaryDirectory() as folder:
        server = ServerProcess(
            f"sqlite:///{Path(folder) / 'setup.db'}",
            Path(folder) / "server.log",
            extra_env={"COFFEETABLE_AUTH_BURST": "100000", "COFFEETABLE_TABLE_BURST": "100000"},
        )
        server.start()
        try:
            assert server.proc is not None
            asyncio.run(_set_up_all(server.url, concurrency, concurrency))  # warm-up
            before = sum(_process_cpu(server.proc.pid))
            asyncio.run(_set_up_all(server.url, tables, concurrency))
            used = sum(_process_cpu(server.proc.pid)) - before
        finally:
            server.stop()
    return 1000 * used / tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs = []
    for r in range(args.repeat):
        runs.append(run(args.tables, args.concurrency))
        load = os.getloadavg()[0]
        print(f"run {r + 1}: server CPU {runs[-1]:.2f} ms per set-up (load average {load:.1f})")
    print(f"median: server CPU {statistics.median(runs):.2f} ms per set-up")


if __name__ == "__main__":
    main()
