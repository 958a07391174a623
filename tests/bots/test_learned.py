"""The learned value (bots/learned.py): its features read only the seat's own information, its
model files load by version with their provenance, and the bots that use a model (`+learned`)
still never peek, and play with the hand-written evaluation when no model fits."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from coffeetable import find_game
from coffeetable.bots import learned, make_bot
from coffeetable.bots.base import NEWEST, parse_learned
from coffeetable.bots.learned import CAFE_FEATURES, ValueModel, cafe_features
from coffeetable.core.errors import DataError
from coffeetable.core.game import State
from tests.bots.test_bots import (
    NO_PEEK_CAFE_ISMCTS,
    NO_PEEK_POSITIONS,
    decide,
    decision_seats,
    no_peek_copies,
    no_peek_state,
)

CAFE_NO_PEEK = [p for p in NO_PEEK_POSITIONS if p[0] == "cafe"]


def random_model(players: tuple[int, ...] = (1, 2, 3, 4), hidden: int = 8) -> ValueModel:
    """A model with random weights for the default deck: it ranks turns unlike the
    hand-written evaluation, so a bot that uses it plays differently."""
    rng = random.Random(7)
    width = len(CAFE_FEATURES)
    state = find_game("cafe").new_initial_state(1, 1, {})
    return ValueModel(
        name="cafe-value",
        version=99,
        game="cafe",
        features=CAFE_FEATURES,
        deck_sha256=learned.deck_sha256(state) or "",
        players=players,
        mean=tuple(0.0 for _ in range(width)),
        scale=tuple(10.0 for _ in range(width)),
        layers=(
            (
                tuple(tuple(rng.uniform(-1, 1) for _ in range(width)) for _ in range(hidden)),
                tuple(rng.uniform(-1, 1) for _ in range(hidden)),
            ),
            ((tuple(rng.uniform(-1, 1) for _ in range(hidden)),), (0.0,)),
        ),
        target_mean=20.0,
        target_scale=5.0,
        provenance={"how": "a test"},
    )


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> ValueModel:
    made = random_model()
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: made)
    return made


@pytest.mark.parametrize(("game", "players", "options", "steps"), CAFE_NO_PEEK)
def test_features_read_only_the_seats_own_information(
    game: str, players: int, options: dict[str, Any], steps: int
) -> None:
    state = no_peek_state(game, players, options, steps)
    copies = no_peek_copies(state, steps)
    for seat in range(players):
        features = cafe_features(state, seat)
        assert len(features) == len(CAFE_FEATURES)
        assert all(math.isfinite(v) for v in features)
        for copy in copies:
            assert cafe_features(copy, seat) == features


@pytest.mark.parametrize(("game", "players", "options", "steps"), CAFE_NO_PEEK)
def test_model_bots_do_not_peek_at_hidden_cards(
    game: str, players: int, options: dict[str, Any], steps: int, model: ValueModel
) -> None:
    """The no-peek test of test_bots.py, for the bots that judge turns by a learned value."""
    state = no_peek_state(game, players, options, steps)
    copies = no_peek_copies(state, steps)
    seats = decision_seats(state)
    for spec in ("greedy+learned", f"{NO_PEEK_CAFE_ISMCTS}+learned"):
        for seat in seats[:1] if spec.startswith("ismcts") else seats:
            expected = decide(spec, state, seat)
            for copy in copies:
                assert decide(spec, copy, seat) == expected, (spec, seat)


def test_the_model_no_peek_test_has_teeth(
    model: ValueModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the model's features read from a search on the real hidden cards, the permuted
    copies would change the decision here: the test above can fail."""
    game, players, options, steps = NO_PEEK_POSITIONS[4]
    state = no_peek_state(game, players, options, steps)
    copies = no_peek_copies(state, steps)
    seat = decision_seats(state)[0]
    monkeypatch.setattr(type(state), "resample_hidden", lambda self, seat, rng: self.clone())
    spec = f"{NO_PEEK_CAFE_ISMCTS}+learned"
    expected = decide(spec, state, seat)
    assert any(decide(spec, copy, seat) != expected for copy in copies)


def _greedy_choice(spec: str, state: State, seat: int) -> tuple[str, dict[str, Any]]:
    action, info = make_bot(spec, 3).choose(state, seat)
    info.pop("seconds")
    return action.notation(), info


