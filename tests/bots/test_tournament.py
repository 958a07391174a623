"""Round-robin tournaments and the Elo fit (coffeetable.bots.tournament)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from coffeetable.bots import tournament
from coffeetable.bots.tournament import (
    PairResult,
    Rating,
    TournamentResult,
    expected_score,
    fit_elo,
    round_robin,
)
from coffeetable.core.errors import DataError
from coffeetable.core.registry import find_game

ELO_3_TO_1 = 400 * math.log10(3)  # 190.848...
LN10_400 = math.log(10) / 400


def diff(ratings: list[Rating], i: int, j: int) -> float:
    return ratings[i].elo - ratings[j].elo


def observed_and_expected(
    k: int, pairs: list[PairResult], ratings: list[Rating]
) -> tuple[list[float], list[float]]:
    observed = [0.0] * k
    expected = [0.0] * k
    for p in pairs:
        e = expected_score(ratings[p.a].elo, ratings[p.b].elo)
        observed[p.a] += p.points_a
        observed[p.b] += p.points_b
        expected[p.a] += p.games * e
        expected[p.b] += p.games * (1 - e)
    return observed, expected


# ==== expected_score ========================================================================


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1700, 1500) == pytest.approx(1 / (1 + 10**-0.5))  # 0.7597
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500 + ELO_3_TO_1, 1500) == pytest.approx(0.75)
    for a, b in ((1500, 1200), (1000, 2000), (1234.5, 1234.4)):
        assert expected_score(a, b) + expected_score(b, a) == pytest.approx(1.0)
    assert expected_score(1600, 1500) > expected_score(1550, 1500) > 0.5


# ==== fit_elo ===============================================================================


def test_two_bots_75_percent() -> None:
    ratings = fit_elo(2, [PairResult(0, 1, 20, 15, 5)], prior_draws=0)
    assert diff(ratings, 0, 1) == pytest.approx(ELO_3_TO_1, abs=1e-6)
    assert abs(ELO_3_TO_1 - 190.85) < 0.005
    assert ratings[0].elo + ratings[1].elo == pytest.approx(3000)  # centred on 1500
    assert ratings[0].elo == pytest.approx(1500 + ELO_3_TO_1 / 2, abs=1e-6)
    # the order of a and b does not matter
    swapped = fit_elo(2, [PairResult(1, 0, 20, 5, 15)], prior_draws=0)
    assert diff(swapped, 0, 1) == pytest.approx(ELO_3_TO_1, abs=1e-6)


def test_two_bots_75_percent_interval() -> None:
    """k = 2: r_1 is fixed, var(r_0) = 1 / I with I = n p (1 - p) (ln 10 / 400)^2, and the
    centred rating r_0 - (r_0 + r_1) / 2 has a quarter of that variance."""
    ratings = fit_elo(2, [PairResult(0, 1, 20, 15, 5)], prior_draws=0)
    info = 20 * 0.75 * 0.25 * LN10_400**2
    half_width = 1.96 * math.sqrt(1 / info / 4)
    assert ratings[0].ci95 == pytest.approx(half_width, rel=1e-6)
    assert ratings[1].ci95 == pytest.approx(half_width, rel=1e-6)


def test_interval_against_the_anchor() -> None:
    """k = 2: r_0 - r_1 has variance 1 / I, twice the centred half-width; the anchor's own
    interval is 0. The ratings are those of the centred fit."""
    pairs = [PairResult(0, 1, 20, 15, 5)]
    centred = fit_elo(2, pairs, prior_draws=0)
    for anchor in (0, 1):
        anchored = fit_elo(2, pairs, prior_draws=0, anchor=anchor)
        assert [r.elo for r in anchored] == [r.elo for r in centred]
        assert anchored[anchor].ci95 == 0
        assert anchored[1 - anchor].ci95 == pytest.approx(2 * centred[0].ci95, rel=1e-9)


def test_a_bot_that_never_wins_widens_the_centred_intervals_not_the_anchored() -> None:
    """Bot 0 loses every game (random): its rating is known only to be low, and the mean of
    all ratings inherits a fifth of that; a difference to the anchor (bot 1) does not."""

    def pairs(n: int) -> list[PairResult]:
        out = []
        for a in range(5):
            for b in range(a + 1, 5):
                out.append(PairResult(a, b, n, 0.0 if a == 0 else n / 2, n if a == 0 else n / 2))
        return out

    small, big = fit_elo(5, pairs(40)), fit_elo(5, pairs(400))
    assert big[0].ci95 == pytest.approx(small[0].ci95, rel=0.02)  # 194, 193: not narrower
    # ten times the games, the others' intervals not a third as wide (67 -> 50, not 21):
    # a fifth of bot 0's uncertainty (193 / 5 = 39) stays in each
    assert all(b.ci95 > big[0].ci95 / 5 for b in big[1:])
    small, big = fit_elo(5, pairs(40), anchor=1), fit_elo(5, pairs(400), anchor=1)
    assert big[1].ci95 == small[1].ci95 == 0
    for s, b in zip(small[2:], big[2:], strict=True):  # 75 -> 24: as 1 / sqrt(games)
        assert b.ci95 == pytest.approx(s.ci95 / math.sqrt(10), rel=0.05)
    assert big[0].ci95 > 200  # bot 0 itself stays unmeasured


def test_fifty_percent_is_equal() -> None:
    for pairs in ([PairResult(0, 1, 10, 5, 5)], [PairResult(0, 1, 3, 1.5, 1.5)]):
        ratings = fit_elo(2, pairs, prior_draws=0)
        assert ratings[0].elo == pytest.approx(1500, abs=1e-6)
        assert ratings[1].elo == pytest.approx(1500, abs=1e-6)
        assert math.isfinite(ratings[0].ci95) and ratings[0].ci95 > 0


TRANSITIVE = [
    PairResult(0, 1, 20, 15, 5),  # A beats B 75 %
    PairResult(1, 2, 20, 15, 5),  # B beats C 75 %
    PairResult(0, 2, 20, 18, 2),  # A beats C 90 %: odds 9 = 3 x 3, consistent
]


def test_transitive_table_reproduces_the_pairwise_differences() -> None:
    ratings = fit_elo(3, TRANSITIVE, prior_draws=0)
    assert ratings[0].elo > ratings[1].elo > ratings[2].elo
    assert sum(r.elo for r in ratings) / 3 == pytest.approx(1500)
    assert diff(ratings, 0, 1) == pytest.approx(ELO_3_TO_1, abs=1e-6)
    assert diff(ratings, 1, 2) == pytest.approx(ELO_3_TO_1, abs=1e-6)
    assert diff(ratings, 0, 2) == pytest.approx(2 * ELO_3_TO_1, abs=1e-6)  # 381.7
    assert ratings[1].elo == pytest.approx(1500, abs=1e-6)


@pytest.mark.parametrize(
    "pairs",
    [
        TRANSITIVE,
        [  # inconsistent: A beats B, B beats C, C beats A
            PairResult(0, 1, 10, 7, 3),
            PairResult(1, 2, 12, 8, 4),
            PairResult(0, 2, 8, 3.5, 4.5),
        ],
        [  # four bots, one pair never met, uneven numbers of games
            PairResult(0, 1, 10, 6, 4),
            PairResult(1, 2, 6, 2, 4),
            PairResult(2, 3, 8, 5, 3),
            PairResult(0, 3, 4, 3, 1),
            PairResult(1, 3, 5, 2.5, 2.5),
        ],
    ],
)
def test_maximum_likelihood_expected_equals_observed(pairs: list[PairResult]) -> None:
    """At the optimum the gradient vanishes: every bot's expected points equal its points."""
    k = 1 + max(max(p.a, p.b) for p in pairs)
    ratings = fit_elo(k, pairs, prior_draws=0)
    observed, expected = observed_and_expected(k, pairs, ratings)
    assert expected == pytest.approx(observed, abs=1e-6)


