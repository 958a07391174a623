"""Replay stored bot-elo games with the current code, each paired with the stored one.

    python3 benchmarks/paired_replay.py --pair greedy,ismcts:hard --pair ismcts:easy,ismcts:hard \\
        --deals 7012-7019,7000-7011 --out /tmp/variant.jsonl --workers 2
    python3 benchmarks/paired_replay.py --pair random,greedy --deals 7000 --check
    python3 benchmarks/paired_replay.py --pair greedy,ismcts:hard --out FILE --report-only

The records of a bot-elo run (`--records`, by default the committed Coffee Rush run,
benchmarks/runs/bot-elo/coffee-rush-search.jsonl, whose levels were the search at three
budgets; docs/bots.md, "Bot levels on the rating scale")
are played again on the same deal, seats, specs and bot seeds (`tournament.play`, as
bot_elo.py plays them) with the code of this checkout: what a change to a bot does to the
same games. `--pair A,B` names a pair as the file does (its bots, not their specs; repeat
for several pairs); `--deals` the deals in the order to play them (ranges, comma-separated).
Games are played deal by deal, the pairs alternating, so a run stopped at any moment leaves
the pairs about equally measured.

Each replayed game is appended, as it ends, to `--out FILE` (one JSON line: the game's
record, the commit, and the stored game's scores); a run started again on the same FILE
plays only the games not yet in it. `--report-only` plays nothing and reports FILE.

Per pair it prints: the games, the second bot's share of the points (a shared win counts
1/k) with its Wilson 95 % interval and its mean margin (its score minus the other's), the
same of the stored games, and the paired comparison: the mean of (replayed margin - stored
margin) ± its standard error, and how many games' results are better, worse or the same for
the second bot. `--check` asserts that every replayed game's scores are the stored ones (the
replay reproduces the stored games when the code has not changed; exit status 1 if not).
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from _provenance import commit
from bot_elo import _append, _play, _read
from bots_strength import _wilson

from coffeetable.bots import tournament
from coffeetable.bots.tournament import GameJob

RECORDS = pathlib.Path(__file__).resolve().parent / "runs" / "bot-elo" / "coffee-rush-search.jsonl"


def _deals(text: str) -> list[int]:
    out: list[int] = []
    try:
        for part in text.split(","):
            low, sep, high = part.strip().partition("-")
            out.extend(range(int(low), int(high) + 1) if sep else [int(low)])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected deals like 7000-7019,7030, not {text!r}"
        ) from None
    return out


def _bots(text: str) -> tuple[str, str]:
    names = tuple(b.strip().lower() for b in text.split(","))
    if len(names) != 2 or not all(names):
        raise argparse.ArgumentTypeError(f"expected a pair A,B, not {text!r}")
    return names[0], names[1]


def job_of(record: dict[str, Any]) -> GameJob:
    """The game of a stored record, to play again."""
    return GameJob(
        game=record["game"],
        players=record["players"],
        pair=(record["pair"][0], record["pair"][1]),
        played=(record["played"][0], record["played"][1]),
        index=record["index"],
        deal=record["deal"],
        seats=tuple(record["members"]),
        bot_seeds=tuple(record["bot_seeds"]),
    )


def margin(record: dict[str, Any]) -> float:
    """The pair's second bot's mean score minus the first's (over the seats each holds)."""
    mine = [s for s, m in zip(record["scores"], record["members"], strict=True) if m == 1]
    theirs = [s for s, m in zip(record["scores"], record["members"], strict=True) if m == 0]
    return statistics.fmean(mine) - statistics.fmean(theirs)


def chosen(
    stored: Sequence[dict[str, Any]], pairs: Sequence[tuple[str, str]], deals: Sequence[int]
) -> list[dict[str, Any]]:
    """The stored records of these pairs on these deals: deal by deal in `deals`' order, the
    pairs alternating in `pairs`' order, each pair's games of a deal by index."""
    rank = {deal: n for n, deal in enumerate(deals)}
    order = {pair: n for n, pair in enumerate(pairs)}
    found = [r for r in stored if tuple(r["pair"]) in order and r["deal"] in rank]
    found.sort(key=lambda r: (rank[r["deal"]], order[tuple(r["pair"])], r["index"]))
    return found


