"""The command line with Coffee Rush: play (steps and whole turns), sim, inspect, --cards,
--less-luck and `deck check` on card files. Same contracts as Café: one `error:` line and
exit code 2 for every user error."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game
from tests.cli.test_cli import assert_user_error, feed, run, write_json

GAME = find_game("coffee-rush")
CARDS_TEXT = (
    resources.files("coffeetable.games.coffee_rush")
    .joinpath("data/cards.toml")
    .read_text(encoding="utf-8")
)


def small_cards(tmp_path: Path) -> Path:
    """A valid card file with other cards: only the first 9 drinks."""
    head, _, rest = CARDS_TEXT.partition("[[drink]]")
    drinks = rest.split("[[drink]]")[:9]
    path = tmp_path / "small.toml"
    path.write_text(head + "".join("[[drink]]" + d for d in drinks), encoding="utf-8")
    return path


def test_sim_coffee_rush(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "sim", "coffee-rush", "--players", "4", "--games", "6", "--seed", "3"
    )
    assert code == 0 and err == ""
    assert "6 games of coffee-rush with 4 random bots (seed 3)" in out
    assert "options: less_luck=False" in out  # the card digest is not shown
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+ \S+\s+-?\d+\.\d\d", line)]
    assert len(rows) == 4


def test_sim_coffee_rush_json_less_luck_is_reproducible(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("sim", "coffee-rush", "--players", "2", "--games", "5", "--less-luck", "--json")
    first = json.loads(run(capsys, *args)[1])
    second = json.loads(run(capsys, *args)[1])
    assert first["options"]["less_luck"] is True
    assert first["options"]["cards_sha256"] == GAME.cards.digest
    assert first["seats"] == second["seats"]
    assert sum(s["win_share"] for s in first["seats"]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["sim", "coffee-rush", "--players", "1"], "2 to 4"),
        (["sim", "coffee-rush", "--espresso"], "unknown Coffee Rush option"),
        (["sim", "cafe", "--less-luck"], "unknown Café option"),
        (["sim", "coffee-rush", "--deck", "x.toml"], "--deck applies to Café only"),
        (["sim", "cafe", "--cards", "x.toml"], "--cards applies to Coffee Rush only"),
        (["sim", "coffee-rush", "--cards", "missing.toml"], "cannot read card file"),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str], words: str) -> None:
    code, _, err = run(capsys, *args)
    assert words in assert_user_error(code, err)


def test_play_steps_and_a_whole_turn(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Two people: set-up by steps, an illegal move refused, then a whole turn on one line."""
    record_path = tmp_path / "rec.json"
    feed(
        monkeypatch,
        "place d1",  # seat 1
        "place c1",  # seat 0
        "place a4",  # seat 1
        "place a4",  # seat 0: occupied, refused
        "place b3",
        "pour 1:steam+steam",  # seat 0's set-up tokens
        "pour 1:coffee 2:milk",  # seat 1's
        "?",
        "c1-c2-b2; pour 1:ice; pour 2:milk; end",
        "quit",
    )
    code, out, _ = run(
        capsys, "play", "coffee-rush", "--players", "2", "--seed", "4", "--record", str(record_path)
    )
    assert code == 0
    assert "not played: place a4: a4 already has a meeple" in out
    assert "  c1-c2\n" in out and "  b3-b4\n" in out  # '?' lists the steps
    data = json.loads(record_path.read_text(encoding="utf-8"))
    assert data["game"] == "coffee-rush"
    assert data["actions"][-1] == [0, "c1-c2-b2; pour 1:ice 2:milk; end"]
    assert len(data["actions"]) == 7
    state = GameRecord.from_json(data).replay()
    assert state.current_seats() == frozenset({1})
    assert state.to_json()["players"][0]["cups"] == [["steam", "steam", "ice"], ["milk"], []]


def test_play_with_bots_only_finishes_and_inspect_reads_the_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    feed(monkeypatch)
    record_path = tmp_path / "bots.json"
    code, out, _ = run(
        capsys,
        *("play", "coffee-rush", "--players", "3", "--bots", "3", "--seed", "8"),
        *("--record", str(record_path)),
    )
    assert code == 0 and "Final scores:" in out and "Winner(s):" in out
    data = json.loads(record_path.read_text(encoding="utf-8"))
    final = GameRecord.from_json(data).replay()
    assert final.is_over() and data["result"]["winners"] == final.winners()
    code, out, _ = run(capsys, "inspect", str(record_path))
    assert code == 0
    assert "Coffee Rush record; options: less_luck=False" in out and "Game over." in out
    code, out, _ = run(capsys, "inspect", str(record_path), "--json")
    info = json.loads(out)
    assert info["over"] is True and info["winners"] == final.winners()
    assert [s["total"] for s in info["scores"]] == [s.total for s in final.scores()]


def test_inspect_position_lists_the_steps(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    state = GAME.new_initial_state(3, 2)
    path = write_json(tmp_path / "pos.json", state.to_json())
    code, out, _ = run(capsys, "inspect", path, "--json")
    assert code == 0
    info = json.loads(out)
    assert info["kind"] == "position"
    assert info["to_move"] == {"2": [a.notation() for a in state.legal_actions(2)]}


def test_inspect_illegal_action_in_a_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = GameRecord("coffee-rush", ["a", "b"], 1, actions=[(1, "place a1"), (0, "place a1")])
    path = write_json(tmp_path / "bad.json", record.to_json())
    code, _, err = run(capsys, "inspect", path)
    message = assert_user_error(code, err)
    assert "action #1" in message and "a1 already has a meeple" in message


def test_other_cards_play_and_records_need_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cards = small_cards(tmp_path)
    feed(monkeypatch)
    record_path = tmp_path / "small.json"
    code, out, _ = run(
        capsys,
        *("play", "coffee-rush", "--players", "2", "--bots", "2", "--seed", "1"),
        *("--cards", str(cards), "--record", str(record_path)),
    )
    assert code == 0 and "Final scores:" in out
    # without --cards, the record is refused with a clear message, and accepted with it
    code, _, err = run(capsys, "inspect", str(record_path))
    assert "another card file" in assert_user_error(code, err)
    code, out, _ = run(capsys, "inspect", str(record_path), "--cards", str(cards))
    assert code == 0 and "Game over." in out


def test_deck_check_reads_card_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = resources.files("coffeetable.games.coffee_rush").joinpath("data/cards.toml")
    code, out, _ = run(capsys, "deck", "check", str(path))
    assert code == 0
    assert "valid Coffee Rush card file" in out
    assert "80 order cards of 33 drinks" in out and "4 for the less-luck set-up" in out
    broken = tmp_path / "broken.toml"
    broken.write_text(
        CARDS_TEXT.replace('recipe = ["coffee", "steam"]', 'recipe = ["coffee", "sugar"]', 1)
        .replace('name = "Cocoa"', 'name = "Milk Tea"')
        .replace("copies = 6", "copies = 0"),
        encoding="utf-8",
    )
    code, _, err = run(capsys, "deck", "check", str(broken))
    assert_user_error(code, err)
    assert "3 problem(s)" in err
    assert "'sugar' is not an ingredient" in err
    assert "'Milk Tea' is used 2 times" in err
    assert "'copies' must be a whole number from 1" in err
    # playing with it gives one line naming the first problem and how to see them all
    code, _, err = run(capsys, "sim", "coffee-rush", "--cards", str(broken))
    assert "deck check" in assert_user_error(code, err)
