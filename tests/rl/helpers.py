"""Shared by the RL tests: the configurations to play and a random game walker."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from coffeetable import find_game
from coffeetable.core.game import Action, State

#: (game, players, options): every variant, every player count the game allows
CAFE_CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    *(("cafe", n, {}) for n in (1, 2, 3, 4)),
    *(("cafe", n, {"espresso": True}) for n in (1, 4)),
    ("cafe", 1, {"promos": ["leao", "coffee-mine", "atlas"]}),
    *(("cafe", n, {"variant": "advanced"}) for n in (2, 3)),
    ("cafe", 4, {"variant": "advanced", "espresso": True, "promos": ["leao", "atlas"]}),
]
RUSH_CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    *(("coffee-rush", n, {}) for n in (2, 3, 4)),
    *(("coffee-rush", n, {"less_luck": True}) for n in (2, 4)),
]
CONFIGS = CAFE_CONFIGS + RUSH_CONFIGS


def config_id(config: tuple[str, int, dict[str, Any]]) -> str:
    name, n, options = config
    extra = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    return f"{name}-{n}p" + (f"-{extra}" if extra else "")


def choose(rng: random.Random, actions: list[Action]) -> Action:
    """Random, but rarely `end` while something else is possible, so that Café games reach
    big areas, full cells and long turns (uniform random play ends its turns at once)."""
    others = [a for a in actions if a.notation() != "end"]
    if others and rng.random() < 0.9:
        return rng.choice(others)
    return rng.choice(actions)


def random_game(
    name: str, n: int, options: dict[str, Any], seed: int, max_steps: int = 100_000
) -> Iterator[State]:
    """Every state of one random game, the final one included. The lowest seat acts."""
    game = find_game(name)
    state = game.new_initial_state(n, seed, options)
    rng = random.Random(seed)
    steps = 0
    while True:
        yield state
        if state.is_over() or steps >= max_steps:
            return
        seat = min(state.current_seats())
        state.apply_unchecked(seat, choose(rng, state.legal_actions(seat)))
        steps += 1
