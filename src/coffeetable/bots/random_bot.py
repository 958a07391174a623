"""The random bot: uniform over the legal actions, seeded."""

from __future__ import annotations

import random
from typing import Any

from coffeetable.core.game import Action, State


class RandomBot:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: State, seat: int, limit: Any = None) -> tuple[Action, dict[str, Any]]:
        """Pick a legal action for `seat`. `limit` is accepted for interface parity."""
        actions = state.legal_actions(seat)
        if not actions:
            raise ValueError(f"seat {seat} has no legal action now")
        return self.rng.choice(actions), {"legal_actions": len(actions)}
