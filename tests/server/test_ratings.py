"""Elo for rated games (coffeetable.server.ratings): classic two-player values, the
multiplayer pairwise form, K factors, ranks from scores, and properties."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coffeetable.server.ratings import (
    DEFAULT_RATING,
    K_ESTABLISHED,
    K_PROVISIONAL,
    PROVISIONAL_GAMES,
    expected_score,
    k_factor,
    ranks_from_scores,
    rating_changes,
)
from coffeetable.server.storage.base import DEFAULT_RATING as STORAGE_DEFAULT

# --- K and the expected score -------------------------------------------------------------


def test_default_rating_is_the_storage_one() -> None:
    assert DEFAULT_RATING == STORAGE_DEFAULT == 1500.0


def test_k_factor_provisional_period() -> None:
    assert PROVISIONAL_GAMES == 20
    assert (K_PROVISIONAL, K_ESTABLISHED) == (32.0, 16.0)
    assert k_factor(0) == 32.0
    assert k_factor(19) == 32.0  # this game is the 20th
    assert k_factor(20) == 16.0  # the 21st
    assert k_factor(1000) == 16.0


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3", None])
def test_k_factor_rejects_bad_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="must be a non-negative integer"):
        k_factor(bad)  # type: ignore[arg-type]


def test_expected_score_values() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1900) == pytest.approx(1 / 11)
    assert expected_score(2300, 1500) == pytest.approx(100 / 101)
    assert expected_score(1700, 1600) + expected_score(1600, 1700) == pytest.approx(1.0)


@pytest.mark.parametrize("gap", [1e5, 1e6, 1e300, 1.7e308])
def test_expected_score_never_overflows(gap: float) -> None:
    assert expected_score(gap, -gap) == 1.0
    assert expected_score(-gap, gap) == 0.0


# --- two players: classic Elo ---------------------------------------------------------------


def test_two_equal_players_winner_gains_16_at_k32() -> None:
    new = rating_changes({1: 1500.0, 2: 1500.0}, {1: 0, 2: 0}, {1: 0, 2: 1})
    assert new == {1: 1516.0, 2: 1484.0}


def test_two_equal_established_players_move_8() -> None:
    new = rating_changes({1: 1500.0, 2: 1500.0}, {1: 20, 2: 50}, {1: 1, 2: 0})
    assert new == {1: 1492.0, 2: 1508.0}


def test_two_players_is_classic_elo() -> None:
    # R' = R + K (S - E), E = 1 / (1 + 10^((Rb - Ra) / 400))
    ra, rb = 1613.0, 1577.0
    ea = 1 / (1 + 10 ** ((rb - ra) / 400))
    new = rating_changes({7: ra, 9: rb}, {7: 3, 9: 40}, {7: 1, 9: 0})
    assert new[7] == pytest.approx(ra + 32 * (0 - ea))
    assert new[9] == pytest.approx(rb + 16 * (1 - (1 - ea)))


def test_draw_between_equals_changes_nothing() -> None:
    new = rating_changes({1: 1500.0, 2: 1500.0}, {1: 0, 2: 30}, {1: 0, 2: 0})
    assert new == {1: 1500.0, 2: 1500.0}
    four = {i: 1720.0 for i in range(4)}
    assert rating_changes(four, {i: i * 10 for i in range(4)}, {i: 0 for i in range(4)}) == four


def test_draw_moves_unequal_ratings_together() -> None:
    new = rating_changes({1: 1700.0, 2: 1300.0}, {1: 0, 2: 0}, {1: 0, 2: 0})
    assert new[1] < 1700.0
    assert new[2] > 1300.0
    assert new[1] - 1700.0 == pytest.approx(1300.0 - new[2])


def test_favourite_gains_less_than_underdog() -> None:
    ratings = {1: 1700.0, 2: 1400.0}
    games = {1: 5, 2: 5}
    fav_wins = rating_changes(ratings, games, {1: 0, 2: 1})
    dog_wins = rating_changes(ratings, games, {1: 1, 2: 0})
    fav_gain = fav_wins[1] - 1700.0
    dog_gain = dog_wins[2] - 1400.0
    assert 0 < fav_gain < 16 < dog_gain < 32
    assert fav_gain + dog_gain == pytest.approx(32.0)  # E + (1 - E) = 1
    assert fav_wins[2] - 1400.0 == pytest.approx(-fav_gain)


def test_zero_sum_with_equal_k() -> None:
    new = rating_changes(
        {1: 1834.5, 2: 1290.0, 3: 1501.25}, {1: 3, 2: 7, 3: 19}, {1: 2, 2: 0, 3: 1}
    )
    assert sum(new.values()) == pytest.approx(1834.5 + 1290.0 + 1501.25, abs=1e-9)


def test_not_zero_sum_with_different_k() -> None:
    # the provisional player moves twice as far as the established one
    new = rating_changes({1: 1500.0, 2: 1500.0}, {1: 0, 2: 20}, {1: 0, 2: 1})
    assert new == {1: 1516.0, 2: 1492.0}


# --- more players ---------------------------------------------------------------------------


def test_four_players_by_hand() -> None:
    # Player 10 (1900, 30 games: K 16) comes 2nd; 20 (1500, 5 games: K 32) wins; 30 (1500,
    # 20 games: K 16) and 40 (1100, 19 games: K 32) share 3rd. Expected scores: 400 points
    # apart 10/11, 800 apart 100/101, equal 1/2.
    ratings = {10: 1900.0, 20: 1500.0, 30: 1500.0, 40: 1100.0}
    games = {10: 30, 20: 5, 30: 20, 40: 19}
    ranks = {10: 1, 20: 0, 30: 2, 40: 2}
    f = Fraction
    # 10: loses to 20 (0 - 10/11), beats 30 (1 - 10/11), beats 40 (1 - 100/101)
    s10 = (0 - f(10, 11)) + (1 - f(10, 11)) + (1 - f(100, 101))
    # 20: beats 10 (1 - 1/11), beats 30 (1 - 1/2), beats 40 (1 - 10/11)
    s20 = (1 - f(1, 11)) + (1 - f(1, 2)) + (1 - f(10, 11))
    # 30: loses to 10 (0 - 1/11), loses to 20 (0 - 1/2), draws 40 (1/2 - 10/11)
    s30 = (0 - f(1, 11)) + (0 - f(1, 2)) + (f(1, 2) - f(10, 11))
    # 40: loses to 10 (0 - 1/101), loses to 20 (0 - 1/11), draws 30 (1/2 - 1/11)
    s40 = (0 - f(1, 101)) + (0 - f(1, 11)) + (f(1, 2) - f(1, 11))
    assert (s10, s20, s30, s40) == (f(-898, 1111), f(3, 2), f(-1), f(685, 2222))
    expected = {
        10: 1900 + f(16, 3) * s10,  # 1900 - 14368/3333 = 1895.689...
        20: 1500 + f(32, 3) * s20,  # 1516
        30: 1500 + f(16, 3) * s30,  # 1494.666...
        40: 1100 + f(32, 3) * s40,  # 1100 + 10960/3333 = 1103.288...
    }
    new = rating_changes(ratings, games, ranks)
    assert set(new) == set(expected)
    for player, value in expected.items():
        assert new[player] == pytest.approx(float(value), abs=1e-9)
    assert new[20] == pytest.approx(1516.0)
    assert new[10] == pytest.approx(1895.6891689, abs=1e-6)
    assert new[40] == pytest.approx(1103.2883288, abs=1e-6)


def test_four_equal_players_in_order() -> None:
    new = rating_changes(
        {i: 1500.0 for i in range(4)}, {i: 0 for i in range(4)}, dict(enumerate(range(4)))
    )
    # pairwise sums 3/2, 1/2, -1/2, -3/2 scaled by 32/3
    assert new == pytest.approx({0: 1516.0, 1: 1500 + 16 / 3, 2: 1500 - 16 / 3, 3: 1484.0})


def test_input_order_does_not_matter() -> None:
    ratings = {5: 1620.0, 3: 1480.0, 8: 1555.5, 1: 1399.0}
    games = {5: 2, 3: 40, 8: 19, 1: 20}
    ranks = {5: 3, 3: 0, 8: 1, 1: 1}
    base = rating_changes(ratings, games, ranks)
    keys = list(ratings)
    for order in (keys[::-1], sorted(keys), [8, 1, 5, 3]):
        again = rating_changes(
            {k: ratings[k] for k in order},
            {k: games[k] for k in reversed(order)},
            {k: ranks[k] for k in order},
        )
        assert again == base  # exactly: the sums run in a fixed order


def test_rank_values_only_matter_by_order() -> None:
    ratings = {1: 1500.0, 2: 1600.0, 3: 1450.0}
    games = {1: 0, 2: 0, 3: 0}
    assert rating_changes(ratings, games, {1: 0, 2: 1, 3: 1}) == rating_changes(
        ratings, games, {1: 0, 2: 5, 3: 5}
    )


@pytest.mark.parametrize("gap", [1e5, 1e12, 1e300])
def test_huge_gaps_stay_finite(gap: float) -> None:
    ratings = {1: gap, 2: -gap, 3: 0.0}
    games = {1: 0, 2: 0, 3: 0}
    expected_order = rating_changes(ratings, games, {1: 0, 2: 2, 3: 1})
    upset = rating_changes(ratings, games, {1: 2, 2: 0, 3: 1})
    for new in (expected_order, upset):
        assert all(math.isfinite(v) for v in new.values())
    # the favourite gains nothing by beating a hopeless field; an upset costs the full K
    assert expected_order[1] == gap
    assert upset[2] == pytest.approx(-gap + 32.0)
    assert upset[1] == pytest.approx(gap - 32.0)


@pytest.mark.parametrize(
    ("ratings", "games", "ranks", "message"),
    [
        ({1: 1500.0}, {1: 0}, {1: 0}, "at least 2 players, not 1"),
        ({}, {}, {}, "at least 2 players, not 0"),
        ({1: 1500.0, 2: 1500.0}, {1: 0}, {1: 0, 2: 1}, r"games_played must name the same"),
        ({1: 1500.0, 2: 1500.0}, {1: 0, 2: 0}, {1: 0, 3: 1}, r"ranks has \[1, 3\]"),
        (
            {1: math.nan, 2: 1500.0},
            {1: 0, 2: 0},
            {1: 0, 2: 1},
            "rating of player 1 must be a finite",
        ),
        ({1: math.inf, 2: 1500.0}, {1: 0, 2: 0}, {1: 0, 2: 1}, "finite number"),
        ({1: "1500", 2: 1500.0}, {1: 0, 2: 0}, {1: 0, 2: 1}, "finite number, not '1500'"),
        (
            {1: 10**400, 2: 1500.0},
            {1: 0, 2: 0},
            {1: 0, 2: 1},
            "rating of player 1 must be a finite",
        ),
        ({1: 1500.0, 2: 1500.0}, {1: -1, 2: 0}, {1: 0, 2: 1}, "rated games of player 1"),
        (
            {1: 1500.0, 2: 1500.0},
            {1: 0, 2: 0},
            {1: 0, 2: 1.0},
            "rank of player 2 must be an integer",
        ),
        ({1: 1500.0, 2: 1500.0}, {1: 0, 2: 0}, {1: 0, 2: True}, "rank of player 2"),
    ],
)
def test_rating_changes_validation(
    ratings: dict[int, float], games: dict[int, int], ranks: dict[int, int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        rating_changes(ratings, games, ranks)


# --- ranks from scores ----------------------------------------------------------------------


def test_ranks_single_winner() -> None:
    assert ranks_from_scores([30, 41, 12, 25], [1]) == [1, 0, 3, 2]


def test_ranks_shared_win_and_equal_totals() -> None:
    assert ranks_from_scores([20, 20, 8, 8], [0, 1]) == [0, 0, 2, 2]
    assert ranks_from_scores([5, 9, 9, 9], [2, 1, 3]) == [3, 0, 0, 0]


def test_ranks_tie_break_only_decides_the_win() -> None:
    # seats 0 and 1 tie on 10 points and seat 0 wins the tie-break; 2 and 3 tie on 8
    assert ranks_from_scores([10, 10, 8, 8], [0]) == [0, 1, 2, 2]
    assert ranks_from_scores([10, 10, 8], [1]) == [1, 0, 2]


def test_ranks_two_players_and_floats() -> None:
    assert ranks_from_scores([3.5, 2.0], [0]) == [0, 1]
    assert ranks_from_scores([7, 7], [0, 1]) == [0, 0]


def test_ranks_winners_first_whatever_their_totals() -> None:
    # a game whose winner is not the highest total still ranks the winner first
    assert ranks_from_scores([5, 12, 9], [0]) == [0, 1, 2]


def test_ranks_feed_rating_changes() -> None:
    ranks = ranks_from_scores([20, 20, 8], [0, 1])
    new = rating_changes(
        dict.fromkeys(range(3), 1500.0), dict.fromkeys(range(3), 0), dict(enumerate(ranks))
    )
    assert new[0] == new[1] > 1500.0 > new[2]


@pytest.mark.parametrize(
    ("totals", "winners", "message"),
    [
        ([10, 8], [], "at least one winner"),
        ([10, 8], [2], "winner 2 is not a seat of a 2-player game"),
        ([10, 8], [-1], "winner -1 is not a seat"),
        ([10, 8], [True], "winner True is not a seat"),
        ([10, 10], [0, 0], r"repeat a seat: \[0, 0\]"),
        ([10, math.nan], [0], "total of seat 1 must be a finite number"),
        ([10, "8"], [0], "total of seat 1 must be a finite number, not '8'"),
        ([10**400, 8], [0], "total of seat 0 must be a finite number"),
    ],
)
def test_ranks_validation(totals: list[float], winners: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ranks_from_scores(totals, winners)


# --- properties -----------------------------------------------------------------------------

RATING = st.floats(min_value=0.0, max_value=4000.0, allow_nan=False)


@st.composite
def games(
    draw: st.DrawFn, same_k: bool = False
) -> tuple[dict[int, float], dict[int, int], dict[int, int]]:
    n = draw(st.integers(min_value=2, max_value=4))
    players = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n, unique=True))
    ratings = {p: draw(RATING) for p in players}
    if same_k:
        base = draw(st.sampled_from([0, 20]))
        played = {p: base + draw(st.integers(0, 19)) for p in players}
    else:
        played = {p: draw(st.integers(0, 60)) for p in players}
    ranks = {p: draw(st.integers(0, n - 1)) for p in players}
    return ratings, played, ranks


@given(games(same_k=True))
def test_property_zero_sum_with_equal_k(
    game: tuple[dict[int, float], dict[int, int], dict[int, int]],
) -> None:
    ratings, played, ranks = game
    new = rating_changes(ratings, played, ranks)
    assert set(new) == set(ratings)
    assert sum(new[p] - ratings[p] for p in ratings) == pytest.approx(0.0, abs=1e-9)


@given(games(), st.data())
def test_property_better_rank_never_rates_lower(
    game: tuple[dict[int, float], dict[int, int], dict[int, int]], data: st.DataObject
) -> None:
    ratings, played, ranks = game
    player = data.draw(st.sampled_from(sorted(ratings)))
    better = data.draw(st.integers(min_value=-1, max_value=ranks[player]))
    new = rating_changes(ratings, played, ranks)
    improved = rating_changes(ratings, played, {**ranks, player: better})
    assert improved[player] >= new[player]
    for other in ratings:  # everybody else can only lose by it
        if other != player:
            assert improved[other] <= new[other]


@given(games())
def test_property_bounded_by_k_and_sign_of_result(
    game: tuple[dict[int, float], dict[int, int], dict[int, int]],
) -> None:
    ratings, played, ranks = game
    new = rating_changes(ratings, played, ranks)
    for p in ratings:
        delta = new[p] - ratings[p]
        assert math.isfinite(new[p])
        assert abs(delta) <= k_factor(played[p]) + 1e-9
        others = [ranks[q] for q in ratings if q != p]
        if all(ranks[p] < r for r in others):  # beat everybody: never loses
            assert delta >= 0
        if all(ranks[p] > r for r in others):  # lost to everybody: never gains
            assert delta <= 0


@given(st.floats(min_value=0, max_value=3000), st.floats(min_value=0, max_value=3000))
def test_property_lower_rated_winner_gains_more(a: float, b: float) -> None:
    low, high = sorted((a, b))
    low_wins = rating_changes({1: low, 2: high}, {1: 0, 2: 0}, {1: 0, 2: 1})[1] - low
    high_wins = rating_changes({1: low, 2: high}, {1: 0, 2: 0}, {1: 1, 2: 0})[2] - high
    assert low_wins >= high_wins
    assert low_wins + high_wins == pytest.approx(32.0)
