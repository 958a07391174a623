"""What checking a deck costs (issue 39): the server's `POST /api/decks/check` reads a file
and writes its canonical text (`games.datafiles.read_text`: the loader, the JSON model, the
canonical writer, and the loader again on that text), against its peer, the loader alone
(`parse_deck` / `parse_cards`, as `coffeetable deck check` and `--deck` run it), in the same
run; and a stored deck's game taken from the per-process cache (`server.deckbook.build`) as
every bot job of a table on that deck does. Medians of rounds, and the ratios.

    python3 benchmarks/deck_files.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from importlib import resources

from coffeetable.games.cafe.deck import parse_deck
from coffeetable.games.coffee_rush.cards import parse_cards
from coffeetable.games.datafiles import read_text
from coffeetable.server.deckbook import build


def _median_ms(work: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    files = {
        "cafe": (
            resources.files("coffeetable.games.cafe").joinpath("data/deck.toml").read_bytes(),
            parse_deck,
        ),
        "coffee-rush": (
            resources.files("coffeetable.games.coffee_rush")
            .joinpath("data/cards.toml")
            .read_bytes(),
            parse_cards,
        ),
    }
    for game, (raw, parse) in files.items():
        text = read_text(game, raw, "x").text
        build(game, text)  # into the cache
        loader = _median_ms(lambda: parse(raw, "x"), args.rounds)  # noqa: B023
        check = _median_ms(lambda: read_text(game, raw, "x"), args.rounds)  # noqa: B023
        cached = _median_ms(lambda: build(game, text), args.rounds)  # noqa: B023
        print(
            f"{game:12s} {len(raw) / 1024:5.1f} KiB: loader {loader:6.2f} ms, check "
            f"{check:6.2f} ms ({check / loader:.2f}x the loader), cached game "
            f"{cached:6.3f} ms ({cached / loader:.3f}x) — medians of {args.rounds}"
        )


if __name__ == "__main__":
    main()
