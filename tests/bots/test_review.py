"""Game review (bots/review.py): known-bad moves flagged, bot moves get small losses, the
analysis never peeks at the record's hidden cards, and bad records and options get clear
errors (the command line's too)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from coffeetable.bots.base import Limit
from coffeetable.bots.make import make_bot
from coffeetable.bots.review import (
    Decision,
    MoveReview,
    Review,
    ReviewError,
    ReviewSettings,
    analyse,
    decisions,
    review_decisions,
    review_record,
    settings_from,
)
from coffeetable.core.errors import DataError
from coffeetable.core.game import Action, State
from coffeetable.core.record import GameRecord, RecordActionError
from coffeetable.core.registry import find_game
from coffeetable.games.cafe.actions import Place
from coffeetable.games.cafe.area import FOOTPRINTS
from coffeetable.games.cafe.state import CafeState
from coffeetable.games.coffee_rush.actions import End, Serve
from tests.bots.test_bots import permute_hidden
from tests.cli.test_cli import assert_user_error, run, write_json

GREEDY = ReviewSettings(bot="greedy", samples=3)
#: a search bot under an iteration budget: deterministic for a seed
SEARCH = ReviewSettings(bot="ismcts", limit=Limit(iterations=6), samples=2, seed=3)


def bot_record(game: str, players: int, seed: int, bot: str = "greedy") -> GameRecord:
    """A finished game played by `bot` in every seat."""
    state = find_game(game).new_initial_state(players, seed)
    record = GameRecord(game, [f"bot:{bot}"] * players, seed, dict(state.options))  # type: ignore[attr-defined]
    bots = [make_bot(bot, seed=seat) for seat in range(players)]
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = bots[seat].choose(state, seat)
        record.actions.append((seat, state.apply(seat, action).notation()))
    return record


def random_record(game: str, players: int, seed: int) -> GameRecord:
    return bot_record(game, players, seed, "random")


def review_json(move: MoveReview) -> dict[str, Any]:
    out = move.to_json()
    del out["seconds"]
    return out


# ==== known-bad moves =========================================================================
def covers_completed_shop(state: CafeState, seat: int, action: Action) -> bool:
    if not isinstance(action, Place):
        return False
    area = state.players[seat].area
    footprint = {(action.row + dr, action.col + dc) for dr, dc in FOOTPRINTS[action.rotation]}
    return any(shop.complete and footprint & set(shop.cells) for shop in area.shops)


def first_state(game: str, players: int, seed: int, wanted: Any) -> tuple[int, int, State, Action]:
    """The first position of a greedy game where `wanted(state, seat)` names a move."""
    state = find_game(game).new_initial_state(players, seed)
    bots = [make_bot("greedy", seed=seat) for seat in range(players)]
    index = 0
    while not state.is_over():
        seat = min(state.current_seats())
        found = wanted(state, seat)
        if found is not None:
            return index, seat, state, found
        action, _ = bots[seat].choose(state, seat)
        state.apply(seat, action)
        index += 1
    raise AssertionError("no such position")


def test_covering_ones_own_completed_shop_is_flagged() -> None:
    def bad_place(state: State, seat: int) -> Action | None:
        assert isinstance(state, CafeState)
        legal = state.legal_actions(seat)
        bad = [a for a in legal if covers_completed_shop(state, seat, a)]
        good = [a for a in legal if isinstance(a, Place) and a not in bad]
        return bad[0] if bad and good else None

    index, seat, state, action = first_state("cafe", 1, 1, bad_place)
    review = analyse(Decision(index, seat, state, action), GREEDY)
    assert review.unit == "VP"
    assert review.loss > 0.5 and review.grade is not None
    assert review.phase == "placement"
    assert "losing" in review.played_text and "losing" not in review.suggested_text
    assert not covers_completed_shop(state, seat, find_game("cafe").parse_action(review.suggested))  # type: ignore[arg-type]
    assert review.words().startswith(f"round {state.round_number()}: places ")
    assert review.best_estimate == review.estimate_before > review.played_estimate


def test_ending_a_coffee_rush_turn_with_a_serve_available_is_flagged() -> None:
    def end_instead_of_serving(state: State, seat: int) -> Action | None:
        legal = state.legal_actions(seat)
        if any(isinstance(a, Serve) for a in legal) and End() in legal:
            return End()
        return None

    index, seat, state, action = first_state("coffee-rush", 2, 2, end_instead_of_serving)
    review = analyse(Decision(index, seat, state, action), ReviewSettings("greedy", samples=4))
    assert review.unit == "win" and review.phase == "serving"
    assert review.loss > 0 and review.grade is not None
    assert review.played == "end" and review.suggested.startswith("serve")
    assert review.suggested_score > review.played_score


# ==== bot moves ===============================================================================
@pytest.mark.slow  # 20 s: two whole games reviewed
def test_a_game_of_bot_moves_gets_small_losses() -> None:
    """The greedy bot's own game, reviewed against it: no mistake; a game of random moves
    gets many (every fifth, third decision of seat 0 of each)."""
    bot_game = [d for d in decisions(bot_record("coffee-rush", 2, 4)) if d.seat == 0][::5]
    random_game = [d for d in decisions(random_record("coffee-rush", 2, 4)) if d.seat == 0][::3]
    bot_moves = review_decisions(bot_game, GREEDY)
    random_moves = review_decisions(random_game, GREEDY)
    assert len(bot_moves) > 20 and len(random_moves) > 10
    assert max(m.loss for m in bot_moves) < 0.1
    assert all(m.grade in (None, "inaccuracy") for m in bot_moves)
    assert sum(m.loss for m in random_moves) >= 1.0 > 0.1 > sum(m.loss for m in bot_moves)
    assert sum(m.grade in ("mistake", "blunder") for m in random_moves) >= 3


@pytest.mark.slow
def test_a_search_bots_game_gets_small_losses_in_solo_cafe() -> None:
    record = bot_record("cafe", 1, 5, "ismcts:0.1s")  # Café's easy level is a beam
    review = review_record(record, ReviewSettings("greedy", samples=4))
    assert sum(m.loss for m in review.moves) / len(review.moves) < 0.3
    bad = review_record(random_record("cafe", 1, 5), ReviewSettings("greedy", samples=4))
    assert sum(m.loss for m in bad.moves) > 3 * sum(m.loss for m in review.moves)


# ==== no peeking ==============================================================================
NO_PEEK = [("cafe", 1, 6, (3, 20, 40)), ("cafe", 2, 7, (5, 30)), ("coffee-rush", 3, 8, (6, 30))]


def some_decisions(game: str, players: int, seed: int, picks: tuple[int, ...]) -> list[Decision]:
    found = list(decisions(random_record(game, players, seed)))
    return [found[i] for i in picks if i < len(found)]


def permuted(decision: Decision, rng: random.Random) -> Decision:
    state = permute_hidden(decision.state, rng)
    assert state.deck != decision.state.deck  # type: ignore[attr-defined]
    return Decision(decision.index, decision.seat, state, decision.action, decision.turn)


@pytest.mark.parametrize(("game", "players", "seed", "picks"), NO_PEEK)
def test_the_analysis_is_identical_under_any_permutation_of_the_unseen_cards(
    game: str, players: int, seed: int, picks: tuple[int, ...]
) -> None:
    found = some_decisions(game, players, seed, picks)
    assert len(found) >= 2
    rng = random.Random(seed)
    for decision in found:
        expected = review_json(analyse(decision, SEARCH))
        for _ in range(2):
            assert review_json(analyse(permuted(decision, rng), SEARCH)) == expected


def test_the_no_peek_test_has_teeth(monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the analysis to play on the real hidden cards (a plain clone for a resample),
    the permuted copies would change it: the test above can fail."""
    found = some_decisions("cafe", 1, 6, (3, 20, 40))
    rng = random.Random(1)
    copies = [(d, permuted(d, rng)) for d in found]
    monkeypatch.setattr(CafeState, "resample_hidden", lambda self, seat, rng: self.clone())
    assert any(
        review_json(analyse(d, SEARCH)) != review_json(analyse(c, SEARCH)) for d, c in copies
    )