def test_expected_equals_observed_with_the_prior_counted() -> None:
    pairs = [PairResult(0, 1, 10, 10, 0), PairResult(1, 2, 6, 4, 2)]
    prior = 2.0
    ratings = fit_elo(3, pairs, prior_draws=prior)
    with_prior = [
        PairResult(p.a, p.b, p.games + prior, p.points_a + prior / 2, p.points_b + prior / 2)
        for p in pairs
    ]
    observed, expected = observed_and_expected(3, with_prior, ratings)
    assert expected == pytest.approx(observed, abs=1e-6)


def test_prior_keeps_a_perfect_score_finite() -> None:
    pairs = [PairResult(0, 1, 10, 10, 0)]
    one = fit_elo(2, pairs, prior_draws=1)
    # 10.5 points of 11: odds 21
    assert diff(one, 0, 1) == pytest.approx(400 * math.log10(21), abs=1e-6)
    assert all(math.isfinite(r.elo) and math.isfinite(r.ci95) for r in one)
    five = fit_elo(2, pairs, prior_draws=5)
    assert 0 < diff(five, 0, 1) < diff(one, 0, 1)  # more prior, closer to equality
    assert diff(five, 0, 1) == pytest.approx(400 * math.log10(12.5 / 2.5), abs=1e-6)


