"""Players' decks over HTTP against a real server, on SQLite and PostgreSQL (issue 39):
checks and uploads of good, malformed, oversized, hostile and duplicate files (refused with
clear errors that change nothing), who may use a deck (private: 404 to others; friends: a
friend only), tables on an uploaded Café deck and Coffee Rush card file played to the end
against a bot, their records replayed with `coffeetable inspect --deck/--cards`, views that
give away no more than the default deck's, and a calibration run on the bot workers."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from coffeetable.games.cafe.deck import default_deck
from coffeetable.games.coffee_rush.cards import default_cards
from coffeetable.games.datafiles import PROBLEM_CODES, read_text
from tests.games.view_checks import check_no_peek, check_view_basics
from tests.server.conftest import serve_on
from tests.server.live import Player, ServerProcess, play_out
from tests.server.test_attacks import leaks
from tests.server.test_friends import _error, _registered

pytestmark = pytest.mark.server

DECK_TEXT = resources.files("coffeetable.games.cafe").joinpath("data/deck.toml").read_text("utf-8")
CARDS_TEXT = (
    resources.files("coffeetable.games.coffee_rush").joinpath("data/cards.toml").read_text("utf-8")
)
TOML = {"Content-Type": "application/toml"}
#: markup in a name: stored and given back as data, never as markup
MARKUP = "<img src=x onerror=\"alert(1)\"> Ana's & Bo's deck"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    # calibration: one random-bot game, so that the run ends within the test
    env = {"COFFEETABLE_CALIBRATION_GAMES": "1", "COFFEETABLE_CALIBRATION_BOT": "random"}
    with serve_on(request.param, tmp_path_factory.mktemp("decks"), extra_env=env) as proc:
        yield proc


def my_deck(tag: str, transcribed: str = "P01") -> str:
    """A valid Café deck of its own (its own name; one card marked transcribed)."""
    text = DECK_TEXT.replace(
        'name = "coffeetable reconstructed deck"', f"name = {json.dumps(MARKUP + ' ' + tag)}"
    )
    start = text.index(f'id = "{transcribed}"')
    end = text.index("[[card]]", start)
    block = text[start:end].replace("reconstructed = true", "reconstructed = false", 1)
    return text[:start] + block + text[end:]


def in_card(text: str, card_id: str, old: str, new: str) -> str:
    """`text` with `old` replaced by `new` once, in the card `card_id`."""
    start = text.index(f'id = "{card_id}"')
    end = text.find("[[card]]", start)
    end = len(text) if end < 0 else end
    assert old in text[start:end]
    return text[:start] + text[start:end].replace(old, new, 1) + text[end:]


def my_cards(tag: str) -> str:
    return CARDS_TEXT.replace(
        'name = "Coffee Rush (public reconstruction)"', f'name = "my cards {tag}"'
    )


def _upload(player: Player, text: str, game: str = "cafe", visibility: str = "private") -> Any:
    return player.http.post(
        f"/api/decks?game={game}&visibility={visibility}", content=text.encode(), headers=TOML
    )


def _usable(player: Player, game: str = "cafe") -> set[str]:
    r = player.http.get(f"/api/decks?game={game}")
    assert r.status_code == 200, r.text
    return {d["sha256"] for d in r.json()}


# ==== checking ==================================================================================
def test_check_answers_the_model_the_canonical_text_and_the_cards(server: ServerProcess) -> None:
    anyone = Player(server)
    r = anyone.http.post("/api/decks/check?game=cafe", content=DECK_TEXT.encode(), headers=TOML)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["ok"] and body["problems"] == [] and body["game"] == "cafe"
    assert body["sha256"] == hashlib.sha256(body["toml"].encode()).hexdigest()
    assert len(body["cards"]["cards"]) == len(default_deck().cards)
    assert body["model"]["provenance"]["reconstructed"] is True
    # the model sent back as JSON gives the same text (the editor's round trip)
    again = anyone.http.post("/api/decks/check?game=cafe", json={"model": body["model"]}).json()
    assert again["toml"] == body["toml"] and again["sha256"] == body["sha256"]
    # and so does the canonical text itself
    third = anyone.http.post(
        "/api/decks/check?game=cafe",
        content=body["toml"].encode(),
        headers={"Content-Type": "text/plain"},
    ).json()
    assert third["toml"] == body["toml"]
    # a Coffee Rush card file
    r = anyone.http.post(
        "/api/decks/check?game=coffee-rush", content=CARDS_TEXT.encode(), headers=TOML
    )
    cards = r.json()
    assert cards["ok"] and len(cards["cards"]["drinks"]) == len(default_cards().drinks)


def test_check_explains_every_problem(server: ServerProcess) -> None:
    anyone = Player(server)
    broken = in_card(in_card(DECK_TEXT, "P12", "vp = 5", "vp = 50"), "P07", '"empty"]', '"teapot"]')
    body = anyone.http.post("/api/decks/check?game=cafe", content=broken.encode(), headers=TOML)
    problems = body.json()["problems"]
    assert not body.json()["ok"]
    codes = {p["code"] for p in problems}
    assert {"bad_vp", "bad_cell_token"} <= codes, problems
    for p in problems:
        assert p["code"] in PROBLEM_CODES["cafe"]
        assert set(p) == {"code", "card", "index", "field", "params", "message"}
    vp = next(p for p in problems if p["code"] == "bad_vp")
    assert vp["card"] and isinstance(vp["index"], int) and vp["field"].endswith(".vp")
    # the cards that parsed are drawn; the broken ones are not
    cards = body.json()["cards"]["cards"]
    assert len(cards) == len(default_deck().cards) - 2
    assert {c["id"] for c in cards}.isdisjoint({p["card"] for p in problems})
    # `check` is no deck: other methods are not allowed there
    r = anyone.http.get("/api/decks/check")
    assert _error(r)[0] == 405 and r.headers["allow"] == "POST"
    # not TOML at all: one problem with its line and column
    r = anyone.http.post("/api/decks/check?game=cafe", content=b"a = [\nb = 1", headers=TOML)
    (problem,) = r.json()["problems"]
    assert problem["code"] == "not_toml" and problem["params"]["line"] >= 1


@pytest.mark.parametrize(
    ("body", "headers", "expected"),
    [
        (b"x" * (256 * 1024 + 1), TOML, (413, "too_large")),
        (b'{"model": {"a": 1, "a": 2}}', {"Content-Type": "application/json"}, (400, "bad_json")),
        (b'{"model": ' + b"[" * 5000 + b"]" * 5000 + b"}", {}, (400, "bad_json")),
        (b'{"model": "x"}', {"Content-Type": "application/json"}, (400, "bad_json")),
        (b'{"mode": {}}', {"Content-Type": "application/json"}, (400, "bad_json")),
        (b"\xff\xfe{}", {"Content-Type": "application/json"}, (400, "bad_json")),
        (b"format = 1", {"Content-Type": "text/html"}, (415, "content_type")),
    ],
    ids=["oversized", "duplicate-keys", "deep", "model-not-object", "no-model", "not-utf8", "html"],
)
def test_bad_check_bodies_are_refused(
    server: ServerProcess, body: bytes, headers: dict[str, str], expected: tuple[int, str]
) -> None:
    r = Player(server).http.post("/api/decks/check?game=cafe", content=body, headers=headers)
    assert _error(r) == expected


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('format = "caf\xe9"', "not_utf8"),
        ("[[card]]\n" * 3 + "x = [" * 2000, "not_toml"),
        (DECK_TEXT.replace("version = 1", "version = 99999999999999999999999", 1), None),
        (DECK_TEXT.replace("year = 1868", "year = 123456789012345678901234567890", 1), None),
        (DECK_TEXT.replace('id = "P01"', 'id = "P01"\nid = "P02"', 1), "not_toml"),
    ],
    ids=["latin-1", "deep", "huge-version", "huge-year", "duplicate-key"],
)
def test_hostile_files_are_refused_and_change_nothing(
    server: ServerProcess, text: str, code: str | None
) -> None:
    ana = _registered(server, "Ana")
    raw = text.encode("latin-1") if code == "not_utf8" else text.encode()
    checked = ana.http.post("/api/decks/check?game=cafe", content=raw, headers=TOML).json()
    assert checked["ok"] is False and checked["problems"], checked
    if code is not None:
        assert checked["problems"][0]["code"] == code
    else:
        assert "number_too_large" in {p["code"] for p in checked["problems"]}
    r = ana.http.post("/api/decks?game=cafe", content=raw, headers=TOML)
    assert _error(r) == (400, "invalid_deck")
    assert r.json()["error"]["problems"]
    assert _usable(ana) == set()


# ==== uploads and who may use a deck =================================================================
def test_upload_duplicate_and_owner_changes(server: ServerProcess) -> None:
    ana, bo = _registered(server, "Ana"), _registered(server, "Bo")
    text = my_deck("upload")
    r = _upload(ana, text)
    assert r.status_code == 201, r.text
    deck = r.json()
    expected = read_text("cafe", text.encode(), "x")
    assert deck["sha256"] == expected.sha256
    assert deck["name"] == MARKUP + " upload"  # data, as it was written
    assert deck["owner"] == ana.name and deck["visibility"] == "private"
    assert deck["reconstructed"] is True and deck["cards"] == len(default_deck().cards)
    assert deck["provenance"]["reconstructed"] is True
    sha = deck["sha256"]
    # the same file again, in any spelling: 409, and nothing changes
    assert _error(_upload(ana, expected.text)) == (409, "deck_exists")
    assert _usable(ana) == {sha}
    # the file: its canonical text, for download
    f = ana.http.get(f"/api/decks/{sha}/file")
    assert f.status_code == 200 and f.text == expected.text
    assert f.headers["content-type"].startswith("text/plain")
    assert (
        ".toml" in f.headers["content-disposition"] and "<" not in f.headers["content-disposition"]
    )
    # private: refused to others as if it did not exist
    for path in (f"/api/decks/{sha}", f"/api/decks/{sha}/file", f"/api/games/cafe/data?deck={sha}"):
        assert _error(bo.http.get(path)) == (404, "deck_not_found")
        assert _error(Player(server).http.get(path)) == (404, "deck_not_found")
    assert _error(bo.http.patch(f"/api/decks/{sha}", json={"visibility": "public"})) == (
        404,
        "deck_not_found",
    )
    assert _error(bo.http.delete(f"/api/decks/{sha}")) == (404, "deck_not_found")
    assert sha not in _usable(bo)
    # bo may upload the same file: the text is stored once, each keeps a copy
    assert _upload(bo, text).status_code == 201
    # public: anyone may use it, only its owner may change it
    r = ana.http.patch(f"/api/decks/{sha}", json={"visibility": "public"})
    assert r.status_code == 200 and r.json()["visibility"] == "public"
    carl = _registered(server, "Carl")
    assert sha in _usable(carl)
    assert carl.http.get(f"/api/decks/{sha}").json()["visibility"] == "public"
    data = carl.http.get(f"/api/games/cafe/data?deck={sha}").json()
    assert data["deck_sha256"] == sha and len(data["cards"]) == len(default_deck().cards)
    assert _error(carl.http.patch(f"/api/decks/{sha}", json={"visibility": "private"})) == (
        403,
        "not_owner",
    )
    assert _error(ana.http.patch(f"/api/decks/{sha}", json={"visibility": "everyone"}))[0] == 422
    # deleted: the owner no longer has it
    assert ana.http.delete(f"/api/decks/{sha}").json() == {"deleted": True}
    assert sha not in _usable(ana) and sha not in _usable(carl)
    assert sha in _usable(bo)  # bo's own copy stays


def test_friends_deck_is_for_friends_only(server: ServerProcess) -> None:
    ana, bo, eve = (_registered(server, n) for n in ("Ana", "Bo", "Eve"))
    sha = _upload(ana, my_deck("friends"), visibility="friends").json()["sha256"]
    assert sha not in _usable(bo) and _error(bo.http.get(f"/api/decks/{sha}"))[0] == 404
    assert ana.post(f"/api/friends/{bo.name}").status_code == 200
    assert sha not in _usable(bo)  # asked, not yet friends
    assert bo.post(f"/api/friends/{ana.name}").json()["state"] == "friend"
    assert sha in _usable(bo) and bo.http.get(f"/api/decks/{sha}").status_code == 200
    assert sha not in _usable(eve) and _error(eve.http.get(f"/api/decks/{sha}"))[0] == 404
    # a table on it: for a friend yes, for anyone else 404
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    assert bo.create("cafe", seats, options={"deck_sha256": sha})["options"]["deck_sha256"] == sha
    r = eve.http.post(
        "/api/tables", json={"game": "cafe", "seats": seats, "options": {"deck_sha256": sha}}
    )
    assert _error(r) == (404, "deck_not_found")
    # friends no more: no more deck
    assert ana.http.delete(f"/api/friends/{bo.name}").status_code == 200
    assert sha not in _usable(bo)


def test_guests_keep_private_decks_only(server: ServerProcess) -> None:
    guest = Player(server).guest()
    assert _error(_upload(guest, my_deck("guest"), visibility="public")) == (403, "guest_decks")
    assert _upload(guest, my_deck("guest")).status_code == 201
    assert _error(Player(server).http.post("/api/decks?game=cafe", content=b"", headers=TOML)) == (
        401,
        "login",
    )


# ==== tables on a deck ===========================================================================
def _play_against_a_bot(player: Player, game: str, options: dict[str, Any]) -> dict[str, Any]:
    table = player.create(
        game, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], options=options
    )
    assert player.post(f"/api/tables/{table['id']}/start").status_code == 200
    sock = player.socket(table["id"])
    first = sock.recv_until("snapshot")
    play_out([sock], random.Random(7))
    sock.drain(0.3)
    sock.close()
    return {"table": table, "first": first, "received": sock.received}


def _inspect(record: dict[str, Any], flag: str, text: str, folder: Path) -> str:
    (folder / "record.json").write_text(json.dumps(record), encoding="utf-8")
    (folder / "deck.toml").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "coffeetable",
            "inspect",
            str(folder / "record.json"),
            flag,
            str(folder / "deck.toml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_table_on_an_uploaded_deck_plays_to_the_end_and_replays(
    server: ServerProcess, tmp_path: Path
) -> None:
    ana = _registered(server, "Ana")
    sha = _upload(ana, my_deck("table")).json()["sha256"]
    played = _play_against_a_bot(ana, "cafe", {"deck_sha256": sha})
    table = played["table"]
    assert table["options"]["deck_sha256"] == sha
    assert table["deck"] == {
        "sha256": sha,
        "name": MARKUP + " table",
        "reconstructed": True,
        "transcription": True,
    }
    # the view names the cards of this deck; and gives away nothing hidden
    record = ana.http.get(f"/api/tables/{table['id']}/record").json()
    assert record["options"]["deck_sha256"] == sha
    game = read_text("cafe", ana.http.get(f"/api/decks/{sha}/file").content, "x")
    assert game.ok
    from coffeetable.server.deckbook import build

    custom = build("cafe", game.text).game
    state = custom.new_initial_state(2, record["seed"], record["options"])
    states = {0: state.to_json()}
    checked = 0
    for version, (seat, text) in enumerate(record["actions"], start=1):
        if version % 25 == 1:  # the views' contract and no peeking, as on the default deck
            check_view_basics(custom, state)
            check_no_peek(state)
            checked += 1
        state.apply(seat, custom.parse_action(text))
        states[version] = state.to_json()
    assert state.is_over() and checked >= 2
    for message in played["received"]:
        full = states.get(message.get("version", -1), states[0])
        assert not leaks(message, full, record["seed"]), message.get("type")
    # the same keys as a view on the default deck
    default = _play_against_a_bot(ana, "cafe", {})
    assert set(default["first"]["view"]) == set(played["first"]["view"])
    assert "deck" not in default["table"]
    # the record replays on the command line with the downloaded file
    out = _inspect(record, "--deck", game.text, tmp_path)
    assert "final" in out.lower() or "score" in out.lower()
    # and a replay step on the server
    step = ana.http.get(f"/api/tables/{table['id']}/replay/2")
    assert step.status_code == 200 and step.json()["version"] == 2
    # imported by someone who may use the deck: yes; by anyone else: 404
    bo = _registered(server, "Bo")
    assert _error(bo.http.post("/api/records", json=record)) == (404, "deck_not_found")
    imported = ana.http.post("/api/records", json=record)
    assert imported.status_code == 201, imported.text
    assert imported.json()["options"]["deck_sha256"] == sha


def test_a_coffee_rush_table_on_uploaded_cards(server: ServerProcess, tmp_path: Path) -> None:
    ana = _registered(server, "Ana")
    r = _upload(ana, my_cards("table"), game="coffee-rush")
    assert r.status_code == 201, r.text
    sha = r.json()["sha256"]
    # a Café table cannot use a card file, nor the other way round
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    r = ana.http.post(
        "/api/tables", json={"game": "cafe", "seats": seats, "options": {"deck_sha256": sha}}
    )
    assert _error(r) == (404, "deck_not_found")
    played = _play_against_a_bot(ana, "coffee-rush", {"cards_sha256": sha})
    assert played["table"]["deck"]["sha256"] == sha
    record = ana.http.get(f"/api/tables/{played['table']['id']}/record").json()
    assert record["options"]["cards_sha256"] == sha
    text = ana.http.get(f"/api/decks/{sha}/file").text
    _inspect(record, "--cards", text, tmp_path)


def test_a_table_on_a_deck_resumes_after_a_restart(tmp_path: Path) -> None:
    with serve_on("sqlite", tmp_path) as server:
        ana = _registered(server, "Ana")
        sha = _upload(ana, my_deck("restart")).json()["sha256"]
        table = ana.create(
            "cafe",
            [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
            options={"deck_sha256": sha},
        )
        assert ana.post(f"/api/tables/{table['id']}/start").status_code == 200
        server.restart()
        sock = ana.socket(table["id"])
        snapshot = sock.recv_until("snapshot")
        assert snapshot["table"]["deck"]["sha256"] == sha
        play_out([sock], random.Random(3))
        sock.close()
        # deleted by its owner, the deck still plays the table's replays
        assert ana.http.delete(f"/api/decks/{sha}").json() == {"deleted": True}
        server.restart()
        record = ana.http.get(f"/api/tables/{table['id']}/record")
        assert record.status_code == 200 and record.json()["options"]["deck_sha256"] == sha


# ==== calibration ===============================================================================
def test_calibration_runs_on_the_bot_workers(server: ServerProcess) -> None:
    ana, bo = _registered(server, "Ana"), _registered(server, "Bo")
    sha = _upload(ana, my_deck("calibrate")).json()["sha256"]
    assert ana.http.get(f"/api/decks/{sha}/calibration").json()["status"] == "none"
    assert _error(bo.post(f"/api/decks/{sha}/calibrate")) == (404, "deck_not_found")
    r = ana.post(f"/api/decks/{sha}/calibrate")
    assert r.status_code == 202 and r.json() == {"status": "queued"}
    deadline = time.monotonic() + 120
    while True:
        got = ana.http.get(f"/api/decks/{sha}/calibration").json()
        if got["status"] in ("done", "failed") or time.monotonic() > deadline:
            break
        assert got["status"] in ("queued", "running")
        again = ana.post(f"/api/decks/{sha}/calibrate")
        if again.status_code == 202:
            # the run ended between the two requests, so this one queued the next; a second
            # request while one is queued or running is refused (storage test_decks proves it
            # without a race)
            assert again.json() == {"status": "queued"}
        else:
            assert _error(again) == (409, "calibration_running")
        time.sleep(0.3)
    assert got["status"] == "done", got
    figures = got["figures"]
    assert figures["games"] == 1 and figures["players"] == 2 and figures["bot"] == "random"
    assert 0 <= figures["median_pick_rate"] <= 1 and figures["cards"]
    assert isinstance(figures["no_dominant_card_holds"], bool)
    assert got["finished"]
