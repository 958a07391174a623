"""How well Coffee Rush's evaluations rank one seat's alternative turns, measured by playing
each turn out (docs/bots.md, "A ranking of one position's turns, from playouts").

    python3 benchmarks/rush_turns.py play --games 100 --seed 70000 --out turns.jsonl
        2-player games of greedy against greedy. At `--positions` turn starts of each game
        (chosen at random), the seat's alternatives are the best complete turn of each first
        step (the beam of greedy+learned: `--width` wide, at most 12 turns). Each turn is
        played on `--decks` deals of the cards to come (the deck shuffled anew from the
        seat's view: common random numbers, each deal the same for every turn, and the same
        bot seeds), then greedy plays both seats to the end; the turn's worth is the seat's
        final margin over the other seat. Appends one JSON line per position (resumable:
        deals already in the file are skipped).
    python3 benchmarks/rush_turns.py report turns.jsonl [more.jsonl ...]
        Points of margin over a random choice among a position's turns when choosing by the
        hand-written evaluation (greedy's choice), by the shipped learned value (greedy+
        learned's), and by a linear correction of it fitted on the comparisons themselves
        (within each position: centred targets and features; ridge), on held-out positions
        (one deal in five, by its number); and, over every position, by the playouts of
        half the decks scored on the other half (what a choice by playouts can gain without
        seeing its own luck).

Greedy plays Coffee Rush in about a second a game here, so a turn's playouts cost about
`--decks` half games; `--workers` spreads the games over processes (results do not depend
on it). Needs numpy for `report` only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from coffeetable import find_game
from coffeetable.bots import make_bot
from coffeetable.bots.greedy import RERANK, STEP_COST, best_turns
from coffeetable.bots.learned import evaluator, rush_features

HELD_OUT = 5  # one deal in HELD_OUT is held out (by its number)


def _margin(state: Any, seat: int) -> int:
    scores = [s.total for s in state.scores()]
    return int(scores[seat] - max(v for i, v in enumerate(scores) if i != seat))


def _play_out(state: Any, seed: int) -> Any:
    bots = [make_bot("greedy", seed * 16 + s) for s in range(state.num_players)]
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
    return state


def _rank(state: Any, seat: int, seed: int, width: int, decks: int) -> dict[str, Any] | None:
    """One turn start's alternatives, each played out on the same `decks` deals."""
    rng = random.Random(seed)
    root = state.resample_hidden(seat, rng)
    turns, _ = best_turns(root, seat, max(width, RERANK), keep=RERANK)
    if len(turns) < 2:
        return None
    learned = evaluator(state)
    deals = [state.resample_hidden(seat, random.Random(seed + 1 + d)) for d in range(decks)]
    rows = []
    for v, steps in turns:
        end = root.clone()
        for action in steps:
            end.apply_unchecked(seat, action)
        outcomes = []
        for d, deal in enumerate(deals):
            after = deal.clone()
            for action in steps:  # a turn draws no card before its end: legal on every deal
                after.apply_unchecked(seat, action)
            outcomes.append(_margin(_play_out(after, seed + 1 + d), seat))
        rows.append(
            {
                "turn": [a.notation() for a in steps],
                "value": v,
                "learned": (learned(end, seat) if learned else 0.0) - STEP_COST * (len(steps) - 1),
                "steps": len(steps),
                "features": rush_features(end, seat),
                "outcomes": outcomes,
            }
        )
    return {"seat": seat, "seed": seed, "turns": rows}


