"""What every bot shares: the search limit, the levels and the protocol (a bot is built from
its name by bots/make.py).

A bot answers `bot.choose(state, seat, limit) -> (action, info)` (in the spirit of
python-chess's `engine.play`): a legal action for `seat` and a dict of what it found, with at
least `value` (the expected reward of the chosen action, in [0, 1], when the bot has one) and
its search statistics. Bots use only the core protocol, plus a per-game evaluation
(heuristics.py); they never look at hidden information (they search on
`state.resample_hidden(seat, rng)`).
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from coffeetable.core.errors import DataError
from coffeetable.core.game import Action, State


@dataclass(frozen=True)
class Limit:
    """A search budget per decision: seconds, iterations, or both (whichever ends first).
    With `cpu`, the seconds are the deciding thread's CPU time (`time.thread_time`) instead
    of the wall clock's: what the budget buys on a core of its own, whatever else the
    machine runs, so that a benchmark on a busy machine plays the bot a quiet one would
    (`ismcts:0.3cpu`; docs/bots.md, "Bot levels on the rating scale")."""

    time: float | None = None
    iterations: int | None = None
    cpu: bool = False

    def __post_init__(self) -> None:
        if self.time is not None and not (self.time > 0 and math.isfinite(self.time)):
            raise DataError(f"a time limit must be a positive number of seconds, not {self.time}")
        if self.iterations is not None and self.iterations < 1:
            raise DataError(f"an iteration limit must be at least 1, not {self.iterations}")
        if self.cpu and self.time is None:
            raise DataError("a CPU-time limit needs its seconds")

    def clock(self) -> Callable[[], float]:
        """The clock the time budget is read on: the thread's CPU time with `cpu`, else the
        wall clock (`time.perf_counter`)."""
        return _time.thread_time if self.cpu else _time.perf_counter


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
