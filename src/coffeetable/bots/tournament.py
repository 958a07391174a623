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
import pathlib
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from coffeetable.bots.base import LEVELS
from coffeetable.bots.make import level_spec, make_bot
from coffeetable.core.errors import DataError
from coffeetable.core.game import Game
from coffeetable.core.registry import find_game

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

    @classmethod
    def from_records(
        cls, bots: Sequence[str], records: Sequence[dict[str, Any]]
    ) -> TournamentResult:
        """The table of games `records` (as `play` returns them) between `bots`: a pair per
        two bots (in the order of `bots`, whatever the order in a record), the points of
        each, and every final score of each bot. A record of other bots raises DataError."""
        index = {bot: i for i, bot in enumerate(bots)}
        if len(index) < len(bots):
            raise DataError("the bots' names must differ")
        try:
            members = [tuple(index[bot] for bot in record["pair"]) for record in records]
        except KeyError as exc:
            raise DataError(f"a game of {exc.args[0]!r}, not one of the bots") from None
        result = cls._tally(len(bots), list(zip(members, records, strict=True)))
        result.bots = list(bots)
        return result

    @classmethod
    def _tally(
        cls, k: int, games: Sequence[tuple[tuple[int, ...], dict[str, Any]]]
    ) -> TournamentResult:
        pairs = {(a, b): PairResult(a, b) for a in range(k) for b in range(a + 1, k)}
        scores: list[list[int]] = [[] for _ in range(k)]
        for (x, y), record in games:
            px, py = record["points"]
            if x < y:
                pair = pairs[(x, y)]
                pair.points_a += px
                pair.points_b += py
            else:
                pair = pairs[(y, x)]
                pair.points_a += py
                pair.points_b += px
            pair.games += 1
            for m, score in zip(record["members"], record["scores"], strict=True):
                scores[(x, y)[m]].append(score)
        return cls([], list(pairs.values()), scores)

    def ratings(self, prior_draws: float = 1.0, anchor: int | None = None) -> list[Rating]:
        return fit_elo(len(self.bots), self.pairs, prior_draws, anchor)

    def to_json(self, prior_draws: float = 1.0, anchor: int | None = None) -> dict[str, Any]:
        ratings = self.ratings(prior_draws, anchor)
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


@dataclass(frozen=True)
class GameJob:
    """One game of a round robin: bots `pair` (two names, in the tournament's order) played
    as `played` (the specs actually seated: a stand-in's spec or the name itself), game
    `index` of the pair on deal `deal`, `seats[s]` the pair member (0 or 1) in seat s, each
    seat's bot seeded with `bot_seeds[s]`. A picklable job for worker processes."""

    game: str
    players: int
    pair: tuple[str, str]
    played: tuple[str, str]
    index: int
    deal: int
    seats: tuple[int, ...]
    bot_seeds: tuple[int, ...]

    def key(self) -> tuple[Any, ...]:
        """What makes two games the same game: the deal and, seat by seat, the bot, the spec
        it was played as and its seed (the pair's order and the game's index do not)."""
        return game_key(
            self.game,
            self.players,
            self.deal,
            [self.pair[m] for m in self.seats],
            [self.played[m] for m in self.seats],
            self.bot_seeds,
        )


def game_key(
    game: str,
    players: int,
    deal: int,
    seat_bots: Sequence[str],
    seat_specs: Sequence[str],
    bot_seeds: Sequence[int],
) -> tuple[Any, ...]:
    return (game, players, deal, tuple(zip(seat_bots, seat_specs, bot_seeds, strict=True)))


