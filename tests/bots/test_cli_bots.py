"""The command line with bots: sim --bots, tournament, inspect --suggest, play --bot, and the
progress bar."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from coffeetable.cli.progress import Progress
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game
from tests.bots.test_bots import advance_to_decision, random_position
from tests.cli.test_cli import assert_user_error, feed, random_record, run, write_json

ROW = re.compile(r"^\s+(\d+) (\S+)\s+-?\d+\.\d\d")


# ==== sim ===================================================================================


def test_sim_with_bots_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "sim", "coffee-rush", "--bots", "greedy,random", "--games", "2")
    assert code == 0 and err == ""
    assert "2 games of coffee-rush with bots greedy, random (seed 0)" in out
    rows = [m.groups() for line in out.splitlines() if (m := ROW.match(line))]
    assert rows == [("0", "greedy"), ("1", "random")]


def test_sim_with_bots_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "sim", "coffee-rush", "--bots", " greedy , random ", "--games", "2", "--json"
    )
    assert code == 0
    stats = json.loads(out)
    assert stats["players"] == 2  # --players defaults to the number of bots
    assert stats["bots"] == ["greedy", "random"]
    assert [s["bot"] for s in stats["seats"]] == ["greedy", "random"]
    assert [len(s["scores"]) for s in stats["seats"]] == [2, 2]
    assert sum(s["win_share"] for s in stats["seats"]) == pytest.approx(1.0)


def test_sim_without_bots_is_random(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sim", "coffee-rush", "--games", "1", "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["players"] == 2 and stats["bots"] == ["random", "random"]


def test_sim_solo_cafe_with_greedy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "sim", "cafe", "--bots", "greedy", "--games", "1", "--json")
    assert code == 0 and err == ""
    stats = json.loads(out)
    assert stats["players"] == 1 and stats["games"] == 1
    assert [s["bot"] for s in stats["seats"]] == ["greedy"]
    assert stats["seats"][0]["win_share"] == 1.0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--bots", "greedy,random", "--players", "3"], "2 bot(s) for 3 players"),
        (["--bots", "greedy", "--players", "2"], "1 bot(s) for 2 players"),
        (["--bots", "greedy,random,random,random,random"], "2 to 4 players"),
        (["--bots", "greedy"], "2 to 4 players"),  # Coffee Rush has no solo game
        (["--bots", "greedy,nope"], "unknown bot 'nope'"),
        (["--bots", "greedy,ismcts:fast"], "unknown level 'fast'"),
        (["--bots", ","], "--bots needs bot names"),
        (["--bots", "greedy,random", "--games", "0"], "--games"),
    ],
)
def test_sim_bot_errors(capsys: pytest.CaptureFixture[str], args: list[str], words: str) -> None:
    code, out, err = run(capsys, "sim", "coffee-rush", "--games", "1", *args)
    assert words in assert_user_error(code, err)
    assert len(err.splitlines()) == 1 and out == ""


# ==== tournament ============================================================================


def test_tournament_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "tournament", "coffee-rush", "--bots", "random,greedy", "--games", "2"
    )
    assert code == 0 and err == ""  # no progress bar when stderr is not a terminal
    lines = out.splitlines()
    assert lines[0] == "round robin of coffee-rush: 2 bots, 2 games per pair, 2 seats, seed 0"
    assert lines[1].split() == ["bot", "Elo", "±95%", "score", "mean", "points", "games"]
    table = [line.split() for line in lines[2:4]]
    assert sorted(row[0] for row in table) == ["greedy", "random"]
    assert all(row[-1] == "2" for row in table)
    assert re.fullmatch(r"  random \d+(\.\d+)? - \d+(\.\d+)? greedy", lines[4])
    a, b = re.findall(r"\d+(?:\.\d+)?", lines[4])
    assert float(a) + float(b) == 2


def test_tournament_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "tournament", "coffee-rush", "--bots", "random,greedy", "--games", "2", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["game"] == "coffee-rush" and data["games_per_pair"] == 2
    assert data["players"] == 2 and data["seed"] == 0 and data["prior_draws"] == 1.0
    assert [row["bot"] for row in data["bots"]] == ["random", "greedy"]
    for row in data["bots"]:
        assert {"elo", "elo_ci95", "score_share", "mean_score", "games", "points"} <= set(row)
        assert row["games"] == 2
        assert 0 <= row["score_share"] <= 1
        assert row["elo_ci95"] > 0
    assert sum(row["elo"] for row in data["bots"]) == pytest.approx(3000, abs=0.2)
    assert sum(row["score_share"] for row in data["bots"]) == pytest.approx(1.0)
    (pair,) = data["pairs"]
    assert pair["a"] == "random" and pair["b"] == "greedy" and pair["games"] == 2
    assert pair["points_a"] + pair["points_b"] == pytest.approx(2)
    # the stronger score gets the higher rating
    random_row, greedy_row = data["bots"]
    if greedy_row["points"] != random_row["points"]:
        assert (greedy_row["elo"] > random_row["elo"]) == (
            greedy_row["points"] > random_row["points"]
        )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--bots", "greedy"], "at least two bots"),
        (["--bots", "greedy,nope"], "unknown bot 'nope'"),
        (["--bots", ","], "--bots needs bot names"),
        (["--bots", "random,greedy", "--games", "0"], "--games"),
        (["--bots", "random,greedy", "--players", "5"], "2 to 4"),
    ],
)
def test_tournament_errors(capsys: pytest.CaptureFixture[str], args: list[str], words: str) -> None:
    code, out, err = run(capsys, "tournament", "coffee-rush", *args)
    assert words in assert_user_error(code, err)
    assert out == ""


def test_tournament_requires_bots(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:  # argparse: a one-line error too
        run(capsys, "tournament", "coffee-rush")
    _, err = capsys.readouterr()
    assert "--bots" in assert_user_error(exc.value.code, err)  # type: ignore[arg-type]


# ==== inspect --suggest =====================================================================


def rush_position_file(tmp_path: Path) -> tuple[str, object]:
    """A mid-turn position whose candidate turns end in different positions, so that ISMCTS
    searches (candidate turns that all end alike, such as `end` and `pour tea 1, empty 1`,
    are one arm, and one arm needs no search)."""
    state = advance_to_decision(random_position("coffee-rush", 2, {}, 4, 21), 4)
    return write_json(tmp_path / "rush.json", state.to_json()), state


def test_inspect_suggest_coffee_rush_position(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, _ = rush_position_file(tmp_path)
    code, out, err = run(capsys, "inspect", path, "--suggest", "--bot", "ismcts:50i", "--json")
    assert code == 0 and err == ""
    info = json.loads(out)
    (seat,) = info["to_move"]
    hint = info["suggestions"][seat]
    assert hint["bot"] == "ismcts:50i"
    assert hint["action"] in info["to_move"][seat]
    assert hint["iterations"] == 50
    assert 0 <= hint["value"] <= 1
    assert hint["top"][0]["action"] == hint["action"]
    # the text form says the same
    code, out, err = run(capsys, "inspect", path, "--suggest", "--bot", "ismcts:50i")
    assert code == 0 and err == ""
    assert f"Suggestion for seat {seat} (ismcts:50i): {hint['action']} (value " in out


def test_inspect_suggest_cafe_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record, state = random_record(players=3, seed=4, steps=12)
    path = write_json(tmp_path / "cafe.json", record.to_json())
    code, out, err = run(capsys, "inspect", path, "--suggest", "--bot", "ismcts:50i", "--json")
    assert code == 0 and err == ""
    info = json.loads(out)
    assert info["kind"] == "record"
    assert (
        set(info["suggestions"]) == set(info["to_move"]) == {str(s) for s in state.current_seats()}
    )
    for seat, hint in info["suggestions"].items():
        assert hint["action"] in info["to_move"][seat]
        legal = [a.notation() for a in state.legal_actions(int(seat))]
        assert hint["action"] in legal
        if len(legal) == 1:
            assert hint["forced"] is True
        else:
            assert hint["iterations"] == 50
    code, out, _ = run(capsys, "inspect", path, "--suggest", "--bot", "greedy")
    assert code == 0
    for seat in info["to_move"]:
        assert f"Suggestion for seat {seat} (greedy): " in out


def test_inspect_suggest_finished_game_has_no_suggestion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record, state = random_record(players=2, seed=2, steps=None)
    assert state.is_over()
    path = write_json(tmp_path / "done.json", record.to_json(state))
    code, out, _ = run(capsys, "inspect", path, "--suggest", "--bot", "ismcts:10i", "--json")
    assert code == 0
    assert "suggestions" not in json.loads(out)


def test_inspect_suggest_with_time(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path, _ = rush_position_file(tmp_path)
    code, out, _ = run(capsys, "inspect", path, "--suggest", "--time", "0.05", "--json")
    assert code == 0
    (hint,) = json.loads(out)["suggestions"].values()
    assert hint["bot"] == "ismcts" and hint["iterations"] >= 1
    assert hint["seconds"] < 1.0


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--time", "1"], "--bot and --time go with --suggest"),
        (["--bot", "greedy"], "--bot and --time go with --suggest"),
        (["--suggest", "--bot", "nope"], "unknown bot 'nope'"),
        (["--suggest", "--bot", "ismcts:fast"], "unknown level"),
        (["--suggest", "--time", "0"], "positive"),
        (["--suggest", "--time", "-2"], "positive"),
    ],
)
def test_inspect_suggest_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], words: str
) -> None:
    path, _ = rush_position_file(tmp_path)
    code, out, err = run(capsys, "inspect", path, *args)
    assert words in assert_user_error(code, err)
    assert out == ""


# ==== play --bot ============================================================================


@pytest.mark.slow  # about 14 s: the CI's slow stage runs it
def test_play_coffee_rush_with_greedy_bots(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    feed(monkeypatch)
    record_path = tmp_path / "greedy.json"
    code, out, _ = run(
        capsys,
        "play",
        "coffee-rush",
        "--players",
        "2",
        "--bots",
        "2",
        "--bot",
        "greedy",
        "--seed",
        "1",
        "--record",
        str(record_path),
    )
    assert code == 0
    assert "Final scores:" in out and "Winner(s):" in out
    data = json.loads(record_path.read_text(encoding="utf-8"))
    assert data["seats"] == ["bot:greedy", "bot:greedy"]
    assert data["seed"] == 1
    final = GameRecord.from_json(data).replay()
    assert final.is_over()
    assert data["result"]["winners"] == final.winners()
    # a bot's consecutive steps are printed on one line, separated by "; "
    printed = [
        step
        for line in out.splitlines()
        if " (bot): " in line
        for step in line.split(" (bot): ", 1)[1].split("; ")
    ]
    assert printed == [text for _, text in data["actions"]]


def test_play_unknown_bot(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    feed(monkeypatch)
    code, _, err = run(capsys, "play", "coffee-rush", "--bots", "1", "--bot", "nope")
    assert "unknown bot 'nope'" in assert_user_error(code, err)


def test_play_human_and_bot_seats(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    feed(monkeypatch, "quit")
    record_path = tmp_path / "mixed.json"
    code, _, _ = run(
        capsys,
        "play",
        "cafe",
        "--players",
        "3",
        "--bots",
        "2",
        "--bot",
        "ismcts:5i",
        "--seed",
        "2",
        "--record",
        str(record_path),
    )
    assert code == 0
    data = json.loads(record_path.read_text(encoding="utf-8"))
    assert data["seats"] == ["human:0", "bot:ismcts:5i", "bot:ismcts:5i"]
    GameRecord.from_json(data).replay()  # every bot move recorded is legal
    assert find_game("cafe").info.name == data["game"]


# ==== progress bar ==========================================================================


def test_progress_bar_writes_a_bar_and_a_final_newline() -> None:
    stream = io.StringIO()
    bar = Progress(3, "games", stream=stream, show=True)
    for _ in range(3):
        bar.step()
    bar.close()
    text = stream.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1
    frames = text.rstrip("\n").split("\r")[1:]
    assert len(frames) == 3
    assert frames[0].startswith("[" + "#" * 10 + "." * 20 + "] 1/3 games")
    assert frames[-1].startswith("[" + "#" * 30 + "] 3/3 games")
    assert "elapsed" in frames[-1] and "left" in frames[-1]


def test_progress_bar_hidden() -> None:
    stream = io.StringIO()
    bar = Progress(5, "games", stream=stream, show=False)
    bar.step()
    bar.step(4)
    bar.close()
    assert stream.getvalue() == ""
    assert bar.done == 5


def test_progress_bar_follows_the_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert Progress(1, "x", stream=io.StringIO()).show is False
    tty = Tty()
    bar = Progress(0, "games", stream=tty)  # a total of 0 counts as 1: no division by zero
    assert bar.show is True
    bar.step()
    bar.close()
    assert "1/1 games" in tty.getvalue() and tty.getvalue().endswith("\n")
