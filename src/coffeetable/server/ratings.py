"""Elo ratings for rated games between people (2 or more players; Café and Coffee Rush
seat 2 to 4). Pure functions: the server reads the ratings, calls `rating_changes` and
stores the result (`Storage.apply_rating_changes`). See docs/server-clocks-ratings.md.

A game of n players counts as the n(n-1)/2 matches between every two of them: the better
rank beats the worse one (score 1 and 0), equal ranks draw (1/2 each). Player i's expected
score against j is the usual logistic on a 400-point scale,

    E(i, j) = 1 / (1 + 10 ** ((R_j - R_i) / 400)),

and the new rating is

    R_i' = R_i + K_i / (n - 1) * sum over j != i of (S(i, j) - E(i, j)).

With two players this is exactly classic Elo. Dividing by n - 1 keeps one game worth one
game's K however many sat at the table: the most a player can win or lose is K.

K factor (`k_factor`): 32 for a player's first 20 rated games in that game (provisional: the
rating moves fast while it finds its level), 16 from the 21st on. Each player uses their own
K, so the changes add up to zero only when every player at the table has the same K.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real

from coffeetable.server.storage.base import DEFAULT_RATING

#: Rated games (in one game) that count as provisional, with the larger K.
PROVISIONAL_GAMES = 20
#: K for a player's first `PROVISIONAL_GAMES` rated games.
K_PROVISIONAL = 32.0
#: K from then on.
K_ESTABLISHED = 16.0

_LN10_400 = math.log(10) / 400


def k_factor(games_played: int) -> float:
    """K for a player who has finished `games_played` rated games before this one: 32 while
    this game is one of their first 20, else 16."""
    _check_games_played("the player", games_played)
    return K_PROVISIONAL if games_played < PROVISIONAL_GAMES else K_ESTABLISHED


def expected_score(rating: float, opponent: float) -> float:
    """The expected score (0..1) of a player rated `rating` against one rated `opponent`:
    1 / (1 + 10^((opponent - rating) / 400)). Computed so that it never overflows: a gap
    of any size gives a value in [0, 1]."""
    x = (rating - opponent) * _LN10_400
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def rating_changes(
    ratings: Mapping[int, float],
    games_played: Mapping[int, int],
    ranks: Mapping[int, int],
) -> dict[int, float]:
    """Each player's NEW rating after one rated game.

    All three mappings are keyed by the same players (user ids, or seats: the function does
    not care). `ratings` are the ratings before the game, `games_played` the rated games
    each has finished before this one (it picks K, see `k_factor`), `ranks` the result: 0
    is best, a lower rank beats a higher one, equal ranks draw (see `ranks_from_scores`).
    The order of the mappings does not matter. Raises ValueError for fewer than two
    players, different players in the three mappings, a rating that is not a finite number,
    a count that is not a non-negative integer or a rank that is not an integer."""
    players = sorted(ratings)
    if len(players) < 2:
        raise ValueError(f"a rated game needs at least 2 players, not {len(players)}")
    for name, other in (("games_played", games_played), ("ranks", ranks)):
        if set(other) != set(players):
            raise ValueError(
                f"ratings and {name} must name the same players: ratings has "
                f"{_ids(ratings)}, {name} has {_ids(other)}"
            )
    for p in players:
        r = ratings[p]
        if not _is_finite_number(r):
            raise ValueError(f"the rating of player {p} must be a finite number, not {r!r}")
        _check_games_played(f"player {p}", games_played[p])
        rank = ranks[p]
        if not isinstance(rank, int) or isinstance(rank, bool):
            raise ValueError(f"the rank of player {p} must be an integer, not {rank!r}")

    n = len(players)
    out: dict[int, float] = {}
    for p in players:
        total = 0.0
        for q in players:
            if q == p:
                continue
            if ranks[p] < ranks[q]:
                actual = 1.0
            elif ranks[p] == ranks[q]:
                actual = 0.5
            else:
                actual = 0.0
            total += actual - expected_score(ratings[p], ratings[q])
        out[p] = float(ratings[p]) + k_factor(games_played[p]) / (n - 1) * total
    return out


def ranks_from_scores(totals: Sequence[float | int], winners: Sequence[int]) -> list[int]:
    """Each seat's rank (0 = best) from the final totals and the winners.

    The winners (`State.winners()`, which has applied the game's tie-breaks) share rank 0.
    The other seats come after them, ranked by total, highest first; equal totals share a
    rank. Ranks count the seats strictly ahead ("1224" ranking, from 0): totals
    [10, 10, 8, 8] with winner [0] give [0, 1, 2, 2]. Tie-breaks decide only the win.
    Raises ValueError for no winners, a winner that is not a seat, a repeated winner or a
    total that is not a finite number."""
    n = len(totals)
    for seat, total in enumerate(totals):
        if not _is_finite_number(total):
            raise ValueError(f"the total of seat {seat} must be a finite number, not {total!r}")
    if not winners:
        raise ValueError("a finished game has at least one winner")
    for w in winners:
        if not isinstance(w, int) or isinstance(w, bool) or not 0 <= w < n:
            raise ValueError(f"winner {w!r} is not a seat of a {n}-player game")
    if len(set(winners)) != len(winners):
        raise ValueError(f"the winners repeat a seat: {list(winners)}")
    won = set(winners)
    others = [totals[s] for s in range(n) if s not in won]
    return [
        0 if seat in won else len(won) + sum(1 for t in others if t > totals[seat])
        for seat in range(n)
    ]


def _is_finite_number(value: object) -> bool:
    """A real number (not a bool) that is finite as a float (10**400 is not)."""
    if not isinstance(value, Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _check_games_played(who: str, games: object) -> None:
    if not isinstance(games, int) or isinstance(games, bool) or games < 0:
        raise ValueError(f"the rated games of {who} must be a non-negative integer, not {games!r}")


def _ids(mapping: Mapping[int, object]) -> str:
    return "[" + ", ".join(str(k) for k in sorted(mapping)) + "]"


__all__ = [
    "DEFAULT_RATING",
    "K_ESTABLISHED",
    "K_PROVISIONAL",
    "PROVISIONAL_GAMES",
    "expected_score",
    "k_factor",
    "ranks_from_scores",
    "rating_changes",
]