def summary(pair: tuple[str, str], played: Sequence[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """One pair's line: the replayed games against the stored ones (pairs of records)."""
    n = len(played)
    if not n:
        return f"{pair[0]} - {pair[1]}: no games"
    specs = " - ".join(played[0][0]["played"])
    parts = []
    for label, k in (("replayed", 0), ("stored", 1)):
        points = sum(g[k]["points"][1] for g in played)
        low, high = _wilson(points / n, n)
        mean = statistics.fmean(margin(g[k]) for g in played)
        parts.append(
            f"{label}: {pair[1]} {points:g}/{n} = {points / n:.2f} ({low:.2f}-{high:.2f}), "
            f"margin {mean:+.2f}"
        )
    diffs = [margin(new) - margin(old) for new, old in played]
    se = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else math.nan
    better = sum(new["points"][1] > old["points"][1] for new, old in played)
    worse = sum(new["points"][1] < old["points"][1] for new, old in played)
    deals = sorted({new["deal"] for new, _ in played})
    return (
        f"{pair[0]} - {pair[1]} ({specs}), {n} games (deals {deals[0]}-{deals[-1]}): "
        f"{parts[0]}; {parts[1]}; paired margin difference {statistics.fmean(diffs):+.2f} "
        f"± {se:.2f} (SE); results better/worse/same {better}/{worse}/{n - better - worse}"
    )


def _keep(out: pathlib.Path | None, record: dict[str, Any], progress: str) -> None:
    """A replayed game appended to `out` (if any) and said, with its stored scores."""
    if out:
        _append(out, record)
    print(
        f"  {progress}: {' vs '.join(record['specs'])}, deal {record['deal']}: scores "
        f"{record['scores']} (stored {record['stored_scores']})",
        file=sys.stderr,
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=pathlib.Path, default=RECORDS, help="stored games")
    parser.add_argument("--pair", type=_bots, action="append", required=True, help="A,B")
    parser.add_argument("--deals", type=_deals, help="e.g. 7012-7019,7000-7011 (default all)")
    parser.add_argument("--out", type=pathlib.Path, help="append each replayed game (resumable)")
    parser.add_argument("--workers", type=int, default=1, help="games at a time (processes)")
    parser.add_argument("--check", action="store_true", help="the scores must be the stored")
    parser.add_argument("--report-only", action="store_true", help="report --out, play none")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if args.report_only and not args.out:
        parser.error("--report-only reports the games of --out FILE")
    if not args.records.exists():
        sys.exit(f"error: {args.records}: no such file")
    stored = _read(args.records, repair=False)
    deals = args.deals or sorted({r["deal"] for r in stored})
    todo = chosen(stored, args.pair, deals)
    for pair in args.pair:
        if not any(tuple(r["pair"]) == pair for r in todo):
            sys.exit(f"error: {args.records} holds no game of the pair {','.join(pair)} there")
    by_key = {tournament.record_key(r): r for r in todo}
    done: list[dict[str, Any]] = []
    if args.out and args.out.exists():
        done = [r for r in _read(args.out, repair=not args.report_only) if r["deal"] in deals]
        done = [r for r in done if tournament.record_key(r) in by_key]
    keys = {tournament.record_key(r) for r in done}
    jobs = [] if args.report_only else [job_of(r) for r in todo if job_of(r).key() not in keys]
    print(
        f"{len(todo)} stored games chosen, {len(done)} already replayed, {len(jobs)} to play",
        file=sys.stderr,
        flush=True,
    )
    start = time.perf_counter()
    run_commit = commit()
    try:
        for n, record in enumerate(_play(jobs, args.workers), 1):
            old = by_key[tournament.record_key(record)]
            record.update(commit=run_commit, stored_scores=old["scores"])
            done.append(record)
            _keep(args.out, record, f"{n}/{len(jobs)}, {time.perf_counter() - start:.0f} s")
    except KeyboardInterrupt:
        sys.exit("stopped" + (f"; run again with --out {args.out} to go on" if args.out else ""))
    differ = 0
    for pair in args.pair:
        played = [(r, by_key[tournament.record_key(r)]) for r in done if tuple(r["pair"]) == pair]
        differ += sum(new["scores"] != old["scores"] for new, old in played)
        print(summary(pair, played), flush=True)
    if args.check:
        print(f"check: {len(done) - differ} of {len(done)} games replayed with the stored scores")
        if differ:
            sys.exit(1)


if __name__ == "__main__":
    main()
