"""The command line: sim, inspect, deck check, play (driven through stdin)."""

from __future__ import annotations

import io
import json
import random
import re
from importlib import resources
from pathlib import Path

import pytest

from coffeetable.cli.main import main
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game

GAME = find_game("cafe")
DECK_TEXT = (
    resources.files("coffeetable.games.cafe").joinpath("data/deck.toml").read_text(encoding="utf-8")
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_user_error(code: int, err: str) -> str:
    """Exit 2, one 'error:' line first, no traceback. Returns the message."""
    assert code == 2
    lines = err.splitlines()
    assert lines and lines[0].startswith("error: ")
    assert sum(1 for line in lines if line.startswith("error:")) == 1
    assert "Traceback" not in err
    return err


def write_json(path: Path, data: object) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def random_record(
    players: int = 2, seed: int = 9, steps: int | None = 25
) -> tuple[GameRecord, object]:
    state = GAME.new_initial_state(players, seed)
    record = GameRecord("cafe", [f"p{i}" for i in range(players)], seed)
    rng = random.Random(seed)
    while not state.is_over() and (steps is None or len(record.actions) < steps):
        seat = min(state.current_seats())
        action = rng.choice(state.legal_actions(seat))
        record.actions.append((seat, state.apply(seat, action).notation()))
    return record, state


# ==== sim ===================================================================================


def test_sim_prints_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "sim", "cafe", "--players", "3", "--games", "4", "--seed", "2")
    assert code == 0 and err == ""
    assert "4 games of cafe with 3 random bots (seed 2)" in out
    rows = [line for line in out.splitlines() if re.match(r"\s+\d+ \S+\s+-?\d+\.\d\d", line)]
    assert len(rows) == 3  # one line per seat


def test_sim_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sim", "cafe", "--players", "2", "--games", "5", "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["game"] == "cafe" and stats["games"] == 5 and stats["players"] == 2
    assert [s["seat"] for s in stats["seats"]] == [0, 1]
    assert sum(s["win_share"] for s in stats["seats"]) == pytest.approx(1.0)
    for s in stats["seats"]:
        assert s["min"] <= s["mean"] <= s["max"]


def test_sim_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = run(capsys, "sim", "cafe", "--games", "3", "--seed", "4", "--json")
    _, second, _ = run(capsys, "sim", "cafe", "--games", "3", "--seed", "4", "--json")
    a, b = json.loads(first), json.loads(second)
    assert a["seats"] == b["seats"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--games", "0"], "--games"),
        (["--players", "5"], "1 to 4"),
        (["--players", "0"], "1 to 4"),
    ],
)
def test_sim_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str], words: str) -> None:
    code, _, err = run(capsys, "sim", "cafe", *args)
    assert words in assert_user_error(code, err)


def test_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sim", "chess", "--games", "1")
    assert "chess" in assert_user_error(code, err)


# ==== inspect ===============================================================================


def test_inspect_record_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record, state = random_record()
    path = write_json(tmp_path / "game.json", record.to_json())
    code, out, err = run(capsys, "inspect", path)
    assert code == 0 and err == ""
    assert "Café record" in out
    assert f"seed {record.seed}" in out and f"{len(record.actions)} actions" in out
    for seat in state.current_seats():
        moves = state.legal_actions(seat)
        assert f"Seat {seat} to move; {len(moves)} legal actions:" in out
        assert f"  {moves[0].notation()}" in out


def test_inspect_record_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record, state = random_record()
    path = write_json(tmp_path / "game.json", record.to_json())
    code, out, _ = run(capsys, "inspect", path, "--json")
    assert code == 0
    info = json.loads(out)
    assert info["kind"] == "record" and info["game"] == "cafe"
    assert info["actions"] == len(record.actions)
    assert info["seed"] == record.seed and info["seats"] == record.seats
    assert info["over"] is False
    assert info["to_move"] == {
        str(s): [a.notation() for a in state.legal_actions(s)]
        for s in sorted(state.current_seats())
    }
    assert [s["total"] for s in info["scores"]] == [s.total for s in state.scores()]


