"""Game review: each decision of a finished game (or of any record) analysed by a bot, so
that a player sees where the points went (docs/bots.md, "Game review").

For one decision (the position before it, the seat, the move made):

- the seat's information only: every position the analysis looks at is a determinization,
  `state.resample_hidden(seat, rng)` (the hidden cards redrawn from those the seat has not
  seen, the engine's RNG redrawn too), built like the ISMCTS bot builds its own. The
  record's deck order is never read: the analysis of a record is the same under any
  permutation of the cards the seat did not see (tests/bots/test_review.py);
- the bot's move: `bot.choose` on a determinization, under the review's limit (iterations:
  deterministic for a seed; seconds: as an option);
- both moves are scored on the same `samples` determinizations (common random numbers,
  so that a difference between them is the moves' and not the deals'): the move is played,
  then every seat plays on to the end of the game by the greedy beam (`PLAYOUT_WIDTH`), and
  the seat's final score (VP) and win share (1, or 1/k in a k-way tie, or 0) are averaged;
- the estimate is the expected final score solo, the winning chance otherwise; the best
  move is whichever of the two scored higher, and the loss is how much lower the move made
  scored (0 when it was the bot's move or scored at least as well).

A decision is a step with two or more legal actions: forced steps are not analysed. A
multi-step text in a record (a Coffee Rush `Turn`) is analysed step by step.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from coffeetable.bots.base import Limit
from coffeetable.bots.greedy import best_turns
from coffeetable.bots.make import make_bot
from coffeetable.core.errors import CoffeetableError, DataError
from coffeetable.core.game import JSON, Action, Game, State
from coffeetable.core.record import GameRecord, RecordActionError
from coffeetable.core.registry import find_game

#: the greedy beam's width when the game is played on after a move (tests/benchmarks:
#: width 1 plays a whole Café game in ~0.1 s and Coffee Rush in ~0.05 s on one core)
PLAYOUT_WIDTH = 1
DEFAULT_BOT = "ismcts"
DEFAULT_ITERATIONS = 60
DEFAULT_SAMPLES = 8
#: a loss from which a move is called an inaccuracy, a mistake, a blunder: VP solo,
#: winning chance otherwise
SOLO_GRADES = ((3.0, "blunder"), (1.5, "mistake"), (0.5, "inaccuracy"))
MULTI_GRADES = ((0.2, "blunder"), (0.1, "mistake"), (0.05, "inaccuracy"))
#: the phase of each kind of move, per game (by the action's class name); others: "actions"
PHASES: dict[str, dict[str, str]] = {
    "cafe": {
        "Take": "draft",
        "Bid": "draft",
        "BidDone": "draft",
        "Pass": "draft",
        "Place": "placement",
    },
    "coffee-rush": {
        "Place": "movement",
        "Step": "movement",
        "Stop": "movement",
        "Upgrade": "movement",
        "Pour": "pouring",
        "Empty": "pouring",
        "Serve": "serving",
        "End": "serving",
    },
}
PHASE_ORDER: dict[str, tuple[str, ...]] = {
    "cafe": ("draft", "placement", "actions"),
    "coffee-rush": ("movement", "pouring", "serving"),
}
BIGGEST = 3  # the biggest losses the summary tells in words


class ReviewError(DataError):
    """A review that cannot be made: bad options, or a record that is not a finished game
    of the seats asked for."""


@dataclass(frozen=True)
class ReviewSettings:
    """What an analysis depends on: the same settings give the same review (with an
    iteration limit; a time limit makes it depend on the machine's speed)."""

    bot: str = DEFAULT_BOT
    limit: Limit = field(default_factory=lambda: Limit(iterations=DEFAULT_ITERATIONS))
    samples: int = DEFAULT_SAMPLES
    seed: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.samples, bool) or not isinstance(self.samples, int):
            raise ReviewError(f"samples must be a whole number, not {self.samples!r}")
        if not 1 <= self.samples <= 1000:
            raise ReviewError(f"samples must be from 1 to 1000, not {self.samples}")
        make_bot(self.bot)  # a clear error for an unknown bot

    def key(self) -> str:
        """A short text naming the settings (the online store keeps one review per game and
        key)."""
        budget = (f"{self.limit.iterations}i" if self.limit.iterations is not None else "") + (
            f"{self.limit.time:g}s" if self.limit.time is not None else ""
        )
        return f"{self.bot}:{budget}:{self.samples}x:seed{self.seed}"

    @classmethod
    def from_json(cls, data: JSON) -> ReviewSettings:
        return settings_from(
            bot=data["bot"],
            seconds=data.get("time"),
            iterations=data.get("iterations"),
            samples=data["samples"],
            seed=data["seed"],
        )

    def to_json(self) -> JSON:
        return {
            "bot": self.bot,
            "iterations": self.limit.iterations,
            "time": self.limit.time,
            "samples": self.samples,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class Decision:
    """A step of the record where the seat had a choice: `state` is the position before it
    (a replay of the record: it holds the real hidden cards, which the analysis never
    reads; it only resamples them), `index` the record's action number."""

    index: int
    seat: int
    state: State
    action: Action
    turn: int = 1  # the seat's turn: its how-manieth run of consecutive moves in the record


@dataclass(frozen=True)
class Outcome:
    """A move's mean result over the determinizations: final VP, win share, and both
    estimates' standard error."""

    score: float
    win: float
    score_error: float
    win_error: float


@dataclass
class MoveReview:
    index: int
    seat: int
    round: int  # the game's round (Café), else 0
    turn: int  # the seat's turn (Decision.turn)
    phase: str
    played: str
    played_text: str
    played_say: JSON
    suggested: str
    suggested_text: str
    suggested_say: JSON
    unit: str  # "VP" (solo) or "win" (a winning chance, 0 to 1)
    estimate_before: float  # the best move's estimate: the position's worth to the seat
    played_estimate: float
    best_estimate: float
    loss: float
    played_score: float  # expected final VP after each move (multiplayer too)
    suggested_score: float
    bot_move: str  # the bot's own choice (the suggestion unless the move made scored higher)
    bot_estimate: float
    samples: int
    grade: str | None
    seconds: float

    def to_json(self) -> JSON:
        out = dict(self.__dict__)
        for key in (
            "estimate_before",
            "played_estimate",
            "best_estimate",
            "loss",
            "played_score",
            "suggested_score",
            "bot_estimate",
        ):
            out[key] = round(out[key], 4)
        out["seconds"] = round(self.seconds, 3)
        return out

    @classmethod
    def from_json(cls, data: JSON) -> MoveReview:
        """The review of a move as `to_json` wrote it (a worker's answer)."""
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})

    def words(self) -> str:
        """The move in words: "round 3: places P15 at b2, covering 3 cells, losing Porto
        1909 (-3.2 VP); better: places P15 at c4, covering 2 cells"."""
        when = f"round {self.round}" if self.round else f"turn {self.turn}"
        return (
            f"{when}: {self.played_text} ({_signed_loss(self.loss, self.unit)}); "
            f"better: {self.suggested_text}"
        )


