"""The whole server's instructions a move, counted: the real server (`coffeetable serve`:
uvicorn, the app, SQLite, permessage-deflate) run under callgrind and played over loopback
WebSockets by a bounded, seeded client; callgrind's counters are dumped once the tables are
set up and have played a few moves, and again after a fixed number of moves more, so the
last dump holds exactly what those moves cost the server process: its start, the tables'
set-ups, the first moves and its stop are outside the window. (A dump after the start and
one after the set-ups give what a table's set-up costs, too.)

    python3 benchmarks/load_instructions.py [--tables 20] [--warm 10] [--moves 30]
                                            [--repeat 1] [--seed 0] [--parts]
                                            [--src PATH ...] [--keep FOLDER]

Each run: the server starts under `valgrind --tool=callgrind` (this interpreter, the real
binary behind the virtual environment's link, `PYTHONHASHSEED=0`, one thread for BLAS,
`PYTHONPATH` the `--src` tree), through `_seeded_serve.py`, so that its tables' seeds and
ids come from `--seed` (the same games in every run) and uvicorn sends no keepalive pings
(they follow the wall clock). The client (this process, not counted) sets the tables up one
after another as `load.py` does (two guests, the table made, joined and started, both
sockets opened with deflate, no pings either), then plays every table at once in a closed
loop, `load.py`'s way: a random legal move (a generator seeded per table) of the first seat
that may act, the next as soon as its update arrives. `callgrind_control --dump` (counters
written and zeroed) comes once the server has started, again once the tables are set up,
again once each has played `--warm` moves, and again after `--moves` moves more at each
table; then the client closes its sockets and the server is stopped. No game ends in the
window at the defaults (a table whose game ends stops: the run says how many did).

What it prints, a move of the window: the instructions of the whole server process; of
them, the cycle collector's passes (`gc_collect_main`, inclusive), which follow the wall
clock (a pass every 0.1 s, and under callgrind a move takes ~50 times as long as without),
so they are shown apart and left out of the figure to compare ("without the collector");
a table's set-up (without the collector's passes);
with `--parts`, the inclusive counts of a few C functions (deflate, inflate, SQLite's
steps, orjson). Instructions in the kernel (the system calls, the loopback writes) are not
counted.

The count does not depend on the machine's load; what moves it from run to run is what
depends on the wall clock (the collector, the server's other timers, how many frames the
event loop finds ready at once): `--repeat 3` shows that spread. With several `--src`
trees (worktrees of the commits to compare, so that editing this checkout does not change
a run under way), the runs alternate between them. Needs valgrind (callgrind_control and
callgrind_annotate come with it). A run of 20 tables takes 2–4 minutes.
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
import orjson
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


class _Table:
    """One table as the client plays it: its two sockets, each seat's last message."""

    def __init__(self, sockets: list[Any], latest: list[dict[str, Any]], seed: int) -> None:
        self.sockets = sockets
        self.latest = latest
        self.rng = random.Random(seed)
        self.over = False

    async def play(self, moves: int) -> int:
        """Play `moves` moves (fewer if the game ends): how many were played."""
        sockets, latest = self.sockets, self.latest
        played = 0
        while played < moves:
            if latest[0]["view"]["over"]:
                self.over = True
                break
            movers = [i for i in range(2) if latest[i]["legal"]]
            if not movers:
                latest[0] = await _next_state(sockets[0], latest[0])
                latest[1] = await _next_state(sockets[1], latest[1])
                continue
            i = movers[0]
            version = latest[i]["version"]
            action = orjson.dumps(self.rng.choice(latest[i]["legal"])).decode()
            await sockets[i].send(f'{{"type":"act","version":{version},"action":{action}}}')
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
        return played


async def _drive(
    base: str, tables: int, warm: int, moves: int, seed: int, dump: Any
) -> dict[str, int]:
    """Set the tables up, play `warm` moves at each, `dump()`, `moves` more, `dump()`: the
    moves played in the window, and the games over by its end."""
    load.PING_INTERVAL = None  # no keepalive pings: they follow the wall clock
    games = ["cafe" if k % 2 == 0 else "coffee-rush" for k in range(tables)]
    ready = []
    await asyncio.to_thread(dump)  # the start: part 1
    for k, game in enumerate(games):  # one after another: the server deals them in order
        sockets, latest = await _set_up(base, game)
        ready.append(_Table(sockets, latest, seed * 100_003 + k))
    await asyncio.to_thread(dump)  # the set-ups: part 2
    await asyncio.gather(*(t.play(warm) for t in ready))
    await asyncio.to_thread(dump)  # the first moves: part 3
    played = await asyncio.gather(*(t.play(moves) for t in ready))
    await asyncio.to_thread(dump)  # the window: part 4
    for table in ready:
        for ws in table.sockets:
            await ws.close()
    return {"moves": sum(played), "over": sum(t.over for t in ready)}


