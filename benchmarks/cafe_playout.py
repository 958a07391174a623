"""Café throughput: random playouts and placement generation.

Prints medians over several repeats (this machine is shared and noisy):
- applied actions/s including legal-action generation (random bot, unchecked apply),
- full games/s, for 1 to 4 players,
- the time to place an eighth card in an area and list every legal placement of a ninth.

Usage: python3 benchmarks/cafe_playout.py [--games 100] [--repeats 5] [--players 1,2,3,4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from _playout import report_throughput

from coffeetable import find_game
from coffeetable.games.cafe import CafeState, Stage


def eight_card_area(seed: int) -> CafeState | None:
    """A solo game played to round 7's placement: 7 cards in the area and the eighth in
    hand (None when that game's player had to discard in round 7)."""
    game = find_game("cafe")
    rng = random.Random(seed)
    state = game.new_initial_state(1, seed)
    assert isinstance(state, CafeState)
    while not (state.round == 7 and state.players[0].stage is Stage.PLACE):
        if state.is_over():
            return None
        state.apply_unchecked(0, rng.choice(state.legal_actions(0)))
    return state


def placement_time(repeats: int) -> list[float]:
    """Seconds to place the eighth card (the first legal placement) on a copy of the area
    and list every legal placement of a ninth card there: what a playout pays each round
    for its placements, whatever the engine computes when a card is placed and what when
    the placements are listed."""
    out = []
    seed = 0
    deck = find_game("cafe").deck
    while len(out) < repeats:
        seed += 1
        state = eight_card_area(seed)
        if state is None:
            continue
        player = state.players[0]
        assert player.hand is not None
        card = state.card(player.hand)
        row, col, rotation = player.area.legal_placements(card)[0]
        nxt = state.card(state.display[0] if state.display else deck.of_kind("plan")[0].id)
        n = 200
        start = time.perf_counter()
        for _ in range(n):
            area = player.area.copy()
            area.place(card, row, col, rotation)
            placements = area.legal_placements(nxt)
        out.append((time.perf_counter() - start) / n)
        assert placements
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", default="1,2,3,4", help="player counts, comma-separated")
    args = parser.parse_args()
    players = tuple(int(n) for n in args.players.split(","))
    report_throughput("cafe", players, args.games, args.repeats)
    times = placement_time(args.repeats * 4)
    print(
        f"place an 8th card, list the 9th's placements: median {statistics.median(times) * 1e3:.3f} ms "
        f"(max {max(times) * 1e3:.3f} ms over {len(times)} areas)"
    )


if __name__ == "__main__":
    main()
