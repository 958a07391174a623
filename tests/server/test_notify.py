"""Presence, "my games" and turn notifications against a real `coffeetable serve` on each
back end (SQLite, PostgreSQL), with mail sent to a real SMTP server (aiosmtpd) on loopback.

The server runs with short mail timings (a notification may be mailed 2 s after it was made,
digests looked for every 0.3 s, a digest "minute" of 0.1 s)."""

from __future__ import annotations

import asyncio
import contextlib
import email
import email.policy
import json
import os
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest
from aiosmtpd.controller import Controller
from websockets.sync.client import ClientConnection, connect

from coffeetable.server.auth import SESSION_COOKIE
from tests.server.conftest import REQUIRE_ENV, _drop_schema, _postgres_schema_url
from tests.server.live import Player, ServerProcess, free_port

pytestmark = pytest.mark.server

PUBLIC = "https://play.example"
MAIL_ENV = {
    "COFFEETABLE_MAIL_DELAY": "2",
    "COFFEETABLE_MAIL_EVERY": "0.3",
    "COFFEETABLE_MAIL_MINUTE": "0.1",
}


class Sink:
    """aiosmtpd's handler: keeps every message it is given."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], Message]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(
            (
                list(envelope.rcpt_tos),
                email.message_from_bytes(envelope.content, policy=email.policy.default),
            )
        )
        return "250 OK"

    def to(self, address: str) -> list[Message]:
        return [m for rcpt, m in self.messages if address in rcpt]

    def wait_for(self, address: str, count: int = 1, timeout: float = 15) -> list[Message]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.to(address)) >= count:
                return self.to(address)
            time.sleep(0.1)
        raise AssertionError(f"no mail to {address} (got {len(self.to(address))})")


class Site:
    def __init__(self, server: ServerProcess, sink: Sink, db_url: str) -> None:
        self.server, self.sink, self.db_url = server, sink, db_url

    def count_mail_events(self) -> int:
        if self.db_url.startswith("sqlite"):
            with contextlib.closing(sqlite3.connect(self.db_url.split("///", 1)[1])) as db:
                return int(db.execute("SELECT count(*) FROM mail_events").fetchone()[0])
        import asyncpg

        async def count() -> int:
            base, _, schema = self.db_url.partition("?schema=")
            conn = await asyncpg.connect(base.replace("postgresql+asyncpg", "postgresql"))
            try:
                return int(await conn.fetchval(f'SELECT count(*) FROM "{schema}".mail_events'))
            finally:
                await conn.close()

        return asyncio.run(count())


def _database(request: pytest.FixtureRequest, folder: Path) -> tuple[str, str]:
    if request.param == "sqlite":
        return f"sqlite:///{folder / 'coffeetable.db'}", ""
    url, base, reason = _postgres_schema_url()
    if url is None:
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"PostgreSQL is not reachable ({reason}), and {REQUIRE_ENV}=1")
        pytest.skip(f"PostgreSQL is not reachable ({reason})")
    return url, base


@contextlib.contextmanager
def _site(request: pytest.FixtureRequest, folder: Path, with_smtp: bool) -> Iterator[Site]:
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    db_url, base = _database(request, folder)
    args = ["--public-url", PUBLIC]
    if with_smtp:
        args += ["--smtp", f"smtp://127.0.0.1:{controller.port}", "--smtp-from", "ct@play.example"]
    proc = ServerProcess(db_url, folder / "server.log", extra_env=MAIL_ENV, extra_args=args)
    proc.start()
    try:
        yield Site(proc, sink, db_url)
    finally:
        proc.stop()
        controller.stop()
        log = proc.log_text()
        if base:
            _drop_schema(base, db_url)
        assert "Traceback" not in log, log[-5000:]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    with _site(request, tmp_path_factory.mktemp("mail"), with_smtp=True) as s:
        yield s


# ==== helpers =====================================================================================
class UserSocket:
    """A `/ws/user` channel."""

    def __init__(self, server: ServerProcess, token: str = "", hidden: bool = False) -> None:
        headers = {"Cookie": f"{SESSION_COOKIE}={token}"} if token else {}
        query = "?hidden=1" if hidden else ""
        self.ws: ClientConnection = connect(
            f"{server.ws_url}/ws/user{query}", additional_headers=headers, open_timeout=10
        ).__enter__()
        self.welcome = self.recv_until("welcome")

    def send(self, message: dict[str, Any] | str | bytes) -> None:
        self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    def recv(self, timeout: float = 10) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        return data

    def recv_until(self, kind: str, timeout: float = 10, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                return message

    def presence_of(self, name: str, state: str, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv_until("presence", max(0.01, deadline - time.monotonic()))
            info = message["users"].get(name)
            if info is not None and info["state"] == state:
                return info  # type: ignore[no-any-return]

    def quiet(self, seconds: float = 0.5) -> list[dict[str, Any]]:
        got = []
        with contextlib.suppress(TimeoutError):
            while True:
                got.append(self.recv(seconds))
        return got

    def close(self) -> None:
        self.ws.close()


def person(server: ServerProcess, prefix: str = "P") -> Player:
    player = Player(server)
    r = player.register(f"{prefix}{secrets.token_hex(4)}")
    assert r.status_code == 200, r.text
    return player


def set_mail(player: Player, address: str, **prefs: Any) -> dict[str, Any]:
    r = player.post("/api/me/settings", email=address, **prefs)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def cafe_table(host: Player, guest: Player, turn_based: bool = True) -> dict[str, Any]:
    """A started 2-seat Café table, `host` in seat 0 and `guest` in seat 1, at `host`'s move
    (the first player is drawn: if it is `guest`, they play their first turn)."""
    clock = {"kind": "turn_based"} if turn_based else None
    table = host.create("cafe", [{"kind": "human"}, {"kind": "open"}], clock=clock)
    r = guest.post(f"/api/tables/{table['id']}/join")
    assert r.status_code == 200, r.text
    r = host.post(f"/api/tables/{table['id']}/start")
    assert r.status_code == 200, r.text
    play_until_turn_passes(guest, table["id"])
    return table


def play_until_turn_passes(player: Player, table_id: str) -> None:
    """Play the player's moves at the table until it is no longer their move."""
    sock = player.socket(table_id)
    try:
        sock.recv_until("snapshot")
        for _ in range(20):
            if sock.seat not in (sock.view or {}).get("current_seats", []):
                return
            sock.act(sock.legal[0])
            reply = sock.recv_until("update")
            assert reply["type"] == "update"
        raise AssertionError("the turn did not pass")
    finally:
        sock.close()


