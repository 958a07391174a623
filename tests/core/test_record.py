"""Game records: JSON round trip, replay, and the errors a bad record gives."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from coffeetable.core.errors import DataError, UnknownGameError
from coffeetable.core.record import (
    POSITION_FORMAT,
    RECORD_FORMAT,
    GameRecord,
    RecordActionError,
    load_state_or_record,
    read_json_file,
)
from coffeetable.core.registry import find_game


def play_record(players: int = 2, seed: int = 11, steps: int = 40) -> GameRecord:
    """A record of `steps` random legal actions (fewer if the game ends first)."""
    game = find_game("cafe")
    state = game.new_initial_state(players, seed)
    record = GameRecord(game="cafe", seats=[f"p{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        seat = min(state.current_seats())
        action = rng.choice(state.legal_actions(seat))
        record.actions.append((seat, state.apply(seat, action).notation()))
    return record


def test_json_round_trip() -> None:
    record = play_record()
    data = record.to_json()
    assert data["format"] == RECORD_FORMAT
    assert "result" not in data
    again = GameRecord.from_json(json.loads(json.dumps(data)))
    assert again == record
    assert again.to_json() == data


def test_replay_matches_the_played_state() -> None:
    record = play_record(players=3, seed=5, steps=60)
    game = find_game("cafe")
    state = game.new_initial_state(3, 5)
    for seat, text in record.actions:
        state.apply(seat, game.parse_action(text))
    assert record.replay().to_json() == state.to_json()


def test_replay_upto_is_a_prefix() -> None:
    record = play_record(steps=30)
    partial = GameRecord(record.game, record.seats, record.seed, actions=record.actions[:12])
    assert record.replay(upto=12).to_json() == partial.replay().to_json()
    assert record.replay(upto=0).to_json() == find_game("cafe").new_initial_state(2, 11).to_json()


def test_final_record_carries_the_result() -> None:
    game = find_game("cafe")
    state = game.new_initial_state(1, 3)
    record = GameRecord(game="cafe", seats=["solo"], seed=3)
    rng = random.Random(0)
    while not state.is_over():
        action = rng.choice(state.legal_actions(0))
        record.actions.append((0, state.apply(0, action).notation()))
    data = record.to_json(final=state)
    assert data["result"]["winners"] == [0]
    assert data["result"]["scores"][0]["total"] == state.scores()[0].total
    # the result is informative only: reading ignores it and replay recomputes it
    assert GameRecord.from_json(data).replay().scores() == state.scores()


def test_illegal_action_reports_its_index() -> None:
    record = play_record(steps=20)
    bad = GameRecord(record.game, record.seats, record.seed, actions=list(record.actions))
    bad.actions.insert(7, (bad.actions[7][0], "produce 9,9"))
    with pytest.raises(RecordActionError) as info:
        bad.replay()
    assert info.value.index == 7
    assert info.value.text == "produce 9,9"
    assert "#7" in str(info.value)
    assert isinstance(info.value, DataError)


def test_unreadable_action_reports_its_index() -> None:
    record = play_record(steps=5)
    record.actions.append((0, "fly away"))
    with pytest.raises(RecordActionError) as info:
        record.replay()
    assert info.value.index == 5
    assert "fly away" in str(info.value)


def test_wrong_seat_in_record_reports_its_index() -> None:
    game = find_game("cafe")
    state = game.new_initial_state(2, 4)
    seat = min(state.current_seats())
    other = 1 - seat
    action = state.legal_actions(seat)[0].notation()
    record = GameRecord("cafe", ["a", "b"], 4, actions=[(other, action)])
    with pytest.raises(RecordActionError) as info:
        record.replay()
    assert info.value.index == 0
    assert info.value.seat == other


def _valid() -> dict:
    return {
        "format": RECORD_FORMAT,
        "game": "cafe",
        "options": {},
        "seats": ["a", "b"],
        "seed": 1,
        "actions": [],
    }


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(format="something/1"), "format"),
        (lambda d: d.pop("format"), "format"),
        (lambda d: d.pop("seed"), "seed"),
        (lambda d: d.update(seed="12"), "seed"),
        (lambda d: d.update(seed=True), "seed"),
        (lambda d: d.pop("seats"), "seats"),
        (lambda d: d.update(seats=[]), "seats"),
        (lambda d: d.update(seats=[1, 2]), "seats"),
        (lambda d: d.update(options=[]), "options"),
        (lambda d: d.pop("actions"), "actions"),
        (lambda d: d.update(actions={"0": "end"}), "actions"),
        (lambda d: d.update(actions=[[0, "end"], ["0", "end"]]), "action #1"),
        (lambda d: d.update(actions=[[0]]), "action #0"),
        (lambda d: d.update(actions=["end"]), "action #0"),
        (lambda d: d.update(actions=[[True, "end"]]), "action #0"),
        (lambda d: d.update(game=5), "game"),
    ],
)
def test_malformed_record_gives_data_error(change, words: str) -> None:
    data = _valid()
    change(data)
    with pytest.raises(DataError) as info:
        GameRecord.from_json(data)
    assert words in str(info.value)


@pytest.mark.parametrize("data", [[], "record", 3, None])
def test_record_must_be_an_object(data) -> None:
    with pytest.raises(DataError, match="JSON object"):
        GameRecord.from_json(data)


def test_unknown_game_in_record() -> None:
    data = _valid()
    data["game"] = "chess"
    with pytest.raises(UnknownGameError, match="chess"):
        GameRecord.from_json(data)


def test_bad_options_fail_at_replay() -> None:
    data = _valid()
    data["options"] = {"speed": "fast"}
    record = GameRecord.from_json(data)
    with pytest.raises(DataError, match="speed"):
        record.replay()


def test_read_json_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such file"):
        read_json_file(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": \n oops}', encoding="utf-8")
    with pytest.raises(DataError, match="line 2"):
        read_json_file(broken)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DataError, match="cannot read"):
        read_json_file(binary)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_valid()), encoding="utf-8")
    assert read_json_file(good) == _valid()


def test_load_state_or_record_dispatches_on_format() -> None:
    record = play_record(steps=10)
    state, rec = load_state_or_record(record.to_json())
    assert rec == record
    assert state.to_json() == record.replay().to_json()

    position = state.to_json()
    assert position["format"] == POSITION_FORMAT
    state2, rec2 = load_state_or_record(position)
    assert rec2 is None
    assert state2.to_json() == position

    with pytest.raises(DataError, match="unknown file format"):
        load_state_or_record({"format": "nope"})
    with pytest.raises(DataError, match="JSON object"):
        load_state_or_record([1, 2])
    with pytest.raises(DataError, match="'game'"):
        load_state_or_record({"format": POSITION_FORMAT})
    with pytest.raises(UnknownGameError):
        load_state_or_record({"format": POSITION_FORMAT, "game": "go"})
