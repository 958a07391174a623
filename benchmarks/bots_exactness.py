"""The bots' evaluations and searches, step by step, against another checkout (e.g. the same
code compiled, setup.py's `COFFEETABLE_COMPILE=1`, or main's before a speed change).

Plays seeded games of Café (1, 2 and 4 players, the espresso variant at 2) and Coffee Rush
(2 and 4 players) in two checkouts, each imported in its own subprocess, and compares at
every step: every seat's evaluation (`heuristics.value`, the exact float), the bots'
rewards, the decision of each bot that plays (greedy, a wider and a learned beam, several
determinizations, ISMCTS at a fixed iteration budget) with its value, plan and expansions,
and the split beam's best turns. Bots with a time budget are left out: what they decide
depends on the machine's speed.

Usage:
    python3 benchmarks/bots_exactness.py --against /path/to/other/src [--games 1] [--seed 1]

Prints the number of lines compared and exits 1 at the first difference (naming the game,
the configuration and the step). With --dump it prints this checkout's step digests instead
(what each subprocess does; tests/games/cafe/test_compiled.py compares a compiled
installation with its own `.py` files this way).
"""

from __future__ import annotations

import json
import random
from typing import Any

from cafe_exactness import digest, run

#: (game, players, options, the bots that take turns deciding, one per step in turn)
CONFIGS: list[tuple[str, int, dict[str, Any], tuple[str, ...]]] = [
    ("cafe", 1, {}, ("greedy", "greedy:w24", "greedy+learned=1", "ismcts:6i")),
    ("cafe", 2, {"espresso": True}, ("greedy", "greedy:w6s2", "ismcts:6i")),
    ("cafe", 4, {}, ("greedy", "ismcts:4i")),
    ("coffee-rush", 2, {}, ("greedy", "greedy:w12", "greedy:w12s2+learned=2", "ismcts:40i")),
    ("coffee-rush", 4, {}, ("greedy", "ismcts:40i")),
]
#: ISMCTS decides at every this many steps only (its decisions cost the most)
SEARCH_EVERY = 5


def _decision(info: dict[str, Any]) -> dict[str, Any]:
    """A decision's info without what depends on the clock."""
    return {k: v for k, v in info.items() if k not in ("seconds", "iterations_per_second")}


def dump(games: int, seed: int) -> None:
    """One line per step and per game end: configuration, game, step and a digest."""
    from coffeetable import find_game
    from coffeetable.bots import heuristics
    from coffeetable.bots.greedy import best_turns
    from coffeetable.bots.make import make_bot

    for index, (name, players, options, specs) in enumerate(CONFIGS):
        game = find_game(name)
        for g in range(games):
            deal = seed * 100_000 + index * 1_000 + g
            rng = random.Random(deal)
            state = game.new_initial_state(players, deal, options)
            bots = [make_bot(spec, deal * 16 + i) for i, spec in enumerate(specs)]
            label = f"{index}/{g}"
            step = 0
            while not state.is_over():
                seats = sorted(state.current_seats())
                seat = seats[rng.randrange(len(seats))]
                values = [heuristics.value(state, s) for s in range(players)]
                rewards = heuristics.rewards(state)
                which = step % len(bots)
                if specs[which].startswith("ismcts") and step % SEARCH_EVERY:
                    which = 0  # greedy decides between the searches
                action, info = bots[which].choose(state, seat)
                turns, expanded = best_turns(state.clone(), seat, 6, keep=4, split=4)
                print(
                    label,
                    step,
                    digest(
                        seat,
                        [float.hex(float(v)) for v in values],
                        [float.hex(float(r)) for r in rewards],
                        specs[which],
                        action.notation(),
                        _decision(info),
                        [(float.hex(float(v)), [a.notation() for a in t]) for v, t in turns],
                        expanded,
                    ),
                )
                state.apply(seat, action)
                step += 1
            print(label, "end", digest([s.to_json() for s in state.scores()], state.winners()))


def main() -> None:
    def describe(index: int) -> str:
        name, players, options, bots = CONFIGS[index]
        return f"{name}, {players} player(s) {json.dumps(options)} ({', '.join(bots)})"

    run(__file__, __doc__, dump, describe, games=1)


if __name__ == "__main__":
    main()