# ==== presence ===================================================================================
def test_presence_online_away_offline_and_the_online_count(site: Site) -> None:
    server = site.server
    ana, bo = person(server, "Ana"), person(server, "Bo")
    before = httpx.get(f"{server.url}/api/online").json()["count"]
    watcher = UserSocket(server, bo.token)
    watcher.send({"type": "watch", "users": [ana.name, "nobody-at-all"]})
    first = watcher.recv_until("presence")
    assert first["users"][ana.name]["state"] == "offline"
    assert first["unknown"] == ["nobody-at-all"]
    tab = UserSocket(server, ana.token)
    assert tab.welcome["user"] == ana.name
    online = watcher.presence_of(ana.name, "online")
    assert online["since"] is not None
    assert httpx.get(f"{server.url}/api/online").json()["count"] == before + 2
    # every tab hidden: away; shown again: online
    tab.send({"type": "visibility", "hidden": True})
    watcher.presence_of(ana.name, "away")
    second_tab = UserSocket(server, ana.token, hidden=True)
    assert watcher.quiet(0.5) == [] or all(
        m["users"].get(ana.name, {}).get("state") != "online" for m in watcher.quiet(0.1)
    )
    second_tab.send({"type": "visibility", "hidden": False})
    watcher.presence_of(ana.name, "online")
    # over HTTP too
    states = httpx.get(f"{server.url}/api/presence", params={"users": ana.name}).json()
    assert states["users"][ana.name]["state"] == "online"
    # every tab closed: offline, since about now
    tab.close()
    second_tab.close()
    offline = watcher.presence_of(ana.name, "offline")
    assert offline["since"] is not None
    assert httpx.get(f"{server.url}/api/online").json()["count"] == before + 1
    watcher.close()


