"""Whole games over real sockets against a real server process, on SQLite and PostgreSQL:
scripted clients and bots, spectators, reconnects, a restart mid-game, records, ratings."""

from __future__ import annotations

import json
import random
import time

import httpx
import pytest

from coffeetable.core.record import GameRecord, apply_stored
from coffeetable.core.registry import find_game
from tests.server.live import Player, ServerProcess, play_out

pytestmark = pytest.mark.server

HIDDEN_KEYS = {"deck", "rng"}  # Café lists only the removed-by-rule cards; see docs/views.md


def _assert_public(view: dict) -> None:
    assert view["format"] == "coffeetable.view/1"
    assert not HIDDEN_KEYS & set(view), sorted(view)


def _assert_log_scores(log: list[dict], record: dict) -> None:
    """Each log entry's `scores` are the public totals after its move, and `gains` the
    change by it, as the record replayed step by step gives them (docs/server-protocol.md)."""
    game = find_game(record["game"])
    state = game.new_initial_state(len(record["seats"]), record["seed"], record["options"])
    previous = None
    assert len(log) == len(record["actions"])
    changed = 0
    for entry, (seat, text) in zip(log, record["actions"], strict=True):
        before = [s.total for s in state.scores()]
        action = game.parse_action(text)
        apply_stored(state, seat, action, previous)
        previous = (seat, action)
        after = [s.total for s in state.scores()]
        assert entry["scores"] == after, entry
        assert entry["gains"] == [a - b for a, b in zip(after, before, strict=True)], entry
        changed += any(entry["gains"])
    assert changed  # some move changed a score: the check above could fail


def test_coffee_rush_against_a_bot_to_the_end(server: ServerProcess) -> None:
    alice = Player(server).guest()
    table = alice.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    assert table["seats"][0]["user"] == alice.name and table["seats"][1]["bot"] == "greedy"
    assert alice.post(f"/api/tables/{table['id']}/start").status_code == 200
    sock = alice.socket(table["id"])
    first = sock.recv()
    assert first["type"] == "snapshot" and first["seat"] == 0
    # a spectator watches the whole game
    watcher = Player(server)
    spectator = watcher.socket(table["id"])
    assert spectator.recv()["seat"] is None
    play_out([sock], random.Random(1))
    spectator.drain(0.5)
    assert spectator.over and spectator.version == sock.version
    for message in sock.received + spectator.received:
        if "view" in message:
            _assert_public(message["view"])
    # spectators never get legal moves
    assert all(not m.get("legal") for m in spectator.received)
    # the record downloads, replays to the same result, and the log has every move
    record = alice.http.get(f"/api/tables/{table['id']}/record")
    assert record.status_code == 200
    data = record.json()
    assert len(data["actions"]) == sock.version
    final = GameRecord.from_json(data).replay()
    assert final.is_over()
    assert [s.total for s in final.scores()] == [
        s["total"]
        for s in sock.view["scores"]  # type: ignore[index]
    ]
    log = alice.http.get(f"/api/tables/{table['id']}/log").json()
    assert [e["version"] for e in log] == list(range(1, sock.version + 1))
    _assert_log_scores(log, data)
    assert log[-1]["scores"] == [s["total"] for s in sock.view["scores"]]  # type: ignore[index]
    first_mover = (alice.name, "bot greedy")[log[0]["seat"]]
    assert (
        log[0]["text"].startswith(first_mover + " ") and len(log[0]["text"]) > len(first_mover) + 3
    )
    # a replay step is the public view after that many moves
    step = alice.http.get(f"/api/tables/{table['id']}/replay/3").json()
    assert step["version"] == 3 and step["view"]["seat"] is None
    _assert_public(step["view"])
    assert alice.http.get(f"/api/tables/{table['id']}/replay/100000").status_code == 404
    sock.close()
    spectator.close()


