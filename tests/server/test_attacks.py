"""Issue 36's attacks, kept: hostile WebSocket messages of every kind (no `server_error`, no
traceback, no change), and a scan of every message of full games for hidden information
(deck order, unseen cards, seed, RNG state), with a planted leak as its positive control."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from coffeetable.core.registry import find_game
from tests.server.live import Player, ServerProcess, play_out

pytestmark = pytest.mark.server


def _hostile(rng: random.Random, version: int) -> str | bytes:
    """One hostile message: malformed, huge, deep, binary, of the wrong types, or forged."""
    kind = rng.randrange(14)
    if kind == 0:
        depth = rng.choice([100, 1000, 5000])
        return rng.choice("[{") * 0 + "[" * depth + "]" * depth
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if kind == 2:
        return "x" * rng.choice([16 * 1024 + 1, 40_000])
    if kind == 3:
        return json.dumps({"type": "act", "version": version, "action": "a" * 20_000})
    if kind == 4:
        return rng.choice(["", "null", "[]", "1", '"act"', "{", "{]", '"\\ud800"', "NaN", "{}"])
    if kind == 5:
        bad = rng.choice([None, "1", 1.5, -1, 2**70, [], {}, True])
        return json.dumps({"type": "act", "version": bad, "action": "end"})
    if kind == 6:
        return json.dumps(
            {"type": "act", "version": version, "action": rng.choice([1, [], {}, None])}
        )
    if kind == 7:  # forged version: the past or the future
        return json.dumps(
            {"type": "act", "version": version + rng.choice([-1, 1, 1000, -1000]), "action": "end"}
        )
    if kind == 8:  # forged seat and user
        return json.dumps(
            {"type": "act", "version": version, "action": "end", "seat": 1, "user": 1}
        )
    if kind == 9:
        return json.dumps(
            {"type": rng.choice(["admin", "ACT", "", None, 5, "undo "]), "version": version}
        )
    if kind == 10:
        return json.dumps(
            {"type": "undo", "version": rng.choice([version, version + 1, "x", None])}
        )
    if kind == 11:
        return json.dumps({"type": "ping", "ref": rng.choice(["a" * 5000, 5, [1], {"a": 1}])})
    if kind == 12:
        return '{"type": "sync", "extra": ' + "{" * 2000 + "}" * 2000 + "}"
    return json.dumps(
        {
            "type": "act",
            "version": version,
            "action": rng.choice(["zzz", "draft 99", "\u202e", "<script>"]),
        }
    )


def test_hostile_websocket_messages_change_nothing(server: ServerProcess) -> None:
    ana, bo = Player(server).guest(), Player(server).guest()
    table = ana.create("cafe", [{"kind": "human"}, {"kind": "open"}])
    tid = table["id"]
    assert bo.post(f"/api/tables/{tid}/join").status_code == 200
    assert ana.post(f"/api/tables/{tid}/start").status_code == 200
    before = (
        ana.http.get(f"/api/tables/{tid}").json(),
        ana.http.get(f"/api/tables/{tid}/log").json(),
    )
    rng = random.Random(36)
    sent = 0
    codes: dict[str, int] = {}
    for round_ in range(60):
        player = (ana, bo)[round_ % 2] if round_ % 3 else Player(server)  # seats and spectators
        s = player.socket(tid)
        snap = s.recv_until("snapshot")
        for _ in range(50):  # within the message burst (60): each one is parsed and answered
            message = _hostile(rng, snap["version"])
            if isinstance(message, bytes):
                s.ws.send(message)
            else:
                s.send(message)
            sent += 1
            reply = s.recv(30)
            while reply["type"] != "error":
                reply = s.recv(30)
            assert reply["code"] != "server_error", (message[:200], reply)
            codes[reply["code"]] = codes.get(reply["code"], 0) + 1
        s.close()
    after = (
        ana.http.get(f"/api/tables/{tid}").json(),
        ana.http.get(f"/api/tables/{tid}/log").json(),
    )
    assert after == before
    assert "Traceback" not in server.log_text()
    print(f"\nhostile messages: {sent}, answers: {dict(sorted(codes.items()))}")
    assert sent >= 3000


# ==== the hidden-information scan ==============================================================
OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("cafe", {"variant": v, "espresso": e, "promos": p})
    for v in ("base", "advanced")
    for e in (False, True)
    for p in ([], ["leao", "coffee-mine", "atlas"])
] + [("coffee-rush", {"less_luck": False}), ("coffee-rush", {"less_luck": True})]


def _lists(value: Any) -> Any:
    if isinstance(value, list):
        yield value
        for item in value:
            yield from _lists(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _lists(item)


def leaks(message: dict[str, Any], full: dict[str, Any], seed: int) -> list[str]:
    """What `message` gives away of the hidden state `full` (a position's JSON)."""
    text = json.dumps(message)
    found = []
    if re.search(rf"\b{seed}\b", text):
        found.append("seed")
    if isinstance(full.get("rng"), str) and full["rng"] in text:
        found.append("rng state")
    for key in ("seed", "rng"):
        if f'"{key}"' in text:
            found.append(f"a {key!r} field")
    deck = [str(card) for card in full.get("deck", [])]
    if full.get("game") == "cafe":
        # Café's cards have ids of their own: an unseen card's id must never show
        for card in deck:
            if re.search(rf'"{re.escape(card)}"', text):
                found.append(f"unseen card {card}")
                break
    for values in _lists(message):  # the deck's order: three of its cards in a row
        strings = [str(v) for v in values]
        for i in range(len(deck) - 2):
            run = deck[i : i + 3]
            if any(strings[j : j + 3] == run for j in range(len(strings) - 2)):
                found.append("deck order")
                break
    return found


@pytest.mark.slow  # 10 full games: about 25 s per database
def test_no_message_gives_hidden_information_away(server: ServerProcess) -> None:
    scanned = 0
    for game_name, options in OPTION_SETS:
        game = find_game(game_name)
        players = [Player(server).guest() for _ in range(2)]
        table = players[0].create(game_name, [{"kind": "human"}, {"kind": "open"}], options=options)
        tid = table["id"]
        assert players[1].post(f"/api/tables/{tid}/join").status_code == 200
        assert players[0].post(f"/api/tables/{tid}/start").status_code == 200
        sockets = [p.socket(tid) for p in players]
        watcher = Player(server).socket(tid)
        for s in sockets:
            s.recv_until("snapshot")
        play_out(sockets, random.Random(len(OPTION_SETS) + scanned))
        watcher.drain(0.5)
        for s in sockets:
            s.drain(0.2)
        record = players[0].http.get(f"/api/tables/{tid}/record").json()
        seed = record["seed"]
        # the full state at every version, from the record
        state = game.new_initial_state(2, seed, game.normalize_options(record.get("options", {})))
        states = {0: state.to_json()}
        for version, (seat, text) in enumerate(record["actions"], start=1):
            state.apply(seat, game.parse_action(text))
            states[version] = state.to_json()
        for s in [*sockets, watcher]:
            for message in s.received:
                full = states.get(message.get("version", -1), states[0])
                problems = leaks(message, full, seed)
                assert not problems, (game_name, options, message.get("type"), problems)
                scanned += 1
        # the positive control: a planted leak is caught
        planted = dict(sockets[0].received[-1])
        planted["view"] = {**planted.get("view", {}), "debug": list(states[0]["deck"])}
        assert "deck order" in leaks(planted, states[0], seed)
        assert leaks({"type": "x", "n": seed}, states[0], seed) == ["seed"]
        for s in [*sockets, watcher]:
            s.close()
    print(f"\nmessages scanned: {scanned} in {len(OPTION_SETS)} games")
    assert "Traceback" not in server.log_text()