def test_a_logout_closes_the_user_channel_and_takes_presence_away(site: Site) -> None:
    server = site.server
    ana, bo = person(server, "Ana"), person(server, "Bo")
    watcher = UserSocket(server, bo.token)
    tab = UserSocket(server, ana.token)
    watcher.send({"type": "watch", "users": [ana.name]})
    watcher.presence_of(ana.name, "online")
    assert ana.post("/api/logout").status_code == 200
    with pytest.raises(Exception):  # noqa: B017 - the server closes it (4401)
        tab.recv_until("never", timeout=5)
    assert tab.ws.close_code == 4401
    watcher.presence_of(ana.name, "offline")
    watcher.close()


# ==== my games ===================================================================================
def test_my_games_your_move_first_and_only_your_own(site: Site) -> None:
    server = site.server
    ana, bo, cy = person(server, "Ana"), person(server, "Bo"), person(server, "Cy")
    mine = cafe_table(ana, bo)  # Ana's move (seat 0), the oldest
    theirs = cafe_table(bo, ana)  # Bo's move
    open_one = ana.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    listed = ana.http.get("/api/me/games").json()
    assert [t["id"] for t in listed] == [mine["id"], theirs["id"], open_one["id"]]
    assert [t["your_move"] for t in listed] == [True, False, False]
    assert listed[0]["my_seat"] == 0 and listed[1]["my_seat"] == 1
    assert listed[0]["turn_since"] is not None and listed[0]["time_left"] is None
    # Bo's view of the same tables: his move at his table first
    bo_list = bo.http.get("/api/me/games").json()
    assert [t["id"] for t in bo_list] == [theirs["id"], mine["id"]]
    # Cy has none; logged out: 401; no route lists another's games
    assert cy.http.get("/api/me/games").json() == []
    assert httpx.get(f"{server.url}/api/me/games").status_code == 401
    assert httpx.get(f"{server.url}/api/me/games", params={"user": ana.name}).status_code == 401
    # Ana moves: the table goes behind Bo's, where it is now... Bo's move at both
    play_until_turn_passes(ana, mine["id"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        listed = ana.http.get("/api/me/games").json()
        if not any(t["your_move"] for t in listed):
            break
        time.sleep(0.1)
    assert not any(t["your_move"] for t in listed)
    assert {t["id"] for t in bo.http.get("/api/me/games").json() if t["your_move"]} == {
        mine["id"],
        theirs["id"],
    }


def test_realtime_tables_show_the_time_left(site: Site) -> None:
    server = site.server
    ana, bo = person(server, "Ana"), person(server, "Bo")
    table = ana.create(
        "cafe",
        [{"kind": "human"}, {"kind": "open"}],
        clock={"kind": "realtime", "initial": 300, "increment": 5},
    )
    assert bo.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    play_until_turn_passes(bo, table["id"])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        row = ana.http.get("/api/me/games").json()[0]
        if row["your_move"]:
            break
        time.sleep(0.1)
    assert row["id"] == table["id"] and row["your_move"]
    assert 250 < row["time_left"] <= 300


# ==== notifications on the user channel ==========================================================
def _wait_my_move(player: Player, table_id: str, mine: bool, timeout: float = 10) -> None:
    """Wait until `player`'s "my games" says whether it is their move at `table_id`."""
    deadline = time.monotonic() + timeout
    while True:
        games = player.http.get("/api/me/games").json()
        if [g["your_move"] for g in games if g["id"] == table_id] == [mine]:
            return
        assert time.monotonic() < deadline, games
        time.sleep(0.05)


def test_the_user_channel_says_your_move_at_any_table(site: Site) -> None:
    server = site.server
    ana, bo = person(server, "Ana"), person(server, "Bo")
    table = cafe_table(bo, ana)  # Bo's move first
    # the notifier stores whose move it is off the moves' path: let Ana's first turn (if she
    # had one at the set-up) be stored before her channel's welcome reads it
    _wait_my_move(ana, table["id"], False)
    channel = UserSocket(server, ana.token)  # Ana in the lobby, at no table
    assert channel.welcome["your_move"] == []
    play_until_turn_passes(bo, table["id"])
    turn = channel.recv_until("turn", table=table["id"])
    assert turn["your_move"] is True and turn["game"] == "cafe"
    # a new channel starts with the list
    again = UserSocket(server, ana.token)
    assert again.welcome["your_move"] == [{"table": table["id"], "game": "cafe"}]
    play_until_turn_passes(ana, table["id"])
    assert channel.recv_until("turn", table=table["id"])["your_move"] is False
    channel.close()
    again.close()


# ==== mail ======================================================================================
def _body(message: Message) -> str:
    return str(message.get_content())  # type: ignore[attr-defined]


def test_your_move_mail_its_content_link_and_list_unsubscribe(site: Site) -> None:
    server, sink = site.server, site.sink
    ana, bo = person(server, "Ana"), person(server, "Bo")
    address = f"{ana.name.lower()}@example.org"
    settings = set_mail(ana, address)
    assert settings["email"] == address and settings["mail_available"] is True
    # the address is shown to its owner only
    assert address not in bo.http.get("/api/me/settings").text
    table = cafe_table(ana, bo)
    [mail] = sink.wait_for(address)
    assert mail["Subject"] == "Your move in Café"
    assert mail["From"] == "ct@play.example"
    body = _body(mail)
    assert f"{PUBLIC}/#/table/{table['id']}" in body
    assert f"Hello {ana.name}," in body
    unsubscribe = re.search(r"https://play\.example/#/unsubscribe/(\S+)", body)
    assert unsubscribe is not None
    header = mail["List-Unsubscribe"]
    assert header.startswith(f"<{PUBLIC}/api/unsubscribe/one-click?token=")
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # the header's token and the link's are the same one
    query = urlsplit(header.strip("<>")).query
    assert unquote(query.removeprefix("token=")) == unquote(unsubscribe.group(1))


def test_mail_in_the_users_language(site: Site) -> None:
    server, sink = site.server, site.sink
    ana, bo = person(server, "Ana"), person(server, "Bo")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address, language="pt")
    ended_too = set_mail(bo, f"{bo.name.lower()}@example.org", language="ru")
    assert ended_too["language"] == "ru"
    cafe_table(ana, bo)
    [mail] = sink.wait_for(address)
    assert mail["Subject"] == "É a sua vez em Café"
    assert mail["Content-Language"] == "pt"
    assert f"Olá, {ana.name}," in _body(mail)


def test_a_digest_gathers_several_turns_into_one_mail(site: Site) -> None:
    server, sink = site.server, site.sink
    ana = person(server, "Ana")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address, digest=60)  # at most one mail per 60 "minutes" (6 s here)
    first = cafe_table(ana, person(server, "Op"))
    [mail] = sink.wait_for(address)
    assert mail["Subject"] == "Your move in Café"
    started = time.monotonic()
    tables = [cafe_table(ana, person(server, "Op")) for _ in range(3)]
    assert time.monotonic() - started < 5, "too slow to make the turns within one interval"
    second = sink.wait_for(address, count=2)[1]
    assert second["Subject"] == "3 things waiting for you at coffeetable"
    body = _body(second)
    assert "It is your move at these 3 tables:" in body
    for table in tables:
        assert f"/#/table/{table['id']}" in body
    assert f"/#/table/{first['id']}" not in body
    time.sleep(1.0)
    assert len(sink.to(address)) == 2  # one mail for the three, not three


