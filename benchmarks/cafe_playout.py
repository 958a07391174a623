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

from coffeetable import find_game
from coffeetable.games.cafe import CafeState, Stage


def playouts(players: int, games: int, seed: int) -> tuple[float, float]:
    game = find_game("cafe")
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_initial_state(players, seed * 100_000 + g)
        while not state.is_over():
            seat = min(state.current_seats())
            state.apply_unchecked(seat, rng.choice(state.legal_actions(seat)))
            actions += 1
    elapsed = time.perf_counter() - start
    return actions / elapsed, games / elapsed


def openspiel_tic_tac_toe(seconds: float, seed: int) -> float | None:
    """Random actions/s of OpenSpiel's pure-Python tic-tac-toe (reference; optional)."""
    try:
        from open_spiel.python.games import tic_tac_toe
    except ImportError:
        return None
    game = tic_tac_toe.TicTacToeGame()
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    return actions / (time.perf_counter() - start)


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
    # Interleave the reference with our runs, so that each ratio compares figures taken
    # moments apart on this shared, noisy machine.
    runs: dict[int, list[tuple[float, float]]] = {1: [], 4: []}
    ratios: dict[int, list[float]] = {1: [], 4: []}
    for seed in range(args.repeats):
        for players in (1, 4):
            ref = openspiel_tic_tac_toe(1.0, seed)
            result = playouts(players, args.games, seed)
            runs[players].append(result)
            if ref:
                ratios[players].append(result[0] / ref)
    for players in (1, 4):
        aps = statistics.median(r[0] for r in runs[players])
        gps = statistics.median(r[1] for r in runs[players])
        line = (
            f"{players} player(s): median {aps:,.0f} actions/s, {gps:,.1f} games/s "
            f"({args.repeats} runs x {args.games} games; min {min(r[0] for r in runs[players]):,.0f}, "
            f"max {max(r[0] for r in runs[players]):,.0f} actions/s)"
        )
        if ratios[players]:
            line += (
                f"; median {statistics.median(ratios[players]):.2f}x OpenSpiel's Python "
                "tic-tac-toe measured just before each run"
            )
        print(line)
    if not ratios[1]:
        print("(OpenSpiel not installed: pip install -e '.[bench]' for the reference ratio)")
    times = placement_time(args.repeats * 4)
    print(
        f"legal placements on a 9-card area: median {statistics.median(times) * 1e3:.3f} ms "
        f"(max {max(times) * 1e3:.3f} ms over {len(times)} areas)"
    )


if __name__ == "__main__":
    main()