def test_prior_pulls_toward_equality() -> None:
    pairs = [PairResult(0, 1, 20, 15, 5)]
    diffs = [diff(fit_elo(2, pairs, prior_draws=p), 0, 1) for p in (0, 1, 4, 20)]
    assert diffs[0] == pytest.approx(ELO_3_TO_1)
    assert diffs == sorted(diffs, reverse=True) and diffs[-1] > 0
    # a default prior of one virtual draw per pair
    assert fit_elo(2, pairs) == fit_elo(2, pairs, prior_draws=1.0)
    # an even score stays even whatever the prior
    even = fit_elo(2, [PairResult(0, 1, 4, 2, 2)], prior_draws=3)
    assert diff(even, 0, 1) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("k_pairs", [(2, [PairResult(0, 1, 20, 15, 5)]), (3, TRANSITIVE)])
def test_interval_shrinks_as_one_over_sqrt_games(k_pairs: tuple[int, list[PairResult]]) -> None:
    k, pairs = k_pairs
    small = fit_elo(k, pairs, prior_draws=0)
    big = fit_elo(
        k,
        [PairResult(p.a, p.b, 4 * p.games, 4 * p.points_a, 4 * p.points_b) for p in pairs],
        prior_draws=0,
    )
    for s, b in zip(small, big, strict=True):
        assert b.elo == pytest.approx(s.elo, abs=1e-6)  # same shares, same ratings
        assert b.ci95 == pytest.approx(s.ci95 / 2, rel=1e-6)
    # with the (fixed) prior the shrinking is only roughly by half
    small = fit_elo(k, pairs, prior_draws=1)
    big = fit_elo(
        k,
        [PairResult(p.a, p.b, 4 * p.games, 4 * p.points_a, 4 * p.points_b) for p in pairs],
        prior_draws=1,
    )
    for s, b in zip(small, big, strict=True):
        assert b.ci95 == pytest.approx(s.ci95 / 2, rel=0.1)


def test_pairs_without_games_and_no_games_at_all() -> None:
    with_empty = fit_elo(3, [*TRANSITIVE, PairResult(0, 2, 0, 0, 0)], prior_draws=0)
    without = fit_elo(3, TRANSITIVE, prior_draws=0)
    assert [r.elo for r in with_empty] == pytest.approx([r.elo for r in without])
    nothing = fit_elo(2, [PairResult(0, 1)], prior_draws=1)
    assert [r.elo for r in nothing] == [1500, 1500]
    assert all(math.isinf(r.ci95) for r in nothing)


def test_tournament_result_to_json() -> None:
    result = TournamentResult(
        ["a", "b", "c"],
        TRANSITIVE,
        [[3, 4], [1, 2, 3], []],
    )
    data = result.to_json(prior_draws=0)
    ratings = fit_elo(3, TRANSITIVE, prior_draws=0)
    assert [row["bot"] for row in data["bots"]] == ["a", "b", "c"]
    assert [row["elo"] for row in data["bots"]] == [round(r.elo, 1) for r in ratings]
    assert [row["elo_ci95"] for row in data["bots"]] == [round(r.ci95, 1) for r in ratings]
    assert [row["games"] for row in data["bots"]] == [40, 40, 40]
    assert [row["points"] for row in data["bots"]] == [33, 20, 7]
    assert [row["score_share"] for row in data["bots"]] == pytest.approx([33 / 40, 0.5, 7 / 40])
    assert [row["mean_score"] for row in data["bots"]] == [3.5, 2.0, None]
    assert data["pairs"][2] == {"a": "a", "b": "c", "games": 20, "points_a": 18, "points_b": 2}
    assert data["prior_draws"] == 0


# ==== round_robin ===========================================================================

RUSH = find_game("coffee-rush")