def test_a_move_made_before_the_mail_goes_takes_it_back(site: Site) -> None:
    server, sink = site.server, site.sink
    ana, bo = person(server, "Ana"), person(server, "Bo")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address)
    table = cafe_table(ana, bo)
    play_until_turn_passes(ana, table["id"])  # within the 2 s delay
    control = person(server, "Cy")
    control_address = f"{control.name.lower()}@example.org"
    set_mail(control, control_address)
    cafe_table(control, person(server, "Op"))
    sink.wait_for(control_address)  # the control's mail went: Ana's would have too
    time.sleep(2.5)
    assert sink.to(address) == []


def test_the_unsubscribe_link_works_logged_out_and_stops_mail(site: Site) -> None:
    server, sink = site.server, site.sink
    ana = person(server, "Ana")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address, digest=5)
    cafe_table(ana, person(server, "Op"))
    [mail] = sink.wait_for(address)
    token = unquote(re.search(r"/#/unsubscribe/(\S+)", _body(mail)).group(1))  # type: ignore[union-attr]
    # a forged or broken token: refused, nothing changes
    for bad in (token[:-2] + "xx", "u1.AAAA", "nonsense", token + "."):
        r = httpx.post(f"{server.url}/api/unsubscribe", json={"token": bad})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_token"
    assert ana.http.get("/api/me/settings").json()["mail"] is True
    r = httpx.post(f"{server.url}/api/unsubscribe", json={"token": token})  # no cookie
    assert r.status_code == 200 and r.json() == {"ok": True, "name": ana.name}
    assert ana.http.get("/api/me/settings").json()["mail"] is False
    # a new turn of Ana's: no mail, while a control's goes
    time.sleep(0.6)  # past the digest interval (5 "minutes" of 0.1 s)
    cafe_table(ana, person(server, "Op"))
    control = person(server, "Cy")
    control_address = f"{control.name.lower()}@example.org"
    set_mail(control, control_address)
    cafe_table(control, person(server, "Op"))
    sink.wait_for(control_address)
    time.sleep(1.0)
    assert len(sink.to(address)) == 1


