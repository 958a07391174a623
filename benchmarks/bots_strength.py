"""Bot strength and speed, for the figures in docs/bots.md and the issue notes.

    python3 benchmarks/bots_strength.py solo --bots greedy,ismcts:hard --games 200
        Café solo: mean, spread and the distribution over the rulebook's rating table.
    python3 benchmarks/bots_strength.py h2h coffee-rush ismcts:hard greedy --games 100
        Two-player head-to-head, seats alternated on shared deals: win share, 95 % interval,
        each bot's mean score and the first's margin. With the same bot twice (`h2h cafe
        greedy greedy`), a deal a game and each seat's mean: equal bots should score alike at
        every seat. `--players 3` or `4`: the first bot in one seat and the second in the
        others, the first taking every seat in turn on each deal; its win share beside the 1/N
        of equal bots, and its margin over the best of the others. `--out FILE` appends each
        game (deal, seats' bots, scores, winners) as a JSON line, to pair two runs.
    python3 benchmarks/bots_strength.py speed
        ISMCTS iterations per second per game, and decision time per level.
    python3 benchmarks/bots_strength.py ranking --games 40 --decks 4 --out turns.jsonl
        How well Café's evaluation ranks a solo turn's alternatives: at round starts of greedy
        games, the best complete turn of each first step (greedy's split beam), each played
        to the end by greedy on the same future cards, over several decks; the points that
        choosing by the evaluation, by ISMCTS's one-turn lookahead or by the playouts
        themselves gain over a random choice of those turns. `--out` writes every turn (its
        end position, evaluations and outcomes) for fitting a learned evaluation.
    python3 benchmarks/bots_strength.py endgame --from-round 8 --bots ismcts:hard --games 51
        Café solo from a round's start: greedy plays each deal into round R, then each bot
        plays the same position to the end; mean final score, and each bot paired with the
        first (or with an earlier run's `--out` file, `--against FILE`, to compare two
        versions of the code). A change that only touches late rounds shows here at a
        fraction of a whole game's noise.
    python3 benchmarks/bots_strength.py cards --bot greedy --players 4 --games 100
        Café deck calibration data: how often each card is picked when on display (the
        "no dominant card" rule), the mean score of its takers, and the share of games where
        some final area has no shop left.

Games run in parallel worker processes (`--workers`, default 2: this machine's cores), each
seeded, so results do not depend on the number of workers. `--plot FILE` (solo) writes
score histograms with matplotlib when it is installed.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from coffeetable import find_game
from coffeetable.bots import LEVELS, calibrate, heuristics, make_bot
from coffeetable.bots.greedy import MAX_EXPANSIONS, BeamCache, best_turns
from coffeetable.bots.heuristics import value
from coffeetable.bots.ismcts import (
    LOOKAHEAD_WIDTH,
    ROOT_TURNS,
    SOLO_WIDEST,
    WIDEST,
    _play_next_turns,
)
from coffeetable.games.cafe.state import ROUNDS

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
    jobs: list[Any],
    workers: int,
    report: Callable[[list[dict[str, Any]]], str] | None = None,
    play: Callable[[Any], dict[str, Any]] = _play,
    each: Callable[[Any, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Play the games (`play` of each job, in order); after each one, call `each(job,
    result)` and print to standard error how many are done and `report` of the results so
    far, so that a long run that is stopped still tells what it found."""
    start = time.perf_counter()
    out: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if workers <= 1:
            results: Iterator[dict[str, Any]] = map(play, jobs)
        else:
            pool = stack.enter_context(ProcessPoolExecutor(max_workers=workers))
            results = pool.map(play, jobs)
        for job, r in zip(jobs, results, strict=False):
            out.append(r)
            if each is not None:
                each(job, r)
            tally = f"; {report(out)}" if report is not None else ""
            print(
                f"  {len(out)}/{len(jobs)} games, {time.perf_counter() - start:.0f} s{tally}",
                file=sys.stderr,
                flush=True,
            )
    return out