def schedule(
    game: Game,
    bots: Sequence[str],
    games: int,
    seed: int = 0,
    players: int = 2,
    played: Sequence[str] | None = None,
) -> list[GameJob]:
    """Every game of the round robin, pair by pair (see the module doc); `played[i]` is the
    spec seated for bot i (default: the bot's own name)."""
    if len(bots) < 2:
        raise DataError("a tournament needs at least two bots")
    if games < 1:
        raise DataError("--games must be at least 1")
    if not max(2, game.info.min_players) <= players <= game.info.max_players:
        raise DataError(
            f"{game.info.title}: a tournament table has 2 to {game.info.max_players} seats"
        )
    specs = list(played if played is not None else bots)
    if len(specs) != len(bots):
        raise DataError("one played spec per bot")
    for spec in specs:
        make_bot(spec)
    jobs = []
    for a in range(len(bots)):
        for b in range(a + 1, len(bots)):
            for g in range(games):
                first, second = (0, 1) if g % 2 == 0 else (1, 0)
                deal = seed + g // 2
                jobs.append(
                    GameJob(
                        game=game.info.name,
                        players=players,
                        pair=(bots[a], bots[b]),
                        played=(specs[a], specs[b]),
                        index=g,
                        deal=deal,
                        seats=tuple(first if s % 2 == 0 else second for s in range(players)),
                        bot_seeds=tuple(deal * 64 + s * 8 + g % 2 for s in range(players)),
                    )
                )
    return jobs