def test_one_click_unsubscribe_as_mail_programs_post_it(site: Site) -> None:
    server, sink = site.server, site.sink
    ana = person(server, "Ana")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address)
    cafe_table(ana, person(server, "Op"))
    [mail] = sink.wait_for(address)
    url = mail["List-Unsubscribe"].strip("<>").replace(PUBLIC, server.url)
    r = httpx.post(
        url,
        content="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 200, r.text
    assert ana.http.get("/api/me/settings").json()["mail"] is False
    # the form body is accepted on that route only
    r = ana.http.post(
        "/api/me/settings",
        content="mail=true",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 415


@pytest.mark.slow  # a bot plays a whole game: 10-20 s
def test_the_game_ended_mail(site: Site) -> None:
    server, sink = site.server, site.sink
    ana = person(server, "Ana")
    address = f"{ana.name.lower()}@example.org"
    set_mail(ana, address, mail_your_move=False)
    table = ana.create(
        "cafe", [{"kind": "human"}, {"kind": "bot", "bot": "random"}], clock={"kind": "turn_based"}
    )
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    assert ana.post(f"/api/tables/{table['id']}/leave").status_code == 200  # a bot plays on
    [mail] = sink.wait_for(address, timeout=60)
    assert mail["Subject"] == "Your game of Café has ended"
    assert "This game has ended:" in _body(mail)
    assert re.search(r"you placed [12] of 2", _body(mail))


# ==== bad input ==================================================================================
def test_bad_settings_are_refused_and_change_nothing(site: Site) -> None:
    server = site.server
    ana = person(server, "Ana")
    set_mail(ana, "ana@example.org", digest=15)
    before = ana.http.get("/api/me/settings").json()
    bad: list[tuple[dict[str, Any], int, str]] = [
        ({"email": "not an address"}, 400, "invalid_email"),
        ({"email": "a@b@c"}, 400, "invalid_email"),
        ({"email": "x" * 300 + "@example.org"}, 422, "invalid"),
        ({"language": "xx"}, 400, "invalid"),
        ({"digest": 7}, 400, "invalid"),
        ({"digest": "60"}, 422, "invalid"),
        ({"sound": "yes"}, 422, "invalid"),
        ({"unknown": 1}, 422, "invalid"),
        # an address mail cannot carry as it is (SMTPUTF8 is not assumed): refused here, not
        # left to stall the digests later
        ({"email": "josé@example.org"}, 400, "invalid_email"),
    ]
    for body, status, code in bad:
        r = ana.post("/api/me/settings", **body)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), (body, r.text)
    assert ana.http.get("/api/me/settings").json() == before
    # nobody logged in; a guest may not have an address
    assert httpx.post(f"{server.url}/api/me/settings", json={"sound": True}).status_code == 401
    assert httpx.get(f"{server.url}/api/me/settings").status_code == 401
    guest = Player(server).guest()
    r = guest.post("/api/me/settings", email="g@example.org")
    assert r.status_code == 403 and r.json()["error"]["code"] == "guest"
    assert guest.http.get("/api/me/settings").json()["email"] is None
    # other routes
    assert httpx.post(f"{server.url}/api/unsubscribe/one-click").status_code == 422
    assert httpx.post(f"{server.url}/api/unsubscribe", json={"token": ""}).status_code == 422
    # digits that are not ASCII digits ("²".isdigit() is true) are no user id: refused, no 500
    for token in ("u².AAAA", "u١٢.AAAA"):
        r = httpx.post(f"{server.url}/api/unsubscribe", json={"token": token})
        assert r.status_code in (400, 404), (token, r.status_code, r.text)
        r = httpx.post(f"{server.url}/api/unsubscribe/one-click", params={"token": token})
        assert r.status_code in (400, 404), (token, r.status_code, r.text)
    assert (
        httpx.get(f"{server.url}/api/presence", params={"users": ",".join("a" * 33)}).status_code
        == 400
    )
    assert httpx.get(f"{server.url}/api/presence").status_code == 422


def test_bad_user_channel_messages_get_errors_and_change_nothing(site: Site) -> None:
    server = site.server
    ana, bo = person(server, "Ana"), person(server, "Bo")
    watcher = UserSocket(server, bo.token)
    watcher.send({"type": "watch", "users": [ana.name]})
    watcher.presence_of(ana.name, "offline")
    tab = UserSocket(server, ana.token)
    watcher.presence_of(ana.name, "online")
    cases: list[tuple[Any, str]] = [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        (b"\x00\x01", "bad_json"),
        ({"type": "dance"}, "unknown_type"),
        ({"hidden": True}, "unknown_type"),
        ({"type": "visibility", "hidden": "yes"}, "invalid"),
        ({"type": "visibility", "hidden": True, "extra": 1}, "invalid"),
        ({"type": "watch", "users": ["a"] * 33}, "invalid"),
        ({"type": "watch", "users": ["x" * 41]}, "invalid"),
        ({"type": "watch", "users": "ana"}, "invalid"),
        ({"type": "visibility", "hidden": True, "pad": "x" * 20000}, "too_large"),
    ]
    for message, code in cases:
        tab.send(message)
        reply = tab.recv_until("error")
        assert reply["code"] == code, (message, reply)
    # none of it made Ana away
    assert all(
        m.get("users", {}).get(ana.name, {}).get("state") != "away" for m in watcher.quiet(0.5)
    )
    # without a login the channel watches and counts, but is nobody's presence
    anonymous = UserSocket(server)
    assert anonymous.welcome["user"] is None and anonymous.welcome["your_move"] == []
    anonymous.send({"type": "visibility", "hidden": True})
    assert anonymous.recv_until("error")["code"] == "not_seated"
    anonymous.send({"type": "ping", "ref": "r1"})
    assert anonymous.recv_until("pong")["ref"] == "r1"
    for sock in (tab, watcher, anonymous):
        sock.close()


# ==== without --smtp ==============================================================================
@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def quiet_site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    with _site(request, tmp_path_factory.mktemp("nomail"), with_smtp=False) as s:
        yield s


def test_nothing_is_mailed_without_smtp(quiet_site: Site) -> None:
    server, sink = quiet_site.server, quiet_site.sink
    ana, bo = person(server, "Ana"), person(server, "Bo")
    assert set_mail(ana, "ana@example.org")["mail_available"] is False
    set_mail(bo, "bo@example.org")
    table = cafe_table(ana, bo)
    play_until_turn_passes(ana, table["id"])
    time.sleep(3)
    assert sink.messages == []
    assert quiet_site.count_mail_events() == 0
    # the page notifications still work
    assert any(t["your_move"] for t in bo.http.get("/api/me/games").json())


def test_a_friends_invitation_on_the_channel_and_by_mail(site: Site) -> None:
    """An invitation to a private table (friends.py) reaches the friend's own channel at once
    and their next mail, whose link carries the table's invite; a friend request reaches the
    channel too (no mail)."""
    server, sink = site.server, site.sink
    ana, bo = person(server, "Ana"), person(server, "Bo")
    address = f"{bo.name.lower()}@example.org"
    set_mail(bo, address)
    channel = UserSocket(server, bo.token)
    try:
        assert ana.post(f"/api/friends/{bo.name}").status_code == 200
        news = channel.recv_until("friend")
        assert (news["kind"], news["by"]) == ("request", ana.name)
        assert bo.post(f"/api/friends/{ana.name}").json()["state"] == "friend"
        table = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}], private=True)
        r = ana.post(f"/api/tables/{table['id']}/invite", name=bo.name)
        assert r.json() == {"invited": True}
        invited = channel.recv_until("invitation")
        assert (invited["table"], invited["game"], invited["by"]) == (
            table["id"],
            "coffee-rush",
            ana.name,
        )
        [mail] = sink.wait_for(address)
        assert mail["Subject"] == f"{ana.name} invites you to a game of Coffee Rush"
        assert f"{PUBLIC}/#/table/{table['id']}?invite={table['invite']}" in _body(mail)
    finally:
        channel.close()
