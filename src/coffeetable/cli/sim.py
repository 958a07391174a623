"""`coffeetable sim`: bot games with score statistics and throughput."""

from __future__ import annotations

import statistics
import time
from typing import Any

from coffeetable.bots.base import Bot
from coffeetable.bots.make import make_bot
from coffeetable.cli.progress import Progress
from coffeetable.core.errors import DataError
from coffeetable.core.game import Game, State


def play_out(state: State, bots: list[Bot]) -> int:
    """Play to the end; the lowest seat that may act moves first. Returns actions applied."""
    actions = 0
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
        actions += 1
    return actions


def run_sim(
    game: Game,
    players: int,
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    bots: list[str] | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    game.check_setup(players, seed)
    specs = bots or ["random"] * players
    if len(specs) != players:
        raise DataError(
            f"--bots names {len(specs)} bot(s) for {players} players; name one per seat"
        )
    for spec in specs:
        make_bot(spec)  # a clear error for an unknown bot before anything runs
    totals: list[list[int]] = [[] for _ in range(players)]
    wins = [0.0] * players
    actions = 0
    bar = Progress(games, "games", show=progress)
    start = time.perf_counter()
    for g in range(games):
        state = game.new_initial_state(players, seed + g, options)
        seated = [make_bot(spec, (seed + g) * 16 + s) for s, spec in enumerate(specs)]
        actions += play_out(state, seated)
        for s, score in enumerate(state.scores()):
            totals[s].append(score.total)
        winners = state.winners()
        for w in winners:
            wins[w] += 1 / len(winners)
        bar.step()
    bar.close()
    elapsed = time.perf_counter() - start
    return {
        "game": game.info.name,
        "players": players,
        "games": games,
        "seed": seed,
        "options": game.normalize_options(options),
        "bots": list(specs),
        "seats": [
            {
                "seat": s,
                "bot": specs[s],
                "mean": statistics.fmean(totals[s]),
                "stdev": statistics.pstdev(totals[s]),
                "min": min(totals[s]),
                "max": max(totals[s]),
                "win_share": wins[s] / games,
                "scores": totals[s],
            }
            for s in range(players)
        ],
        "seconds": elapsed,
        "games_per_second": games / elapsed if elapsed else None,
        "actions_per_second": actions / elapsed if elapsed else None,
    }


def format_stats(stats: dict[str, Any]) -> str:
    bots = stats["bots"]
    who = f"{len(bots)} random bots" if set(bots) == {"random"} else "bots " + ", ".join(bots)
    lines = [
        f"{stats['games']} games of {stats['game']} with {who} (seed {stats['seed']})",
        "options: "
        + ", ".join(f"{k}={v}" for k, v in stats["options"].items() if not k.endswith("_sha256")),
        "seat bot             mean  stdev  min  max  win share",
    ]
    for s in stats["seats"]:
        lines.append(
            f"{s['seat']:>4} {s['bot']:<14} {s['mean']:6.2f} {s['stdev']:6.2f} {s['min']:4d} {s['max']:4d}  {s['win_share']:8.1%}"
        )
    lines.append(
        f"{stats['seconds']:.2f} s: {stats['games_per_second']:.1f} games/s, "
        f"{stats['actions_per_second']:.0f} actions/s"
    )
    return "\n".join(lines)
