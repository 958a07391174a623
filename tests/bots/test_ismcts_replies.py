"""Coffee Rush's ISMCTS tree holds the other seats' replies only (docs/bots.md, "The variant
played ... the tree holds the other seats' replies only", issue 41): below the root's arms the
descent stops where the searching seat is to move, and the other seats' turns the tree did
not reach are finished by the rollout rule, so every leaf is scored at the start of the
searcher's next turn (or at the game's end)."""

from __future__ import annotations

from typing import Any

import pytest

from coffeetable.bots import IsmctsBot, Limit, ismcts
from coffeetable.core.game import State
from tests.bots.test_bots import advance_to_decision, decision_seats, random_position


class _Watch:
    """What a search scores and grows, while installed: for each `rewards` call whether the
    searching seat was to move (or the game over), and each new node's mover."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, seat: int) -> None:
        self.at_turn_start: list[bool] = []
        self.movers: list[int] = []
        rewards = ismcts.rewards
        watch = self

        def scored(state: State, evaluate: Any = None) -> list[float]:
            watch.at_turn_start.append(state.is_over() or seat in state.current_seats())
            return rewards(state, evaluate)

        class Node(ismcts._Node):
            __slots__ = ()

            def __init__(self, mover: int) -> None:
                super().__init__(mover)
                watch.movers.append(mover)

        monkeypatch.setattr(ismcts, "rewards", scored)
        monkeypatch.setattr(ismcts, "_Node", Node)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [3, 8])
def test_rush_leaves_are_scored_with_the_searcher_to_move(
    monkeypatch: pytest.MonkeyPatch, players: int, seed: int
) -> None:
    state = advance_to_decision(
        random_position("coffee-rush", players, {}, seed, 12 * players), seed
    )
    seat = decision_seats(state)[0]
    watch = _Watch(monkeypatch, seat)
    _, info = IsmctsBot(seed=seed).choose(state, seat, Limit(iterations=600))
    assert info["iterations"] == 600  # the tree was searched (more than one first step)
    arms = info["arms"]
    # the first `arms` rewards are the arms' own (each after the searcher's turn), one leaf
    # an iteration after them
    leaves = watch.at_turn_start[arms:]
    assert len(leaves) == 600
    assert all(leaves), f"{leaves.count(False)} of 600 leaves scored elsewhere"
    below = watch.movers[arms:]
    assert below, "the tree grew no node below the arms"
    assert seat not in below, f"{below.count(seat)} of {len(below)} nodes are the searcher's"
    assert set(below) <= set(range(players)) - {seat}