def spy_on_bots(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int | None]]:
    """Record every bot round_robin seats, with its seed (seed = deal*64 + seat*8 + g%2)."""
    made: list[tuple[str, int | None]] = []
    real = tournament.make_bot

    def spy(spec: str, seed: int | None = None) -> Any:
        if seed is not None:
            made.append((spec, seed))
        return real(spec, seed)

    monkeypatch.setattr(tournament, "make_bot", spy)
    return made


def test_round_robin_random_vs_greedy(monkeypatch: pytest.MonkeyPatch) -> None:
    made = spy_on_bots(monkeypatch)
    games_done: list[int] = []
    result = round_robin(
        RUSH, ["random", "greedy"], 2, seed=3, on_game=lambda: games_done.append(1)
    )
    assert result.bots == ["random", "greedy"]
    assert len(result.pairs) == 1 and len(games_done) == 2
    (pair,) = result.pairs
    assert (pair.a, pair.b, pair.games) == (0, 1, 2)
    assert pair.points_a + pair.points_b == pytest.approx(2)
    assert 0 <= pair.points_a <= 2
    assert [len(s) for s in result.scores] == [2, 2]  # one seat per bot per game
    # seats alternate: game 0 random in seat 0, game 1 greedy in seat 0; same deal (seed 3)
    assert made == [("random", 3 * 64), ("greedy", 3 * 64 + 8), ("greedy", 3 * 64 + 1),
                    ("random", 3 * 64 + 8 + 1)]  # fmt: skip
    data = result.to_json()
    assert [row["games"] for row in data["bots"]] == [2, 2]
    assert sum(row["points"] for row in data["bots"]) == pytest.approx(2)
    # reproducible
    again = round_robin(RUSH, ["random", "greedy"], 2, seed=3)
    assert again.pairs == result.pairs and again.scores == result.scores


