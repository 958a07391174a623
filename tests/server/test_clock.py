"""Game clocks (coffeetable.server.clock), driven by a fake time source."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coffeetable.server.clock import (
    MAX_INCREMENT,
    MAX_INITIAL,
    MAX_TURN_LIMIT,
    ClockSettings,
    GameClock,
)

DAY = 24 * 3600.0


class FakeTime:
    """A `now()` that moves only when told."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> float:
        self.t += seconds
        return self.t


def realtime(
    initial: float, increment: float = 0.0, seats: int = 2, t: float = 1000.0
) -> tuple[GameClock, FakeTime]:
    now = FakeTime(t)
    return GameClock(ClockSettings.realtime(initial, increment), seats, now=now), now


# --- settings -------------------------------------------------------------------------------


def test_settings_json_round_trip() -> None:
    rt = ClockSettings.realtime(600, 5)
    assert rt == ClockSettings("realtime", 600.0, 5.0, None)
    assert rt.to_json() == {
        "kind": "realtime",
        "initial": 600.0,
        "increment": 5.0,
        "turn_limit": None,
    }
    assert ClockSettings.from_json(rt.to_json()) == rt
    assert ClockSettings.from_json(json.loads(json.dumps(rt.to_json()))) == rt
    tb = ClockSettings.turn_based(3 * DAY)
    assert tb.to_json() == {
        "kind": "turn_based",
        "initial": 0.0,
        "increment": 0.0,
        "turn_limit": 3 * DAY,
    }
    assert ClockSettings.from_json(tb.to_json()) == tb
    assert ClockSettings.from_json({"kind": "turn_based"}) == ClockSettings.turn_based(None)


def test_settings_from_minimal_json_and_ints() -> None:
    s = ClockSettings.from_json({"kind": "realtime", "initial": 300})
    assert s == ClockSettings.realtime(300.0, 0.0)
    assert isinstance(s.initial, float) and isinstance(s.increment, float)
    t = ClockSettings.from_json({"kind": "turn_based", "turn_limit": 86400, "initial": 0})
    assert t.turn_limit == 86400.0 and isinstance(t.turn_limit, float)


def test_settings_at_the_maxima_are_fine() -> None:
    ClockSettings.realtime(MAX_INITIAL, MAX_INCREMENT)
    ClockSettings.turn_based(MAX_TURN_LIMIT)
    assert (MAX_INITIAL, MAX_INCREMENT, MAX_TURN_LIMIT) == (DAY, 600.0, 14 * DAY)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([600, 5], r"must be a JSON object, not \[600, 5\]"),
        ("5+3", "must be a JSON object, not '5\\+3'"),
        ({"initial": 60}, "need a 'kind': 'realtime' or 'turn_based'"),
        ({"kind": "blitz", "initial": 60}, "kind must be 'realtime' or 'turn_based', not 'blitz'"),
        ({"kind": "realtime", "initial": 60, "bonus": 2}, r"unknown clock setting\(s\): bonus"),
        ({"kind": "realtime", "initial": 60, "b": 1, "a": 2}, r"setting\(s\): a, b \(known: kind"),
        ({"kind": "realtime"}, "a realtime clock needs 'initial'"),
        ({"kind": "realtime", "initial": "600"}, "initial must be a number of seconds, not '600'"),
        ({"kind": "realtime", "initial": True}, "initial must be a number of seconds, not True"),
        ({"kind": "realtime", "initial": None}, "initial must be a number of seconds, not None"),
        (
            {"kind": "realtime", "initial": 60, "increment": [1]},
            r"increment must be a number of seconds, not \[1\]",
        ),
        ({"kind": "realtime", "initial": math.nan}, "initial must be a finite number"),
        ({"kind": "realtime", "initial": math.inf}, "initial must be a finite number"),
        (
            {"kind": "realtime", "initial": 10**400},
            "initial must be a finite number of seconds, not 1000",
        ),
        ({"kind": "realtime", "initial": -60}, r"initial must not be negative \(got -60 s\)"),
        ({"kind": "realtime", "initial": 60, "increment": -1}, "increment must not be negative"),
        ({"kind": "realtime", "initial": 0}, "needs an initial bank of more than 0 seconds"),
        (
            {"kind": "realtime", "initial": DAY + 1},
            r"initial bank of 86401 s is more than the maximum of 86400 s \(24 hours\)",
        ),
        (
            {"kind": "realtime", "initial": 60, "increment": 601},
            r"increment of 601 s is more than the maximum of 600 s \(10 minutes\)",
        ),
        (
            {"kind": "realtime", "initial": 60, "turn_limit": 30},
            "a realtime clock has no turn_limit",
        ),
        (
            {"kind": "turn_based", "turn_limit": "3d"},
            "turn_limit must be a number of seconds, not '3d'",
        ),
        ({"kind": "turn_based", "turn_limit": -5}, "turn_limit must not be negative"),
        ({"kind": "turn_based", "turn_limit": 0}, "turn_limit must be more than 0 seconds"),
        (
            {"kind": "turn_based", "turn_limit": 15 * DAY},
            r"turn_limit of 1.296e\+06 s is more than the maximum of 1.2096e\+06 s \(14 days\)",
        ),
        ({"kind": "turn_based", "initial": 60}, "a turn_based clock has no bank"),
        ({"kind": "turn_based", "increment": 5}, "initial and increment must be 0"),
    ],
)
def test_settings_validation(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ClockSettings.from_json(data)


def test_settings_constructor_validates_too() -> None:
    with pytest.raises(ValueError, match="initial must not be negative"):
        ClockSettings.realtime(-1)
    with pytest.raises(ValueError, match="kind must be 'realtime' or 'turn_based'"):
        ClockSettings("fischer", 60)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="more than the maximum"):
        ClockSettings.turn_based(MAX_TURN_LIMIT * 2)


