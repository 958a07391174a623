"""Coffee Rush throughput: random playouts through the core protocol.

Prints medians over several repeats (this machine is shared and noisy) of applied actions/s
including legal-action generation (random bot, unchecked apply) and full games/s, for 2 and
4 players, with and without the less-luck set-up, next to OpenSpiel's pure-Python
tic-tac-toe measured just before each run. Random bots rarely complete an order, so their
games are short (mostly movement, then penalties); the per-action cost is what matters.

Usage: python3 benchmarks/coffee_rush_playout.py [--games 300] [--repeats 5]
"""

from __future__ import annotations

import argparse

from _playout import report_throughput


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    report_throughput("coffee-rush", (2, 4), args.games, args.repeats)
    report_throughput(
        "coffee-rush", (2, 4), args.games, max(1, args.repeats // 2), {"less_luck": True}
    )


if __name__ == "__main__":
    main()