def test_cafe_two_people_act_at_once(server: ServerProcess) -> None:
    """Café's action phase is simultaneous: both seats play in the same round."""
    alice, bob = Player(server).guest(), Player(server).guest()
    table = alice.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    assert bob.post(f"/api/tables/{table['id']}/join").status_code == 200
    assert alice.post(f"/api/tables/{table['id']}/start").status_code == 200
    a, b = alice.socket(table["id"]), bob.socket(table["id"])
    assert a.recv()["seat"] == 0 and b.recv()["seat"] == 1
    seen_both = False
    rng = random.Random(2)
    while not (a.over and b.over):
        for s in (a, b):
            s.drain(0.01)
        if set((a.view or {}).get("current_seats", [])) == {0, 1}:
            seen_both = True
        play_out_step = [s for s in (a, b) if s.legal and s.seat in s.view["current_seats"]]  # type: ignore[index]
        if not play_out_step:
            for s in (a, b):
                s.drain(0.05)
            continue
        for s in play_out_step:
            s.act(rng.choice(s.legal))
    assert seen_both
    assert a.view == {**b.view, "seat": 0}  # type: ignore[dict-item]
    record = alice.http.get(f"/api/tables/{table['id']}/record").json()
    _assert_log_scores(alice.http.get(f"/api/tables/{table['id']}/log").json(), record)
    a.close()
    b.close()


def test_reconnect_and_restart_resume_the_game(server: ServerProcess) -> None:
    alice = Player(server).guest()
    table = alice.create("coffee-rush", [{"kind": "human"}, {"kind": "bot", "bot": "random"}])
    alice.post(f"/api/tables/{table['id']}/start")
    sock = alice.socket(table["id"])
    sock.recv()
    rng = random.Random(3)
    for _ in range(6):
        sock.drain(0.3)
        if sock.legal:
            sock.act(rng.choice(sock.legal))
            sock.recv_until("update")
    sock.drain(0.5)
    version, view = sock.version, sock.view
    sock.close()
    moves = alice.http.get(f"/api/tables/{table['id']}/log").json()
    assert [m["version"] for m in moves] == list(range(1, version + 1))
    seen = [m["move"] for m in sock.received if m["type"] == "update"]
    assert seen and moves[-len(seen) :] == seen  # (the bot may have moved before we came)
    # reconnect: the snapshot resumes at the same version, with the log of every move
    again = alice.socket(table["id"])
    snap = again.recv()
    assert snap["type"] == "snapshot" and snap["version"] == version and snap["view"] == view
    assert snap["log"] == moves
    again.close()
    # restart the server: the game is rebuilt from its stored moves, and so is the log
    server.restart()
    alice.http = httpx.Client(base_url=server.url, cookies=alice.http.cookies, timeout=30)
    resumed = alice.socket(table["id"])
    snap = resumed.recv()
    assert snap["version"] == version and snap["view"] == view
    assert snap["log"] == moves
    assert alice.http.get(f"/api/tables/{table['id']}/log").json() == moves
    play_out([resumed], rng)
    assert resumed.over
    resumed.close()


def test_bad_messages_get_errors_and_change_nothing(server: ServerProcess) -> None:
    alice, bob = Player(server).guest(), Player(server).guest()
    table = alice.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
    bob.post(f"/api/tables/{table['id']}/join")
    tid = table["id"]
    # before the start, acting is refused
    early = alice.socket(tid)
    early.recv()
    early.act("end", version=0)
    assert early.recv_until("error")["code"] == "not_started"
    early.close()
    alice.post(f"/api/tables/{tid}/start")
    a, b = alice.socket(tid), bob.socket(tid)
    a.recv()
    b.recv()
    spectator = Player(server).socket(tid)
    spectator.recv()
    mover, waiter = (a, b) if a.seat in a.view["current_seats"] else (b, a)  # type: ignore[index]
    version = mover.version
    cases = [
        (mover, "not json", "bad_json"),
        (mover, "[1, 2]", "bad_json"),
        (mover, json.dumps({"type": "dance"}), "unknown_type"),
        (mover, json.dumps({"version": 0}), "unknown_type"),
        (mover, json.dumps({"type": "act", "version": "0", "action": "end"}), "invalid"),
        (mover, json.dumps({"type": "act", "version": 0, "action": "end", "x": 1}), "invalid"),
        (mover, json.dumps({"type": "act", "version": 0, "action": "x" * 20000}), "too_large"),
        (mover, json.dumps({"type": "act", "version": version, "action": "fly away"}), "illegal"),
        (
            mover,
            json.dumps({"type": "act", "version": version + 5, "action": mover.legal[0]}),
            "stale_version",
        ),
        (
            waiter,
            json.dumps({"type": "act", "version": version, "action": mover.legal[0]}),
            "not_your_turn",
        ),
        (
            spectator,
            json.dumps({"type": "act", "version": version, "action": mover.legal[0]}),
            "not_seated",
        ),
    ]
    for sock, raw, code in cases:
        sock.send(raw)
        reply = sock.recv_until("error")
        assert reply["code"] == code, (raw[:80], reply)
        assert "Traceback" not in reply["message"]
        assert reply["version"] == version
    # nothing changed: a fresh snapshot is at the same version, and the connection still works
    mover.send({"type": "sync"})
    assert mover.recv_until("snapshot")["version"] == version
    mover.send({"type": "ping", "ref": "p1"})
    assert mover.recv_until("pong")["ref"] == "p1"
    # a good move after all that is accepted with the next version
    mover.act(mover.legal[0])
    assert mover.recv_until("update")["version"] == version + 1
    # replaying the old version is stale
    mover.act(mover.legal[0] if mover.legal else "end", version=version)
    assert mover.recv_until("error")["code"] in ("stale_version", "not_your_turn")
    for s in (a, b, spectator):
        s.close()


