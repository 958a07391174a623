"""`coffeetable sim`: random-bot games with score statistics and throughput."""

from __future__ import annotations

import statistics
import time
from typing import Any

from coffeetable.bots.random_bot import RandomBot
from coffeetable.core.errors import DataError
from coffeetable.core.game import Game, State


def play_out(state: State, bots: list[RandomBot]) -> int:
    """Play to the end; the lowest seat that may act moves first. Returns actions applied."""
    actions = 0
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        state.apply_unchecked(seat, action)
        actions += 1
    return actions


def run_sim(
    game: Game, players: int, games: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    if not game.info.min_players <= players <= game.info.max_players:
        raise DataError(
            f"{game.info.title} is played by {game.info.min_players} to {game.info.max_players} players"
        )
    totals: list[list[int]] = [[] for _ in range(players)]
    wins = [0.0] * players
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_initial_state(players, seed + g, options)
        bots = [RandomBot(seed=(seed + g) * 16 + s) for s in range(players)]
        actions += play_out(state, bots)
        for s, score in enumerate(state.scores()):
            totals[s].append(score.total)
        winners = state.winners()
        for w in winners:
            wins[w] += 1 / len(winners)
    elapsed = time.perf_counter() - start
    return {
        "game": game.info.name,
        "players": players,
        "games": games,
        "seed": seed,
        "options": game.normalize_options(options),
        "bots": ["random"] * players,
        "seats": [
            {
                "seat": s,
                "mean": statistics.fmean(totals[s]),
                "stdev": statistics.pstdev(totals[s]),
                "min": min(totals[s]),
                "max": max(totals[s]),
                "win_share": wins[s] / games,
            }
            for s in range(players)
        ],
        "seconds": elapsed,
        "games_per_second": games / elapsed if elapsed else None,
        "actions_per_second": actions / elapsed if elapsed else None,
    }


def format_stats(stats: dict[str, Any]) -> str:
    lines = [
        f"{stats['games']} games of {stats['game']} with {stats['players']} random bots (seed {stats['seed']})",
        "options: "
        + ", ".join(f"{k}={v}" for k, v in stats["options"].items() if not k.endswith("_sha256")),
        "seat   mean  stdev  min  max  win share",
    ]
    for s in stats["seats"]:
        lines.append(
            f"{s['seat']:>4} {s['mean']:6.2f} {s['stdev']:6.2f} {s['min']:4d} {s['max']:4d}  {s['win_share']:8.1%}"
        )
    lines.append(
        f"{stats['seconds']:.2f} s: {stats['games_per_second']:.1f} games/s, "
        f"{stats['actions_per_second']:.0f} actions/s"
    )
    return "\n".join(lines)
