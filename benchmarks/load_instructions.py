"""The whole server's instructions a move, counted: the real server (`coffeetable serve`:
uvicorn, the app, SQLite, permessage-deflate) run under callgrind, played over loopback
WebSockets by a bounded, seeded client, twice, with two numbers of moves; the difference
divided by the difference in moves is what a move costs the server process, its start, the
tables' set-ups and its stop cancelled out.

    python3 benchmarks/load_instructions.py [--tables 20] [--moves 10,40] [--repeat 1]
                                            [--seed 0] [--parts] [--keep FOLDER]

Each run: the server starts under `valgrind --tool=callgrind` (the real interpreter,
`PYTHONHASHSEED=0`, one thread for BLAS, `PYTHONPATH` this checkout's `src`), seated by
`_seeded_serve.py` so that its tables' seeds and ids come from `--seed` (the same games every
run). The client (this process, not counted) sets the tables up one after another as
`load.py` does (two guests, the table made, joined and started, both sockets opened with
deflate), then plays every table at once in a closed loop, `load.py`'s way: a random legal
move (a generator seeded per table) of the first seat that may act, the next as soon as its
update arrives, until the table has played its number of moves. Then it closes the sockets
and stops the server (SIGTERM), and callgrind writes its counts.

What it prints, a move: the instructions of the whole server process; of them, those of the
cycle collector's passes (`gc_collect_main`, inclusive), which follow the wall clock (a pass
every 0.1 s, and under callgrind a move takes ~50 times as long), so they are reported apart
and left out of the figure to compare ("without the collector"); with `--parts`, the
inclusive counts of a few C functions (deflate, inflate, SQLite, orjson, pydantic, the
event loop's socket writes). Instructions in the kernel (the system calls) are not counted.

The count does not depend on the machine's load; what moves it from run to run is what
depends on the wall clock (the collector, other timers, how many frames the event loop finds
ready at once): `--repeat 3` shows that spread. Needs valgrind (and callgrind_annotate for
`--parts`). A run of 20 tables × 40 moves takes several minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
import load
from load import _catch_up, _loads, _next_state, _set_up
from tests.server.live import free_port

ROOT = Path(__file__).resolve().parent.parent

#: C functions whose inclusive counts `--parts` reports (callgrind's names).
PARTS = {
    "collector": "gc_collect_main",
    "deflate": "deflate",
    "inflate": "inflate",
    "sqlite": "sqlite3_step",
    "orjson dumps": "dumps",
    "orjson loads": "loads",
}


def _python() -> str:
    """This interpreter, by the path it was started with: a virtual environment's `python3`
    is a link to the real binary, which callgrind runs, and the path finds the environment's
    packages (a pyenv shim, a shell script, would not do)."""
    return sys.executable


async def _play_table(
    sockets: list[Any], latest: list[dict[str, Any]], rng: random.Random, moves: int
) -> tuple[int, bool]:
    """Play `moves` moves at one table (fewer if its game ends): (moves played, over)."""
    played = 0
    while played < moves:
        if latest[0]["view"]["over"]:
            return played, True
        movers = [i for i in range(2) if latest[i]["legal"]]
        if not movers:
            latest[0] = await _next_state(sockets[0], latest[0])
            latest[1] = await _next_state(sockets[1], latest[1])
            continue
        i = movers[0]
        version = latest[i]["version"]
        action = rng.choice(latest[i]["legal"])
        await sockets[i].send(f'{{"type":"act","version":{version},"action":{_quote(action)}}}')
        while True:
            message = _loads(await sockets[i].recv())
            if message["type"] == "error":
                raise RuntimeError(f"the server refused a move: {message}")
            if message["type"] in ("update", "snapshot"):
                latest[i] = message
                if message["version"] >= version + 1:
                    break
        latest[1 - i] = await _catch_up(sockets[1 - i], latest[1 - i], latest[i]["version"])
        played += 1
    return played, False


def _quote(text: str) -> str:
    import orjson

    return orjson.dumps(text).decode()


async def _drive(base: str, tables: int, moves: int, seed: int) -> dict[str, int]:
    load.PING_INTERVAL = None  # no keepalive pings either way: they follow the wall clock
    games = ["cafe" if k % 2 == 0 else "coffee-rush" for k in range(tables)]
    ready = []
    for game in games:  # one after another: the seeded server deals them in this order
        ready.append(await _set_up(base, game))
    results = await asyncio.gather(
        *(
            _play_table(sockets, latest, random.Random(seed * 100_003 + k), moves)
            for k, (sockets, latest) in enumerate(ready)
        )
    )
    for sockets, _ in ready:
        for ws in sockets:
            await ws.close()
    return {
        "moves": sum(played for played, _ in results),
        "over": sum(1 for _, over in results if over),
    }


def _total(out_file: Path) -> int:
    for line in out_file.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


def _inclusive(out_file: Path, names: list[str]) -> dict[str, int]:
    """Inclusive instructions of each C function named (summed over its objects)."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out_file)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = dict.fromkeys(names, 0)
    pattern = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+\S*?:(\S+) ")
    for line in text.splitlines():
        m = pattern.match(line + " ")
        if m and m.group(2) in found:
            found[m.group(2)] += int(m.group(1).replace(",", ""))
    return found


