"""A Café seat that has ended its turn of the last round while other seats still act has its
final score: the areas are the seats' own (Ruling A1: the only shared resource is the supply,
which a finished seat no longer draws on), and the game then only ends. So the evaluation
gives that score exactly, as it does once the game is over, and ISMCTS plays such a seat's
last turn as it plays the last turn of a solo game: the arms' final scores decide, with no
sweeps (docs/bots.md, "The evaluations" and "Café: the last turn").

Before, the seats that act first in the last round (the lower seats, in the order the
environment and the bots step the simultaneous phase) were judged by the mid-game estimate,
about a point above their final score, while the seat that acts last ended the game and was
scored exactly."""

from __future__ import annotations

import random
from typing import Any

import pytest

from coffeetable import find_game
from coffeetable.bots import heuristics, make_bot
from coffeetable.core.game import State
from coffeetable.games.cafe.state import ROUNDS, CafeState, Phase, Stage
from tests.bots.test_bots import arms_ends


def _finished_early(state: State) -> list[int]:
    """The seats that have ended their last turn while the game goes on."""
    assert isinstance(state, CafeState)
    if state.is_over() or state.phase is not Phase.TURNS or state.round != ROUNDS:
        return []
    return [s for s, p in enumerate(state.players) if p.stage is Stage.DONE]


@pytest.mark.parametrize(
    ("players", "options", "bot", "deal"),
    [
        (2, {}, "greedy", 9001),
        (2, {}, "random", 9002),
        (3, {"espresso": True}, "random", 9003),
        (4, {"variant": "advanced", "promos": ["leao", "coffee-mine", "atlas"]}, "random", 9004),
        (4, {"variant": "advanced", "espresso": True}, "greedy", 9005),
    ],
)
def test_a_seat_done_in_the_last_round_is_valued_at_its_final_score(
    players: int, options: dict[str, Any], bot: str, deal: int
) -> None:
    game = find_game("cafe")
    state = game.new_initial_state(players, deal, options)
    bots = [make_bot(bot, deal * 8 + s) for s in range(players)]
    rng = random.Random(deal)
    valued: dict[int, list[float]] = {}
    while not state.is_over():
        seat = rng.choice(sorted(state.current_seats()))  # any order the rules allow
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
        for s in _finished_early(state):
            valued.setdefault(s, []).append(heuristics.value(state, s))
    assert valued, "no seat ended its last turn before the others"
    finals = [score.total for score in state.scores()]
    for s, values in valued.items():
        assert values == [float(finals[s])] * len(values), (s, values, finals[s])


def _last_round_first_seat(deal: int) -> CafeState:
    """A 2-player game played by greedy into round 8, the lower seat about to act for the
    first time in it (its card placed or to place), the other seat still to act after it."""
    state = find_game("cafe").new_initial_state(2, deal, {})
    assert isinstance(state, CafeState)
    bots = [make_bot("greedy", deal * 8 + s) for s in range(2)]
    while not (state.round == ROUNDS and state.phase is Phase.TURNS):
        seat = min(state.current_seats())
        state.apply(seat, bots[seat].choose(state, seat)[0])
    while state.players[0].stage is not Stage.ACT:
        state.apply(0, bots[0].choose(state, 0)[0])
    assert state.players[1].stage is not Stage.DONE
    return state


def test_ismcts_plays_a_last_turn_that_does_not_end_the_game_by_final_scores() -> None:
    state = _last_round_first_seat(9006)
    action, info = make_bot("ismcts:24i", 3).choose(state, 0)
    assert info["last_turn"] and info["sweeps"] == 0 and info["iterations"] == 0
    assert info["arms"] > 1 and action.notation() == info["plan"][0]
    ends = arms_ends(state, 0, info)
    assert all(not end.is_over() and 0 not in end.current_seats() for end in ends)
    finals = [end.scores()[0].total for end in ends]
    assert finals[0] == max(finals)  # the best final score is played