def test_round_robin_three_bots_three_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    made = spy_on_bots(monkeypatch)
    bots = ["random", "random", "random"]
    result = round_robin(RUSH, bots, 3, seed=0, players=3)
    assert [(p.a, p.b) for p in result.pairs] == [(0, 1), (0, 2), (1, 2)]
    for p in result.pairs:
        assert p.games == 3
        assert p.points_a + p.points_b == pytest.approx(3)
    # three seats: the pair fills them alternately (a, b, a), then (b, a, b)
    per_bot = [0, 0, 0]
    for p in result.pairs:
        for g in range(p.games):
            first, second = (p.a, p.b) if g % 2 == 0 else (p.b, p.a)
            per_bot[first] += 2
            per_bot[second] += 1
    assert [len(s) for s in result.scores] == per_bot
    assert len(made) == 3 * 3 * 3
    seats = [(seed % 64) // 8 for _, seed in made]
    assert seats == [0, 1, 2] * 9
    deals = [seed // 64 for _, seed in made]
    assert deals == [0] * 6 + [1] * 3 + [0] * 6 + [1] * 3 + [0] * 6 + [1] * 3
    data = result.to_json()
    assert [row["games"] for row in data["bots"]] == [6, 6, 6]
    assert sum(row["points"] for row in data["bots"]) == pytest.approx(9)


@pytest.mark.parametrize(
    ("bots", "games", "players", "words"),
    [
        (["random"], 2, 2, "at least two bots"),
        ([], 2, 2, "at least two bots"),
        (["random", "greedy"], 0, 2, "at least 1"),
        (["random", "greedy"], -1, 2, "at least 1"),
        (["random", "nope"], 2, 2, "unknown bot"),
        (["random", "ismcts:fast"], 2, 2, "unknown level"),
        (["random", "greedy"], 2, 5, "2 to 4"),
        (["random", "greedy"], 2, 1, "2 to 4"),
    ],
)
def test_round_robin_errors(bots: list[str], games: int, players: int, words: str) -> None:
    with pytest.raises(DataError, match=words):
        round_robin(RUSH, bots, games, players=players)


def test_round_robin_cafe_needs_two_seats() -> None:
    with pytest.raises(DataError, match="2 to 4"):
        round_robin(find_game("cafe"), ["random", "random"], 1, players=1)


def test_published_ratings_have_their_provenance() -> None:
    """bot-ratings.json (benchmarks/bot_elo.py --write): for each game, every level's rating
    and how it was measured; `published_ratings` reads the ratings, rounded."""
    import json
    from importlib import resources

    from coffeetable.bots.tournament import (
        MAX_SHOWN_CI95,
        PUBLISHED_RATINGS,
        plays_as_measured,
        published_ratings,
    )

    data = json.loads(
        resources.files("coffeetable.bots.data").joinpath(PUBLISHED_RATINGS).read_text("utf-8")
    )
    ratings = published_ratings(max_ci95=None)
    assert set(ratings) == set(data["games"]) and set(ratings) <= {"cafe", "coffee-rush"}
    assert ratings
    # players are shown only the ratings measured closely enough
    shown = published_ratings()
    for game, table in data["games"].items():
        assert shown[game] == {
            b: round(row["elo"])
            for b, row in table["bots"].items()
            if 2 * row["ci95"] <= MAX_SHOWN_CI95 and plays_as_measured(game, b, row["played_as"])
        }
    for game, table in data["games"].items():
        for key in ("command", "commit", "date", "players", "games_per_pair", "anchor", "pairs"):
            assert key in table, (game, key)
        anchor = table["anchor"]
        assert table["bots"][anchor["bot"]]["elo"] == anchor["rating"]
        assert ratings[game] == {b: round(row["elo"]) for b, row in table["bots"].items()}
        for spec in ("random", "greedy", "ismcts:easy", "ismcts:medium", "ismcts:hard"):
            assert spec in ratings[game], (game, spec)


def test_a_rating_is_shown_only_for_the_bot_the_level_plays_now() -> None:
    """Coffee Rush's levels play greedy beams (bots/make.py, GAME_LEVELS; hard with the
    learned value): a rating measured when they were the search is not shown for them,
    however narrow; measured as the beams, it is. Café's easy level is a beam 2 wide, its
    medium and hard levels the search, measured at their time on the CPU clock or at their
    own time, not at an iteration budget (which searches otherwise in Café: no wider root
    beam)."""
    from coffeetable.bots.tournament import MAX_SHOWN_CI95, plays_as_measured, shown_ratings

    def row(played_as: str, ci95: float = 40.0) -> dict[str, Any]:
        return {"elo": 1600.4, "ci95": ci95, "played_as": played_as}

    data = {
        "games": {
            "coffee-rush": {
                "bots": {
                    "greedy": row("greedy", 0.0),
                    "ismcts:easy": row("ismcts:260i"),  # the level before it was a beam
                    "ismcts:medium": row("greedy:w12"),
                    "ismcts:hard": row("ismcts:770i"),  # the level before 2026-12-07
                    "random": row("random", 240.0),
                }
            },
            "wide": {  # the file's ci95 is ± (a half-width): ±50 is 100 wide, ±51 is not
                "bots": {"greedy": row("greedy", 50.0), "ismcts:hard": row("ismcts:2i", 51.0)}
            },
            "cafe": {
                "bots": {
                    "ismcts:easy": row("ismcts:easy"),  # the level before it was a beam
                    "ismcts:medium": row("greedy:w12"),  # not what Café's medium plays
                    "ismcts:hard": row("ismcts:1cpu"),
                    "greedy": row("greedy:w24"),
                }
            },
        }
    }
    assert shown_ratings(data, MAX_SHOWN_CI95) == {
        "coffee-rush": {"greedy": 1600, "ismcts:medium": 1600},
        "cafe": {"ismcts:hard": 1600},
        "wide": {"greedy": 1600},
    }
    assert len(shown_ratings(data, None)["coffee-rush"]) == 5  # the file as it is
    assert plays_as_measured("coffee-rush", "ismcts:easy", "greedy:w2")
    # Coffee Rush's hard level is the learned beam with its model's version, not the
    # search it was (at 770 iterations, at 1 s), nor the newest model whatever it is
    assert plays_as_measured("coffee-rush", "ismcts:hard", "greedy:w48s4+learned=2")
    assert not plays_as_measured("coffee-rush", "ismcts:hard", "greedy:w48s4+learned")
    # nor the one-sample beam it played before (rated 1831, not what the level plays now)
    assert not plays_as_measured("coffee-rush", "ismcts:hard", "greedy:w48+learned=2")
    assert not plays_as_measured("coffee-rush", "ismcts:hard", "ismcts:770i")
    assert not plays_as_measured("coffee-rush", "ismcts:hard", "ismcts:2600i")
    assert not plays_as_measured("coffee-rush", "ismcts:hard", "ismcts:hard")
    assert plays_as_measured("cafe", "ismcts:hard", "ismcts:hard")
    assert not plays_as_measured("coffee-rush", "ismcts:hard", "greedy:w2")
    assert not plays_as_measured("cafe", "ismcts:hard", "ismcts:easy")  # another level
    assert plays_as_measured("cafe", "ismcts:easy", "greedy:w2")
    assert plays_as_measured("cafe", "ismcts:medium", "ismcts:0.3cpu")
    assert not plays_as_measured("cafe", "ismcts:medium", "ismcts:1cpu")  # hard's time
    assert not plays_as_measured("cafe", "ismcts:medium", "ismcts:12i")  # no wider root
    assert not plays_as_measured("coffee-rush", "ismcts:medium", "ismcts:medium")


# ==== game records (benchmarks/bot_elo.py --out) ============================================


def records_of(bots: list[str], games: int, played: list[str] | None = None) -> list[Any]:
    return [
        tournament.play(job)
        for job in tournament.schedule(RUSH, bots, games, seed=5, played=played)
    ]


def test_records_fit_as_round_robin() -> None:
    """Bots named r, g, r2 played as random, greedy, random (names and specs may differ)."""
    bots = ["r", "g", "r2"]
    records = records_of(bots, 2, ["random", "greedy", "random"])
    direct = round_robin(RUSH, ["random", "greedy", "random"], 2, seed=5)
    from_file = TournamentResult.from_records(bots, records)
    assert from_file.pairs == direct.pairs and from_file.scores == direct.scores
    # another order of the bots: the same ratings, bot by bot
    other = TournamentResult.from_records(["r2", "r", "g"], records[::-1])
    by_bot = dict(zip(other.bots, other.ratings(), strict=True))
    for bot, rating in zip(bots, direct.ratings(), strict=True):
        assert by_bot[bot].elo == pytest.approx(rating.elo)
        assert by_bot[bot].ci95 == pytest.approx(rating.ci95)
    with pytest.raises(DataError, match="'r2', not one of the bots"):
        TournamentResult.from_records(["r", "g"], records)
    with pytest.raises(DataError, match="must differ"):
        TournamentResult.from_records(["r", "g", "r"], records)


def test_a_record_is_read_back_and_checked() -> None:
    import json

    (record,) = records_of(["random", "greedy"], 1)
    line = json.dumps(record)
    assert tournament.parse_record(line) == record
    assert (
        tournament.record_key(record)
        == tournament.schedule(RUSH, ["random", "greedy"], 1, 5)[0].key()
    )
    for broken, words in (
        ({**record, "deal": "5"}, "'deal' missing or not"),
        ({**record, "players": True}, "'players' missing or not"),
        ({**record, "seats": ["greedy", "greedy"]}, "do not fit"),
        ({**record, "points": [1]}, "do not fit"),
        ({**record, "members": [0, 2]}, "do not fit"),
    ):
        with pytest.raises(DataError, match=words):
            tournament.parse_record(json.dumps(broken))


def test_select_records_keeps_each_game_once_of_the_specs_asked() -> None:
    """Bot x played as random in some games, as greedy in others (a stand-in changed)."""
    bots = ["g", "x"]
    as_random = records_of(bots, 2, ["greedy", "random"])
    as_greedy = records_of(bots, 2, ["greedy", "greedy"])
    other_bots = records_of(["random", "greedy"], 1)
    chosen = tournament.select_records(
        [*as_random, *as_greedy, as_random[0], *other_bots],
        "coffee-rush",
        2,
        bots,
        ["greedy", "random"],
    )
    assert chosen.used == as_random
    assert chosen.other_specs == {"x": {"greedy": 2}}
    assert (chosen.other_games, chosen.repeated, chosen.differing) == (1, 1, 0)
    changed = {**as_random[1], "winners": [9]}
    chosen = tournament.select_records(
        [*as_random, changed], "coffee-rush", 2, bots, ["greedy", "random"]
    )
    assert (chosen.repeated, chosen.differing) == (1, 1)
    for game, players in (("coffee-rush", 3), ("cafe", 2)):
        chosen = tournament.select_records(as_random, game, players, bots, ["greedy", "random"])
        assert chosen.used == [] and chosen.other_games == 2
