"""ISMCTS iterations per second on fixed positions with a fixed iteration budget.

Each case (game, players) takes `--positions` mid-game positions reached by greedy play
(the same positions on every run and every version of the code, see bots_strength.py) and
lets `ismcts` decide once on each with a budget of iterations, not of time
(`ismcts:<N>i`, seeded), so every version does the same search: the chosen actions are
printed as a digest, which must be equal across versions whose rules are equal. The
figure is the search's iterations (Café: arms played in the turn-lookahead sweeps; Coffee
Rush: tree iterations) over the decision's CPU seconds (the root's beam included, which
Café's budget of iterations does not count), median over the positions and `--repeats`,
and pooled: every decision's iterations over every decision's CPU seconds. The rates of
single positions differ by several times (a solo position's arms cost more or less to
play), so a change shows in the pooled figure, which weighs each position by the CPU it
takes, more surely than in the median.

With `--against SRC` (another checkout's `src` directory, for example the main branch in a
`git worktree`), every case is also measured with that code in a subprocess, alternating
with this one, and the ratios of the medians and of the pooled rates (this code / SRC) are
printed: both figures are taken moments apart on this shared, noisy machine.

Usage: python3 benchmarks/ismcts_iterations.py [--positions 4] [--repeats 3]
           [--against ../main/src]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from bots_strength import _positions

from coffeetable.bots import make_bot

#: (game, players, iterations per decision); Café's iterations are whole arms' lookaheads
CASES = (
    ("cafe", 1, 24),
    ("cafe", 2, 24),
    ("cafe", 4, 16),
    ("coffee-rush", 2, 400),
    ("coffee-rush", 4, 400),
)


def measure(name: str, players: int, iterations: int, count: int, repeats: int) -> dict[str, Any]:
    """Iterations per CPU second of each decision, their totals, and a digest of the chosen
    actions."""
    positions = _positions(name, players, count, 1000 + players)
    rates: list[float] = []
    total_iterations = 0
    total_seconds = 0.0
    chosen: list[str] = []
    for _ in range(repeats):
        for k, state in enumerate(positions):
            seat = min(state.current_seats())
            bot = make_bot(f"ismcts:{iterations}i", 7 * k + 1)
            start = time.process_time()
            action, info = bot.choose(state.clone(), seat)
            seconds = time.process_time() - start
            if info.get("iterations"):
                rates.append(info["iterations"] / seconds)
                total_iterations += info["iterations"]
                total_seconds += seconds
            chosen.append(action.notation())
    digest = hashlib.sha256("\n".join(chosen).encode()).hexdigest()[:12]
    return {
        "rates": rates,
        "pooled": total_iterations / total_seconds if total_seconds else 0.0,
        "digest": digest,
    }


def run_elsewhere(src: str, case: tuple[str, int, int], count: int, repeats: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    name, players, iterations = case
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            *("--one", f"{name}:{players}:{iterations}"),
            *("--positions", str(count), "--repeats", str(repeats)),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--against", metavar="SRC", help="another checkout's src directory")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # GAME:PLAYERS:ITERATIONS, JSON out
    args = parser.parse_args()
    if args.one:
        name, players, iterations = args.one.split(":")
        result = measure(name, int(players), int(iterations), args.positions, args.repeats)
        print(json.dumps(result))
        return
    print(
        f"ISMCTS iterations per CPU second, median over {args.positions} positions x "
        f"{args.repeats} repeats; digest of the chosen actions"
    )
    for case in CASES:
        name, players, iterations = case
        ours = measure(name, players, iterations, args.positions, args.repeats)
        line = (
            f"{name}, {players} player(s), {iterations} iterations: "
            f"{statistics.median(ours['rates']):,.1f} it/s "
            f"(min {min(ours['rates']):,.1f}, max {max(ours['rates']):,.1f}), "
            f"pooled {ours['pooled']:,.1f} it/s, actions {ours['digest']}"
        )
        if args.against:
            theirs = run_elsewhere(args.against, case, args.positions, args.repeats)
            ratio = statistics.median(ours["rates"]) / statistics.median(theirs["rates"])
            pooled = ours["pooled"] / theirs["pooled"]
            same = "same actions" if theirs["digest"] == ours["digest"] else "OTHER ACTIONS"
            line += (
                f"; {args.against}: {statistics.median(theirs['rates']):,.1f} it/s, "
                f"pooled {theirs['pooled']:,.1f}; ratio {ratio:.2f}x, pooled {pooled:.2f}x "
                f"({same})"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
