"""The game server against boardgame.io, measured in the same run on loopback.

    python3 benchmarks/load_compare.py [--seconds 20] [--repeat 3] [--clients 2]
                                       [--closed-tables 200] [--paced-tables 1000] [--rate 500]
                                       [--load closed|paced|both] [--db sqlite|postgresql]
                                       [--peers memory,flatfile]

Ours is `benchmarks/load.py` (Café and Coffee Rush tables, every move stored before its
update is sent). The peer is a boardgame.io 0.50.2 server (Node) hosting a tic-tac-toe whose
board clears at each game end, its moves kept in memory (its default) or in files (FlatFile),
driven by a Node socket.io client (`benchmarks/bgio/load.js`) with the same tables, pace,
duration and client processes; latency from sending a move to receiving its update.
boardgame.io is installed at run time (`npm install`) into ~/.cache/coffeetable/bgio; it
needs Node 20 and npm.

Two loads, each run by every server in turn (ours, then each peer), `--repeat` times:

- closed loop, `--closed-tables` tables: the server's CPU time per move and its capacity
  (moves/s at saturation);
- paced, `--paced-tables` tables at `--rate` moves/s together: latency p50 and p99.

Prints every run, then the medians and the ratios ours / peer (below 1 is better for CPU
and latency, above 1 better for capacity).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import IO, Any

import load
import orjson
from tests.server.live import free_port

HERE = Path(__file__).resolve().parent / "bgio"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "coffeetable" / "bgio"
#: what a run may take beyond its timed window (setting up, closing) before it is stopped
GRACE = 300.0


def install() -> Path:
    """boardgame.io and its peers in the cache (npm install, once per package.json):
    their node_modules folder."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("the boardgame.io comparison needs Node 20 and npm on the PATH")
    wanted = (HERE / "package.json").read_bytes()
    CACHE.mkdir(parents=True, exist_ok=True)
    installed = CACHE / "package.json"
    modules = CACHE / "node_modules"
    if not modules.is_dir() or not installed.is_file() or installed.read_bytes() != wanted:
        installed.write_bytes(wanted)
        print(f"npm install into {CACHE} ...", flush=True)
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel", "error"],
            cwd=CACHE,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            installed.unlink()  # tried again next time
            raise SystemExit("npm install of boardgame.io failed (see above)")
    return modules


def _node_env(modules: Path) -> dict[str, str]:
    return {**os.environ, "NODE_PATH": str(modules), "NODE_ENV": "production"}


def _line_of(proc: subprocess.Popen[str], what: str, deadline: float) -> str:
    """The next line a Node process prints (it must come before `deadline`)."""
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            return line
        if proc.poll() is not None:
            raise RuntimeError(f"{what} ended (exit {proc.returncode}) before it answered")
    raise RuntimeError(f"{what} did not answer in time")


def _tell(stdin: IO[str] | None, line: str) -> None:
    assert stdin is not None
    stdin.write(line + "\n")
    stdin.flush()


