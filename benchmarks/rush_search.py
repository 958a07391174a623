"""What more iterations change in Coffee Rush's ISMCTS, at fixed budgets (load-independent).

    python3 benchmarks/rush_search.py --positions 40 --budgets 260,2600 --seed 4242

On mid-game 2-player positions reached by greedy play (bots_strength.py's), each budget's
search reports:

- where in the turn cycle its leaves were scored: with the searching seat to move (the start
  of its next turn, or the game's end), or elsewhere (after its own next turn, when the tree
  reached into it);
- how many of the tree's nodes below the root arms are the searching seat's own steps;
- the mean depth below the arms;
- how often its first step is the one of the largest budget, of that budget with other seeds
  (the search's own noise), and of greedy.

If a larger budget mostly plays the same first steps as a smaller one, no tournament can
spread them apart. The leaf counts come from wrapping `ismcts.rewards` and `ismcts._Node`
for the run (a benchmark's look inside the search, not an interface).
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from bots_strength import _positions

from coffeetable.bots import ismcts, make_bot
from coffeetable.core.game import State


class _Spy:
    """Counts, while installed, each `rewards` call's place in the turn cycle and each new
    tree node's mover."""

    def __init__(self) -> None:
        self.at_turn_start: list[bool] = []
        self.movers: list[int] = []
        self.seat = -1
        rewards = ismcts.rewards
        spy = self

        def counted(state: State, evaluate: Any = None) -> list[float]:
            spy.at_turn_start.append(state.is_over() or spy.seat in state.current_seats())
            return rewards(state, evaluate)

        class Node(ismcts._Node):
            __slots__ = ()

            def __init__(self, mover: int) -> None:
                super().__init__(mover)
                spy.movers.append(mover)

        ismcts.rewards = counted  # type: ignore[assignment]
        ismcts._Node = Node  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--budgets", default="260,2600", help="iterations, comma-separated")
    parser.add_argument("--repeats", type=int, default=1, help="extra seeds of the largest")
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    positions = _positions("coffee-rush", 2, args.positions, args.seed)
    spy = _Spy()
    largest = max(budgets)
    specs = [f"ismcts:{b}i" for b in budgets]
    runs = [(spec, 0) for spec in specs] + [
        (f"ismcts:{largest}i", r + 1) for r in range(args.repeats)
    ]
    firsts: dict[tuple[str, int], list[str]] = {run: [] for run in runs}
    firsts[("greedy", 0)] = []
    stats = {run: {"start": 0, "elsewhere": 0, "nodes": 0, "own": 0, "depths": []} for run in runs}
    for n, state in enumerate(positions):
        seat = min(state.current_seats())
        spy.seat = seat
        action, _ = make_bot("greedy", n).choose(state, seat)
        firsts[("greedy", 0)].append(action.notation())
        for spec, repeat in runs:
            spy.at_turn_start.clear()
            spy.movers.clear()
            action, info = make_bot(spec, 1000 * repeat + n).choose(state, seat)
            firsts[(spec, repeat)].append(action.notation())
            arms = info.get("arms", 0)
            if not arms:  # forced, or a single arm: nothing searched
                continue
            leaves = spy.at_turn_start[arms:]
            row = stats[(spec, repeat)]
            row["start"] += sum(leaves)
            row["elsewhere"] += len(leaves) - sum(leaves)
            row["nodes"] += len(spy.movers) - arms
            row["own"] += spy.movers.count(seat) - arms
            row["depths"].append(info["mean_depth"])
    reference = firsts[(f"ismcts:{largest}i", 0)]
    print(f"coffee-rush 2p, {len(positions)} positions (seed {args.seed})")
    for (spec, repeat), played in firsts.items():
        same = sum(a == b for a, b in zip(played, reference, strict=True))
        label = spec + (f" (seed +{repeat})" if repeat else "")
        line = f"{label:22} same first step as ismcts:{largest}i: {same}/{len(played)}"
        row = stats.get((spec, repeat))
        if row is not None and row["depths"]:
            leaves = row["start"] + row["elsewhere"]
            line += (
                f"; leaves elsewhere than the searcher's turn start {row['elsewhere']}/{leaves}"
                f" ({row['elsewhere'] / leaves:.1%}); the searcher's nodes below the arms"
                f" {row['own']}/{row['nodes']} ({row['own'] / max(1, row['nodes']):.1%});"
                f" mean depth {statistics.fmean(row['depths']):.2f}"
            )
        print(line, flush=True)


if __name__ == "__main__":
    main()