def play(job: GameJob, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play one game of the round robin; its record (GAME_RECORD_FIELDS, JSON-ready): the
    final scores and winners by seat, the points of each of the pair (a win 1, a shared win
    1/k) and the seconds it took."""
    start = time.perf_counter()
    state = find_game(job.game).new_initial_state(job.players, job.deal, options)
    seated = [
        make_bot(job.played[m], seed) for m, seed in zip(job.seats, job.bot_seeds, strict=True)
    ]
    while not state.is_over():
        seat = min(state.current_seats())
        action, _ = seated[seat].choose(state, seat)
        state.apply(seat, action)
    winners = list(state.winners())
    share_a = sum(1 for w in winners if job.seats[w] == 0) / len(winners)
    return {
        "game": job.game,
        "players": job.players,
        "pair": list(job.pair),
        "played": list(job.played),
        "index": job.index,
        "deal": job.deal,
        "members": list(job.seats),
        "seats": [job.pair[m] for m in job.seats],
        "specs": [job.played[m] for m in job.seats],
        "bot_seeds": list(job.bot_seeds),
        "scores": [s.total for s in state.scores()],
        "winners": winners,
        "points": [share_a, 1 - share_a],
        "seconds": round(time.perf_counter() - start, 3),
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
    jobs = schedule(game, bots, games, seed, players)
    members = [(a, b) for a in range(len(bots)) for b in range(a + 1, len(bots))]
    played = []
    for n, job in enumerate(jobs):
        played.append((members[n // games], play(job, options)))
        if on_game:
            on_game()
    result = TournamentResult._tally(len(bots), played)
    result.bots = list(bots)
    return result


#: a game record's fields and their types (`play` writes them; `parse_record` checks them)
GAME_RECORD_FIELDS: dict[str, type | tuple[type, ...]] = {
    "game": str,
    "players": int,
    "pair": list,
    "played": list,
    "index": int,
    "deal": int,
    "members": list,
    "seats": list,
    "specs": list,
    "bot_seeds": list,
    "scores": list,
    "winners": list,
    "points": list,
    "seconds": (int, float),
}


def parse_record(line: str) -> dict[str, Any]:
    """One game record from its JSON line; DataError saying what is wrong when it is not one."""
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise DataError(f"not JSON ({exc})") from None
    if not isinstance(record, dict):
        raise DataError("not a game record (a JSON object)")
    for name, kind in GAME_RECORD_FIELDS.items():
        if not isinstance(record.get(name), kind) or isinstance(record.get(name), bool):
            raise DataError(f"not a game record: {name!r} missing or not a {kind}")
    players = record["players"]
    if not (
        len(record["pair"]) == len(record["played"]) == len(record["points"]) == 2
        and len(record["seats"]) == len(record["specs"]) == players
        and len(record["bot_seeds"]) == len(record["scores"]) == players
        and all(isinstance(v, str) for v in [*record["pair"], *record["played"]])
        and all(isinstance(v, str) for v in [*record["seats"], *record["specs"]])
        and all(isinstance(v, int) for v in [*record["bot_seeds"], *record["scores"]])
        and all(isinstance(v, int | float) for v in record["points"])
        and len(record["members"]) == players
        and all(m in (0, 1) and not isinstance(m, bool) for m in record["members"])
        and record["seats"] == [record["pair"][m] for m in record["members"]]
        and record["specs"] == [record["played"][m] for m in record["members"]]
    ):
        raise DataError("not a game record: its pair, seats, scores or points do not fit")
    return record


def record_key(record: dict[str, Any]) -> tuple[Any, ...]:
    """The game a record is of (GameJob.key)."""
    return game_key(
        record["game"],
        record["players"],
        record["deal"],
        record["seats"],
        record["specs"],
        record["bot_seeds"],
    )


@dataclass
class RecordFile:
    """The game records of a JSON-lines file (`read_records`)."""

    records: list[dict[str, Any]]
    #: bytes up to the end of the last whole line: where to append
    good_bytes: int
    #: what was wrong with a last line cut short (a run killed while writing it), or None
    torn_tail: str | None = None


def read_records(path: pathlib.Path) -> RecordFile:
    """The records of a file `play`'s records were appended to, one JSON line each. A last
    line without its newline that is not a record (the run was killed while writing it) is
    left out and said in `torn_tail`; any other line that is not a record raises DataError
    with its number. A missing file has no records."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return RecordFile([], 0)
    except OSError as exc:
        raise DataError(f"{path}: {exc.strerror or exc}") from None
    records = []
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: empty when the file ends with one
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            records.append(parse_record(raw.decode("utf-8")))
        except (DataError, UnicodeDecodeError) as exc:
            raise DataError(f"{path}, line {number}: {exc}") from None
    good = len(data) - len(tail)
    torn = None
    if tail.strip():
        try:
            records.append(parse_record(tail.decode("utf-8")))
            good = len(data)
        except (DataError, UnicodeDecodeError) as exc:
            torn = f"{path}, line {len(lines) + 1} (the last, cut short): {exc}"
    return RecordFile(records, good, torn)


@dataclass
class Selection:
    """The records of a file that a tournament can use (`select_records`), and why the others
    cannot."""

    used: list[dict[str, Any]]
    #: records of these bots played as other specs: {bot: {spec: games}}
    other_specs: dict[str, dict[str, int]]
    #: records of other games, seat counts or bots
    other_games: int = 0
    #: records of a game already in `used` (kept once)
    repeated: int = 0
    #: of those, repeats whose result differs from the first
    differing: int = 0


def select_records(
    records: Sequence[dict[str, Any]],
    game: str,
    players: int,
    bots: Sequence[str],
    played: Sequence[str],
) -> Selection:
    """The records of `game` with `players` seats between two of `bots`, each played as its
    spec in `played`, every game once (by `record_key`)."""
    spec = dict(zip(bots, played, strict=True))
    selection = Selection([], {})
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for record in records:
        if (
            record["game"] != game
            or record["players"] != players
            or not set(record["pair"]) <= set(bots)
        ):
            selection.other_games += 1
            continue
        mismatched = [
            (b, p) for b, p in zip(record["pair"], record["played"], strict=True) if spec[b] != p
        ]
        if mismatched:
            for b, p in mismatched:
                counts = selection.other_specs.setdefault(b, {})
                counts[p] = counts.get(p, 0) + 1
            continue
        key = record_key(record)
        if key in seen:
            selection.repeated += 1
            first = seen[key]
            if (first["scores"], first["winners"]) != (record["scores"], record["winners"]):
                selection.differing += 1
            continue
        seen[key] = record
        selection.used.append(record)
    return selection


def fit_elo(
    k: int, pairs: Sequence[PairResult], prior_draws: float = 1.0, anchor: int | None = None
) -> list[Rating]:
    """Maximum-likelihood Elo ratings (mean 1500) and 95 % half-widths; see the module doc.
    A bot without games gets 1500 and an infinite interval; the others are fitted alone.

    The half-widths are those of each rating minus the mean of all (the centred ratings);
    with `anchor` (a bot's index), those of each rating minus the anchor's (0 for the
    anchor): the interval of a rating published with the anchor's fixed by convention. The
    centred interval holds a share of every bot's uncertainty, so one bot measured badly
    (random, which never wins) widens them all; the anchored one does not."""
    played = sorted({i for p in pairs if p.games for i in (p.a, p.b)})
    if anchor is not None and anchor not in played:
        return [Rating(r.elo, math.inf) for r in fit_elo(k, pairs, prior_draws)]
    if len(played) < k:
        index = {bot: i for i, bot in enumerate(played)}
        sub = [
            PairResult(index[p.a], index[p.b], p.games, p.points_a, p.points_b)
            for p in pairs
            if p.games
        ]
        fitted = (
            _fit(len(played), sub, prior_draws, None if anchor is None else index[anchor])
            if len(played) > 1
            else []
        )
        out = [Rating(1500.0, math.inf) for _ in range(k)]
        for bot, rating in zip(played, fitted, strict=False):
            out[bot] = rating
        return out
    return _fit(k, pairs, prior_draws, anchor)


def _fit(
    k: int, pairs: Sequence[PairResult], prior_draws: float, anchor: int | None = None
) -> list[Rating]:
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
        # variance of r_i - mean(r) (or r_i - r_anchor), with r_k fixed at 0 and
        # cov(r_free) = cov_free
        var = 0.0
        if anchor is None:
            coef = [(1.0 if j == i else 0.0) - 1.0 / k for j in range(k - 1)]
        else:
            coef = [float(j == i) - float(j == anchor) for j in range(k - 1)]
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
    95 % interval is at most `max_ci95` wide and that were measured on the bot the level
    plays now (`plays_as_measured`); None: every rating in the file. Empty when the file is
    missing or unreadable: a server shows no rating then."""
    try:
        text = (
            resources.files("coffeetable.bots.data").joinpath(PUBLISHED_RATINGS).read_text("utf-8")
        )
        return shown_ratings(json.loads(text), max_ci95)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def shown_ratings(data: Any, max_ci95: float | None) -> dict[str, dict[str, int]]:
    """published_ratings of the file's `data`."""
    return {
        game: {
            bot: round(float(entry["elo"]))
            for bot, entry in table["bots"].items()
            if max_ci95 is None
            or (
                2 * float(entry["ci95"]) <= max_ci95  # the file's ci95 is a half-width (±)
                and plays_as_measured(game, bot, str(entry["played_as"]))
            )
        }
        for game, table in data["games"].items()
    }


def plays_as_measured(game: str, bot: str, played_as: str) -> bool:
    """Whether a rating of `bot` measured as `played_as` is the rating of what `bot` plays
    in `game` now: a level was measured as the bot that plays it (`make.level_spec`: the
    game's own bot for the level, GAME_LEVELS, or the search at the level's time on the CPU
    clock, `ismcts:0.3cpu`) or, if it is the search at a time, as itself; any other bot as
    itself. A level redefined after its rating was measured is not shown until it is
    measured again, nor a level measured at an iteration budget standing in for its time
    (`ismcts:12i`): in Café such a budget searches otherwise than the time does (its root
    beam does not widen)."""
    name, _, level = bot.partition(":")
    if name == "ismcts" and level in LEVELS:
        spec = level_spec(game, level)
        return played_as == spec or (played_as == bot and spec.endswith("cpu"))
    return played_as == bot
