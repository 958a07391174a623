"""Building a bot from its name (`make_bot("ismcts:hard")`): the names, levels, budgets
and options the CLI, the server and the benchmarks accept. The bots themselves import only
bots/base.py, so this module stands above them."""

from __future__ import annotations

import math

from coffeetable.bots.base import LEVELS, Bot, Limit
from coffeetable.bots.greedy import GreedyBot
from coffeetable.bots.ismcts import IsmctsBot
from coffeetable.bots.random_bot import RandomBot
from coffeetable.core.errors import DataError

BOT_NAMES = ("random", "greedy", "ismcts")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its name: `random`, `greedy` (`greedy:w24`: its beam 24 wide instead of
    greedy.WIDTH), `ismcts` (level medium), `ismcts:easy`,
    `ismcts:hard`, or `ismcts:2.5s` / `ismcts:500i` for a time / iteration budget. A
    `+learned` suffix (`greedy+learned`, `ismcts:hard+learned`) makes greedy and ISMCTS
    judge complete turns by the newest learned value model fitted on the game's number of
    players (`+learned=N`: its version N) where one fits the game, its deck and its number
    of players; elsewhere they play as without it (bots/learned.py)."""
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