def test_clock_needs_seats() -> None:
    with pytest.raises(ValueError, match="at least 1 seat, not 0"):
        GameClock(ClockSettings.realtime(60), 0)


# --- realtime, one seat at a time -----------------------------------------------------------


def test_alternating_two_seats_with_increment() -> None:
    clock, now = realtime(60, 2)
    assert clock.remaining(0) == clock.remaining(1) == 60.0
    assert clock.running == frozenset()
    clock.start([0])
    assert clock.running == {0}
    now.advance(10)
    assert clock.remaining(0) == 50.0  # live
    assert clock.remaining(1) == 60.0
    assert clock.on_moved(0, turn_ended=True)
    clock.sync({1})
    assert clock.remaining(0) == 52.0  # 60 - 10 + 2
    assert clock.running == {1}
    now.advance(4.5)
    assert clock.remaining(0) == 52.0  # stopped
    assert clock.remaining(1) == 55.5
    clock.on_moved(1, turn_ended=True)
    clock.sync({0})
    assert clock.remaining(1) == 57.5
    now.advance(30)
    assert clock.remaining(0) == 22.0
    assert clock.next_deadline() == now.t + 22.0
    assert clock.expired() == []


def test_turn_of_several_steps_gets_one_increment() -> None:
    # Coffee Rush: one seat takes several steps; the increment comes when the turn ends
    clock, now = realtime(100, 10)
    clock.start({0})
    now.advance(3)
    clock.on_moved(0, turn_ended=False)
    clock.sync({0})
    assert clock.remaining(0) == 97.0
    now.advance(4)
    clock.on_moved(0, turn_ended=False)
    clock.sync({0})
    now.advance(5)
    clock.on_moved(0, turn_ended=True)
    clock.sync({1})
    assert clock.remaining(0) == 100 - 12 + 10


def test_start_and_sync_are_idempotent() -> None:
    clock, now = realtime(60)
    clock.start([0])
    now.advance(5)
    clock.sync([0])
    clock.sync(frozenset({0}))
    now.advance(5)
    assert clock.remaining(0) == 50.0
    assert clock.waiting(0) == 10.0  # still the same turn
    clock.start([0, 0])
    assert clock.running == {0}


def test_stop_charges_and_stops_everything() -> None:
    clock, now = realtime(60, seats=3)
    clock.start([0, 2])
    now.advance(7)
    clock.stop()
    now.advance(100)
    assert [clock.remaining(s) for s in range(3)] == [53.0, 60.0, 53.0]
    assert clock.running == frozenset()
    assert clock.expired() == []
    assert clock.next_deadline() is None


# --- realtime, simultaneous ------------------------------------------------------------------


