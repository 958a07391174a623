"""The rules of abandonment (coffeetable.server.abandon), without a server."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from coffeetable.server import abandon
from coffeetable.server.storage import GameTable, Seat


def _table(seats: list[Seat], **extra: object) -> GameTable:
    return GameTable(
        id="t",
        game="coffee-rush",
        options={},
        seed=1,
        seats=tuple(seats),
        clock=None,
        rated=False,
        private=False,
        invite_token=None,
        status="running",
        version=3,
        created_by=1,
        created_at=datetime.now(UTC),
        started_at=None,
        finished_at=None,
        result=None,
        **extra,  # type: ignore[arg-type]
    )


PEOPLE = [Seat("human", user_id=i + 1) for i in range(4)]


@pytest.mark.parametrize(
    ("votes", "voters", "outcome"),
    [
        ({}, [1, 2, 3], None),
        ({"1": "bot"}, [1, 2, 3], None),
        ({"1": "bot", "2": "bot"}, [1, 2, 3], "bot"),
        ({"1": "end", "2": "end"}, [1, 2, 3], "end"),
        ({"1": "bot", "2": "end"}, [1, 2, 3], None),
        ({"1": "bot", "2": "end", "3": "wait"}, [1, 2, 3], "wait"),
        ({"1": "bot", "2": "end"}, [1, 2], "wait"),  # a tie
        ({"1": "end"}, [1], "end"),
        ({"1": "wait"}, [1], "wait"),
        ({"1": "bot", "3": "bot"}, [1, 2], None),  # seat 3 no longer votes
        ({"1": "nonsense"}, [1], None),
    ],
)
def test_tally(votes: dict[str, str], voters: list[int], outcome: str | None) -> None:
    assert abandon.tally(votes, voters) == outcome


def test_voters_are_the_other_people_who_still_play() -> None:
    seats = [*PEOPLE[:2], Seat("bot", bot="greedy"), Seat("human", user_id=9, bot="greedy")]
    assert abandon.voters(_table(seats), 0) == [1]
    assert abandon.voters(_table(PEOPLE), 2) == [0, 1, 3]


def test_limits() -> None:
    assert abandon.default_limit(None) == abandon.REALTIME_LIMIT == 180
    assert abandon.default_limit({"kind": "realtime", "initial": 60}) == 180
    assert abandon.default_limit({"kind": "turn_based", "turn_limit": None}) == 86400
    assert abandon.limit_of(_table(PEOPLE, abandon_after=600.0)) == 600
    assert abandon.check_limit(60) == 60.0
    for bad in (59.9, 15 * 86400, "60", True, None, float("nan")):
        with pytest.raises(ValueError, match="abandon_after"):
            abandon.check_limit(bad)


def test_the_state_moves_through_offer_votes_and_outcomes() -> None:
    table = _table(PEOPLE)
    assert abandon.offer_of(table) is None and abandon.public_json(table) is None
    table = _table(PEOPLE, abandonment=abandon.offered(table, 2, 100.0))
    assert abandon.public_json(table) == {"seat": 2, "at": 100.0, "voters": [0, 1, 3], "votes": {}}
    table = _table(PEOPLE, abandonment=abandon.voted(table, 0, "bot"))
    table = _table(PEOPLE, abandonment=abandon.voted(table, 0, "wait"))  # changed their mind
    assert abandon.offer_of(table) == {"seat": 2, "at": 100.0, "votes": {"0": "wait"}}
    waited = _table(PEOPLE, abandonment=abandon.decided(table, "wait", 200.0))
    assert abandon.offer_of(waited) is None and abandon.waited_at(waited, 2) == 200.0
    gone = _table(PEOPLE, abandonment=abandon.decided(table, "bot", 200.0))
    assert abandon.left_seats(gone) == [2] and abandon.waited_at(gone, 2) is None
    assert abandon.withdrawn(table) is None  # nothing else was in it
    assert abandon.withdrawn(waited) == {"offer": None, "waited": {"2": 200.0}, "left": []}
    with pytest.raises(ValueError, match="vote"):
        abandon.as_choice("maybe")
