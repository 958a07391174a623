"""Game clocks: realtime banks with an increment, or turn-based games with a time limit per
turn. Framework-free; the time source is injected (`now`, `time.monotonic` by default) so
tests drive it by hand. See docs/server-clocks-ratings.md.

Several seats may run at once (Café's action phase is simultaneous): the clock keeps, for
every running seat, when it was last charged and when its turn began. The server drives it:

    clock = GameClock(settings, num_seats)
    clock.start(state.current_seats())                  # the game begins
    ...                                                 # an action of `seat` arrives:
    if seat in clock.expired(): ...                     # too late: lost on time
    state.apply(seat, action)
    clock.on_moved(seat, turn_ended=...)                # charge it; increment if the turn ended
    clock.sync(state.current_seats())                   # stop the others, start the new ones
    store(clock.snapshot())                             # to survive a restart: clock.restore()
    sleep until clock.next_deadline()                   # then look at clock.expired()

A seat runs out when `now()` reaches its deadline (realtime: the time it was last charged
plus its bank; turn-based: the start of its turn plus `turn_limit`). `expired()` and
`next_deadline()` compare against that same deadline, so a server woken at the deadline
always finds the seat expired.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

ClockKind = Literal["realtime", "turn_based"]
KINDS: tuple[ClockKind, ...] = ("realtime", "turn_based")

#: Upper bounds that catch typos (a bank of 36000 minutes) rather than rule out real games.
MAX_INITIAL = 24 * 3600.0  # a realtime bank: 24 hours
MAX_INCREMENT = 10 * 60.0  # a realtime increment: 10 minutes
MAX_TURN_LIMIT = 14 * 24 * 3600.0  # a turn-based limit per turn: 14 days

_KEYS = ("kind", "initial", "increment", "turn_limit")


@dataclass(frozen=True)
class ClockSettings:
    """How a table's clock runs. All times are in seconds.

    - `realtime`: every seat has a bank of `initial` seconds (more than 0, at most 24 h)
      that runs while the seat may act; `increment` (0 to 10 min) is added each time one
      of its turns ends. `turn_limit` must be None.
    - `turn_based` (correspondence play): no bank, `initial` and `increment` are 0;
      `turn_limit` (more than 0, at most 14 days) is the longest a seat may take over one
      turn, None for no limit.

    Constructing one validates it (ValueError saying what is wrong)."""

    kind: ClockKind
    initial: float = 0.0
    increment: float = 0.0
    turn_limit: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"clock kind must be 'realtime' or 'turn_based', not {_show(self.kind)}"
            )
        for key in ("initial", "increment"):
            _check_seconds(key, getattr(self, key))
        if self.turn_limit is not None:
            _check_seconds("turn_limit", self.turn_limit)
        # stored as floats whatever number type came in
        object.__setattr__(self, "initial", float(self.initial))
        object.__setattr__(self, "increment", float(self.increment))
        if self.turn_limit is not None:
            object.__setattr__(self, "turn_limit", float(self.turn_limit))
        if self.kind == "realtime":
            if self.initial <= 0:
                raise ValueError("a realtime clock needs an initial bank of more than 0 seconds")
            if self.initial > MAX_INITIAL:
                raise ValueError(
                    f"initial bank of {self.initial:g} s is more than the maximum of "
                    f"{MAX_INITIAL:g} s (24 hours)"
                )
            if self.increment > MAX_INCREMENT:
                raise ValueError(
                    f"increment of {self.increment:g} s is more than the maximum of "
                    f"{MAX_INCREMENT:g} s (10 minutes)"
                )
            if self.turn_limit is not None:
                raise ValueError(
                    "a realtime clock has no turn_limit (that is for turn_based clocks)"
                )
        else:
            if self.initial != 0 or self.increment != 0:
                raise ValueError(
                    "a turn_based clock has no bank: initial and increment must be 0 "
                    "(use turn_limit for the time per turn)"
                )
            if self.turn_limit is not None:
                if self.turn_limit <= 0:
                    raise ValueError(
                        "turn_limit must be more than 0 seconds (or null for no limit)"
                    )
                if self.turn_limit > MAX_TURN_LIMIT:
                    raise ValueError(
                        f"turn_limit of {self.turn_limit:g} s is more than the maximum of "
                        f"{MAX_TURN_LIMIT:g} s (14 days)"
                    )

    @classmethod
    def realtime(cls, initial: float, increment: float = 0.0) -> ClockSettings:
        return cls("realtime", initial, increment)

    @classmethod
    def turn_based(cls, turn_limit: float | None = None) -> ClockSettings:
        return cls("turn_based", turn_limit=turn_limit)

    @classmethod
    def from_json(cls, data: Any) -> ClockSettings:
        """Settings from JSON such as {"kind": "realtime", "initial": 600, "increment": 5}
        or {"kind": "turn_based", "turn_limit": 259200}. `kind` is required, and
        `initial` for a realtime clock; the other keys may be left out. Raises ValueError
        for a value that is not an object, an unknown key, a missing key, a wrong type, a
        negative time or one over the maxima."""
        if not isinstance(data, Mapping):
            raise ValueError(f"clock settings must be a JSON object, not {_show(data)}")
        unknown = sorted(str(k) for k in data if k not in _KEYS)
        if unknown:
            raise ValueError(
                f"unknown clock setting(s): {', '.join(unknown)} (known: {', '.join(_KEYS)})"
            )
        if "kind" not in data:
            raise ValueError("clock settings need a 'kind': 'realtime' or 'turn_based'")
        kind = data["kind"]
        if kind not in KINDS:
            raise ValueError(f"clock kind must be 'realtime' or 'turn_based', not {_show(kind)}")
        if kind == "realtime" and "initial" not in data:
            raise ValueError("a realtime clock needs 'initial', its bank in seconds")
        initial = data.get("initial", 0.0)
        increment = data.get("increment", 0.0)
        turn_limit = data.get("turn_limit")
        _check_seconds("initial", initial)
        _check_seconds("increment", increment)
        if turn_limit is not None:
            _check_seconds("turn_limit", turn_limit)
        return cls(cast(ClockKind, kind), initial, increment, turn_limit)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "initial": self.initial,
            "increment": self.increment,
            "turn_limit": self.turn_limit,
        }


class GameClock:
    """The clocks of one table's seats (0..num_seats-1). See the module doc.

    Realtime: each seat has a bank; a running seat's bank goes down as `now()` advances.
    Turn-based: nothing is spent; the clock records when each running seat's turn began
    (`waiting_since`), and with a `turn_limit` a seat expires that long after.

    Restarts: `snapshot()` holds each seat's remaining time and how long each running seat
    has been waiting; `restore()` resumes from those values with the running seats running
    from the moment of the restore. Time between the snapshot and the restore (the rest of
    the turn before the server went down, and the downtime) is charged to nobody: the
    players did not cause it."""

    def __init__(
        self,
        settings: ClockSettings,
        num_seats: int,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(num_seats, int) or isinstance(num_seats, bool) or num_seats < 1:
            raise ValueError(f"a clock needs at least 1 seat, not {_show(num_seats)}")
        self.settings = settings
        self.num_seats = num_seats
        self._now = now
        # realtime: each seat's bank as of _charged_at (for running seats) or as stopped
        self._bank = [settings.initial] * num_seats
        self._charged_at: dict[int, float] = {}  # running seat -> now() when last charged
        self._turn_start: dict[int, float] = {}  # running seat -> now() its turn began

    # --- state ------------------------------------------------------------------------
    @property
    def realtime(self) -> bool:
        return self.settings.kind == "realtime"

    @property
    def running(self) -> frozenset[int]:
        """The seats whose clocks run now."""
        return frozenset(self._charged_at)

    # --- driving it -------------------------------------------------------------------
    def start(self, seats: Iterable[int]) -> None:
        """Run the clocks of exactly these seats (any number at once) and stop the others.
        Every seat that was running is charged its time so far; a seat that keeps running
        keeps its turn (its `waiting_since`), a seat that was stopped starts a new one."""
        wanted = self._seats(seats)
        t = self._now()
        for seat in list(self._charged_at):
            self._charge(seat, t)
            if seat not in wanted:
                del self._charged_at[seat]
                del self._turn_start[seat]
        for seat in wanted:
            if seat not in self._charged_at:
                self._charged_at[seat] = t
                self._turn_start[seat] = t

    def sync(self, current_seats: Iterable[int]) -> None:
        """Call after every accepted action with `state.current_seats()`: seats that are no
        longer current stop, newly current ones start. The same as `start`."""
        self.start(current_seats)

    def stop(self) -> None:
        """Stop every clock (the game is over or paused), charging the running seats."""
        self.start(())

    def on_moved(self, seat: int, turn_ended: bool) -> bool:
        """`seat` made a move: charge it the time since it was last charged and, when
        `turn_ended` (the caller decides: Coffee Rush at the end of a turn of several
        steps; Café when a seat has finished its round's actions, or after a draft pick),
        add the increment (realtime) and, if it still runs, begin its next turn (its
        `waiting_since` becomes now).

        Returns whether the move was in time: False when the seat's bank was used up
        (realtime) or its turn limit reached (turn-based) at the time of the move. A late
        seat's bank stays at 0 and gets no increment; what happens to it is the server's
        decision (it should check `expired()` before it accepts the move). A seat that was
        not running is charged nothing."""
        self._check_seat(seat)
        t = self._now()
        in_time = True
        if seat in self._charged_at:
            in_time = t < self._deadline(seat)
            self._charge(seat, t)
        if turn_ended:
            if self.realtime and in_time:
                self._bank[seat] += self.settings.increment
            if seat in self._turn_start:
                self._turn_start[seat] = t
        return in_time

    # --- reading it -------------------------------------------------------------------
    def remaining(self, seat: int) -> float:
        """Seconds the seat has left, live (counting its running time), never below 0.
        Realtime: its bank. Turn-based: what is left of its turn limit (the whole limit
        for a seat that is not running), `math.inf` without a limit."""
        self._check_seat(seat)
        return self._remaining(seat, self._now())

    def waiting_since(self, seat: int) -> float | None:
        """The `now()` time at which the seat's current turn began, None if it is not
        running."""
        self._check_seat(seat)
        return self._turn_start.get(seat)

    def waiting(self, seat: int) -> float:
        """How long the seat has had its current turn, in seconds (0 if not running)."""
        self._check_seat(seat)
        return self._waiting(seat, self._now())

    def expired(self) -> list[int]:
        """The running seats out of time (bank at or below 0, or turn limit reached),
        ascending."""
        t = self._now()
        return [s for s in sorted(self._charged_at) if t >= self._deadline(s)]

    def next_deadline(self) -> float | None:
        """The `now()` time at which the first running seat runs out (maybe in the past if
        one has run out already); None if no running seat can run out."""
        deadlines = [self._deadline(s) for s in self._charged_at]
        finite = [d for d in deadlines if math.isfinite(d)]
        return min(finite) if finite else None

    # --- saving it --------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The clock as JSON, for clients and for `restore`:

        - `settings`: `ClockSettings.to_json()`;
        - `server_time`: `now()` when taken (a clock's own time scale: use differences);
        - `running`: the running seats, ascending;
        - `remaining`: per seat, seconds left as in `remaining()` (never negative; None
          for a turn-based clock without a limit);
        - `waiting`: per seat, how long a running seat has had its turn, None for the
          others.
        """
        t = self._now()
        remaining: list[float | None] = []
        waiting: list[float | None] = []
        for seat in range(self.num_seats):
            r = self._remaining(seat, t)
            remaining.append(r if math.isfinite(r) else None)
            waiting.append(self._waiting(seat, t) if seat in self._charged_at else None)
        return {
            "settings": self.settings.to_json(),
            "server_time": t,
            "running": sorted(self._charged_at),
            "remaining": remaining,
            "waiting": waiting,
        }

    def restore(self, data: Mapping[str, Any]) -> None:
        """Resume from a `snapshot()` (stored before a restart): banks and turns as they
        were then, the running seats running from now. Time between the snapshot and now is
        not charged (see the class doc). `settings` and `server_time` in `data` are not
        read, except that `settings.kind`, if present, must match. Raises ValueError for
        data that does not fit this clock, and then changes nothing."""
        if not isinstance(data, Mapping):
            raise ValueError(f"a clock snapshot must be a JSON object, not {_show(data)}")
        settings = data.get("settings")
        kind = settings.get("kind") if isinstance(settings, Mapping) else None
        if kind is not None and kind != self.settings.kind:
            raise ValueError(
                f"the snapshot is of a {_show(kind)} clock, this clock is {self.settings.kind!r}"
            )
        running = data.get("running")
        if not isinstance(running, list):
            raise ValueError("a clock snapshot needs 'running', a list of seats")
        seats = self._seats(running)
        if len(seats) != len(running):
            raise ValueError(f"the running seats repeat a seat: {running}")
        remaining = self._per_seat(data, "remaining")
        waiting = self._per_seat(data, "waiting")
        banks = list(self._bank)
        if self.realtime:
            for seat, r in enumerate(remaining):
                if r is None:
                    raise ValueError(f"the remaining time of seat {seat} is missing")
                banks[seat] = r
        t = self._now()
        charged_at: dict[int, float] = {}
        turn_start: dict[int, float] = {}
        for seat in seats:
            charged_at[seat] = t
            turn_start[seat] = t - (waiting[seat] or 0.0)
        self._bank = banks
        self._charged_at = charged_at
        self._turn_start = turn_start

    def charge_running(self, seconds: float) -> None:
        """Charge every running seat `seconds` more, as if its clock had started that much
        earlier (a node that takes over a table charges the time since the clock was stored:
        the site kept running meanwhile)."""
        if seconds <= 0:
            return
        for seat in self._charged_at:
            self._charged_at[seat] -= seconds
            self._turn_start[seat] -= seconds

    # --- inside -----------------------------------------------------------------------
    def _charge(self, seat: int, t: float) -> None:
        if self.realtime:
            if t >= self._deadline(seat):
                self._bank[seat] = 0.0
            else:
                self._bank[seat] -= t - self._charged_at[seat]
        self._charged_at[seat] = t

    def _deadline(self, seat: int) -> float:
        """The `now()` time at which running `seat` runs out (inf if it cannot)."""
        if self.realtime:
            return self._charged_at[seat] + self._bank[seat]
        limit = self.settings.turn_limit
        return math.inf if limit is None else self._turn_start[seat] + limit

    def _remaining(self, seat: int, t: float) -> float:
        limit = self.settings.turn_limit
        if seat not in self._charged_at:
            if self.realtime:
                return max(0.0, self._bank[seat])
            return math.inf if limit is None else limit
        deadline = self._deadline(seat)
        if t >= deadline:
            return 0.0
        if self.realtime:
            return max(0.0, self._bank[seat] - (t - self._charged_at[seat]))
        return math.inf if limit is None else max(0.0, limit - (t - self._turn_start[seat]))

    def _waiting(self, seat: int, t: float) -> float:
        start = self._turn_start.get(seat)
        return 0.0 if start is None else max(0.0, t - start)

    def _check_seat(self, seat: object) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.num_seats:
            raise ValueError(f"there is no seat {_show(seat)} at a {self.num_seats}-seat clock")

    def _seats(self, seats: Iterable[object]) -> list[int]:
        out: list[int] = []
        for seat in seats:
            self._check_seat(seat)
            assert isinstance(seat, int)
            if seat not in out:
                out.append(seat)
        return sorted(out)

    def _per_seat(self, data: Mapping[str, Any], key: str) -> list[float | None]:
        values = data.get(key)
        if not isinstance(values, list) or len(values) != self.num_seats:
            raise ValueError(
                f"a clock snapshot needs {key!r}, a list of {self.num_seats} values "
                f"(one per seat), not {_show(values)}"
            )
        out: list[float | None] = []
        for seat, value in enumerate(values):
            if value is None:
                out.append(None)
                continue
            if not _is_number(value) or not _is_finite(value) or value < 0:
                raise ValueError(
                    f"{key} of seat {seat} must be a non-negative number of seconds, "
                    f"not {_show(value)}"
                )
            out.append(float(value))
        return out


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int too large for a float
        return False


def _check_seconds(key: str, value: object) -> None:
    if not _is_number(value):
        raise ValueError(f"{key} must be a number of seconds, not {_show(value)}")
    assert isinstance(value, int | float)
    if not _is_finite(value):
        raise ValueError(f"{key} must be a finite number of seconds, not {_show(value)}")
    if value < 0:
        raise ValueError(f"{key} must not be negative (got {value:g} s)")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = [
    "KINDS",
    "MAX_INCREMENT",
    "MAX_INITIAL",
    "MAX_TURN_LIMIT",
    "ClockKind",
    "ClockSettings",
    "GameClock",
]
