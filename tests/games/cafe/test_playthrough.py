"""Golden playthroughs (in the spirit of OpenSpiel's): seeded random games written out move by
move with the legal-action counts, the text picture at the start of every round, and the
final scores. Any change to the rules, the deck or the notation shows up as a diff here.

After an intended change, regenerate and review the diff:
    python3 tests/games/cafe/test_playthrough.py --regen
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from coffeetable import find_game
from coffeetable.games.cafe import CafeState

HERE = Path(__file__).parent / "playthroughs"
CASES = {"cafe-solo-seed7.txt": (1, 7), "cafe-3p-seed11.txt": (3, 11)}


def playthrough(players: int, seed: int) -> str:
    game = find_game("cafe")
    state = game.new_initial_state(players, seed)
    assert isinstance(state, CafeState)
    rng = random.Random(seed)
    lines = [f"game cafe, {players} players, seed {seed}"]
    shown_round = 0
    index = 0
    while not state.is_over():
        if state.round != shown_round:
            shown_round = state.round
            lines += ["", f"=== round {state.round} ===", state.render()]
        seat = min(state.current_seats())
        legal = state.legal_actions(seat)
        action = rng.choice(legal)
        lines.append(f"#{index} seat {seat} ({len(legal)} legal): {action.notation()}")
        state.apply(seat, action)
        index += 1
    lines += ["", "=== final ===", state.render()]
    for seat, score in enumerate(state.scores()):
        lines.append(f"seat {seat}: {score.to_json()}")
    lines.append(f"winners: {state.winners()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(CASES))
def test_playthrough_matches_golden_file(name: str) -> None:
    players, seed = CASES[name]
    expected = (HERE / name).read_text(encoding="utf-8")
    assert playthrough(players, seed) == expected, (
        f"{name} differs: if the change is intended, run "
        "`python3 tests/games/cafe/test_playthrough.py --regen` and review the diff"
    )


if __name__ == "__main__":
    if "--regen" not in sys.argv:
        sys.exit(__doc__)
    for name, (players, seed) in CASES.items():
        (HERE / name).write_text(playthrough(players, seed), encoding="utf-8")
        print(f"wrote {HERE / name}")
