"""`CafeState.legal_actions_kept` (core/game.py): a server keeps another seat's legal list
across a move only when that move could not change it. Random games rarely reach the cases
that do change it (tests/test_conformance.py compares every kept list), so they are made
here: a colour of the supply running out, a seat's own step, the round ending."""

from __future__ import annotations

import random

from coffeetable.core.registry import find_game
from coffeetable.games.cafe.state import CafeState, Stage


def both_acting(seed: int) -> CafeState:
    """A 2-player game played at random until both seats are in their action stage."""
    game = find_game("cafe")
    state = game.new_initial_state(2, seed)
    assert isinstance(state, CafeState)
    rng = random.Random(seed)
    while not all(p.stage is Stage.ACT for p in state.players):
        seat = rng.choice(sorted(state.current_seats()))
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state


def test_a_colour_running_out_is_not_kept() -> None:
    changed = 0
    for seed in range(30):
        before = both_acting(seed)
        for colour in range(4):
            fewer = before.clone()
            fewer.supply[colour] = max(1, before.supply[colour] - 1)
            assert fewer.legal_actions_kept(0, before)  # still some left: the same choices
            assert fewer.legal_actions(0) == before.legal_actions(0)
            empty = before.clone()
            empty.supply[colour] = 0
            assert not empty.legal_actions_kept(0, before)
            changed += empty.legal_actions(0) != before.legal_actions(0)
    assert changed  # running out does change some seats' Produces: the check is needed


def test_not_kept_across_the_seats_own_step_or_the_round_end() -> None:
    before = both_acting(3)
    for action in before.legal_actions(0):
        after = before.clone()
        after.apply(0, action)
        assert not after.legal_actions_kept(0, before) or after.legal_actions(
            0
        ) == before.legal_actions(0)
    # both seats end: the round is over, nobody keeps anything
    after = before.clone()
    for seat in (0, 1):
        while seat in after.current_seats():
            steps = after.legal_actions(seat)
            ends = [a for a in steps if a.notation() == "end"]
            after.apply(seat, (ends or steps)[0])
    assert not after.legal_actions_kept(1, before) and not after.legal_actions_kept(0, before)
