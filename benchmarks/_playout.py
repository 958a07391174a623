"""Shared by the playout benchmarks: random playouts of a registered game, and OpenSpiel's
pure-Python tic-tac-toe as a reference measured moments apart on this shared, noisy machine."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from coffeetable import find_game


def playouts(
    name: str, players: int, games: int, seed: int, options: dict[str, Any] | None = None
) -> tuple[float, float, float]:
    """Random-bot games through the core protocol (legal actions + unchecked apply).
    Returns (actions/s, games/s, mean actions per game)."""
    game = find_game(name)
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_initial_state(players, seed * 100_000 + g, options)
        while not state.is_over():
            seat = min(state.current_seats())
            state.apply_unchecked(seat, rng.choice(state.legal_actions(seat)))
            actions += 1
    elapsed = time.perf_counter() - start
    return actions / elapsed, games / elapsed, actions / games


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


def report_throughput(
    name: str,
    player_counts: Sequence[int],
    games: int,
    repeats: int,
    options: dict[str, Any] | None = None,
) -> None:
    """Print median actions/s and games/s per player count, each run interleaved with the
    reference so that every ratio compares figures taken moments apart."""
    runs: dict[int, list[tuple[float, float, float]]] = {n: [] for n in player_counts}
    ratios: dict[int, list[float]] = {n: [] for n in player_counts}
    for seed in range(repeats):
        for players in player_counts:
            ref = openspiel_tic_tac_toe(1.0, seed)
            result = playouts(name, players, games, seed, options)
            runs[players].append(result)
            if ref:
                ratios[players].append(result[0] / ref)
    for players in player_counts:
        aps = [r[0] for r in runs[players]]
        line = (
            f"{name}, {players} player(s): median {statistics.median(aps):,.0f} actions/s, "
            f"{statistics.median(r[1] for r in runs[players]):,.1f} games/s, "
            f"{statistics.median(r[2] for r in runs[players]):,.0f} actions/game "
            f"({repeats} runs x {games} games; min {min(aps):,.0f}, max {max(aps):,.0f} actions/s)"
        )
        if ratios[players]:
            line += (
                f"; median {statistics.median(ratios[players]):.2f}x OpenSpiel's Python "
                "tic-tac-toe measured just before each run"
            )
        print(line)
    if not any(ratios.values()):
        print("(OpenSpiel not installed: pip install -e '.[bench]' for the reference ratio)")