def test_three_seats_run_together_and_finish_at_different_times() -> None:
    # Café's action phase: every seat may act at once; each finishes on its own
    clock, now = realtime(120, 5, seats=3)
    clock.start({0, 1, 2})
    assert clock.running == {0, 1, 2}
    now.advance(10)
    assert [clock.remaining(s) for s in range(3)] == [110.0, 110.0, 110.0]
    assert clock.next_deadline() == now.t + 110.0

    # seat 1 takes a step but has more to do this round: it keeps running
    clock.on_moved(1, turn_ended=False)
    clock.sync({0, 1, 2})
    now.advance(5)
    # seat 2 finishes its round's actions
    clock.on_moved(2, turn_ended=True)
    clock.sync({0, 1})
    assert clock.remaining(2) == 120 - 15 + 5
    assert clock.running == {0, 1}
    now.advance(20)
    # seat 0 finishes
    clock.on_moved(0, turn_ended=True)
    clock.sync({1})
    assert clock.remaining(0) == 120 - 35 + 5
    assert clock.remaining(2) == 110.0  # stopped since its turn ended
    now.advance(1)
    assert clock.remaining(1) == 120 - 36
    assert clock.waiting(1) == 36.0  # its turn began when the phase did
    clock.on_moved(1, turn_ended=True)
    # a new round: everybody again; the turns restart
    clock.sync({0, 1, 2})
    assert clock.remaining(1) == 120 - 36 + 5
    assert [clock.waiting(s) for s in range(3)] == [0.0, 0.0, 0.0]
    assert clock.next_deadline() == now.t + 89.0  # seat 1 has the least left


def test_sync_stops_a_seat_that_is_no_longer_current() -> None:
    clock, now = realtime(30, seats=3)
    clock.start({0, 1, 2})
    now.advance(4)
    clock.sync({0, 2})  # seat 1 dropped out without moving (e.g. it passed)
    now.advance(6)
    assert [clock.remaining(s) for s in range(3)] == [20.0, 26.0, 20.0]
    assert clock.waiting(1) == 0.0 and clock.waiting_since(1) is None


# --- running out ----------------------------------------------------------------------------


def test_a_seat_runs_out() -> None:
    clock, now = realtime(30, 3, seats=3)
    clock.start({0, 1, 2})
    now.advance(10)
    clock.on_moved(0, turn_ended=True)
    clock.sync({1, 2})  # 0: 23 left, stopped
    now.advance(5)
    clock.on_moved(2, turn_ended=True)
    clock.sync({1, 2})  # 2 moves on to another turn: 30 - 15 + 3 = 18
    deadline = clock.next_deadline()
    assert deadline == 1000.0 + 30.0  # seat 1 has run since 1000 with 30 s
    assert clock.expired() == []
    now.t = deadline - 1e-6
    assert clock.expired() == []
    assert clock.remaining(1) == pytest.approx(1e-6)
    now.t = deadline
    assert clock.expired() == [1]
    assert clock.remaining(1) == 0.0
    now.advance(100)
    assert clock.expired() == [1, 2]
    snap = clock.snapshot()
    assert snap["remaining"] == [23.0, 0.0, 0.0]  # never negative
    assert all(r >= 0 for r in snap["remaining"])
    assert clock.next_deadline() == deadline  # in the past: wake at once


def test_deadline_is_exact_with_awkward_floats() -> None:
    # 0.1 + 0.2 != 0.3: expired() must agree with next_deadline() to the last bit, or a
    # server that sleeps until the deadline would wake, see nothing and sleep again forever
    for start, bank, steps in [
        (0.1, 0.2, [0.05, 0.07]),
        (1e9 + 0.3, 0.7, [0.1] * 6),
        (3.3, 7.1, []),
    ]:
        now = FakeTime(start)
        clock = GameClock(ClockSettings.realtime(bank), 1, now=now)
        clock.start([0])
        for step in steps:
            now.advance(step)
            clock.on_moved(0, turn_ended=False)
            clock.sync([0])
        deadline = clock.next_deadline()
        assert deadline is not None
        assert deadline == pytest.approx(start + bank)
        now.t = math.nextafter(deadline, -math.inf)
        assert clock.expired() == []
        assert clock.remaining(0) > 0
        now.t = deadline
        assert clock.expired() == [0]
        assert clock.remaining(0) == 0.0


def test_a_late_move_is_reported_and_gets_no_increment() -> None:
    clock, now = realtime(10, 5)
    clock.start([0])
    now.advance(10)
    assert clock.expired() == [0]
    assert clock.on_moved(0, turn_ended=True) is False
    assert clock.remaining(0) == 0.0
    clock.sync([1])
    assert clock.remaining(0) == 0.0
    now.advance(12)
    assert clock.on_moved(1, turn_ended=True) is False
    assert clock.remaining(1) == 0.0


def test_a_move_just_in_time_gets_its_increment() -> None:
    clock, now = realtime(10, 5)
    clock.start([0])
    now.advance(9.5)
    assert clock.on_moved(0, turn_ended=True) is True
    assert clock.remaining(0) == 5.5


def test_a_seat_that_is_not_running_is_charged_nothing() -> None:
    clock, now = realtime(10, 5)
    clock.start([0])
    now.advance(3)
    assert clock.on_moved(1, turn_ended=False) is True
    assert clock.remaining(1) == 10.0


