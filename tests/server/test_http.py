"""The HTTP API and lobby against a real server process, on SQLite and PostgreSQL: accounts,
table set-up, private tables, bad input, clocks and zombies, record import, OpenAPI."""

from __future__ import annotations

import json
import random
import time

import httpx
import pytest
from websockets.sync.client import connect

from coffeetable.bots.tournament import published_ratings
from coffeetable.core.record import GameRecord
from coffeetable.core.registry import find_game
from tests.server.live import Player, ServerProcess, play_out

pytestmark = pytest.mark.server


def _error(r: httpx.Response) -> tuple[int, str, str]:
    body = r.json()
    assert set(body) == {"error"}, body
    assert "Traceback" not in body["error"]["message"]
    return r.status_code, body["error"]["code"], body["error"]["message"]


def test_accounts(server: ServerProcess) -> None:
    name = f"Ana{random.Random().randrange(10**6)}"
    ana = Player(server)
    assert _error(ana.http.get("/api/me"))[:2] == (401, "login")
    assert ana.http.get("/api/session").json() == {"user": None}
    r = ana.register(name)
    assert ana.http.get("/api/session").json()["user"] == ana.http.get("/api/me").json()
    assert r.status_code == 200 and r.json()["name"] == name and r.json()["guest"] is False
    assert ana.http.get("/api/me").json()["name"] == name
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    # the same name in another case is taken
    assert _error(Player(server).register(name.upper()))[:2] == (409, "name_taken")
    # bad names and passwords: 400 with the reason
    for bad, words in [
        ("ab", "3"),
        ("<script>", "character"),
        ("admin", "reserved"),
        ("Guest-ABCDEF", "reserved"),
    ]:
        response = Player(server).register(bad)
        status, code, message = _error(response)
        assert (status, code) == (400, "invalid") and words in message, message
        assert response.json()["error"]["field"] == "name"
    refused = Player(server).register("<script>")
    assert refused.json()["error"]["rule"] == "bad_character"
    short = Player(server).register("Okname99", password="short")
    status, _, message = _error(short)
    assert status == 400 and "8" in message
    assert (short.json()["error"]["field"], short.json()["error"]["rule"]) == (
        "password",
        "too_short",
    )
    # log out, then log in again; a wrong password says nothing about which part was wrong
    ana.post("/api/logout")
    assert ana.http.get("/api/me").status_code == 401
    again = Player(server)
    assert (
        again.http.post("/api/login", json={"name": name, "password": "wrong one!"}).status_code
        == 401
    )
    ok = again.http.post("/api/login", json={"name": name, "password": "correct horse battery"})
    assert ok.status_code == 200 and again.http.get("/api/me").json()["name"] == name
    assert _error(again.http.post("/api/login", json={"name": name}))[:2] == (422, "invalid")
    # guests get generated names
    guest = Player(server).guest()
    assert guest.name.startswith("Guest-")


def test_table_setup_errors(server: ServerProcess) -> None:
    host = Player(server).guest()
    cases = [
        ({"game": "chess", "seats": [{"kind": "human"}]}, 400, "unknown_game"),
        ({"game": "coffee-rush", "seats": [{"kind": "human"}]}, 400, "invalid_table"),
        ({"game": "cafe", "seats": [{"kind": "human"}] * 5}, 422, "invalid"),
        (
            {"game": "cafe", "seats": [{"kind": "human"}], "options": {"variant": "advanced"}},
            400,
            "invalid_table",
        ),
        (
            {"game": "cafe", "seats": [{"kind": "human"}], "options": {"colour": "blue"}},
            400,
            "invalid_table",
        ),
        ({"game": "cafe", "seats": [{"kind": "bot", "bot": "greedy"}]}, 400, "invalid_table"),
        (
            {"game": "cafe", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "deep-blue"}]},
            400,
            "invalid_table",
        ),
        (
            {
                "game": "cafe",
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
                "rated": True,
            },
            400,
            "invalid_table",
        ),
        (
            {
                "game": "cafe",
                "seats": [{"kind": "human"}],
                "clock": {"kind": "realtime", "initial": -5},
            },
            400,
            "invalid_clock",
        ),
        ({"game": "cafe", "seats": [{"kind": "human"}], "surprise": 1}, 422, "invalid"),
    ]
    for body, status, code in cases:
        r = host.http.post("/api/tables", json=body)
        assert _error(r)[:2] == (status, code), (body, r.text)
    assert (
        host.http.post(
            "/api/tables", content=b"{not json", headers={"content-type": "application/json"}
        ).status_code
        == 422
    )
    # nothing was created by any of that
    assert all(t["seats"][0]["user"] != host.name for t in host.http.get("/api/tables").json())
    # without a session, creating is refused
    assert _error(Player(server).http.post("/api/tables", json=cases[1][0]))[:2] == (401, "login")


