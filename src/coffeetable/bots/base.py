"""What every bot shares: the search limit, the levels, and building a bot from its name.

A bot answers `bot.choose(state, seat, limit) -> (action, info)` (in the spirit of
python-chess's `engine.play`): a legal action for `seat` and a dict of what it found, with at
least `value` (the expected reward of the chosen action, in [0, 1], when the bot has one) and
its search statistics. Bots use only the core protocol, plus a per-game evaluation
(heuristics.py); they never look at hidden information (they search on
`state.resample_hidden(seat, rng)`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from coffeetable.core.errors import DataError
from coffeetable.core.game import Action, State


@dataclass(frozen=True)
class Limit:
    """A search budget per decision: seconds, iterations, or both (whichever ends first)."""

    time: float | None = None
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.time is not None and not (self.time > 0 and math.isfinite(self.time)):
            raise DataError(f"a time limit must be a positive number of seconds, not {self.time}")
        if self.iterations is not None and self.iterations < 1:
            raise DataError(f"an iteration limit must be at least 1, not {self.iterations}")


#: ISMCTS levels (docs/bots.md): seconds per decision with several legal actions
LEVELS: dict[str, Limit] = {
    "easy": Limit(time=0.1),
    "medium": Limit(time=0.3),
    "hard": Limit(time=1.0),
}


class Bot(Protocol):
    name: str

    def choose(
        self, state: State, seat: int, limit: Limit | None = None
    ) -> tuple[Action, dict[str, Any]]: ...


BOT_NAMES = ("random", "greedy", "ismcts")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its name: `random`, `greedy` (`greedy:w24`: its beam 24 wide instead of
    greedy.WIDTH), `ismcts` (level medium), `ismcts:easy`,
    `ismcts:hard`, or `ismcts:2.5s` / `ismcts:500i` for a time / iteration budget. A
    `+learned` suffix (`greedy+learned`, `ismcts:hard+learned`) makes greedy and ISMCTS
    judge complete turns by the newest learned value model fitted on the game's number of
    players (`+learned=N`: its version N) where one fits the game, its deck and its number
    of players; elsewhere they play as without it (bots/learned.py)."""
    from coffeetable.bots.greedy import GreedyBot
    from coffeetable.bots.ismcts import IsmctsBot
    from coffeetable.bots.random_bot import RandomBot

    label = spec.strip().lower()
    body, plus, extra = label.partition("+")
    name, _, level = body.partition(":")
    learned = parse_learned(extra) if plus else None
    if name == "random" and not level and not plus:
        return RandomBot(seed)
    if name == "greedy" and not level:
        return GreedyBot(seed, learned=learned)
    if name == "greedy" and level[:1] == "w" and level[1:].isdecimal() and int(level[1:]) > 0:
        bot = GreedyBot(seed, width=int(level[1:]), learned=learned)
        bot.name = label  # a beam of another width than greedy's own (a research bot)
        return bot
    if name == "ismcts":
        return IsmctsBot(seed, parse_level(level or "medium"), label=label, learned=learned)
    raise DataError(
        f"unknown bot {spec!r}; bots: random, greedy[:wWIDTH][+learned], "
        "ismcts[:easy|medium|hard|SECONDSs|ITERATIONSi][+learned]"
    )


#: `learned` of a bot that uses the newest model (a version number names another one)
NEWEST = 0


def parse_learned(extra: str) -> int:
    """The model version a `+learned` suffix asks for: NEWEST, or N for `learned=N`."""
    if extra == "learned":
        return NEWEST
    head, _, number = extra.partition("=")
    if head == "learned" and number.isdigit() and int(number) > 0:
        return int(number)
    raise DataError(
        f"unknown bot option {extra!r}: learned, or learned=VERSION (such as learned=1)"
    )


def parse_level(level: str) -> Limit:
    if level in LEVELS:
        return LEVELS[level]
    number: float | None = None
    try:
        number = float(level[:-1]) if level[-1:] in ("s", "i") else None
    except ValueError:
        number = None
    if number is not None and math.isfinite(number):
        if level.endswith("s"):
            return Limit(time=number)
        if number.is_integer():
            return Limit(iterations=int(number))
    raise DataError(
        f"unknown level {level!r}: easy, medium, hard, or a budget such as 2.5s or 500i"
    )
