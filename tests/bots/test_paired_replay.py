"""benchmarks/paired_replay.py: stored bot-elo games replayed with the current code, paired
with the stored ones (docs/bots.md, Coffee Rush's "the tree holds the other seats' replies
only"). Run as by hand, in a subprocess, with the fast pair (random - greedy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPLAY = Path(__file__).resolve().parents[2] / "benchmarks" / "paired_replay.py"


def replay(*args: str | Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(REPLAY), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def test_replay_reproduces_the_stored_games_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "replay.jsonl"
    run = replay("--pair", "random,greedy", "--deals", "7000-7001", "--out", out, "--check")
    assert run.returncode == 0, run.stderr
    assert "check: 4 of 4 games replayed with the stored scores" in run.stdout
    assert "random - greedy (random - greedy), 4 games (deals 7000-7001)" in run.stdout
    assert "paired margin difference +0.00 ± 0.00 (SE); results better/worse/same 0/0/4" in (
        run.stdout
    )
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert sorted((r["deal"], r["index"]) for r in records) == [
        (7000, 0),
        (7000, 1),
        (7001, 2),
        (7001, 3),
    ]
    assert all(r["scores"] == r["stored_scores"] for r in records)
    again = replay("--pair", "random,greedy", "--deals", "7000-7001", "--out", out)
    assert again.returncode == 0, again.stderr
    assert "4 already replayed, 0 to play" in again.stderr
    assert len(out.read_text("utf-8").splitlines()) == 4


def test_a_changed_game_fails_the_check(tmp_path: Path) -> None:
    stored = (
        Path(__file__).resolve().parents[2] / "benchmarks/runs/bot-elo/coffee-rush-search.jsonl"
    )
    records = [json.loads(line) for line in stored.read_text("utf-8").splitlines()]
    game = next(r for r in records if r["pair"] == ["random", "greedy"] and r["deal"] == 7000)
    game["scores"] = [s + 1 for s in game["scores"]]
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps(game) + "\n", "utf-8")
    run = replay("--records", changed, "--pair", "random,greedy", "--check")
    assert run.returncode == 1
    assert "check: 0 of 1 games replayed with the stored scores" in run.stdout


def test_a_pair_not_in_the_file_is_an_error() -> None:
    run = replay("--pair", "random,nobody", "--deals", "7000")
    assert run.returncode != 0
    assert "holds no game of the pair random,nobody" in run.stderr