def test_the_same_seed_and_budget_give_the_same_review() -> None:
    found = some_decisions("coffee-rush", 2, 9, (2, 10, 20))
    first = [review_json(m) for m in review_decisions(found, SEARCH)]
    assert first == [review_json(m) for m in review_decisions(found, SEARCH)]
    other = ReviewSettings("ismcts", Limit(iterations=6), samples=2, seed=4)
    assert first != [review_json(m) for m in review_decisions(found, other)]


# ==== the whole game ==========================================================================
@pytest.fixture(scope="module")
def solo_review() -> Review:
    """A random solo Café game, reviewed by the greedy bot on one deal a move."""
    return review_record(random_record("cafe", 1, 3), ReviewSettings("greedy", samples=1))


def test_a_solo_cafe_review_tells_where_the_points_went(solo_review: Review) -> None:
    review = solo_review
    (summary,) = review.summaries
    assert summary["unit"] == "VP" and summary["decisions"] == len(review.moves) > 20
    assert set(summary["phases"]) == {"draft", "placement", "actions"}
    assert sum(summary["phases"].values()) == pytest.approx(summary["total_loss"], abs=1e-3)
    biggest = summary["biggest"]
    assert len(biggest) == 3
    assert biggest[0]["loss"] >= biggest[1]["loss"] >= biggest[2]["loss"] > 0
    assert biggest[0]["words"].startswith("round ") and "VP); better: " in biggest[0]["words"]
    assert summary["score"] == review.scores[0]
    assert summary["score_with_suggestions"] == pytest.approx(
        review.scores[0] + sum(b["loss"] for b in biggest), abs=0.06
    )
    assert summary["rating"] in {"Bad", "Average", "Good", "Very good", "Incredible", "Seriously?"}
    data = json.loads(json.dumps(review.to_json()))
    assert data["format"] == "coffeetable.review/1" and len(data["moves"]) == len(review.moves)