def _signed_loss(loss: float, unit: str) -> str:
    if unit == "VP":
        return f"\u2212{loss:.1f} VP"
    return f"\u2212{100 * loss:.0f} % winning chance"


def grade(loss: float, unit: str) -> str | None:
    for threshold, name in SOLO_GRADES if unit == "VP" else MULTI_GRADES:
        if loss >= threshold:
            return name
    return None


def phase_of(game: str, action: Action) -> str:
    return PHASES.get(game, {}).get(type(action).__name__, "actions")


# ==== the decisions of a record ===============================================================
def decisions(record: GameRecord, game: Game | None = None) -> Iterator[Decision]:
    """The record's decisions (steps with a choice), replayed through the checked rules
    path; RecordActionError for an illegal action. A multi-step text (an action whose
    applied form has `steps`) gives a decision for each of its steps with a choice."""
    game = game or find_game(record.game)
    try:
        state = game.new_initial_state(len(record.seats), record.seed, record.options)
    except CoffeetableError as exc:
        raise ReviewError(f"the record's set-up is not valid: {exc}") from None
    previous: tuple[int, Action] | None = None
    turns = [0] * len(record.seats)
    last_seat: int | None = None
    for index, (seat, text) in enumerate(record.actions):
        if not 0 <= seat < len(record.seats):
            raise RecordActionError(index, seat, text, f"there is no seat {seat}")
        if seat != last_seat:
            turns[seat] += 1
            last_seat = seat
        try:
            action = game.parse_action(text)
            if state.played_by_engine(seat, action, previous):
                continue
            trial = state.clone()
            done = trial.apply(seat, action)
        except CoffeetableError as exc:
            raise RecordActionError(index, seat, text, str(exc)) from None
        previous = (seat, action)
        steps: Sequence[Action] = getattr(done, "steps", None) or (done,)
        for step in steps:
            if len(state.legal_actions(seat)) > 1:
                yield Decision(index, seat, state.clone(), step, turns[seat])
            state.apply_unchecked(seat, step)
        if state.to_json() != trial.to_json():  # pragma: no cover - the engines agree
            raise ReviewError(f"action #{index} replays differently step by step")


