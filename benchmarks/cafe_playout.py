"""Café throughput: random playouts and placement generation.

Prints medians over several repeats (this machine is shared and noisy):
- applied actions/s including legal-action generation (random bot, unchecked apply),
- full games/s, for 1 and 4 players,
- the time to generate all legal placements of a card on a 9-card area.

Usage: python3 benchmarks/cafe_playout.py [--games 200] [--repeats 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from _playout import report_throughput

from coffeetable import find_game
from coffeetable.games.cafe import CafeState, Stage


def nine_card_area(seed: int) -> CafeState | None:
    """A solo game played to round 8's placement: 8 cards in the area and the ninth in hand
    (None when that game's player had to discard in round 8)."""
    game = find_game("cafe")
    rng = random.Random(seed)
    state = game.new_initial_state(1, seed)
    assert isinstance(state, CafeState)
    while not (state.round == 8 and state.players[0].stage is Stage.PLACE):
        if state.is_over():
            return None
        state.apply_unchecked(0, rng.choice(state.legal_actions(0)))
    return state


def placement_time(repeats: int) -> list[float]:
    out = []
    seed = 0
    while len(out) < repeats:
        seed += 1
        state = nine_card_area(seed)
        if state is None:
            continue
        player = state.players[0]
        assert player.hand is not None
        card = state.card(player.hand)
        n = 200
        start = time.perf_counter()
        for _ in range(n):
            placements = player.area.legal_placements(card)
        out.append((time.perf_counter() - start) / n)
        assert placements
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    report_throughput("cafe", (1, 4), args.games, args.repeats)
    times = placement_time(args.repeats * 4)
    print(
        f"legal placements on a 9-card area: median {statistics.median(times) * 1e3:.3f} ms "
        f"(max {max(times) * 1e3:.3f} ms over {len(times)} areas)"
    )


if __name__ == "__main__":
    main()
