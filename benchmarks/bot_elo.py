"""The bot levels on the server's Elo scale (docs/bots.md, "Bot levels on the rating scale").

    python3 benchmarks/bot_elo.py cafe --games 40 [--players 2] [--write]
    python3 benchmarks/bot_elo.py coffee-rush --games 40 --write
    python3 benchmarks/bot_elo.py cafe --games 4 --stand-in ismcts:easy=ismcts:6i \\
        --stand-in ismcts:medium=ismcts:12i --stand-in ismcts:hard=ismcts:24i

Plays a round robin between the bots a table seat may hold (the server's SEAT_BOTS: random,
greedy, ismcts:easy, medium and hard) with `coffeetable.bots.tournament.round_robin` (every
pair `--games` games on shared deals, seats swapped), fits their Elo ratings (Bradley-Terry,
the 400-point logistic of the server's ratings, server/ratings.py) and anchors them on the
server's scale: `--anchor BOT=RATING`, by default greedy at the server's start rating
(DEFAULT_RATING, 1500: what the server gives a player it knows nothing about, and the bot
the lobby offers first). People and bots never play rated games against each other, so
the anchor is a convention, not a measurement: differences between the levels are measured.

`--stand-in LEVEL=SPEC` plays SPEC in LEVEL's place (a fixed iteration budget, so that a
run on a busy machine measures the same bots as on a quiet one) and says so in the file.
`--write` puts the result for this game, with its provenance (command, commit, date, games,
stand-ins, the 95 % intervals), into src/coffeetable/bots/data/bot-ratings.json, which the
server reads to show each bot's rating in the lobby.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import shlex
import sys
import time

from _provenance import commit

from coffeetable import find_game
from coffeetable.bots.tournament import PUBLISHED_RATINGS, round_robin
from coffeetable.core.errors import DataError

DATA = pathlib.Path(__file__).resolve().parents[1] / "src" / "coffeetable" / "bots" / "data"
LEVELS = ("random", "greedy", "ismcts:easy", "ismcts:medium", "ismcts:hard")
START_RATING = 1500.0  # server.storage.base.DEFAULT_RATING (not imported: no server deps)


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return key.strip().lower(), value.strip().lower()


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
    parser.add_argument("--write", action="store_true", help="update bot-ratings.json")
    args = parser.parse_args(argv)
    bots = [b.strip().lower() for b in args.bots.split(",") if b.strip()]
    stand_ins = dict(args.stand_in)
    unknown = set(stand_ins) - set(bots)
    if unknown:
        parser.error(f"--stand-in for bots not in --bots: {', '.join(sorted(unknown))}")
    anchor_bot, anchor_text = args.anchor
    if anchor_bot not in bots:
        parser.error(f"--anchor: {anchor_bot} is not one of the bots")
    try:
        anchor_rating = float(anchor_text)
    except ValueError:
        parser.error(f"--anchor: {anchor_text!r} is not a rating")
    played = [stand_ins.get(b, b) for b in bots]
    game = find_game(args.game)
    start = time.perf_counter()
    done = [0]
    pairs = len(bots) * (len(bots) - 1) // 2

    def progress() -> None:
        done[0] += 1
        print(
            f"  {done[0]}/{pairs * args.games} games, {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )

    try:
        result = round_robin(game, played, args.games, args.seed, None, args.players, progress)
    except DataError as exc:
        sys.exit(str(exc))
    seconds = time.perf_counter() - start
    table = result.to_json(args.prior_draws)
    shift = anchor_rating - table["bots"][bots.index(anchor_bot)]["elo"]
    rows = {}
    for name, row in zip(bots, table["bots"], strict=True):
        rows[name] = {
            "elo": round(row["elo"] + shift, 1),
            "ci95": row["elo_ci95"],
            "played_as": row["bot"],
            "games": row["games"],
            "score_share": round(row["score_share"], 3),
            "mean_score": round(row["mean_score"], 2),
        }
        print(
            f"{name:15s} {row['elo'] + shift:7.0f} ± {row['elo_ci95']:.0f}"
            f"  (played as {row['bot']}; {row['games']} games, score share "
            f"{row['score_share']:.3f}, mean score {row['mean_score']:.2f})"
        )
    print(
        f"{pairs * args.games} games in {seconds:.0f} s; anchor {anchor_bot} = {anchor_rating:.0f}"
    )
    if not args.write:
        return
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
        "commit": commit(),
        "date": datetime.date.today().isoformat(),
        "players": args.players,
        "games_per_pair": args.games,
        "seed": args.seed,
        "anchor": {"bot": anchor_bot, "rating": anchor_rating},
        "stand_ins": stand_ins,
        "prior_draws": args.prior_draws,
        "seconds": round(seconds),
        "pairs": table["pairs"],
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