def test_bad_seats_are_refused() -> None:
    clock, _ = realtime(10)
    for call in (
        lambda: clock.start([2]),
        lambda: clock.sync({-1}),
        lambda: clock.on_moved(5, True),
        lambda: clock.remaining(2),
        lambda: clock.waiting_since(True),
    ):
        with pytest.raises(ValueError, match=r"there is no seat .* at a 2-seat clock"):
            call()
    assert clock.running == frozenset()


# --- snapshots and restarts -----------------------------------------------------------------


def test_snapshot_is_json_for_clients() -> None:
    clock, now = realtime(60, 2, seats=3)
    clock.start([2, 0])
    now.advance(12.5)
    snap = clock.snapshot()
    assert snap == {
        "settings": {"kind": "realtime", "initial": 60.0, "increment": 2.0, "turn_limit": None},
        "server_time": 1012.5,
        "running": [0, 2],
        "remaining": [47.5, 60.0, 47.5],
        "waiting": [12.5, None, 12.5],
    }
    assert json.loads(json.dumps(snap)) == snap


def test_restore_round_trip_and_downtime_is_not_charged() -> None:
    clock, now = realtime(60, 2, seats=3)
    clock.start([0, 1, 2])
    now.advance(10)
    clock.on_moved(1, turn_ended=True)
    clock.sync([0, 2])
    now.advance(5)
    stored = json.loads(json.dumps(clock.snapshot()))

    # the server goes down; a new process has its own monotonic time
    later = FakeTime(5.0)
    again = GameClock(ClockSettings.from_json(stored["settings"]), 3, now=later)
    again.restore(stored)
    assert again.running == {0, 2}
    resnap = again.snapshot()
    assert resnap["server_time"] == 5.0
    assert {k: v for k, v in resnap.items() if k != "server_time"} == {
        k: v for k, v in stored.items() if k != "server_time"
    }
    # it resumes where the snapshot left it: the downtime cost nobody anything
    assert [again.remaining(s) for s in range(3)] == [45.0, 52.0, 45.0]
    assert again.waiting_since(0) == 5.0 - 15.0
    later.advance(45)
    assert again.expired() == [0, 2]
    assert again.next_deadline() == 50.0


def test_restore_of_a_stopped_clock() -> None:
    clock, now = realtime(60)
    clock.start([0])
    now.advance(20)
    clock.stop()
    again, _ = realtime(60, t=0.0)
    again.restore(clock.snapshot())
    assert again.running == frozenset()
    assert again.remaining(0) == 40.0
    assert again.next_deadline() is None


def test_restore_of_an_expired_seat_expires_at_once() -> None:
    clock, now = realtime(10)
    clock.start([1])
    now.advance(30)
    again, _ = realtime(10)
    again.restore(clock.snapshot())
    assert again.expired() == [1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"running": None}, "needs 'running', a list of seats"),
        ({"running": [3]}, "there is no seat 3 at a 2-seat clock"),
        ({"running": [0, 0]}, r"repeat a seat: \[0, 0\]"),
        (
            {"remaining": [1.0]},
            r"needs 'remaining', a list of 2 values \(one per seat\), not \[1.0\]",
        ),
        ({"remaining": [1.0, -2.0]}, "remaining of seat 1 must be a non-negative number"),
        (
            {"remaining": [1.0, "x"]},
            "remaining of seat 1 must be a non-negative number of seconds, not 'x'",
        ),
        ({"remaining": [1.0, None]}, "remaining time of seat 1 is missing"),
        ({"waiting": "no"}, "needs 'waiting'"),
        ({"waiting": [math.inf, None]}, "waiting of seat 0 must be"),
        ({"waiting": [10**400, None]}, "waiting of seat 0 must be"),
        (
            {"settings": {"kind": "turn_based"}},
            "snapshot is of a 'turn_based' clock, this clock is 'realtime'",
        ),
    ],
)
def test_restore_validation_changes_nothing(change: dict[str, Any], message: str) -> None:
    clock, now = realtime(60)
    clock.start([0])
    now.advance(10)
    good = clock.snapshot()
    with pytest.raises(ValueError, match=message):
        clock.restore({**good, **change})
    assert clock.snapshot() == good
    with pytest.raises(ValueError, match="must be a JSON object"):
        clock.restore("{}")  # type: ignore[arg-type]


# --- turn-based -----------------------------------------------------------------------------