def test_inspect_finished_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record, state = random_record(players=1, seed=3, steps=None)
    assert state.is_over()
    path = write_json(tmp_path / "done.json", record.to_json(final=state))
    code, out, _ = run(capsys, "inspect", path)
    assert code == 0
    assert "Game over." in out and "Winner: seat 0" in out
    assert "Scores (final):" in out
    code, out, _ = run(capsys, "inspect", path, "--json")
    info = json.loads(out)
    assert info["over"] is True and info["winners"] == [0] and info["to_move"] == {}
    assert info["scores"][0]["label"] == state.scores()[0].label


def test_inspect_position_text_and_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, state = random_record(players=3, seed=5, steps=12)
    path = write_json(tmp_path / "pos.json", state.to_json())
    code, out, _ = run(capsys, "inspect", path)
    assert code == 0
    assert "Café position" in out
    assert "Scores if the game ended now:" in out
    code, out, _ = run(capsys, "inspect", path, "--json")
    info = json.loads(out)
    assert info["kind"] == "position"
    assert "seed" not in info
    assert set(info["to_move"]) == {str(s) for s in state.current_seats()}


def test_inspect_illegal_action_names_the_index(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record, _ = random_record(steps=10)
    data = record.to_json()
    data["actions"].insert(6, [data["actions"][6][0], "deliver 0,0 > wh"])
    path = write_json(tmp_path / "bad.json", data)
    code, out, err = run(capsys, "inspect", path)
    message = assert_user_error(code, err)
    assert "action #6" in message and "deliver 0,0 > wh" in message
    assert out == ""


def test_inspect_malformed_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"format": "coffeetable.record/1",\n  "game": }', encoding="utf-8")
    code, _, err = run(capsys, "inspect", str(path))
    message = assert_user_error(code, err)
    assert "not valid JSON" in message and "line 2" in message


def test_inspect_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "inspect", str(tmp_path / "nope.json"))
    assert "no such file" in assert_user_error(code, err)


def test_inspect_unknown_card_in_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = GAME.new_initial_state(2, 1).to_json()
    data["display"][0] = "P99"
    code, _, err = run(capsys, "inspect", write_json(tmp_path / "pos.json", data))
    assert "P99" in assert_user_error(code, err)


def test_inspect_unknown_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "inspect", write_json(tmp_path / "x.json", {"format": "?"}))
    assert "unknown file format" in assert_user_error(code, err)


def test_invalid_deck_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    deck = tmp_path / "deck.toml"
    deck.write_text("this is = not [ toml", encoding="utf-8")
    code, _, err = run(capsys, "sim", "cafe", "--games", "1", "--deck", str(deck))
    assert "TOML" in assert_user_error(code, err)
    record, _ = random_record(steps=3)
    path = write_json(tmp_path / "game.json", record.to_json())
    code, _, err = run(capsys, "inspect", path, "--deck", str(deck))
    assert "TOML" in assert_user_error(code, err)


# ==== deck check ============================================================================


def test_deck_check_default_deck(capsys: pytest.CaptureFixture[str]) -> None:
    path = Path(str(resources.files("coffeetable.games.cafe").joinpath("data/deck.toml")))
    code, out, err = run(capsys, "deck", "check", str(path))
    assert code == 0 and err == ""
    assert "valid Café deck" in out
    assert "48 plan" in out and "4 start" in out and "8 star cards" in out


def card_block(text: str, card_id: str) -> tuple[int, int]:
    start = text.index(f'id = "{card_id}"')
    end = text.find("[[card]]", start)
    return start, len(text) if end < 0 else end


def broken(text: str, card_id: str, old: str, new: str) -> str:
    start, end = card_block(text, card_id)
    block = text[start:end]
    assert old in block
    return text[:start] + block.replace(old, new, 1) + text[end:]


@pytest.mark.parametrize(
    ("card", "old", "new", "words"),
    [
        ("P07", '"empty"]', '"teapot"]', "teapot"),  # an unknown cell token
        ("P02", 'city = "Porto"', 'city = "Paris"', "appendix"),  # a shop not in the rulebook
        ("P48", 'id = "P48"', 'id = "P47"', "duplicate"),
        ("P12", "vp = 5", "vp = 50", "vp"),
    ],
)
def test_deck_check_broken_copies_name_the_card(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, card: str, old: str, new: str, words: str
) -> None:
    path = tmp_path / "deck.toml"
    path.write_text(broken(DECK_TEXT, card, old, new), encoding="utf-8")
    code, out, err = run(capsys, "deck", "check", str(path))
    message = assert_user_error(code, err)
    named = "P47" if card == "P48" else card
    assert f"card {named}" in message
    assert words in message
    assert out == ""


