"""`MatchService.act` in process on the very moves `load_instructions.py` counts in the
server: the same seeded tables (the lobby's draws from the same generator, in the same
order), the same moves (each table's generator, the first seat that may act), a SQLite file,
no sockets. Run under callgrind, it dumps the counters after the first moves and after the
window, so the second dump is what those moves cost `act` (and this script's own reading of
each client's last message, orjson's `loads` given apart to leave out); its difference from
the server's figure is what the server does around `act`.

    python3 benchmarks/load_instructions_act.py [--tables 20] [--warm 10] [--moves 30]
                                                [--seed 0] [--src PATH]

The node's hooks around a move (`on_turns`, `after_change`: the notifier, the driver and the
abandonment watch) are not connected here, as in `load_move.py`: they are part of the gap.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _seeded_serve import _SeededSecrets
from load_instructions import (
    PARTS,
    _inclusive,
    _python,
    _total,
    add_window_arguments,
    check_window,
)

ROOT = Path(__file__).resolve().parent.parent


def _dump() -> None:
    """Ask callgrind (this process runs under it) to write and zero its counters."""
    subprocess.run(["callgrind_control", "--dump", str(os.getpid())], check=True, timeout=600)


async def _play(tables: int, warm: int, moves: int, seed: int, counted: bool) -> int:
    from load_move import _latest  # imports coffeetable: from --src, under callgrind

    from coffeetable.server import lobby as lobby_module
    from coffeetable.server.bus import MemoryBus
    from coffeetable.server.livetable import Client
    from coffeetable.server.lobby import LobbyService
    from coffeetable.server.match import MatchService
    from coffeetable.server.storage import open_storage

    lobby_module.secrets = _SeededSecrets(seed)  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as folder:
        storage = open_storage(f"sqlite:///{Path(folder) / 'act.db'}")
        await storage.migrate()
        match = MatchService(storage, MemoryBus())
        lobby = LobbyService(match)
        played_tables: list[dict[str, Any]] = []
        for k in range(tables):
            game = "cafe" if k % 2 == 0 else "coffee-rush"
            users = [
                await storage.create_user(f"guest{k}x{i}", None, is_guest=True) for i in range(2)
            ]
            table = await lobby.create(
                users[0], game, {}, [{"kind": "human"}, {"kind": "open"}], None, False, False
            )
            await lobby.join(table.id, users[1])
            await lobby.start(table.id, users[0])
            live = await match.live(table.id)
            clients = [Client(user=u, seat=s) for s, u in enumerate(users)]
            for client in clients:
                live.clients.add(client)
                client.send(match.snapshot(live, client))
            played_tables.append(
                {
                    "live": live,
                    "clients": clients,
                    "latest": [None, None],
                    "rng": random.Random(seed * 100_003 + k),
                }
            )

        def read(t: dict[str, Any]) -> None:
            for s, client in enumerate(t["clients"]):
                message = _latest(client)
                if message is not None:
                    t["latest"][s] = message

        async def play(t: dict[str, Any], n: int) -> int:
            done = 0
            while done < n:
                read(t)
                latest = t["latest"]
                if latest[0]["view"]["over"]:
                    break
                i = next(s for s in range(2) if latest[s]["legal"])
                action = t["rng"].choice(latest[i]["legal"])
                await match.act(t["live"], t["clients"][i], latest[i]["version"], action)
                done += 1
            read(t)
            return done

        # the tables take turns a move at a time, as the closed loop's replies interleave
        async def rounds(n: int) -> int:
            total = 0
            for _ in range(n):
                for t in played_tables:
                    total += await play(t, 1)
            return total

        await rounds(warm)
        if counted:
            _dump()
        played = await rounds(moves)
        if counted:
            _dump()
        await storage.close()
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_window_arguments(parser)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    check_window(parser, args)
    if args.inner:  # under callgrind
        played = asyncio.run(_play(args.tables, args.warm, args.moves, args.seed, True))
        print(played, flush=True)
        return
    with tempfile.TemporaryDirectory() as folder:
        out_file = Path(folder) / f"act.{time.time_ns()}.out"
        env = {
            **os.environ,
            "PYTHONHASHSEED": "0",
            "OPENBLAS_NUM_THREADS": "1",
            "PYTHONPATH": str(args.src),
        }
        done = subprocess.run(
            [
                "valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                "--dump-instr=no", "-q", _python(), __file__, "--inner",
                "--tables", str(args.tables), "--warm", str(args.warm),
                "--moves", str(args.moves), "--seed", str(args.seed),
            ],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        played = int(done.stdout.split()[-1])
        window = Path(f"{out_file}.2")
        counts = _inclusive(window, [PARTS["collector"], PARTS["orjson loads"]])
        whole = _total(window) / played
        collector = counts[PARTS["collector"]] / played
        reading = counts[PARTS["orjson loads"]] / played
    print(
        f"{args.src}: {played} moves in the window: a move {whole / 1e6:.4f} M, of it the "
        f"collector {collector / 1e6:.4f} M and the clients' orjson.loads "
        f"{reading / 1e6:.4f} M: act without them {(whole - collector - reading) / 1e6:.4f} M"
    )


if __name__ == "__main__":
    main()
