"""`coffeetable review FILE`: a finished game analysed move by move (bots/review.py)."""

from __future__ import annotations

import argparse
import json

from coffeetable.bots.review import review_record, settings_from, summary_text
from coffeetable.cli.games import game_for
from coffeetable.cli.progress import Progress
from coffeetable.core.errors import DataError
from coffeetable.core.record import GameRecord, read_json_file


def review_file(args: argparse.Namespace) -> int:
    """Check every option before the (long) analysis starts, then review with a progress
    bar on standard error; print the summary, or the whole review with --json."""
    settings = settings_from(
        bot=args.bot,
        seconds=args.time,
        iterations=args.iterations,
        samples=args.samples,
        seed=args.seed,
    )
    data = read_json_file(args.file)
    if isinstance(data, dict) and data.get("format") == "coffeetable.position/1":
        raise DataError(f"{args.file}: a position, not a game record: only a game is reviewed")
    record = GameRecord.from_json(data)
    game = game_for(record.game, args.deck, args.cards)
    progress: Progress | None = None

    def step(done: int, total: int) -> None:
        nonlocal progress
        if progress is None:
            progress = Progress(total, "decisions")
        progress.step()

    try:
        review = review_record(record, settings, args.seat, step, game)
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        print(json.dumps(review.to_json(), indent=1, ensure_ascii=False))
        return 0
    print(summary_text(review))
    mistakes = [m for m in review.moves if m.grade in ("mistake", "blunder")]
    if mistakes:
        print("mistakes and blunders:")
        for m in mistakes:
            print(f"  #{m.index} seat {m.seat} {m.grade}: {m.words()}")
    print(f"({len(review.moves)} decisions in {review.seconds:.1f} s; {settings.key()})")
    return 0
