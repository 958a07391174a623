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
from coffeetable.bots.learned import (
    CAFE_FEATURES,
    RUSH_FEATURES,
    ValueModel,
    cafe_features,
    rush_features,
)
from coffeetable.bots.make import NEWEST, parse_learned
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

RUSH_NO_PEEK_ISMCTS = "ismcts:150i"  # test_bots.py's budget for Coffee Rush's teeth


def random_model(
    players: tuple[int, ...] = (1, 2, 3, 4), hidden: int = 8, game: str = "cafe"
) -> ValueModel:
    """A model with random weights for the game's default deck: it ranks turns unlike the
    hand-written evaluation, so a bot that uses it plays differently."""
    rng = random.Random(7)
    features = learned.FEATURES[game][0]
    width = len(features)
    state = find_game(game).new_initial_state(2, 1, {})
    return ValueModel(
        name=learned.DEFAULT_MODEL[game],
        version=99,
        game=game,
        features=features,
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


@pytest.fixture
def models(monkeypatch: pytest.MonkeyPatch) -> dict[str, ValueModel]:
    """A random model for each game, each used where its game is played."""
    made = {
        "cafe-value": random_model(),
        "rush-value": random_model(players=(2, 3, 4), game="coffee-rush"),
    }
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: made.get(name))
    _a_rush_model_file(monkeypatch)
    return made


def _a_rush_model_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped models, and a version of `rush-value` whether or not one is shipped."""
    shipped = learned.model_files()
    monkeypatch.setattr(learned, "model_files", lambda: {**shipped, "rush-value": [99]})


@pytest.mark.parametrize(("game", "players", "options", "steps"), NO_PEEK_POSITIONS)
def test_features_read_only_the_seats_own_information(
    game: str, players: int, options: dict[str, Any], steps: int
) -> None:
    """Café: the seat's own area and hand; Coffee Rush: its board and the public counts.
    Another order of the hidden cards gives the same features."""
    names, features_of = learned.FEATURES[game]
    state = no_peek_state(game, players, options, steps)
    copies = no_peek_copies(state, steps)
    for seat in range(players):
        features = features_of(state, seat)
        assert len(features) == len(names)
        assert all(math.isfinite(v) for v in features)
        for copy in copies:
            assert features_of(copy, seat) == features


def test_rush_features_follow_the_seats_board() -> None:
    """Each count is the seat's own: a finished game's features are its score's parts."""
    state = find_game("coffee-rush").new_initial_state(2, 3, {})
    rng = random.Random(3)
    while not state.is_over():
        seat = min(state.current_seats())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    for seat, score in enumerate(state.scores()):
        named = dict(zip(RUSH_FEATURES, rush_features(state, seat), strict=True))
        assert named["score_now"] == score.total
        assert named["completed"] == len(state.completed[seat])  # type: ignore[attr-defined]
        assert named["penalties"] == len(state.penalties[seat])  # type: ignore[attr-defined]
        assert named["deck_left"] == len(state.deck)  # type: ignore[attr-defined]
        assert named["closed"] == 1.0 and named["players"] == 2


@pytest.mark.parametrize(("game", "players", "options", "steps"), NO_PEEK_POSITIONS)
def test_model_bots_do_not_peek_at_hidden_cards(
    game: str, players: int, options: dict[str, Any], steps: int, models: dict[str, ValueModel]
) -> None:
    """The no-peek test of test_bots.py, for the bots that judge turns by a learned value."""
    state = no_peek_state(game, players, options, steps)
    assert learned.evaluator(state) is not None  # a model judges here
    copies = no_peek_copies(state, steps)
    seats = decision_seats(state)
    search = NO_PEEK_CAFE_ISMCTS if game == "cafe" else RUSH_NO_PEEK_ISMCTS
    for spec in ("greedy+learned", f"{search}+learned"):
        # ISMCTS on Café's simultaneous turns: one seat is enough (and cheaper)
        for seat in seats[:1] if spec.startswith("ismcts") and game == "cafe" else seats:
            expected = decide(spec, state, seat)
            for copy in copies:
                assert decide(spec, copy, seat) == expected, (spec, seat)