def run(
    tables: int, moves: int, seed: int, folder: Path, parts: bool, src: Path = ROOT / "src"
) -> dict[str, Any]:
    """One server under callgrind, `tables` tables × `moves` moves, running the code in
    `src`: its counts."""
    port = free_port()
    out_file = folder / f"callgrind.{tables}x{moves}.{time.time_ns()}.out"
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "OPENBLAS_NUM_THREADS": "1",
        "PYTHONPATH": str(src),
        "PYTHONUNBUFFERED": "1",
        "COFFEETABLE_AUTH_BURST": "100000",
        "COFFEETABLE_TABLE_BURST": "100000",
        "COFFEETABLE_OPEN_TABLES": "100000",
        "COFFEETABLE_SOCKETS_PER_ADDRESS": "100000",
    }
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
        "--dump-instr=no", "--trace-children=no", "-q",
        _python(), str(ROOT / "benchmarks" / "_seeded_serve.py"), str(seed),
        "serve", "--port", str(port), "--db", f"sqlite:///{folder}/server-{port}.db",
        "--bot-workers", "1",
    ]  # fmt: skip
    log = open(folder / f"server-{port}.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 900
        while True:
            if proc.poll() is not None:
                raise RuntimeError((folder / f"server-{port}.log").read_text()[-3000:])
            try:
                if httpx.get(f"{base}/api/games", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start under callgrind")
            time.sleep(1)
        played = asyncio.run(_drive(base, tables, moves, seed))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(900)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
        log.close()
    out = {"instructions": _total(out_file), **played}
    if parts:
        out["parts"] = _inclusive(out_file, sorted(set(PARTS.values())))
    else:
        out["parts"] = _inclusive(out_file, [PARTS["collector"]])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument(
        "--moves", default="10,40", help="two numbers of moves a table: SHORT,LONG (10,40)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs (and medians)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parts", action="store_true", help="inclusive counts of C parts")
    parser.add_argument("--keep", type=Path, default=None, help="keep callgrind's files here")
    parser.add_argument(
        "--src",
        type=Path,
        default=ROOT / "src",
        help="the server code to run (another checkout's src: a worktree of the commit to "
        "measure, so that editing this one does not change a run under way)",
    )
    args = parser.parse_args()
    short, long = (int(x) for x in args.moves.split(","))
    if not (0 <= short < long <= 500 and 1 <= args.tables <= 200 and 1 <= args.repeat <= 10):
        parser.error("bounded: 0 <= SHORT < LONG <= 500 moves, 1..200 tables, 1..10 pairs")
    figures = []
    with TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for r in range(args.repeat):
            a = run(args.tables, short, args.seed, folder, args.parts, args.src)
            b = run(args.tables, long, args.seed, folder, args.parts, args.src)
            moves = b["moves"] - a["moves"]
            whole = (b["instructions"] - a["instructions"]) / moves
            gc_name = PARTS["collector"]
            collector = (b["parts"][gc_name] - a["parts"][gc_name]) / moves
            figure = {"whole": whole, "collector": collector, "without": whole - collector}
            for label, name in PARTS.items() if args.parts else ():
                figure[label] = (b["parts"][name] - a["parts"][name]) / moves
            figures.append(figure)
            print(
                f"pair {r + 1}: {a['moves']} and {b['moves']} moves "
                f"(games over {a['over']}, {b['over']}): a move "
                + "  ".join(f"{k} {v / 1e6:.4f} M" for k, v in figure.items()),
                flush=True,
            )
    if args.repeat > 1:
        print(
            "median: a move "
            + "  ".join(
                f"{k} {statistics.median(f[k] for f in figures) / 1e6:.4f} M" for k in figures[0]
            )
        )


if __name__ == "__main__":
    main()
