"""Building a bot from its name (`make_bot("ismcts:hard")`): the names, levels, budgets
and options the CLI, the server and the benchmarks accept. The bots themselves import only
bots/base.py, so this module stands above them."""

from __future__ import annotations

import math
import re
from typing import Any

from coffeetable.bots.base import LEVELS, Bot, Limit
from coffeetable.bots.greedy import GreedyBot
from coffeetable.bots.ismcts import IsmctsBot
from coffeetable.bots.random_bot import RandomBot
from coffeetable.core.errors import DataError
from coffeetable.core.game import Action, State

BOT_NAMES = ("random", "greedy", "ismcts")

#: The levels a player picks (`ismcts:easy`, `ismcts:medium`, `ismcts:hard`) are ISMCTS at
#: the budgets of LEVELS, except in a game named here, whose search is not stronger at the
#: highest budget than at the lowest: there a level plays the bot given here, chosen for its
#: strength (docs/bots.md, "Levels and budgets"). Coffee Rush: ISMCTS at 260, 770 and 2,600
#: iterations (0.1, 0.3 and 1 s) rated 1738, 1746 and 1694 (± 63-65) with greedy at 1500,
#: so the three levels played alike; a greedy beam 2 wide wins 19 % against greedy (width
#: 6), one 12 wide 58.5-60 %. Its hard level was the search at 770 iterations (about 0.3 s
#: a decision here) until 2026-12-07; then a beam 48 wide whose complete turns are judged
#: by the learned value rush-value-v2 (bots/learned.py): 87.5 % of 200 games against
#: greedy, rated 1831 ± 44 where the search was 1771 ± 47 (docs/bots.md, "Coffee Rush's
#: hard level is the learned beam"). Later that day, that beam judges each complete turn on
#: four determinizations of the deck's order at once (one beam: "One beam for all the
#: determinizations"): 90.3 % of 700 games against greedy, rated 1882 ± 43, in about
#: twice the one-sample beam's time (a median of 0.05-0.07 s of a core a decision, the
#: longest 0.27 s, on 40 positions; docs/bots.md, "The new hard level"). The model
#: is named by its version, so a newer model changes no level until it is measured and
#: named here; where it does not fit (3 and 4 players, another deck) the level plays the
#: same beam on the hand-written evaluation, as strong as the search there.
#: Each of these plays the same whatever the machine's load, so its measured rating holds
#: on any machine. Café: the search at 0.1 s (about one iteration) plays as greedy does (55
#: % of 40 games against it, the same games as a beam 12 wide), so its easy level is the
#: beam 2 wide (27.5 % of 40 against greedy at 2 players, 10 % of 40 at 4 where an equal
#: bot wins 25 %); its medium and hard levels stay the search at 0.3 and 1 s (LEVELS)
GAME_LEVELS: dict[str, dict[str, str]] = {
    "cafe": {"easy": "greedy:w2"},
    "coffee-rush": {"easy": "greedy:w2", "medium": "greedy:w12", "hard": "greedy:w48s4+learned=2"},
}


def level_spec(game: str, level: str) -> str:
    """The bot that plays `level` (easy, medium, hard) in `game`, as a spec that names it
    whatever the machine: the game's own bot for the level (GAME_LEVELS), else the search at
    the level's time on the CPU clock (`ismcts:0.3cpu`, Limit.cpu), which plays on a busy
    machine as the level does on a quiet one. What the rating runs play and record for a
    level (benchmarks/bot_elo.py)."""
    spec = GAME_LEVELS.get(game, {}).get(level)
    if spec is not None:
        return spec
    seconds = LEVELS[level].time
    assert seconds is not None  # the levels are time budgets
    return f"ismcts:{seconds:g}cpu"


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A bot from its name: `random`, `greedy` (`greedy:w24`: its beam 24 wide instead of
    greedy.WIDTH; `greedy:w24s4`: that beam on 4 determinizations), `ismcts` (ISMCTS at the
    medium level's budget), the levels a player picks `ismcts:easy`, `ismcts:medium`,
    `ismcts:hard` (ISMCTS at the level's budget, or the game's own bot for the level:
    GAME_LEVELS, LevelBot), or `ismcts:2.5s` / `ismcts:500i` for ISMCTS at a time / iteration
    budget. A
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
    beam = re.fullmatch(r"w([1-9][0-9]*)(?:s([1-9][0-9]*))?", level) if name == "greedy" else None
    if beam:
        samples = int(beam[2] or 1)
        bot = GreedyBot(seed, width=int(beam[1]), learned=learned, samples=samples)
        bot.name = label  # a beam of another width than greedy's own (a research bot)
        return bot
    if name == "ismcts" and level in LEVELS:
        return LevelBot(level, seed, label, extra if plus else "", learned)
    if name == "ismcts":
        return IsmctsBot(seed, parse_level(level or "medium"), label=label, learned=learned)
    raise DataError(
        f"unknown bot {spec!r}; bots: random, greedy[:wWIDTH[sSAMPLES]][+learned], "
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
    unit = "cpu" if level.endswith("cpu") else level[-1:]
    number: float | None = None
    try:
        number = float(level[: -len(unit)]) if unit in ("s", "cpu", "i") else None
    except ValueError:
        number = None
    if number is not None and math.isfinite(number):
        if unit != "i":
            return Limit(time=number, cpu=unit == "cpu")
        if number.is_integer():
            return Limit(iterations=int(number))
    raise DataError(
        f"unknown level {level!r}: easy, medium, hard, or a budget such as 2.5s, 0.3cpu "
        "(seconds of CPU time) or 500i"
    )


class LevelBot:
    """A level a player picks (`ismcts:easy`, `medium`, `hard`): ISMCTS at the level's
    budget (LEVELS), or in a game of GAME_LEVELS the bot named there for the level. The game
    is known at the first decision (the state's), so the bot is built then, once for each
    game. `plans` is the ISMCTS bot's (the server carries it from one decision to the next);
    a level played by a greedy beam plans nothing."""

    def __init__(
        self, level: str, seed: int | None, label: str, extra: str, learned: int | None
    ) -> None:
        self.level = level
        self.name = label
        self.seed = seed
        self.extra = extra  # the spec's `+...` suffix, for a level played by another bot
        self.learned = learned
        self.plans: dict[int, tuple[Action, ...]] = {}
        self._bots: dict[str, Bot] = {}

    def bot_for(self, game_name: str) -> Bot:
        """The bot that plays this level in `game_name`."""
        bot = self._bots.get(game_name)
        if bot is None:
            spec = GAME_LEVELS.get(game_name, {}).get(self.level)
            if spec is None:
                bot = IsmctsBot(self.seed, LEVELS[self.level], learned=self.learned)
            else:
                # the spec's `+...` (the level's own model) gives way to the caller's
                body = spec.partition("+")[0]
                bot = make_bot(f"{body}+{self.extra}" if self.extra else spec, self.seed)
            if isinstance(bot, IsmctsBot):
                bot.name = self.name
                bot.plans = self.plans
            self._bots[game_name] = bot
        return bot

    def choose(
        self, state: State, seat: int, limit: Limit | None = None
    ) -> tuple[Action, dict[str, Any]]:
        return self.bot_for(state.game.info.name).choose(state, seat, limit)
