"""Abandonment: the rules, without I/O (docs/server-clocks-ratings.md, "Abandonment").

A person to move who shows no sign of life for longer than the table allows (its
`abandon_after`, or the default of its speed) is offered to the other people at the table:
each votes "bot" (a bot plays the seat from now on), "wait" (ask again after another limit)
or "end" (the game ends as abandoned). The majority of the other people decides; a tie, or
all votes in without a majority, is "wait".

A table's abandonment state is one JSON object, stored with the table
(`GameTable.abandonment`) and changed only with the table's compare-and-swap:

    {"offer": {"seat": 2, "at": 1764230000.0, "votes": {"0": "bot", "1": "end"}} | null,
     "waited": {"2": 1764230100.0},      # when each seat's last offer ended with "wait"
     "left": [2]}                        # seats the others handed to a bot

Times are Unix times (`time.time()`): they are compared by whichever node holds the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from coffeetable.server.storage import GameTable, Seat

Choice = Literal["bot", "wait", "end"]
CHOICES: tuple[Choice, ...] = ("bot", "wait", "end")

#: Realtime tables and tables without a clock: three minutes without a sign of life on
#: one's turn. A realtime game is played in one sitting; a player whose page is closed for
#: three minutes has most likely gone, and the others are sitting there waiting.
REALTIME_LIMIT = 180.0
#: Turn-based tables: a day without a sign of life on one's turn. People come back to
#: correspondence games once or twice a day; a day is one missed visit.
TURN_BASED_LIMIT = 24 * 3600.0
#: What a table's creator may choose (`abandon_after`): one minute to 14 days.
MIN_LIMIT = 60.0
MAX_LIMIT = 14 * 24 * 3600.0


def default_limit(clock: Mapping[str, Any] | None) -> float:
    """The limit of a table of this clock's speed."""
    if clock is not None and clock.get("kind") == "turn_based":
        return TURN_BASED_LIMIT
    return REALTIME_LIMIT


def limit_of(meta: GameTable) -> float:
    """The table's limit in seconds: its own, or its speed's default."""
    return meta.abandon_after if meta.abandon_after is not None else default_limit(meta.clock)


def check_limit(value: object, minimum: float = MIN_LIMIT) -> float:
    """A creator's `abandon_after`, checked: seconds between `minimum` and `MAX_LIMIT`.
    ValueError saying what is wrong."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"abandon_after must be a number of seconds, not {value!r}")
    if not minimum <= float(value) <= MAX_LIMIT:
        raise ValueError(
            f"abandon_after must be between {minimum:g} s and {MAX_LIMIT:g} s (14 days), "
            f"not {value:g}"
        )
    return float(value)


def plays_itself(seat: Seat) -> bool:
    """A person who still plays their seat (no bot took it over)."""
    return seat.kind == "human" and seat.user_id is not None and seat.bot is None


def voters(meta: GameTable, leaver: int) -> list[int]:
    """The seats that vote on `leaver`: every other person who still plays their seat."""
    return [i for i, s in enumerate(meta.seats) if i != leaver and plays_itself(s)]


def state_of(meta: GameTable) -> dict[str, Any]:
    """The table's abandonment state, a fresh copy (empty parts filled in)."""
    raw = meta.abandonment or {}
    offer = raw.get("offer")
    return {
        "offer": (
            {
                "seat": int(offer["seat"]),
                "at": float(offer["at"]),
                "votes": {str(k): str(v) for k, v in (offer.get("votes") or {}).items()},
            }
            if isinstance(offer, Mapping)
            else None
        ),
        "waited": {str(k): float(v) for k, v in (raw.get("waited") or {}).items()},
        "left": [int(s) for s in raw.get("left") or []],
    }


def offer_of(meta: GameTable) -> dict[str, Any] | None:
    """The open offer ({seat, at, votes}), if any."""
    if not meta.abandonment or not meta.abandonment.get("offer"):
        return None  # the usual case, on every move: nothing to read
    offer: dict[str, Any] | None = state_of(meta)["offer"]
    return offer


def left_seats(meta: GameTable) -> list[int]:
    """The seats the others handed to a bot by their vote (they rank last in the ratings)."""
    seats: list[int] = state_of(meta)["left"]
    return seats


def waited_at(meta: GameTable, seat: int) -> float | None:
    """When the last offer about `seat` ended with "wait" (a Unix time), if one did."""
    waited: dict[str, float] = state_of(meta)["waited"]
    return waited.get(str(seat))


def offered(meta: GameTable, seat: int, now: float) -> dict[str, Any]:
    """The state with a new offer about `seat`."""
    state = state_of(meta)
    state["offer"] = {"seat": seat, "at": now, "votes": {}}
    return state


def voted(meta: GameTable, seat: int, choice: Choice) -> dict[str, Any]:
    """The state with `seat`'s vote on the open offer (a second vote replaces the first)."""
    state = state_of(meta)
    assert state["offer"] is not None
    state["offer"]["votes"][str(seat)] = choice
    return state


def withdrawn(meta: GameTable) -> dict[str, Any] | None:
    """The state without the open offer (the person came back, moved, or nobody is left to
    vote); None when nothing else is left in it."""
    state = state_of(meta)
    state["offer"] = None
    return state if state["waited"] or state["left"] else None


def decided(meta: GameTable, outcome: Choice, now: float) -> dict[str, Any]:
    """The state after the open offer was decided: the offer gone, and for "wait" the time
    the next limit counts from, for "bot" the seat among those that left."""
    state = state_of(meta)
    offer = state["offer"]
    assert offer is not None
    seat = offer["seat"]
    state["offer"] = None
    if outcome == "wait":
        state["waited"][str(seat)] = now
    elif outcome == "bot" and seat not in state["left"]:
        state["left"].append(seat)
    return state


def tally(votes: Mapping[str, str], seats: list[int]) -> Choice | None:
    """The outcome of the votes of `seats` (the voters now; other votes do not count):
    a choice more than half of them made; "wait" when every one has voted without such a
    majority (a tie); None while it is still open."""
    counted = [votes[str(s)] for s in seats if str(s) in votes and votes[str(s)] in CHOICES]
    for choice in CHOICES:
        if counted.count(choice) * 2 > len(seats):
            return choice
    if seats and len(counted) == len(seats):
        return "wait"
    return None


def public_json(meta: GameTable) -> dict[str, Any] | None:
    """What every client of the table sees of an open offer: the seat, when it was made,
    who may vote and how each has voted so far."""
    offer = offer_of(meta)
    if offer is None:
        return None
    return {
        "seat": offer["seat"],
        "at": offer["at"],
        "voters": voters(meta, offer["seat"]),
        "votes": dict(offer["votes"]),
    }


def as_choice(value: str) -> Choice:
    for choice in CHOICES:
        if value == choice:
            return choice
    raise ValueError(f"a vote is one of {', '.join(CHOICES)}, not {value!r}")
