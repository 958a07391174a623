"""Bot strength and speed, for the figures in docs/bots.md and the issue notes.

    python3 benchmarks/bots_strength.py solo --bots greedy,ismcts:hard --games 200
        Café solo: mean, spread and the distribution over the rulebook's rating table.
    python3 benchmarks/bots_strength.py h2h coffee-rush ismcts:hard greedy --games 100
        Two-player head-to-head, seats alternated on shared deals: win share, 95 % interval.
    python3 benchmarks/bots_strength.py speed
        ISMCTS iterations per second per game, and decision time per level.
    python3 benchmarks/bots_strength.py cards --bot greedy --games 200
        Café deck calibration data: per-card take counts and mean score when taken, and
        the share of final solo areas without a shop.

Games run in parallel worker processes (`--workers`, default 2: this machine's cores), each
seeded, so results do not depend on the number of workers. `--plot FILE` (solo) writes
score histograms with matplotlib when it is installed.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from coffeetable import find_game
from coffeetable.bots import LEVELS, make_bot

RATINGS = (
    (41, "Seriously?"),
    (36, "Incredible"),
    (30, "Very good"),
    (23, "Good"),
    (15, "Average"),
    (0, "Bad"),
)
BANDS = (
    "0-14 Bad",
    "15-22 Average",
    "23-29 Good",
    "30-35 Very good",
    "36-40 Incredible",
    "41+ Seriously?",
)


def _play(job: tuple[str, list[str], int, dict[str, Any]]) -> dict[str, Any]:
    name, specs, seed, options = job
    state = find_game(name).new_initial_state(len(specs), seed, options)
    bots = [make_bot(spec, seed * 16 + s) for s, spec in enumerate(specs)]
    thinking = [0.0] * len(specs)
    decisions = [0] * len(specs)
    while not state.is_over():
        seat = min(state.current_seats())
        start = time.perf_counter()
        action, _ = bots[seat].choose(state, seat)
        thinking[seat] += time.perf_counter() - start
        decisions[seat] += 1
        state.apply(seat, action)
    return {
        "specs": specs,
        "scores": [s.total for s in state.scores()],
        "winners": state.winners(),
        "thinking": thinking,
        "decisions": decisions,
    }


def _run(
    jobs: list[tuple[str, list[str], int, dict[str, Any]]], workers: int
) -> list[dict[str, Any]]:
    if workers <= 1:
        return [_play(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_play, jobs))


def band(score: int) -> int:
    for i, (threshold, _) in enumerate(RATINGS):
        if score >= threshold:
            return len(RATINGS) - 1 - i
    return 0


def solo(args: argparse.Namespace) -> None:
    results: dict[str, list[int]] = {}
    for spec in args.bots.split(","):
        start = time.perf_counter()
        jobs = [("cafe", [spec], args.seed + g, {}) for g in range(args.games)]
        out = _run(jobs, args.workers)
        scores = [r["scores"][0] for r in out]
        results[spec] = scores
        per_decision = sum(r["thinking"][0] for r in out) / max(
            1, sum(r["decisions"][0] for r in out)
        )
        counts = [0] * len(BANDS)
        for s in scores:
            counts[band(s)] += 1
        print(
            f"{spec}: {len(scores)} solo games, mean {statistics.fmean(scores):.2f} "
            f"(95 % CI ±{1.96 * statistics.pstdev(scores) / math.sqrt(len(scores)):.2f}), "
            f"median {statistics.median(scores)}, stdev {statistics.pstdev(scores):.2f}, "
            f"min {min(scores)}, max {max(scores)}; {per_decision * 1000:.1f} ms/decision; "
            f"{time.perf_counter() - start:.0f} s"
        )
        print(
            "   "
            + ", ".join(
                f"{b}: {c} ({c / len(scores):.0%})" for b, c in zip(BANDS, counts, strict=True)
            )
        )
    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("(matplotlib is not installed: no plot)")
            return
        fig, ax = plt.subplots(figsize=(8, 4))
        for spec, scores in results.items():
            ax.hist(scores, bins=range(0, 52, 2), alpha=0.5, label=spec)
        for threshold, label in RATINGS[:-1]:
            ax.axvline(threshold, color="grey", lw=0.5)
            ax.text(threshold + 0.3, ax.get_ylim()[1] * 0.9, label, fontsize=7, rotation=90)
        ax.set_xlabel("Café solo score")
        ax.set_ylabel("games")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"plot written to {args.plot}")


def h2h(args: argparse.Namespace) -> None:
    jobs = []
    for g in range(args.games):
        specs = [args.a, args.b] if g % 2 == 0 else [args.b, args.a]
        jobs.append((args.game, specs, args.seed + g // 2, {}))
    start = time.perf_counter()
    out = _run(jobs, args.workers)
    points = {args.a: 0.0, args.b: 0.0}
    scores: dict[str, list[int]] = {args.a: [], args.b: []}
    for r in out:
        for seat, spec in enumerate(r["specs"]):
            scores[spec].append(r["scores"][seat])
            if seat in r["winners"]:
                points[spec] += 1 / len(r["winners"])
    n = len(out)
    p = points[args.a] / n
    low, high = _wilson(p, n)
    print(
        f"{args.game}: {args.a} vs {args.b}, {n} games: {args.a} wins {p:.1%} "
        f"(95 % CI {low:.1%}-{high:.1%}); mean scores {statistics.fmean(scores[args.a]):.2f} vs "
        f"{statistics.fmean(scores[args.b]):.2f}; {time.perf_counter() - start:.0f} s"
    )


def _wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _positions(name: str, players: int, count: int, seed: int) -> list[Any]:
    """Mid-game positions reached by greedy play (so that they look like real games)."""
    out = []
    rng = random.Random(seed)
    game = find_game(name)
    while len(out) < count:
        state = game.new_initial_state(players, rng.randrange(1 << 30))
        bot = make_bot("greedy", rng.randrange(1 << 30))
        steps = rng.randrange(10, 60)
        for _ in range(steps):
            if state.is_over():
                break
            seat = min(state.current_seats())
            action, _ = bot.choose(state, seat)
            state.apply(seat, action)
        if not state.is_over() and len(state.legal_actions(min(state.current_seats()))) > 1:
            out.append(state)
    return out


def speed(args: argparse.Namespace) -> None:
    for name, players in (("cafe", 1), ("cafe", 2), ("coffee-rush", 2), ("coffee-rush", 4)):
        positions = _positions(name, players, args.positions, args.seed)
        rates = []
        for state in positions:
            seat = min(state.current_seats())
            _, info = make_bot("ismcts:0.5s", 1).choose(state, seat)
            if info.get("iterations"):
                rates.append(info["iterations_per_second"])
        print(
            f"{name} {players}p: ISMCTS median {statistics.median(rates):,.0f} iterations/s "
            f"(min {min(rates):,.0f}, max {max(rates):,.0f}; {len(rates)} positions with a search)"
        )
        for level in LEVELS:
            times = []
            for state in positions:
                seat = min(state.current_seats())
                start = time.perf_counter()
                make_bot(f"ismcts:{level}", 2).choose(state, seat)
                times.append(time.perf_counter() - start)
            print(
                f"   level {level} ({LEVELS[level].time} s): median decision {statistics.median(times):.3f} s, "
                f"max {max(times):.3f} s"
            )
        times = []
        for state in positions:
            seat = min(state.current_seats())
            start = time.perf_counter()
            make_bot("greedy", 2).choose(state, seat)
            times.append(time.perf_counter() - start)
        print(
            f"   greedy: median decision {statistics.median(times):.3f} s, max {max(times):.3f} s"
        )


def _deck_game(job: tuple[str, int]) -> dict[str, Any]:
    spec, seed = job
    state = find_game("cafe").new_initial_state(1, seed)
    bot = make_bot(spec, seed * 16)
    taken: list[str] = []
    while not state.is_over():
        action, _ = bot.choose(state, 0)
        text = state.apply(0, action).notation()
        if text.startswith("take "):
            taken.append(text.split()[1])
    area = state.players[0].area
    return {
        "score": state.scores()[0].total,
        "taken": taken,
        "shops_visible": sum(1 for shop in area.shops if shop.available),
        "shops_complete": sum(1 for shop in area.shops if shop.complete),
    }


def cards(args: argparse.Namespace) -> None:
    """Calibration data for the Café deck (shared/reference/cafe-card-facts.md): how often
    each card is taken when offered, the mean final score of games where it was taken, and
    how many final areas have no shop left."""
    jobs = [(args.bot, args.seed + g) for g in range(args.games)]
    if args.workers <= 1:
        out = [_deck_game(job) for job in jobs]
    else:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            out = list(pool.map(_deck_game, jobs))
    mean = statistics.fmean(r["score"] for r in out)
    by_card: dict[str, list[int]] = {}
    for r in out:
        for card in r["taken"]:
            by_card.setdefault(card, []).append(r["score"])
    print(f"{args.bot}: {len(out)} solo games, mean score {mean:.2f}")
    print(
        f"final areas with no shop left: {sum(1 for r in out if r['shops_visible'] == 0) / len(out):.0%}; "
        f"with no completed shop: {sum(1 for r in out if r['shops_complete'] == 0) / len(out):.0%}"
    )
    rows = sorted(by_card.items(), key=lambda kv: -statistics.fmean(kv[1]))
    print("card  taken  mean score when taken (difference to all games)")
    for card, scores in rows:
        print(
            f"{card:<6}{len(scores):5d}  {statistics.fmean(scores):6.2f} ({statistics.fmean(scores) - mean:+.2f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1000)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("solo")
    p.add_argument("--bots", default="greedy,ismcts:hard")
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--plot", metavar="FILE")
    p = sub.add_parser("h2h")
    p.add_argument("game")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--games", type=int, default=100)
    p = sub.add_parser("cards")
    p.add_argument("--bot", default="greedy")
    p.add_argument("--games", type=int, default=200)
    p = sub.add_parser("speed")
    p.add_argument("--positions", type=int, default=8)
    args = parser.parse_args()
    {"solo": solo, "h2h": h2h, "speed": speed, "cards": cards}[args.command](args)


if __name__ == "__main__":
    main()