def test_deck_check_counts_stars(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    start, _ = card_block(DECK_TEXT, "P03")
    assert "star = true" in DECK_TEXT[start : start + 200]
    path = tmp_path / "deck.toml"
    path.write_text(broken(DECK_TEXT, "P03", "star = true", "star = false"), encoding="utf-8")
    code, _, err = run(capsys, "deck", "check", str(path))
    assert "star" in assert_user_error(code, err)


# ==== play ==================================================================================


def feed(monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))


def test_play_help_illegal_move_and_quit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    expected = GAME.new_initial_state(1, 5)
    first = expected.legal_actions(0)[0].notation()
    record_path = tmp_path / "rec.json"
    feed(monkeypatch, "?", "produce 9,9", "take NOPE", first, "quit")
    code, out, _ = run(
        capsys, "play", "cafe", "--players", "1", "--seed", "5", "--record", str(record_path)
    )
    assert code == 0
    assert "seed 5" in out
    for action in expected.legal_actions(0):  # '?' lists the legal moves
        assert f"  {action.notation()}" in out
    assert out.count("not played:") == 2
    assert "record written to" in out
    data = json.loads(record_path.read_text(encoding="utf-8"))
    assert data["format"] == "coffeetable.record/1"
    assert data["seed"] == 5 and data["seats"] == ["human:0"]
    assert data["actions"] == [[0, first]]  # the illegal moves were not recorded
    assert "result" not in data
    expected.apply(0, expected.legal_actions(0)[0])
    assert GameRecord.from_json(data).replay().to_json() == expected.to_json()


def test_play_end_of_input_stops_cleanly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    feed(monkeypatch, "help")
    code, out, err = run(capsys, "play", "cafe", "--players", "2", "--seed", "1")
    assert code == 0 and "Traceback" not in err
    assert "commands:" in out


def test_play_with_bots_only_finishes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    feed(monkeypatch)
    record_path = tmp_path / "bots.json"
    code, out, _ = run(
        capsys,
        "play",
        "cafe",
        "--players",
        "2",
        "--bots",
        "2",
        "--seed",
        "8",
        "--record",
        str(record_path),
    )
    assert code == 0
    assert "Final scores:" in out and "Winner(s):" in out
    data = json.loads(record_path.read_text(encoding="utf-8"))
    final = GameRecord.from_json(data).replay()
    assert final.is_over()
    assert data["result"]["winners"] == final.winners()


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--players", "5"], "1 to 4"), (["--players", "2", "--bots", "3"], "--bots")],
)
def test_play_bad_arguments(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args, words
) -> None:
    feed(monkeypatch)
    code, _, err = run(capsys, "play", "cafe", *args)
    assert words in assert_user_error(code, err)


# ==== deck format ===========================================================================


@pytest.mark.parametrize("package", ["coffeetable.games.cafe", "coffeetable.games.coffee_rush"])
def test_deck_format_writes_the_canonical_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, package: str
) -> None:
    name = "data/deck.toml" if package.endswith("cafe") else "data/cards.toml"
    source = str(resources.files(package).joinpath(name))
    out_path = tmp_path / "canonical.toml"
    code, out, err = run(capsys, "deck", "format", source, "-o", str(out_path))
    assert code == 0 and out == "" and err == ""
    canonical = out_path.read_text(encoding="utf-8")
    assert "#" not in canonical.split("\n", 1)[0]  # comments are not kept
    # the canonical text is valid, and formats to itself (on standard output)
    code, out, _ = run(capsys, "deck", "check", str(out_path))
    assert code == 0 and "valid" in out
    code, out, _ = run(capsys, "deck", "format", str(out_path))
    assert code == 0 and out == canonical


def test_deck_format_of_a_broken_or_unreadable_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "deck.toml"
    path.write_text(broken(DECK_TEXT, "P12", "vp = 5", "vp = 50"), encoding="utf-8")
    code, out, err = run(capsys, "deck", "format", str(path))
    assert code == 0 and "vp = 50" in out
    assert "1 problem(s)" in err and "deck check" in err
    path.write_text("this is = not [ toml", encoding="utf-8")
    code, out, err = run(capsys, "deck", "format", str(path))
    assert "TOML" in assert_user_error(code, err) and out == ""