def test_actions_after_the_end_and_leaving(server: ServerProcess) -> None:
    alice = Player(server).guest()
    table = alice.create("cafe", [{"kind": "human"}])
    alice.post(f"/api/tables/{table['id']}/start")
    sock = alice.socket(table["id"])
    sock.recv()
    # the hint button: the bot's move for this seat, which is legal, in words too
    hint = alice.post(f"/api/tables/{table['id']}/hint")
    assert hint.status_code == 200, hint.text
    assert hint.json()["action"] in sock.legal and hint.json()["text"]
    assert Player(server).guest().post(f"/api/tables/{table['id']}/hint").status_code == 403
    play_out([sock], random.Random(4))
    assert alice.post(f"/api/tables/{table['id']}/hint").status_code == 409
    for _ in range(10):  # play_out may have used up the socket's message budget
        sock.act("end")
        code = sock.recv_until("error")["code"]
        if code != "rate_limited":
            break
        time.sleep(1.0)
    assert code == "game_over"
    sock.close()
    assert alice.post(f"/api/tables/{table['id']}/leave").status_code == 409
    rematch = alice.post(f"/api/tables/{table['id']}/rematch")
    assert rematch.status_code == 201 and rematch.json()["status"] == "open"
    assert rematch.json()["seats"][0]["user"] == alice.name


def test_leaving_mid_game_hands_the_seat_to_a_bot(server: ServerProcess) -> None:
    alice, bob = Player(server).guest(), Player(server).guest()
    table = alice.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}])
    bob.post(f"/api/tables/{table['id']}/join")
    alice.post(f"/api/tables/{table['id']}/start")
    assert bob.post(f"/api/tables/{table['id']}/leave").status_code == 200
    sock = alice.socket(table["id"])
    snap = sock.recv()
    assert snap["table"]["seats"][1]["replaced"] is True
    play_out([sock], random.Random(5))
    assert sock.over


def test_rated_game_updates_ratings(server: ServerProcess) -> None:
    suffix = random.Random().randrange(10**6)
    alice, bob = Player(server), Player(server)
    assert alice.register(f"alice{suffix}").status_code == 200
    assert bob.register(f"bob{suffix}").status_code == 200
    table = alice.create("coffee-rush", [{"kind": "human"}, {"kind": "open"}], rated=True)
    assert bob.post(f"/api/tables/{table['id']}/join").status_code == 200
    alice.post(f"/api/tables/{table['id']}/start")
    assert alice.post(f"/api/tables/{table['id']}/hint").status_code == 403  # rated: no hints
    a, b = alice.socket(table["id"]), bob.socket(table["id"])
    a.recv()
    b.recv()
    play_out([a, b], random.Random(6))
    a.drain(0.5)
    ratings = {
        p.name: alice.http.get(f"/api/users/{p.name}/ratings/coffee-rush").json()
        for p in (alice, bob)
    }
    assert all(r["games"] == 1 for r in ratings.values())
    winners = a.view["winners"]  # type: ignore[index]
    if len(winners) == 1:
        winner = (alice, bob)[winners[0]].name
        loser = (bob, alice)[winners[0]].name
        assert ratings[winner]["rating"] > 1500 > ratings[loser]["rating"]
    board = alice.http.get("/api/leaderboard/coffee-rush").json()
    assert {alice.name, bob.name} <= {row["name"] for row in board}