def run_bgio(
    modules: Path,
    storage: str,
    tables: int,
    seconds: float,
    clients: int,
    rate: float | None = None,
) -> dict[str, Any]:
    """One run of the peer: its server (`memory` or `flatfile`) and `clients` Node load
    clients, timed like `load.run`."""
    clients = max(1, min(clients, tables))
    interval = tables / rate if rate else 0.0
    env = _node_env(modules)
    deadline = time.monotonic() + seconds + GRACE
    with TemporaryDirectory() as folder:
        port = free_port()
        server = subprocess.Popen(
            ["node", str(HERE / "server.js"), str(port), storage, str(Path(folder) / "db")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        procs: list[subprocess.Popen[str]] = []
        try:
            if _line_of(server, "the boardgame.io server", deadline).strip() != "ready":
                raise RuntimeError("the boardgame.io server did not start")
            per = [tables // clients + (1 if k < tables % clients else 0) for k in range(clients)]
            first = 0
            for n in per:
                procs.append(
                    subprocess.Popen(
                        [
                            "node", str(HERE / "load.js"), f"http://127.0.0.1:{port}",
                            str(n), str(first), str(seconds), str(interval),
                        ],
                        env={**env, "BGIO_RUN": f"{os.getpid()}-{time.time_ns()}"},
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        text=True,
                    )
                )  # fmt: skip
                first += n
            for proc in procs:  # every table is set up: the timed window starts
                if _line_of(proc, "a boardgame.io load client", deadline).strip() != "ready":
                    raise RuntimeError("a boardgame.io load client did not set up its tables")
            before = load._process_cpu(server.pid)
            waited = load._run_queue_wait(server.pid)
            for proc in procs:
                _tell(proc.stdin, "go")
            outs = [
                orjson.loads(_line_of(proc, "a boardgame.io load client", deadline))
                for proc in procs
            ]
            user, system = load._process_cpu(server.pid)
            waited = load._run_queue_wait(server.pid) - waited
            for proc in procs:  # every client has stopped: now they close
                _tell(proc.stdin, "close")
            for proc in procs:
                proc.wait(max(1.0, deadline - time.monotonic()))
        finally:
            for proc in [*procs, server]:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    server_cpu = user + system - sum(before)
    return load.summary(tables, outs, server_cpu, system - before[1], waited)


def _ours(db: str, folder: str, k: int) -> str:
    if db == "sqlite":
        return f"sqlite:///{folder}/compare-{k}.db"
    return load._postgres_url()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (and medians)")
    parser.add_argument("--clients", type=int, default=2, help="client processes")
    parser.add_argument("--closed-tables", type=int, default=200)
    parser.add_argument("--paced-tables", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=500.0, help="paced load: moves/s")
    parser.add_argument("--load", choices=["closed", "paced", "both"], default="both")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument(
        "--peers", default="memory,flatfile", help="boardgame.io storages: memory, flatfile"
    )
    args = parser.parse_args()
    peers = [p for p in args.peers.split(",") if p]
    if not peers or any(p not in ("memory", "flatfile") for p in peers):
        parser.error("--peers is a list of memory and flatfile")
    if not (
        0 < args.seconds <= 600
        and 1 <= args.repeat <= 10
        and 1 <= args.clients <= 16
        and 1 <= args.closed_tables <= 1000
        and 1 <= args.paced_tables <= 1000
        and 0 < args.rate <= 10000
    ):
        parser.error(
            "a comparison is bounded: at most 600 s, 10 runs, 16 clients, 1000 tables, "
            "10000 moves/s"
        )
    modules = install()
    loads = []
    if args.load in ("closed", "both"):
        loads.append(("closed", args.closed_tables, None))
    if args.load in ("paced", "both"):
        loads.append(("paced", args.paced_tables, args.rate))
    servers = [f"ours {args.db}", *(f"bgio {p}" for p in peers)]
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    with TemporaryDirectory() as folder:
        for kind, tables, rate in loads:
            for k in range(args.repeat):
                for name in servers:
                    machine = os.getloadavg()[0]  # what else the machine was doing
                    if name.startswith("ours"):
                        r = load.run(
                            _ours(args.db, folder, len(results) * 100 + k),
                            tables,
                            args.seconds,
                            args.clients,
                            rate,
                        )
                    else:
                        storage = name.split()[1]
                        r = run_bgio(modules, storage, tables, args.seconds, args.clients, rate)
                    r["load"] = machine
                    results.setdefault((kind, name), []).append(r)
                    print(load._line(name, rate, r), flush=True)
    print(_table(results, servers, [kind for kind, _, _ in loads]))


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _table(
    results: dict[tuple[str, str], list[dict[str, Any]]], servers: list[str], kinds: list[str]
) -> str:
    """The medians of every server, and the ratios ours / each peer."""
    rows = []
    if "closed" in kinds:
        rows += [
            ("closed", "server_cpu_ms_per_move", "server CPU per move (ms), closed loop"),
            ("closed", "moves_per_second", "capacity (moves/s), closed loop"),
        ]
    if "paced" in kinds:
        rows += [
            ("paced", "p50_ms", "p50 (ms), paced"),
            ("paced", "p99_ms", "p99 (ms), paced"),
            ("paced", "moves_per_second", "moves/s, paced"),
            ("paced", "server_cpu_ms_per_move", "server CPU per move (ms), paced"),
        ]
    ours, peers = servers[0], servers[1:]
    head = f"{'median of each':42s}" + "".join(f"{s:>16s}" for s in servers)
    head += "".join(f"{'ours/' + p.split()[1]:>16s}" for p in peers)
    lines = [head]
    for kind, key, label in rows:
        values = [_median(results[(kind, s)], key) for s in servers]
        line = f"{label:42s}" + "".join(f"{v:16.2f}" for v in values)
        line += "".join(f"{values[0] / v if v else float('nan'):15.2f}x" for v in values[1:])
        lines.append(line)
    runs = len(results[(kinds[0], ours)])
    lines.append(f"({runs} runs of each; ratios are ours / peer)")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