def test_one_seat_reviewed_agrees_with_that_seats_part_of_all() -> None:
    """A decision's analysis depends on the seed, its place in the record and its seat only."""
    record = random_record("coffee-rush", 2, 11)
    settings = ReviewSettings("greedy", samples=1)
    one = review_record(record, settings, seats=[1])
    assert one.reviewed == [1] and [s["seat"] for s in one.summaries] == [1]
    assert {m.seat for m in one.moves} == {1}
    assert {m.phase for m in one.moves} == {"movement", "pouring", "serving"}
    found = [d for d in decisions(record) if d.seat == 1]
    assert [m.index for m in one.moves] == [d.index for d in found]
    for i in (0, len(found) // 2, len(found) - 1):
        assert review_json(analyse(found[i], settings)) == review_json(one.moves[i])


# ==== errors ==================================================================================
def test_bad_records_and_options_get_clear_errors() -> None:
    record = random_record("coffee-rush", 2, 12)
    unfinished = GameRecord(record.game, record.seats, record.seed, record.options)
    unfinished.actions = record.actions[:-5]
    with pytest.raises(ReviewError, match="not over"):
        review_record(unfinished)
    illegal = GameRecord(record.game, record.seats, record.seed, record.options)
    illegal.actions = [*record.actions[:6], (record.actions[6][0], "serve 3 3")]
    with pytest.raises(RecordActionError, match="action #6"):
        review_record(illegal)
    with pytest.raises(ReviewError, match="no seat 2"):
        review_record(record, seats=[2])
    with pytest.raises(ReviewError, match="not both"):
        settings_from(seconds=1.0, iterations=5)
    with pytest.raises(ReviewError, match="time limit must be a positive"):
        settings_from(seconds=-1.0)
    with pytest.raises(ReviewError, match="iteration limit"):
        settings_from(iterations=0)
    with pytest.raises(ReviewError, match="samples"):
        settings_from(samples=0)
    with pytest.raises(DataError, match="unknown bot"):
        settings_from(bot="oracle")


def cli_record(tmp_path: Path) -> str:
    return write_json(tmp_path / "game.json", random_record("cafe", 1, 3).to_json())


def test_the_command_line_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], solo_review: Review
) -> None:
    """--json prints the review the library makes; the text tells the summary."""
    path = cli_record(tmp_path)
    code, out, err = run(capsys, "review", path, "--bot", "greedy", "--samples", "1", "--json")
    assert code == 0 and err == ""  # no progress bar off a terminal
    data = json.loads(out)
    expected = solo_review.to_json()
    for review in (data, expected):
        del review["seconds"]
        for move in review["moves"]:
            del move["seconds"]
    assert data == expected
    rush = write_json(tmp_path / "rush.json", random_record("coffee-rush", 2, 11).to_json())
    argv = ["--bot", "greedy", "--samples", "1", "--seat", "1", "--seed", "5"]
    code, out, err = run(capsys, "review", rush, *argv)
    assert code == 0 and err == ""
    assert out.startswith("seat 1 (bot:random): ") and "by phase: movement " in out
    assert "% winning chance in all" in out and "biggest losses:\n    turn " in out
    assert "greedy:60i:1x:seed5" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seat", "3"], "no seat 3"),
        (["--cards", "nowhere.json"], "Coffee Rush only"),
        (["--time", "1", "--iterations", "3"], "not both"),
        (["--time", "0"], "time limit"),
        (["--bot", "oracle"], "unknown bot"),
        (["--samples", "0"], "samples"),
    ],
)
def test_the_command_line_rejects_bad_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, "review", cli_record(tmp_path), *argv)
    assert message in assert_user_error(code, err)


def test_the_command_line_rejects_bad_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    position = find_game("cafe").new_initial_state(1, 1).to_json()
    cases = [
        (
            write_json(tmp_path / "p.json", {**position, "format": "coffeetable.position/1"}),
            "a position",
        ),
        (write_json(tmp_path / "x.json", {"format": "nonsense"}), "not a game record"),
        (str(tmp_path / "missing.json"), "no such file"),
    ]
    record = random_record("cafe", 1, 2)
    record.actions = record.actions[:10]
    cases.append((write_json(tmp_path / "short.json", record.to_json()), "not over"))
    for path, message in cases:
        code, _, err = run(capsys, "review", path)
        assert message in assert_user_error(code, err)