def test_turn_based_waiting_times() -> None:
    now = FakeTime(0.0)
    clock = GameClock(ClockSettings.turn_based(3 * DAY), 3, now=now)
    clock.start({0})
    assert clock.waiting_since(0) == 0.0
    assert clock.waiting_since(1) is None
    now.advance(DAY)
    assert clock.waiting(0) == DAY
    assert clock.remaining(0) == 2 * DAY
    assert clock.remaining(1) == 3 * DAY  # the whole limit waits for its turn
    assert clock.next_deadline() == 3 * DAY
    clock.on_moved(0, turn_ended=True)
    clock.sync({1, 2})  # a simultaneous phase
    now.advance(3600)
    assert clock.waiting(1) == clock.waiting(2) == 3600.0
    clock.on_moved(2, turn_ended=False)  # a step; the turn goes on
    clock.sync({1, 2})
    now.advance(3600)
    assert clock.waiting(2) == 7200.0
    assert clock.waiting_since(2) == DAY
    clock.on_moved(2, turn_ended=True)
    clock.sync({1})
    snap = clock.snapshot()
    assert snap["running"] == [1]
    assert snap["waiting"] == [None, 7200.0, None]
    assert snap["remaining"] == [3 * DAY, 3 * DAY - 7200.0, 3 * DAY]
    assert clock.expired() == []
    now.t = DAY + 3 * DAY
    assert clock.expired() == [1]
    assert clock.remaining(1) == 0.0
    assert clock.on_moved(1, turn_ended=True) is False


def test_turn_based_turn_restarts_for_a_seat_that_stays_current() -> None:
    # a solo game: seat 0 is always current; each finished turn starts the limit again
    now = FakeTime(0.0)
    clock = GameClock(ClockSettings.turn_based(100), 1, now=now)
    clock.start([0])
    now.advance(80)
    assert clock.on_moved(0, turn_ended=True)
    clock.sync([0])
    now.advance(80)
    assert clock.expired() == []
    assert clock.next_deadline() == 180.0


def test_turn_based_without_limit_never_expires() -> None:
    now = FakeTime(0.0)
    clock = GameClock(ClockSettings.turn_based(), 2, now=now)
    clock.start([1])
    now.advance(365 * DAY)
    assert clock.expired() == []
    assert clock.next_deadline() is None
    assert clock.remaining(1) == math.inf
    assert clock.waiting(1) == 365 * DAY
    snap = clock.snapshot()
    assert snap["remaining"] == [None, None]
    assert snap["waiting"] == [None, 365 * DAY]
    assert json.loads(json.dumps(snap)) == snap


def test_turn_based_restore_keeps_the_waiting_time() -> None:
    now = FakeTime(0.0)
    clock = GameClock(ClockSettings.turn_based(DAY), 2, now=now)
    clock.start([0])
    now.advance(3600)
    later = FakeTime(50.0)
    again = GameClock(ClockSettings.turn_based(DAY), 2, now=later)
    again.restore(clock.snapshot())
    assert again.waiting(0) == 3600.0
    assert again.waiting_since(0) == 50.0 - 3600.0
    assert again.next_deadline() == 50.0 - 3600.0 + DAY
    with pytest.raises(ValueError, match="snapshot is of a 'realtime' clock"):
        again.restore({**clock.snapshot(), "settings": {"kind": "realtime"}})


# --- a property: a seat's bank is its time minus the time it ran -----------------------------

STEP = st.tuples(
    st.floats(min_value=0, max_value=50, allow_nan=False),  # time passes
    st.sets(st.integers(0, 2)),  # the seats current after the action
    st.integers(0, 2),  # the seat that acted
    st.booleans(),  # whether its turn ended
)


@given(st.lists(STEP, max_size=30))
def test_property_bank_is_initial_plus_increments_minus_running_time(
    steps: list[tuple[float, set[int], int, bool]],
) -> None:
    initial, increment = 300.0, 3.0
    clock, now = realtime(initial, increment, seats=3)
    clock.start({0, 1, 2})
    running = {0, 1, 2}
    spent = [0.0, 0.0, 0.0]
    credited = [0.0, 0.0, 0.0]
    for dt, current, seat, ended in steps:
        now.advance(dt)
        for s in running:
            spent[s] += dt
        if any(initial + credited[s] - spent[s] <= 1e-6 for s in running):
            break  # someone ran out: the game would end here
        clock.on_moved(seat, turn_ended=ended)
        if ended:
            credited[seat] += increment
        clock.sync(current)
        running = set(current)
        snap = clock.snapshot()
        for s in range(3):
            assert clock.remaining(s) == pytest.approx(initial + credited[s] - spent[s])
            assert snap["remaining"][s] >= 0
        assert snap["running"] == sorted(running)
