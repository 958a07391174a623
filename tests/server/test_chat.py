"""Chat and moderation against a real server process, on SQLite and on PostgreSQL: table
chat for players and spectators, the lobby's chat, quick messages, lengths, rate limits,
mutes, blocks, reports, the admin's routes and suspensions (docs/server.md,
docs/server-protocol.md)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from coffeetable.server.auth import SESSION_COOKIE
from tests.server.live import Player, ServerProcess, Socket, play_out

pytestmark = pytest.mark.server


def _error(r: httpx.Response) -> tuple[int, str]:
    body = r.json()
    assert set(body) == {"error"}, body
    return r.status_code, body["error"]["code"]


def _next(socket: Socket, kind: str, timeout: float = 10) -> dict[str, Any]:
    """The next message of that type (others are kept in `received`)."""
    return socket.recv_until(kind, timeout)


def _quiet(socket: Socket, kind: str = "chat", wait: float = 0.4) -> list[dict[str, Any]]:
    """The messages of that type that arrive within `wait` seconds."""
    start = len(socket.received)
    socket.drain(wait)
    return [m for m in socket.received[start:] if m["type"] == kind]


def _say(socket: Socket, text: str | None = None, **extra: Any) -> None:
    message: dict[str, Any] = {"type": "chat", **extra}
    if text is not None:
        message["text"] = text
    socket.send(message)


def _table(player: Player, **extra: Any) -> dict[str, Any]:
    return player.create("cafe", [{"kind": "human"}, {"kind": "open"}], **extra)


def _lobby(player: Player | None, server: ServerProcess) -> ClientConnection:
    headers = {"Cookie": f"{SESSION_COOKIE}={player.token}"} if player else {}
    return connect(f"{server.ws_url}/ws/lobby", additional_headers=headers, open_timeout=10)


def _lobby_until(ws: ClientConnection, kind: str, timeout: float = 10) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        message: dict[str, Any] = json.loads(
            ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        )
        if message["type"] == kind:
            return message


def _grant_admin(server: ServerProcess, name: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "coffeetable", "admin", "grant", name, "--db", server.db_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "now an admin" in out.stdout


def _registered(server: ServerProcess, prefix: str) -> Player:
    player = Player(server)
    name = f"{prefix}{random.randrange(10**6)}"
    r = player.register(name)
    assert r.status_code == 200, r.text
    return player


# ==== table chat ==============================================================================
def test_players_and_spectators_chat_both_ways_and_spectators_are_marked(
    server: ServerProcess,
) -> None:
    ana, ben = Player(server).guest(), Player(server).guest()
    table = _table(ana)
    ana_ws = ana.socket(table["id"])
    ben_ws = ben.socket(table["id"])  # not seated: a spectator
    for ws in (ana_ws, ben_ws):
        assert _next(ws, "snapshot")["chat"] == []
    _say(ana_ws, "hello, anyone <b>here</b>?")
    for ws in (ana_ws, ben_ws):
        line = _next(ws, "chat")["line"]
        assert line["user"] == ana.name and line["seat"] == 0 and line["spectator"] is False
        assert line["text"] == "hello, anyone <b>here</b>?"  # as said: clients insert text
    _say(ben_ws, preset="good_luck")
    for ws in (ana_ws, ben_ws):
        line = _next(ws, "chat")["line"]
        assert line["user"] == ben.name and line["spectator"] is True and line["seat"] is None
        assert line["preset"] == "good_luck" and line["text"] is None
    # a later socket gets both in its history, oldest first
    again = ben.socket(table["id"])
    history = _next(again, "snapshot")["chat"]
    assert [(x["user"], x["text"], x["preset"]) for x in history] == [
        (ana.name, "hello, anyone <b>here</b>?", None),
        (ben.name, None, "good_luck"),
    ]
    # and the HTTP history says the same
    lines = ana.http.get(f"/api/tables/{table['id']}/chat").json()["lines"]
    assert [x["id"] for x in lines] == [x["id"] for x in history]
    for ws in (ana_ws, ben_ws, again):
        ws.close()


def test_a_line_is_normalised_and_bounded(server: ServerProcess) -> None:
    ana = Player(server).guest()
    table = _table(ana)
    ws = ana.socket(table["id"])
    _next(ws, "snapshot")
    _say(ws, "  good \n\n move\t ")
    assert _next(ws, "chat")["line"]["text"] == "good move"
    _say(ws, "x" * 500)
    assert _next(ws, "chat")["line"]["text"] == "x" * 500
    _say(ws, "👩\u200d👩\u200d👧 e\u0301")  # joiners and combining marks are text
    assert _next(ws, "chat")["line"]["text"] == "👩\u200d👩\u200d👧 é"  # (NFC)
    ws.close()


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "chat", "text": "y" * 501}, "chat_too_long"),
        ({"type": "chat", "text": "   \n\t "}, "chat_text"),
        ({"type": "chat", "text": "ring \x07 bell"}, "chat_text"),
        ({"type": "chat", "text": "abc\u202edcba"}, "chat_text"),
        ({"type": "chat", "text": "zero\u200bwidth"}, "chat_text"),
        ({"type": "chat"}, "invalid"),
        ({"type": "chat", "text": "hi", "preset": "thanks"}, "invalid"),
        ({"type": "chat", "preset": "buy cheap gold"}, "invalid"),
        ({"type": "chat", "text": 42}, "invalid"),
        ({"type": "chat", "text": "hi", "colour": "red"}, "invalid"),
        ({"type": "chat", "text": "z" * 5000}, "invalid"),
        ({"type": "chat", "text": "z" * 17000}, "too_large"),
    ],
)
def test_bad_chat_messages_get_a_clear_error_and_change_nothing(
    server: ServerProcess, message: dict[str, Any], code: str
) -> None:
    ana, ben = Player(server).guest(), Player(server).guest()
    table = _table(ana)
    ana_ws, ben_ws = ana.socket(table["id"]), ben.socket(table["id"])
    for ws in (ana_ws, ben_ws):
        _next(ws, "snapshot")
    ana_ws.send({**message, "ref": "r1"} if code != "too_large" else message)
    error = _next(ana_ws, "error")
    assert error["code"] == code and error["message"]
    if code.startswith("chat_"):  # the message was read: its ref comes back
        assert error["ref"] == "r1"
    assert _quiet(ben_ws) == []  # nobody was told anything
    assert ana.http.get(f"/api/tables/{table['id']}/chat").json()["lines"] == []
    ana_ws.close()
    ben_ws.close()


def test_a_spectator_who_is_not_logged_in_reads_but_cannot_chat(server: ServerProcess) -> None:
    ana = Player(server).guest()
    table = _table(ana)
    nobody = Player(server)
    watcher, ana_ws = nobody.socket(table["id"]), ana.socket(table["id"])
    _next(watcher, "snapshot")
    _say(watcher, "hi")
    assert _next(watcher, "error")["code"] == "login"
    _say(ana_ws, preset="hello")
    assert _next(watcher, "chat")["line"]["preset"] == "hello"
    assert len(ana.http.get(f"/api/tables/{table['id']}/chat").json()["lines"]) == 1
    watcher.close()
    ana_ws.close()


def test_chat_is_rate_limited_per_user_across_sockets(server: ServerProcess) -> None:
    ana = Player(server).guest()
    first, second = _table(ana), _table(ana)
    one, two = ana.socket(first["id"]), ana.socket(second["id"])
    for i in range(8):  # the burst (COFFEETABLE_CHAT_BURST, 8 by default)
        _say(one if i % 2 else two, f"line {i}")
    said = [_next(one, "chat") for _ in range(4)] + [_next(two, "chat") for _ in range(4)]
    assert len(said) == 8
    _say(one, "one too many")
    error = _next(one, "error")
    assert error["code"] == "rate_limited" and "wait" in error["message"]
    lines = ana.http.get(f"/api/tables/{first['id']}/chat").json()["lines"]
    assert "one too many" not in [x["text"] for x in lines] and len(lines) == 4
    one.close()
    two.close()


def test_chat_never_reaches_the_record_the_log_or_the_replay_views(server: ServerProcess) -> None:
    ana, ben = Player(server).guest(), Player(server).guest()
    table = ana.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
    assert ben.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
    sockets = [ana.socket(table["id"]), ben.socket(table["id"])]
    for s in sockets:
        s.recv_until("snapshot")
    _say(sockets[0], "SECRET-WORDS-BEFORE")
    _next(sockets[1], "chat")
    rng = random.Random(38)
    mover = next(s for s in sockets if s.legal)
    mover.act(rng.choice(mover.legal))
    _next(sockets[0], "update")
    _say(sockets[1], "SECRET-WORDS-AFTER")
    _next(sockets[0], "chat")
    play_out(sockets, rng)
    record = ana.http.get(f"/api/tables/{table['id']}/record")
    log = ana.http.get(f"/api/tables/{table['id']}/log")
    replay = ana.http.get(f"/api/tables/{table['id']}/replay/1")
    for answer in (record, log, replay):
        assert answer.status_code == 200
        assert "SECRET-WORDS" not in answer.text
    lines = ana.http.get(f"/api/tables/{table['id']}/chat").json()["lines"]
    assert [(x["text"], x["moves"]) for x in lines] == [
        ("SECRET-WORDS-BEFORE", 0),
        ("SECRET-WORDS-AFTER", 1),
    ]
    # blocked since: no rematch seats them together again
    assert ana.post(f"/api/users/{ben.name}/block").status_code == 200
    assert _error(ben.post(f"/api/tables/{table['id']}/rematch")) == (403, "blocked")
    assert _error(ana.post(f"/api/tables/{table['id']}/rematch")) == (403, "blocked")
    for s in sockets:
        s.close()


def test_a_private_tables_chat_is_for_its_players_and_invitees(server: ServerProcess) -> None:
    ana, eve = Player(server).guest(), Player(server).guest()
    table = _table(ana, private=True)
    ws = ana.socket(table["id"])
    _say(ws, "just us")
    _next(ws, "chat")
    assert _error(eve.http.get(f"/api/tables/{table['id']}/chat")) == (403, "private")
    invited = eve.http.get(f"/api/tables/{table['id']}/chat?invite={table['invite']}")
    assert [x["text"] for x in invited.json()["lines"]] == ["just us"]
    ws.close()


# ==== the lobby ===============================================================================
def test_lobby_chat_over_the_lobby_socket(server: ServerProcess) -> None:
    ana, ben = Player(server).guest(), Player(server).guest()
    with _lobby(ana, server) as a, _lobby(ben, server) as b, _lobby(None, server) as anon:
        for ws in (a, b, anon):
            _lobby_until(ws, "tables")
        a.send(json.dumps({"type": "chat", "text": "anyone for Café?"}))
        for ws in (a, b, anon):
            line = _lobby_until(ws, "chat")["line"]
            assert (line["user"], line["text"], line["seat"]) == (
                ana.name,
                "anyone for Café?",
                None,
            )
        anon.send(json.dumps({"type": "chat", "text": "me!"}))
        assert _lobby_until(anon, "error")["code"] == "login"
        b.send(json.dumps({"type": "act", "version": 0, "action": "x"}))
        assert _lobby_until(b, "error")["code"] == "unknown_type"
        b.send(json.dumps({"type": "ping", "ref": "p"}))
        assert _lobby_until(b, "pong")["ref"] == "p"
    texts = [x["text"] for x in ana.http.get("/api/lobby/chat").json()["lines"]]
    assert "anyone for Café?" in texts and "me!" not in texts
    with _lobby(None, server) as later:  # a new lobby socket gets the last lines at once
        first = _lobby_until(later, "tables")
        assert "anyone for Café?" in [x["text"] for x in first["chat"]]


# ==== mute and block ==========================================================================
def test_a_muted_players_lines_are_hidden_from_the_one_who_muted_them_only(
    server: ServerProcess,
) -> None:
    ana, ben, cy = Player(server).guest(), Player(server).guest(), Player(server).guest()
    table = _table(ana)
    ws = {p.name: p.socket(table["id"]) for p in (ana, ben, cy)}
    for s in ws.values():
        _next(s, "snapshot")
    _say(ws[ben.name], "before the mute")
    for s in ws.values():
        _next(s, "chat")
    r = ana.post(f"/api/users/{ben.name}/mute")
    assert r.status_code == 200 and r.json() == {"muted": [ben.name], "blocked": []}
    _say(ws[ben.name], "after the mute")
    assert _next(ws[cy.name], "chat")["line"]["text"] == "after the mute"
    assert _quiet(ws[ana.name]) == []
    # everywhere: in the lobby too, and in the histories
    with _lobby(ana, server) as lobby_a, _lobby(cy, server) as lobby_c:
        _lobby_until(lobby_a, "tables")
        _lobby_until(lobby_c, "tables")
        ws[ben.name].close()
        with _lobby(ben, server) as lobby_b:
            lobby_b.send(json.dumps({"type": "chat", "preset": "hello"}))
            assert _lobby_until(lobby_c, "chat")["line"]["user"] == ben.name
            with pytest.raises(TimeoutError):
                _lobby_until(lobby_a, "chat", timeout=0.5)
    seen = [x["text"] for x in ana.http.get(f"/api/tables/{table['id']}/chat").json()["lines"]]
    assert seen == []
    assert len(cy.http.get(f"/api/tables/{table['id']}/chat").json()["lines"]) == 2
    assert ben.name not in [x["user"] for x in ana.http.get("/api/lobby/chat").json()["lines"]]
    # unmuted: lines come through again
    assert ana.post(f"/api/users/{ben.name}/unmute").json()["muted"] == []
    again = ben.socket(table["id"])
    _say(again, "back")
    assert _next(ws[ana.name], "chat")["line"]["text"] == "back"
    for s in (ws[ana.name], ws[cy.name], again):
        s.close()


def test_mute_and_block_refuse_bad_requests(server: ServerProcess) -> None:
    ana = Player(server).guest()
    nobody = Player(server)
    assert _error(nobody.post(f"/api/users/{ana.name}/mute")) == (401, "login")
    assert _error(ana.post(f"/api/users/{ana.name}/block")) == (400, "yourself")
    assert _error(ana.post("/api/users/no-such-player-38/mute")) == (404, "no_user")
    assert ana.http.get("/api/me/moderation").json() == {"muted": [], "blocked": []}


def test_a_blocked_user_cannot_join_the_blockers_tables_nor_reach_them_in_chat(
    server: ServerProcess,
) -> None:
    ana, ben, cy = Player(server).guest(), Player(server).guest(), Player(server).guest()
    assert ana.post(f"/api/users/{ben.name}/block").json()["blocked"] == [ben.name]
    made = _table(ana)
    assert _error(ben.post(f"/api/tables/{made['id']}/join")) == (403, "blocked")
    # a table where the blocker sits (made by someone else) is closed to them too
    other = cy.create("cafe", [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}])
    assert ana.post(f"/api/tables/{other['id']}/join").status_code == 200
    assert _error(ben.post(f"/api/tables/{other['id']}/join")) == (403, "blocked")
    seats = cy.http.get(f"/api/tables/{other['id']}").json()["seats"]
    assert ben.name not in [s["user"] for s in seats]
    # ... while the one who blocked may still join theirs, and the blocked one may watch
    watching = ben.socket(other["id"])
    mine = ana.socket(other["id"])
    _next(mine, "snapshot")
    _say(watching, "let me in")
    _next(watching, "chat")
    assert _quiet(mine) == []
    assert ana.post(f"/api/users/{ben.name}/unblock").json()["blocked"] == []
    assert ben.post(f"/api/tables/{made['id']}/join").status_code == 200
    watching.close()
    mine.close()


# ==== reports and admins ======================================================================
ADMIN_ROUTES = [
    ("GET", "/api/admin/reports"),
    ("POST", "/api/admin/reports/1/handle"),
    ("POST", "/api/admin/users/someone/suspend"),
    ("POST", "/api/admin/users/someone/unsuspend"),
]


def test_every_admin_route_is_403_for_players_and_401_for_nobody(server: ServerProcess) -> None:
    player, nobody = Player(server).guest(), Player(server)
    for method, path in ADMIN_ROUTES:
        assert _error(player.http.request(method, path)) == (403, "admin"), path
        assert _error(nobody.http.request(method, path)) == (401, "login"), path


def test_a_report_reaches_the_admin_with_the_words_and_their_context(
    server: ServerProcess,
) -> None:
    ana, ben = Player(server).guest(), Player(server).guest()
    root = _registered(server, "warden")
    _grant_admin(server, root.name)
    table = _table(ana)
    a, b = ana.socket(table["id"]), ben.socket(table["id"])
    # both are the table's clients before anything is said (a line said before Ben's
    # snapshot reaches him in it, not as a chat message)
    _next(a, "snapshot")
    _next(b, "snapshot")
    _say(a, "good luck")
    _next(a, "chat")
    _next(b, "chat")
    _say(b, "you play like a potato")
    bad = _next(a, "chat")["line"]
    # bad reports: nothing stored
    assert _error(ana.post("/api/reports", line=bad["id"], reason="   ")) == (400, "invalid")
    assert _error(ana.post("/api/reports", reason="no target")) == (400, "invalid")
    assert _error(ben.post("/api/reports", line=bad["id"], reason="me")) == (400, "yourself")
    assert _error(ana.post("/api/reports", line=bad["id"] + 10**6, reason="x")) == (404, "no_line")
    assert _error(ana.post("/api/reports", line=bad["id"], reason="x" * 501)) == (400, "invalid")
    r = ana.post("/api/reports", line=bad["id"], reason="insults")
    assert r.status_code == 201, r.text
    assert r.json()["text"] == "you play like a potato" and r.json()["target"] == ben.name
    assert ana.post("/api/reports", name=ben.name, reason="stalls").status_code == 201
    reports = [x for x in root.http.get("/api/admin/reports").json() if x["target"] == ben.name]
    assert [(x["reason"], x["text"]) for x in reports] == [
        ("insults", "you play like a potato"),
        ("stalls", None),
    ]
    assert [c["text"] for c in reports[0]["context"]] == ["good luck", "you play like a potato"]
    assert reports[0]["reporter"] == ana.name and reports[0]["table"] == table["id"]
    handled = root.post(f"/api/admin/reports/{reports[0]['id']}/handle")
    assert handled.status_code == 200 and handled.json()["handled_at"]
    open_ids = [x["id"] for x in root.http.get("/api/admin/reports").json()]
    assert reports[0]["id"] not in open_ids and reports[1]["id"] in open_ids
    done = root.http.get("/api/admin/reports", params={"handled": "true"}).json()
    assert reports[0]["id"] in [x["id"] for x in done]
    assert _error(root.post("/api/admin/reports/999999999/handle")) == (404, "no_report")
    a.close()
    b.close()


def test_reports_are_rate_limited_and_refused_ones_do_not_count(server: ServerProcess) -> None:
    ana, ben = Player(server).guest(), Player(server).guest()
    for _ in range(3):  # refused: they take nothing from the limit
        assert _error(ana.post("/api/reports", name=ben.name, reason=" ")) == (400, "invalid")
    for i in range(5):
        assert ana.post("/api/reports", name=ben.name, reason=f"report {i}").status_code == 201
    r = ana.post("/api/reports", name=ben.name, reason="one too many")
    assert _error(r) == (429, "rate_limited") and int(r.headers["Retry-After"]) >= 1


def test_a_suspended_account_is_logged_out_at_once_and_cannot_log_in(
    server: ServerProcess,
) -> None:
    root = _registered(server, "boss")
    _grant_admin(server, root.name)
    troll = _registered(server, "troll")
    name = troll.name
    table = _table(troll)
    ws = troll.socket(table["id"])
    _next(ws, "snapshot")
    with _lobby(troll, server) as lobby:
        _lobby_until(lobby, "tables")
        assert _error(root.post(f"/api/admin/users/{root.name}/suspend")) == (400, "yourself")
        r = root.post(f"/api/admin/users/{name}/suspend")
        assert r.json() == {"name": name, "suspended": True}
        # a lobby socket opened before says nothing more
        lobby.send(json.dumps({"type": "chat", "text": "still here"}))
        assert _lobby_until(lobby, "error")["code"] == "login"
    assert "still here" not in root.http.get("/api/lobby/chat").text
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    assert _error(troll.http.get("/api/me")) == (401, "login")
    again = Player(server)
    assert _error(again.register(name)) == (409, "name_taken")
    refused = again.http.post(
        "/api/login", json={"name": name, "password": "correct horse battery"}
    )
    assert _error(refused) == (403, "suspended")
    assert root.post(f"/api/admin/users/{name}/unsuspend").json()["suspended"] is False
    back = again.http.post("/api/login", json={"name": name, "password": "correct horse battery"})
    assert back.status_code == 200


def test_the_admin_cli_grants_and_revokes(server: ServerProcess) -> None:
    boss = _registered(server, "chief")
    guest = Player(server).guest()

    def admin(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "coffeetable", "admin", *args, "--db", server.db_url],
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert boss.http.get("/api/session").json()["user"]["admin"] is False
    assert admin("grant", boss.name).returncode == 0
    assert boss.http.get("/api/session").json()["user"]["admin"] is True
    assert boss.name in admin("list").stdout
    assert boss.http.get("/api/admin/reports").status_code == 200
    assert admin("revoke", boss.name).returncode == 0
    assert _error(boss.http.get("/api/admin/reports")) == (403, "admin")
    missing = admin("grant", "nobody-by-this-name")
    assert missing.returncode == 2 and "no account" in missing.stderr
    refused = admin("grant", guest.name)
    assert refused.returncode == 2 and "guest" in refused.stderr


def test_ids_beyond_the_databases_integers_are_refused(server: ServerProcess) -> None:
    """A report naming a line id no database integer can hold gets a clear error, not a 500;
    so does an admin's report id."""
    ana = Player(server).guest()
    for line in (2**31, 2**63, 10**20):
        r = ana.post("/api/reports", line=line, reason="x")
        assert r.status_code == 422, (line, r.status_code, r.text)
    r = ana.post(f"/api/admin/reports/{10**20}/handle")
    assert r.status_code in (403, 422), r.text
