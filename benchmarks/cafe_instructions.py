"""Café random playouts counted in instructions (callgrind), this checkout against another.

The wall clock of a shared 2-core machine varies by ±50 % from run to run, so it cannot show
a change of a few per cent; callgrind's instruction counts repeat to about 0.3 % (the same
code against itself). Each count is a fresh interpreter playing `games` random games (the
loop of `cafe_playout.py`: legal actions, a random choice, unchecked apply) minus the same
interpreter playing none, so imports and start-up are left out.

Usage:
    python3 benchmarks/cafe_instructions.py --against /work/h1-main/src [--players 1,2,4]
        [--games 100,50,25]

`--against` names the other checkout's `src` (or an unpacked compiled wheel: whatever
directory holds the `coffeetable` package to import); `--self` does the same for this side
(default: this checkout's `src`). Needs valgrind (Debian: `apt-get install valgrind`).
Prints, per player count, millions of instructions on each side and their ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def play(players: int, games: int) -> None:
    """What each counted interpreter runs (imported from the directory on PYTHONPATH)."""
    from coffeetable import find_game

    game = find_game("cafe")
    rng = random.Random(0)
    for g in range(games):
        state = game.new_initial_state(players, g)
        while not state.is_over():
            seat = min(state.current_seats())
            state.apply_unchecked(seat, rng.choice(state.legal_actions(seat)))


def instructions(src: Path, players: int, games: int) -> int:
    """Instructions of one interpreter importing coffeetable from `src` and playing."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--play",
                str(players),
                str(games),
            ],
            env={**os.environ, "PYTHONPATH": str(src)},
            check=True,
            capture_output=True,
        )
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        if found is None:
            raise SystemExit(f"no instruction total in callgrind's output for {src}")
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--against", type=Path, help="the other side's src directory")
    parser.add_argument("--self", type=Path, default=HERE.parent / "src", dest="mine")
    parser.add_argument("--players", default="1,2,4", help="player counts, comma-separated")
    parser.add_argument("--games", default="100,50,25", help="games per player count")
    parser.add_argument("--play", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        play(*args.play)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind not found (Debian: apt-get install valgrind)")
    players = [int(n) for n in args.players.split(",")]
    games = [int(n) for n in args.games.split(",")]
    if len(games) != len(players):
        raise SystemExit("--games needs one count per player count")
    sides = [("this", args.mine)] + ([("other", args.against)] if args.against else [])
    for n, g in zip(players, games, strict=True):
        counts = {name: instructions(src, n, g) - instructions(src, n, 0) for name, src in sides}
        line = f"cafe, {n} player(s), {g} games: this {counts['this'] / 1e6:,.1f} M instructions"
        if "other" in counts:
            line += (
                f", other {counts['other'] / 1e6:,.1f} M, "
                f"this/other {counts['this'] / counts['other']:.3f}"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
