"""Round-robin tournaments between bots, and Elo ratings fitted to the results.

Every pair of bots plays `games` two-player games (or with `players` seats: the pair fills
the seats alternately). Game g of a pair uses seed `seed + g // 2` and swaps the seats on odd
g, so that with an even number of games each deal is played from both sides.

Ratings are the maximum-likelihood Elo ratings of the Bradley-Terry model (a shared win
counts half to each, like a draw): P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400)). They
are centred on 1500. `prior_draws` adds that many virtual draws to every pair that met, so
that a bot that won every game still gets a finite rating. The 95 % intervals come from the
inverse of the observed information (the curvature of the log-likelihood at the optimum).
"""

from __future__ import annotations

import functools
import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from coffeetable.bots.base import make_bot
from coffeetable.core.errors import DataError
from coffeetable.core.game import Game

LN10_400 = math.log(10) / 400
#: the bot levels' ratings on the server's Elo scale, per game, with their provenance
#: (benchmarks/bot_elo.py writes it; docs/bots.md, "Bot levels on the rating scale")
PUBLISHED_RATINGS = "bot-ratings.json"


@dataclass
class PairResult:
    """Games between bot a and bot b: points of a (win 1, shared win 1/k) and of b."""

    a: int
    b: int
    games: int = 0
    points_a: float = 0.0
    points_b: float = 0.0


@dataclass
class Rating:
    elo: float
    ci95: float


@dataclass
class TournamentResult:
    bots: list[str]
    pairs: list[PairResult]
    scores: list[list[int]] = field(default_factory=list)  # every final score, per bot

    def ratings(self, prior_draws: float = 1.0) -> list[Rating]:
        return fit_elo(len(self.bots), self.pairs, prior_draws)

    def to_json(self, prior_draws: float = 1.0) -> dict[str, Any]:
        ratings = self.ratings(prior_draws)
        games = [0] * len(self.bots)
        points = [0.0] * len(self.bots)
        for p in self.pairs:
            games[p.a] += p.games
            games[p.b] += p.games
            points[p.a] += p.points_a
            points[p.b] += p.points_b
        return {
            "bots": [
                {
                    "bot": name,
                    "elo": round(ratings[i].elo, 1),
                    "elo_ci95": round(ratings[i].ci95, 1),
                    "games": games[i],
                    "points": points[i],
                    "score_share": points[i] / games[i] if games[i] else None,
                    "mean_score": statistics.fmean(self.scores[i]) if self.scores[i] else None,
                }
                for i, name in enumerate(self.bots)
            ],
            "pairs": [
                {
                    "a": self.bots[p.a],
                    "b": self.bots[p.b],
                    "games": p.games,
                    "points_a": p.points_a,
                    "points_b": p.points_b,
                }
                for p in self.pairs
            ],
            "prior_draws": prior_draws,
        }


def round_robin(
    game: Game,
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    players: int = 2,
    on_game: Callable[[], None] | None = None,
) -> TournamentResult:
    if len(bots) < 2:
        raise DataError("a tournament needs at least two bots")
    if games < 1:
        raise DataError("--games must be at least 1")
    if not max(2, game.info.min_players) <= players <= game.info.max_players:
        raise DataError(
            f"{game.info.title}: a tournament table has 2 to {game.info.max_players} seats"
        )
    for spec in bots:
        make_bot(spec)
    result = TournamentResult(list(bots), [], [[] for _ in bots])
    for a in range(len(bots)):
        for b in range(a + 1, len(bots)):
            pair = PairResult(a, b)
            for g in range(games):
                first, second = (a, b) if g % 2 == 0 else (b, a)
                seat_bot = [first if s % 2 == 0 else second for s in range(players)]
                deal = seed + g // 2
                state = game.new_initial_state(players, deal, options)
                seated = [
                    make_bot(bots[i], deal * 64 + s * 8 + g % 2) for s, i in enumerate(seat_bot)
                ]
                while not state.is_over():
                    seat = min(state.current_seats())
                    action, _ = seated[seat].choose(state, seat)
                    state.apply(seat, action)
                winners = state.winners()
                totals = [s.total for s in state.scores()]
                for s, i in enumerate(seat_bot):
                    result.scores[i].append(totals[s])
                share_a = sum(1 for w in winners if seat_bot[w] == a) / len(winners)
                pair.games += 1
                pair.points_a += share_a
                pair.points_b += 1 - share_a
                if on_game:
                    on_game()
            result.pairs.append(pair)
    return result


def fit_elo(k: int, pairs: Sequence[PairResult], prior_draws: float = 1.0) -> list[Rating]:
    """Maximum-likelihood Elo ratings (mean 1500) and 95 % half-widths; see the module doc.
    A bot without games gets 1500 and an infinite interval; the others are fitted alone."""
    played = sorted({i for p in pairs if p.games for i in (p.a, p.b)})
    if len(played) < k:
        index = {bot: i for i, bot in enumerate(played)}
        sub = [
            PairResult(index[p.a], index[p.b], p.games, p.points_a, p.points_b)
            for p in pairs
            if p.games
        ]
        fitted = _fit(len(played), sub, prior_draws) if len(played) > 1 else []
        out = [Rating(1500.0, math.inf) for _ in range(k)]
        for bot, rating in zip(played, fitted, strict=False):
            out[bot] = rating
        return out
    return _fit(k, pairs, prior_draws)