@pytest.mark.parametrize(
    ("position", "search"), [(4, NO_PEEK_CAFE_ISMCTS), (7, RUSH_NO_PEEK_ISMCTS)]
)
def test_the_model_no_peek_test_has_teeth(
    position: int, search: str, models: dict[str, ValueModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the model's features read from a search on the real hidden cards, the permuted
    copies would change the decision here: the test above can fail."""
    game, players, options, steps = NO_PEEK_POSITIONS[position]
    state = no_peek_state(game, players, options, steps)
    copies = no_peek_copies(state, steps)
    seat = decision_seats(state)[0]
    monkeypatch.setattr(type(state), "resample_hidden", lambda self, seat, rng: self.clone())
    spec = f"{search}+learned"
    expected = decide(spec, state, seat)
    assert any(decide(spec, copy, seat) != expected for copy in copies)


def _greedy_choice(spec: str, state: State, seat: int) -> tuple[str, dict[str, Any]]:
    action, info = make_bot(spec, 3).choose(state, seat)
    info.pop("seconds")
    return action.notation(), info


@pytest.mark.parametrize(
    ("game", "players", "steps"),
    [("cafe", 1, (8, 12, 20, 30)), ("coffee-rush", 2, (16, 30, 52, 70))],
)
def test_greedy_uses_the_model_where_it_fits(
    game: str, players: int, steps: tuple[int, ...], models: dict[str, ValueModel]
) -> None:
    differs = 0
    for k in steps:
        state = no_peek_state(game, players, {}, k)
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
    _a_rush_model_file(monkeypatch)
    every_count = random_model()  # a Café model never judges Coffee Rush
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: every_count)
    assert learned.evaluator(rush) is None
    rush_model = random_model(players=(3, 4), game="coffee-rush")
    monkeypatch.setattr(learned, "load_model", lambda name, version=None: rush_model)
    assert learned.evaluator(rush) is None  # fitted on 3 and 4 players, not 2
    monkeypatch.setattr(
        learned, "load_model", lambda name, version=None: random_model(game="coffee-rush")
    )
    assert learned.evaluator(rush) is not None


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
            # fitted on the game's default deck: a game of its player count is judged by it
            players = made.players[0]
            state = find_game(made.game).new_initial_state(players, 1, {})
            assert learned.DEFAULT_MODEL[made.game] == name
            assert learned.evaluator(state, version) is not None, (name, version)
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


def test_a_version_that_is_not_shipped_is_a_clear_error() -> None:
    """`+learned=N` names a model file: where the game has no version N, the bot says so at
    its first decision instead of playing without a model (a mistyped benchmark spec)."""
    for game, players in (("cafe", 2), ("coffee-rush", 2)):
        name = learned.DEFAULT_MODEL[game]
        missing = max(learned.model_files().get(name, [0])) + 1
        state = no_peek_state(game, players, {}, 12)
        seat = decision_seats(state)[0]
        with pytest.raises(DataError, match=f"{name}-v{missing}"):
            learned.evaluator(state, missing)
        for spec in (f"greedy+learned={missing}", f"ismcts:20i+learned={missing}"):
            with pytest.raises(DataError, match=f"{name}-v{missing}"):
                make_bot(spec, seed=1).choose(state, seat)


#: 2-player Coffee Rush positions, where the shipped model judges: NO_PEEK_POSITIONS' own,
#: and two where a beam that saw the hidden cards would decide otherwise
RUSH_HARD_POSITIONS = [
    *(p for p in NO_PEEK_POSITIONS if p[:2] == ("coffee-rush", 2)),
    ("coffee-rush", 2, {}, 40),
    ("coffee-rush", 2, {"less_luck": True}, 16),
]


@pytest.mark.parametrize(("game", "players", "options", "steps"), RUSH_HARD_POSITIONS)
def test_coffee_rush_hard_level_does_not_peek_with_its_shipped_model(
    game: str, players: int, options: dict[str, Any], steps: int
) -> None:
    """Coffee Rush's `hard` judges its beam's turns by the shipped rush-value-v2 (bots/make.py,
    GAME_LEVELS): its decisions are the same whatever the order of the cards it cannot see."""
    state = no_peek_state(game, players, options, steps)
    assert learned.evaluator(state, 2) is not None  # the shipped model judges here
    copies = no_peek_copies(state, steps)
    for seat in decision_seats(state):
        expected = decide("ismcts:hard", state, seat)
        for copy in copies:
            assert decide("ismcts:hard", copy, seat) == expected, seat


@pytest.mark.parametrize(("game", "players", "options", "steps"), RUSH_HARD_POSITIONS[-2:])
def test_the_hard_level_no_peek_test_has_teeth(
    game: str, players: int, options: dict[str, Any], steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were the level's beam run on the real hidden cards, a copy with them in another order
    would change its decision here: the test above can fail."""
    state = no_peek_state(game, players, options, steps)
    copies = no_peek_copies(state, steps)
    seat = decision_seats(state)[0]
    monkeypatch.setattr(type(state), "resample_hidden", lambda self, seat, rng: self.clone())
    expected = decide("ismcts:hard", state, seat)
    assert any(decide("ismcts:hard", copy, seat) != expected for copy in copies)
