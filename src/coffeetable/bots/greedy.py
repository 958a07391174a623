"""The greedy bot: a one-turn lookahead with the per-game evaluation of heuristics.py.

It searches the seat's own consecutive steps until its turn (Café: its part of the round)
ends, on a determinization of the state (`resample_hidden`), with a beam: at each depth the
`width` best partial turns by evaluation are kept. It plays the first step of the best
complete turn. Within one call the search is deterministic given the bot's seed.
"""

from __future__ import annotations

import random
import time
from typing import Any

from coffeetable.bots.base import Limit
from coffeetable.bots.heuristics import value
from coffeetable.core.game import Action, State

MAX_DEPTH = 40
WIDTH = 4
MAX_EXPANSIONS = 4000  # states evaluated per decision, at most
STEP_COST = 0.001  # between equal outcomes, prefer the shorter turn (no pointless steps)


class GreedyBot:
    name = "greedy"

    def __init__(self, seed: int | None = None, width: int = WIDTH) -> None:
        self.rng = random.Random(seed)
        self.width = width

    def choose(
        self, state: State, seat: int, limit: Limit | None = None
    ) -> tuple[Action, dict[str, Any]]:
        legal = state.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action now")
        start = time.perf_counter()
        if len(legal) == 1:
            return legal[0], {"forced": True, "value": None, "expanded": 0, "seconds": 0.0}
        root = state.resample_hidden(seat, self.rng)
        round_number = root.round_number()
        best: tuple[float, int, Action] | None = None  # (value, -depth, first action)
        beam: list[tuple[float, Action, State]] = []
        expanded = 0
        order = 0
        for action in legal:
            child = root.clone()
            child.apply_unchecked(seat, action)
            expanded += 1
            v = value(child, seat)
            if _turn_over(child, seat, round_number):
                if best is None or v > best[0]:
                    best = (v, 0, action)
            else:
                beam.append((v, action, child))
        depth = 1
        while beam and depth < MAX_DEPTH and expanded < MAX_EXPANSIONS:
            beam.sort(key=lambda item: item[0], reverse=True)
            frontier = beam[: self.width]
            beam = []
            for _, first, s in frontier:
                for action in s.legal_actions(seat):
                    child = s.clone()
                    child.apply_unchecked(seat, action)
                    expanded += 1
                    order += 1
                    v = value(child, seat) - STEP_COST * depth
                    if _turn_over(child, seat, round_number):
                        if best is None or v > best[0]:
                            best = (v, -depth, first)
                    else:
                        beam.append((v, first, child))
            depth += 1
        if beam:  # the budget ran out mid-turn: count the best partial turns too
            top = max(beam, key=lambda item: item[0])
            if best is None or top[0] > best[0]:
                best = (top[0], -depth, top[1])
        assert best is not None
        return best[2], {
            "value": best[0],
            "expanded": expanded,
            "depth": depth,
            "seconds": time.perf_counter() - start,
        }


def _turn_over(state: State, seat: int, round_number: int) -> bool:
    return (
        state.is_over() or seat not in state.current_seats() or state.round_number() != round_number
    )
