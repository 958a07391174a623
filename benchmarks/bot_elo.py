"""The bot levels on the server's Elo scale (docs/bots.md, "Bot levels on the rating scale").

    python3 benchmarks/bot_elo.py cafe --games 40 [--players 2] [--write]
    python3 benchmarks/bot_elo.py coffee-rush --games 40 --write
    python3 benchmarks/bot_elo.py cafe --bots greedy,ismcts:medium --games 220 --workers 2 \\
        --out cafe.jsonl --resume
    python3 benchmarks/bot_elo.py cafe --games 4 --stand-in ismcts:hard=ismcts:hard
    python3 benchmarks/bot_elo.py cafe --bots greedy,ismcts:hard --games 140 --out cafe.jsonl \
        --resume --redis redis://HOST:6379/0 --workers 2
    python3 benchmarks/bot_elo.py coffee-rush --fit-only rush.jsonl [--write]
    python3 benchmarks/bot_elo.py coffee-rush --project 80,120,160
    python3 benchmarks/bot_elo.py coffee-rush --budgets 24 --seed 4242

Plays a round robin between the bots a table seat may hold (the server's SEAT_BOTS: random,
greedy, ismcts:easy, medium and hard) with `coffeetable.bots.tournament` (every pair
`--games` games on shared deals, seats swapped; played deal by deal across the pairs, so
that a run stopped early has every pair about equally measured), fits their Elo ratings (Bradley-Terry,
the 400-point logistic of the server's ratings, server/ratings.py) and anchors them on the
server's scale: `--anchor BOT=RATING`, by default greedy at the server's start rating
(DEFAULT_RATING, 1500: what the server gives a player it knows nothing about, and the bot
the lobby offers first). People and bots never play rated games against each other, so
the anchor is a convention, not a measurement: differences between the levels are measured,
and each level's 95 % interval is that of its difference to the anchor (0 for the anchor).

A level is played and recorded as the bot that plays it (bots/make.py, level_spec): the
game's own bot for the level (GAME_LEVELS: the greedy beams of both games' `easy` and
Coffee Rush's `medium` and `hard`, the last judged by a learned value:
`greedy:w48s4+learned=2`), else the search at the level's time read on the CPU clock
(`ismcts:0.3cpu`, `ismcts:1cpu`: Limit.cpu), so that a run on a busy machine plays the
level as a quiet core would. `--stand-in LEVEL=SPEC` plays SPEC in LEVEL's place instead
(`ismcts:hard=ismcts:hard`: the level at its wall-clock time) and says so in the file.
`--workers N` plays N games at a time in worker processes (each game seeded by its deal and
seat, so the games do not depend on N). `--redis redis://HOST:PORT/DB` puts the games on that
Redis queue instead (coffeetable.bots.selfplay), for `coffeetable selfplay-worker --redis
URL --processes N` on any number of machines to play (`--workers N` starts N of them here, 0
none): a Café run of the search at 1 s a decision takes hours of a core. A worker plays only
if its rules, bots and models are this checkout's, file for file (`source_digest`), so the
file's commit is the code that played every game; the games are the same as a local run's.

`--out FILE` appends each game, as it ends, to FILE as one JSON line (the pair and the
specs played, the deal, the seats and bot seeds, scores, winners, points, seconds, the
commit): a run stopped at any moment loses only the games in flight. `--resume` continues
such a file: the games of this run already in it (same game, deal, and seat by seat the same
bot, spec and seed) are not played again, and the fit uses every game in the file between
these bots played as these specs (files of runs on several machines may be concatenated:
a game in several of them counts once). Games of a bot played as another spec are never
used, and said. `--fit-only FILE` plays nothing: it fits (and with `--write` publishes)
the games in FILE; each bot's spec is the one FILE holds (`--stand-in` chooses when FILE
holds several). A last line cut short (a run killed while writing it) is skipped with a
warning, and dropped from FILE before `--resume` appends; any other line that is not a game
record stops the run with its line number.

After the ratings, the report gives each pair's games, share of the points and mean margin,
then the paired comparisons: two bots that each played a third on the same deals from the
same seat (the third with the same seed), compared game by game (the difference of their
points and margins ± one standard error; better, worse, the same): whether one level is
stronger than the next, measured more sharply than by their ratings.

`--project N,N,...` plays nothing: it prints each bot's interval at N games a pair, from the
published table's games (or --fit-only FILE's), each pair's expected score taken from the
fitted ratings except that the bots of `--never-wins` (default random) lose every game.

`--budgets POSITIONS` plays nothing: it lets ISMCTS at the time budgets of the levels
easy, medium and hard decide on the same mid-game positions (bots_strength.py's, from
--seed) and prints their median iterations and easy's and medium's median share of hard's:
how much each time level searches. (An iteration budget does not stand in for a time level
in Café, whose root beam widens only under a time budget: a run plays the level's time on
the CPU clock instead; docs/bots.md, "Café's time levels on the CPU clock".)

`--write` puts the result for this game, with its provenance (command, commit, date, games,
stand-ins, the 95 % intervals), into src/coffeetable/bots/data/bot-ratings.json, which the
server reads to show each bot's rating in the lobby.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import datetime
import json
import math
import os
import pathlib
import shlex
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

from _provenance import commit
from bots_strength import _wilson

from coffeetable import find_game
from coffeetable.bots import LEVELS as BOT_LEVELS
from coffeetable.bots import IsmctsBot, tournament
from coffeetable.bots.make import level_spec
from coffeetable.bots.tournament import PUBLISHED_RATINGS, GameJob, TournamentResult
from coffeetable.cli.main import _check_redis_url, _hide_password
from coffeetable.core.errors import DataError

DATA = pathlib.Path(__file__).resolve().parents[1] / "src" / "coffeetable" / "bots" / "data"
LEVELS = ("random", "greedy", "ismcts:easy", "ismcts:medium", "ismcts:hard")
START_RATING = 1500.0  # server.storage.base.DEFAULT_RATING (not imported: no server deps)


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return key.strip().lower(), value.strip().lower()


def _warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr, flush=True)


def _play(
    jobs: Sequence[GameJob], workers: int, redis: str | None = None
) -> Iterator[dict[str, Any]]:
    """Each job's record as its game ends (in that order, not the jobs' with workers). With
    `redis`, the games go on that queue, and `workers` local workers play there too."""
    if redis:
        import redis as redis_module

        from coffeetable.bots.selfplay import (
            SelfPlayQueue,
            run_workers,
            stop_workers,
            stopped_by_sigterm,
        )

        pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers) if workers else None
        try:
            for _ in range(workers):
                assert pool is not None
                pool.submit(run_workers, redis, 1, idle_exit=5.0)
            with stopped_by_sigterm():  # a kill withdraws the games not played, as Ctrl-C does
                yield from SelfPlayQueue(redis).run_games(jobs)
        except redis_module.RedisError as exc:
            raise DataError(f"error: the queue at {_hide_password(redis)}: {exc}") from exc
        except TimeoutError as exc:
            raise DataError(f"error: {exc}") from exc
        finally:
            if pool is not None:
                stop_workers(pool)
        return
    if workers <= 1:
        for job in jobs:
            yield tournament.play(job)
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(tournament.play, job) for job in jobs]
        try:
            for future in concurrent.futures.as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def _append(path: pathlib.Path, record: dict[str, Any]) -> None:
    """One record as one line, written whole and flushed to the disk before the next game."""
    line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


def _read(path: pathlib.Path, *, repair: bool) -> list[dict[str, Any]]:
    """The records of FILE; a torn last line is said and (`repair`) cut off the file."""
    try:
        found = tournament.read_records(path)
    except DataError as exc:
        sys.exit(f"error: {exc}; mend or remove that line (the other games stay usable)")
    if found.torn_tail is not None:
        action = "dropped from the file" if repair else "skipped"
        _warn(f"{found.torn_tail}; {action} (a game in flight when the run was stopped)")
        if repair:
            with path.open("r+b") as f:
                f.truncate(found.good_bytes)
    if repair and found.good_bytes:
        with path.open("r+b") as f:  # a whole last record without its newline (files joined)
            f.seek(found.good_bytes - 1)
            if f.read(1) != b"\n":
                f.write(b"\n")
    return found.records


def _played_in_file(
    records: Sequence[dict[str, Any]],
    game: str,
    players: int,
    bots: Sequence[str],
    stand_ins: dict[str, str],
) -> list[str]:
    """--fit-only: each bot's spec, from --stand-in or else the one FILE holds."""
    specs: dict[str, collections.Counter[str]] = {b: collections.Counter() for b in bots}
    for record in records:
        if record["game"] == game and record["players"] == players:
            for bot, spec in zip(record["pair"], record["played"], strict=True):
                if bot in specs:
                    specs[bot][spec] += 1
    played = []
    for bot in bots:
        if bot in stand_ins:
            played.append(stand_ins[bot])
        elif len(specs[bot]) > 1:
            held = ", ".join(f"{spec} ({n} games)" for spec, n in sorted(specs[bot].items()))
            sys.exit(
                f"error: the file holds games of {bot} played as {held}: choose one with "
                f"--stand-in {bot}=SPEC"
            )
        else:
            played.append(next(iter(specs[bot]), bot))
    return played