def test_greedy_uses_the_model_where_it_fits(model: ValueModel) -> None:
    differs = 0
    for steps in (8, 12, 20, 30):
        state = no_peek_state("cafe", 1, {}, steps)
        seat = decision_seats(state)[0]
        plain, plain_info = _greedy_choice("greedy", state, seat)
        chosen, info = _greedy_choice("greedy+learned", state, seat)
        assert info.get("learned") is True and "learned" not in plain_info
        # the value is the model's estimate of the chosen turn's end (in points)
        assert info["value"] != plain_info["value"]
        differs += chosen != plain
    assert differs  # a random model chooses otherwise somewhere


def test_without_a_fitting_model_the_bots_play_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    state = no_peek_state("cafe", 2, {}, 20)
    seat = decision_seats(state)[0]
    expected = _greedy_choice("greedy", state, seat)
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: None)
    assert _greedy_choice("greedy+learned", state, seat) == expected
    other_deck = random_model()
    other_deck = ValueModel(**{**other_deck.__dict__, "deck_sha256": "0" * 64})
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: other_deck)
    assert learned.evaluator(state) is None
    assert _greedy_choice("greedy+learned", state, seat) == expected
    solo_only = random_model(players=(1,))
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: solo_only)
    assert learned.evaluator(state) is None  # a 2-player game
    assert _greedy_choice("greedy+learned", state, seat) == expected
    rush = no_peek_state("coffee-rush", 2, {}, 16)
    assert learned.evaluator(rush) is None  # no model for Coffee Rush


def test_evaluator_scores_finished_games_exactly(model: ValueModel) -> None:
    state = find_game("cafe").new_initial_state(1, 5, {})
    while not state.is_over():
        seat = min(state.current_seats())
        state.apply(seat, random.Random(0).choice(state.legal_actions(seat)))
    evaluate = learned.evaluator(state)
    assert evaluate is not None
    assert evaluate(state, 0) == state.scores()[0].total


def test_model_round_trips_through_json() -> None:
    made = random_model()
    again = ValueModel.from_json(made.to_json(), {})
    state = no_peek_state("cafe", 1, {}, 8)
    x = cafe_features(state, 0)
    assert again.predict(x) == made.predict(x)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"features": ["evaluation"]}, "features"),
        ({"mean": [0.0]}, "standardization"),
        ({"layers": []}, "standardization"),
        ({"target_mean": "x"}, "malformed"),
        ({"scale": [-1.0] * len(CAFE_FEATURES)}, "scale"),
    ],
)
def test_malformed_models_are_refused(change: dict[str, Any], message: str) -> None:
    data = {**random_model().to_json(), **change}
    with pytest.raises(DataError, match=message):
        ValueModel.from_json(data, {})


def test_bot_specs_with_a_learned_value() -> None:
    assert parse_learned("learned") == NEWEST
    assert parse_learned("learned=3") == 3
    assert make_bot("greedy+learned").name == "greedy+learned"
    assert make_bot("ismcts:hard+learned").name == "ismcts:hard+learned"
    assert make_bot("ISMCTS:200i+Learned=1").name == "ismcts:200i+learned=1"
    for bad in ("greedy+fast", "greedy+learned=0", "greedy+learned=x", "random+learned"):
        with pytest.raises(DataError):
            make_bot(bad)


def test_shipped_models_load_with_their_provenance() -> None:
    shipped = learned.model_files()
    for name, versions in shipped.items():
        for version in versions:
            made = learned.load_model(name, version)
            assert made is not None and made.version == version
            for key in ("command", "commit", "deck_sha256", "games", "date", "held_out_rmse"):
                assert key in made.provenance, (name, version, key)
            assert made.provenance["deck_sha256"] == made.deck_sha256
    assert learned.load_model("no-such-model") is None
    assert learned.load_model("cafe-value", 10**6) is None


def test_the_newest_model_fitted_on_the_player_count_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A solo model and a 2-player one side by side: each game gets the newest that fits."""
    made = {
        1: random_model(players=(1,)),
        2: ValueModel(**{**random_model(players=(1,)).__dict__, "target_mean": 30.0}),
        3: ValueModel(**{**random_model(players=(2,)).__dict__, "target_mean": 40.0}),
    }
    monkeypatch.setattr(learned, "model_files", lambda: {"cafe-value": [1, 2, 3]})
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: made.get(version))
    for players, version in ((1, 2), (2, 3), (3, None)):
        state = no_peek_state("cafe", players, {}, 12)
        evaluate = learned.evaluator(state)
        if version is None:
            assert evaluate is None
            continue
        assert evaluate is not None
        expected = made[version].predict(cafe_features(state, 0))
        assert evaluate(state, 0) == expected
    two = no_peek_state("cafe", 2, {}, 12)
    assert learned.evaluator(two, 1) is None  # named: that model, or none
