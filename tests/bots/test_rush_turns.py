"""benchmarks/rush_turns.py: Coffee Rush turn starts, each alternative turn played out on
shared deals (docs/bots.md, "A ranking of one position's turns, from playouts"). Run as by
hand, in a subprocess, on one game; the records are checked against the engine."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coffeetable import find_game
from coffeetable.bots import make_bot

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def rush_turns(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(BENCHMARKS / "rush_turns.py"), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def position(deal: int, step: int) -> Any:
    """The greedy-against-greedy game of `deal` (the bots seeded as the script seeds them)
    after `step` actions."""
    state = find_game("coffee-rush").new_initial_state(2, deal)
    bots = [make_bot("greedy", deal * 16 + s) for s in range(2)]
    for _ in range(step):
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
    return state


@pytest.mark.slow  # a game and its alternatives played out: 15-30 s
def test_turns_are_played_out_on_shared_deals_and_reported(tmp_path: Path) -> None:
    out = tmp_path / "turns.jsonl"
    common = ("--games", "1", "--seed", "70001", "--positions", "1", "--decks", "2")
    run = rush_turns("play", *common, "--workers", "1", "--out", out)
    assert run.returncode == 0, run.stderr
    [record] = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert record["deal"] == 70001 and len(record["turns"]) >= 2

    sys.path.insert(0, str(BENCHMARKS))
    try:
        import rush_turns as script
    finally:
        sys.path.remove(str(BENCHMARKS))
    state = position(record["deal"], record["step"])
    seat = record["seat"]
    assert min(state.current_seats()) == seat
    firsts = set()
    for turn in record["turns"]:
        assert len(turn["outcomes"]) == 2 and turn["steps"] == len(turn["turn"])
        end = state.clone()
        for notation in turn["turn"]:  # every alternative is a legal whole turn of the seat
            assert seat in end.current_seats()
            end.apply(seat, end.game.parse_action(notation))
        assert seat not in end.current_seats() or end.is_over()
        firsts.add(turn["turn"][0])
    assert len(firsts) == len(record["turns"])  # one turn for each first step
    # each deal is the same for every turn, and its playout is the one recorded
    for turn in record["turns"][:2]:
        for d in range(2):
            deal = state.resample_hidden(seat, random.Random(record["seed"] + 1 + d))
            for notation in turn["turn"]:
                deal.apply(seat, deal.game.parse_action(notation))
            final = script._play_out(deal, record["seed"] + 1 + d)
            assert script._margin(final, seat) == turn["outcomes"][d]

    again = rush_turns("play", *common, "--workers", "1", "--out", out)
    assert again.returncode == 0, again.stderr
    assert len(out.read_text("utf-8").splitlines()) == 1  # the deal was in the file already

    report = rush_turns("report", out)
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith(f"1 positions of 1 deals, {len(record['turns'])}.0 turns")
    assert "the halves' outcomes, centred per position, correlate at" in report.stdout
