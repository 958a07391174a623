"""Self-play positions for a learned value (docs/bots.md, "The learned value").

    python3 benchmarks/selfplay.py --out positions.npz --games 200 --players 1 \\
        --bots greedy --workers 1 [--seconds 600] [--seed 20000] [--redis URL] \\
        [--game cafe|coffee-rush]

Plays games of `--game` (Café by default) with the bots (game g: bot `bots[g % len(bots)]` in every seat, deal
`seed + g`) and writes, for the seat that acted after each of its steps (`turn_end` 1 where
the step ended its turn, its part of a round: the positions a bot compares; with `--others`
also every other seat where a turn ends, `turn_end` 2: where a search scores its leaves), the features
the game's `coffeetable.bots.learned.FEATURES` give from that seat's own information (Café:
`cafe_features`, Coffee Rush: `rush_features`), and the game's outcome for it: its final score, its margin over the best other
seat and its share of the win (solo: margin 0, win 1). The file (numpy .npz, compressed)
holds `x` (positions x features, float32), the `command` that began it, `final`, `margin`,
`win`, `game` (the deal), `seat`, `round`, `players`, `turn_end`, the feature names, the bots,
the game's name (`game_name`), the deck's sha256 and each deal's bot.

Resumable: with an existing `--out`, the deals already in it are skipped and the new games
are added (same bots and deck required). Bounded by `--games` (deals seed .. seed+games-1)
and `--seconds` (no game is started after that; the file is written every `--save-every`
games and at the end). `--workers` plays games in that many processes; the results do not
depend on it (each game is seeded by its deal). Needs numpy (the `rl` extra).

Scaling out: with `--redis redis://HOST:PORT/DB` the games go on that Redis queue
(`coffeetable.bots.selfplay`) and `coffeetable selfplay-worker --redis URL --processes N`
processes on any machines play them (`--workers` more are started here; 0 for none); the file
is the same as a local run's of the same deals, in the same order.

This is a benchmarks/ script, not a `coffeetable` subcommand: it is a research tool that
needs numpy, like the figures of bots_strength.py, and no player needs it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from coffeetable import find_game
from coffeetable.bots import make_bot
from coffeetable.bots.learned import FEATURES, deck_sha256
from coffeetable.bots.selfplay import (
    Job,
    SelfPlayQueue,
    play,
    run_workers,
    stop_workers,
    stopped_by_sigterm,
)
from coffeetable.core.errors import DataError

COLUMNS = ("final", "margin", "win", "game", "seat", "round", "players", "turn_end")


def _outcome(r: dict[str, Any], seat: int) -> tuple[float, float, float]:
    scores = r["scores"]
    others = [x for i, x in enumerate(scores) if i != seat]
    margin = scores[seat] - max(others) if others else 0.0
    win = 1.0 / len(r["winners"]) if seat in r["winners"] else 0.0
    return float(scores[seat]), float(margin), win


def load(path: str) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def save(path: str, data: dict[str, Any]) -> None:
    tmp = f"{path}.tmp.npz"
    np.savez_compressed(tmp, **data)
    os.replace(tmp, path)


def _merge(
    data: dict[str, Any] | None, results: list[dict[str, Any]], meta: dict[str, Any]
) -> dict[str, Any]:
    xs, cols = [], {c: [] for c in COLUMNS}  # type: ignore[var-annotated]
    for r in results:
        players = len(r["scores"])
        for seat, rnd, end, feats in r["rows"]:
            final, margin, win = _outcome(r, seat)
            xs.append(feats)
            values = (final, margin, win, r["deal"], seat, rnd, players, end)
            for c, v in zip(COLUMNS, values, strict=True):
                cols[c].append(v)
    width = len(meta["features"])
    new = {
        "x": np.asarray(xs, dtype=np.float32).reshape(-1, width),
        **{
            c: np.asarray(v, dtype=np.float32 if c in ("final", "margin", "win") else np.int32)
            for c, v in cols.items()
        },
        "deals": np.asarray([r["deal"] for r in results], dtype=np.int32),
        "deal_bots": np.asarray([r["spec"] for r in results]),
    }
    if data is None:
        return {**meta, **new}
    out = dict(data)
    for key, value in new.items():
        out[key] = np.concatenate([data[key], value])
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True, help="the .npz file (added to if it exists)")
    parser.add_argument("--games", type=int, default=100, help="deals seed .. seed+games-1")
    parser.add_argument("--seconds", type=float, default=None, help="start no game after this")
    parser.add_argument("--players", type=int, default=1, choices=[1, 2, 3, 4])
    parser.add_argument("--game", default="cafe", choices=sorted(FEATURES))
    parser.add_argument(
        "--others",
        action="store_true",
        help="where a turn ends, keep the other seats' features too (turn_end 2)",
    )
    parser.add_argument("--bots", default="greedy", help="bots, by turns of deals")
    parser.add_argument("--seed", type=int, default=20000)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes that play here (with --redis: workers started here beside any "
        "others on the queue; 0: none)",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="put the games on this Redis queue, for `coffeetable selfplay-worker` processes "
        "on any machines",
    )
    parser.add_argument("--save-every", type=int, default=20)
    args = parser.parse_args(argv)
    if args.games < 1 or args.save_every < 1 or args.workers < (0 if args.redis else 1):
        parser.error("--games and --save-every must be at least 1, --workers too (0 with --redis)")
    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    try:
        for spec in specs:
            make_bot(spec)
    except DataError as exc:
        parser.error(str(exc))
    try:
        probe = find_game(args.game).new_initial_state(args.players, args.seed, {})
    except DataError as exc:
        parser.error(str(exc))
    features = FEATURES[args.game][0]
    meta = {
        "features": np.asarray(features),
        "game_name": np.asarray(args.game),
        "others": np.asarray(int(args.others)),
        "bots": np.asarray(specs),
        "deck_sha256": np.asarray(deck_sha256(probe) or ""),
        # how the file was begun (a resumed run keeps the first command)
        "command": np.asarray(
            shlex.join(
                ["python3", "benchmarks/selfplay.py", *(argv if argv is not None else sys.argv[1:])]
            )
        ),
    }
    data = load(args.out) if os.path.exists(args.out) else None
    done: set[int] = set()
    if data is not None:
        if (
            list(data["features"]) != list(features)
            or str(data.get("game_name", "cafe")) != args.game
            or int(data.get("others", 0)) != int(args.others)
            or str(data["deck_sha256"]) != str(meta["deck_sha256"])
        ):
            sys.exit(
                f"{args.out}: made with other features, another deck or game, or without "
                "--others where this run has it (or the other way); use a new file"
            )
        done = {int(d) for d in data["deals"]}
    jobs = [
        Job(specs[g % len(specs)], args.seed + g, args.players, args.game, args.others)
        for g in range(args.games)
        if args.seed + g not in done
    ]
    print(f"{len(done)} deals already in {args.out}; {len(jobs)} to play", file=sys.stderr)
    start = time.perf_counter()
    pending: list[dict[str, Any]] = []
    played = 0

    def wanted() -> Iterator[Job]:
        for job in jobs:
            if args.seconds is not None and time.perf_counter() - start > args.seconds:
                return
            yield job

    pool = None
    results: Iterator[dict[str, Any]]
    if args.redis:
        # the coordinator: the queue's results come in the jobs' order, whoever plays them
        pool = ProcessPoolExecutor(max_workers=args.workers) if args.workers else None
        for _ in range(args.workers):
            assert pool is not None
            pool.submit(run_workers, args.redis, 1, idle_exit=5.0)
        results = SelfPlayQueue(args.redis).run(jobs, seconds=args.seconds)
    elif args.workers > 1:
        pool = ProcessPoolExecutor(max_workers=args.workers)
        # the pool is fed lazily, one job a worker ahead, so that --seconds stops it
        results = _lazy(pool, wanted(), args.workers)
    else:
        results = map(play, wanted())
    failed: str | None = None
    try:
        with stopped_by_sigterm() if args.redis else contextlib.nullcontext():
            for r in results:
                pending.append(r)
                played += 1
                if len(pending) >= args.save_every:
                    data = _merge(data, pending, meta)
                    save(args.out, data)
                    pending = []
                print(
                    f"  {played} games, {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    except (DataError, TimeoutError, *_queue_errors(args.redis)) as exc:
        failed = f"error: {'the queue: ' if args.redis else ''}{exc}"
    except KeyboardInterrupt:  # Ctrl-C, or a kill of the coordinator (the queue's games withdrawn)
        failed = "stopped"
    finally:
        close = getattr(results, "close", None)
        if close is not None:  # the queue's run ends now: its key goes, its games are withdrawn
            with contextlib.suppress(*_queue_errors(args.redis)):
                close()
        if pending:
            data = _merge(data, pending, meta)
            save(args.out, data)
        if pool is not None and args.redis:
            stop_workers(pool)
        elif pool is not None:
            pool.shutdown(cancel_futures=True)
    if failed:  # the games played are saved: a run of the same command continues
        sys.exit(
            failed
            + (f" ({played} games played, saved in {args.out})" if played else " (no game played)")
        )
    seconds = time.perf_counter() - start
    total = 0 if data is None else len(data["final"])
    print(
        f"{played} games in {seconds:.0f} s ({seconds / max(1, played):.1f} s a game); "
        f"{args.out}: {total} positions from {0 if data is None else len(data['deals'])} games"
    )


def _queue_errors(url: str | None) -> tuple[type[Exception], ...]:
    """What the Redis client raises when the queue at `url` cannot be reached (none without
    a queue)."""
    if not url:
        return ()
    import redis

    return (redis.RedisError,)


def _lazy(pool: ProcessPoolExecutor, jobs: Iterator[Job], ahead: int) -> Iterator[dict[str, Any]]:
    """The results of `play` on the jobs, in order, with at most `ahead` games under way."""
    from collections import deque

    queue: deque[Any] = deque()
    for job in jobs:
        queue.append(pool.submit(play, job))
        if len(queue) >= ahead:
            yield queue.popleft().result()
    while queue:
        yield queue.popleft().result()


if __name__ == "__main__":
    main()