def _total(out_file: Path) -> int:
    for line in out_file.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


def _inclusive(out_file: Path, names: list[str]) -> dict[str, int]:
    """Inclusive instructions of each C function named (summed over the objects that have
    one of that name)."""
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
    src: Path, tables: int, warm: int, moves: int, seed: int, folder: Path, parts: bool
) -> dict[str, Any]:
    """One server running the code in `src` under callgrind: a move's counts in the
    window."""
    port = free_port()
    out_file = folder / f"callgrind.{port}.{time.time_ns()}.out"
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
    log_path = folder / f"server-{port}.log"
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    dumps = 0

    def dump() -> None:
        nonlocal dumps
        dumps += 1
        subprocess.run(
            ["callgrind_control", f"--dump=window{dumps}", str(proc.pid)],
            capture_output=True,
            check=True,
            timeout=600,
        )
        part = Path(f"{out_file}.{dumps}")
        deadline = time.monotonic() + 600
        while not (part.exists() and "totals:" in part.read_text()[-2000:]):
            if time.monotonic() > deadline:
                raise RuntimeError(f"callgrind did not write {part}")
            time.sleep(0.5)

    try:
        deadline = time.monotonic() + 900
        while True:
            if proc.poll() is not None:
                raise RuntimeError(log_path.read_text()[-3000:])
            try:
                if httpx.get(f"{base}/api/games", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start under callgrind")
            time.sleep(1)
        played = asyncio.run(_drive(base, tables, warm, moves, seed, dump))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(900)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
        log.close()
    window = Path(f"{out_file}.4")
    names = sorted(set(PARTS.values())) if parts else [PARTS["collector"]]
    counts = _inclusive(window, names)
    n = played["moves"]
    figure = {"whole": _total(window) / n}
    figure["collector"] = counts[PARTS["collector"]] / n
    figure["without"] = figure["whole"] - figure["collector"]
    for label, name in PARTS.items() if parts else ():
        if label != "collector":
            figure[label] = counts[name] / n
    # a table's set-up as load.py makes one (five requests, two sockets and their
    # snapshots), the collector's passes in that window left out as in the moves'
    setups = Path(f"{out_file}.2")
    setup_gc = _inclusive(setups, [PARTS["collector"]])[PARTS["collector"]]
    figure["set-up"] = (_total(setups) - setup_gc) / tables
    return {"figure": figure, **played}


def add_window_arguments(parser: argparse.ArgumentParser) -> None:
    """The tables and moves counted (shared with `load_instructions_act.py`)."""
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--warm", type=int, default=10, help="moves a table before the window")
    parser.add_argument("--moves", type=int, default=30, help="moves a table in the window")
    parser.add_argument("--seed", type=int, default=0)


def check_window(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not (0 <= args.warm <= 200 and 1 <= args.moves <= 300 and 1 <= args.tables <= 200):
        parser.error("bounded: 0..200 warm moves, 1..300 moves, 1..200 tables")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_window_arguments(parser)
    parser.add_argument("--repeat", type=int, default=1, help="runs (of each --src)")
    parser.add_argument("--parts", action="store_true", help="inclusive counts of C parts")
    parser.add_argument("--keep", type=Path, default=None, help="keep callgrind's files here")
    parser.add_argument(
        "--src",
        type=Path,
        action="append",
        help="the server code to run (default: this checkout's src); several: alternated",
    )
    args = parser.parse_args()
    check_window(parser, args)
    if not 1 <= args.repeat <= 10:
        parser.error("--repeat is 1..10")
    trees = args.src or [ROOT / "src"]
    results: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    with TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for r in range(args.repeat):
            for tree in trees:
                out = run(tree, args.tables, args.warm, args.moves, args.seed, folder, args.parts)
                results[tree].append(out["figure"])
                print(
                    f"{tree} run {r + 1}: {out['moves']} moves in the window (games over "
                    f"{out['over']}): a move "
                    + "  ".join(f"{k} {v / 1e6:.4f} M" for k, v in out["figure"].items()),
                    flush=True,
                )
    if args.repeat > 1:
        for tree, figures in results.items():
            print(
                f"{tree} median: a move "
                + "  ".join(
                    f"{k} {statistics.median(f[k] for f in figures) / 1e6:.4f} M"
                    for k in figures[0]
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