def final_state(record: GameRecord, game: Game | None = None) -> State:
    state = record.replay(game=game)
    if not state.is_over():
        raise ReviewError(
            "the game is not over: only a finished game is reviewed "
            f"({len(record.actions)} actions recorded)"
        )
    return state


# ==== one decision ============================================================================
def playout(state: State, width: int = PLAYOUT_WIDTH) -> State:
    """Play `state` (a determinization) to the end: each seat to move (the lowest first)
    plays the greedy beam's best turn; forced steps are played as they come."""
    while not state.is_over():
        mover = min(state.current_seats())
        legal = state.legal_actions(mover)
        if len(legal) == 1:
            state.apply_unchecked(mover, legal[0])
            continue
        found, _ = best_turns(state, mover, width=width)
        for action in found[0][1]:
            state.apply_unchecked(mover, action)
    return state


def _result(state: State, seat: int) -> tuple[float, float]:
    winners = state.winners()
    win = 1.0 / len(winners) if seat in winners else 0.0
    return float(state.scores()[seat].total), win


def _mean_error(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def _outcome(results: Sequence[tuple[float, float]]) -> Outcome:
    score, score_error = _mean_error([r[0] for r in results])
    win, win_error = _mean_error([r[1] for r in results])
    return Outcome(score, win, score_error, win_error)


def decision_rng(settings: ReviewSettings, index: int, seat: int) -> random.Random:
    """The RNG of one decision: the same for a seed and a record position, whatever else
    the review covers (a review of one seat agrees with that seat's part of all)."""
    return random.Random(f"review:{settings.seed}:{index}:{seat}")


def analyse(decision: Decision, settings: ReviewSettings) -> MoveReview:
    """The review of one decision (module docstring). Only determinizations of the position
    are searched and played on: the analysis depends on what the seat could see."""
    start = time.perf_counter()
    state, seat, played = decision.state, decision.seat, decision.action
    rng = decision_rng(settings, decision.index, seat)
    bot = make_bot(settings.bot, seed=rng.getrandbits(32))
    suggested, _info = bot.choose(state.resample_hidden(seat, rng), seat, settings.limit)
    played = state.canonical_action(seat, played)
    same = suggested == played
    played_results: list[tuple[float, float]] = []
    suggested_results: list[tuple[float, float]] = []
    # with a time limit, determinizations go on until the limit (at least `samples`)
    until = start + settings.limit.time if settings.limit.time is not None else -math.inf
    while len(played_results) < settings.samples or time.perf_counter() < until:
        world = state.resample_hidden(seat, rng)
        for move, results in ((played, played_results), (suggested, suggested_results)):
            if same and results is suggested_results:
                results.append(played_results[-1])
                continue
            after = world.clone()
            after.apply_unchecked(seat, move)
            results.append(_result(playout(after), seat))
    mine, theirs = _outcome(played_results), _outcome(suggested_results)
    solo = state.num_players == 1
    unit = "VP" if solo else "win"
    played_estimate = mine.score if solo else mine.win
    suggested_estimate = theirs.score if solo else theirs.win
    best_is_played = played_estimate >= suggested_estimate
    best = played if best_is_played else suggested
    best_estimate = max(played_estimate, suggested_estimate)
    loss = best_estimate - played_estimate
    return MoveReview(
        index=decision.index,
        seat=seat,
        round=state.round_number(),
        turn=decision.turn,
        phase=phase_of(state.game.info.name, played),
        played=played.notation(),
        played_text=state.describe(seat, played),
        played_say=state.say(seat, played).to_json(),
        suggested=best.notation(),
        suggested_text=state.describe(seat, best),
        suggested_say=state.say(seat, best).to_json(),
        unit=unit,
        estimate_before=best_estimate,
        played_estimate=played_estimate,
        best_estimate=best_estimate,
        loss=loss,
        played_score=mine.score,
        suggested_score=theirs.score if not best_is_played else mine.score,
        bot_move=suggested.notation(),
        bot_estimate=suggested_estimate,
        samples=len(played_results),
        grade=grade(loss, unit),
        seconds=time.perf_counter() - start,
    )


# ==== a whole game ============================================================================
@dataclass
class Review:
    game: str
    seats: list[str]
    reviewed: list[int]
    settings: ReviewSettings
    moves: list[MoveReview]
    scores: list[int]
    winners: list[int]
    summaries: list[JSON]
    seconds: float

    def to_json(self) -> JSON:
        return {
            "format": "coffeetable.review/1",
            "game": self.game,
            "seats": self.seats,
            "reviewed": self.reviewed,
            "settings": self.settings.to_json(),
            "scores": self.scores,
            "winners": self.winners,
            "moves": [m.to_json() for m in self.moves],
            "summaries": self.summaries,
            "seconds": round(self.seconds, 3),
        }


def review_record(
    record: GameRecord,
    settings: ReviewSettings | None = None,
    seats: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    game: Game | None = None,
) -> Review:
    """The review of a finished game's record, for `seats` (all by default). `progress` is
    called with (decisions done, decisions in all) after each. ReviewError for a game not
    over or a seat not in it; RecordActionError for an illegal action in the record. `game`
    overrides the registered game (Café with another deck)."""
    settings = settings or ReviewSettings()
    start = time.perf_counter()
    final = final_state(record, game)
    n = len(record.seats)
    chosen = sorted(set(range(n) if seats is None else seats))
    for seat in chosen:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ReviewError(f"no seat {seat} in this game: seats are 0 to {n - 1}")
    todo = [d for d in decisions(record, game) if d.seat in chosen]
    moves: list[MoveReview] = []
    for i, decision in enumerate(todo):
        moves.append(analyse(decision, settings))
        if progress is not None:
            progress(i + 1, len(todo))
    return assemble(record, final, settings, chosen, moves, time.perf_counter() - start)


def assemble(
    record: GameRecord,
    final: State,
    settings: ReviewSettings,
    seats: Sequence[int],
    moves: list[MoveReview],
    seconds: float,
) -> Review:
    """The review of a game from the reviews of its decisions (made here or by workers)."""
    scores = [s.total for s in final.scores()]
    return Review(
        game=record.game,
        seats=list(record.seats),
        reviewed=list(seats),
        settings=settings,
        moves=moves,
        scores=scores,
        winners=final.winners(),
        summaries=[summarise(record.game, seat, scores, moves) for seat in seats],
        seconds=seconds,
    )


def decision_job(game_name: str, decision: Decision, settings: ReviewSettings) -> JSON:
    """A decision as a bot worker's job (`analyse_job`): the position before it (the full
    state, as the server's bot jobs carry it: the analysis only resamples its hidden cards),
    the move made in notation, and the settings."""
    return {
        "game": game_name,
        "position": decision.state.to_json(),
        "seat": decision.seat,
        "action": decision.action.notation(),
        "index": decision.index,
        "turn": decision.turn,
        "settings": settings.to_json(),
    }


def analyse_job(job: JSON, game: Game | None = None) -> JSON:
    """`analyse` of a `decision_job`, in a bot worker: the review of the move as JSON.
    `game`: the game the record was played with, when not the registered one (a players'
    deck)."""
    game = game or find_game(job["game"])
    decision = Decision(
        job["index"],
        job["seat"],
        game.state_from_json(job["position"]),
        game.parse_action(job["action"]),
        job["turn"],
    )
    return analyse(decision, ReviewSettings.from_json(job["settings"])).to_json()


def summarise(game: str, seat: int, scores: Sequence[int], moves: Sequence[MoveReview]) -> JSON:
    """Where the points went for one seat: the total loss, the loss per phase, how many
    moves of each grade, the biggest losses in words, and, solo Café, the rulebook's
    rating band reached and the one the bot's choices at those moments would have reached
    (the final score plus their estimated losses)."""
    mine = [m for m in moves if m.seat == seat]
    unit = "VP" if len(scores) == 1 else "win"
    phases = {name: 0.0 for name in PHASE_ORDER.get(game, ())}
    for m in mine:
        phases[m.phase] = phases.get(m.phase, 0.0) + m.loss
    grades = {name: 0 for _, name in SOLO_GRADES}
    for m in mine:
        if m.grade is not None:
            grades[m.grade] += 1
    biggest = sorted((m for m in mine if m.loss > 0), key=lambda m: (-m.loss, m.index))
    biggest = biggest[:BIGGEST]
    out: JSON = {
        "seat": seat,
        "unit": unit,
        "decisions": len(mine),
        "total_loss": round(sum(m.loss for m in mine), 4),
        "phases": {name: round(loss, 4) for name, loss in phases.items()},
        "grades": grades,
        "biggest": [
            {"index": m.index, "loss": round(m.loss, 4), "words": m.words()} for m in biggest
        ],
        "score": scores[seat],
    }
    if game == "cafe" and len(scores) == 1:
        from coffeetable.games.cafe.state import solo_rating

        better = scores[seat] + sum(m.loss for m in biggest)
        out["rating"] = solo_rating(scores[seat])
        out["rating_with_suggestions"] = solo_rating(math.floor(better + 0.5))
        out["score_with_suggestions"] = round(better, 1)
    return out


def summary_text(review: Review) -> str:
    """The review in words, for a terminal."""
    lines = []
    for summary in review.summaries:
        seat = summary["seat"]
        vp = summary["unit"] == "VP"
        lines.append(
            f"seat {seat} ({review.seats[seat]}): {review.scores[seat]} VP, "
            f"{summary['decisions']} decisions reviewed"
        )
        total = summary["total_loss"]
        lines.append(
            "  estimated loss: "
            + (f"{total:.1f} VP" if vp else f"{100 * total:.0f} % winning chance in all")
        )
        phases = ", ".join(
            f"{name} {loss:.1f}" if vp else f"{name} {100 * loss:.0f} %"
            for name, loss in summary["phases"].items()
        )
        lines.append(f"  by phase: {phases}")
        counts = ", ".join(_count(n, name) for name, n in summary["grades"].items())
        lines.append(f"  {counts}")
        if summary["biggest"]:
            lines.append("  biggest losses:")
            lines.extend(f"    {b['words']}" for b in summary["biggest"])
        if "rating" in summary:
            lines.append(
                f"  rating: {summary['rating']}; with the bot's choices at those moments "
                f"about {summary['score_with_suggestions']:.1f} VP: "
                f"{summary['rating_with_suggestions']}"
            )
    return "\n".join(lines)


def review_decisions(
    found: Sequence[Decision], settings: ReviewSettings | None = None
) -> list[MoveReview]:
    """The reviews of some decisions (tests and benchmarks pick them)."""
    settings = settings or ReviewSettings()
    return [analyse(d, settings) for d in found]


def settings_from(
    bot: str | None = None,
    seconds: float | None = None,
    iterations: int | None = None,
    samples: int | None = None,
    seed: int | None = None,
) -> ReviewSettings:
    """Settings from a command line's or a request's options, with clear errors."""
    if seconds is not None and iterations is not None:
        raise ReviewError("give a time or an iteration budget, not both")
    try:
        limit = (
            Limit(time=seconds)
            if seconds is not None
            else Limit(iterations=iterations if iterations is not None else DEFAULT_ITERATIONS)
        )
    except DataError as exc:
        raise ReviewError(str(exc)) from None
    kwargs: dict[str, Any] = {"limit": limit}
    if bot is not None:
        kwargs["bot"] = bot
    if samples is not None:
        kwargs["samples"] = samples
    if seed is not None:
        kwargs["seed"] = seed
    try:
        return ReviewSettings(**kwargs)
    except ReviewError:
        raise
    except DataError as exc:
        raise ReviewError(str(exc)) from None


def _count(n: int, name: str) -> str:
    plural = {"inaccuracy": "inaccuracies"}.get(name, name + "s")
    return f"{n} {name if n == 1 else plural}"
