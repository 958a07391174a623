"""Café engine exactness against another checkout (e.g. main's, before a speed change).

Plays random games of every player count and variant with fixed seeds in two checkouts,
each imported in its own subprocess, and compares, step by step: the acting seat, every
legal-action list and search-action list (order included), the action chosen, the position
JSON (which carries the RNG state), the acting seat's observation tensor, and at the end
the scores and winners. Copies are taken at random and played on apart from their originals
(their steps are compared too), so caches shared between copies are exercised.

Usage:
    python3 benchmarks/cafe_exactness.py --against /work/h1-main/src [--games 2] [--seed 1]

Prints the number of steps compared per configuration and exits 1 at the first difference
(naming the configuration, game and step). With --dump it prints this checkout's step
digests instead (what each subprocess does).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

CONFIGS: list[tuple[int, dict[str, Any]]] = [
    (players, options)
    for players in (1, 2, 3, 4)
    for options in (
        {},
        {"espresso": True},
        {"promos": ["leao", "coffee-mine", "atlas"]},
        {"variant": "advanced"},
        {"variant": "advanced", "espresso": True, "promos": ["atlas"]},
    )
    if not (players == 1 and options.get("variant") == "advanced")
]


def digest(*parts: Any) -> str:
    """A short hash of `parts` (bytes as they are, anything else as sorted JSON)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, bytes):
            h.update(part)
        else:
            h.update(json.dumps(part, sort_keys=True, default=repr).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def dump(games: int, seed: int) -> None:
    """One line per step and per game end: configuration, game, step and a digest."""
    from coffeetable import find_game
    from coffeetable.games.cafe.observation import observation_tensor

    game = find_game("cafe")
    for index, (players, options) in enumerate(CONFIGS):
        for g in range(games):
            rng = random.Random(seed * 1_000_003 + index * 1_000 + g)
            state = game.new_initial_state(players, seed * 100_000 + g, options)
            # (state, label): the game itself and copies played on apart from it
            todo = [(state, f"{index}/{g}")]
            while todo:
                state, label = todo.pop()
                step = 0
                while not state.is_over():
                    seats = sorted(state.current_seats())
                    seat = seats[rng.randrange(len(seats))]
                    legal = state.legal_actions(seat)
                    search = state.search_actions(seat)
                    action = legal[rng.randrange(len(legal))]
                    tensor = observation_tensor(state, seat).tobytes()
                    print(
                        label,
                        step,
                        digest(
                            seats,
                            seat,
                            [a.notation() for a in legal],
                            [a.notation() for a in search],
                            action.notation(),
                            state.to_json(),
                            state.rng.state,
                            tensor,
                        ),
                    )
                    if len(todo) < 3 and rng.random() < 0.02:
                        todo.append((state.clone(), f"{label}c{step}"))
                    state.apply_unchecked(seat, action)
                    step += 1
                print(
                    label,
                    "end",
                    digest(
                        state.to_json(),
                        state.rng.state,
                        [s.to_json() for s in state.scores()],
                        state.winners(),
                    ),
                )


def run(
    script: str,
    doc: str | None,
    dump_games: Callable[[int, int], None],
    describe: Callable[[int], str],
    games: int,
) -> None:
    """The command line of an exactness script (this one, bots_exactness.py): `--dump` calls
    `dump_games(games, seed)`; `--against SRC` runs `script --dump` with SRC and with this
    checkout, compares their lines and names the first difference (`describe(index)`: the
    configuration of a line's label `index/game`); exit status 1 if they differ."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--against", help="the other checkout's src directory")
    parser.add_argument("--games", type=int, default=games, help="games per configuration")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dump:
        dump_games(args.games, args.seed)
        return
    if not args.against:
        parser.error("--against SRC is required")
    mine = str(Path(script).resolve().parent.parent / "src")
    outputs = []
    for src in (args.against, mine):
        env = dict(os.environ, PYTHONPATH=src)
        cmd = [sys.executable, script, "--dump", "--games", str(args.games)]
        cmd += ["--seed", str(args.seed)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        outputs.append(done.stdout.splitlines())
    theirs, ours = outputs
    for a, b in zip(theirs, ours, strict=False):
        if a != b:
            label, step = a.split()[:2]
            print(f"DIFFERENT: {describe(int(label.split('/')[0]))}, game {label}, step {step}")
            print(f"  {args.against}: {a}\n  {mine}: {b}")
            sys.exit(1)
    if len(theirs) != len(ours):
        print(f"DIFFERENT: {len(theirs)} lines against {len(ours)}")
        sys.exit(1)
    counts: dict[int, int] = {}
    for line in ours:
        index = int(line.split("/")[0])
        counts[index] = counts.get(index, 0) + 1
    for index, n in counts.items():
        print(f"same: {describe(index)}: {n} steps and game ends")
    print(f"identical: {len(ours)} steps and game ends in {len(counts)} configurations")


def main() -> None:
    def describe(index: int) -> str:
        players, options = CONFIGS[index]
        return f"{players} player(s) {json.dumps(options)}"

    run(__file__, __doc__, dump, describe, games=2)


if __name__ == "__main__":
    main()
