"""Game review: analysis time, and how well the estimated loss predicts the real one.

python3 benchmarks/review.py speed [--stride 4]
    For each game (solo Café, 2-player Café, 2-player Coffee Rush) and each budget
    (greedy; ismcts 20 and 60 iterations; 8 deals a move), the analysis of every
    `stride`-th decision of a greedy game: median and mean seconds per decision, and the
    estimated seconds per game (mean x the game's decisions).
python3 benchmarks/review.py calibration --positions 300 [--bot greedy] [--samples 8]
    Positions from games of greedy and random moves; at each, the estimated difference
    between the bot's move and the move made (on determinizations), against the actual
    difference when each is played out by the greedy beam on the record's real cards:
    mean of both, their correlation, the slope of actual on estimated, and the mean of
    both by bucket of the estimate (solo Café in VP; Coffee Rush in VP and winning chance).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

from coffeetable.bots.base import Limit
from coffeetable.bots.make import make_bot
from coffeetable.bots.review import (
    Decision,
    ReviewSettings,
    analyse,
    decisions,
    playout,
)
from coffeetable.core.game import Action
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game

GAMES = [("cafe", 1), ("cafe", 2), ("coffee-rush", 2)]
BUDGETS = [
    ReviewSettings("greedy", samples=8),
    ReviewSettings("ismcts", Limit(iterations=20), samples=8),
    ReviewSettings("ismcts", Limit(iterations=60), samples=8),
]


def played_record(game: str, players: int, seed: int, bot: str) -> GameRecord:
    state = find_game(game).new_initial_state(players, seed)
    record = GameRecord(game, [bot] * players, seed, dict(state.options))  # type: ignore[attr-defined]
    bots = [make_bot(bot, seed=seed * 10 + seat) for seat in range(players)]
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        record.actions.append((seat, state.apply(seat, action).notation()))
    return record


def speed(stride: int) -> None:
    print(f"analysis time per decision (every {stride}th decision of a greedy game, seed 1)")
    print(
        f"{'game':<16}{'budget':<26}{'n':>4}{'median s':>10}{'mean s':>9}{'dec/game':>9}{'s/game':>9}"
    )
    for game, players in GAMES:
        found = list(decisions(played_record(game, players, 1, "greedy")))
        picked = found[::stride]
        for settings in BUDGETS:
            times = []
            for decision in picked:
                start = time.perf_counter()
                analyse(decision, settings)
                times.append(time.perf_counter() - start)
            mean = statistics.fmean(times)
            print(
                f"{game + ' ' + str(players) + 'p':<16}{settings.key():<26}{len(times):>4}"
                f"{statistics.median(times):>10.3f}{mean:>9.3f}{len(found):>9}"
                f"{mean * len(found):>9.1f}",
                flush=True,
            )


def real_result(decision: Decision, move: Action) -> tuple[float, float, float]:
    """The move played out on the record's real cards: the seat's score, win share, and
    margin over the best other seat."""
    state = decision.state.clone()
    state.apply_unchecked(decision.seat, move)
    playout(state)
    scores = [s.total for s in state.scores()]
    winners = state.winners()
    seat = decision.seat
    win = 1.0 / len(winners) if seat in winners else 0.0
    others = [s for i, s in enumerate(scores) if i != seat]
    margin = scores[seat] - max(others) if others else scores[seat]
    return float(scores[seat]), win, float(margin)


def calibration(game: str, players: int, positions: int, bot: str, samples: int) -> None:
    settings = ReviewSettings(bot, samples=samples, seed=1)
    pool: list[Decision] = []
    seed = 100
    rng = random.Random(7)
    while len(pool) < positions * 3:
        for kind in ("greedy", "random"):
            record = played_record(game, players, seed, kind)
            pool.extend(d for d in decisions(record) if d.seat == 0)
        seed += 1
    picked = rng.sample(pool, positions)
    est_vp, act_vp, est_win, act_win = [], [], [], []
    start = time.perf_counter()
    for done, decision in enumerate(picked, 1):
        if done % 50 == 0:
            print(f"  ... {done} positions, {len(est_vp)} compared", flush=True)
        review = analyse(decision, settings)
        bot_move = decision.state.game.parse_action(review.bot_move)
        played = decision.state.canonical_action(decision.seat, decision.action)
        if bot_move == played:
            continue
        mine, theirs = real_result(decision, played), real_result(decision, bot_move)
        est_vp.append(review.suggested_score - review.played_score)
        if players > 1:
            est_win.append(review.bot_estimate - review.played_estimate)
            act_win.append(theirs[1] - mine[1])
        act_vp.append(theirs[0] - mine[0])
    seconds = time.perf_counter() - start
    print(
        f"\n{game} {players}p, {settings.key()}: {positions} positions, "
        f"{len(est_vp)} where the bot's move differs from the move made ({seconds:.0f} s)"
    )
    report("VP (bot's move - move made)", est_vp, act_vp)
    if players > 1:
        report("winning chance (bot's move - move made)", est_win, act_win)


def report(what: str, estimated: list[float], actual: list[float]) -> None:
    n = len(estimated)
    if n < 3:
        print(f"  {what}: too few positions")
        return
    me, ma = statistics.fmean(estimated), statistics.fmean(actual)
    r = statistics.correlation(estimated, actual) if len(set(estimated)) > 1 else math.nan
    slope = (
        statistics.linear_regression(estimated, actual).slope
        if len(set(estimated)) > 1
        else math.nan
    )
    print(
        f"  {what}: n {n}, mean estimated {me:+.2f}, mean actual {ma:+.2f}, r {r:.2f}, slope {slope:.2f}"
    )
    order = sorted(range(n), key=lambda i: estimated[i])
    buckets = 4
    for b in range(buckets):
        part = order[b * n // buckets : (b + 1) * n // buckets]
        if part:
            print(
                f"    quarter {b + 1}: estimated {statistics.fmean(estimated[i] for i in part):+.2f}"
                f"  actual {statistics.fmean(actual[i] for i in part):+.2f}  (n {len(part)})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--stride", type=int, default=4)
    c = sub.add_parser("calibration")
    c.add_argument("--positions", type=int, default=300)
    c.add_argument("--bot", default="greedy")
    c.add_argument("--samples", type=int, default=8)
    c.add_argument("--game", default=None, help="one game (cafe, coffee-rush); both by default")
    args = parser.parse_args()
    if args.command == "speed":
        speed(args.stride)
        return
    for game, players in (("cafe", 1), ("coffee-rush", 2)):
        if args.game in (None, game):
            calibration(game, players, args.positions, args.bot, args.samples)


if __name__ == "__main__":
    main()