def _fit(k: int, pairs: Sequence[PairResult], prior_draws: float) -> list[Rating]:
    if prior_draws < 0:
        raise DataError(f"prior draws must be 0 or more, not {prior_draws}")
    n = [[0.0] * k for _ in range(k)]  # games between i and j
    s = [[0.0] * k for _ in range(k)]  # points of i against j
    for p in pairs:
        if p.games == 0:
            continue
        n[p.a][p.b] += p.games + prior_draws
        n[p.b][p.a] += p.games + prior_draws
        s[p.a][p.b] += p.points_a + prior_draws / 2
        s[p.b][p.a] += p.points_b + prior_draws / 2
    r = [0.0] * k
    for _ in range(100):
        grad, hess = _gradient_hessian(r, n, s)
        # fix the last rating (the model only knows differences), solve for the others
        step = _solve([row[:-1] for row in hess[:-1]], [-g for g in grad[:-1]])
        if step is None:
            break
        for i, d in enumerate(step):
            r[i] += max(-400.0, min(400.0, d))
        if max((abs(d) for d in step), default=0.0) < 1e-9:
            break
    _, hess = _gradient_hessian(r, n, s)
    info = [[-h for h in row[:-1]] for row in hess[:-1]]
    cov_free = _inverse(info)
    mean = sum(r) / k
    ratings = []
    for i in range(k):
        if cov_free is None:
            ratings.append(Rating(1500 + r[i] - mean, math.inf))
            continue
        # variance of r_i - mean(r), with r_k fixed at 0 and cov(r_free) = cov_free
        var = 0.0
        coef = [(1.0 if j == i else 0.0) - 1.0 / k for j in range(k - 1)]
        for x in range(k - 1):
            for y in range(k - 1):
                var += coef[x] * cov_free[x][y] * coef[y]
        ratings.append(Rating(1500 + r[i] - mean, 1.96 * math.sqrt(max(var, 0.0))))
    return ratings


def expected_score(r_i: float, r_j: float) -> float:
    return 1.0 / (1.0 + 10 ** ((r_j - r_i) / 400))


def _gradient_hessian(
    r: list[float], n: list[list[float]], s: list[list[float]]
) -> tuple[list[float], list[list[float]]]:
    k = len(r)
    grad = [0.0] * k
    hess = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if i == j or not n[i][j]:
                continue
            p = expected_score(r[i], r[j])
            grad[i] += LN10_400 * (s[i][j] - n[i][j] * p)
            w = n[i][j] * p * (1 - p) * LN10_400 * LN10_400
            hess[i][i] -= w
            hess[i][j] += w
    return grad, hess


def _solve(a: list[list[float]], b: list[float]) -> list[float] | None:
    m = len(b)
    aug = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(m):
        pivot = max(range(col, m), key=lambda row: abs(aug[row][col]), default=col)
        if abs(aug[pivot][col]) < 1e-15:
            return None
        aug[col], aug[pivot] = aug[pivot], aug[col]
        for row in range(m):
            if row != col:
                f = aug[row][col] / aug[col][col]
                for c in range(col, m + 1):
                    aug[row][c] -= f * aug[col][c]
    return [aug[i][m] / aug[i][i] for i in range(m)]


def _inverse(a: list[list[float]]) -> list[list[float]] | None:
    m = len(a)
    columns = []
    for c in range(m):
        col = _solve(a, [1.0 if i == c else 0.0 for i in range(m)])
        if col is None:
            return None
        columns.append(col)
    return [[columns[c][r] for c in range(m)] for r in range(m)]


#: A rating is shown to players only when its 95 % interval is at most this wide (Elo): a
#: small run (a few games a pair) orders the levels only roughly, and a player choosing an
#: opponent should not be told "easy ≈ 1750, medium ≈ 1610".
MAX_SHOWN_CI95 = 100.0


@functools.cache
def published_ratings(max_ci95: float | None = MAX_SHOWN_CI95) -> dict[str, dict[str, int]]:
    """The bots' published ratings, per game: {game: {bot spec: Elo, rounded}}, those whose
    95 % interval is at most `max_ci95` wide (None: all). Empty when the file is missing or
    unreadable: a server shows no rating then."""
    try:
        text = (
            resources.files("coffeetable.bots.data").joinpath(PUBLISHED_RATINGS).read_text("utf-8")
        )
        data = json.loads(text)
        return {
            game: {
                bot: round(float(entry["elo"]))
                for bot, entry in table["bots"].items()
                if max_ci95 is None or float(entry["ci95"]) <= max_ci95
            }
            for game, table in data["games"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
