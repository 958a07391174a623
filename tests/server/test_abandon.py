"""Abandonment over real sockets, against a real server process on SQLite and PostgreSQL: the
offer after the table's limit, votes, each outcome applied once, a player who comes back,
and votes that are refused (docs/server-clocks-ratings.md, "Abandonment")."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.conftest import serve_on
from tests.server.live import Player, ServerProcess, Socket, play_out

pytestmark = pytest.mark.server

#: The table's limit in the tests: two seconds (the server lets creators go down to 1 s).
LIMIT = 2


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    extra_env = {"COFFEETABLE_ABANDON_MINIMUM": "1"}
    with serve_on(request.param, tmp_path_factory.mktemp("abandon"), extra_env=extra_env) as proc:
        yield proc


def _register(server: ServerProcess, stem: str) -> Player:
    player = Player(server)
    assert player.register(f"{stem}{random.Random().randrange(10**6)}").status_code == 200
    return player


class Table:
    """A started Coffee Rush table of registered people, each with a socket; the one to
    move first is `leaver`, whose socket is closed at once."""

    def __init__(self, server: ServerProcess, people: int, **extra: Any) -> None:
        self.players = [_register(server, f"p{i}") for i in range(people)]
        host = self.players[0]
        seats = [{"kind": "human"}] + [{"kind": "open"}] * (people - 1)
        table = host.create("coffee-rush", seats, abandon_after=LIMIT, **extra)
        self.id: str = table["id"]
        assert table["abandon_after"] == LIMIT and table["abandon"] is None
        for player in self.players[1:]:
            assert player.post(f"/api/tables/{self.id}/join").status_code == 200
        assert host.post(f"/api/tables/{self.id}/start").status_code == 200
        self.sockets = [p.socket(self.id) for p in self.players]
        for sock in self.sockets:
            sock.recv_until("snapshot")
        current = self.sockets[0].view["current_seats"]  # type: ignore[index]
        assert len(current) == 1
        self.leaver: int = current[0]
        self.sockets[self.leaver].close()
        self.others = [i for i in range(people) if i != self.leaver]

    def offer(self, at: int, timeout: float = LIMIT + 10) -> dict[str, Any]:
        """Wait at seat `at`'s socket for the offer about the leaver."""
        sock = self.sockets[at]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = sock.recv(max(0.01, deadline - time.monotonic()))
            if msg["type"] == "table" and msg["table"]["abandon"] is not None:
                offer: dict[str, Any] = msg["table"]["abandon"]
                return offer
        raise AssertionError("no offer came")

    def until_table(self, at: int, check: Any, timeout: float = 15) -> dict[str, Any]:
        sock = self.sockets[at]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = sock.recv(max(0.01, deadline - time.monotonic()))
            if msg["type"] == "table" and check(msg["table"]):
                table: dict[str, Any] = msg["table"]
                return table
        raise AssertionError("the table never came to that")

    def vote(self, at: int, choice: str, seat: int | None = None) -> None:
        self.sockets[at].send(
            {"type": "abandon", "seat": self.leaver if seat is None else seat, "vote": choice}
        )

    def state(self) -> dict[str, Any]:
        r = self.players[self.others[0]].http.get(f"/api/tables/{self.id}")
        assert r.status_code == 200
        table: dict[str, Any] = r.json()
        return table

    def close(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(Exception):
                sock.close()


def _error(sock: Socket) -> dict[str, Any]:
    return sock.recv_until("error", timeout=10)


def test_offer_after_the_limit_and_bot_majority(server: ServerProcess) -> None:
    table = Table(server, 3)
    try:
        started = time.monotonic()
        offer = table.offer(table.others[0])
        assert time.monotonic() - started >= LIMIT - 0.5  # not before the limit
        assert offer["seat"] == table.leaver
        assert offer["voters"] == table.others and offer["votes"] == {}
        first, second = table.others
        table.vote(first, "bot")
        votes = table.until_table(second, lambda t: t["abandon"] and t["abandon"]["votes"])
        assert votes["abandon"]["votes"] == {str(first): "bot"}
        assert not votes["seats"][table.leaver]["replaced"]  # one vote of two: not yet
        table.vote(second, "bot")
        after = table.until_table(first, lambda t: t["seats"][table.leaver]["replaced"])
        assert after["abandon"] is None and after["status"] == "running"
        assert after["seats"][table.leaver]["bot"] == "greedy"
        # the bot plays the seat: the game moves on without the leaver
        sock = table.sockets[first]
        version = sock.version
        deadline = time.monotonic() + 20
        while sock.version == version and time.monotonic() < deadline:
            sock.recv(20)
        assert sock.version > version
        # once: no second offer about the seat (a bot plays it), and a late vote is refused
        table.vote(second, "end")
        assert _error(table.sockets[second])["code"] == "no_offer"
        assert table.state()["status"] == "running"
    finally:
        table.close()


def test_wait_then_the_offer_comes_back(server: ServerProcess) -> None:
    table = Table(server, 2)
    try:
        (other,) = table.others
        table.offer(other)
        table.vote(other, "wait")
        waited = table.until_table(other, lambda t: t["abandon"] is None)
        assert not waited["seats"][table.leaver]["replaced"]
        started = time.monotonic()
        again = table.offer(other)  # after another limit
        assert time.monotonic() - started >= LIMIT - 0.5
        assert again["seat"] == table.leaver and again["votes"] == {}
    finally:
        table.close()


def test_a_tie_is_wait(server: ServerProcess) -> None:
    table = Table(server, 3)
    try:
        first, second = table.others
        table.offer(first)
        table.vote(first, "bot")
        table.vote(second, "end")
        after = table.until_table(first, lambda t: t["abandon"] is None)
        assert after["status"] == "running" and not after["seats"][table.leaver]["replaced"]
    finally:
        table.close()


def test_end_of_a_rated_game_the_leaver_loses(server: ServerProcess) -> None:
    table = Table(server, 2, rated=True)
    try:
        (other,) = table.others
        table.offer(other)
        table.vote(other, "end")
        ended = table.until_table(other, lambda t: t["status"] == "aborted")
        assert ended["result"] == {"abandoned": {"seat": table.leaver}}
        assert ended["abandon"] is None
        leaver, stayer = table.players[table.leaver], table.players[other]

        def rating(player: Player) -> dict[str, Any]:
            r = stayer.http.get(f"/api/users/{player.name}/ratings/coffee-rush")
            body: dict[str, Any] = r.json()
            return body

        deadline = time.monotonic() + 10  # the ratings are stored just after the end
        while rating(leaver)["games"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert rating(leaver)["rating"] == 1484.0 and rating(leaver)["games"] == 1
        assert rating(stayer)["rating"] == 1500.0 and rating(stayer)["games"] == 0
        # the game is over: nobody moves or votes any more
        table.sockets[other].act("end")
        assert _error(table.sockets[other])["code"] == "game_over"
        history = stayer.http.get(f"/api/users/{leaver.name}/games").json()
        row = next(g for g in history["games"] if g["table"] == table.id)
        assert row["status"] == "aborted" and row["abandoned_by"] == table.leaver
        assert row["replay"] is False and row["score"] is None
    finally:
        table.close()


def test_the_leaver_coming_back_withdraws_the_offer(server: ServerProcess) -> None:
    table = Table(server, 2)
    try:
        (other,) = table.others
        table.offer(other)
        back = table.players[table.leaver].socket(table.id)
        back.recv_until("snapshot")
        table.sockets[table.leaver] = back
        gone = table.until_table(other, lambda t: t["abandon"] is None)
        assert gone["status"] == "running" and not gone["seats"][table.leaver]["replaced"]
        # a vote on the withdrawn offer is refused
        table.vote(other, "bot")
        assert _error(table.sockets[other])["code"] == "no_offer"
        # and while they stay connected, nobody is asked again
        time.sleep(LIMIT + 1)
        table.sockets[other].drain(0.2)
        assert table.state()["abandon"] is None
    finally:
        table.close()


def test_bad_and_forged_votes_are_refused_and_change_nothing(server: ServerProcess) -> None:
    table = Table(server, 3)
    try:
        first, second = table.others
        table.offer(first)
        sock = table.sockets[first]
        bad: list[tuple[Any, str]] = [
            ({"type": "abandon", "seat": table.leaver, "vote": "maybe"}, "invalid"),
            ({"type": "abandon", "seat": str(table.leaver), "vote": "bot"}, "invalid"),
            ({"type": "abandon", "seat": table.leaver}, "invalid"),
            ({"type": "abandon", "seat": 9, "vote": "bot"}, "invalid"),
            ({"type": "abandon", "seat": -1, "vote": "bot"}, "invalid"),
            ({"type": "abandon", "seat": table.leaver, "vote": "bot", "x": 1}, "invalid"),
            ({"type": "abandon", "seat": True, "vote": "bot"}, "invalid"),
            ({"type": "abandon", "seat": second, "vote": "bot"}, "no_offer"),
            (json.dumps({"type": "abandon", "seat": 0, "vote": "b" * 20_000}), "too_large"),
        ]
        for message, code in bad:
            sock.send(message)
            assert _error(sock)["code"] == code, message
        # a spectator may not vote
        watcher = Player(server).guest().socket(table.id)
        watcher.recv_until("snapshot")
        watcher.send({"type": "abandon", "seat": table.leaver, "vote": "end"})
        assert _error(watcher)["code"] == "not_seated"
        watcher.close()
        # nothing changed: no vote counted
        assert table.state()["abandon"]["votes"] == {}
        # the leaver's own vote: their message shows they are back, and there is nothing
        # left to vote on
        back = table.players[table.leaver].socket(table.id)
        back.recv_until("snapshot")
        table.sockets[table.leaver] = back
        back.send({"type": "abandon", "seat": table.leaver, "vote": "wait"})
        assert _error(back)["code"] == "no_offer"
        assert table.state()["abandon"] is None
    finally:
        table.close()


def test_the_limit_is_checked_at_creation(server: ServerProcess) -> None:
    ana = _register(server, "lim")
    for value in (0, 0.5, -3, 15 * 24 * 3600, "soon", True):
        r = ana.post(
            "/api/tables",
            game="coffee-rush",
            seats=[{"kind": "human"}, {"kind": "open"}],
            abandon_after=value,
        )
        assert r.status_code in (400, 422), (value, r.text)
        assert r.json()["error"]["code"] in ("invalid_table", "invalid")
    # the default of each speed
    plain = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
    assert plain["abandon_after"] == 180
    slow = ana.create(
        "coffee-rush",
        [{"kind": "human"}, {"kind": "open"}],
        clock={"kind": "turn_based", "turn_limit": 3 * 86400},
    )
    assert slow["abandon_after"] == 86400


def test_a_seat_handed_to_a_bot_ranks_last_in_a_rated_game(server: ServerProcess) -> None:
    table = Table(server, 2, rated=True)
    try:
        (other,) = table.others
        table.offer(other)
        table.vote(other, "bot")
        table.until_table(other, lambda t: t["seats"][table.leaver]["replaced"])
        play_out([table.sockets[other]], random.Random(51))
        leaver, stayer = table.players[table.leaver], table.players[other]

        def rating(player: Player) -> dict[str, Any]:
            r = stayer.http.get(f"/api/users/{player.name}/ratings/coffee-rush")
            body: dict[str, Any] = r.json()
            return body

        deadline = time.monotonic() + 10
        while rating(leaver)["games"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        # whatever the bot scored for them, the leaver lost and the other won
        assert rating(leaver)["rating"] == 1484.0 and rating(stayer)["rating"] == 1516.0
    finally:
        table.close()