def _endgame_play(job: tuple[str, int, int]) -> dict[str, Any]:
    """Café solo deal `seed`, played by greedy into round `from_round`, then by `spec`."""
    spec, seed, from_round = job
    state = find_game("cafe").new_initial_state(1, seed, {})
    greedy = make_bot("greedy", seed * 16)
    while state.round_number() < from_round and not state.is_over():
        state.apply(0, greedy.choose(state, 0)[0])
    bot = make_bot(spec, seed * 16)
    while not state.is_over():
        state.apply(0, bot.choose(state, 0)[0])
    return {"bot": spec, "deal": seed, "from_round": from_round, "score": state.scores()[0].total}


def _paired(label: str, base: dict[int, int], other: dict[int, int]) -> str:
    """`other` minus `base` over their common deals: mean ± one standard error."""
    deals = sorted(set(base) & set(other))
    if len(deals) < 2:
        return f"{label}: fewer than 2 common deals"
    diffs = [other[d] - base[d] for d in deals]
    se = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return (
        f"{label}: {statistics.fmean(diffs):+.2f} ± {se:.2f} (one standard error) over "
        f"{len(deals)} deals, better on {sum(x > 0 for x in diffs)}, "
        f"worse on {sum(x < 0 for x in diffs)}"
    )


def _endgame_file(path: str, from_round: int) -> dict[str, dict[int, int]]:
    """An earlier `endgame --out` file: per bot, each deal's final score from that round."""
    earlier: dict[str, dict[int, int]] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if r["from_round"] == from_round:
                    earlier.setdefault(r["bot"], {})[int(r["deal"])] = int(r["score"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        sys.exit(f"--against {path}: not an endgame --out file ({error!r})")
    return earlier


def endgame(args: argparse.Namespace) -> None:
    if not 1 <= args.from_round <= ROUNDS:
        sys.exit(f"--from-round must be a round of the game, 1 to {ROUNDS}")
    specs = args.bots.split(",")
    earlier = _endgame_file(args.against, args.from_round) if args.against else {}
    jobs = [(spec, args.seed + g, args.from_round) for g in range(args.games) for spec in specs]
    out = _run(jobs, args.workers, play=_endgame_play)
    scores: dict[str, dict[int, int]] = {spec: {} for spec in specs}
    for r in out:
        scores[r["bot"]][r["deal"]] = r["score"]
    if args.out:
        with open(args.out, "a", encoding="utf-8") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")
    for spec in specs:
        values = list(scores[spec].values())
        print(
            f"{spec} from round {args.from_round}: {len(values)} deals, mean final score "
            f"{statistics.fmean(values):.2f}"
        )
    for spec in specs[1:]:
        print("  " + _paired(f"{spec} against {specs[0]}", scores[specs[0]], scores[spec]))
    for spec in specs:
        if spec in earlier:
            print("  " + _paired(f"{spec} against {args.against}", earlier[spec], scores[spec]))


def band(score: int) -> int:
    for i, (threshold, _) in enumerate(RATINGS):
        if score >= threshold:
            return len(RATINGS) - 1 - i
    return 0


def _solo_tally(out: list[dict[str, Any]]) -> str:
    """The last game's score and the mean so far (the games come in deal order), so that a
    long run that is stopped can still be paired deal by deal with another."""
    scores = [r["scores"][0] for r in out]
    return f"game {len(scores)} scored {scores[-1]}, mean {statistics.fmean(scores):.2f}"


def _gauge() -> str:
    """How much search fits in this machine's time, now: the seconds for ISMCTS's widening
    runs of the root beam (widths 12 to 384, no time limit) on 4 fixed Café solo positions.
    A time-budgeted bot plays better where this is smaller (the same `hard` scored 1.3 to
    2.0 points more solo on a machine that ran the test suite in 261 s than on one that
    took 462 s, docs/bots.md), so a run's figures compare only with a like gauge's."""
    positions = _positions("cafe", 1, 4, 1000)
    for state in positions:  # a first pass fills the process's caches of actions
        _ladder(state, SOLO_WIDEST, cached=True)
    times = [_ladder(state, SOLO_WIDEST, cached=True) for state in positions]
    return f"speed gauge: root beam 12 to {SOLO_WIDEST} on 4 solo positions, {sum(times):.2f} s" + (
        f" in all ({', '.join(f'{t:.3f}' for t in times)} s)"
    )


def solo(args: argparse.Namespace) -> None:
    print(_gauge(), flush=True)
    results: dict[str, list[int]] = {}
    for spec in args.bots.split(","):
        start = time.perf_counter()
        jobs = [("cafe", [spec], args.seed + g, {}) for g in range(args.games)]
        out = _run(jobs, args.workers, _solo_tally)
        scores = [r["scores"][0] for r in out]
        results[spec] = scores
        if args.out:  # a line a game, to pair two runs on the same deals
            with open(args.out, "a", encoding="utf-8") as f:
                for g, score in enumerate(scores):
                    f.write(json.dumps({"bot": spec, "deal": args.seed + g, "score": score}) + "\n")
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
    _print_paired(results)
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
    print(_gauge(), flush=True)
    jobs = []
    n_seats = args.players
    same = args.a == args.b  # a bot against itself: a deal a game (the seats are the point)
    for g in range(args.games):
        # `a` in one seat, `b` in the others; on each deal `a` takes every seat in turn (with
        # 2 players: [a, b], then [b, a])
        specs = [args.b] * n_seats
        specs[g % n_seats] = args.a
        jobs.append((args.game, specs, args.seed + (g if same else g // n_seats), {}))
    start = time.perf_counter()

    def summary(out: list[dict[str, Any]]) -> str:
        if same:
            return f"{len(out)} games; {by_seat(out)}"
        points = 0.0  # a's wins, a tie's shared
        mine: list[int] = []
        theirs: list[int] = []
        margins: list[int] = []  # a's score less the best of the others'
        for r in out:
            seat = r["specs"].index(args.a)
            if seat in r["winners"]:
                points += 1 / len(r["winners"])
            others = [x for s, x in enumerate(r["scores"]) if s != seat]
            mine.append(r["scores"][seat])
            theirs += others
            margins.append(r["scores"][seat] - max(others))
        n = len(out)
        p = points / n
        low, high = _wilson(p, n)
        even = f" (equal bots: {1 / n_seats:.0%})" if n_seats > 2 else ""
        spread = f" ± {statistics.stdev(margins) / math.sqrt(n):.2f}" if n > 1 else ""
        return (
            f"{args.a} wins {p:.1%} of {n}{even} (95 % CI {low:.1%}-{high:.1%}); mean scores "
            f"{statistics.fmean(mine):.2f} vs {statistics.fmean(theirs):.2f}; "
            f"margin over the best other {statistics.fmean(margins):+.2f}{spread}"
        )

    def by_seat(out: list[dict[str, Any]]) -> str:
        # each seat's mean, whoever sat there: equal bots should score alike at every seat
        # (a gap showed a fault in Café's evaluation of the seat that finishes first)
        return "; ".join(
            f"seat {seat} mean {statistics.fmean(r['scores'][seat] for r in out):.2f}, "
            f"wins {sum(1 / len(r['winners']) for r in out if seat in r['winners']):g}"
            for seat in range(n_seats)
        )

    def record(job: tuple[str, list[str], int, dict[str, Any]], r: dict[str, Any]) -> None:
        # a line a game as it ends, to pair two runs on the same deals and seats
        if args.out:
            line = {"deal": job[2], "specs": job[1], "scores": r["scores"], "winners": r["winners"]}
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")

    out = _run(jobs, args.workers, summary, each=record)
    print(
        f"{args.game}, {n_seats} players: {args.a} vs {args.b}, {len(out)} games: "
        f"{summary(out)}; {time.perf_counter() - start:.0f} s"
    )
    if not same:
        print(f"  by seat: {by_seat(out)}")


def _print_paired(results: dict[str, list[int]]) -> None:
    """Each bot after the first against the first, deal by deal (the same deals and seeds):
    the mean of the paired difference ± one standard error, and the deals better and worse."""
    specs = list(results)
    for spec in specs[1:]:
        diffs = [b - a for a, b in zip(results[specs[0]], results[spec], strict=True)]
        if len(diffs) < 2:
            continue
        se = statistics.stdev(diffs) / math.sqrt(len(diffs))
        print(
            f"{spec} - {specs[0]}, paired on {len(diffs)} deals: "
            f"{statistics.fmean(diffs):+.2f} ± {se:.2f} (SE); "
            f"{sum(d > 0 for d in diffs)} better, {sum(d < 0 for d in diffs)} worse"
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


def _draft_positions(count: int, seed: int) -> list[Any]:
    """Café solo drafts (a choice of card) reached by greedy play, one game after another."""
    out: list[Any] = []
    game = find_game("cafe")
    while len(out) < count:
        state = game.new_initial_state(1, seed + len(out))
        bot = make_bot("greedy", seed)
        while not state.is_over() and len(out) < count:
            legal = state.legal_actions(0)
            if len(legal) > 1 and legal[0].notation().startswith("take"):
                out.append(state.clone())
            action, _ = bot.choose(state, 0)
            state.apply(0, action)
    return out


def speed(args: argparse.Namespace) -> None:
    cases = [
        ("cafe", 1, "cafe 1p"),
        ("cafe", 1, "cafe 1p drafts"),
        ("cafe", 2, "cafe 2p"),
        ("coffee-rush", 2, "coffee-rush 2p"),
        ("coffee-rush", 4, "coffee-rush 4p"),
    ]
    for name, players, label in cases:
        if label.endswith("drafts"):
            positions = _draft_positions(args.positions, args.seed)
        else:
            positions = _positions(name, players, args.positions, args.seed)
        rates = []
        for state in positions:
            seat = min(state.current_seats())
            _, info = make_bot("ismcts:0.5s", 1).choose(state, seat)
            if info.get("iterations"):
                rates.append(info["iterations_per_second"])
        if rates:
            print(
                f"{label}: ISMCTS median {statistics.median(rates):,.0f} iterations/s (min "
                f"{min(rates):,.0f}, max {max(rates):,.0f}; {len(rates)} positions with a search)"
            )
        else:  # the root's beams took the time: no sweep (Café)
            print(f"{label}: no ISMCTS iterations at 0.5 s")
        for level in LEVELS:
            times = []
            sweeps = []  # Café's turn lookahead: complete sweeps over the arms
            widths = []  # the root beam's width (Café widens it while time allows)
            for state in positions:
                seat = min(state.current_seats())
                start = time.perf_counter()
                _, info = make_bot(f"ismcts:{level}", 2).choose(state, seat)
                times.append(time.perf_counter() - start)
                if "sweeps" in info:
                    sweeps.append(info["sweeps"])
                if "root_width" in info:
                    widths.append(info["root_width"])
            swept = f", median sweeps {statistics.median(sweeps):g}" if sweeps else ""
            if widths:
                swept += f", root widths {sorted(widths)}"
            print(
                f"   level {level} ({LEVELS[level].time} s): median decision {statistics.median(times):.3f} s, "
                f"max {max(times):.3f} s{swept}"
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
        if name == "cafe":
            widest = SOLO_WIDEST if players == 1 else WIDEST
            plain = [_ladder(state, widest, cached=False) for state in positions]
            cached = [_ladder(state, widest, cached=True) for state in positions]
            print(
                f"   root beam widened {ROOT_TURNS} to {widest} (no time limit): median "
                f"{statistics.median(cached):.3f} s sharing a BeamCache, "
                f"{statistics.median(plain):.3f} s without; in all {sum(plain) / sum(cached):.2f}"
                " times as fast"
            )


def _ladder(state: Any, widest: int, cached: bool) -> float:
    """Seconds for ISMCTS's widening runs of the root beam (widths 12 to `widest`, each with
    its expansion budget) on one determinization, sharing a BeamCache or not; with the
    garbage collector paused, as ISMCTS pauses it while it searches (with it running, its
    full collections took more than half of these seconds)."""
    seat = min(state.current_seats())
    first = state.resample_hidden(seat, random.Random(1))
    heuristics._HAND_VALUES.clear()  # the placement memo starts empty in both runs
    cache = BeamCache() if cached else None
    paused = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        width = ROOT_TURNS
        while width <= widest:
            best_turns(
                first,
                seat,
                width=width,
                keep=ROOT_TURNS,
                expansions=MAX_EXPANSIONS * width // ROOT_TURNS,  # as ISMCTS's runs
                cache=cache,
            )
            width *= 2
        return time.perf_counter() - start
    finally:
        if paused:
            gc.enable()


def _deck_game(job: tuple[str, int, int]) -> dict[str, Any]:
    spec, players, seed = job
    return calibrate.play_one(find_game("cafe"), spec, players, seed)


def cards(args: argparse.Namespace) -> None:
    """Calibration data for the Café deck (shared/reference/cafe-card-facts.md), at any
    player count: how often each card is picked when it is on display (the "no dominant
    card" rule: no card more than 3x the median rate), the mean final score of the seats
    that took it, and the share of games where some final area has no shop left (the rule:
    under 10 %). The figures are `coffeetable.bots.calibrate`'s, as the server's deck
    calibration gives them."""
    jobs = [(args.bot, args.players, args.seed + g) for g in range(args.games)]
    out = _run(jobs, args.workers, play=_deck_game)
    f = calibrate.figures(out, args.bot, args.players)
    print(
        f"{args.bot}: {f['games']} games of {args.players} player(s), mean score {f['mean_score']:.2f}"
    )
    print(
        f"games where some final area has no shop left: {f['shop_free_share']:.0%} (rule: under 10 %); "
        f"where some area has no completed shop: {f['no_completed_shop_share']:.0%}"
    )
    print(
        f"pick rate when on display: median {f['median_pick_rate']:.2f}, highest "
        f"{f['top_pick_rate']:.2f} ({f['top_card']}, {f['top_ratio']:.1f}x the median; rule: at most 3x)"
    )
    print("card  offered  picked  rate  mean score of its takers (difference to all seats)")
    for row in f["cards"]:
        print(
            f"{row['card']:<6}{row['offered']:7d} {row['picked']:7d}  {row['rate']:.2f}"
            f"  {row['takers_mean']:6.2f} ({row['difference']:+.2f})"
        )


RANKING_SPLIT = 12  # greedy's split beam: each first step's best complete turn, at most 12


def _greedy_to_end(state: Any) -> int:
    """The solo score when greedy (seeded 0) plays `state` to the end."""
    bot = make_bot("greedy", 0)
    while not state.is_over():
        action, _ = bot.choose(state, 0)
        state.apply(0, action)
    return int(state.score(0).total)


def _next_turn_value(state: Any) -> float:
    """ISMCTS's turn lookahead in solo Café, as its sweeps play it: the next turn by the
    greedy beam at the lookahead's width, on this deal, then the evaluation."""
    _play_next_turns(state, 0, LOOKAHEAD_WIDTH, math.inf)
    return value(state, 0)


def _rank_turns(state: Any, seed: int, decks: int) -> dict[str, Any] | None:
    """A solo round start's alternatives: the best complete turn of each first step, each
    scored on the same `decks` deals of the cards to come (common random numbers)."""
    det = state.resample_hidden(0, random.Random(seed))
    turns, _ = best_turns(det, 0, keep=RANKING_SPLIT, split=RANKING_SPLIT)
    # the deals: drawn before the turn is played, since its end deals the next round's
    # display; a solo turn draws no card before that, so every turn is legal on every deal,
    # and each deal gives every turn the same cards
    deals = [state.resample_hidden(0, random.Random(seed + 1 + d)) for d in range(decks)]
    rows = []
    for v, steps in turns:
        ends = []
        for deal in deals:
            after = deal.clone()
            for action in steps:
                after.apply_unchecked(0, action)
            ends.append(after)
        if ends[0].is_over():  # a last-round turn ends the game: nothing to rank by playouts
            return None
        rows.append(
            {
                "round": state.round_number(),
                "turn": [a.notation() for a in steps],
                "value": v,
                "lookahead": [_next_turn_value(e.clone()) for e in ends],
                "outcomes": [_greedy_to_end(e.clone()) for e in ends],
                "position": ends[0].to_json(),
            }
        )
    return {"turns": rows} if len(rows) > 1 else None


def _ranking_game(job: tuple[int, int, int]) -> dict[str, Any]:
    seed, positions, decks = job
    rng = random.Random(seed)
    state = find_game("cafe").new_initial_state(1, seed)
    bot = make_bot("greedy", seed * 16)
    rounds = set(rng.sample(range(1, 8), positions))
    found = []
    last = None
    while not state.is_over():
        if state.round_number() != last:
            last = state.round_number()
            if last in rounds and (ranked := _rank_turns(state, rng.randrange(1 << 30), decks)):
                found.append(ranked)
        action, _ = bot.choose(state, 0)
        state.apply(0, action)
    return {"positions": found}


def ranking(args: argparse.Namespace) -> None:
    """How well Café's evaluation ranks the alternatives of a solo turn, measured against
    greedy playouts to the end on shared cards. Every figure is in points of expected final
    score (the mean over the decks) over a uniform random choice among a position's turns."""
    if args.load:  # the turns of an earlier run's --out, reported again
        with open(args.load) as f:
            positions = [json.loads(line) for line in f if line.strip()]
        args.decks = min(len(t["outcomes"]) for turns in positions for t in turns)
        deals = f"the deals of {args.load}"
    else:
        jobs = [(args.seed + g, args.positions, args.decks) for g in range(args.games)]
        out = _run(jobs, args.workers, play=_ranking_game)
        positions = [p["turns"] for r in out for p in r["positions"]]
        deals = f"{len(out)} solo deals"
    if args.out:
        with open(args.out, "w") as f:
            for turns in positions:
                f.write(json.dumps(turns) + "\n")
    if not positions:
        print("no position with two or more complete turns")
        return

    def mean(turn: dict[str, Any], decks: range, field: str = "outcomes") -> float:
        return statistics.fmean(turn[field][d] for d in decks)

    def first(turns: list[dict[str, Any]], key: Callable[[dict[str, Any]], float]) -> int:
        """The index of the turn that `key` ranks first."""
        return max(range(len(turns)), key=lambda i: key(turns[i]))

    def gain(
        turns: list[dict[str, Any]], key: Callable[[dict[str, Any]], float], decks: range
    ) -> float:
        """Points over a random choice: the turn that `key` ranks first, scored on `decks`."""
        means = [mean(t, decks) for t in turns]
        return means[first(turns, key)] - statistics.fmean(means)

    every, even, odd = range(args.decks), range(0, args.decks, 2), range(1, args.decks, 2)

    def crossed(turns: list[dict[str, Any]], field: str) -> float:
        """`gain` of choosing by `field` on half the decks, scored on the other half (each
        way round): the figure a search that does not see the cards to come can hope for."""
        return (
            gain(turns, lambda x: mean(x, even, field), odd)
            + gain(turns, lambda x: mean(x, odd, field), even)
        ) / 2

    choices = {
        "the evaluation (greedy's choice)": [
            gain(t, lambda x: x["value"], every) for t in positions
        ],
        "the one-turn lookahead (ISMCTS's sweeps), in sample": [
            gain(t, lambda x: mean(x, every, "lookahead"), every) for t in positions
        ],
        "the playouts, in sample (an upper bound)": [
            gain(t, lambda x: mean(x, every), every) for t in positions
        ],
    }
    if args.decks >= 2:
        # in sample, a choice sees the very cards it is scored on (the next round's display
        # above all); out of sample it does not, as a search on its own determinizations
        choices["the lookahead on half the decks, scored on the other half"] = [
            crossed(t, "lookahead") for t in positions
        ]
        choices["the playouts of half the decks, scored on the other half"] = [
            crossed(t, "outcomes") for t in positions
        ]
    n = len(positions)
    spread = statistics.fmean(
        max(m) - min(m) for m in ([mean(t, every) for t in turns] for turns in positions)
    )
    print(
        f"{n} positions of {deals}, {statistics.fmean(len(t) for t in positions):.1f} "
        f"turns each, {args.decks} decks; the best and worst turn differ by {spread:.2f} points"
    )
    agree = sum(
        first(t, lambda x: x["value"]) == first(t, lambda x: mean(x, every, "lookahead"))
        for t in positions
    )
    print(f"  the evaluation and the lookahead choose the same turn at {agree} of {n} positions")
    for label, gains in choices.items():
        sd = statistics.stdev(gains) / math.sqrt(n) if n > 1 else 0.0
        print(f"  choosing by {label}: {statistics.fmean(gains):+.2f} ± {sd:.2f}")
    if args.decks >= 2:
        # how far the turns' order is the position's and not the cards': the halves' outcomes
        # (centred per position) against each other
        halves: list[list[float]] = [[], []]
        for turns in positions:
            for half, decks in zip(halves, (even, odd), strict=True):
                means = [mean(t, decks) for t in turns]
                half.extend(m - statistics.fmean(means) for m in means)
        print(
            f"  the halves' outcomes, centred per position, correlate at {statistics.correlation(*halves):.2f}"
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
    p.add_argument("--out", metavar="FILE", help="append each game's score (JSON lines)")
    p = sub.add_parser("h2h")
    p.add_argument("game")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--games", type=int, default=100)
    p.add_argument(
        "--out", metavar="FILE", help="append each game (deal, specs, scores, winners) as JSON"
    )
    p.add_argument(
        "--players",
        type=int,
        default=2,
        choices=[2, 3, 4],
        help="a in one seat, b in the others; on each deal a takes every seat in turn",
    )
    p = sub.add_parser("cards")
    p.add_argument("--bot", default="greedy")
    p.add_argument("--players", type=int, default=1, choices=[1, 2, 3, 4])
    p.add_argument("--games", type=int, default=200)
    p = sub.add_parser("ranking")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--positions", type=int, default=3, help="round starts ranked per game")
    p.add_argument("--decks", type=int, default=4, help="deals of the cards to come per turn")
    p.add_argument("--out", metavar="FILE", help="write every ranked turn as JSON lines")
    p.add_argument("--load", metavar="FILE", help="report on the turns an earlier --out wrote")
    p = sub.add_parser("speed")
    p.add_argument("--positions", type=int, default=8)
    p = sub.add_parser("endgame")
    p.add_argument("--from-round", type=int, default=8)
    p.add_argument("--bots", default="ismcts:hard")
    p.add_argument("--games", type=int, default=51)
    p.add_argument("--out", metavar="FILE", help="append each position's result (JSON lines)")
    p.add_argument("--against", metavar="FILE", help="pair with an earlier run's --out")
    args = parser.parse_args()
    commands = {
        "solo": solo,
        "h2h": h2h,
        "speed": speed,
        "cards": cards,
        "ranking": ranking,
        "endgame": endgame,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