def _game(job: tuple[int, int, int, int]) -> dict[str, Any]:
    deal, positions, width, decks = job
    rng = random.Random(deal)
    state = find_game("coffee-rush").new_initial_state(2, deal)
    bots = [make_bot("greedy", deal * 16 + s) for s in range(2)]
    starts = []  # the turn starts of the game, to choose `positions` of them afterwards
    replay = []
    last = -1
    while not state.is_over():
        seat = min(state.current_seats())
        if seat != last and len(state.legal_actions(seat)) > 1:
            starts.append(len(replay))
        last = seat
        action, _ = bots[seat].choose(state, seat)
        replay.append((seat, action))
        state.apply(seat, action)
    chosen = sorted(rng.sample(starts, min(positions, len(starts))))
    state = find_game("coffee-rush").new_initial_state(2, deal)
    found = []
    for index, (seat, action) in enumerate(replay):
        if index in chosen:
            ranked = _rank(state, seat, rng.randrange(1 << 30), width, decks)
            if ranked is not None:
                ranked["step"] = index
                found.append(ranked)
        state.apply(seat, action)
    return {"deal": deal, "positions": found}


def play(args: argparse.Namespace) -> None:
    done: set[int] = set()
    if os.path.exists(args.out):
        with open(args.out) as f:
            done = {json.loads(line)["deal"] for line in f if line.strip()}
    deals = [d for d in range(args.seed, args.seed + args.games) if d not in done]
    jobs = [(d, args.positions, args.width, args.decks) for d in deals]
    start = time.perf_counter()
    stop = start + args.seconds if args.seconds else math.inf
    with ProcessPoolExecutor(max_workers=args.workers) as pool, open(args.out, "a") as out:
        pending = [pool.submit(_game, job) for job in jobs]
        written = 0
        stopped = False
        for future in pending:
            if not stopped and time.perf_counter() > stop:
                # no game starts after this; those under way finish and are kept
                stopped = True
                for p in pending:
                    p.cancel()
                print("stopped: --seconds reached", file=sys.stderr)
            if future.cancelled():
                continue
            r = future.result()
            for p in r["positions"]:
                out.write(json.dumps({"deal": r["deal"], **p}) + "\n")
            out.flush()
            written += len(r["positions"])
            print(
                f"  deal {r['deal']}: {len(r['positions'])} positions "
                f"({written} in all, {time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )


def report(args: argparse.Namespace) -> None:
    import numpy as np

    from coffeetable.bots.learned import RUSH_FEATURES, load_model

    positions = []
    for path in args.files:
        with open(path) as f:
            positions.extend(json.loads(line) for line in f if line.strip())
    if not positions:
        sys.exit("no position in the files")
    test = [p for p in positions if p["deal"] % HELD_OUT == 0]
    train = [p for p in positions if p["deal"] % HELD_OUT != 0]
    base = load_model("rush-value", args.base)
    assert base is not None
    mean = np.array(base.mean)
    scale = np.array(base.scale)

    def centred(ps: list[dict[str, Any]]) -> tuple[Any, Any]:
        xs, ys = [], []
        for p in ps:
            x = (np.array([t["features"] for t in p["turns"]]) - mean) / scale
            y = np.array([statistics.fmean(t["outcomes"]) for t in p["turns"]])
            y -= np.array([t["learned"] for t in p["turns"]])
            xs.append(x - x.mean(axis=0))
            ys.append(y - y.mean())
        return np.concatenate(xs), np.concatenate(ys)

    x, y = centred(train or positions)  # a file of held-out deals only: fitted on them
    w = np.linalg.solve(x.T @ x + args.alpha * np.eye(x.shape[1]), x.T @ y)

    def corrected(t: dict[str, Any]) -> float:
        return float(t["learned"] + ((np.array(t["features"]) - mean) / scale) @ w)

    def gains(ps: list[dict[str, Any]], key: Any) -> list[float]:
        out = []
        for p in ps:
            means = [statistics.fmean(t["outcomes"]) for t in p["turns"]]
            best = max(range(len(means)), key=lambda i: key(p["turns"][i]))
            out.append(means[best] - statistics.fmean(means))
        return out

    turns = statistics.fmean(len(p["turns"]) for p in positions)
    decks = min(len(t["outcomes"]) for p in positions for t in p["turns"])
    print(
        f"{len(positions)} positions of {len({p['deal'] for p in positions})} deals, "
        f"{turns:.1f} turns each, {decks} decks; held out {len(test)} positions"
    )
    spread = statistics.fmean(
        max(m) - min(m)
        for m in ([statistics.fmean(t["outcomes"]) for t in p["turns"]] for p in positions)
    )
    print(f"  the best and worst turn of a position differ by {spread:.2f} points of margin")
    choices = {
        "the hand-written evaluation (greedy)": lambda t: t["value"],
        f"{base.label} (greedy+learned)": lambda t: t["learned"],
        f"{base.label} + the fitted correction": corrected,
        "the playouts themselves (an upper bound: they see their own luck)": lambda t: (
            statistics.fmean(t["outcomes"])
        ),
    }
    for part, ps in (("held out", test), ("training", train)):
        if not ps:
            continue
        print(f"  {part}, points of margin over a random choice (± one standard error):")
        for label, key in choices.items():
            g = gains(ps, key)
            sd = _se(g)
            print(f"    {label}: {statistics.fmean(g):+.3f} ± {sd:.3f}")
    if decks >= 2:
        # each position's turns by the playouts of the even and of the odd decks
        halves = [
            [
                [statistics.fmean(t["outcomes"][d] for d in ds) for t in p["turns"]]
                for ds in (range(0, decks, 2), range(1, decks, 2))
            ]
            for p in positions
        ]
        # choosing by the playouts of half the decks, scored on the other half (each way
        # round): what a choice by playouts can gain without seeing the luck it is scored on
        crossed = []
        for two in halves:
            for pick, score in ((0, 1), (1, 0)):
                best = max(range(len(two[pick])), key=two[pick].__getitem__)
                crossed.append(two[score][best] - statistics.fmean(two[score]))
        sd = _se(crossed) * math.sqrt(2)  # two halves a position: as many positions
        print(
            "  every position, choosing by the playouts of half the decks, scored on the "
            f"other half: {statistics.fmean(crossed):+.3f} ± {sd:.3f}"
        )
        for label, key in list(choices.items())[:3]:
            g = gains(positions, key)
            sd = _se(g)
            print(f"  every position, choosing by {label}: {statistics.fmean(g):+.3f} ± {sd:.3f}")
        same = sum(
            max(range(len(p["turns"])), key=lambda i, p=p: p["turns"][i]["value"])
            == max(range(len(p["turns"])), key=lambda i, p=p: p["turns"][i]["learned"])
            for p in positions
        )
        print(
            f"  the evaluation and {base.label} choose the same turn at {same} of {len(positions)}"
        )
        # how far the turns' order is the position's and not the deals': the halves'
        # outcomes, centred per position, against each other
        centred_halves: list[list[float]] = [[], []]
        for two in halves:
            for half, m in zip(centred_halves, two, strict=True):
                half.extend(v - statistics.fmean(m) for v in m)
        try:
            r = f"{statistics.correlation(*centred_halves):.2f}"
        except statistics.StatisticsError:  # every outcome alike
            r = "(undefined)"
        print(f"  the halves' outcomes, centred per position, correlate at {r}")
    print("  the correction's weights (points per standard deviation of the feature):")
    for name, weight in sorted(zip(RUSH_FEATURES, w, strict=True), key=lambda nw: -abs(nw[1])):
        print(f"    {name:20s} {weight:+.3f}")


def _se(values: list[float]) -> float:
    """The standard error of the mean of `values` (0 for fewer than two)."""
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=70000)
    p.add_argument("--positions", type=int, default=3, help="turn starts ranked a game")
    p.add_argument("--width", type=int, default=24, help="the beam that finds the turns")
    p.add_argument("--decks", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--seconds",
        type=float,
        default=0.0,
        help="hand out no game after this (those under way are kept)",
    )
    p.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("files", nargs="+")
    r.add_argument("--base", type=int, default=None, help="the shipped value's version")
    r.add_argument("--alpha", type=float, default=10.0, help="the ridge penalty")
    args = parser.parse_args()
    {"play": play, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