def _select(
    records: Sequence[dict[str, Any]],
    path: pathlib.Path,
    game: str,
    players: int,
    bots: Sequence[str],
    played: Sequence[str],
) -> list[dict[str, Any]]:
    chosen = tournament.select_records(records, game, players, bots, played)
    spec = dict(zip(bots, played, strict=True))
    for bot, counts in sorted(chosen.other_specs.items()):
        held = ", ".join(f"{n} as {s}" for s, n in sorted(counts.items()))
        _warn(f"{path}: games of {bot} played {held} are not used (this run: {spec[bot]})")
    if chosen.other_games:
        _warn(
            f"{path}: {chosen.other_games} games of another game, seat count or bots are not used"
        )
    if chosen.repeated:
        _warn(
            f"{path}: {chosen.repeated} games are in the file more than once, counted once"
            + (
                f" ({chosen.differing} with another result than the first)"
                if chosen.differing
                else ""
            )
        )
    return chosen.used


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("game", choices=["cafe", "coffee-rush"])
    parser.add_argument("--bots", default=",".join(LEVELS))
    parser.add_argument("--games", type=int, default=40, help="games per pair")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--prior-draws", type=float, default=1.0)
    parser.add_argument("--anchor", type=_pair, default=("greedy", str(START_RATING)))
    parser.add_argument("--stand-in", type=_pair, action="append", default=[])
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="games at a time (processes); with --redis, workers started here (0: none)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="put the games on this Redis queue, for `coffeetable selfplay-worker --redis URL` "
        "on any machines (and --workers here) to play",
    )
    parser.add_argument("--out", metavar="FILE", type=pathlib.Path, help="append each game")
    parser.add_argument("--resume", action="store_true", help="continue --out's FILE")
    parser.add_argument(
        "--fit-only", metavar="FILE", type=pathlib.Path, help="fit FILE's games, play none"
    )
    parser.add_argument("--write", action="store_true", help="update bot-ratings.json")
    parser.add_argument(
        "--project",
        metavar="N,N,...",
        help="play nothing: the intervals N games a pair would give, from the published "
        "table (or --fit-only FILE's games)",
    )
    parser.add_argument(
        "--budgets",
        type=int,
        metavar="POSITIONS",
        help="play nothing: what each ISMCTS level searches in its time, on POSITIONS positions",
    )
    parser.add_argument(
        "--never-wins",
        default="random",
        metavar="BOT,...",
        help="--project: bots taken to lose every game (default random: it lost all so far)",
    )
    args = parser.parse_args(argv)
    bots = [b.strip().lower() for b in args.bots.split(",") if b.strip()]
    if len(set(bots)) < len(bots):
        parser.error("--bots: a bot named twice")
    stand_ins = dict(args.stand_in)
    unknown = set(stand_ins) - set(bots)
    if unknown:
        parser.error(f"--stand-in for bots not in --bots: {', '.join(sorted(unknown))}")
    # a level is played and recorded as the bot that plays it (bots/make.py, level_spec):
    # the game's own bot for it (GAME_LEVELS), or the search at the level's time on the CPU
    # clock, which plays on this machine, however busy, as the level does on a quiet one; so
    # the file tells its games apart from those of the level when it was another bot
    for level in BOT_LEVELS:
        if f"ismcts:{level}" in bots:
            stand_ins.setdefault(f"ismcts:{level}", level_spec(args.game, level))
    anchor_bot, anchor_text = args.anchor
    if anchor_bot not in bots:
        parser.error(f"--anchor: {anchor_bot} is not one of the bots")
    try:
        anchor_rating = float(anchor_text)
    except ValueError:
        parser.error(f"--anchor: {anchor_text!r} is not a rating")
    if args.workers < (0 if args.redis else 1):
        parser.error("--workers must be at least 1 (0 with --redis)")
    if args.redis:
        try:
            _check_redis_url(args.redis)  # the worker command's check (the password hidden)
        except DataError as exc:
            parser.error(str(exc))
    if args.redis and (args.fit_only or args.budgets or args.project):
        parser.error("--redis plays games: not with --fit-only, --budgets or --project")
    if args.fit_only and (args.out or args.resume):
        parser.error("--fit-only plays nothing: no --out or --resume")
    if args.resume and not args.out:
        parser.error("--resume continues the file of --out FILE")
    if args.budgets:
        _budgets(args.game, args.players, args.budgets, args.seed)
        return
    if args.project:
        try:
            counts = [int(n) for n in args.project.split(",")]
        except ValueError:
            parser.error(f"--project: {args.project!r} is not a list of game counts")
        _project(args, bots, stand_ins, anchor_bot, counts)
        return
    game = find_game(args.game)
    start = time.perf_counter()
    run_commit = commit()
    if args.fit_only:
        if not args.fit_only.exists():
            sys.exit(f"error: {args.fit_only}: no such file")
        records = _read(args.fit_only, repair=False)
        played = _played_in_file(records, args.game, args.players, bots, stand_ins)
        used = _select(records, args.fit_only, args.game, args.players, bots, played)
        print(f"{len(used)} games from {args.fit_only}", file=sys.stderr, flush=True)
    else:
        played = [stand_ins.get(b, b) for b in bots]
        try:
            jobs = tournament.schedule(game, bots, args.games, args.seed, args.players, played)
        except DataError as exc:
            sys.exit(str(exc))
        used = []
        if args.out and args.out.exists() and args.out.stat().st_size and not args.resume:
            sys.exit(
                f"error: {args.out} already holds games: --resume to continue it (or another "
                "--out FILE)"
            )
        if args.resume:
            records = _read(args.out, repair=True)
            used = _select(records, args.out, args.game, args.players, bots, played)
            done = {tournament.record_key(r) for r in used}
            todo = [job for job in jobs if job.key() not in done]
            extra = len(used) - (len(jobs) - len(todo))
            print(
                f"{len(jobs) - len(todo)} of this run's {len(jobs)} games already in "
                f"{args.out}, {len(todo)} to play"
                + (f"; {extra} more games of these bots there, used in the fit" if extra else ""),
                file=sys.stderr,
                flush=True,
            )
        else:
            todo = jobs
        # deal by deal across the pairs (not pair after pair): a run stopped at any moment
        # leaves every pair with about as many games, the table the fit needs
        rank = {job.pair: n for n, job in enumerate(jobs)}
        todo.sort(key=lambda job: (job.index // 2, rank[job.pair], job.index))
        try:
            for n, record in enumerate(_play(todo, args.workers, args.redis), 1):
                record["commit"] = run_commit
                if args.out:
                    _append(args.out, record)
                used.append(record)
                print(
                    f"  {n}/{len(todo)} games, {time.perf_counter() - start:.0f} s "
                    f"({' vs '.join(record['played'])}, deal {record['deal']}: "
                    f"{record['points'][0]:g}-{record['points'][1]:g})",
                    file=sys.stderr,
                    flush=True,
                )
        except DataError as exc:
            sys.exit(str(exc) + (f"; --resume continues {args.out}" if args.out else ""))
        except KeyboardInterrupt:
            sys.exit("stopped" + (f"; --resume continues {args.out}" if args.out else ""))
    _report(args, argv, bots, played, used, anchor_bot, anchor_rating, run_commit, start)


def _budgets(game: str, players: int, count: int, seed: int) -> None:
    """The iterations of ismcts:easy, medium and hard (their time budgets) deciding on the same
    mid-game positions (bots_strength.py's), and easy's and medium's share of hard's: how
    much each level searches in its time (the shares hold on a busy machine too)."""
    from bots_strength import _positions

    found: list[list[int]] = []
    for n, state in enumerate(_positions(game, players, count, seed)):
        seat = min(state.current_seats())
        row = [
            int(IsmctsBot(n, BOT_LEVELS[level]).choose(state, seat)[1].get("iterations", 0))
            for level in ("easy", "medium", "hard")
        ]
        print(f"  position {n}: {row[0]} / {row[1]} / {row[2]} iterations", file=sys.stderr)
        if row[2]:
            found.append(row)
    if not found:
        sys.exit("error: no position was searched")
    medians = [statistics.median(r[k] for r in found) for k in range(3)]
    shares = [statistics.median(r[k] / r[2] for r in found) for k in range(2)]
    print(
        f"{game} {players}p, {len(found)} positions: median iterations easy {medians[0]:g}, "
        f"medium {medians[1]:g}, hard {medians[2]:g}; per position easy {shares[0]:.3f} and "
        f"medium {shares[1]:.3f} of hard's (medians)"
    )


def _project(
    args: argparse.Namespace,
    bots: list[str],
    stand_ins: dict[str, str],
    anchor_bot: str,
    counts: list[int],
) -> None:
    """Each bot's interval (against the anchor) at n games a pair: the fit's information with
    every pair's expected score from the ratings fitted to the games so far, except that the
    bots of --never-wins lose every game (random has lost every game measured: "Measured
    strength" in docs/bots.md; the prior's virtual draws make a fitted random win some)."""
    losers = {b.strip().lower() for b in args.never_wins.split(",") if b.strip()}
    if args.fit_only:
        records = _read(args.fit_only, repair=False)
        played = _played_in_file(records, args.game, args.players, bots, stand_ins)
        used = _select(records, args.fit_only, args.game, args.players, bots, played)
        pairs = TournamentResult.from_records(bots, used).pairs
        source = f"{len(used)} games of {args.fit_only}"
    else:
        table = json.loads((DATA / PUBLISHED_RATINGS).read_text("utf-8"))["games"][args.game]
        level = {row["played_as"]: name for name, row in table["bots"].items()}
        index = {bot: i for i, bot in enumerate(bots)}
        pairs = []
        for p in table["pairs"]:
            a, b = (index[level.get(p[x], p[x])] for x in ("a", "b"))
            pa, pb = (p["points_a"], p["points_b"]) if a < b else (p["points_b"], p["points_a"])
            pairs.append(tournament.PairResult(min(a, b), max(a, b), p["games"], pa, pb))
        source = f"the published table ({table['games_per_pair']} games a pair, {table['date']})"
    anchor = bots.index(anchor_bot)
    fitted = tournament.fit_elo(len(bots), pairs, args.prior_draws, anchor)
    print(f"95 % intervals against {anchor_bot}, projected from {source}")
    print("games a pair  " + "".join(f"{b:>15s}" for b in bots))
    for n in [sum(p.games for p in pairs) // max(len(pairs), 1), *counts]:
        scaled = []
        for p in pairs:
            if bots[p.a] in losers or bots[p.b] in losers:
                share = (
                    0.5
                    if bots[p.a] in losers and bots[p.b] in losers
                    else float(bots[p.b] in losers)
                )
            else:
                share = tournament.expected_score(fitted[p.a].elo, fitted[p.b].elo)
            scaled.append(tournament.PairResult(p.a, p.b, n, n * share, n * (1 - share)))
        ratings = tournament.fit_elo(len(bots), scaled, args.prior_draws, anchor)
        print(f"{n:12d}  " + "".join(f"{r.ci95:15.0f}" for r in ratings))


def _pair_lines(bots: list[str], used: list[dict[str, Any]]) -> list[str]:
    """Each pair that played: its games, the first bot's share of the points with its 95 %
    Wilson interval, and its mean margin (its score less the other's)."""
    games: dict[tuple[int, int], list[tuple[float, float]]] = collections.defaultdict(list)
    for r in used:
        a, b = (bots.index(name) for name in r["pair"])
        score = [0, 0]
        for seat, member in enumerate(r["members"]):
            score[member] = r["scores"][seat]
        share, margin = r["points"][0], score[0] - score[1]
        games[min(a, b), max(a, b)].append((share, margin) if a < b else (1 - share, -margin))
    lines = ["pairs: the first bot's share of the points (95 % Wilson), its mean margin"]
    for (a, b), rows in sorted(games.items()):
        n = len(rows)
        share = sum(s for s, _ in rows) / n
        low, high = _wilson(share, n)
        margin = sum(m for _, m in rows) / n
        lines.append(
            f"  {bots[a]} against {bots[b]}: {n} games, {share:.3f} ({low:.2f}-{high:.2f}), "
            f"{margin:+.2f}"
        )
    return lines


def _paired_lines(bots: list[str], used: list[dict[str, Any]]) -> list[str]:
    """Two bots that each played a third on the same deals from the same seat, compared game
    by game: the second's points (a shared win counts 1/k) and margin over the third, less the
    first's, each ± one standard error, and the games the second did better, worse or the same
    in. The third bot plays the same deal from the same seat with the same seed in both games,
    so what differs is the bot being compared (and the third's replies to it): a sharper test
    than the two ratings, which also carry the games against the other bots."""
    # by (third bot, bot): (deal, the bot's seat) -> (its points, its margin over the third)
    results: dict[tuple[str, str], dict[tuple[int, int], tuple[float, float]]] = (
        collections.defaultdict(dict)
    )
    for r in used:
        for me in (0, 1):
            bot, other = r["pair"][me], r["pair"][1 - me]
            seat = r["members"].index(me)
            margin = r["scores"][seat] - r["scores"][r["members"].index(1 - me)]
            results[other, bot][r["deal"], seat] = (float(r["points"][me]), float(margin))
    lines: list[str] = []
    for third in bots:
        for i, first in enumerate(bots):
            for second in bots[i + 1 :]:
                if third in (first, second):
                    continue
                a, b = results.get((third, first), {}), results.get((third, second), {})
                keys = sorted(set(a) & set(b))
                if len(keys) < 2:
                    continue
                points = [b[k][0] - a[k][0] for k in keys]
                margins = [b[k][1] - a[k][1] for k in keys]
                n = len(keys)
                deals = sorted({deal for deal, _ in keys})
                lines.append(
                    f"  {second} rather than {first} against {third}: {n} games (deals "
                    f"{deals[0]}-{deals[-1]}), points {statistics.fmean(points):+.3f} ± "
                    f"{statistics.stdev(points) / math.sqrt(n):.3f} a game, margin "
                    f"{statistics.fmean(margins):+.2f} ± "
                    f"{statistics.stdev(margins) / math.sqrt(n):.2f}; "
                    f"better in {sum(d > 0 for d in margins)}, worse in "
                    f"{sum(d < 0 for d in margins)}, the same in {sum(d == 0 for d in margins)}"
                )
    if not lines:
        return []
    return [
        "paired: the same deals and seats against the same bot, the second bot's points and "
        "margin less the first's (± one standard error)",
        *lines,
    ]


def _report(
    args: argparse.Namespace,
    argv: list[str] | None,
    bots: list[str],
    played: list[str],
    used: list[dict[str, Any]],
    anchor_bot: str,
    anchor_rating: float,
    run_commit: str,
    start: float,
) -> None:
    result = TournamentResult.from_records(bots, used)
    # the intervals of each rating's difference to the anchor's (fixed by convention): what
    # the published rating (anchor + difference) is uncertain by
    table = result.to_json(args.prior_draws, anchor=bots.index(anchor_bot))
    shift = anchor_rating - table["bots"][bots.index(anchor_bot)]["elo"]
    rows = {}
    for name, spec, row in zip(bots, played, table["bots"], strict=True):
        rows[name] = {
            "elo": round(row["elo"] + shift, 1),
            "ci95": row["elo_ci95"],
            "played_as": spec,
            "games": row["games"],
            "score_share": None if row["score_share"] is None else round(row["score_share"], 3),
            "mean_score": None if row["mean_score"] is None else round(row["mean_score"], 2),
        }
        share = "-" if row["score_share"] is None else f"{row['score_share']:.3f}"
        mean = "-" if row["mean_score"] is None else f"{row['mean_score']:.2f}"
        print(
            f"{name:15s} {row['elo'] + shift:7.0f} ± {row['elo_ci95']:.0f}"
            f"  (played as {spec}; {row['games']} games, score share {share}, mean score {mean})"
        )
    for line in [*_pair_lines(bots, used), *_paired_lines(bots, used)]:
        print(line)
    per_pair = [p["games"] for p in table["pairs"]]
    commits = collections.Counter(str(r.get("commit", "unknown")) for r in used)
    game_seconds = sum(float(r["seconds"]) for r in used)
    print(
        f"{len(used)} games ({min(per_pair)}-{max(per_pair)} a pair, {game_seconds:.0f} s of "
        f"play) in {time.perf_counter() - start:.0f} s; anchor {anchor_bot} = "
        f"{anchor_rating:.0f} (the intervals are of the differences to it); commits {', '.join(f'{c[:10]} ({n})' for c, n in commits.items())}"
    )
    if not args.write:
        return
    if not used:
        sys.exit("error: no games to publish")
    path = DATA / PUBLISHED_RATINGS
    data = json.loads(path.read_text("utf-8")) if path.exists() else {"games": {}}
    data["about"] = (
        "Bot levels on the server's Elo scale, per game, written by benchmarks/bot_elo.py "
        "(docs/bots.md, 'Bot levels on the rating scale')"
    )
    data["games"][args.game] = {
        "bots": rows,
        "command": shlex.join(
            ["python3", "benchmarks/bot_elo.py", *(argv if argv is not None else sys.argv[1:])]
        ),
        # the commit the games were played at (the most games' when several)
        "commit": commits.most_common(1)[0][0],
        "commits": dict(commits),
        "date": datetime.date.today().isoformat(),
        "players": args.players,
        "games_per_pair": min(per_pair),
        "games": len(used),
        "seed": sorted({r["deal"] for r in used})[0],
        "anchor": {"bot": anchor_bot, "rating": anchor_rating},
        "ci95_of": "the difference to the anchor's rating",
        "stand_ins": {b: s for b, s in zip(bots, played, strict=True) if b != s},
        "prior_draws": args.prior_draws,
        "seconds": round(game_seconds),
        "pairs": table["pairs"],
    }
    if len(commits) == 1 and run_commit not in commits:
        data["games"][args.game]["published_at"] = run_commit
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