def test_lobby_join_leave_start_and_private_tables(server: ServerProcess) -> None:
    host, other, third = Player(server).guest(), Player(server).guest(), Player(server).guest()
    with connect(f"{server.ws_url}/ws/lobby", open_timeout=10) as lobby:
        first = json.loads(lobby.recv(timeout=10))
        assert first["type"] == "tables"
        table = host.create(
            "cafe", [{"kind": "human"}, {"kind": "open"}], options={"espresso": True}
        )
        tid = table["id"]
        seen = json.loads(lobby.recv(timeout=10))
        assert seen["type"] == "table" and seen["table"]["id"] == tid
        assert seen["table"]["options"]["espresso"] is True
        assert "seed" not in seen["table"] and "invite" not in seen["table"]
        # start needs every seat filled, and only the host starts
        assert _error(host.post(f"/api/tables/{tid}/start"))[:2] == (409, "seats_open")
        assert other.post(f"/api/tables/{tid}/join").status_code == 200
        assert json.loads(lobby.recv(timeout=10))["table"]["seats"][1]["user"] == other.name
        # joining again (a double click) answers with the table, and changes nothing
        again = other.post(f"/api/tables/{tid}/join")
        assert again.status_code == 200 and again.json()["seats"][1]["user"] == other.name
        assert _error(third.post(f"/api/tables/{tid}/join"))[:2] == (409, "full")
        assert _error(other.post(f"/api/tables/{tid}/start"))[:2] == (403, "not_host")
        assert other.post(f"/api/tables/{tid}/leave").status_code == 200
        assert third.http.post(f"/api/tables/{tid}/join", json={"seat": 1}).status_code == 200
        assert host.post(f"/api/tables/{tid}/start").status_code == 200
        assert _error(other.post(f"/api/tables/{tid}/join"))[:2] == (409, "not_open")
    assert _error(host.http.get("/api/tables/nope"))[:2] == (404, "no_table")
    # a private table: not in the lobby, joined only with its invite
    private = host.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}], private=True)
    pid, invite = private["id"], private["invite"]
    assert pid not in {t["id"] for t in host.http.get("/api/tables").json()}
    assert _error(other.post(f"/api/tables/{pid}/join"))[:2] == (403, "private")
    assert _error(other.http.post(f"/api/tables/{pid}/join", json={"invite": "guess"}))[:2] == (
        403,
        "private",
    )
    with connect(f"{server.ws_url}/ws/tables/{pid}", open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["code"] == "private"
    assert other.http.post(f"/api/tables/{pid}/join", json={"invite": invite}).status_code == 200


def test_running_out_of_time_hands_the_seat_to_a_bot(server: ServerProcess) -> None:
    alice = Player(server).guest()
    table = alice.create(
        "coffee-rush",
        [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
        clock={"kind": "realtime", "initial": 1.5, "increment": 0},
    )
    alice.post(f"/api/tables/{table['id']}/start")
    sock = alice.socket(table["id"])
    snap = sock.recv()
    assert snap["clock"]["settings"]["kind"] == "realtime"
    # Alice never moves: after her 1.5 s a bot takes her seat and the game goes on to the end
    deadline = time.monotonic() + 120
    replaced = False
    while not sock.over and time.monotonic() < deadline:
        message = sock.recv(30)
        if message["type"] == "table" and message["table"]["seats"][0]["replaced"]:
            replaced = True
    assert replaced and sock.over
    sock.act("end")
    assert sock.recv_until("error")["code"] == "game_over"


def test_import_a_record_and_replay_it(server: ServerProcess) -> None:
    alice = Player(server).guest()
    game = find_game("cafe")
    state = game.new_initial_state(1, 5)
    rng = random.Random(5)
    actions = []
    while not state.is_over():
        action = rng.choice(state.legal_actions(0))
        actions.append((0, action.notation()))
        state.apply(0, action)
    record = GameRecord("cafe", ["Solo"], 5, game.normalize_options({}), actions)
    r = alice.http.post("/api/records", content=json.dumps(record.to_json(state)))
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert r.json()["status"] == "finished"
    back = alice.http.get(f"/api/tables/{tid}/record").json()
    assert back["actions"] == [list(a) for a in actions] and back["seed"] == 5
    last = alice.http.get(f"/api/tables/{tid}/replay/{len(actions)}").json()
    assert last["view"]["over"] is True
    # a corrupt record is refused and creates nothing
    bad = record.to_json(state)
    bad["actions"][3][1] = "fly away"
    status, code, message = _error(alice.http.post("/api/records", content=json.dumps(bad)))
    assert (status, code) == (400, "invalid_record") and "#3" in message
    assert _error(alice.http.post("/api/records", content=b"\xff\xfe"))[:2] == (
        400,
        "invalid_record",
    )


def test_openapi_and_protocol_schema(server: ServerProcess) -> None:
    spec = httpx.get(f"{server.url}/openapi.json").json()
    for path in ("/api/tables", "/api/register", "/api/tables/{table_id}/record"):
        assert path in spec["paths"]
    schema = httpx.get(f"{server.url}/api/protocol").json()
    assert {"act", "undo", "sync", "ping"} <= set(json.dumps(schema).replace('"', " ").split())
    games = httpx.get(f"{server.url}/api/games").json()
    assert {g["name"] for g in games} == {"cafe", "coffee-rush"}
    for g in games:  # the bots' published ratings, for the lobby's list of bots
        published = published_ratings().get(g["name"], {})
        assert g["bot_ratings"] == {b: elo for b, elo in published.items() if b in g["bots"]}


def test_game_data_describes_the_default_cards(server: ServerProcess) -> None:
    """`GET /api/games/{game}/data`: what the views' card ids and drink names stand for."""
    cafe = httpx.get(f"{server.url}/api/games/cafe/data")
    assert cafe.status_code == 200 and "max-age" in cafe.headers["cache-control"]
    data = cafe.json()
    deck = find_game("cafe").deck  # type: ignore[attr-defined]
    assert data["deck_sha256"] == deck.digest
    assert {c["id"] for c in data["cards"]} == {c.id for c in deck.cards}
    p12 = next(c for c in data["cards"] if c["id"] == "P12")
    assert len(p12["cells"]) == 2 and all(len(row) == 3 for row in p12["cells"])
    rush = httpx.get(f"{server.url}/api/games/coffee-rush/data").json()
    cards = find_game("coffee-rush").cards  # type: ignore[attr-defined]
    assert rush["cards_sha256"] == cards.digest and len(rush["board"]) == 4
    assert {d["name"] for d in rush["drinks"]} == {d.name for d in cards.drinks}
    # nothing about a game in play: no deck order, no seed
    assert "deck" not in data and "seed" not in json.dumps(rush)
    assert _error(httpx.get(f"{server.url}/api/games/chess/data"))[:2] == (404, "unknown_game")


def test_turn_based_game_with_rematch(server: ServerProcess) -> None:
    alice = Player(server).guest()
    table = alice.create(
        "cafe", [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], clock={"kind": "turn_based"}
    )
    alice.post(f"/api/tables/{table['id']}/start")
    sock = alice.socket(table["id"])
    snap = sock.recv()
    assert snap["clock"]["settings"]["kind"] == "turn_based"
    play_out([sock], random.Random(7))
    r = alice.post(f"/api/tables/{table['id']}/rematch")
    assert r.status_code == 201
    assert [s["kind"] for s in r.json()["seats"]] == ["human", "bot"]
    assert alice.post(f"/api/tables/{r.json()['id']}/start").status_code == 200


def test_creator_name_and_invite_for_the_players(server: ServerProcess) -> None:
    """Tables name their creator; a private table's invite is shown to its players (to share
    it) and to nobody else."""
    host, friend, stranger = Player(server).guest(), Player(server).guest(), Player(server).guest()
    table = host.create(
        "cafe", [{"kind": "human"}, {"kind": "open"}, {"kind": "open"}], private=True
    )
    tid, invite = table["id"], table["invite"]
    assert table["created_by"] == host.name
    assert host.http.get(f"/api/tables/{tid}").json()["invite"] == invite
    # a stranger sees the table only with its invite (issue 36), and even then not the invite
    assert stranger.http.get(f"/api/tables/{tid}").status_code == 403
    seen = stranger.http.get(f"/api/tables/{tid}", params={"invite": invite}).json()
    assert seen["created_by"] == host.name and "invite" not in seen
    joined = friend.http.post(f"/api/tables/{tid}/join", json={"invite": invite})
    assert joined.status_code == 200 and joined.json()["invite"] == invite
    assert friend.http.get(f"/api/tables/{tid}").json()["invite"] == invite
    # on the table's socket: the players get it in their snapshot, a spectator does not
    sock = friend.socket(tid)
    snap = sock.recv()
    assert snap["invite"] == invite and snap["table"]["created_by"] == host.name
    assert "invite" not in snap["table"]
    watcher = stranger.socket(tid, f"?invite={invite}")
    assert "invite" not in watcher.recv()
    sock.close()
    watcher.close()
    public = host.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    assert "invite" not in host.http.get(f"/api/tables/{public['id']}").json()


@pytest.mark.slow  # about 10 s per database: the CI's slow stage runs it
def test_too_many_requests(server: ServerProcess) -> None:
    statuses = [httpx.post(f"{server.url}/api/guest").status_code for _ in range(120)]
    assert 429 in statuses
    r = httpx.post(f"{server.url}/api/guest")
    if r.status_code == 429:
        assert r.json()["error"]["code"] == "rate_limited"


def test_repeated_requests_get_the_same_table(server: ServerProcess) -> None:
    """A client's `request_id` makes creating a table and asking for a rematch idempotent:
    the same player repeating a request (a double click, a retry) gets the same table, also
    from the database after a restart; another id, or another player, gets a new one."""
    alice, bob = Player(server).guest(), Player(server).guest()
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    first = alice.create("coffee-rush", seats, request_id="create-1")
    again = alice.post("/api/tables", game="coffee-rush", seats=seats, request_id="create-1")
    assert again.status_code == 201 and again.json()["id"] == first["id"]
    assert alice.create("coffee-rush", seats, request_id="create-2")["id"] != first["id"]
    assert bob.create("coffee-rush", seats, request_id="create-1")["id"] != first["id"]
    assert alice.create("coffee-rush", seats)["id"] != alice.create("coffee-rush", seats)["id"]
    too_long = alice.post("/api/tables", game="coffee-rush", seats=seats, request_id="x" * 65)
    assert _error(too_long)[:2] == (422, "invalid")
    mine = [t["id"] for t in alice.http.get("/api/tables").json() if t["created_by"] == alice.name]
    assert mine.count(first["id"]) == 1
    # a rematch: the same id gives the same new table; without a body it works as before
    tid = first["id"]
    assert alice.post(f"/api/tables/{tid}/start").status_code == 200
    sock = alice.socket(tid)
    sock.recv()
    play_out([sock], random.Random(3))
    sock.close()
    one = alice.post(f"/api/tables/{tid}/rematch", request_id="rematch-1")
    two = alice.post(f"/api/tables/{tid}/rematch", request_id="rematch-1")
    assert one.status_code == two.status_code == 201 and one.json()["id"] == two.json()["id"]
    plain = alice.http.post(f"/api/tables/{tid}/rematch")
    assert plain.status_code == 201 and plain.json()["id"] != one.json()["id"]
    # the request ids are kept in the database: a restarted server still knows them
    server.restart()
    again = alice.post(f"/api/tables/{tid}/rematch", request_id="rematch-1")
    assert again.status_code == 201 and again.json()["id"] == one.json()["id"]


def test_a_wrong_method_is_405_with_the_routes_allow_header(server: ServerProcess) -> None:
    """Found by schemathesis (issue 36): a wrong method on an API route fell through to the
    static files mounted at `/`: GET of a POST route answered 404, OPTIONS 405 naming GET
    and HEAD, and the handler of HTTP errors dropped the `Allow` header altogether."""
    http = httpx.Client(base_url=server.url, timeout=30)
    for method, path, allow in [
        ("GET", "/api/guest", "POST"),
        ("OPTIONS", "/api/guest", "POST"),
        ("TRACE", "/api/games", "GET"),
        ("DELETE", "/api/tables/abc/join", "POST"),
    ]:
        r = http.request(method, path)
        assert r.status_code == 405, (method, path, r.status_code, r.text)
        assert r.headers["allow"] == allow, (method, path, r.headers)
        assert r.json()["error"]["code"] == "http"
    assert http.get("/api/nothing-here").status_code == 404
    assert http.get("/").status_code == 200  # the web client is still served
    # the description lists the error answers, with their body
    spec = http.get("/openapi.json").json()
    join = spec["paths"]["/api/tables/{table_id}/join"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "415", "422"} <= set(join)
    assert join["409"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
    http.close()
